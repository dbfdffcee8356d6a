#!/bin/bash
# planted-awk.sh - a known bug for scripts/check-awk (tests/lint/run): the
# '>' of the ternary is an output redirection, a syntax error to gawk and a
# file named "0" to mawk (bench/run's disk rate had it). Not run.
rate() { awk '{ printf "%.1f\n", $2 > 0 ? $1 / 1024 / $2 : 0 }'; }
# the same, parenthesised: both awks agree
rate_ok() { awk '{ printf "%.1f\n", ($2 > 0 ? $1 / 1024 / $2 : 0) }'; }
