// SPDX-License-Identifier: GPL-2.0
/*
 * test_proto.c - the record codec against well-formed, damaged and random
 * streams. The decoder must find every intact record and never read out
 * of bounds (ASan watches).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto.h"

struct stream {
	uint8_t *buf;
	size_t len, alloc;
};

static void put(struct stream *s, const void *p, size_t n)
{
	if (s->len + n > s->alloc) {
		s->alloc = (s->len + n) * 2;
		s->buf = realloc(s->buf, s->alloc);
		assert_non_null(s->buf);
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/* append a record; returns its offset in the stream */
static size_t rec(struct stream *s, unsigned int type, const char *payload)
{
	size_t len = strlen(payload), off = s->len;
	uint8_t *tmp = malloc(MMREC_HDR_SIZE + len);

	assert_non_null(tmp);
	assert_int_equal(mmrec_encode(tmp, type, payload, (uint32_t)len), MMREC_HDR_SIZE + len);
	put(s, tmp, MMREC_HDR_SIZE + len);
	free(tmp);
	return off;
}

/* decode all; check the payloads seen, in order */
static void expect(const struct stream *s, struct mmrec_reader *r, const char *const *want,
		   size_t nwant)
{
	unsigned int type;
	const char *p;
	uint32_t len;
	size_t n = 0;

	mmrec_reader_init(r, s->buf, s->len);
	while (mmrec_next(r, &type, &p, &len)) {
		assert_true(n < nwant);
		assert_int_equal(len, strlen(want[n]));
		assert_memory_equal(p, want[n], len);
		n++;
	}
	assert_int_equal(n, nwant);
	assert_int_equal(mmrec_next(r, &type, &p, &len), 0);
}

static void test_round_trip(void **state)
{
	struct stream s = { 0 };
	struct mmrec_reader r;
	unsigned int type;
	const char *p;
	uint32_t len;

	(void)state;
	rec(&s, MMREC_HELLO, "agent=1 release=6.1.0 boot_s=2.5");
	rec(&s, MMREC_LOG, "");
	rec(&s, MMREC_DONE, "iterations=3");
	/* little endian on the wire, whatever the host */
	assert_memory_equal(s.buf, "MMLR\x01\x00\x01\x00", 8);
	mmrec_reader_init(&r, s.buf, s.len);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 1);
	assert_int_equal(type, MMREC_HELLO);
	assert_int_equal(len, 32);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 1);
	assert_int_equal(type, MMREC_LOG);
	assert_int_equal(len, 0);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 1);
	assert_int_equal(type, MMREC_DONE);
	assert_memory_equal(p, "iterations=3", len);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 0);
	assert_int_equal(r.skipped_bytes, 0);
	assert_int_equal(r.bad_crc + r.oversized + r.truncated + r.bad_type, 0);
	free(s.buf);
}

static void test_truncated(void **state)
{
	static const char *const want[] = { "first" };
	struct stream s = { 0 };
	struct mmrec_reader r;

	(void)state;
	rec(&s, MMREC_LOG, "first");
	rec(&s, MMREC_LOG, "second record, cut off");
	s.len -= 5;
	expect(&s, &r, want, 1);
	assert_int_equal(r.truncated, 1);
	assert_int_equal(r.skipped_bytes, MMREC_HDR_SIZE + 22 - 5);
	/* cut inside the header */
	s.len = MMREC_HDR_SIZE + 5 + 10;
	expect(&s, &r, want, 1);
	assert_int_equal(r.truncated, 1);
	assert_int_equal(r.skipped_bytes, 10);
	free(s.buf);
}

static void test_corrupted(void **state)
{
	static const char *const want[] = { "one", "three" };
	struct stream s = { 0 };
	struct mmrec_reader r;
	size_t off;

	(void)state;
	rec(&s, MMREC_LOG, "one");
	off = rec(&s, MMREC_LOG, "two");
	rec(&s, MMREC_LOG, "three");
	s.buf[off + MMREC_HDR_SIZE + 1] ^= 0x20; /* payload bit flip */
	expect(&s, &r, want, 2);
	assert_int_equal(r.bad_crc, 1);
	assert_int_equal(r.skipped_bytes, MMREC_HDR_SIZE + 3);
	s.buf[off + MMREC_HDR_SIZE + 1] ^= 0x20;
	s.buf[off + 4] = 77; /* unknown type, crc fixed below */
	s.buf[off + 12] = s.buf[off + 13] = s.buf[off + 14] = s.buf[off + 15] = 0;
	{
		uint8_t tmp[MMREC_HDR_SIZE + 3];

		mmrec_encode(tmp, 77, "two", 3);
		memcpy(s.buf + off, tmp, sizeof(tmp));
	}
	expect(&s, &r, want, 2);
	assert_int_equal(r.bad_type, 1);
	assert_int_equal(r.bad_crc, 0);
	free(s.buf);
}

static void test_oversized(void **state)
{
	static const char *const want[] = { "after" };
	struct stream s = { 0 };
	struct mmrec_reader r;
	uint8_t hdr[MMREC_HDR_SIZE];
	uint32_t big = MMREC_MAX_PAYLOAD + 1;

	(void)state;
	mmrec_encode(hdr, MMREC_LOG, NULL, 0);
	memcpy(hdr + 8, &big, 4); /* test runs on little endian x86 */
	put(&s, hdr, sizeof(hdr));
	rec(&s, MMREC_LOG, "after");
	expect(&s, &r, want, 1);
	assert_int_equal(r.oversized, 1);
	assert_int_equal(r.skipped_bytes, MMREC_HDR_SIZE);
	free(s.buf);
}

static void test_garbage(void **state)
{
	static const char *const want[] = { "a", "b", "c" };
	struct stream s = { 0 };
	struct mmrec_reader r;

	(void)state;
	put(&s, "boot noise MML MMLR MMLRxxxxxxxxxxxxxxxx", 40);
	rec(&s, MMREC_LOG, "a");
	put(&s, "\0\0\xffMMLR", 7);
	rec(&s, MMREC_LOG, "b");
	put(&s, "MM", 2);
	rec(&s, MMREC_LOG, "c");
	put(&s, "tail MM", 7);
	expect(&s, &r, want, 3);
	assert_int_equal(r.skipped_bytes, 40 + 7 + 2 + 7);
	free(s.buf);
}

/*
 * issue 20: a header every 16 bytes, each claiming the rest of the stream
 * as its payload with a wrong crc. Each was checksummed: 65536 CRCs over
 * up to 1 MiB for 1 MiB of input (20 s; 64 MiB would take hours). The
 * reader now gives up once its CRC work passes MMREC_CRC_BUDGET.
 */
static void test_resync_budget(void **state)
{
	struct stream s = { 0 };
	struct mmrec_reader r;
	const size_t n = 1u << 20;
	unsigned int type;
	const char *p;
	uint32_t len;

	(void)state;
	while (s.len + MMREC_HDR_SIZE <= n) {
		uint8_t hdr[MMREC_HDR_SIZE];
		uint32_t claim = (uint32_t)(n - s.len - MMREC_HDR_SIZE);

		mmrec_encode(hdr, MMREC_LOG, NULL, 0);
		memcpy(hdr + 8, &claim, 4);
		hdr[12] ^= 0xff; /* a wrong crc */
		put(&s, hdr, sizeof(hdr));
	}
	mmrec_reader_init(&r, s.buf, s.len);
	assert_int_equal(mmrec_next(&r, &type, &p, &len), 0);
	assert_int_equal(r.crc_budget_spent, 1);
	assert_int_equal(r.skipped_bytes, n);
	assert_true(r.bad_crc < 32); /* was 65536 */
	free(s.buf);
}

/* damage in an honest stream never spends the budget */
static void test_resync_honest(void **state)
{
	struct stream s = { 0 };
	struct mmrec_reader r;
	char *big = malloc(MMREC_MAX_PAYLOAD + 1);
	unsigned int type, good = 0;
	const char *p;
	uint32_t len;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', MMREC_MAX_PAYLOAD);
	big[MMREC_MAX_PAYLOAD] = '\0';
	for (int i = 0; i < 12; i++) {
		size_t off = rec(&s, MMREC_SNAPSHOT, i % 4 ? "small" : big);

		if (i % 3 == 0)
			s.buf[off + MMREC_HDR_SIZE + 2] ^= 1; /* a damaged payload */
	}
	mmrec_reader_init(&r, s.buf, s.len);
	while (mmrec_next(&r, &type, &p, &len))
		good++;
	assert_int_equal(good, 8);
	assert_int_equal(r.bad_crc, 4);
	assert_int_equal(r.crc_budget_spent, 0);
	free(big);
	free(s.buf);
}

static void test_hdr_get(void **state)
{
	static const char p[] = "iter=3 phase=before name=node0/vmstat  x=\nbody iter=9\n";
	uint32_t len = sizeof(p) - 1, blen;
	char v[16];
	const char *b;

	(void)state;
	assert_int_equal(mmrec_hdr_get(p, len, "iter", v, sizeof(v)), 0);
	assert_string_equal(v, "3");
	assert_int_equal(mmrec_hdr_get(p, len, "name", v, sizeof(v)), 0);
	assert_string_equal(v, "node0/vmstat");
	assert_int_equal(mmrec_hdr_get(p, len, "x", v, sizeof(v)), 0);
	assert_string_equal(v, "");
	assert_int_equal(mmrec_hdr_get(p, len, "name", v, 12), -1); /* no room */
	assert_int_equal(mmrec_hdr_get(p, len, "ter", v, sizeof(v)), -1);
	assert_int_equal(mmrec_hdr_get(p, len, "body", v, sizeof(v)), -1);
	assert_int_equal(mmrec_hdr_get(p, 4, "iter", v, sizeof(v)), -1);
	b = mmrec_body(p, len, &blen);
	assert_int_equal(blen, 12);
	assert_memory_equal(b, "body iter=9\n", 12);
	b = mmrec_body(p, 10, &blen);
	assert_int_equal(blen, 0);
	assert_ptr_equal(b, p + 10);
	assert_string_equal(mmrec_type_name(MMREC_SNAPSHOT), "SNAPSHOT");
	assert_string_equal(mmrec_type_name(0), "UNKNOWN");
	assert_string_equal(mmrec_type_name(1000), "UNKNOWN");
}

/* one FILE type, two uses: iter= in the header (not the body) tells them apart */
static void test_file_iter(void **state)
{
	static const char rb[] = "iter=0 index=1 size=3 cut=0\nabc";
	static const char miss[] = "index=1 iter=2 missing=2";
	static const char piece[] = "path=/x size=3 offset=0\niter=0 abc";
	static const char near[] = "path=/x/iter=1 xiter=1 iter size=0 offset=0";

	(void)state;
	assert_int_equal(mmrec_file_iter(rb, sizeof(rb) - 1), 1);
	assert_int_equal(mmrec_file_iter(miss, sizeof(miss) - 1), 1);
	assert_int_equal(mmrec_file_iter(piece, sizeof(piece) - 1), 0);
	assert_int_equal(mmrec_file_iter(near, sizeof(near) - 1), 0);
	assert_int_equal(mmrec_file_iter(rb, 4), 0); /* "iter" cut before its '=' */
	assert_int_equal(mmrec_file_iter("", 0), 0);
	assert_string_equal(mmrec_type_name(MMREC_FILE), "FILE");
	assert_string_equal(mmrec_type_name(MMREC_TYPE_MAX + 1), "UNKNOWN");
}

/* random damage to a valid stream: never crash, count what survives */
static void test_fuzz(void **state)
{
	struct stream s = { 0 };
	uint8_t *copy;
	unsigned int seed = 12345;

	(void)state;
	for (int i = 0; i < 50; i++) {
		char p[64];

		snprintf(p, sizeof(p), "iter=%d phase=after name=vmstat\nx %d\n", i, i);
		rec(&s, MMREC_SNAPSHOT, p);
	}
	copy = malloc(s.len);
	assert_non_null(copy);
	for (int round = 0; round < 2000; round++) {
		struct mmrec_reader r;
		unsigned int type;
		const char *p;
		uint32_t len;
		size_t cut = (size_t)rand_r(&seed) % (s.len + 1), n = 0, bytes = 0;
		int flips = rand_r(&seed) % 8;

		memcpy(copy, s.buf, s.len);
		for (int f = 0; f < flips; f++)
			copy[(size_t)rand_r(&seed) % s.len] = (uint8_t)rand_r(&seed);
		/* a heap buffer of exactly cut bytes: ASan catches any over-read */
		uint8_t *b = malloc(cut ? cut : 1);

		memcpy(b, copy, cut);
		mmrec_reader_init(&r, b, cut);
		while (mmrec_next(&r, &type, &p, &len)) {
			assert_true(type >= 1 && type <= MMREC_TYPE_MAX);
			assert_true((const uint8_t *)p + len <= b + cut);
			bytes += MMREC_HDR_SIZE + len;
			n++;
		}
		assert_int_equal(bytes + r.skipped_bytes, cut);
		if (!flips && cut == s.len)
			assert_int_equal(n, 50);
		free(b);
	}
	/* pure noise */
	for (int round = 0; round < 200; round++) {
		struct mmrec_reader r;
		unsigned int type;
		const char *p;
		uint32_t len;
		size_t n = 4096;
		uint8_t *b = malloc(n);

		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)("MMLR\x01\x00\x10"[rand_r(&seed) % 7]);
		mmrec_reader_init(&r, b, n);
		while (mmrec_next(&r, &type, &p, &len))
			;
		assert_int_equal(r.pos, n);
		free(b);
	}
	free(copy);
	free(s.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupted),     cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_garbage),	      cmocka_unit_test(test_hdr_get),
		cmocka_unit_test(test_fuzz),	      cmocka_unit_test(test_resync_budget),
		cmocka_unit_test(test_resync_honest), cmocka_unit_test(test_file_iter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
