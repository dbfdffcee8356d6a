# Shared helpers of the CLI tests (sourced): no libvirt, no guest.
set -euo pipefail
MMLAB="$MMLAB_SRCDIR/mmlab"
T=$(mktemp -d "$MMLAB_SRCDIR/build/clitest/tmp.XXXXXX")
export MMLAB_RESULTS="$T/results"
export MMLAB_CACHE="$T/cache"
# no hypervisor: a command that connected to libvirt would fail
export MMLAB_LIBVIRT_URI="test:///nonexistent/mmlab-cli-tests"
unset MMLAB_GUEST_DIR MMLAB_IMAGES_DIR MMLAB_REPRO_DIR

. "$MMLAB_SRCDIR/tests/assert.sh"
trap cleanup EXIT

# expect RC ARGS...: run mmlab ARGS, fail unless it exits RC; what it
# printed is in $T/out, its errors in $T/err
expect() {
	local want=$1 rc=0
	shift
	"$MMLAB" "$@" >"$T/out" 2>"$T/err" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "mmlab $*: exit $rc, expected $want; stderr: $(head -c 600 "$T/err")"
}
# has FILE ERE: the file has a line matching the extended regex
has() {
	grep -qE -- "$2" "$1" || fail "no line matches /$2/ in $1: $(head -c 800 "$1")"
}
# hasnt FILE ERE: no line of the file matches
hasnt() {
	! grep -qE -- "$2" "$1" || fail "a line matches /$2/ in $1: $(grep -m 3 -E -- "$2" "$1")"
}

# the fixture runs (tests/unit/compare/): demo.json, a real `make demo`
# run (2 variants x 3 iterations, nothing significant, 1 Hz series), and
# run1.json (3 variants, 15 iterations of which one failed, seven
# significant changes); their golden outputs are the unit tests' too
FIX="$MMLAB_SRCDIR/tests/unit/compare"
DEMO_RUN=20261203-123005-demo-352e
RUN1=20261202-150000-demo-ab12

# store_run FIXTURE.json: write the run into $MMLAB_RESULTS as the store
# keeps it (run.json, then VARIANT/N/iteration.json per iteration) and
# print its id; the index (mmlab.db) is made by the first command
store_run() {
	local fix=$1 run v n i
	run=$(jq -r .run "$fix")
	mkdir -p "$MMLAB_RESULTS/$run"
	jq '.variants |= map(del(.iterations))' "$fix" >"$MMLAB_RESULTS/$run/run.json"
	for v in $(jq -r '.variants[].name' "$fix"); do
		n=$(jq --arg v "$v" '.variants[] | select(.name == $v) | .iterations | length' "$fix")
		for ((i = 0; i < n; i++)); do
			mkdir -p "$MMLAB_RESULTS/$run/$v/$i"
			jq --arg v "$v" --argjson i "$i" \
				'.variants[] | select(.name == $v) | .iterations[$i]' "$fix" \
				>"$MMLAB_RESULTS/$run/$v/$i/iteration.json"
		done
	done
	echo "$run"
}
# fixture_store: the two fixture runs in $MMLAB_RESULTS
fixture_store() {
	[ "$(store_run "$FIX/demo.json")" = "$DEMO_RUN" ] || fail "demo.json is not run $DEMO_RUN"
	[ "$(store_run "$FIX/run1.json")" = "$RUN1" ] || fail "run1.json is not run $RUN1"
}
