# Command workloads on the Debian disk image (docs/workloads.md): stress-ng
# from the image's packages with its own YAML metrics (the issue's form as
# written), and a shell script with data files and phase: handshake, whose
# measured phase is what it marks, not the whole process. The image with
# stress-ng is built once (minutes under TCG), then cached.
. "$MMLAB_SRCDIR/tests/integration/lib.sh"
disk='image: { kind: debootstrap, packages: [stress-ng] }
timeouts: { boot: 600s, iteration: 600s }'
topo="{ nodes: 2, cpus_per_node: 1, memory_per_node: 512M }"

j=$(job sng '
  command: [stress-ng, --vm, "1", --vm-bytes, 32M, --numa, "1", --timeout, 5s, --metrics, --yaml, out.yaml]
  metrics: { from: yaml, file: out.yaml, path: "metrics[*]", name: stressor, values: [bogo-ops-per-second-real-time] }' "$topo" "$disk")
sed -i 's/^workload: $/workload:/; /^timeouts: { boot: 120s, iteration: 300s }$/d' "$j"
"$MMLAB" run "$j" 2>"$T/err" || fail "stress-ng run failed: $(tail -20 "$T/err")"
"$MMLAB" results show --json >"$T/s.json"
it='.variants[0].iterations[0]'
assert_jq "$T/s.json" "$it.status == \"ok\""
assert_jq "$T/s.json" "$it.metrics[\"stress-ng.vm.bogo-ops-per-second-real-time\"] > 0"
# the numa stressor's element is read too; its rate may be 0 under TCG (one
# of its bogo ops, migrating its region between the nodes, can outlast 5 s)
assert_jq "$T/s.json" "$it.metrics[\"stress-ng.numa.bogo-ops-per-second-real-time\"] >= 0"
assert_jq "$T/s.json" "$it.read[0].path == \"out.yaml\" and $it.read[0].bytes > 0"
assert_jq "$T/s.json" "$it.metrics[\"time.elapsed_s\"] >= 5"
run=$(jq -r .run "$T/s.json")
grep -q "stressor: vm" "$MMLAB_RESULTS/$run/base/0/read/out.yaml" || fail "out.yaml not stored"
assert_jq "$T/s.json" '.job_resolved.workload.metrics[0].name == "stress-ng.bogo-ops-per-second-real-time"'

# a script and its data, the measured phase marked on fds 3 and 4
mkdir -p "$T/scripts" "$T/data"
cp "$MMLAB_SRCDIR/tests/integration/own/run.sh" "$T/scripts/"
head -c 12345 /dev/urandom >"$T/data/input.bin"
j=$(job script '
  command: [/bin/sh, run.sh]
  files: [scripts/run.sh, data/input.bin]
  metrics: { from: stdout }
  phase: handshake' "$topo" "$disk")
sed -i 's/^workload: $/workload:/; /^timeouts: { boot: 120s, iteration: 300s }$/d' "$j"
"$MMLAB" run "$j" 2>"$T/err" || fail "script run failed: $(tail -20 "$T/err")"
"$MMLAB" results show --json >"$T/h.json"
assert_jq "$T/h.json" "$it.status == \"ok\" and $it.metrics[\"sh.input_bytes\"] == 12345"
assert_jq "$T/h.json" "$it.metrics[\"sh.phase\"] == null"	# "phase go": not a number
# stress-ng ran 3 s between go and done; the 10 s of sleep around it are not measured
assert_jq "$T/h.json" "$it.metrics[\"time.elapsed_s\"] >= 3 and $it.metrics[\"time.elapsed_s\"] < 12"
assert_jq "$T/h.json" "$it.metrics[\"time.user_s\"] + $it.metrics[\"time.system_s\"] > 0"
assert_jq "$T/h.json" "$it.metrics | has(\"vmstat.pgfault\")"
no_leftover_domains
echo ok
