# Shared helpers for the integration tests (sourced).
set -euo pipefail
MMLAB="$MMLAB_SRCDIR/mmlab"
T=$(mktemp -d "$MMLAB_SRCDIR/build/itest/tmp.XXXXXX")
export MMLAB_RESULTS="$T/results"

. "$MMLAB_SRCDIR/tests/assert.sh"
trap cleanup EXIT
# write a job file: job NAME WORKLOAD-YAML [TOPOLOGY-YAML] [EXTRA-YAML]
job() {
	local name=$1 wl=$2
	local topo=${3:-"{ nodes: 2, cpus_per_node: 1, memory_per_node: 256M }"}
	local extra=${4:-}
	cat >"$T/$name.yaml" <<JOB
name: $name
variants:
  - { name: base, kernel: distro }
topology: $topo
workload: $wl
iterations: 1
timeouts: { boot: 120s, iteration: 300s }
$extra
JOB
	echo "$T/$name.yaml"
}
