/* SPDX-License-Identifier: GPL-2.0 */
/*
 * parse-options.h - a command's options as a table, in the style of git's
 * parse-options: the table parses argv and prints the help, so the two
 * cannot disagree, and an option a command (or subcommand) does not list
 * is an error, never silently accepted.
 *
 *	static const char *const synopsis[] = { "mmlab run [options] JOB.yaml", NULL };
 *	bool json = false;
 *	unsigned int n = 3;
 *	const char *order = NULL;
 *	struct opt opts[] = {
 *		OPT_STRING(0, "order", &order, "random|sequential", "run order"),
 *		OPT_UINT('n', "iterations", &n, 1, 1000, "N", "iterations per variant"),
 *		OPT_BOOL(0, "json", &json, "print JSON"),
 *		OPT_END(),
 *	};
 *	struct opt_usage u = { synopsis, "What it does.", "Exit status: ..." };
 *	int argn = parse_options(argc, argv, opts, &u, 0);
 *
 *	if (argn < 0)
 *		return argn == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
 *	... argv[0 .. argn-1] are the operands, in order
 *
 * Forms: --name, --name VALUE, --name=VALUE, -x, -x VALUE, -xVALUE, and
 * bundled short booleans (-qj). "--" ends the options. Options may follow
 * operands unless PARSE_OPT_STOP_AT_NON_OPTION. Long names match exactly.
 *
 * A command with subcommands lists them in its table, as git's
 * OPT_SUBCOMMAND does; each sets an int to the index of the subcommand in
 * the command's own table (its options, operands and function):
 *
 *	int sub = -1;
 *	struct opt opts[] = {
 *		OPT_SUBCOMMAND("list", &sub, 0),
 *		OPT_SUBCOMMAND("show", &sub, 1),
 *		OPT_END(),
 *	};
 *	int n = parse_options(argc, argv, opts, &u, 0);
 *
 * The options before the first operand are the table's; the first operand
 * must name a subcommand ("mmlab results lst: no subcommand 'lst' (did you
 * mean 'list'?); the subcommands are list and show"); n is then the count
 * of the arguments from the subcommand on, argv[0] the subcommand, the
 * rest not parsed (the subcommand parses them with its own table), and 0
 * when no subcommand was given.
 */
#ifndef MMLAB_PARSE_OPTIONS_H
#define MMLAB_PARSE_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum opt_type {
	OPT_T_END,
	OPT_T_BOOL, /* bool *: set true; takes no value */
	OPT_T_STRING, /* const char **: the value (points into argv) */
	OPT_T_STRLIST, /* struct strlist *: each use appends a copy */
	OPT_T_UINT, /* unsigned int *: decimal, within [min, max] */
	OPT_T_CALLBACK, /* cb(opt, value): any other parsing */
	OPT_T_GROUP, /* a heading line in the help; parses nothing */
	OPT_T_SUBCOMMAND, /* int *: set to min when the first operand is long_name */
};

struct opt;
/* 0, or -1 after lab_err() naming the option and what it wants */
typedef int (*opt_cb)(const struct opt *o, const char *arg);

struct opt {
	enum opt_type type;
	char short_name; /* 0: none */
	const char *long_name; /* NULL: none (a short option only) */
	void *value;
	const char *argh; /* the value's name in the help ("N", "RUN"); NULL: no value */
	const char *help; /* may hold "\n": each line is indented */
	uint64_t min, max; /* OPT_T_UINT */
	opt_cb cb; /* OPT_T_CALLBACK */
};

/* clang-format off */
#define OPT_BOOL(s, l, v, h) \
	{ .type = OPT_T_BOOL, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
#define OPT_STRING(s, l, v, a, h) \
	{ .type = OPT_T_STRING, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h) }
#define OPT_STRLIST(s, l, v, a, h) \
	{ .type = OPT_T_STRLIST, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h) }
#define OPT_UINT(s, l, v, lo, hi, a, h) \
	{ .type = OPT_T_UINT, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .min = (lo), .max = (hi) }
/* a callback option takes a value when a is not NULL, else none (arg NULL) */
#define OPT_CALLBACK(s, l, v, a, h, fn) \
	{ .type = OPT_T_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), \
	  .argh = (a), .help = (h), .cb = (fn) }
#define OPT_GROUP(h) { .type = OPT_T_GROUP, .help = (h) }
/* not listed in the help: the synopsis and text name the subcommands */
#define OPT_SUBCOMMAND(l, v, id) \
	{ .type = OPT_T_SUBCOMMAND, .long_name = (l), .value = (v), .min = (id) }
#define OPT_END() { .type = OPT_T_END }
/* clang-format on */

struct opt_usage {
	const char *const *synopsis; /* NULL-terminated "mmlab cmd ..." lines */
	const char *text; /* after the synopsis, or NULL */
	const char *footer; /* after the options (exit status...), or NULL */
};

/* stop at the first operand (mmlab's global options before the command) */
#define PARSE_OPT_STOP_AT_NON_OPTION 1u
/*
 * --help returns PARSE_OPT_HELP without printing: the command prints its
 * help (u may then be NULL)
 */
#define PARSE_OPT_NO_HELP_PRINT 2u

#define PARSE_OPT_HELP (-2) /* --help was given and printed: exit 0 */
#define PARSE_OPT_ERROR (-1) /* a message was printed: exit 2 */

/*
 * Parse argv[1..argc-1] (argv[0] names the command in messages: "run",
 * "kernel build", or "" for mmlab's own options before the command). Returns
 * the number of operands, moved to argv[0..n-1] (argv[n] = NULL), or
 * PARSE_OPT_HELP, or PARSE_OPT_ERROR after one message: an unknown option
 * ("mmlab run: unknown option --foo; see 'mmlab run --help'"), a missing
 * value, a value given to an option that takes none, a bad number.
 */
int parse_options(int argc, char **argv, const struct opt *opts, const struct opt_usage *u,
		  unsigned int flags);
/* the help: synopsis, text, the options table, footer */
void usage_with_options(FILE *f, const struct opt *opts, const struct opt_usage *u);

#endif
