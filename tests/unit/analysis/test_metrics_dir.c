// SPDX-License-Identifier: GPL-2.0
/*
 * test_metrics_dir.c - lab/analysis/metrics_dir.c agrees with docs/metrics.md: every
 * table row there with a "better" column of lower/higher/neutral gives the
 * direction metric_direction() must return, and every counter rule in the
 * code is listed in the docs' "Direction of counters" table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/metrics_dir.h"
#include "lib/util.h"

/* `name` in a table cell -> a concrete metric name ("T<N>" -> "T4", "*" -> "x") */
static char *concrete(const char *cell)
{
	const char *a = strchr(cell, '`'), *b = a ? strchr(a + 1, '`') : NULL;
	char *out, *o;

	if (!a || !b)
		return NULL;
	out = o = xcalloc(2 * (size_t)(b - a) + 8, 1);
	for (const char *p = a + 1; p < b; p++) {
		if (!strncmp(p, "<N>", 3)) {
			*o++ = '4';
			p += 2;
		} else if (*p == '*') {
			*o++ = 'x';
		} else {
			*o++ = *p;
		}
	}
	return out;
}

static int split_row(char *line, char **cells, int max)
{
	int n = 0;
	char *save = NULL;

	if (line[0] != '|')
		return 0;
	for (char *c = strtok_r(line, "|", &save); c && n < max; c = strtok_r(NULL, "|", &save)) {
		while (*c == ' ')
			c++;
		c[strcspn(c, "\n")] = '\0';
		for (char *e = c + strlen(c); e > c && e[-1] == ' ';)
			*--e = '\0';
		cells[n++] = c;
	}
	return n;
}

static void check_name(const char *name, enum metric_dir want, const char *line)
{
	enum metric_dir got = metric_direction(name);

	if (got != want)
		fail_msg("docs/metrics.md: %s is %s there but metric_direction() "
			 "says %s (row: %s)",
			 name, metric_dir_name(want), metric_dir_name(got), line);
}

static void test_docs_agree(void **state)
{
	const char *src = getenv("MMLAB_SRCDIR");
	char *path = xasprintf("%s/docs/metrics.md", src ? src : ".");
	char *text = read_file(path, NULL, 1u << 20), *save = NULL;
	int better_col = -1, rows = 0, counters = 0;
	struct strlist documented = { 0 };

	(void)state;
	assert_non_null(text);
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char copy[1024], *cells[8], *name;
		enum metric_dir want;
		int n;

		snprintf(copy, sizeof(copy), "%s", line);
		n = split_row(copy, cells, 8);
		if (!n) {
			better_col = -1; /* a table ended */
			continue;
		}
		if (better_col < 0) { /* the header row */
			for (int i = 0; i < n; i++)
				if (!strcmp(cells[i], "better"))
					better_col = i;
			if (better_col < 0)
				better_col = 99; /* a table without it */
			continue;
		}
		if (better_col >= n || metric_dir_parse(cells[better_col], &want) ||
		    !strcmp(cells[better_col], "-"))
			continue; /* "see below", "per workload", the --- row */
		name = concrete(cells[0]);
		if (!name)
			continue;
		rows++;
		if (strchr(name, '.')) {
			check_name(name, want, line);
		} else { /* a counter: every family that has it */
			char *full[3] = {
				xasprintf("vmstat.%s", name),
				xasprintf("node1.vmstat.%s", name),
				xasprintf("numastat.node0.%s", name),
			};

			for (int i = 0; i < 3; i++) {
				check_name(full[i], want, line);
				free(full[i]);
			}
			/* the pattern as written, to find it in the code's rules */
			*strchr(strchr(line, '`') + 1, '`') = '\0';
			strlist_push(&documented, strchr(line, '`') + 1);
			counters++;
		}
		free(name);
	}
	assert_true(rows >= 30);
	assert_true(counters >= 25);
	/* and the other way: no rule in the code that the docs do not list */
	for (size_t i = 0;; i++) {
		enum metric_dir d;
		const char *pat = metric_counter_rule(i, &d);
		bool found = false;

		if (!pat)
			break;
		for (size_t k = 0; k < documented.n; k++)
			found |= !strcmp(documented.v[k], pat);
		if (!found)
			fail_msg(
				"lab/analysis/metrics_dir.c has a rule for %s that docs/metrics.md "
				"(Direction of counters) does not list",
				pat);
	}
	strlist_free(&documented);
	free(text);
	free(path);
}

static void test_unlisted(void **state)
{
	(void)state;
	assert_int_equal(metric_direction("vmstat.pgfault"), DIR_NEUTRAL);
	assert_int_equal(metric_direction("vmstat.nr_free_pages"), DIR_NEUTRAL);
	assert_int_equal(metric_direction("numastat.node1.interleave_hit"), DIR_NEUTRAL);
	assert_int_equal(metric_direction("something.else"), DIR_NEUTRAL);
	assert_int_equal(metric_direction("derived.compaction_cost"), DIR_LOWER);
	assert_int_equal(metric_kind("vmstat.compact_stall"), KIND_OPS);
	assert_int_equal(metric_kind("time.system_s"), KIND_DURATION);
	assert_int_equal(metric_kind("usemem.elapsed_s.T1"), KIND_MAIN);
}

static void test_groups(void **state)
{
	static const struct {
		const char *name;
		enum metric_group g;
	} t[] = {
		{ "usemem.elapsed_s.T1", GROUP_WORKLOAD },
		{ "time.elapsed_s", GROUP_DURATION },
		{ "vmstat.compact_stall", GROUP_OPS },
		{ "derived.compaction_cost", GROUP_OPS },
		{ "rate.time.elapsed_s/vmstat.compact_stall", GROUP_OPS },
		{ "rate.kthread.kcompactd0.cpu_s/vmstat.compact_stall", GROUP_OPS },
		{ "vmstat.numa_hint_faults", GROUP_NUMA },
		{ "vmstat.pgpromote_success", GROUP_NUMA },
		{ "derived.autonuma_cost", GROUP_NUMA },
		{ "node1.vmstat.nr_free_pages", GROUP_NUMA },
		{ "numastat.node0.numa_miss", GROUP_NUMA },
		{ "kthread.kcompactd0.cpu_s", GROUP_COLLECTORS },
		{ "extfrag.node0.DMA32.index_o9.after", GROUP_COLLECTORS },
		{ "dmesg.warnings", GROUP_COLLECTORS },
		{ "trace.compaction:mm_compaction_begin", GROUP_COLLECTORS },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (metric_group(t[i].name, metric_kind(t[i].name)) != t[i].g)
			fail_msg("%s: group %s, expected %s", t[i].name,
				 metric_group_name(metric_group(t[i].name, metric_kind(t[i].name))),
				 metric_group_name(t[i].g));
	/* by name; compare.c puts user formulas in the workload group */
	assert_int_equal(metric_group("trace.ratio", KIND_MAIN), GROUP_COLLECTORS);
	assert_int_equal(metric_group("numa_ratio", KIND_MAIN), GROUP_WORKLOAD);
	assert_string_equal(metric_group_name(GROUP_NUMA), "numa");
	assert_string_equal(metric_group_title(GROUP_DURATION), "Duration");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docs_agree),
		cmocka_unit_test(test_unlisted),
		cmocka_unit_test(test_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
