# The next boot's domain is created paused while the guest before it
# boots, so that its boot only resumes it (docs/performance.md, "The next
# boot made ready"). Three boots in run order: the first two made the next
# one ready, and did it before their agent was up, so never during a
# measured phase; the last two were resumed, not created. Then the failure
# paths: a guest that panics, and a run interrupted while a domain waits
# paused. Nothing is left: no domain, no stage.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
stages() { ls -d /tmp/mmlab-stage-* 2>/dev/null | sort || true; }
before=$(stages)
j=$(job prestart "{ name: noop }")
sed -i 's/^iterations: 1$/iterations: 3/' "$j"
"$MMLAB" run --order sequential "$j"
"$MMLAB" results show --json >"$T/r.json"
it='.variants[0].iterations'
assert_jq "$T/r.json" "[$it[] | select(.status == \"ok\")] | length == 3"
jq -c "$it[] | {phases: .boot.phases, prestarted: .boot.prestarted, next_prepared: .boot.next_prepared}" \
	"$T/r.json"
for i in 0 1; do
	assert_jq "$T/r.json" "$it[$i].boot as \$b | (\$b.next_prepared.end | type == \"number\") and
		\$b.next_prepared.end < \$b.phases.guest_to_agent"
done
assert_jq "$T/r.json" "$it[2].boot.next_prepared == null"
assert_jq "$T/r.json" "$it[0].boot.prestarted == null"
for i in 1 2; do
	assert_jq "$T/r.json" "$it[$i].boot.prestarted.create > 0"
	# resumed: its start is a resume, not libvirt's start (~0.3 s here)
	assert_jq "$T/r.json" "$it[$i].boot.phases.start < 0.1"
done
no_leftover_domains

# a guest that panics: the boot after it was made ready all the same
j=$(job crash "{ name: crash }")
sed -i 's/^iterations: 1$/iterations: 2/' "$j"
rc=0
"$MMLAB" run --order sequential "$j" 2>"$T/crash.err" || rc=$?
[ "$rc" = 1 ] || fail "a run of panicking guests exited $rc, not 1: $(tail -3 "$T/crash.err")"
"$MMLAB" results show --json >"$T/c.json"
assert_jq "$T/c.json" "[$it[] | select(.status == \"crashed\")] | length == 2"
assert_jq "$T/c.json" "$it[1].boot.prestarted.create > 0"
no_leftover_domains

# interrupted while the next domain waits paused: it goes too
j=$(job interrupted "{ name: noop }")
sed -i 's/^iterations: 1$/iterations: 3/' "$j"
"$MMLAB" run --order sequential "$j" >"$T/int.out" 2>&1 &
pid=$!
paused=""
for _ in $(seq 600); do
	paused=$(virsh list --state-paused --name | grep -- "-interrupted-.*-base-1+1$" || true)
	[ -n "$paused" ] && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
[ -n "$paused" ] || fail "no domain waited paused while the first guest booted: $(tail -5 "$T/int.out")"
echo "paused: $paused"
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" != 0 ] || fail "the interrupted run exited 0"
grep -q "interrupted" "$T/int.out" || fail "the run did not say it was interrupted: $(tail -3 "$T/int.out")"
no_leftover_domains
left=$(comm -13 <(echo "$before") <(stages))
[ -z "$left" ] || fail "the runs left stages behind: $left"
echo ok
