#!/bin/sh
# mmtests-run.sh - runs an mmtests config inside an mmlab guest (the guest
# side of "workload: { mmtests: ... }", docs/workloads.md). The agent starts
# it in /mmlab/work, which holds the user's mmtests tree (mmtests/) and the
# config (mmtests-config); fds 3 and 4 are the agent's handshake.
#
#   mmtests-run.sh CONFIG RUNNAME [--stub SOURCES-DIR[:PROGRAM]]...
#
# 1. run-mmtests.sh --no-monitor --config CONFIG --config HOOKS RUNNAME
#    installs the config's benchmarks (from mmtests' own sources in the
#    image; nothing is downloaded: the guest has no network), then runs
#    them. HOOKS is mmlab's monitor hook: at the first monitor_pre_hook of
#    a shellpack, where the benchmark starts, "ready" on fd 3 and "go" from
#    fd 4: mmlab's snapshots start there.
# 2. "done" after run-mmtests.sh exits: the snapshots end. mmtests'
#    work/log/ is packed into /mmlab/work/mmtests-log.tar.gz, which mmlab
#    brings back.
# A benchmark whose shellpack calls no monitor hook is run a second time,
# whole, as the measured phase (the first run installed it).
#
# A --stub is an external package mmtests would download, satisfied by the
# image's Debian package instead (lab/mmtests/needs.c): its
# work/sources/<dir> is made, with a link to /usr/bin/PROGRAM.
# mmtests' output goes to stdout; on a failure the end of it goes to stderr
# too, and the script exits non-zero, which fails the iteration.
set -u

die() {
	echo "mmtests-run: $*" >&2
	exit 2
}

[ $# -ge 2 ] || die "usage: mmtests-run.sh CONFIG RUNNAME [--stub DIR[:PROGRAM]]..."
config=$1
name=$2
shift 2
here=$(pwd)
cd mmtests || die "no mmtests tree in $here"
while [ $# -ge 2 ] && [ "$1" = "--stub" ]; do
	dir=${2%%:*}
	prog=
	case $2 in *:*) prog=${2#*:} ;; esac
	mkdir -p "work/sources/$dir" || die "cannot make work/sources/$dir"
	if [ -n "$prog" ] && [ -x "/usr/bin/$prog" ]; then
		ln -sf "/usr/bin/$prog" "work/sources/$dir/$prog"
	fi
	shift 2
done
[ $# -eq 0 ] || die "unexpected argument: $1"

# mmtests' shellpacks are written for openSUSE, whose gcc links without
# --as-needed; Debian's passes it, which drops a library named before the
# sources (thpchallenge-install: gcc -lpthread -lnuma thpchallenge.c). A gcc
# first in PATH links as openSUSE's does.
shim="$here/mmtests-bin"
mkdir -p "$shim" || die "cannot make $shim"
for cc in gcc cc; do
	printf '#!/bin/sh\nexec /usr/bin/%s -Wl,--no-as-needed "$@"\n' "$cc" >"$shim/$cc"
	chmod 755 "$shim/$cc"
done
export PATH="$shim:$PATH"

# mmtests must not try to install packages (the image has them, there is
# no network) nor ask questions
export ASSUME_PACKAGE_INSTALLED=yes
export AUTO_PACKAGE_INSTALL=no
out="$here/mmtests.out"
: >"$out"

tail_out() {
	echo "mmtests-run: $1; the end of mmtests' output:" >&2
	tail -n 40 "$out" >&2
}

pack_log() {
	if [ -d work/log ]; then
		tar -czf "$here/mmtests-log.tar.gz" -C work/log . 2>>"$out"
	fi
}

# The measured phase starts where the benchmark does: a monitor hook of
# mmtests' (MONITOR_HOOKS, the way mmtests' example-hooks/ plug in), in a
# second config after the user's, says "ready" on fd 3 and waits for "go"
# on fd 4 the first time a shellpack calls monitor_pre_hook, after the
# installation and mmtests' own set-up; "done" follows run-mmtests.sh's exit.
# The phase's times are the guest's (/proc/uptime, and the CPU of
# /proc/stat: mmtests' processes are not all this script's children, and
# what the installation used must not count), sent with "done".
mark="$here/mmtests-measuring"
hooks="$here/mmtests-hooks.config"
rm -f "$mark"
cat >"$hooks" <<HOOKS
# mmlab's monitor hook (scripts/guest/mmtests-run.sh)
mmlab_monitor-pre() {
	if [ ! -e "$mark" ]; then
		echo ready >&3
		read -r mmlab_go <&4
		read -r _ mmlab_u mmlab_n mmlab_s _ </proc/stat
		echo "\$(cut -d' ' -f1 /proc/uptime) \$mmlab_u \$mmlab_n \$mmlab_s" >"$mark"
	fi
}
export MONITOR_HOOKS="\${MONITOR_HOOKS:+\$MONITOR_HOOKS }mmlab"
HOOKS

# "done" with the times since the mark: elapsed, user (with nice), system
done_line() {
	read -r _ u1 n1 s1 _ </proc/stat
	t1=$(cut -d' ' -f1 /proc/uptime)
	hz=$(getconf CLK_TCK 2>/dev/null || echo 100)
	read -r t0 u0 n0 s0 <"$mark"
	awk -v t0="$t0" -v t1="$t1" -v u="$((u1 + n1 - u0 - n0))" -v s="$((s1 - s0))" -v hz="$hz" \
		'BEGIN { printf "done user_s=%.2f system_s=%.2f elapsed_s=%.2f\n", u / hz, s / hz, t1 - t0 }'
}

./run-mmtests.sh --no-monitor --config "$here/$config" --config "$hooks" "$name" \
	>>"$out" 2>&1 </dev/null
rc=$?
if [ ! -e "$mark" ] && [ $rc -ne 0 ]; then
	cat "$out"
	pack_log
	tail_out "installing or starting the benchmarks failed (run-mmtests.sh, status $rc)"
	exit 1
fi
if [ ! -e "$mark" ]; then
	# a benchmark whose shellpack calls no monitor hook: that run installed
	# it, and a second one, whole, is the measured phase
	echo "mmtests-run: no monitor hook was called; the run is measured again, whole" >>"$out"
	rm -rf work/log
	echo ready >&3
	read -r go <&4
	read -r _ u0 n0 s0 _ </proc/stat
	echo "$(cut -d' ' -f1 /proc/uptime) $u0 $n0 $s0" >"$mark"
	./run-mmtests.sh --no-monitor --config "$here/$config" "$name" \
		>>"$out" 2>&1 </dev/null 3>&- 4>&-
	rc=$?
fi
done_line >&3
read -r go <&4

cat "$out"
pack_log
if [ $rc -ne 0 ]; then
	tail_out "run-mmtests.sh failed (status $rc)"
	exit 1
fi
if ! ls -d work/log/"$name"/iter-0/* >/dev/null 2>&1; then
	tail_out "run-mmtests.sh left no results in work/log/$name/iter-0"
	exit 1
fi
exit 0
