# mmlab track over a branch of the e2e history with one planted regression:
# e2e-c4, eight commits that change nothing (c4's tree), the planted commit
# (c5's tree: kcompactd's periodic wakeups counted in compact_daemon_wake),
# nine more that change nothing. Every second commit is measured, so the
# two kernels around the change are two commits apart: track run finds
# the change there, confirms it, bisects it, and the report names the
# planted commit. Only two trees are built (c4's and c5's; the cache of
# the earlier tests has both), so the test pays for boots, not builds.
. "$MMLAB_SRCDIR/tests/e2e/lib.sh"

# the branch e2e-track, made once in the shared repository (fixed dates)
branch=refs/heads/e2e-track
if ! git -C "$REPO" rev-parse -q --verify "$branch" >/dev/null; then
	c4=$(git -C "$REPO" rev-parse e2e-c4)
	t4=$(git -C "$REPO" rev-parse 'e2e-c4^{tree}')
	t5=$(git -C "$REPO" rev-parse 'e2e-c5^{tree}')
	export GIT_AUTHOR_NAME="E2E Track" GIT_AUTHOR_EMAIL=track@e2e.invalid
	export GIT_COMMITTER_NAME="E2E Track" GIT_COMMITTER_EMAIL=track@e2e.invalid
	head=$c4
	for i in $(seq 1 18); do
		tree=$t4 msg="e2e-track: nothing $i"
		if [ "$i" = 9 ]; then
			tree=$t5 msg="mm/compaction: count kcompactd's periodic wakeups (planted)"
			export GIT_AUTHOR_NAME="Planted Regression" GIT_AUTHOR_EMAIL=planted@e2e.invalid
		elif [ "$i" -gt 9 ]; then
			tree=$t5
			export GIT_AUTHOR_NAME="E2E Track" GIT_AUTHOR_EMAIL=track@e2e.invalid
		fi
		export GIT_AUTHOR_DATE="2026-01-01T00:$(printf %02d "$i"):00Z"
		export GIT_COMMITTER_DATE=$GIT_AUTHOR_DATE
		head=$(git -C "$REPO" commit-tree "$tree" -p "$head" -m "$msg")
		[ "$i" = 9 ] && git -C "$REPO" tag -f e2e-track-planted "$head" >/dev/null
	done
	git -C "$REPO" update-ref "$branch" "$head"
fi
planted=$(git -C "$REPO" rev-parse e2e-track-planted)

cat >"$T/idle.c" <<'C'
#include <unistd.h>
int main(void)
{
	sleep(3);
	return 0;
}
C
cat >"$T/job.yaml" <<JOB
name: wake
kernels:
  tree: $REPO
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
variants:
  - { name: k, ref: e2e-c4, sysctl: { vm.compaction_proactiveness: 20 } }
topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: idle, command: [idle], build: { c: idle.c } }
iterations: 2
timeouts: { boot: 300s, iteration: 600s }
JOB
cat >"$T/track.yaml" <<TRACK
name: e2e-track
kernels:
  tree: $REPO
  branch: e2e-track
  since: e2e-c4
  every: 2
  config: { base: tinyconfig, fragments: [ $LAB_CONFIG ] }
jobs: [job.yaml]
iterations: 2
watch: [{ metric: vmstat.compact_daemon_wake, better: lower }]
confirm: { max_iterations: 4 }
TRACK
"$MMLAB" track add "$T/track.yaml"
"$MMLAB" track run e2e-track 2>&1 | tee "$T/run.out"
no_leftover_domains
"$MMLAB" track status e2e-track
state=$MMLAB_RESULTS/tracks/e2e-track/state.json

# ten kernels: c4, every second commit, the newest; the change between the
# 5th and the 6th (two commits apart: the planted one and the next)
assert_jq "$state" '.points | length == 10'
assert_jq "$state" '[.runs[][] | .status] | unique == ["measured"]'
assert_jq "$state" '[.analysis.candidates[] | select(.significant)] | length == 1'
key=$(jq -r '[.analysis.candidates[] | select(.significant)][0] | "\(.job)/\(.before)..\(.after)"' "$state")
after=$(jq -r '[.analysis.candidates[] | select(.significant)][0].after' "$state")
[ "$(git -C "$REPO" rev-parse "$after~2")" = "$planted~1" ] ||
	[ "$(git -C "$REPO" rev-parse "$after~1")" = "$planted" ] ||
	fail "the change point $after is not just after the planted commit $planted"
assert_jq "$state" ".confirm[\"$key\"].status == \"confirmed\""
assert_jq "$state" ".bisect[\"$key\"].status == \"done\""
assert_jq "$state" ".bisect[\"$key\"].first.commit == \"$planted\""
assert_jq "$state" ".bisect[\"$key\"].range_commits == 2"

"$MMLAB" track report e2e-track | tee "$T/report.txt"
grep -q "^\[mmlab\] e2e-track ${planted:0:12}: vmstat.compact_daemon_wake" "$T/report.txt" ||
	fail "the subject does not name the planted commit"
grep -q "first bad commit: $planted" "$T/report.txt" || fail "the report does not name $planted"
grep -q "Planted Regression" "$T/report.txt" || fail "the report lacks the author"
"$MMLAB" track report e2e-track --format mbox >"$T/report.mbox"
grep -q "^Subject: \[mmlab\] e2e-track ${planted:0:12}: vmstat.compact_daemon_wake" \
	"$T/report.mbox" || fail "no message for the regression in the mbox"
echo ok
