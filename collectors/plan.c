// SPDX-License-Identifier: GPL-2.0
/*
 * plan.c - parse the guest plan written by the host.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* identifiers: workload, parameter and sysctl names, THP modes */
static int name_ok(const char *s)
{
	if (!*s || *s == '.' || *s == '-')
		return 0;
	for (; *s; s++) {
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '.' || *s == '-' || *s == '+'))
			return 0;
		if (s[0] == '.' && s[1] == '.')
			return 0;
	}
	return 1;
}

static int copy_str(char *dst, size_t dstlen, const char *src)
{
	size_t n = strlen(src);

	if (n + 1 > dstlen)
		return -1;
	memcpy(dst, src, n + 1);
	return 0;
}

static int parse_uint(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtoul(s, &end, 10);
	if (*end || v > 1000000)
		return -1;
	*out = (unsigned int)v;
	return 0;
}

static int add_kv(struct plan_kv *v, unsigned int *n, const char *name, const char *value)
{
	if (*n >= PLAN_MAX_KV || !name_ok(name))
		return -1;
	if (copy_str(v[*n].name, sizeof(v[*n].name), name) ||
	    copy_str(v[*n].value, sizeof(v[*n].value), value))
		return -1;
	(*n)++;
	return 0;
}

/* collect.file.<digits>: an encoded absolute path, appended in the plan's order */
static int add_file(struct plan *p, const char *idx, const char *v)
{
	if (!*idx || strspn(idx, "0123456789") != strlen(idx) || p->nfiles >= PLAN_MAX_FILES)
		return -1;
	if (mmpath_decode(v, p->files[p->nfiles], sizeof(p->files[0])) ||
	    !mmpath_ok(p->files[p->nfiles]))
		return -1;
	p->nfiles++;
	return 0;
}

/* "1,2" node lists and "a,b" module names */
static int list_ok(const char *v, const char *chars)
{
	return strspn(v, chars) == strlen(v);
}

static int set_tier_key(struct plan *p, const char *k, const char *v)
{
	if (!strcmp(k, "report"))
		return (!strcmp(v, "0") || !strcmp(v, "1")) ? (p->tier_report = v[0] == '1', 0) :
							      -1;
	if (!strcmp(k, "demotion")) {
		if (strcmp(v, "0") && strcmp(v, "1"))
			return -1;
		p->tier_demotion = v[0] == '1';
		return 0;
	}
	if (!strcmp(k, "kmem"))
		return list_ok(v, "0123456789,") ? copy_str(p->tier_kmem, sizeof(p->tier_kmem), v) :
						   -1;
	if (!strcmp(k, "modules"))
		return list_ok(v, "abcdefghijklmnopqrstuvwxyz0123456789_,") ?
			       copy_str(p->tier_modules, sizeof(p->tier_modules), v) :
			       -1;
	return 1;
}

static int set_key(struct plan *p, const char *k, const char *v)
{
	if (!strcmp(k, "run"))
		return copy_str(p->run, sizeof(p->run), v);
	if (!strcmp(k, "variant"))
		return copy_str(p->variant, sizeof(p->variant), v);
	if (!strcmp(k, "workload"))
		return name_ok(v) ? copy_str(p->workload, sizeof(p->workload), v) : -1;
	if (!strcmp(k, "iteration_first"))
		return parse_uint(v, &p->iteration_first);
	if (!strcmp(k, "iterations"))
		return parse_uint(v, &p->iterations);
	if (!strcmp(k, "probe"))
		return (!strcmp(v, "0") || !strcmp(v, "1")) ? (p->probe = v[0] == '1', 0) : -1;
	if (!strcmp(k, "thp.enabled"))
		return name_ok(v) ? copy_str(p->thp_enabled, sizeof(p->thp_enabled), v) : -1;
	if (!strcmp(k, "thp.defrag"))
		return name_ok(v) ? copy_str(p->thp_defrag, sizeof(p->thp_defrag), v) : -1;
	if (!strcmp(k, "collect.enabled"))
		return (!strcmp(v, "0") || !strcmp(v, "1")) ?
			       (p->collect_enabled = v[0] == '1', 0) :
			       -1;
	if (!strcmp(k, "collect.tracepoints"))
		return strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789_:*?,[]-") == strlen(v) ?
			       copy_str(p->tracepoints, sizeof(p->tracepoints), v) :
			       -1;
	if (!strncmp(k, "collect.file.", 13))
		return add_file(p, k + 13, v);
	if (!strncmp(k, "tier.", 5))
		return set_tier_key(p, k + 5, v);
	if (!strncmp(k, "param.", 6))
		return add_kv(p->params, &p->nparams, k + 6, v);
	if (!strncmp(k, "sysctl.", 7))
		return add_kv(p->sysctls, &p->nsysctls, k + 7, v);
	return 1; /* unknown: ignored, for forward compatibility */
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int parse_line(struct plan *p, char *line, unsigned int lineno, char *err, size_t errlen)
{
	char *eq, *k, *v;

	line = trim(line);
	if (!*line || *line == '#')
		return 0;
	eq = strchr(line, '=');
	if (!eq) {
		snprintf(err, errlen, "line %u: no '=' in \"%.64s\"", lineno, line);
		return -1;
	}
	*eq = '\0';
	k = trim(line);
	v = trim(eq + 1);
	if (set_key(p, k, v) < 0) {
		snprintf(err, errlen, "line %u: bad value for %.64s: \"%.64s\"", lineno, k, v);
		return -1;
	}
	return 0;
}

int plan_parse(const char *text, size_t len, struct plan *p, char *err, size_t errlen)
{
	char *copy = malloc(len + 1), *line, *save = NULL;
	unsigned int lineno = 0;
	int ret = 0;

	memset(p, 0, sizeof(*p));
	p->iterations = 1;
	p->collect_enabled = 1;
	p->tier_demotion = -1;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(copy, text, len);
	copy[len] = '\0';
	if (strlen(copy) != len) {
		snprintf(err, errlen, "NUL byte in the plan");
		free(copy);
		return -1;
	}
	/* strtok_r would merge empty lines and break line numbers: split by hand */
	for (line = copy; line && !ret; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = '\0';
		ret = parse_line(p, line, ++lineno, err, errlen);
	}
	free(copy);
	if (!ret && !p->probe && !p->workload[0]) {
		snprintf(err, errlen, "no workload= line");
		ret = -1;
	}
	if (!ret && p->iterations < 1) {
		snprintf(err, errlen, "iterations must be >= 1");
		ret = -1;
	}
	return ret;
}
