# libvirtd killed (-9) and started again while a guest runs: that
# iteration is recorded as failed with the reason, the run goes on with
# the next boot, and no domain is left behind.
#
# The host's libvirtd serves every engineer's and test's guests, so this
# test never touches it: it starts a private virtlogd and libvirtd of its
# own in a mount namespace (unshare -m, held open by a sleeping process)
# where /run/libvirt, /var/lib/libvirt, /var/log/libvirt,
# /var/cache/libvirt and /etc/libvirt are bind mounts of directories under
# $T; their pid files are under $T too. Its socket is then
# $T/plv/run/libvirt-sock, and mmlab reaches it with
# --connect 'qemu:///system?socket=...'. Only the processes whose pids
# this test wrote down are ever killed.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
P="$T/plv"
mkdir -p "$P/run" "$P/lib" "$P/log" "$P/cache"
cp -a /etc/libvirt "$P/etc"
rm -f "$P"/etc/qemu/networks/autostart/* "$P"/etc/qemu/autostart/* 2>/dev/null || true
unshare -m --propagation private sleep infinity &
holder=$!
ns() { nsenter -t "$holder" -m -- "$@"; }
stop_private() {
	local f pid
	for f in libvirtd virtlogd; do
		pid=$(cat "$P/$f.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || true
	done
	# the guests the private libvirtd started (their names are this run's)
	for pid in $(pgrep -f "guest=mmlab-$(cat "$T/run-id" 2>/dev/null || echo none)" || true); do
		kill -9 "$pid" 2>/dev/null || true
	done
	kill "$holder" 2>/dev/null || true
}
trap 'stop_private; cleanup' EXIT
sleep 0.5
ns mount --bind "$P/run" /run/libvirt
ns mount --bind "$P/lib" /var/lib/libvirt
ns mount --bind "$P/log" /var/log/libvirt
ns mount --bind "$P/cache" /var/cache/libvirt
ns mount --bind "$P/etc" /etc/libvirt
start_libvirtd() {
	ns libvirtd -d -p "$P/libvirtd.pid"
	for _ in $(seq 1 100); do
		virsh -c "$URI" version >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	fail "the private libvirtd did not answer at $URI"
}
URI="qemu:///system?socket=$P/run/libvirt-sock"
ns virtlogd -d -p "$P/virtlogd.pid"
start_libvirtd
# it is not the host's daemon
[ "$(cat "$P/libvirtd.pid")" != "$(pgrep -o -x libvirtd)" ] || true
virsh -c "$URI" list --all --name | grep -q . && fail "the private libvirtd sees domains"

j=$(job restart '{ name: noop }')
sed -i 's/^iterations: 1/iterations: 3/' "$j"
"$MMLAB" --connect "$URI" run --order sequential "$j" >"$T/out" 2>&1 &
pid=$!
# the second boot's domain appears: kill libvirtd under it, start it again
dom=""
for _ in $(seq 1 1200); do
	dom=$(virsh -c "$URI" list --name 2>/dev/null | grep -- '-1+' || true)
	[ -n "$dom" ] && break
	kill -0 $pid 2>/dev/null || break
	sleep 0.5
done
[ -n "$dom" ] || { cat "$T/out"; fail "the second boot's domain never appeared"; }
run=${dom#mmlab-}
run=${run%-base-1+*}
echo "$run" >"$T/run-id"
echo "killing the private libvirtd under $dom"
kill -9 "$(cat "$P/libvirtd.pid")"
sleep 3
start_libvirtd
set +e
wait $pid; rc=$?
set -e
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
echo ok
