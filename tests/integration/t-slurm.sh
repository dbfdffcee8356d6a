# Slurm: a real single-host Slurm (slurmctld, slurmd, munged) configured
# here on loopback; "mmlab submit --slurm" runs a 2-variant job as array
# tasks whose results "mmlab compare" reads like a local run's.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
for p in slurmctld slurmd munged mungekey sbatch squeue; do
	command -v $p >/dev/null || fail "$p missing: run scripts/install-deps"
done
S="$T/slurm"
mkdir -p "$S/state" "$S/spool" "$S/log" "$S/munge"
chmod 700 "$S/munge"
pids=()
stop_slurm() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do
		for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	rm -rf "$T"
}
trap stop_slurm EXIT
mungekey --create --keyfile="$S/munge/munge.key"
munged --force --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" \
	--pid-file="$S/munge/munged.pid" --log-file="$S/log/munged.log" \
	--seed-file="$S/munge/munged.seed"
for _ in $(seq 1 50); do [ -s "$S/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$S/munge/munged.pid")")
port=$((20000 + RANDOM % 20000))
cat >"$S/slurm.conf" <<CONF
ClusterName=mmlabtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$S/munge/munge.sock
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=lab Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$S/slurm.conf"
slurmctld -c -i -D >"$S/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -N localhost -D >"$S/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
	sinfo -h -o '%T' 2>/dev/null | grep -qE '^idle' && break
	sleep 0.3
done
sinfo -h -o '%T' | grep -qE '^idle' || { cat "$S"/log/*; fail "slurm did not come up"; }

j=$(job slurmjob '{ name: noop }' '{ nodes: 1, cpus_per_node: 1, memory_per_node: 256M }' \
	'iterations_per_boot: 1')
sed -i 's/^iterations: 1/iterations: 2/' "$j"
sed -i 's/^  - { name: base, kernel: distro }/  - { name: base, kernel: distro }\n  - { name: other, kernel: distro }/' "$j"
# bad input is refused before anything is submitted
set +e
"$MMLAB" submit --slurm --partition 'x;y' "$j" 2>"$T/err"; rc=$?
set -e
[ $rc = 2 ] || fail "bad partition gave exit $rc"
"$MMLAB" submit --slurm --partition lab --json "$j" >"$T/sub.json"
cat "$T/sub.json"
assert_jq "$T/sub.json" 'length == 1 and .[0].boots == 4'
run=$(jq -r '.[0].run' "$T/sub.json")
fin=$(jq -r '.[0].finish_job' "$T/sub.json")
# queue run leaves Slurm's work alone
"$MMLAB" queue run
"$MMLAB" queue status --json >"$T/st0.json"
assert_jq "$T/st0.json" '.[0].slurm.array != null and (.[0].slurm.states | length) >= 1'
"$MMLAB" queue status
# wait for the finishing job to leave the queue
for _ in $(seq 1 1200); do
	squeue -h -j "$fin" 2>/dev/null | grep -q . || break
	sleep 0.5
done
cat "$MMLAB_RESULTS/$run"/slurm/*.out || true
"$MMLAB" queue status --json >"$T/st1.json"
"$MMLAB" queue status --items
assert_jq "$T/st1.json" '.[0].counts.done == 4'
"$MMLAB" results show --json "$run" >"$T/r.json"
assert_jq "$T/r.json" '.status == "complete"'
assert_jq "$T/r.json" 'all(.variants[].iterations[]; .status == "ok" and .boot.placement.slurm_job != null)'
assert_jq "$T/r.json" '[.variants[].iterations[]] | length == 4'
"$MMLAB" compare --format json "$run" >"$T/cmp.json"
jq -e 'tostring | test("other")' "$T/cmp.json" >/dev/null || fail "compare does not show variant other"
"$MMLAB" compare "$run"
[ -z "$(virsh -c qemu:///system list --all --name | grep "^mmlab-$run-")" ] || fail "domains left"
echo ok
