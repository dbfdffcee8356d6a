# A track takes runs measured on another lab server and imported (issue
# 31: "bisect and track then use imported runs like local ones"): the
# other server's store (its path /srv/labA/results, not this one's) holds
# a complete run of every point of the same track, whose job.yaml is the
# point's derived job; after `results import`, `track run` on this server
# boots nothing (there is no hypervisor here: queueing a run would fail)
# and its points name the imported runs, measured. A run whose job is not
# the derived job's text (another cmdline) and an unfinished one are not
# taken.
. "$MMLAB_SRCDIR/tests/cli/lib.sh"
cat >"$T/j.yaml" <<'EOF'
name: j
variants:
  - { name: base, kernel: distro }
topology: { nodes: 1, cpus_per_node: 1, memory_per_node: 256M }
workload: { name: noop }
iterations: 1
EOF
cat >"$T/t.yaml" <<'EOF'
name: sweep
kernels:
  list:
    - { name: p1, kernel: distro, cmdline: "mmlab.p=1" }
    - { name: p2, kernel: distro, cmdline: "mmlab.p=2" }
    - { name: p3, kernel: distro, cmdline: "mmlab.p=3" }
    - { name: p4, kernel: distro, cmdline: "mmlab.p=4" }
jobs: [j.yaml]
iterations: 2
bisect: false
EOF
expect 0 track add "$T/t.yaml"
# without runs, the first point cannot be queued here (no hypervisor); its
# derived job is written first: the other server's runs copy its text
expect 1 track run sweep --no-confirm
has "$T/err" 'kernel p1 of job j could not be queued'
derived="$MMLAB_RESULTS/tracks/sweep/jobs/j--p1.yaml"
[ -s "$derived" ] || fail "no derived job $derived"
[ -z "$(ls "$MMLAB_RESULTS" | grep -E '^[0-9]{8}-')" ] || fail "a run was made: $(ls "$MMLAB_RESULTS")"

# the other server's store: run N measured point pN (N = 5: p1 again, with
# another cmdline; N = 6: p2 again, unfinished)
other="$T/labA"
mkmeasured() { # ID POINT CMDLINE-N STATUS
	local id=$1 p=$2 n=$3 st=$4 d="$other/$1" i
	mkdir -p "$d"
	sed -e "s/\bp1\b/$p/" -e "s/mmlab\.p=1/mmlab.p=$n/" "$derived" >"$d/job.yaml"
	jq --arg id "$id" --arg p "$p" --arg st "$st" '
		del(.variants[].iterations) | .run = $id | .job = "j" | .status = $st |
		.job_file = "/srv/labA/results/tracks/sweep/jobs/j--\($p).yaml" |
		.job_dir = "/srv/labA/results/tracks/sweep" |
		.job_resolved.name = "j" | .job_resolved.iterations = 2 |
		.job_resolved.variants = [.job_resolved.variants[0] | .name = $p] |
		.order.sequence = ["\($p)/0", "\($p)/1"] |
		.variants = [.variants[0] | .name = $p]' "$FIX/demo.json" >"$d/run.json"
	for i in 0 1; do
		mkdir -p "$d/$p/$i"
		jq --argjson i $i '.variants[0].iterations[$i] | .index = $i' "$FIX/demo.json" \
			>"$d/$p/$i/iteration.json"
	done
}
mkmeasured 20261201-100001-j-a001 p1 1 complete
mkmeasured 20261201-100002-j-a002 p2 2 complete
mkmeasured 20261201-100003-j-a003 p3 3 complete
mkmeasured 20261201-100004-j-a004 p4 4 complete
mkmeasured 20261201-090005-j-a005 p1 9 complete
mkmeasured 20261201-090006-j-a006 p2 2 running
expect 0 results import "$other"
for n in 1 2 3 4 5 6; do
	[ -e "$MMLAB_RESULTS/20261201-"*"-j-a00$n/import.json" ] || fail "run a00$n was not imported"
done

# the track measures nothing: every point takes the imported run of its job
expect 0 track run sweep --no-confirm
hasnt "$T/err" 'could not be queued|never reached the queue'
expect 0 track status sweep --json
cp "$T/out" "$T/st.json"
for n in 1 2 3 4; do
	assert_jq "$T/st.json" '.runs.p'$n'.j | .run == "20261201-10000'$n'-j-a00'$n'" and
		.status == "measured"'
done
assert_jq "$T/st.json" '.counts == {kernels: 4, measured: 4, queued: 0, failed: 0}'
# nothing was made here: the store holds the six imported runs only
[ "$(ls "$MMLAB_RESULTS" | grep -cE '^[0-9]{8}-')" = 6 ] || fail "runs were made: $(ls "$MMLAB_RESULTS")"
echo ok
