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

/* "%XX" escapes undone into dst (common/proto.h, "own.arg.<i>") */
static int decode(char *dst, size_t dstlen, const char *src)
{
	size_t n = 0;

	for (; *src; src++) {
		unsigned int c = (unsigned char)*src;

		if (c == '%') {
			if (sscanf(src + 1, "%2x", &c) != 1 || !src[1] || !src[2])
				return -1;
			src += 2;
		}
		if (n + 1 >= dstlen)
			return -1;
		dst[n++] = (char)c;
	}
	dst[n] = '\0';
	return 0;
}

/* an index key "own.arg.<i>" below max, in order: i must be the next one */
static int next_index(const char *k, unsigned int *n, unsigned int max)
{
	unsigned int i;

	if (parse_uint(k, &i) || i != *n || i >= max)
		return -1;
	(*n)++;
	return 0;
}

/* a guest path to read back: no "..", printable, no spaces */
static int read_path_ok(const char *v)
{
	if (!*v || strstr(v, ".."))
		return 0;
	for (; *v; v++)
		if (*v <= ' ' || *v > '~')
			return 0;
	return 1;
}

static int set_own(struct plan *p, const char *k, const char *v)
{
	if (!strcmp(k, "own"))
		return strcmp(v, "1") ? -1 : (p->own = 1, 0);
	if (!strcmp(k, "own.phase"))
		return !strcmp(v, "whole")     ? (p->own_handshake = 0, 0) :
		       !strcmp(v, "handshake") ? (p->own_handshake = 1, 0) :
						 -1;
	if (!strcmp(k, "own.timeout_s"))
		return parse_uint(v, &p->own_timeout_s);
	if (!strcmp(k, "own.dmesg"))
		return (!strcmp(v, "0") || !strcmp(v, "1")) ? (p->own_dmesg = v[0] == '1', 0) : -1;
	if (!strncmp(k, "own.arg.", 8)) {
		unsigned int i = p->own_argc;

		return next_index(k + 8, &p->own_argc, PLAN_MAX_ARGS) ?
			       -1 :
			       decode(p->own_argv[i], sizeof(p->own_argv[i]), v);
	}
	if (!strncmp(k, "own.read.", 9)) {
		unsigned int i = p->own_nread;

		return next_index(k + 9, &p->own_nread, PLAN_MAX_READ) || !read_path_ok(v) ?
			       -1 :
			       copy_str(p->own_read[i], sizeof(p->own_read[i]), v);
	}
	if (!strcmp(k, "own.module"))
		return name_ok(v) ? copy_str(p->own_module, sizeof(p->own_module), v) : -1;
	if (!strcmp(k, "own.module_params"))
		return decode(p->own_module_params, sizeof(p->own_module_params), v);
	return 1;
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
	if (!strncmp(k, "own", 3))
		return set_own(p, k, v);
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
	if (!ret && p->own && !p->own_argc && !p->own_module[0]) {
		snprintf(err, errlen, "own=1 without own.arg.0 or own.module");
		ret = -1;
	}
	if (!ret && p->iterations < 1) {
		snprintf(err, errlen, "iterations must be >= 1");
		ret = -1;
	}
	return ret;
}
