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
