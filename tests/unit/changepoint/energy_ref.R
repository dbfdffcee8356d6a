# SPDX-License-Identifier: GPL-2.0
#
# energy_ref.R - the reference values of tests/unit/analysis/test_changepoint.c,
# computed by R and its energy package (Debian r-cran-energy):
#
#   Rscript tests/unit/changepoint/energy_ref.R > tests/unit/changepoint/energy_ref.txt
#
# For each pair of samples: energy::edist (exponent 1) and the p-value of
# energy::eqdist.etest with 1999 replicates (seeded); for each series: the
# best split of E-divisive (scaled energy statistic, U-statistics within,
# exponent 1) computed here by brute force from its definition, with kappa
# the series' end and with kappa searched as ecp's e.divisive does (base R
# only: ecp is not packaged in Debian). Every number is printed with 17
# significant digits, so the C test reads the very doubles R used.
# tests/unit/changepoint/check-against-r.sh runs this live.
suppressPackageStartupMessages(library(energy))

num <- function(v) paste(sprintf("%.17g", v), collapse = " ")
out <- function(...) cat(paste(...), "\n", sep = "")

pair <- function(name, x, y, seed) {
	out("pair", name)
	out("x", num(x))
	out("y", num(y))
	e <- edist(c(x, y), sizes = c(length(x), length(y)))
	out("edist", num(as.numeric(e)))
	set.seed(seed)
	p <- eqdist.etest(c(x, y), sizes = c(length(x), length(y)), R = 1999)$p.value
	out("etest 1999", num(p))
}

# the statistic of left against right: t1 n2 / (t1 + n2) times the energy
# distance with U-statistics within (as ecp's splitPointC, without its
# integer division of the scale)
qhat <- function(l, r) {
	a <- length(l); b <- length(r)
	between <- mean(abs(outer(l, r, "-")))
	wl <- sum(abs(outer(l, l, "-"))) / (a * (a - 1))
	wr <- sum(abs(outer(r, r, "-"))) / (b * (b - 1))
	a * b / (a + b) * (2 * between - wl - wr)
}

# the best split of x: tau is the 0-based index of the first kernel of the
# new segment; with search, kappa runs over every end as well
best_split <- function(x, ms, search) {
	n <- length(x); best <- -Inf; tau <- -1
	for (t1 in ms:(n - ms)) {
		ends <- if (search) (t1 + ms):n else n
		for (t2 in ends) {
			q <- qhat(x[1:t1], x[(t1 + 1):t2])
			if (q > best) { best <- q; tau <- t1 }
		}
	}
	c(tau, best)
}

series <- function(name, x, ms) {
	out("series", name, ms)
	out("v", num(x))
	s <- best_split(x, ms, FALSE)
	out("split_end", s[1], num(s[2]))
	s <- best_split(x, ms, TRUE)
	out("split_search", s[1], num(s[2]))
}

out("# energy_ref.txt: made by tests/unit/changepoint/energy_ref.R")
cat("# R ", R.version$major, ".", R.version$minor, ", energy ", format(packageVersion("energy")), "\n", sep = "")
set.seed(1)
pair("small", round(rnorm(5), 3), round(rnorm(4, 1), 3), 11)
pair("shift", rnorm(20), rnorm(25, 0.5), 12)
pair("null", rnorm(30), rnorm(30), 13)
pair("skewed", rexp(100), 1.2 * rexp(80), 14)
pair("unequal", rnorm(3, 2), rnorm(40), 15)
pair("scale", rnorm(40, 100, 1), rnorm(40, 100, 3), 16)
pair("close", rnorm(50), rnorm(50, 0.3), 17)
series("step", c(rnorm(20, 20), rnorm(15, 22)), 2)
series("twostep", c(rnorm(12, 5), rnorm(10, 8), rnorm(14, 6)), 2)
series("null", rnorm(40, 100, 2), 3)
series("transient", c(rnorm(15), rnorm(4, 3), rnorm(15)), 2)
series("short", c(1, 3, 2, 8, 9, 7.5), 2)
series("counter", c(rep(0, 10), 3, 0, 0, 5, rep(0, 5), 4, 6, 5, 0, 7, 5, 6), 2)
series("long", c(rnorm(70, 5e6, 2e4), rnorm(50, 5.03e6, 2e4)), 4)
