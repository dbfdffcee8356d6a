// SPDX-License-Identifier: GPL-2.0
/*
 * parse-options.c - option tables (parse-options.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/parse-options.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define HELP_COLUMN 24

static const struct opt help_opt = OPT_BOOL('h', "help", NULL, "this help");

/* "--name" or "-x" as the user would write it */
static void opt_name(const struct opt *o, char *buf, size_t len)
{
	if (o->long_name)
		snprintf(buf, len, "--%s", o->long_name);
	else
		snprintf(buf, len, "-%c", o->short_name);
}

static bool takes_value(const struct opt *o)
{
	switch (o->type) {
	case OPT_T_STRING:
	case OPT_T_STRLIST:
	case OPT_T_UINT:
		return true;
	case OPT_T_CALLBACK:
		return o->argh != NULL;
	default:
		return false;
	}
}

static int bad(const char *cmd, const char *fmt, const char *a, const char *b)
{
	char *what = xasprintf(fmt, a, b);

	if (*cmd)
		lab_err("%s: %s; see 'mmlab %s --help'", cmd, what, cmd);
	else /* mmlab's own options, before the command */
		lab_err("%s; see 'mmlab --help'", what);
	free(what);
	return PARSE_OPT_ERROR;
}

static int set_value(const char *cmd, const struct opt *o, const char *arg)
{
	char name[80];
	uint64_t v;

	opt_name(o, name, sizeof(name));
	switch (o->type) {
	case OPT_T_BOOL:
		*(bool *)o->value = true;
		return 0;
	case OPT_T_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_T_STRLIST:
		strlist_push(o->value, arg);
		return 0;
	case OPT_T_UINT:
		if (parse_uint(arg, &v) || v < o->min || v > o->max) {
			lab_err("%s: %s wants an integer from %llu to %llu, not '%s'", cmd, name,
				(unsigned long long)o->min, (unsigned long long)o->max, arg);
			return PARSE_OPT_ERROR;
		}
		*(unsigned int *)o->value = (unsigned int)v;
		return 0;
	case OPT_T_CALLBACK:
		return o->cb(o, arg) ? PARSE_OPT_ERROR : 0;
	default:
		return 0;
	}
}

static bool is_option(const struct opt *o)
{
	return o->type != OPT_T_GROUP && o->type != OPT_T_SUBCOMMAND;
}

static const struct opt *find_long(const struct opt *opts, const char *name, size_t len)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (is_option(o) && o->long_name && strlen(o->long_name) == len &&
		    !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (is_option(o) && o->short_name == c)
			return o;
	return NULL;
}

static bool is_help(const struct opt *o)
{
	return o == &help_opt;
}

/*
 * --name[=value]; *i is the index of the argument, advanced past a value;
 * cmd names the command (argv[0] may hold an operand by now)
 */
static int parse_long(const char *cmd, int argc, char **argv, int *i, const struct opt *opts)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct opt *o = find_long(opts, name, len);
	char *shown = xstrndup(name, len);
	int ret;

	if (!o && len == 4 && !strncmp(name, "help", 4))
		o = &help_opt;
	if (!o) {
		ret = bad(cmd, "unknown option --%s%s", shown, "");
	} else if (is_help(o)) {
		ret = eq ? bad(cmd, "--help takes no value%s%s", "", "") : PARSE_OPT_HELP;
	} else if (!takes_value(o)) {
		ret = eq ? bad(cmd, "--%s takes no value%s", shown, "") : set_value(cmd, o, NULL);
	} else if (eq) {
		ret = set_value(cmd, o, eq + 1);
	} else if (*i + 1 < argc) {
		ret = set_value(cmd, o, argv[++*i]);
	} else {
		ret = bad(cmd, "--%s wants a value (%s)", shown, o->argh ? o->argh : "?");
	}
	free(shown);
	return ret;
}

/* -abc, -xVALUE, -x VALUE */
static int parse_short(const char *cmd, int argc, char **argv, int *i, const struct opt *opts)
{
	const char *p = argv[*i] + 1;

	for (; *p; p++) {
		const struct opt *o = find_short(opts, *p);
		char c[2] = { *p, '\0' };
		int ret;

		if (!o && *p == 'h')
			o = &help_opt;
		if (!o)
			return bad(cmd, "unknown option -%s%s", c, "");
		if (is_help(o))
			return PARSE_OPT_HELP;
		if (!takes_value(o)) {
			ret = set_value(cmd, o, NULL);
			if (ret)
				return ret;
			continue;
		}
		if (p[1])
			return set_value(cmd, o, p + 1);
		if (*i + 1 >= argc)
			return bad(cmd, "-%s wants a value (%s)", c, o->argh ? o->argh : "?");
		return set_value(cmd, o, argv[++*i]);
	}
	return 0;
}

static bool has_subcommands(const struct opt *opts)
{
	for (const struct opt *o = opts; o->type != OPT_T_END; o++)
		if (o->type == OPT_T_SUBCOMMAND)
			return true;
	return false;
}

/*
 * The subcommand word names: *o->value = o->min; or a message naming the
 * subcommands, with the nearest one when word is a near miss
 */
static int subcommand(const char *cmd, const char *word, const struct opt *opts)
{
	struct strbuf list = STRBUF_INIT;
	const char **names;
	const char *near;
	size_t n = 0, k = 0;
	const struct opt *o;

	for (o = opts; o->type != OPT_T_END; o++) {
		if (o->type != OPT_T_SUBCOMMAND)
			continue;
		if (!strcmp(o->long_name, word)) {
			*(int *)o->value = (int)o->min;
			return 0;
		}
		n++;
	}
	names = xcalloc(n + 1, sizeof(*names));
	for (o = opts; o->type != OPT_T_END; o++)
		if (o->type == OPT_T_SUBCOMMAND)
			names[k++] = o->long_name;
	for (k = 0; k < n; k++)
		strbuf_addf(&list, "%s%s", k == 0 ? "" : k + 1 == n ? " and " : ", ", names[k]);
	near = nearest_name(word, names);
	if (near)
		lab_err("%s: no subcommand '%s' (did you mean '%s'?); the subcommands are %s", cmd,
			word, near, list.buf);
	else
		lab_err("%s: no subcommand '%s'; the subcommands are %s", cmd, word, list.buf);
	strbuf_release(&list);
	free(names);
	return PARSE_OPT_ERROR;
}

int parse_options(int argc, char **argv, const struct opt *opts, const struct opt_usage *u,
		  unsigned int flags)
{
	bool subs = has_subcommands(opts);
	const char *cmd = argv[0]; /* the operands move to argv[0..] as they come */
	int n = 0, i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		int ret;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) { /* an operand ("-" too) */
			if (subs || (flags & PARSE_OPT_STOP_AT_NON_OPTION))
				break;
			argv[n++] = argv[i];
			continue;
		}
		ret = a[1] == '-' ? parse_long(cmd, argc, argv, &i, opts) :
				    parse_short(cmd, argc, argv, &i, opts);
		if (ret == PARSE_OPT_HELP && !(flags & PARSE_OPT_NO_HELP_PRINT))
			usage_with_options(stdout, opts, u);
		if (ret)
			return ret;
	}
	/* the subcommand and what follows it, which its own table parses */
	if (subs && i < argc && subcommand(cmd, argv[i], opts))
		return PARSE_OPT_ERROR;
	while (i < argc)
		argv[n++] = argv[i++];
	argv[n] = NULL;
	return n;
}

/* "  -n, --iterations N" */
static void opt_left(const struct opt *o, struct strbuf *sb)
{
	strbuf_addstr(sb, "  ");
	if (o->short_name)
		strbuf_addf(sb, "-%c%s", o->short_name, o->long_name ? ", " : "");
	if (o->long_name)
		strbuf_addf(sb, "--%s", o->long_name);
	if (takes_value(o))
		strbuf_addf(sb, " %s", o->argh);
}

static void print_opt(FILE *f, const struct opt *o)
{
	struct strbuf sb = STRBUF_INIT;
	const char *h = o->help ? o->help : "";

	opt_left(o, &sb);
	if (sb.len + 2 > HELP_COLUMN)
		fprintf(f, "%s\n%*s", sb.buf, HELP_COLUMN, "");
	else
		fprintf(f, "%-*s", HELP_COLUMN, sb.buf);
	for (;;) {
		const char *nl = strchr(h, '\n');

		if (!nl) {
			fprintf(f, "%s\n", h);
			break;
		}
		fprintf(f, "%.*s\n%*s", (int)(nl - h), h, HELP_COLUMN, "");
		h = nl + 1;
	}
	strbuf_release(&sb);
}

void usage_with_options(FILE *f, const struct opt *opts, const struct opt_usage *u)
{
	const struct opt *o;

	for (size_t i = 0; u->synopsis && u->synopsis[i]; i++)
		fprintf(f, "%s%s\n", i ? "       " : "usage: ", u->synopsis[i]);
	if (u->text)
		fprintf(f, "\n%s\n", u->text);
	fprintf(f, "\noptions:\n");
	for (o = opts; o->type != OPT_T_END; o++) {
		if (o->type == OPT_T_GROUP)
			fprintf(f, "\n%s\n", o->help);
		else if (o->type != OPT_T_SUBCOMMAND)
			print_opt(f, o);
	}
	print_opt(f, &help_opt);
	if (u->footer)
		fprintf(f, "\n%s\n", u->footer);
}
