#!/bin/bash
# collect_files against a hostile guest (issue 19): in a test image, a
# program in the place of the noop workload writes FILE records of its own
# to the data channel, as any root process in a guest can, with valid
# framing and checksums (tests/guest/forgefile.c): paths the job did not
# ask for, ".." climbing out, sizes that lie. The host stores what the job
# asked for and the agent sent, refuses the lies, and writes nothing else,
# anywhere. Runs on the initramfs: files come back from it too.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"

make -C "$MMLAB_SRCDIR" -s build/test-guest/forgefile
g=$T/guest
cp -r "$MMLAB_SRCDIR/build/guest" "$g"
cp "$MMLAB_SRCDIR/build/test-guest/forgefile" "$g/workloads/noop"
export MMLAB_GUEST_DIR=$g
# the boot's stage is kept, so that it can be searched too
export MMLAB_KEEP_STAGE=1
before=$(ls -d /tmp/mmlab-stage-* 2>/dev/null | sort || true)
rm -f /tmp/mmlab-forged /tmp/mmlab-forged-enc

ok=/var/log/mmlab/forge-ok lied=/var/log/mmlab/forge-lied huge=/var/log/mmlab/forge-huge
j=$(job hostile "{ name: noop }" "" "collect_files: [$ok, $lied, $huge]")
"$MMLAB" run "$j" 2>&1 | tee "$T/run.log" || fail "the run failed"
run=$(basename "$("$MMLAB" results path)")
# ours among the stages made meanwhile (other users of the host make theirs):
# its initrd ends with the plan, uncompressed
stage=
for s in $(comm -13 <(echo "$before") <(ls -d /tmp/mmlab-stage-* | sort)); do
	grep -qa "^run=$run\$" "$s/base-0/initrd" 2>/dev/null && stage=$s
done
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations[0]'
assert_jq "$T/r.json" "$it.status == \"ok\""
assert_jq "$T/r.json" "$it.files[0] == {\"path\": \"$ok\", \"size\": 40, \"stored\": \"files$ok\"}"
assert_jq "$T/r.json" "$it.files[1].path == \"$lied\" and ($it.files[1].error | test(\"more of it than the 4 bytes\"))"
assert_jq "$T/r.json" "$it.files[2].path == \"$huge\" and ($it.files[2].error | test(\"impossible size\"))"
# the three forged paths not asked for; the agent's own records of the two lied about
assert_jq "$T/r.json" "$it.stream.file_records.ignored == 3 and $it.stream.file_records.late == 2"
grep -q "file record(s) that were not asked for" "$T/run.log" || fail "no warning about the ignored records"
dir=$("$MMLAB" results path)/base/0
[ "$(cat "$dir/files$ok")" = "written by the guest, sent by the agent" ] || fail "forge-ok has the wrong contents"
# nothing else was written: not in the results, not in the stage, not in /tmp
files=$(cd "$MMLAB_RESULTS" && find . -path '*/files/*' -type f)
[ "$files" = "./$run/base/0/files$ok" ] ||
	fail "the results hold other collected files: $files"
[ -n "$stage" ] || fail "no stage of this run was kept"
left=$(find "$MMLAB_RESULTS" "$stage" /tmp -maxdepth 6 -name 'mmlab-forged*' 2>/dev/null || true)
[ -z "$left" ] || fail "forged files were written: $left"
[ "$(cd "$stage" && find . -path '*/files/*' -type f)" = "./base-0/files$ok" ] ||
	fail "the stage holds other collected files: $(cd "$stage" && find . -path '*/files/*')"
rm -rf "$stage"
no_leftover_domains
echo ok
