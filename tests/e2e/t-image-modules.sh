# A kernel the lab built boots the debootstrap disk image (issue 9):
# kernels/lab.config builds virtio-pci, virtio-blk and ext4 in, so e2e-c4
# boots from the disk without an initrd; the variant's modules
# (modules_install output of its cache entry, virtio_balloon.ko here) reach
# the guest's /lib/modules on the boot's payload disk, without a libguestfs
# appliance (issue 19), and the workload's module (pagebench, built against
# the entry's kit) loads in the guest.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

"$MMLAB" kernel build --tree "$REPO" --ref e2e-c4 --fragment "$LAB_CONFIG" \
	--name c4 --json >"$T/c4.json"
key=$(jq -r .cache_key "$T/c4.json")
rel=$("$MMLAB" kernel show "$key" --json | jq -r .release)
entry=$MMLAB_CACHE/kernels/entries/$key
ko=lib/modules/$rel/kernel/drivers/virtio/virtio_balloon.ko
[ -f "$entry/$ko" ] || fail "the cache entry has no $ko"

# make check runs the integration tier first: its cache (build/cache) holds
# the same debootstrap image (same recipe hash); share it instead of a
# second 3-minute debootstrap
mkdir -p "$MMLAB_CACHE/images"
for f in "$MMLAB_SRCDIR"/build/cache/images/debootstrap-*; do
	[ -e "$f" ] && [ ! -e "$MMLAB_CACHE/images/${f##*/}" ] &&
		{ ln "$f" "$MMLAB_CACHE/images/" 2>/dev/null || cp -p "$f" "$MMLAB_CACHE/images/"; }
done
"$MMLAB" image build --kind debootstrap --json >"$T/img.json" || fail "image build failed"
base=$(jq -r .path "$T/img.json")
sum0=$(sha256sum "$base" | cut -d' ' -f1)

cat >"$T/disk.yaml" <<JOB
name: e2e-image-modules
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: c4, ref: e2e-c4 }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: pagebench, params: { max_order: 2, iters: 10 } }
image: { kind: debootstrap }
collect_files: [ /lib/modules/$rel/modules.order, /$ko ]
iterations: 1
timeouts: { boot: 300s, iteration: 300s }
JOB
LIBGUESTFS_BACKEND=mmlab-no-appliance-per-boot "$MMLAB" run "$T/disk.yaml" 2>&1 | tee "$T/run.log"
grep -q "the kernel modules $(realpath "$entry")/lib/modules/$rel go into the guest's /lib/modules/$rel" "$T/run.log" ||
	fail "the variant's modules were not put into the boot's payload"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" "$it.status == \"ok\""
assert_jq "$T/r.json" '.job_resolved.image.kind == "debootstrap"'
# the lab kernel itself booted from the disk (no distro initrd), on 2 nodes
assert_jq "$T/r.json" "$it.guest.kernel_release == \"$rel\""
assert_jq "$T/r.json" "$it.guest.nodes | length == 2"
dir=$("$MMLAB" results path)/c4/0
grep -q "root=/dev/vda1" "$dir/console.log" || fail "the guest did not boot from the disk"
grep -q "VFS: Mounted root (ext4 filesystem)" "$dir/console.log" || fail "the root is not the ext4 disk"
nmods=$(cd "$entry/lib/modules/$rel" && find . -type f | wc -l)
grep -q "mmlab-agent: payload: $((nmods + 2)) file(s)" "$dir/console.log" ||
	fail "the payload did not hold the plan, pagebench.ko and the $nmods files of the module tree: $(grep payload: "$dir/console.log")"
# the guest's /lib/modules/<its release> holds the variant's modules
assert_jq "$T/r.json" "$it.files[0].path == \"/lib/modules/$rel/modules.order\" and ($it.files[0] | has(\"stored\"))"
grep -qx "kernel/drivers/virtio/virtio_balloon.ko" "$dir/files/lib/modules/$rel/modules.order" ||
	fail "modules.order in the guest does not list virtio_balloon.ko"
cmp "$dir/files/$ko" "$entry/$ko" || fail "the guest's virtio_balloon.ko is not the variant's"
[ "$(modinfo -F vermagic "$dir/files/$ko" | cut -d' ' -f1)" = "$rel" ] ||
	fail "the guest's virtio_balloon.ko is not built for $rel"
# and the workload module loaded in that guest
for o in 0 1 2; do
	assert_jq "$T/r.json" "$it.metrics[\"pagebench.alloc_cycles.o$o\"] > 0"
done
[ "$(sha256sum "$base" | cut -d' ' -f1)" = "$sum0" ] || fail "the cached base image changed"
no_leftover_domains
echo ok
