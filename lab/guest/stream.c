// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - turn the guest agent's record stream into a JSON summary.
 * Everything here reads untrusted bytes: each field is bounded and
 * checked, text is made printable before it enters JSON, and what does not
 * check out is dropped with a "host: ..." log entry.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "guest/stream.h"
#include "proto.h"
#include "guest/counters.h"
#include "lib/util.h"

struct iter_state {
	unsigned int index;
	bool ended, guest_ok, have_result;
	bool vmstat_before, vmstat_after; /* the vmstat SNAPSHOT of each phase came */
	int exit_code, signal;
	json_t *metrics;
	json_t *before, *after; /* snapshot name -> raw text */
	json_t *timeseries; /* from SERIES, or NULL */
	json_t *tiers; /* from TIERS, or NULL */
};

struct guest_stream_parser {
	const char *wl;
	size_t records; /* valid ones, of any type */
	json_t *root, *log;
	json_t *by_index; /* "<index>" -> position in its */
	struct iter_state *its;
	size_t nits, alloc;
	size_t nlog;
	size_t metrics, samples; /* in the whole stream */
	size_t dropped_metrics, dropped_samples;
	bool done; /* a DONE record came */
	struct guest_stream_info info; /* what the caller of guest_stream_end() gets */
	struct guest_files_stats files; /* guest_stream_file_records() */
};

/* printable ASCII, tabs and newlines into t (len + 1 bytes); anything else becomes '?' */
static void safe_copy(char *t, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		t[i] = (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' ? (char)c : '?';
	}
	t[len] = '\0';
}

static json_t *safe_string(const char *s, size_t len)
{
	char *t = xmalloc(len + 1);
	json_t *j;

	safe_copy(t, s, len);
	j = json_stringn(t, len);
	free(t);
	return j;
}

static void add_log(struct guest_stream_parser *c, const char *level, const char *msg, size_t len)
{
	if (c->nlog == GUEST_STREAM_MAX_LOG)
		level = "warn", msg = "host: too many log entries, dropping the rest",
		len = strlen(msg);
	else if (c->nlog > GUEST_STREAM_MAX_LOG)
		return;
	c->nlog++;
	if (len > 4096)
		len = 4096;
	json_array_append_new(c->log, json_pack("{s:s, s:o}", "level", level, "message",
						safe_string(msg, len)));
}

static void host_log(struct guest_stream_parser *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void host_log(struct guest_stream_parser *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	int n = snprintf(msg, sizeof(msg), "host: ");

	va_start(ap, fmt);
	vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
	va_end(ap);
	add_log(c, "warn", msg, strlen(msg));
}

/* room for one more metric in it (per iteration and in the stream), else counted */
static bool metric_room(struct guest_stream_parser *c, const struct iter_state *it)
{
	if (json_object_size(it->metrics) < GUEST_STREAM_MAX_METRICS &&
	    c->metrics < GUEST_STREAM_MAX_TOTAL_METRICS) {
		c->metrics++;
		return true;
	}
	if (!c->dropped_metrics++)
		host_log(
			c,
			"iteration %u: more than %d metrics in the iteration or %d in the stream; the rest are dropped",
			it->index, GUEST_STREAM_MAX_METRICS, GUEST_STREAM_MAX_TOTAL_METRICS);
	return false;
}

int guest_stream_metric_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > GUEST_STREAM_METRIC_NAME_MAX)
		return 0;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' || *p == ':' || *p == '-'))
			return 0;
	return 1;
}

/* a whole decimal unsigned number up to max */
static bool get_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return false;
	v = strtoul(s, &end, 10);
	if (*end || v > max)
		return false;
	*out = v;
	return true;
}

static bool get_int(const char *s, long long *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return !*end && !errno;
}

static bool get_double(const char *s, double *out)
{
	char *end;

	if (!*s)
		return false;
	*out = strtod(s, &end);
	return !*end && isfinite(*out);
}

/* snapshot names the agent may send: vmstat, node3/numastat, ... */
static bool snapshot_name_ok(const char *n)
{
	static const char *const global[] = { "vmstat", "buddyinfo", "pagetypeinfo" };
	static const char *const pernode[] = { "vmstat", "numastat", "meminfo" };
	size_t digits;

	for (size_t i = 0; i < ARRAY_SIZE(global); i++)
		if (!strcmp(n, global[i]))
			return true;
	if (strncmp(n, "node", 4))
		return false;
	digits = strspn(n + 4, "0123456789");
	if (digits < 1 || digits > 5 || n[4 + digits] != '/')
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(pernode); i++)
		if (!strcmp(n + 5 + digits, pernode[i]))
			return true;
	return false;
}

static struct iter_state *get_iter(struct guest_stream_parser *c, const char *p, uint32_t len,
				   unsigned int type)
{
	char v[16];
	unsigned long idx;
	json_t *pos;

	if (mmrec_hdr_get(p, len, "iter", v, sizeof(v)) || !get_uint(v, 1000000, &idx)) {
		host_log(c, "%s record without a valid iter=, ignored", mmrec_type_name(type));
		return NULL;
	}
	snprintf(v, sizeof(v), "%lu", idx);
	pos = json_object_get(c->by_index, v);
	if (pos)
		return &c->its[json_integer_value(pos)];
	if (c->nits == GUEST_STREAM_MAX_ITERATIONS) {
		host_log(c, "more than %d iterations, iteration %lu ignored",
			 GUEST_STREAM_MAX_ITERATIONS, idx);
		return NULL;
	}
	if (c->nits == c->alloc) {
		c->alloc = c->alloc ? c->alloc * 2 : 8;
		c->its = xrealloc(c->its, c->alloc * sizeof(*c->its));
	}
	json_object_set_new(c->by_index, v, json_integer((json_int_t)c->nits));
	c->its[c->nits] = (struct iter_state){
		.index = (unsigned int)idx,
		.exit_code = -1,
		.metrics = json_object(),
		.before = json_object(),
		.after = json_object(),
	};
	return &c->its[c->nits++];
}

static void on_hello(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	char agent[64] = "", release[128] = "", boot[32] = "";
	double boot_s;
	json_t *h;

	mmrec_hdr_get(p, len, "agent", agent, sizeof(agent));
	mmrec_hdr_get(p, len, "release", release, sizeof(release));
	mmrec_hdr_get(p, len, "boot_s", boot, sizeof(boot));
	h = json_pack("{s:o, s:o}", "agent", safe_string(agent, strlen(agent)), "release",
		      safe_string(release, strlen(release)));
	json_object_set_new(h, "boot_s",
			    get_double(boot, &boot_s) ? json_real(boot_s) : json_null());
	json_object_set_new(c->root, "hello", h);
	c->info.hello = true;
}

static void on_node_line(struct guest_stream_parser *c, json_t *nodes, const char *l, uint32_t len)
{
	char id[16], cpus[256], mem[32];
	unsigned long nid;
	long long kb;
	json_t *n;

	if (mmrec_hdr_get(l, len, "node", id, sizeof(id)) || !get_uint(id, 1000000, &nid)) {
		host_log(c, "NODES line without a valid node=, ignored");
		return;
	}
	if (json_array_size(nodes) >= GUEST_STREAM_MAX_NODES)
		return;
	if (mmrec_hdr_get(l, len, "cpus", cpus, sizeof(cpus)))
		cpus[0] = '\0';
	n = json_pack("{s:I, s:o}", "id", (json_int_t)nid, "cpus", safe_string(cpus, strlen(cpus)));
	json_object_set_new(n, "memory_kb",
			    !mmrec_hdr_get(l, len, "memory_kb", mem, sizeof(mem)) &&
					    get_int(mem, &kb) && kb >= 0 ?
				    json_integer(kb) :
				    json_null());
	json_array_append_new(nodes, n);
}

static void on_nodes(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	json_t *nodes = json_array();
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen), *end = b + blen;

	while (b < end) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		uint32_t ll = (uint32_t)((nl ? nl : end) - b);

		if (ll)
			on_node_line(c, nodes, b, ll);
		b = nl ? nl + 1 : end;
	}
	json_object_set_new(c->root, "nodes", nodes);
}

static void on_snapshot(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct iter_state *it = get_iter(c, p, len, MMREC_SNAPSHOT);
	char phase[16], name[64];
	uint32_t blen;
	const char *body = mmrec_body(p, len, &blen);
	json_t *dst;

	if (!it)
		return;
	if (mmrec_hdr_get(p, len, "phase", phase, sizeof(phase)) ||
	    (strcmp(phase, "before") && strcmp(phase, "after")) ||
	    mmrec_hdr_get(p, len, "name", name, sizeof(name)) || !snapshot_name_ok(name)) {
		host_log(c, "iteration %u: SNAPSHOT with a bad phase or name, ignored", it->index);
		return;
	}
	dst = strcmp(phase, "before") ? it->after : it->before;
	json_object_set_new(dst, name, safe_string(body, blen));
	if (!strcmp(name, "vmstat")) {
		it->vmstat_before |= dst == it->before;
		it->vmstat_after |= dst == it->after;
	}
}

static void wl_metric_line(struct guest_stream_parser *c, struct iter_state *it, const char *l,
			   size_t len)
{
	char line[512], *val, *name;
	double v;

	if (len >= sizeof(line)) {
		host_log(c, "iteration %u: workload output line too long, dropped", it->index);
		return;
	}
	memcpy(line, l, len);
	line[len] = '\0';
	val = strchr(line, ' ');
	if (val)
		*val++ = '\0';
	name = xasprintf("%s.%s", c->wl, line);
	if (!val || !guest_stream_metric_name_ok(name) || !guest_stream_metric_name_ok(line) ||
	    !get_double(val, &v)) {
		host_log(c, "iteration %u: bad workload metric line \"%.*s\", dropped", it->index,
			 (int)(len < 80 ? len : 80), l);
	} else if (json_object_get(it->metrics, name) || metric_room(c, it)) {
		json_object_set_new(it->metrics, name, json_real(v));
	}
	free(name);
}

static void on_wl_output(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct iter_state *it = get_iter(c, p, len, MMREC_WL_OUTPUT);
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen), *end = b + blen;
	char stream[16];

	/* a command workload's raw output: the extractors' (guest/outputs.h) */
	if (!mmrec_hdr_get(p, len, "stream", stream, sizeof(stream)))
		return;

	while (it && b < end) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		size_t ll = (size_t)((nl ? nl : end) - b);

		if (ll)
			wl_metric_line(c, it, b, ll);
		b = nl ? nl + 1 : end;
	}
}

static void on_result(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	static const char *const times[] = { "user_s", "system_s", "elapsed_s" };
	struct iter_state *it = get_iter(c, p, len, MMREC_RESULT);
	char v[64], name[32];
	long long x;
	double d;

	if (!it)
		return;
	it->have_result = true;
	if (!mmrec_hdr_get(p, len, "exit", v, sizeof(v)) && get_int(v, &x) && x >= -1 && x <= 255)
		it->exit_code = (int)x;
	if (!mmrec_hdr_get(p, len, "signal", v, sizeof(v)) && get_int(v, &x) && x >= 0 && x <= 128)
		it->signal = (int)x;
	for (size_t i = 0; i < ARRAY_SIZE(times); i++) {
		if (mmrec_hdr_get(p, len, times[i], v, sizeof(v)) || !get_double(v, &d)) {
			host_log(c, "iteration %u: RESULT without a valid %s", it->index, times[i]);
			continue;
		}
		snprintf(name, sizeof(name), "time.%s", times[i]);
		json_object_set_new(it->metrics, name, json_real(d));
	}
}

static void on_iter_end(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct iter_state *it = get_iter(c, p, len, MMREC_ITER_END);
	char v[16];

	if (!it)
		return;
	it->ended = true;
	it->guest_ok = !mmrec_hdr_get(p, len, "status", v, sizeof(v)) && !strcmp(v, "ok");
}

static void on_log(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	char level[16];
	uint32_t blen;
	const char *body = mmrec_body(p, len, &blen);

	if (mmrec_hdr_get(p, len, "level", level, sizeof(level)) ||
	    (strcmp(level, "info") && strcmp(level, "warn") && strcmp(level, "error")))
		strcpy(level, "warn");
	add_log(c, level, body, blen);
}

/* the families a COUNTS record may fill (never time.*, vmstat.*, ...) */
static bool counts_name_ok(const char *name)
{
	static const char *const fam[] = { "trace.", "kthread.", "dmesg.", "extfrag." };

	for (size_t i = 0; i < ARRAY_SIZE(fam); i++)
		if (!strncmp(name, fam[i], strlen(fam[i])))
			return guest_stream_metric_name_ok(name);
	return false;
}

static void on_counts(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct iter_state *it = get_iter(c, p, len, MMREC_COUNTS);
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen), *end = b + blen;

	while (it && b < end) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		size_t ll = (size_t)((nl ? nl : end) - b);
		const char *start = b;
		char line[512], *val;
		double v;

		b = nl ? nl + 1 : end;
		if (!ll)
			continue;
		if (ll >= sizeof(line)) {
			host_log(c, "iteration %u: COUNTS line too long, dropped", it->index);
			continue;
		}
		memcpy(line, start, ll);
		line[ll] = '\0';
		val = strchr(line, ' ');
		if (val)
			*val++ = '\0';
		if (!val || !counts_name_ok(line) || !get_double(val, &v)) {
			host_log(c, "iteration %u: bad COUNTS line \"%.80s\", dropped", it->index,
				 line);
			continue;
		}
		if (json_object_get(it->metrics, line) || metric_room(c, it))
			json_object_set_new(it->metrics, line, json_real(v));
	}
}

/* one "<name> v0 v1 ..." line of a SERIES record; false if malformed */
static bool series_line(json_t *series, const char *l, size_t len, unsigned long samples)
{
	char *line = xstrndup(l, len), *save = NULL, *tok;
	json_t *arr = json_array();
	bool ok;

	tok = strtok_r(line, " ", &save);
	ok = tok && (!strncmp(tok, "vmstat.", 7) || !strncmp(tok, "node", 4)) &&
	     guest_stream_metric_name_ok(tok) && !json_object_get(series, tok);
	if (ok) {
		const char *name = tok;
		double v;

		while (ok && (tok = strtok_r(NULL, " ", &save)))
			ok = json_array_size(arr) < samples && get_double(tok, &v) &&
			     !json_array_append_new(arr, json_real(v));
		ok = ok && json_array_size(arr) == samples && !json_object_set(series, name, arr);
	}
	json_decref(arr);
	free(line);
	return ok;
}

static void on_series(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct iter_state *it = get_iter(c, p, len, MMREC_SERIES);
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen), *end = b + blen;
	unsigned long samples, interval;
	char v[32];
	json_t *series;

	if (!it)
		return;
	if (mmrec_hdr_get(p, len, "samples", v, sizeof(v)) ||
	    !get_uint(v, GUEST_STREAM_MAX_SAMPLES, &samples) ||
	    mmrec_hdr_get(p, len, "interval_s", v, sizeof(v)) || !get_uint(v, 3600, &interval) ||
	    !interval) {
		host_log(c, "iteration %u: SERIES with bad samples= or interval_s=, ignored",
			 it->index);
		return;
	}
	series = json_object();
	while (b < end && json_object_size(series) < GUEST_STREAM_MAX_SERIES) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		size_t ll = (size_t)((nl ? nl : end) - b);

		if (ll && c->samples + samples > GUEST_STREAM_MAX_TOTAL_SAMPLES) {
			if (!c->dropped_samples)
				host_log(
					c,
					"iteration %u: more than %d series samples in the stream; the rest are dropped",
					it->index, GUEST_STREAM_MAX_TOTAL_SAMPLES);
			c->dropped_samples += samples;
		} else if (ll && !series_line(series, b, ll, samples)) {
			host_log(c, "iteration %u: bad SERIES line, dropped", it->index);
		} else if (ll) {
			c->samples += samples;
		}
		b = nl ? nl + 1 : end;
	}
	json_decref(it->timeseries);
	it->timeseries = json_pack("{s:I, s:I, s:o}", "interval_s", (json_int_t)interval, "samples",
				   (json_int_t)samples, "series", series);
}

/* a node list as the kernel prints it ("0-2,5"), or "-" */
static bool nodelist_ok(const char *s)
{
	return *s && strlen(s) < 256 && strspn(s, "0123456789,-") == strlen(s);
}

/* "key=<uint>" of a TIERS line into o, when present and sane */
static void tiers_uint(json_t *o, const char *l, uint32_t len, const char *key)
{
	char v[32];
	unsigned long x;

	if (!mmrec_hdr_get(l, len, key, v, sizeof(v)) && get_uint(v, 1UL << 40, &x))
		json_object_set_new(o, key, json_integer((json_int_t)x));
}

static json_t *tiers_list(json_t *t, const char *key)
{
	json_t *a = json_object_get(t, key);

	if (!a) {
		a = json_array();
		json_object_set_new(t, key, a);
	}
	return json_array_size(a) < GUEST_STREAM_MAX_NODES ? a : NULL;
}

/* a TIERS record's object as it is built, and the id of each of its "tiers" */
struct tiers_build {
	json_t *t, *tiers; /* tiers: t's "tiers", NULL until a tier= line */
	unsigned long ids[GUEST_STREAM_MAX_NODES];
};

/* one line of a TIERS record; false when it does not check out */
static bool tiers_line(struct tiers_build *tb, const char *l, uint32_t len)
{
	json_t *t = tb->t;
	static const char *const hmat[] = { "read_latency", "write_latency", "read_bandwidth",
					    "write_bandwidth" };
	char a[256], b[256];
	json_t *o, *list;

	if (!mmrec_hdr_get(l, len, "demotion_enabled", a, sizeof(a))) {
		json_object_set_new(t, "demotion_enabled",
				    !strcmp(a, "true")	? json_true() :
				    !strcmp(a, "false") ? json_false() :
							  json_null());
		return true;
	}
	if (!mmrec_hdr_get(l, len, "tier", a, sizeof(a))) {
		unsigned long id;

		if (!get_uint(a, 1000000, &id) || mmrec_hdr_get(l, len, "nodes", b, sizeof(b)) ||
		    !nodelist_ok(b) || !(list = tiers_list(t, "tiers")))
			return false;
		tb->tiers = list;
		tb->ids[json_array_size(list)] = id;
		return !json_array_append_new(list, json_pack("{s:I, s:s}", "id", (json_int_t)id,
							      "nodes", b));
	}
	if (!mmrec_hdr_get(l, len, "node", a, sizeof(a))) {
		unsigned long id;

		if (!get_uint(a, 1000000, &id) || mmrec_hdr_get(l, len, "cpus", b, sizeof(b)) ||
		    !nodelist_ok(b) || !(list = tiers_list(t, "nodes")))
			return false;
		o = json_pack("{s:I, s:s}", "id", (json_int_t)id, "cpus", b);
		tiers_uint(o, l, len, "memory_kb");
		return !json_array_append_new(list, o);
	}
	if (!mmrec_hdr_get(l, len, "access", a, sizeof(a))) {
		unsigned long id, cls;

		if (!get_uint(a, 1000000, &id) || mmrec_hdr_get(l, len, "class", b, sizeof(b)) ||
		    !get_uint(b, 1, &cls) || mmrec_hdr_get(l, len, "initiators", b, sizeof(b)) ||
		    !nodelist_ok(b) || !(list = tiers_list(t, "access")))
			return false;
		o = json_pack("{s:I, s:I, s:s}", "node", (json_int_t)id, "class", (json_int_t)cls,
			      "initiators", b);
		for (size_t i = 0; i < ARRAY_SIZE(hmat); i++)
			tiers_uint(o, l, len, hmat[i]);
		return !json_array_append_new(list, o);
	}
	return false;
}

/* the tiers by id, fastest first (the guest sends them in readdir order) */
static void sort_tiers(struct tiers_build *tb)
{
	json_t *a = tb->tiers;
	size_t n = json_array_size(a);

	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j > 0; j--) {
			json_t *x = json_array_get(a, j - 1), *y = json_array_get(a, j);
			unsigned long id = tb->ids[j - 1];

			if (id <= tb->ids[j])
				break;
			tb->ids[j - 1] = tb->ids[j];
			tb->ids[j] = id;
			json_incref(x);
			json_array_set(a, j - 1, y);
			json_array_set_new(a, j, x);
		}
	}
}

static void on_tiers(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct iter_state *it = get_iter(c, p, len, MMREC_TIERS);
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen), *end = b + blen;
	struct tiers_build tb = { 0 };

	if (!it)
		return;
	tb.t = json_object();
	while (b < end) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		uint32_t ll = (uint32_t)((nl ? nl : end) - b);

		if (ll && !tiers_line(&tb, b, ll))
			host_log(c, "iteration %u: bad TIERS line \"%.*s\", dropped", it->index,
				 (int)(ll < 80 ? ll : 80), b);
		b = nl ? nl + 1 : end;
	}
	sort_tiers(&tb);
	json_decref(it->tiers);
	it->tiers = tb.t;
}

static void on_setup_error(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	char what[32] = "setup";
	uint32_t blen;
	const char *body = mmrec_body(p, len, &blen);

	mmrec_hdr_get(p, len, "what", what, sizeof(what));
	if (blen > GUEST_STREAM_SETUP_MESSAGE_MAX)
		blen = GUEST_STREAM_SETUP_MESSAGE_MAX;
	json_object_set_new(c->root, "setup_error",
			    json_pack("{s:o, s:o}", "what", safe_string(what, strlen(what)),
				      "message", safe_string(body, blen)));
	c->info.setup_error = true;
	safe_copy(c->info.setup_what, what, strlen(what));
	safe_copy(c->info.setup_message, body, blen);
}

static void on_record(struct guest_stream_parser *c, unsigned int type, const char *p, uint32_t len)
{
	switch (type) {
	case MMREC_HELLO:
		on_hello(c, p, len);
		break;
	case MMREC_NODES:
		on_nodes(c, p, len);
		break;
	case MMREC_ITER_BEGIN:
		get_iter(c, p, len, type);
		break;
	case MMREC_SNAPSHOT:
		on_snapshot(c, p, len);
		break;
	case MMREC_WL_OUTPUT:
		on_wl_output(c, p, len);
		break;
	case MMREC_RESULT:
		on_result(c, p, len);
		break;
	case MMREC_ITER_END:
		on_iter_end(c, p, len);
		break;
	case MMREC_LOG:
		on_log(c, p, len);
		break;
	case MMREC_DONE:
		if (!c->done)
			json_object_set_new(c->root, "done", json_true());
		c->done = true;
		break;
	case MMREC_SETUP_ERROR:
		on_setup_error(c, p, len);
		break;
	case MMREC_COUNTS:
		on_counts(c, p, len);
		break;
	case MMREC_SERIES:
		on_series(c, p, len);
		break;
	case MMREC_TIERS:
		on_tiers(c, p, len);
		break;
	}
}

/* raw text of a snapshot, or NULL */
static const char *snap_text(json_t *phase, const char *name, size_t *len)
{
	json_t *s = json_object_get(phase, name);

	if (!json_is_string(s))
		return NULL;
	*len = json_string_length(s);
	return json_string_value(s);
}

/* delta metrics "<prefix><field>" of one counter file */
static void add_deltas(struct guest_stream_parser *c, struct iter_state *it, const char *file,
		       const char *prefix)
{
	struct counters b = { 0 }, a = { 0 }, d = { 0 };
	const char *tb, *ta;
	size_t lb = 0, la = 0;

	tb = snap_text(it->before, file, &lb);
	ta = snap_text(it->after, file, &la);
	if (!tb || !ta)
		return;
	counters_parse_kv(tb, lb, &b);
	counters_parse_kv(ta, la, &a);
	counters_delta(&b, &a, &d);
	for (size_t i = 0; i < d.n; i++) {
		char *name = xasprintf("%s%s", prefix, d.v[i].name);

		if (guest_stream_metric_name_ok(name) &&
		    (json_object_get(it->metrics, name) || metric_room(c, it)))
			json_object_set_new(it->metrics, name, json_integer(d.v[i].value));
		free(name);
	}
	counters_free(&b);
	counters_free(&a);
	counters_free(&d);
}

static void compute_metrics(struct guest_stream_parser *c, struct iter_state *it)
{
	const char *file;
	json_t *unused;
	char prefix[64];

	add_deltas(c, it, "vmstat", "vmstat.");
	json_object_foreach(it->after, file, unused) {
		unsigned long node;
		char *slash;

		if (strncmp(file, "node", 4))
			continue;
		node = strtoul(file + 4, &slash, 10);
		if (!strcmp(slash, "/vmstat"))
			snprintf(prefix, sizeof(prefix), "node%lu.vmstat.", node);
		else if (!strcmp(slash, "/numastat"))
			snprintf(prefix, sizeof(prefix), "numastat.node%lu.", node);
		else
			continue;
		add_deltas(c, it, file, prefix);
	}
}

/* why a guest-reported ok cannot stand, or NULL */
static const char *failure_reason(const struct iter_state *it)
{
	if (!it->ended)
		return "no ITER_END (the guest crashed, hung or was stopped)";
	if (!it->guest_ok)
		return NULL; /* the guest said failed and logged why */
	if (!it->have_result)
		return "no RESULT record";
	if (!it->vmstat_before)
		return "no \"before\" vmstat snapshot";
	if (!it->vmstat_after)
		return "no \"after\" vmstat snapshot";
	return NULL;
}

static json_t *finish_iter(struct guest_stream_parser *c, struct iter_state *it)
{
	const char *why = failure_reason(it);
	bool ok = it->ended && it->guest_ok && !why;
	json_t *o;

	if (why)
		host_log(c, "iteration %u failed: %s", it->index, why);
	compute_metrics(c, it);
	o = json_pack("{s:I, s:s}", "index", (json_int_t)it->index, "status", ok ? "ok" : "failed");
	json_object_set_new(o, "exit", it->have_result ? json_integer(it->exit_code) : json_null());
	json_object_set_new(o, "signal", it->have_result ? json_integer(it->signal) : json_null());
	/* ended: the guest finished the iteration (ITER_END arrived) */
	json_object_set_new(o, "ended", json_boolean(it->ended));
	if (why)
		json_object_set_new(o, "reason", json_string(why));
	json_object_set_new(o, "metrics", it->metrics);
	if (it->timeseries)
		json_object_set_new(o, "timeseries", it->timeseries);
	if (it->tiers)
		json_object_set_new(o, "tiers", it->tiers);
	json_object_set_new(o, "snapshots",
			    json_pack("{s:o, s:o}", "before", it->before, "after", it->after));
	return o;
}

static int cmp_iter(const void *a, const void *b)
{
	const struct iter_state *x = a, *y = b;

	return (x->index > y->index) - (x->index < y->index);
}

struct guest_stream_parser *guest_stream_begin(const char *workload_name)
{
	struct guest_stream_parser *c = xcalloc(1, sizeof(*c));

	c->wl = workload_name;
	if (!c->wl || !guest_stream_metric_name_ok(c->wl))
		c->wl = "workload";
	c->log = json_array();
	c->by_index = json_object();
	c->root = json_pack("{s:n, s:[]}", "hello", "nodes");
	return c;
}

void guest_stream_record(void *s, const struct guest_record *rec)
{
	struct guest_stream_parser *c = s;

	c->records++;
	on_record(c, rec->type, rec->p, rec->len);
}

json_t *guest_stream_end(struct guest_stream_parser *s, const struct mmrec_reader *r,
			 struct guest_stream_info *info)
{
	struct guest_stream_parser *c = s;
	json_t *iters = json_array(), *root = c->root, *stream;

	if (r->crc_budget_spent)
		host_log(
			c,
			"the stream is mostly damaged records: checking stopped at byte %zu of %zu, the rest skipped",
			r->stopped_at, r->len);
	if (c->nits)
		qsort(c->its, c->nits, sizeof(*c->its), cmp_iter);
	for (size_t i = 0; i < c->nits; i++)
		json_array_append_new(iters, finish_iter(c, &c->its[i]));
	free(c->its);
	json_decref(c->by_index);
	json_object_set_new(root, "iterations", iters);
	json_object_set_new(root, "log", c->log);
	if (!c->done)
		json_object_set_new(root, "done", json_false());
	stream = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I}", "records",
			   (json_int_t)c->records, "skipped_bytes", (json_int_t)r->skipped_bytes,
			   "bad_crc", (json_int_t)r->bad_crc, "oversized", (json_int_t)r->oversized,
			   "truncated", (json_int_t)r->truncated, "bad_type",
			   (json_int_t)r->bad_type, "crc_budget_spent", (int)r->crc_budget_spent,
			   "dropped_metrics", (json_int_t)c->dropped_metrics, "dropped_samples",
			   (json_int_t)c->dropped_samples);
	if (c->files.records)
		json_object_set_new(stream, "file_records",
				    json_pack("{s:I, s:I, s:I}", "total",
					      (json_int_t)c->files.records, "ignored",
					      (json_int_t)c->files.ignored, "late",
					      (json_int_t)c->files.late));
	json_object_set_new(root, "stream", stream);
	c->info.done = c->done;
	if (info)
		*info = c->info;
	free(c);
	return root;
}

void guest_stream_file_records(struct guest_stream_parser *s, const struct guest_files_stats *st)
{
	s->files = *st;
}

json_t *guest_stream_parse(const void *buf, size_t len, const char *workload_name,
			   struct guest_stream_info *info)
{
	struct guest_stream_parser *s = guest_stream_begin(workload_name);
	struct guest_record_handler h = { guest_stream_record, s };
	struct mmrec_reader r;

	guest_records_walk(buf, len, &h, 1, &r);
	return guest_stream_end(s, &r, info);
}

static int save_phase(json_t *snaps, const char *phase, const char *dir)
{
	json_t *obj = json_object_get(snaps, phase), *val;
	const char *name;
	char *pdir;
	int ret = 0;

	if (!json_is_object(obj) || !json_object_size(obj))
		return 0;
	pdir = xasprintf("%s/%s", dir, phase);
	if (mkdir_p(pdir, 0755) < 0) {
		free(pdir);
		return -1;
	}
	json_object_foreach(obj, name, val) {
		char *file, *path;

		if (!json_is_string(val) || !snapshot_name_ok(name))
			continue; /* not from guest_stream_parse() */
		file = xstrdup(name);
		for (char *s = file; *s; s++)
			if (*s == '/')
				*s = '.';
		path = xasprintf("%s/%s", pdir, file);
		if (write_file_atomic(path, json_string_value(val), json_string_length(val), 0644) <
		    0)
			ret = -1;
		free(path);
		free(file);
		if (ret)
			break;
	}
	free(pdir);
	return ret;
}

int guest_stream_save_snapshots(json_t *iteration, const char *dir)
{
	json_t *snaps = json_object_get(iteration, "snapshots");

	if (!snaps)
		return 0;
	if (save_phase(snaps, "before", dir) < 0 || save_phase(snaps, "after", dir) < 0)
		return -1;
	json_object_del(iteration, "snapshots");
	return 0;
}
