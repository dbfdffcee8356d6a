# Sourced by tests/integration/run and tests/e2e/run: VM tests hold
# build/vm-tests.lock (or $MMLAB_VM_LOCK) while they run, so nothing that
# takes the same lock runs beside them on this 2-core host. .ci/run holds
# it for tests/fresh/run, which it starts beside make check's build, lint,
# unit and fuzz tests: the guests of the first VM test boot only once that
# chroot build is done, as they would on an idle host.
vm_lock() {
	local lock=${MMLAB_VM_LOCK:-$PWD/build/vm-tests.lock} t0=$SECONDS
	mkdir -p "$(dirname "$lock")"
	exec 8>"$lock"
	flock -n 8 && return 0
	echo "waiting for $lock: another test run on this host holds it"
	flock 8
	echo "got $lock after $((SECONDS - t0)) s"
}
vm_lock
