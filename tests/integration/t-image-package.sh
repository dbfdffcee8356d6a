#!/bin/bash
# A Debian kernel package booted on the disk image (issue 29): the package's
# own modules mount the root through the initramfs mmlab builds for it
# (docs/image.md, BOOTING IT): rootinit loads virtio_pci, virtio_blk, ext4
# and their dependencies from the package's modules.dep, mounts /dev/vda1
# and runs the image's agent. No distro initrd is involved (a package has
# none). The initramfs is cached by content: a second run builds none.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
for p in apt-cache cpio; do
	command -v $p >/dev/null || { echo "needs $p (scripts/install-deps test)"; exit 77; }
done
P=linux-image-6.1.0-47-amd64
apt-cache policy "$P" | grep 'Candidate: [0-9]' >/dev/null || { echo "apt knows no $P (apt-get update?)"; exit 77; }

# the disk image, the package and the accel verdict from the usual cache;
# initrd/ of a cache of its own, so the first run builds the initramfs
real=${MMLAB_CACHE:-$HOME/.cache/mmlab}
mkdir -p "$real/images" "$real/kernels" "$T/cache"
ln -s "$real/images" "$T/cache/images"
ln -s "$real/kernels" "$T/cache/kernels"
[ -f "$real/accel.json" ] && cp "$real/accel.json" "$T/cache/"
export MMLAB_CACHE="$T/cache"

cat >"$T/pkg-disk.yaml" <<JOB
name: pkg-disk
variants:
  - { name: k47, kernel: { package: $P } }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 512M }
workload: { name: writefile, params: { size: 64K } }
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
image: { kind: debootstrap }
collect_files: [/var/log/mmlab/writefile.out]
JOB
"$MMLAB" run "$T/pkg-disk.yaml" 2>&1 | tee "$T/run1.log"
"$MMLAB" results show --json >"$T/r1.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r1.json" "$it.status == \"ok\""
assert_jq "$T/r1.json" "$it.guest.kernel_release == \"6.1.0-47-amd64\""
assert_jq "$T/r1.json" "$it.guest.nodes | length == 2"
assert_jq "$T/r1.json" ".variants[0].kernel.package.name == \"$P\""
assert_jq "$T/r1.json" '.job_resolved.image.kind == "debootstrap"'
assert_jq "$T/r1.json" "$it.files[0].size == 65536"
con=$("$MMLAB" results path)/k47/0/console.log
grep -q "Run /init as init process" "$con" || fail "the guest did not start mmlab's /init"
grep -q "EXT4-fs (vda1): mounted" "$con" || fail "the root was not mounted from vda1"
grep -q "mmlab-agent: hello: kernel 6.1.0-47-amd64" "$con" || fail "the agent did not start on the disk"
grep -q "mmlab-rootinit:" "$con" && fail "rootinit reported a problem: $(grep mmlab-rootinit: "$con")"
grep -q "udev" "$con" && fail "udev ran: this is not mmlab's initramfs"
initrd=$(sed -n "s/.*the disk image's initramfs for 6.1.0-47-amd64: \([0-9]*\) module(s), \(.*\)$/\2/p" "$T/run1.log")
[ -f "$initrd" ] || fail "the run did not say which initramfs it built (or it is gone): '$initrd'"
cpio -it <"$initrd" >"$T/initrd.list" 2>/dev/null || fail "$initrd is not a cpio"
for m in init modules lib/modules/virtio_pci.ko lib/modules/virtio_blk.ko lib/modules/ext4.ko lib/modules/jbd2.ko; do
	grep -qx "$m" "$T/initrd.list" || fail "$initrd lacks $m"
done
[ "$(stat -c %s "$initrd")" -lt $((16 << 20)) ] || fail "$initrd is larger than 16 MiB"

# again: the same initramfs from the cache, none built
m0=$(stat -c %Y "$initrd")
"$MMLAB" run "$T/pkg-disk.yaml" 2>&1 | tee "$T/run2.log"
grep -q "the disk image's initramfs for" "$T/run2.log" && fail "the second run built the initramfs again"
[ "$(stat -c %Y "$initrd")" = "$m0" ] || fail "the cached initramfs changed"
"$MMLAB" results show --json >"$T/r2.json"
assert_jq "$T/r2.json" "$it.status == \"ok\""
echo "ok: $P booted on the disk image through $initrd ($(wc -l <"$T/initrd.list") entries)"
