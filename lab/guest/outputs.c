// SPDX-License-Identifier: GPL-2.0
/*
 * outputs.c - a command workload's outputs from the agent's stream (see
 * outputs.h). Reads the records again, independently of stream.c: these
 * are bytes to keep and to extract from, not JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guest/outputs.h"
#include "lib/util.h"
#include "proto.h"

#define MAX_ITERS 4096

static const char *const stream_names[GUEST_NSTREAMS] = { "stdout", "stderr", "dmesg" };

const char *guest_stream_name(enum guest_stream s)
{
	return s < GUEST_NSTREAMS ? stream_names[s] : "?";
}

static bool hdr_u64(const char *p, uint32_t len, const char *key, uint64_t *out)
{
	char v[32], *end;

	if (mmrec_hdr_get(p, len, key, v, sizeof(v)) || v[0] < '0' || v[0] > '9')
		return false;
	*out = strtoull(v, &end, 10);
	return !*end;
}

static struct guest_iter_out *iter_of(struct guest_outputs *o, const char *p, uint32_t len)
{
	uint64_t idx;

	if (!hdr_u64(p, len, "iter", &idx) || idx > 1000000)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (o->its[i].index == idx)
			return &o->its[i];
	if (o->n == MAX_ITERS)
		return NULL;
	o->its = xrealloc(o->its, (o->n + 1) * sizeof(*o->its));
	memset(&o->its[o->n], 0, sizeof(o->its[o->n]));
	o->its[o->n].index = (unsigned int)idx;
	return &o->its[o->n++];
}

static void text_free(struct guest_text *t)
{
	free(t->data);
	memset(t, 0, sizeof(*t));
}

/* body into t, at most max bytes: the first head and the last ones */
static void text_set(struct guest_text *t, const char *b, size_t blen, size_t head, size_t max)
{
	text_free(t);
	t->present = true;
	if (head > blen)
		head = blen;
	if (blen > max) {
		size_t keep_head = head < max / 2 ? head : max / 2;

		t->data = xmalloc(max + 1);
		memcpy(t->data, b, keep_head);
		memcpy(t->data + keep_head, b + blen - (max - keep_head), max - keep_head);
		t->len = max;
		t->head = keep_head;
		t->dropped = blen - max;
	} else {
		t->data = xmalloc(blen + 1);
		memcpy(t->data, b, blen);
		t->len = blen;
		t->head = head;
	}
	t->data[t->len] = '\0';
}

static void on_output(struct guest_outputs *o, const char *p, uint32_t len)
{
	struct guest_iter_out *it = iter_of(o, p, len);
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen);
	uint64_t head = blen, total = 0, dropped = 0;
	struct guest_text *t = NULL;
	char name[16];

	if (!it || mmrec_hdr_get(p, len, "stream", name, sizeof(name)))
		return;
	for (int s = 0; s < GUEST_NSTREAMS; s++)
		if (!strcmp(name, stream_names[s]))
			t = &it->stream[s];
	if (!t)
		return;
	hdr_u64(p, len, "head", &head);
	hdr_u64(p, len, "total", &total);
	hdr_u64(p, len, "dropped", &dropped);
	text_set(t, b, blen, head, GUEST_OUT_MAX);
	t->dropped += dropped;
	t->total = total > t->len + t->dropped ? total : t->len + t->dropped;
	if (t->dropped == 0)
		t->head = t->len;
}

static void on_file(struct guest_outputs *o, const char *p, uint32_t len)
{
	struct guest_iter_out *it = iter_of(o, p, len);
	uint32_t blen;
	const char *b = mmrec_body(p, len, &blen);
	uint64_t idx, missing = 0, cut = 0;
	struct guest_text *t;

	if (!it || !hdr_u64(p, len, "index", &idx) || idx >= GUEST_OUT_FILES)
		return;
	t = &it->files[idx];
	if (hdr_u64(p, len, "missing", &missing)) {
		text_free(t);
		t->present = true;
		t->missing = missing && missing < 4096 ? (int)missing : 2;
		return;
	}
	text_set(t, b, blen, blen, GUEST_FILE_MAX);
	hdr_u64(p, len, "cut", &cut);
	t->cut = cut || t->dropped;
	t->total = t->len;
	t->head = t->len;
	t->dropped = 0;
}

static void on_result(struct guest_outputs *o, const char *p, uint32_t len)
{
	struct guest_iter_out *it = iter_of(o, p, len);
	uint64_t v;

	if (it && hdr_u64(p, len, "timed_out", &v))
		it->timed_out = v == 1;
}

void guest_outputs_init(struct guest_outputs *o)
{
	memset(o, 0, sizeof(*o));
}

void guest_outputs_record(void *ctx, const struct guest_record *rec)
{
	struct guest_outputs *o = ctx;

	if (rec->type == MMREC_WL_OUTPUT)
		on_output(o, rec->p, rec->len);
	else if (rec->type == MMREC_FILE)
		on_file(o, rec->p, rec->len);
	else if (rec->type == MMREC_RESULT)
		on_result(o, rec->p, rec->len);
}

void guest_outputs_parse(const void *buf, size_t len, struct guest_outputs *o)
{
	struct guest_record_handler h = { guest_outputs_record, o };

	guest_outputs_init(o);
	guest_records_walk(buf, len, &h, 1, NULL);
}

const struct guest_iter_out *guest_outputs_find(const struct guest_outputs *o, unsigned int index)
{
	for (size_t i = 0; i < o->n; i++)
		if (o->its[i].index == index)
			return &o->its[i];
	return NULL;
}

void guest_outputs_free(struct guest_outputs *o)
{
	for (size_t i = 0; i < o->n; i++) {
		for (int s = 0; s < GUEST_NSTREAMS; s++)
			text_free(&o->its[i].stream[s]);
		for (int f = 0; f < GUEST_OUT_FILES; f++)
			text_free(&o->its[i].files[f]);
	}
	free(o->its);
	memset(o, 0, sizeof(*o));
}
