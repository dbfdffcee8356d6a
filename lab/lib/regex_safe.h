/* SPDX-License-Identifier: GPL-2.0 */
/*
 * regex_safe.h - compile a POSIX extended regular expression that a user
 * or a guest wrote, within bounds. glibc's regcomp() expands counted
 * repetition by copying the repeated part: "((a{255}){255}){255}" becomes
 * 16 million nodes (3.5 GB, 30 s), one more level exhausts the host. And
 * back-references make regexec() exponential. So before regcomp() the
 * pattern is measured, and refused with a reason when
 *
 *   - it is longer than REGEX_MAX_LEN bytes,
 *   - it expands to more than REGEX_MAX_SIZE positions (each literal,
 *     '.', bracket expression or anchor is one; a{n,m} counts m copies
 *     of a, so nested counted repetition multiplies),
 *   - its groups nest deeper than REGEX_MAX_DEPTH,
 *   - it nests quantifiers deeper than REGEX_MAX_QUANT_NEST: a
 *     quantifier over a group that holds quantifiers, or stacked ones
 *     (a+?), nests one deeper; glibc's regcomp() computes the empty-match
 *     closures of such nests in exponential time ("b+????????????+++++"
 *     takes 15 s, and grouped the same way longer still),
 *   - it repeats, with an interval of more than one copy, a part that can
 *     match the empty string and holds a quantifier ("5?{,3}{63,}": minutes
 *     in the same closures),
 *   - its quantified pieces, each weighing 2^(the quantifiers nested in
 *     it: a+ 2, a+? 4), weigh more than REGEX_MAX_QUANT_WEIGHT (45 of
 *     "]????" took 1.2 s),
 *   - it uses a back-reference (\1 .. \9).
 *
 * Every regex mmlab compiles from input goes through here: recipe
 * expectations (dmesg:), `bisect --signature dmesg:...`, and the metric
 * extractors of user workloads. The limits are in docs/mmlab.md.
 */
#ifndef MMLAB_REGEX_SAFE_H
#define MMLAB_REGEX_SAFE_H

#include <regex.h>
#include <stddef.h>

#define REGEX_MAX_LEN 1024
#define REGEX_MAX_SIZE 4096
#define REGEX_MAX_DEPTH 32
#define REGEX_MAX_QUANT_NEST 4
/* the quantified pieces of a pattern, each weighing 2^(its nesting) */
#define REGEX_MAX_QUANT_WEIGHT 64

/*
 * regcomp(re, pattern, cflags) when the pattern is within the limits
 * (cflags must include REG_EXTENDED). 0, or -1 with why (what is wrong,
 * as a phrase to put after the pattern) in why[len]; re needs regfree()
 * only after 0. Prints nothing.
 */
int regex_compile_safe(regex_t *re, const char *pattern, int cflags, char *why, size_t len);

/*
 * The pattern's size as regex_compile_safe() measures it (saturating at
 * SIZE_MAX), or 0 with why set when the pattern is refused before
 * compiling (too long, too deep, a back-reference).
 */
size_t regex_size(const char *pattern, char *why, size_t len);

#endif
