#!/bin/bash
# The debootstrap disk image (docs/image.md): built once and cached in
# $MMLAB_CACHE; usemem on a 2-node guest booted from it has the metric
# names of the initramfs; a file the workload writes under /var/log comes
# back with collect_files; the cached base image never changes. A boot
# starts no libguestfs appliance (issue 19): the runs have a libguestfs
# backend that cannot work, and the plan reaches the guest on its payload
# disk.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"

"$MMLAB" image build --kind debootstrap --json >"$T/build.json" || fail "image build failed"
base=$(jq -r .path "$T/build.json")
[ -f "$base" ] || fail "image build printed $base, which is not a file"
"$MMLAB" image list --json >"$T/list.json"
assert_jq "$T/list.json" "[.[] | select(.kind == \"debootstrap\" and .path == \"$base\")] | length == 1"
sum0=$(sha256sum "$base" | cut -d' ' -f1)

# from here on, a libguestfs appliance would fail: only the image build has one
export LIBGUESTFS_BACKEND=mmlab-no-appliance-per-boot

# usemem, disk image vs initramfs: same metric names, 2 nodes
j=$(job disk-usemem "{ name: usemem, params: { size: 64M } }" "" "image: { kind: debootstrap }")
"$MMLAB" run "$j" || fail "usemem run on the disk image failed"
"$MMLAB" results show --json >"$T/disk.json"
it='.variants[0].iterations[0]'
assert_jq "$T/disk.json" "$it.status == \"ok\""
assert_jq "$T/disk.json" "$it.guest.nodes | length == 2"
assert_jq "$T/disk.json" '.job_resolved.image.kind == "debootstrap"'
assert_jq "$T/disk.json" "$it.metrics | has(\"usemem.elapsed_s.T1\") and has(\"vmstat.pgfault\")"
grep -q "root=/dev/vda1" "$MMLAB_RESULTS"/*/base/0/console.log || fail "the guest did not boot from the disk"
grep -q "mmlab-agent: payload: 1 file(s)" "$MMLAB_RESULTS"/*/base/0/console.log ||
	fail "the agent did not unpack the plan from the payload disk"

j=$(job ram-usemem "{ name: usemem, params: { size: 64M } }")
"$MMLAB" run "$j" || fail "usemem run on the initramfs failed"
"$MMLAB" results show --json >"$T/ram.json"
diff <(jq -r "$it.metrics | keys[]" "$T/disk.json") \
	<(jq -r "$it.metrics | keys[]" "$T/ram.json") >"$T/names.diff" ||
	fail "metric names differ between the disk image and the initramfs: $(head -20 "$T/names.diff")"

# a file written by the workload under /var/log comes back
j=$(job disk-files "{ name: writefile, params: { size: 256K } }" "" "image: { kind: debootstrap }
collect_files: [/var/log/mmlab/writefile.out, /var/log/no-such-file]")
"$MMLAB" run "$j" || fail "writefile run on the disk image failed"
"$MMLAB" results show --json >"$T/files.json"
assert_jq "$T/files.json" "$it.status == \"ok\""
assert_jq "$T/files.json" "$it.files[0] == {\"path\": \"/var/log/mmlab/writefile.out\", \"size\": 262144, \"stored\": \"files/var/log/mmlab/writefile.out\"}"
assert_jq "$T/files.json" "$it.files[1] == {\"path\": \"/var/log/no-such-file\", \"error\": \"not in the guest\"}"
assert_jq "$T/files.json" "$it.stream.file_records == {\"total\": 2, \"ignored\": 0, \"late\": 0}"
dir=$("$MMLAB" results path)/base/0
[ "$(stat -c %s "$dir/files/var/log/mmlab/writefile.out")" = 262144 ] || fail "collected file has the wrong size"
[ "$(head -c 26 "$dir/files/var/log/mmlab/writefile.out")" = abcdefghijklmnopqrstuvwxyz ] ||
	fail "collected file has the wrong contents"
# the stored stream is the data channel without the file's records
grep -qa abcdefghijklmnopqrstuvwxyz "$dir/agent.bin" && fail "agent.bin holds the collected file"

# the base image is what it was
[ "$(sha256sum "$base" | cut -d' ' -f1)" = "$sum0" ] || fail "the cached base image changed"
ls /tmp/mmlab-stage-* >/dev/null 2>&1 && ls -d /tmp/mmlab-stage-*/base.qcow2 2>/dev/null | grep -q . &&
	echo "note: stage directories of other runs exist"
no_leftover_domains
echo ok
