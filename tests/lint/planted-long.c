// SPDX-License-Identifier: GPL-2.0
/*
 * planted-long.c - a known bug for the linter's own test (tests/lint/run):
 * a function of 101 lines, one over the kernel's short-function limit that
 * .clang-tidy sets (readability-function-size, LineThreshold 100). Not part
 * of the build or of the linted tree.
 *
 * lint-expect: clang-tidy readability-function-size
 */
int planted_long(int x);

int planted_long(int x)
{
	int y = x;
	y += 1 * x; /* line 2 */
	y += 2 * x; /* line 3 */
	y += 3 * x; /* line 4 */
	y += 4 * x; /* line 5 */
	y += 5 * x; /* line 6 */
	y += 6 * x; /* line 7 */
	y += 7 * x; /* line 8 */
	y += 1 * x; /* line 9 */
	y += 2 * x; /* line 10 */
	y += 3 * x; /* line 11 */
	y += 4 * x; /* line 12 */
	y += 5 * x; /* line 13 */
	y += 6 * x; /* line 14 */
	y += 7 * x; /* line 15 */
	y += 1 * x; /* line 16 */
	y += 2 * x; /* line 17 */
	y += 3 * x; /* line 18 */
	y += 4 * x; /* line 19 */
	y += 5 * x; /* line 20 */
	y += 6 * x; /* line 21 */
	y += 7 * x; /* line 22 */
	y += 1 * x; /* line 23 */
	y += 2 * x; /* line 24 */
	y += 3 * x; /* line 25 */
	y += 4 * x; /* line 26 */
	y += 5 * x; /* line 27 */
	y += 6 * x; /* line 28 */
	y += 7 * x; /* line 29 */
	y += 1 * x; /* line 30 */
	y += 2 * x; /* line 31 */
	y += 3 * x; /* line 32 */
	y += 4 * x; /* line 33 */
	y += 5 * x; /* line 34 */
	y += 6 * x; /* line 35 */
	y += 7 * x; /* line 36 */
	y += 1 * x; /* line 37 */
	y += 2 * x; /* line 38 */
	y += 3 * x; /* line 39 */
	y += 4 * x; /* line 40 */
	y += 5 * x; /* line 41 */
	y += 6 * x; /* line 42 */
	y += 7 * x; /* line 43 */
	y += 1 * x; /* line 44 */
	y += 2 * x; /* line 45 */
	y += 3 * x; /* line 46 */
	y += 4 * x; /* line 47 */
	y += 5 * x; /* line 48 */
	y += 6 * x; /* line 49 */
	y += 7 * x; /* line 50 */
	y += 1 * x; /* line 51 */
	y += 2 * x; /* line 52 */
	y += 3 * x; /* line 53 */
	y += 4 * x; /* line 54 */
	y += 5 * x; /* line 55 */
	y += 6 * x; /* line 56 */
	y += 7 * x; /* line 57 */
	y += 1 * x; /* line 58 */
	y += 2 * x; /* line 59 */
	y += 3 * x; /* line 60 */
	y += 4 * x; /* line 61 */
	y += 5 * x; /* line 62 */
	y += 6 * x; /* line 63 */
	y += 7 * x; /* line 64 */
	y += 1 * x; /* line 65 */
	y += 2 * x; /* line 66 */
	y += 3 * x; /* line 67 */
	y += 4 * x; /* line 68 */
	y += 5 * x; /* line 69 */
	y += 6 * x; /* line 70 */
	y += 7 * x; /* line 71 */
	y += 1 * x; /* line 72 */
	y += 2 * x; /* line 73 */
	y += 3 * x; /* line 74 */
	y += 4 * x; /* line 75 */
	y += 5 * x; /* line 76 */
	y += 6 * x; /* line 77 */
	y += 7 * x; /* line 78 */
	y += 1 * x; /* line 79 */
	y += 2 * x; /* line 80 */
	y += 3 * x; /* line 81 */
	y += 4 * x; /* line 82 */
	y += 5 * x; /* line 83 */
	y += 6 * x; /* line 84 */
	y += 7 * x; /* line 85 */
	y += 1 * x; /* line 86 */
	y += 2 * x; /* line 87 */
	y += 3 * x; /* line 88 */
	y += 4 * x; /* line 89 */
	y += 5 * x; /* line 90 */
	y += 6 * x; /* line 91 */
	y += 7 * x; /* line 92 */
	y += 1 * x; /* line 93 */
	y += 2 * x; /* line 94 */
	y += 3 * x; /* line 95 */
	y += 4 * x; /* line 96 */
	y += 5 * x; /* line 97 */
	y += 6 * x; /* line 98 */
	y += 7 * x; /* line 99 */
	return y;
}
