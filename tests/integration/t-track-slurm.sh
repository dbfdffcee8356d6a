# mmlab track run --slurm: the kernels' runs go to a real single-host Slurm
# as array tasks (as 'mmlab submit --slurm' sends a job), track run waits
# for them, then detects over them like over local runs. Interrupted while
# it waits, it submits nothing again when started again.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
. "$MMLAB_SRCDIR/tests/slurm.sh"
start_slurm

j=$(job tslurm '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }')
cat >"$T/track.yaml" <<TRACK
name: slurm-list
kernels:
  list: [distro, distro, { kernel: distro, cmdline: 'quiet' }, { kernel: distro, cmdline: 'quiet' }]
jobs: [$j]
iterations: 1
watch: ['time.elapsed_s']
TRACK
"$MMLAB" track add "$T/track.yaml"
# stop it while it waits for Slurm, then again: no second submission
timeout -s INT 20 "$MMLAB" track run slurm-list --slurm --partition lab --no-confirm \
	>"$T/run1.out" 2>&1 || true
cat "$T/run1.out"
grep -q 'through the Slurm cluster' "$T/run1.out" || fail "track run did not submit to Slurm"
"$MMLAB" track run slurm-list --slurm --partition lab --no-confirm 2>&1 | tee "$T/run2.out"
"$MMLAB" track status slurm-list --json >"$T/st.json"
assert_jq "$T/st.json" '.counts.measured == 4'
assert_jq "$T/st.json" '.analysis.series_tested == 1'
for r in $(jq -r '.runs[][] .run' "$T/st.json"); do
	"$MMLAB" results show --json "$r" >"$T/r.json"
	assert_jq "$T/r.json" 'all(.variants[].iterations[]; .status == "ok" and .boot.placement.slurm_job != null)'
done
n=$(ls -d "$MMLAB_RESULTS"/*/run.json | wc -l)
[ "$n" = 4 ] || fail "$n runs for 4 kernels"
no_leftover_domains
echo ok
