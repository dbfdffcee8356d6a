# libvirtd killed (-9) and started again while a guest runs: that
# iteration is recorded as failed with the reason, the run goes on with
# the next boot, and no domain is left behind.
#
# Then libvirtd killed while it creates a domain (issue 31): a hook of
# the private libvirtd (/etc/libvirt/hooks/qemu, "prepare begin", run by
# libvirtd inside virDomainCreateXML before QEMU starts) kills it -9 once;
# the test starts it again. The run reports a clear error (or retries),
# and no domain or QEMU of the run is left.
#
# The host's libvirtd (qemu:///system) serves every engineer's and test's
# guests, so this test never touches it: it starts a private virtlogd and
# libvirtd of its own in a mount namespace (unshare -m, held open by a
# sleeping process) where /run/libvirt, /var/lib/libvirt, /var/log/libvirt,
# /var/cache/libvirt and /etc/libvirt are bind mounts of directories under
# $T; their pid files are under $T too. The private /etc/libvirt holds the
# host's daemon and driver settings only: no domain, network, storage pool
# or hook. Its socket is then $T/plv/run/libvirt-sock, and mmlab reaches it
# with --connect 'qemu:///system?socket=...'. Before any kill, the pid is
# checked to be a process of the private mount namespace; only those, and
# the QEMU of this test's run, are ever killed. Without root or unshare the
# test is skipped, saying why. (The hook of the second part is the test's
# own, in the private /etc/libvirt.)
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null; then
	echo "skipped: a private libvirtd needs root and unshare -m (the host's is never restarted)"
	exit 0
fi
P="$T/plv"
mkdir -p "$P/run" "$P/lib" "$P/log" "$P/cache" "$P/etc/qemu"
for f in /etc/libvirt/*.conf; do
	cp -a "$f" "$P/etc/"
done
cp -a /etc/libvirt/nwfilter "$P/etc/" 2>/dev/null || true
unshare -m --propagation private sleep infinity &
holder=$!
ns() { nsenter -t "$holder" -m -- "$@"; }
# the pid in pid file $1 if it is a process of the private namespace, else ""
private_pid() {
	local pid
	pid=$(cat "$1" 2>/dev/null) || return 0
	[ -n "$pid" ] && [ "$pid" != "$holder" ] || return 0
	[ "$(readlink "/proc/$pid/ns/mnt" 2>/dev/null)" = "$(readlink "/proc/$holder/ns/mnt")" ] &&
		[ "$(readlink "/proc/$holder/ns/mnt")" != "$(readlink /proc/$$/ns/mnt)" ] &&
		echo "$pid"
}
stop_private() {
	local f pid d
	[ -n "${mmlab_pid:-}" ] && kill "$mmlab_pid" 2>/dev/null || true
	# every domain of the private libvirtd is this test's
	for d in $(virsh -c "$URI" list --name 2>/dev/null || true); do
		virsh -c "$URI" destroy "$d" >/dev/null 2>&1 || true
	done
	for f in libvirtd virtlogd; do
		pid=$(private_pid "$P/$f.pid")
		[ -n "$pid" ] && kill "$pid" 2>/dev/null || true
	done
	# the guests the private libvirtd started (their names are this run's)
	if [ -s "$T/run-id" ]; then
		for pid in $(pgrep -f "guest=mmlab-$(cat "$T/run-id")" || true); do
			kill -9 "$pid" 2>/dev/null || true
		done
	fi
	kill "$holder" 2>/dev/null || true
}
URI="qemu:///system?socket=$P/run/libvirt-sock"
trap 'rc=$?; stop_private; cleanup $rc' EXIT
for _ in $(seq 1 50); do
	[ "$(readlink "/proc/$holder/ns/mnt")" != "$(readlink /proc/$$/ns/mnt)" ] && break
	sleep 0.1
done
[ "$(readlink "/proc/$holder/ns/mnt")" != "$(readlink /proc/$$/ns/mnt)" ] ||
	fail "unshare -m did not give a mount namespace of its own"
ns mount --bind "$P/run" /run/libvirt
ns mount --bind "$P/lib" /var/lib/libvirt
ns mount --bind "$P/log" /var/log/libvirt
ns mount --bind "$P/cache" /var/cache/libvirt
ns mount --bind "$P/etc" /etc/libvirt
start_libvirtd() {
	ns libvirtd -d -p "$P/libvirtd.pid"
	for _ in $(seq 1 100); do
		virsh -c "$URI" version >/dev/null 2>&1 && break
		sleep 0.2
	done
	virsh -c "$URI" version >/dev/null 2>&1 || fail "the private libvirtd did not answer at $URI"
	[ -n "$(private_pid "$P/libvirtd.pid")" ] ||
		fail "libvirtd of $P/libvirtd.pid is not in the private namespace"
}
ns virtlogd -d -p "$P/virtlogd.pid"
start_libvirtd
virsh -c "$URI" list --all --name | grep -q . && fail "the private libvirtd sees domains"

j=$(job restart '{ name: noop }')
sed -i 's/^iterations: 1/iterations: 3/' "$j"
"$MMLAB" --connect "$URI" run --order sequential "$j" >"$T/out" 2>&1 &
pid=$! mmlab_pid=$!
# the second boot's domain appears: kill libvirtd under it, start it again
dom=""
for _ in $(seq 1 1200); do
	dom=$(virsh -c "$URI" list --name 2>/dev/null | grep -- '-1+' || true)
	[ -n "$dom" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
[ -n "$dom" ] || { cat "$T/out"; fail "the second boot's domain never appeared"; }
# a guest that runs, not one libvirtd is still creating (killing libvirtd
# inside virDomainCreateXML is another fault: the domain did not start)
for _ in $(seq 1 240); do
	[ "$(virsh -c "$URI" domstate "$dom" 2>/dev/null)" = running ] && break
	sleep 0.5
done
[ "$(virsh -c "$URI" domstate "$dom" 2>/dev/null)" = running ] ||
	{ cat "$T/out"; fail "$dom never ran"; }
sleep 3
run=${dom#mmlab-}
run=${run%-base-1+*}
echo "$run" >"$T/run-id"
echo "killing the private libvirtd under $dom"
lvpid=$(private_pid "$P/libvirtd.pid")
[ -n "$lvpid" ] || fail "no private libvirtd to kill"
kill -9 "$lvpid"
sleep 3
start_libvirtd
set +e
wait $pid; rc=$?
set -e
mmlab_pid=""
cat "$T/out"
[ $rc = 1 ] || fail "a run with a failed iteration gave exit $rc"
"$MMLAB" results show --json "$run" >"$T/r.json"
jq '[.variants[0].iterations[] | {index, status, reason}]' "$T/r.json"
assert_jq "$T/r.json" '.variants[0].iterations[1].status == "failed"'
assert_jq "$T/r.json" '.variants[0].iterations[1].reason | test("connection to libvirtd broke")'
assert_jq "$T/r.json" '.variants[0].iterations[1].reason | test("destroyed the domain|the domain was gone")'
assert_jq "$T/r.json" '.variants[0].iterations[0].status == "ok"'
assert_jq "$T/r.json" '.variants[0].iterations[2].status == "ok"'
# nothing left: in the private libvirtd, and no QEMU of this run anywhere
left=$(virsh -c "$URI" list --all --name | grep "^mmlab-$run" || true)
[ -z "$left" ] || fail "domains left behind: $left"
! pgrep -f "guest=mmlab-$run" >/dev/null || fail "a QEMU of run $run still runs"

# libvirtd killed inside virDomainCreateXML: the hook kills it once
mkdir -p "$P/etc/hooks"
cat >"$P/etc/hooks/qemu" <<HOOK
#!/bin/sh
[ "\$2" = prepare ] && [ "\$3" = begin ] || exit 0
[ -e "$T/hook-fired" ] && exit 0
echo "\$1" >"$T/hook-fired"
kill -9 "\$(cat "$P/libvirtd.pid")"
HOOK
chmod 755 "$P/etc/hooks/qemu"
# wait_gone PID: until the process PID has exited
wait_gone() { for _ in $(seq 1 100); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; fail "pid $1 did not exit"; }
# libvirtd looks for hooks when it starts: start it again
lvpid=$(private_pid "$P/libvirtd.pid")
[ -n "$lvpid" ] || fail "no private libvirtd to restart"
kill "$lvpid"
wait_gone "$lvpid"
start_libvirtd
j=$(job create '{ name: noop }')
"$MMLAB" --connect "$URI" run "$j" >"$T/out2" 2>&1 &
pid=$! mmlab_pid=$!
for _ in $(seq 1 1200); do
	[ -s "$T/hook-fired" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.1
done
[ -s "$T/hook-fired" ] || { cat "$T/out2"; fail "libvirtd never ran the hook of a domain's creation"; }
dom=$(cat "$T/hook-fired")
run=${dom#mmlab-}
run=${run%-base-0*}
echo "$run" >"$T/run-id"
echo "libvirtd was killed while it created $dom"
wait_gone "$(cat "$P/libvirtd.pid")"
start_libvirtd
set +e
wait $pid; rc=$?
set -e
mmlab_pid=""
cat "$T/out2"
[ $rc -lt 128 ] || fail "mmlab died of a signal ($rc)"
"$MMLAB" results show --json "$run" >"$T/r2.json"
jq '[.variants[0].iterations[] | {index, status, reason}]' "$T/r2.json"
if [ $rc = 0 ]; then
	# retried: the iteration is stored once, ok
	assert_jq "$T/r2.json" '[.variants[0].iterations[]] | length == 1 and .[0].status == "ok"'
else
	[ $rc = 1 ] || fail "a run whose domain could not be created gave exit $rc"
	assert_jq "$T/r2.json" '.variants[0].iterations[0].status == "failed"'
	assert_jq "$T/r2.json" '.variants[0].iterations[0].reason | test("libvirt")'
	grep -q "libvirt" "$T/out2" || fail "the run's output does not name libvirt"
fi
left=$(virsh -c "$URI" list --all --name | grep "^mmlab-$run" || true)
[ -z "$left" ] || fail "domains left behind: $left"
! pgrep -f "guest=mmlab-$run" >/dev/null || fail "a QEMU of run $run still runs"
echo ok
