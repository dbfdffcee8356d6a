# The results store fills up in the middle of a run (a 16 MiB tmpfs; the
# test is root): the iteration that cannot be stored is a clear error, the
# index and run.json stay readable and true, and after space is freed
# `mmlab run --resume` completes the run.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
store="$T/small"
mkdir -p "$store"
mount -t tmpfs -o size=16m mmlab-itest-full "$store"
umount_store() { umount "$store" 2>/dev/null || true; }
trap 'rc=$?; umount_store; cleanup $rc' EXIT
export MMLAB_RESULTS="$store/results"
j=$(job full '{ name: noop }')
sed -i 's/^iterations: 1/iterations: 3/' "$j"
"$MMLAB" run --order sequential "$j" >"$T/out" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
	ls "$MMLAB_RESULTS"/*/base/0/iteration.json >/dev/null 2>&1 && break
	sleep 0.5
done
ls "$MMLAB_RESULTS"/*/base/0/iteration.json >/dev/null || fail "first iteration never stored"
# fill what is left: the next iteration's files cannot be written
dd if=/dev/zero of="$store/filler" bs=64k 2>/dev/null || true
set +e
wait $pid; rc=$?
set -e
cat "$T/out"
[ $rc != 0 ] || fail "a run whose store is full exited 0"
[ $rc -lt 128 ] || fail "mmlab died of a signal ($rc)"
grep -q "No space left on device" "$T/out" || fail "the error does not say the disk is full"
no_leftover_domains
# the index and run.json are intact
[ "$(sqlite3 "$MMLAB_RESULTS/mmlab.db" 'PRAGMA integrity_check')" = ok ] ||
	fail "mmlab.db is damaged"
run=$(basename "$(dirname "$(dirname "$(ls -d "$MMLAB_RESULTS"/*/base/0)")")")
jq -e . "$MMLAB_RESULTS/$run/run.json" >/dev/null || fail "run.json is not JSON"
for f in "$MMLAB_RESULTS/$run"/base/*/iteration.json; do
	jq -e '.status' "$f" >/dev/null || fail "$f is damaged"
done
rm -f "$store/filler"
"$MMLAB" run --resume "$run"
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" '[.variants[0].iterations[] | select(.status == "ok")] | length == 3'
no_leftover_domains
echo ok
