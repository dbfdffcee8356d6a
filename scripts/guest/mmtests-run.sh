#!/bin/sh
# mmtests-run.sh - runs an mmtests config inside an mmlab guest (the guest
# side of "workload: { mmtests: ... }", docs/workloads.md). The agent starts
# it in /mmlab/work, which holds the user's mmtests tree (mmtests/) and the
# config (mmtests-config); fds 3 and 4 are the agent's handshake.
#
#   mmtests-run.sh CONFIG RUNNAME [--stub SOURCES-DIR[:PROGRAM]]...
#
# 1. run-mmtests.sh --build-only installs the config's benchmarks (built
#    from mmtests' own sources in the image; nothing is downloaded: the
#    guest has no network). Not measured.
# 2. "ready" on fd 3, "go" from fd 4: mmlab's snapshots start.
# 3. run-mmtests.sh --no-monitor --config CONFIG RUNNAME: the measured run.
# 4. "done": the snapshots end. mmtests' work/log/ is packed into
#    /mmlab/work/mmtests-log.tar.gz, which mmlab brings back.
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

./run-mmtests.sh --no-monitor --build-only --config "$here/$config" "$name" \
	>>"$out" 2>&1 </dev/null 3>&- 4>&-
rc=$?
if [ $rc -ne 0 ]; then
	cat "$out"
	pack_log
	tail_out "installing the benchmarks failed (run-mmtests.sh --build-only, status $rc)"
	exit 1
fi
echo "mmtests-run: benchmarks installed" >>"$out"

echo ready >&3
read -r go <&4
./run-mmtests.sh --no-monitor --config "$here/$config" "$name" \
	>>"$out" 2>&1 </dev/null 3>&- 4>&-
rc=$?
echo done >&3
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
