# Every command answers --help with exit 0; bad usage is exit 2 (moved
# here from tests/integration/: it boots nothing).
. "$MMLAB_SRCDIR/tests/cli/lib.sh"
"$MMLAB" --help | grep -q 'usage: mmlab' || fail "mmlab --help"
for c in run doctor results image compare report; do
	"$MMLAB" "$c" --help >"$T/help" || fail "mmlab $c --help exit $?"
	grep -q "usage: mmlab $c" "$T/help" || fail "mmlab $c --help prints no usage"
	"$MMLAB" help "$c" >/dev/null || fail "mmlab help $c"
done
set +e
"$MMLAB" no-such-command 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "unknown command gave exit $rc"
grep -q "no command 'no-such-command'" "$T/err" || fail "unknown command message"
set +e
"$MMLAB" rn 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "a mistyped command gave exit $rc"
grep -q "no command 'rn' (did you mean 'run'?)" "$T/err" || fail "no nearest command: $(cat "$T/err")"
set +e
"$MMLAB" run 2>/dev/null; rc=$?
set -e
[ $rc = 2 ] || fail "run without a job gave exit $rc"
"$MMLAB" results list | grep -q 'no runs' || fail "empty store listing"
echo ok
