# Assertions shared by the integration and e2e tests (sourced by their lib.sh).
fail() { echo "FAIL: $*" >&2; exit 1; }
# assert_jq JSONFILE FILTER: the jq filter must print "true"
assert_jq() {
	local out
	out=$(jq -e "$2" "$1") || fail "jq '$2' on $1 gave: $out"
	[ "$out" = true ] || fail "jq '$2' on $1 gave: $out"
}
no_leftover_domains() {
	local left
	left=$(virsh -c qemu:///system list --all --name | grep '^mmlab-' || true)
	[ -z "$left" ] || fail "domains left behind: $left"
}
