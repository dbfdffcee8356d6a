# Bad arguments of every command: the exit status (2: bad usage or input,
# 1: a run that could not be loaded) and the one-line message saying what
# is wrong, on stderr, with nothing on stdout.
. "$MMLAB_SRCDIR/tests/cli/lib.sh"
fixture_store

# bad RC ERE ARGS...: mmlab ARGS exits RC, prints nothing on stdout and a
# message matching ERE on stderr
bad() {
	local rc=$1 re=$2
	shift 2
	expect "$rc" "$@"
	[ ! -s "$T/out" ] || fail "mmlab $*: wrote to stdout: $(head -c 300 "$T/out")"
	has "$T/err" "$re"
}
E='^mmlab: error: '

# the command line itself
bad 2 "${E}unknown option --bogus; see 'mmlab --help'" --bogus
bad 2 "${E}--results wants a value \(DIR\); see 'mmlab --help'" --results
bad 2 "${E}no command 'bisekt' \(did you mean 'bisect'\?\)" bisekt
bad 2 "${E}no command 'reslts' \(did you mean 'results'\?\)" reslts
bad 2 "${E}no command 'xyzzy'" xyzzy
hasnt "$T/err" 'did you mean'

# an unknown option names the command and its help
for c in run doctor compare report submit repro; do
	bad 2 "${E}$c: unknown option --bogus; see 'mmlab $c --help'" "$c" --bogus
done
# also after an operand (it once named the operand as the command)
bad 2 "${E}compare: unknown option --bogus; see 'mmlab compare --help'" compare ab12 --bogus
bad 2 "${E}results show: unknown option --bogus; see 'mmlab results show --help'" \
	results show ab12 --bogus
for c in "results list" "image list" "queue status" "kernel list" "bisect status" "track list"; do
	# shellcheck disable=SC2086 # the command and its subcommand
	bad 2 "${E}$c: unknown option --bogus; see 'mmlab $c --help'" $c --bogus
done

# run
bad 2 "${E}mmlab run wants one job file; see 'mmlab run --help'" run a.yaml b.yaml
bad 2 "${E}--order is 'random' or 'sequential', not 'sideways'" run --order sideways x.yaml
bad 2 "${E}--seed wants a non-negative integer, not 'abc'" run --seed abc x.yaml
bad 2 "${E}cannot open $T/none.yaml: No such file or directory" run "$T/none.yaml"
# doctor
bad 2 "${E}doctor: unexpected argument 'extra'; see 'mmlab doctor --help'" doctor extra
# results
bad 2 "${E}'results list' takes no run" results list extra
bad 2 "${E}too many arguments; see 'mmlab results --help'" results show a b
bad 2 "${E}no run matches 'nosuch' in $MMLAB_RESULTS \('mmlab results list' shows the runs\)" \
	results show nosuch
bad 2 "${E}'2026' matches 2 runs in $MMLAB_RESULTS; give more of the run id" results show 2026
# image
bad 2 "${E}--kind floppy: unknown image kind; expected initramfs or debootstrap" \
	image build --kind floppy
bad 2 "${E}'image initrd' wants -o FILE" image initrd
# compare and report
bad 2 "${E}compare: give at least one RUN \(or \"latest\"\) or --samples FILE.csv" compare
bad 1 "${E}no run matches 'nosuch' in $MMLAB_RESULTS" compare nosuch
bad 2 "${E}--format yaml: use text, markdown, csv, json or html" compare ab12 --format yaml
bad 2 "${E}--alpha 2: give a probability between 0 and 1, e.g. 0.05" compare ab12 --alpha 2
bad 2 "${E}baseline \"nope\" is not one of the variants; pick one of: base, compactfix, revert" \
	compare ab12 --baseline nope
bad 2 "${E}cannot open $T/none.csv: No such file or directory" compare --samples "$T/none.csv"
bad 2 "${E}report: give at least one RUN \(or \"latest\"\)" report
bad 2 "${E}--alpha -1: give a probability between 0 and 1, e.g. 0.05" \
	report ab12 --alpha -1 -o "$T/bad.html"
[ ! -e "$T/bad.html" ] || fail "a report refused wrote its file"
# queue and submit
bad 2 "${E}queue add wants job files; see 'mmlab queue --help'" queue add
bad 2 "${E}'mmlab queue cancel' wants a queue job id \(a number from 'mmlab queue status'\), not 'abc'" \
	queue cancel abc
bad 2 "${E}mmlab submit needs --slurm \(the only batch system it drives\)" submit
bad 2 "${E}mmlab submit wants job files; see 'mmlab submit --help'" submit --slurm
# repro
bad 2 "${E}mmlab repro wants one recipe; 'mmlab repro --list' shows them" repro
bad 2 "${E}repro: --runs wants an integer from 1 to 1000, not '0'" repro --runs 0 x
# kernel
bad 2 "${E}kernel build: give a job file, or --tree DIR and --ref REF" kernel build
bad 2 "${E}kernel show: give a cache key \(or a unique prefix\); 'mmlab kernel list' shows them" \
	kernel show
# bisect
bad 2 "${E}bisect start needs --job, and --good and --bad \(or --kernels FILE\)" bisect start
bad 2 "${E}no bisection here: $MMLAB_RESULTS/bisect/bisect.db does not exist" bisect status
# track
bad 2 "${E}'track add' takes one track file; see 'mmlab track --help'" track add
bad 2 "${E}'track status' takes one track name; see 'mmlab track --help'" track status
bad 2 "${E}--format pdf: unknown; use text, json, html or mbox" track report x --format pdf

# a command with a subcommand and none given prints its usage, exit 2
for c in results image queue kernel bisect track; do
	expect 2 "$c"
	has "$T/err" "^usage: mmlab $c "
done
# a subcommand that does not exist (OPT_SUBCOMMAND): the same message for
# every command, with the nearest subcommand when it is a near miss
declare -A subs=(
	[results]="list, show, path, reindex and import"
	[image]="build, list, gc and initrd"
	[queue]="add, run, status, cancel, retry, build, exec and finish"
	[kernel]="build, fetch, list, show and gc"
	[bisect]="start, run, status, log, replay and reset"
	[track]="add, run, status, report and list"
)
for c in "${!subs[@]}"; do
	bad 2 "${E}$c: no subcommand 'bogus'; the subcommands are ${subs[$c]}$" "$c" bogus
	hasnt "$T/err" 'did you mean'
	case $c in queue | bisect | track)
		bad 2 "${E}$c: no subcommand 'stat' \(did you mean '(start|status)'\?\); the subcommands are ${subs[$c]}$" \
			"$c" stat ;;
	esac
	# an option before the subcommand is the command's: it has none but --help
	[ "$c" = results ] && continue
	bad 2 "${E}$c: unknown option --json; see 'mmlab $c --help'" "$c" --json list
done
bad 2 "${E}results: no subcommand 'lst' \(did you mean 'list'\?\)" results lst
bad 2 "${E}kernel: no subcommand 'bild' \(did you mean 'build'\?\)" kernel bild
bad 2 "${E}image: no subcommand 'initr' \(did you mean 'initrd'\?\)" image initr
# results takes --json before its subcommand, but only for one that has it
expect 0 results --json list
assert_jq "$T/out" 'length == 2'
bad 2 "${E}results path: unknown option --json; see 'mmlab results path --help'" results --json path
echo ok
