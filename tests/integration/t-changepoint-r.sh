# The change-point statistics against R's energy package, live (no VM):
# tests/unit/changepoint/check-against-r.sh runs energy_ref.R with this
# host's R and checks lab/analysis/changepoint.c against what it printed.
# Here because the test tier installs r-cran-energy; exit 77 without it.
set -uo pipefail
cd "$MMLAB_SRCDIR"
tests/unit/changepoint/check-against-r.sh
