#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The change-point statistics against R, live: energy_ref.R is run with
# this host's R and energy package (Debian r-cran-energy), and
# test_changepoint checks lab/analysis/changepoint.c against what it
# printed instead of the stored energy_ref.txt (MMLAB_CP_REF): edist to
# 1e-9, the eqdist.etest p-values within Monte-Carlo error, the E-divisive
# split to 1e-9. Needs no VM.
#
#   tests/unit/changepoint/check-against-r.sh
#
# Exit 0 when they agree, 1 when not, 77 (skipped, the last line says
# why) without Rscript or the energy package. The unit binary is built
# (make) unless CP_TEST_BIN names one.
set -uo pipefail
cd "$(dirname "$0")/../../.."
if ! command -v Rscript >/dev/null; then
	echo "skipped: no Rscript (Debian r-base-core)"
	exit 77
fi
if ! Rscript -e 'quit(status = !requireNamespace("energy", quietly = TRUE))' >/dev/null 2>&1; then
	echo "skipped: R has no energy package (Debian r-cran-energy)"
	exit 77
fi
bin=${CP_TEST_BIN:-build/san/tests/unit/analysis/test_changepoint}
if [ -z "${CP_TEST_BIN:-}" ]; then
	make --no-print-directory "$bin" >/dev/null || {
		echo "FAIL: cannot build $bin"
		exit 1
	}
fi
T=$(mktemp -d /tmp/mmlab-cp-r.XXXXXX)
trap 'rm -rf "$T"' EXIT
if ! timeout 300 Rscript tests/unit/changepoint/energy_ref.R >"$T/energy_ref.txt" 2>"$T/r.err"; then
	echo "FAIL: energy_ref.R failed:"
	tail -n 20 "$T/r.err"
	exit 1
fi
head -n 2 "$T/energy_ref.txt"
# the stored file is what the unit tests read without R: say when this
# R computes other numbers (another R or energy version)
if ! diff -q tests/unit/changepoint/energy_ref.txt "$T/energy_ref.txt" >/dev/null; then
	echo "note: this R differs from the stored energy_ref.txt:"
	diff tests/unit/changepoint/energy_ref.txt "$T/energy_ref.txt" | cut -c1-120 | head -n 10
fi
MMLAB_CP_REF=$T/energy_ref.txt MMLAB_SRCDIR=$PWD ASAN_OPTIONS=detect_leaks=1 "$bin" || {
	echo "FAIL: lab/analysis/changepoint.c disagrees with R (above)"
	exit 1
}
echo "PASS: lab/analysis/changepoint.c agrees with R"
