// SPDX-License-Identifier: GPL-2.0
/* Unit tests for lab/lib/strbuf.c and lab/lib/parse-options.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "lib/parse-options.h"
#include "lib/strbuf.h"
#include "lib/util.h"

static void test_strbuf(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	(void)state;
	assert_string_equal(sb.buf, "");
	strbuf_addstr(&sb, "a");
	strbuf_addch(&sb, 'b');
	strbuf_addf(&sb, "%d-%s", 42, "x");
	strbuf_add(&sb, "yz", 1);
	assert_string_equal(sb.buf, "ab42-xy");
	assert_int_equal(sb.len, 7);
	strbuf_reset(&sb);
	assert_string_equal(sb.buf, "");
	strbuf_addsep(&sb, ", ", "one");
	strbuf_addsep(&sb, ", ", "two");
	assert_string_equal(sb.buf, "one, two");
	/* growth past many doublings keeps every byte */
	strbuf_reset(&sb);
	for (int i = 0; i < 10000; i++)
		strbuf_addf(&sb, "%04d", i % 10000);
	assert_int_equal(sb.len, 40000);
	assert_memory_equal(sb.buf + 39996, "9999", 4);
	assert_int_equal(sb.buf[40000], '\0');
	s = strbuf_detach(&sb);
	assert_int_equal(strlen(s), 40000);
	free(s);
	assert_string_equal(sb.buf, "");
	s = strbuf_detach(&sb); /* an empty one detaches as "" */
	assert_string_equal(s, "");
	free(s);
	strbuf_release(&sb);
}

struct vals {
	bool json, quiet;
	const char *order;
	unsigned int n;
	struct strlist frags;
	double pct;
};

static struct vals v;

static int pct_cb(const struct opt *o, const char *arg)
{
	char *end;

	*(double *)o->value = strtod(arg, &end);
	if (*end) {
		lab_err("--pct wants a number, not '%s'", arg);
		return -1;
	}
	return 0;
}

static const char *const synopsis[] = { "mmlab t [options] A", "mmlab t --other", NULL };
static const struct opt_usage usage = { synopsis, "Test command.", "Exit status: 0." };

static int parse(int argc, char **argv, char **err)
{
	struct opt opts[] = {
		OPT_BOOL('j', "json", &v.json, "print JSON"),
		OPT_BOOL('q', NULL, &v.quiet, "quiet"),
		OPT_STRING(0, "order", &v.order, "random|sequential", "the order\nof boots"),
		OPT_UINT('n', "iterations", &v.n, 1, 100, "N", "iterations"),
		OPT_GROUP("kernel options:"),
		OPT_STRLIST('F', "fragment", &v.frags, "FILE", "a config fragment (repeatable)"),
		OPT_CALLBACK(0, "pct", &v.pct, "PCT", "a percentage", pct_cb),
		OPT_END(),
	};
	struct capture c;
	int ret;

	strlist_free(&v.frags);
	memset(&v, 0, sizeof(v));
	capture_start(&c);
	ret = parse_options(argc, argv, opts, &usage, 0);
	*err = capture_end(&c);
	return ret;
}

#define ARGS(...) ((char *[]){ "t", __VA_ARGS__, NULL })
#define NARGS(...) ((int)(sizeof((char *[]){ "t", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(err, ...) parse(NARGS(__VA_ARGS__), ARGS(__VA_ARGS__), err)

static void test_options_forms(void **state)
{
	char *argv[] = { "t",	  "A",	 "--json",   "--order=random",	"-n",	    "7",
			 "B",	  "-F",	 "a.config", "--fragment",	"b.config", "-qj",
			 "--pct", "0.5", "--",	     "--not-an-option", NULL };
	char *err;
	int n;

	(void)state;
	n = parse(ARRAY_SIZE(argv) - 1, argv, &err);
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(n, 3);
	assert_string_equal(argv[0], "A");
	assert_string_equal(argv[1], "B");
	assert_string_equal(argv[2], "--not-an-option");
	assert_null(argv[3]);
	assert_true(v.json && v.quiet);
	assert_string_equal(v.order, "random");
	assert_int_equal(v.n, 7);
	assert_int_equal(v.frags.n, 2);
	assert_string_equal(v.frags.v[1], "b.config");
	assert_true(v.pct == 0.5);

	n = PARSE(&err, "-n12", "-"); /* a value glued to its short option; "-" is an operand */
	assert_int_equal(n, 1);
	assert_int_equal(v.n, 12);
	free(err);
}

static void test_options_errors(void **state)
{
	const struct {
		int argc;
		char **argv;
		const char *msg;
	} cases[] = {
		{ NARGS("--build-jobs", "3"), ARGS("--build-jobs", "3"),
		  "mmlab: error: t: unknown option --build-jobs; see 'mmlab t --help'\n" },
		{ NARGS("--jso"), ARGS("--jso"), "unknown option --jso;" },
		{ NARGS("-x"), ARGS("-x"), "unknown option -x;" },
		{ NARGS("--json=yes"), ARGS("--json=yes"), "--json takes no value" },
		{ NARGS("--order"), ARGS("--order"), "--order wants a value (random|sequential)" },
		{ NARGS("-n"), ARGS("-n"), "-n wants a value (N)" },
		{ NARGS("-n", "0"), ARGS("-n", "0"),
		  "t: --iterations wants an integer from 1 to 100, not '0'" },
		{ NARGS("--iterations=1x"), ARGS("--iterations=1x"), "not '1x'" },
		{ NARGS("--pct", "abc"), ARGS("--pct", "abc"), "--pct wants a number, not 'abc'" },
		{ NARGS("--help=1"), ARGS("--help=1"), "--help takes no value" },
		/* after an operand, the message still names the command, not the operand */
		{ NARGS("RUN", "--bogus"), ARGS("RUN", "--bogus"),
		  "mmlab: error: t: unknown option --bogus; see 'mmlab t --help'\n" },
		{ NARGS("RUN", "-x"), ARGS("RUN", "-x"), "error: t: unknown option -x;" },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *err;
		int n = parse(cases[i].argc, cases[i].argv, &err);

		if (n != PARSE_OPT_ERROR || !strstr(err, cases[i].msg))
			fail_msg("case %zu: returned %d, said '%s', wanted '%s'", i, n, err,
				 cases[i].msg);
		free(err);
	}
	strlist_free(&v.frags);
}

static void test_options_help(void **state)
{
	char *argv[] = { "t", "--order", "x", "-h", NULL };
	struct opt opts[] = {
		OPT_STRING(0, "order", &v.order, "random|sequential", "the order\nof boots"),
		OPT_UINT('n', "iterations", &v.n, 1, 100, "N", "iterations"),
		OPT_END(),
	};
	char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	usage_with_options(f, opts, &usage);
	fclose(f);
	assert_string_equal(buf, "usage: mmlab t [options] A\n"
				 "       mmlab t --other\n"
				 "\n"
				 "Test command.\n"
				 "\n"
				 "options:\n"
				 "  --order random|sequential\n"
				 "                        the order\n"
				 "                        of boots\n"
				 "  -n, --iterations N    iterations\n"
				 "  -h, --help            this help\n"
				 "\n"
				 "Exit status: 0.\n");
	/* -h prints the help on stdout and says so */
	assert_int_equal(parse_options(4, argv, opts, &usage, 0), PARSE_OPT_HELP);
}

static void test_options_stop_at_operand(void **state)
{
	char *argv[] = { "mmlab", "-q", "run", "--json", "job.yaml", NULL };
	bool q = false, json = false;
	struct opt opts[] = {
		OPT_BOOL('q', "quiet", &q, "quiet"),
		OPT_BOOL(0, "json", &json, "json"),
		OPT_END(),
	};

	(void)state;
	assert_int_equal(parse_options(5, argv, opts, &usage, PARSE_OPT_STOP_AT_NON_OPTION), 3);
	assert_true(q);
	assert_false(json);
	assert_string_equal(argv[0], "run");
	assert_string_equal(argv[1], "--json");
	assert_string_equal(argv[2], "job.yaml");
}

/* OPT_SUBCOMMAND: run SUB (args...) with the subcommands list, show and reindex */
static int parse_sub(int argc, char **argv, int *sub, bool *json, char **err)
{
	struct opt opts[] = {
		OPT_BOOL(0, "json", json, "print JSON"),
		OPT_SUBCOMMAND("list", sub, 0),
		OPT_SUBCOMMAND("show", sub, 1),
		OPT_SUBCOMMAND("reindex", sub, 2),
		OPT_END(),
	};
	struct capture c;
	int ret;

	*sub = -1;
	*json = false;
	capture_start(&c);
	ret = parse_options(argc, argv, opts, &usage, PARSE_OPT_NO_HELP_PRINT);
	*err = capture_end(&c);
	return ret;
}

static void test_options_subcommand(void **state)
{
	char *show[] = { "t", "--json", "show", "--json", "RUN", NULL };
	char *none[] = { "t", "--json", NULL };
	char *dash[] = { "t", "--", "reindex", NULL };
	char *near[] = { "t", "lst", "--json", NULL };
	char *far[] = { "t", "xyzzy", NULL };
	char *opt[] = { "t", "--list", NULL };
	char *help[] = { "t", "-h", "list", NULL };
	char *err;
	bool json;
	int sub;

	(void)state;
	/* the options before it are the command's, those after it the subcommand's */
	assert_int_equal(parse_sub(5, show, &sub, &json, &err), 3);
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(sub, 1);
	assert_true(json);
	assert_string_equal(show[0], "show");
	assert_string_equal(show[1], "--json");
	assert_string_equal(show[2], "RUN");
	assert_null(show[3]);
	/* none given: 0, nothing said (the command prints its usage) */
	assert_int_equal(parse_sub(2, none, &sub, &json, &err), 0);
	assert_string_equal(err, "");
	free(err);
	assert_int_equal(sub, -1);
	assert_int_equal(parse_sub(3, dash, &sub, &json, &err), 1);
	assert_int_equal(sub, 2);
	free(err);
	/* a near miss is named, as for commands */
	assert_int_equal(parse_sub(3, near, &sub, &json, &err), PARSE_OPT_ERROR);
	assert_string_equal(err, "mmlab: error: t: no subcommand 'lst' (did you mean 'list'?); "
				 "the subcommands are list, show and reindex\n");
	free(err);
	assert_int_equal(sub, -1);
	assert_int_equal(parse_sub(2, far, &sub, &json, &err), PARSE_OPT_ERROR);
	assert_string_equal(err, "mmlab: error: t: no subcommand 'xyzzy'; the subcommands are "
				 "list, show and reindex\n");
	free(err);
	/* a subcommand is no option */
	assert_int_equal(parse_sub(2, opt, &sub, &json, &err), PARSE_OPT_ERROR);
	assert_non_null(strstr(err, "unknown option --list"));
	free(err);
	/* PARSE_OPT_NO_HELP_PRINT: the command prints its own help */
	assert_int_equal(parse_sub(3, help, &sub, &json, &err), PARSE_OPT_HELP);
	assert_string_equal(err, "");
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf),
		cmocka_unit_test(test_options_forms),
		cmocka_unit_test(test_options_errors),
		cmocka_unit_test(test_options_help),
		cmocka_unit_test(test_options_stop_at_operand),
		cmocka_unit_test(test_options_subcommand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
