// SPDX-License-Identifier: GPL-2.0
/*
 * stream.c - turn the guest agent's record stream into a struct
 * guest_stream. Everything here reads untrusted bytes: each field is
 * bounded and checked, text is made printable, and what does not check
 * out is dropped with a "host: ..." log entry. While the stream is read,
 * an iteration's metrics and snapshots are kept in JSON objects, as maps
 * by name; guest_stream_end() turns them into the struct's arrays.
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
	json_t *metrics; /* name -> value */
	json_t *before, *after; /* snapshot name -> raw text */
	struct iter_timeseries ts; /* from SERIES */
	json_t *tiers; /* from TIERS, or NULL */
};

struct guest_stream_parser {
	const char *wl;
	struct guest_report *gs; /* what guest_stream_end() returns, as it is filled */
	json_t *by_index; /* "<index>" -> position in its */
	struct iter_state *its;
	size_t nits, alloc;
	size_t nlog, alloc_log; /* nlog: entries asked for, GUEST_STREAM_MAX_LOG + 1 kept */
	size_t metrics, samples; /* in the whole stream */
	bool done; /* a DONE record came */
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

static char *safe_dup(const char *s, size_t len)
{
	char *t = xmalloc(len + 1);

	safe_copy(t, s, len);
	return t;
}

static json_t *safe_string(const char *s, size_t len)
{
	char *t = safe_dup(s, len);
	json_t *j = json_stringn(t, len);

	free(t);
	return j;
}

/* level: info, warn or error */
static void add_log(struct guest_stream_parser *c, const char *level, const char *msg, size_t len)
{
	struct guest_report *gs = c->gs;
	struct guest_log_entry *e;

	if (c->nlog == GUEST_STREAM_MAX_LOG)
		level = "warn", msg = "host: too many log entries, dropping the rest",
		len = strlen(msg);
	else if (c->nlog > GUEST_STREAM_MAX_LOG)
		return;
	c->nlog++;
	if (len > 4096)
		len = 4096;
	if (gs->nlog == c->alloc_log) {
		c->alloc_log = c->alloc_log ? c->alloc_log * 2 : 16;
		gs->log = xrealloc(gs->log, c->alloc_log * sizeof(*gs->log));
	}
	e = &gs->log[gs->nlog++];
	snprintf(e->level, sizeof(e->level), "%s", level);
	e->message = safe_dup(msg, len);
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
	if (!c->gs->counts.dropped_metrics++)
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

bool guest_snapshot_name_ok(const char *n)
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
		.ts = { .samples = -1 },
	};
	return &c->its[c->nits++];
}

static void on_hello(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct guest_hello *h = &c->gs->hello;
	char agent[64] = "", release[128] = "", boot[32] = "";

	mmrec_hdr_get(p, len, "agent", agent, sizeof(agent));
	mmrec_hdr_get(p, len, "release", release, sizeof(release));
	mmrec_hdr_get(p, len, "boot_s", boot, sizeof(boot));
	safe_copy(h->agent, agent, strlen(agent));
	safe_copy(h->release, release, strlen(release));
	h->has_boot_s = get_double(boot, &h->boot_s);
	c->gs->has_hello = true;
	c->gs->info.hello = true;
}

void guest_nodes_free(struct iter_node *nodes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(nodes[i].cpus);
	free(nodes);
}

/* one line of NODES into nodes[*n] (room for GUEST_STREAM_MAX_NODES) */
static void on_node_line(struct guest_stream_parser *c, struct iter_node *nodes, size_t *n,
			 const char *l, uint32_t len)
{
	char id[16], cpus[256], mem[32];
	unsigned long nid;
	long long kb;

	if (mmrec_hdr_get(l, len, "node", id, sizeof(id)) || !get_uint(id, 1000000, &nid)) {
		host_log(c, "NODES line without a valid node=, ignored");
		return;
	}
	if (*n >= GUEST_STREAM_MAX_NODES)
		return;
	if (mmrec_hdr_get(l, len, "cpus", cpus, sizeof(cpus)))
		cpus[0] = '\0';
	nodes[*n] = (struct iter_node){
		.id = (long long)nid,
		.cpus = safe_dup(cpus, strlen(cpus)),
		.memory_kb = !mmrec_hdr_get(l, len, "memory_kb", mem, sizeof(mem)) &&
					     get_int(mem, &kb) && kb >= 0 ?
				     kb :
				     -1,
	};
	(*n)++;
}

static void on_nodes(struct guest_stream_parser *c, const char *p, uint32_t len)
{
	struct guest_report *gs = c->gs;
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen), *end = b + blen;
	struct iter_node *nodes = xcalloc(GUEST_STREAM_MAX_NODES, sizeof(*nodes));
	size_t n = 0;

	while (b < end) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		uint32_t ll = (uint32_t)((nl ? nl : end) - b);

		if (ll)
			on_node_line(c, nodes, &n, b, ll);
		b = nl ? nl + 1 : end;
	}
	guest_nodes_free(gs->nodes, gs->nnodes);
	gs->nodes = n ? xrealloc(nodes, n * sizeof(*nodes)) : NULL;
	gs->nnodes = n;
	if (!n)
		free(nodes);
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
	    mmrec_hdr_get(p, len, "name", name, sizeof(name)) || !guest_snapshot_name_ok(name)) {
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

static bool has_series(const struct iter_timeseries *ts, const char *name)
{
	for (size_t i = 0; i < ts->nseries; i++)
		if (!strcmp(ts->series[i].name, name))
			return true;
	return false;
}

/*
 * one "<name> v0 v1 ..." line of a SERIES record into ts->series[ts->nseries]
 * (room for it); false if malformed
 */
static bool series_line(struct iter_timeseries *ts, const char *l, size_t len,
			unsigned long samples)
{
	char *line = xstrndup(l, len), *save = NULL, *tok;
	double *v = xcalloc(samples + 1, sizeof(*v));
	size_t n = 0;
	bool ok;

	tok = strtok_r(line, " ", &save);
	ok = tok && (!strncmp(tok, "vmstat.", 7) || !strncmp(tok, "node", 4)) &&
	     guest_stream_metric_name_ok(tok) && !has_series(ts, tok);
	if (ok) {
		const char *name = tok;

		while (ok && (tok = strtok_r(NULL, " ", &save)))
			ok = n < samples && get_double(tok, &v[n++]);
		ok = ok && n == samples;
		if (ok)
			ts->series[ts->nseries++] =
				(struct iter_series){ .name = xstrdup(name), .v = v, .n = n };
	}
	if (!ok)
		free(v);
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
	struct iter_timeseries ts = { .present = true };

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
	ts.interval_s = (double)interval;
	ts.samples = (long long)samples;
	ts.series = xcalloc(GUEST_STREAM_MAX_SERIES, sizeof(*ts.series));
	while (b < end && ts.nseries < GUEST_STREAM_MAX_SERIES) {
		const char *nl = memchr(b, '\n', (size_t)(end - b));
		size_t ll = (size_t)((nl ? nl : end) - b);

		if (ll && c->samples + samples > GUEST_STREAM_MAX_TOTAL_SAMPLES) {
			if (!c->gs->counts.dropped_samples)
				host_log(
					c,
					"iteration %u: more than %d series samples in the stream; the rest are dropped",
					it->index, GUEST_STREAM_MAX_TOTAL_SAMPLES);
			c->gs->counts.dropped_samples += samples;
		} else if (ll && !series_line(&ts, b, ll, samples)) {
			host_log(c, "iteration %u: bad SERIES line, dropped", it->index);
		} else if (ll) {
			c->samples += samples;
		}
		b = nl ? nl + 1 : end;
	}
	iter_timeseries_release(&it->ts);
	it->ts = ts;
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
	struct guest_stream_info *info = &c->gs->info;
	char what[32] = "setup";
	uint32_t blen;
	const char *body = mmrec_body(p, len, &blen);

	mmrec_hdr_get(p, len, "what", what, sizeof(what));
	if (blen > GUEST_STREAM_SETUP_MESSAGE_MAX)
		blen = GUEST_STREAM_SETUP_MESSAGE_MAX;
	info->setup_error = true;
	safe_copy(info->setup_what, what, strlen(what));
	safe_copy(info->setup_message, body, blen);
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

/* an object of name -> string as snapshots, by name (the object's order: jansson's) */
static struct guest_snapshot *snapshots(json_t *o, size_t *n)
{
	struct guest_snapshot *v = xcalloc(json_object_size(o) + 1, sizeof(*v));
	const char *name;
	json_t *text;

	*n = 0;
	json_object_foreach(o, name, text) {
		size_t len = json_string_length(text);

		v[*n].name = xstrdup(name);
		v[*n].text = xmalloc(len + 1);
		memcpy(v[*n].text, json_string_value(text), len + 1);
		v[(*n)++].len = len;
	}
	return v;
}

static void finish_iter(struct guest_stream_parser *c, struct iter_state *it,
			struct guest_iteration *g)
{
	const char *why = failure_reason(it), *name;
	json_t *val;

	if (why)
		host_log(c, "iteration %u failed: %s", it->index, why);
	compute_metrics(c, it);
	*g = (struct guest_iteration){
		.index = it->index,
		.ok = it->ended && it->guest_ok && !why,
		.ended = it->ended,
		.reason = why,
		.has_result = it->have_result,
		.exit_code = it->exit_code,
		.signal = it->signal,
		.ts = it->ts,
		.tiers = it->tiers,
	};
	g->metrics = xcalloc(json_object_size(it->metrics) + 1, sizeof(*g->metrics));
	json_object_foreach(it->metrics, name, val) {
		struct iter_metric *m = &g->metrics[g->nmetrics++];

		m->name = xstrdup(name);
		m->integer = json_is_integer(val);
		m->ivalue = json_integer_value(val);
		m->value = json_number_value(val);
	}
	g->before = snapshots(it->before, &g->nbefore);
	g->after = snapshots(it->after, &g->nafter);
	json_decref(it->metrics);
	json_decref(it->before);
	json_decref(it->after);
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
	c->by_index = json_object();
	c->gs = xcalloc(1, sizeof(*c->gs));
	return c;
}

void guest_stream_record(void *s, const struct guest_record *rec)
{
	struct guest_stream_parser *c = s;

	c->gs->counts.records++;
	on_record(c, rec->type, rec->p, rec->len);
}

struct guest_report *guest_stream_end(struct guest_stream_parser *c, const struct mmrec_reader *r)
{
	struct guest_report *gs = c->gs;

	if (r->crc_budget_spent)
		host_log(
			c,
			"the stream is mostly damaged records: checking stopped at byte %zu of %zu, the rest skipped",
			r->stopped_at, r->len);
	if (c->nits)
		qsort(c->its, c->nits, sizeof(*c->its), cmp_iter);
	gs->its = xcalloc(c->nits + 1, sizeof(*gs->its));
	for (size_t i = 0; i < c->nits; i++)
		finish_iter(c, &c->its[i], &gs->its[gs->nits++]);
	free(c->its);
	json_decref(c->by_index);
	gs->counts.skipped_bytes = r->skipped_bytes;
	gs->counts.bad_crc = r->bad_crc;
	gs->counts.oversized = r->oversized;
	gs->counts.truncated = r->truncated;
	gs->counts.bad_type = r->bad_type;
	gs->counts.crc_budget_spent = r->crc_budget_spent;
	gs->info.done = c->done;
	free(c);
	return gs;
}

void guest_stream_file_records(struct guest_stream_parser *s, const struct guest_files_stats *st)
{
	s->gs->counts.files = *st;
}

struct guest_report *guest_stream_parse(const void *buf, size_t len, const char *workload_name)
{
	struct guest_stream_parser *s = guest_stream_begin(workload_name);
	struct guest_record_handler h = { guest_stream_record, s };
	struct mmrec_reader r;

	guest_records_walk(buf, len, &h, 1, &r);
	return guest_stream_end(s, &r);
}
