# A real single-host Slurm for a test (sourced after lib.sh): munged,
# slurmctld and slurmd of Debian's packages, configured on loopback under
# $T/slurm with 2 CPUs, partition "lab". start_slurm exports SLURM_CONF;
# everything is stopped and $T removed when the test exits.
#
# The guard: every process of a Slurm job (queue exec, queue build, queue
# finish) runs with build/tests/guard-dbopen.so preloaded (exported through
# sbatch's environment), which logs any open of *.db, *-wal, *-shm or
# *-journal under the results store to $T/guard.log. A test fails when
# that log is not empty, or when no Slurm job ran under the guard.
# MMLAB_NO_GUARD=1 turns it off.
start_slurm() {
	for p in slurmctld slurmd munged mungekey sbatch squeue sinfo; do
		command -v $p >/dev/null || fail "$p missing: run scripts/install-deps"
	done
	S="$T/slurm"
	mkdir -p "$S/state" "$S/spool" "$S/log" "$S/munge"
	chmod 700 "$S/munge"
	pids=()
	stop_slurm() {
		local rc=$?
		for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
		for p in "${pids[@]}"; do
			for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
			kill -9 "$p" 2>/dev/null || true
		done
		if [ "$rc" = 0 ] && [ -z "${MMLAB_NO_GUARD:-}" ] && ! guard_ok; then rc=1; fi
		rm -rf "$T"
		exit "$rc"
	}
	trap stop_slurm EXIT
	mungekey --create --keyfile="$S/munge/munge.key"
	munged --force --socket="$S/munge/munge.sock" --key-file="$S/munge/munge.key" \
		--pid-file="$S/munge/munged.pid" --log-file="$S/log/munged.log" \
		--seed-file="$S/munge/munged.seed"
	for _ in $(seq 1 50); do [ -s "$S/munge/munged.pid" ] && break; sleep 0.1; done
	pids+=("$(cat "$S/munge/munged.pid")")
	port=$((20000 + RANDOM % 20000))
	cat >"$S/slurm.conf" <<-CONF
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
	[ -n "${MMLAB_NO_GUARD:-}" ] || guard_start
}
# the guard (above), for the Slurm jobs submitted from now on
guard_start() {
	make -C "$MMLAB_SRCDIR" -s guard >/dev/null || fail "cannot build the guard"
	mkdir -p "$MMLAB_RESULTS"
	export MMLAB_GUARD_DIR
	MMLAB_GUARD_DIR=$(realpath "$MMLAB_RESULTS")
	export MMLAB_GUARD_LOG="$T/guard.log"
	export LD_PRELOAD="$MMLAB_SRCDIR/build/tests/guard-dbopen.so"
	: >"$MMLAB_GUARD_LOG"
}
# 0 when no Slurm job opened a SQLite file of the store, and some ran guarded
guard_ok() {
	if [ -s "$MMLAB_GUARD_LOG" ]; then
		echo "FAIL the guard: a Slurm job opened SQLite files of the store:" >&2
		sort -u -k2 "$MMLAB_GUARD_LOG" >&2
		return 1
	fi
	if [ ! -s "$MMLAB_GUARD_LOG.loaded" ]; then
		echo "FAIL the guard: no Slurm job ran with the guard loaded" >&2
		return 1
	fi
	echo "guard: $(sort -u "$MMLAB_GUARD_LOG.loaded" | wc -l) processes of Slurm jobs opened no SQLite file of the store"
}
# wait_slurm_job ID [SECONDS]: until Slurm forgets the job (it ended)
wait_slurm_job() {
	local i
	for i in $(seq 1 $((${2:-600} * 2))); do
		squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
		sleep 0.5
	done
	fail "Slurm job $1 still queued or running after ${2:-600} s"
}
# wait_task_guest RUN: until the guest of RUN's first boot runs under its
# Slurm task and the task record says running; sets rec (the record's
# path) and dom (the domain), or fails with the tasks' Slurm output
wait_task_guest() {
	local i
	rec="$MMLAB_RESULTS/$1/tasks/boot-0.json" dom=""
	for i in $(seq 1 600); do
		dom=$(virsh -c qemu:///system list --name | grep "^mmlab-$1-base-0" || true)
		[ -n "$dom" ] && [ "$(jq -r .state "$rec" 2>/dev/null)" = running ] && return 0
		sleep 0.2
	done
	[ -n "$dom" ] && return 0
	cat "$MMLAB_RESULTS/$1"/slurm/*.out
	fail "the task's guest never ran"
}
