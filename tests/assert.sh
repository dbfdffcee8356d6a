# Assertions shared by the integration and e2e tests (sourced by their lib.sh).
fail() { echo "FAIL: $*" >&2; exit 1; }
# assert_jq JSONFILE FILTER: the jq filter must print "true"
assert_jq() {
	local out
	out=$(jq -e "$2" "$1") || fail "jq '$2' on $1 gave: $out"
	[ "$out" = true ] || fail "jq '$2' on $1 gave: $out"
}
# no domain of this test's runs (the runs in $MMLAB_RESULTS) is left; other
# users of the host may have their own mmlab-* domains running
no_leftover_domains() {
	local left="" d r
	for d in $(virsh -c qemu:///system list --all --name | grep '^mmlab-' || true); do
		for r in $(ls "$MMLAB_RESULTS" 2>/dev/null); do
			[[ "$d" == "mmlab-$r-"* ]] && left="$left $d"
		done
	done
	[ -z "$left" ] || fail "domains left behind:$left"
}
# the exit trap of every test: a passing test's directory T goes; a failing
# one's stays, and the logs in it (queue workers, Slurm steps, builds) are
# shown, so a CI failure can be diagnosed from the CI log alone
cleanup() {
	local rc=${1:-$?} f
	if [ "$rc" = 0 ]; then
		rm -rf "$T"
		return 0
	fi
	echo "test failed (exit $rc); its directory is kept: $T" >&2
	while IFS= read -r f; do
		echo "--- the end of $f:" >&2
		tail -n 25 "$f" >&2
	done < <(find "$T" \( -name '*.log' -o -name '*.out' \) -size -4M 2>/dev/null | sort | head -n 20)
	return 0
}
