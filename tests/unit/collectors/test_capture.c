// SPDX-License-Identifier: GPL-2.0
/*
 * test_capture.c - the agent's bounded capture of a command workload's
 * output (collectors/capture.c): whatever the program writes, in whatever
 * pieces, the record holds exactly its first CAP_HEAD and last CAP_TAIL
 * bytes and says how many were dropped; and the host reads that record
 * back (guest/outputs.c) with the same bytes. Guest code, compiled in
 * directly, with the channel recording what it would send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../../collectors/capture.c"

#include "guest/outputs.h"
#include "lib/strbuf.h"

static struct strbuf sent; /* the encoded records */

void chan_sendf(unsigned int type, const char *body, size_t body_len, const char *fmt, ...)
{
	char hdr[512], *payload, *rec;
	size_t hl, plen;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(hdr, sizeof(hdr), fmt, ap);
	va_end(ap);
	hl = strlen(hdr);
	plen = hl + (body_len ? 1 + body_len : 0);
	payload = malloc(plen);
	rec = malloc(MMREC_HDR_SIZE + plen);
	memcpy(payload, hdr, hl);
	if (body_len) {
		payload[hl] = '\n';
		memcpy(payload + hl + 1, body, body_len);
	}
	strbuf_add(&sent, rec, mmrec_encode(rec, type, payload, (uint32_t)plen));
	free(payload);
	free(rec);
}

char *read_capped(const char *path, size_t cap, size_t *len, int *truncated)
{
	(void)path;
	(void)cap;
	(void)len;
	(void)truncated;
	errno = ENOENT;
	return NULL;
}

/* byte i of the stream the program "writes" */
static char byte_at(uint64_t i)
{
	return (char)((i * 2654435761u) >> 13);
}

static void feed(struct capture *c, uint64_t total)
{
	static char buf[100003];
	uint64_t done = 0;
	size_t step = 1;

	while (done < total) {
		size_t n = step < total - done ? step : (size_t)(total - done);

		for (size_t i = 0; i < n; i++)
			buf[i] = byte_at(done + i);
		capture_add(c, buf, n);
		done += n;
		step = step * 3 % sizeof(buf) + 1; /* pieces of every size */
	}
}

static void check(uint64_t total)
{
	struct capture c;
	struct guest_outputs o;
	const struct guest_iter_out *it;
	const struct guest_text *t;
	uint64_t keep_head = total < CAP_HEAD ? total : CAP_HEAD;

	memset(&sent, 0, sizeof(sent));
	assert_int_equal(capture_init(&c), 0);
	feed(&c, total);
	capture_send(&c, 7, "stdout");
	capture_free(&c);
	guest_outputs_parse(sent.buf, sent.len, &o);
	it = guest_outputs_find(&o, 7);
	assert_non_null(it);
	t = &it->stream[GUEST_STDOUT];
	assert_true(t->present);
	assert_int_equal(t->total, total);
	assert_int_equal(t->len, total < CAP_HEAD + CAP_TAIL ? total : CAP_HEAD + CAP_TAIL);
	assert_int_equal(t->dropped, total - t->len);
	for (uint64_t i = 0; i < keep_head; i++)
		assert_int_equal(t->data[i], byte_at(i));
	for (uint64_t i = keep_head; i < t->len; i++)
		assert_int_equal(t->data[i], byte_at(total - (t->len - i)));
	guest_outputs_free(&o);
	strbuf_release(&sent);
}

static void test_sizes(void **state)
{
	(void)state;
	check(0);
	check(1);
	check(CAP_HEAD);
	check(CAP_HEAD + 1);
	check(CAP_HEAD + CAP_TAIL);
	check(CAP_HEAD + CAP_TAIL + 1);
	check(3 * CAP_TAIL + 12345);
	check(20u << 20);
}

/* a file read back after an iteration: a FILE record with iter=, as the host reads it */
static void test_send_file(void **state)
{
	struct guest_outputs o;
	const struct guest_iter_out *it;
	struct mmrec_reader r;
	unsigned int type;
	const char *p;
	uint32_t len;

	(void)state;
	memset(&sent, 0, sizeof(sent));
	capture_send_file(4, 2, "/nonexistent"); /* read_capped() above: ENOENT */
	mmrec_reader_init(&r, sent.buf, sent.len);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 1);
	assert_int_equal(type, MMREC_FILE);
	assert_int_equal(mmrec_file_iter(p, len), 1);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 0);
	guest_outputs_parse(sent.buf, sent.len, &o);
	it = guest_outputs_find(&o, 4);
	assert_non_null(it);
	assert_true(it->files[2].present);
	assert_int_equal(it->files[2].missing, ENOENT);
	assert_false(it->files[0].present);
	guest_outputs_free(&o);
	strbuf_release(&sent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_send_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
