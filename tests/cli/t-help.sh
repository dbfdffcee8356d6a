# Every command of `mmlab --help` answers --help, -h and `mmlab help CMD`
# with its usage and exit 0, and so does each subcommand; the top-level
# help lists exactly these commands.
. "$MMLAB_SRCDIR/tests/cli/lib.sh"
cmds="run doctor results image compare report queue submit repro kernel bisect track"
declare -A subs=(
	[results]="list show path reindex import"
	[image]="build list gc initrd"
	[queue]="add run status cancel retry build exec finish"
	[kernel]="build fetch list show gc"
	[bisect]="start run status log replay reset"
	[track]="add run status report list"
)

expect 0 --help
cp "$T/out" "$T/top"
has "$T/top" '^usage: mmlab \[--results DIR\] \[--connect URI\] <command>'
listed=$(sed -n '/^commands:/,/^$/p' "$T/top" | awk 'NF > 1 { print $1 }' | tr '\n' ' ')
[ "$listed" = "$cmds " ] || fail "mmlab --help lists '$listed', expected '$cmds '"
expect 0 help
cmp -s "$T/out" "$T/top" || fail "'mmlab help' differs from 'mmlab --help'"
expect 0 -h
cmp -s "$T/out" "$T/top" || fail "'mmlab -h' differs from 'mmlab --help'"
expect 0 --version
has "$T/out" '^mmlab [0-9]+\.[0-9]+\.[0-9]+'

for c in $cmds; do
	expect 0 "$c" --help
	cp "$T/out" "$T/$c.help"
	has "$T/$c.help" "^usage: mmlab $c( |$)"
	# more than the usage: what the command does
	[ "$(wc -l <"$T/$c.help")" -gt 8 ] || fail "mmlab $c --help is only $(cat "$T/$c.help")"
	[ ! -s "$T/err" ] || fail "mmlab $c --help wrote to stderr: $(cat "$T/err")"
	expect 0 "$c" -h
	cmp -s "$T/out" "$T/$c.help" || fail "mmlab $c -h differs from --help"
	expect 0 help "$c"
	cmp -s "$T/out" "$T/$c.help" || fail "mmlab help $c differs from mmlab $c --help"
	for s in ${subs[$c]:-}; do
		# the usage lines of the subcommand (its own usage, or the command's)
		has "$T/$c.help" "^( +|usage: )mmlab $c $s( |$)"
		expect 0 "$c" "$s" --help
		has "$T/out" "^( +|usage: )mmlab $c $s( |$)"
		[ ! -s "$T/err" ] || fail "mmlab $c $s --help wrote to stderr: $(cat "$T/err")"
	done
done
# nothing was made: --help touches no store and no cache
[ ! -e "$MMLAB_RESULTS" ] || fail "--help created the results store"
[ ! -e "$MMLAB_CACHE" ] || fail "--help created the cache"
echo ok
