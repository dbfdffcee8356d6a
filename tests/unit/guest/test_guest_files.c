// SPDX-License-Identifier: GPL-2.0
/*
 * test_guest_files.c - collect_files on the host (lab/guest/files.c)
 * against honest and hostile FILE records, and the path codec both sides
 * use (common/proto.c). A hostile guest names paths it was not asked
 * for, climbs with "..", lies about sizes and offsets: nothing may be
 * written but the asked files under DIR/files, each within its bounds.
 */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "guest/files.h"
#include "guest/stream.h"
#include "lib/strbuf.h"
#include "lib/util.h"
#include "proto.h"

struct stream {
	char *buf;
	size_t len;
};

static void put_rec(struct stream *s, unsigned int type, const char *hdr, const void *body,
		    size_t blen)
{
	size_t hl = strlen(hdr), plen = hl + (blen ? 1 + blen : 0);
	char *payload = xmalloc(plen + 1);

	memcpy(payload, hdr, hl);
	if (blen) {
		payload[hl] = '\n';
		memcpy(payload + hl + 1, body, blen);
	}
	s->buf = xrealloc(s->buf, s->len + MMREC_HDR_SIZE + plen);
	s->len += mmrec_encode(s->buf + s->len, type, payload, (uint32_t)plen);
	free(payload);
}

/* a FILE piece: path (encoded here), size, offset, body */
static void piece(struct stream *s, const char *path, unsigned long long size,
		  unsigned long long off, const void *body, size_t blen)
{
	char enc[MMPATH_ENC_MAX + 1], hdr[MMPATH_ENC_MAX + 96];

	assert_int_equal(mmpath_encode(path, enc, sizeof(enc)), 0);
	snprintf(hdr, sizeof(hdr), "path=%s size=%llu offset=%llu", enc, size, off);
	put_rec(s, MMREC_FILE, hdr, body, blen);
}

/* a FILE record with a raw header (what a forger writes) */
static void raw(struct stream *s, const char *hdr, const char *body)
{
	put_rec(s, MMREC_FILE, hdr, body, body ? strlen(body) : 0);
}

static char *tmpdir(void)
{
	char t[] = "/tmp/mmlab-test-files-XXXXXX";

	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static struct strlist found;
static size_t root_len;

static int list_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if (type != FTW_D && type != FTW_DP)
		strlist_push(&found, path + root_len);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* everything but directories under root, relative, sorted, one a line */
static char *list_files(const char *root)
{
	struct strbuf out = STRBUF_INIT;

	root_len = strlen(root);
	assert_int_equal(nftw(root, list_one, 16, FTW_PHYS), 0);
	if (found.n)
		qsort(found.v, found.n, sizeof(*found.v), cmp_str);
	for (size_t i = 0; i < found.n; i++)
		strbuf_addf(&out, "%s\n", found.v[i]);
	strlist_free(&found);
	return strbuf_detach(&out);
}

static json_t *entry(json_t *files, const char *path)
{
	size_t i;
	json_t *f;

	json_array_foreach(files, i, f)
		if (!strcmp(json_string_value(json_object_get(f, "path")), path))
			return f;
	fail_msg("no entry for %s", path);
	return NULL;
}

static const char *error_of(json_t *files, const char *path)
{
	const char *e = json_string_value(json_object_get(entry(files, path), "error"));

	assert_non_null(e);
	return e;
}

static void assert_contents(const char *dir, const char *path, const char *want, size_t n)
{
	char *p = xasprintf("%s/files%s", dir, path);
	size_t len;
	char *got = read_file(p, &len, 1u << 30);

	assert_non_null(got);
	assert_int_equal(len, n);
	assert_memory_equal(got, want, n);
	free(got);
	free(p);
}

static void test_honest(void **state)
{
	struct strlist asked = { 0 };
	struct stream s = { 0 };
	struct guest_files_stats st;
	char *root = tmpdir(), *dir = xasprintf("%s/boot", root), *list;
	json_t *files, *want;

	(void)state;
	strlist_push(&asked, "/var/log/a b%.txt");
	strlist_push(&asked, "/empty");
	strlist_push(&asked, "/missing");
	strlist_push(&asked, "/dir");
	strlist_push(&asked, "/never");
	put_rec(&s, MMREC_HELLO, "agent=1 release=x boot_s=1", NULL, 0);
	piece(&s, "/var/log/a b%.txt", 10, 0, "01234", 5);
	put_rec(&s, MMREC_LOG, "level=info", "between pieces", 14);
	piece(&s, "/var/log/a b%.txt", 10, 5, "56789", 5);
	piece(&s, "/empty", 0, 0, NULL, 0);
	raw(&s, "path=/missing error=missing", NULL);
	raw(&s, "path=/dir error=notfile", NULL);
	files = guest_files_store(s.buf, s.len, &asked, dir, &st);
	assert_int_equal(json_array_size(files), 5);
	want = json_pack("{s:s, s:i, s:s}", "path", "/var/log/a b%.txt", "size", 10, "stored",
			 "files/var/log/a b%.txt");
	assert_true(json_equal(json_array_get(files, 0), want));
	json_decref(want);
	assert_contents(dir, "/var/log/a b%.txt", "0123456789", 10);
	assert_int_equal(json_integer_value(json_object_get(entry(files, "/empty"), "size")), 0);
	assert_contents(dir, "/empty", "", 0);
	assert_string_equal(error_of(files, "/missing"), "not in the guest");
	assert_string_equal(error_of(files, "/dir"), "not a regular file in the guest");
	assert_non_null(strstr(error_of(files, "/never"), "sent nothing"));
	assert_int_equal(st.records, 5);
	assert_int_equal(st.ignored + st.late, 0);
	list = list_files(root);
	assert_string_equal(list, "/boot/files/empty\n/boot/files/var/log/a b%.txt\n");
	free(list);
	json_decref(files);
	free(s.buf);
	strlist_free(&asked);
	rm_rf(root);
	free(dir);
	free(root);
}

/* paths the job did not ask for, "..", bad encodings: ignored, nothing written */
static void test_not_asked(void **state)
{
	struct strlist asked = { 0 };
	struct stream s = { 0 };
	struct guest_files_stats st;
	char *root = tmpdir(), *dir = xasprintf("%s/boot", root), *list;
	json_t *files;

	(void)state;
	strlist_push(&asked, "/var/log/ok");
	piece(&s, "/etc/shadow", 4, 0, "root", 4);
	piece(&s, "/var/log/../../../../../../tmp/mmlab-evil", 4, 0, "evil", 4);
	piece(&s, "/var/log/ok/../../../../boot-evil", 4, 0, "evil", 4);
	piece(&s, "../../evil", 4, 0, "evil", 4);
	raw(&s, "path=/var/log/%2E%2E/%2E%2E/evil size=4 offset=0", "evil");
	raw(&s, "path=/var/log/ok%00.x size=4 offset=0", "evil");
	raw(&s, "path=/var/log/o%zz size=4 offset=0", "evil");
	raw(&s, "path= size=4 offset=0", "evil");
	raw(&s, "size=4 offset=0", "evil");
	/* a read-back file of an iteration (outputs.c's), even naming the path */
	raw(&s, "iter=0 index=0 size=4 cut=0", "evil");
	raw(&s, "path=/var/log/ok size=4 offset=0 iter=0", "evil");
	/* the asked path with something after it, and a prefix of it */
	piece(&s, "/var/log/ok/x", 4, 0, "evil", 4);
	piece(&s, "/var/log", 4, 0, "evil", 4);
	piece(&s, "/var/log/ok", 2, 0, "ok", 2);
	/* after it is stored: too late, the copy stays */
	piece(&s, "/var/log/ok", 4, 0, "evil", 4);
	files = guest_files_store(s.buf, s.len, &asked, dir, &st);
	assert_contents(dir, "/var/log/ok", "ok", 2);
	assert_int_equal(st.records, 13);
	assert_int_equal(st.ignored, 11);
	assert_int_equal(st.late, 1);
	list = list_files(root);
	assert_string_equal(list, "/boot/files/var/log/ok\n");
	assert_false(path_exists("/tmp/mmlab-evil"));
	free(list);
	json_decref(files);
	free(s.buf);
	strlist_free(&asked);
	rm_rf(root);
	free(dir);
	free(root);
}

/* an asked path that is not clean is never used, whatever the guest sends */
static void test_unclean_asked(void **state)
{
	struct strlist asked = { 0 };
	struct stream s = { 0 };
	char *root = tmpdir(), *dir = xasprintf("%s/boot", root), *list;
	json_t *files;

	(void)state;
	strlist_push(&asked, "/x/../../../y");
	strlist_push(&asked, "/x/./y");
	strlist_push(&asked, "relative");
	strlist_push(&asked, "/twice");
	strlist_push(&asked, "/twice");
	piece(&s, "/x/../../../y", 4, 0, "evil", 4);
	piece(&s, "/x/./y", 4, 0, "evil", 4);
	piece(&s, "relative", 4, 0, "evil", 4);
	piece(&s, "/twice", 4, 0, "good", 4);
	files = guest_files_store(s.buf, s.len, &asked, dir, NULL);
	assert_non_null(strstr(error_of(files, "/x/../../../y"), "not a usable path"));
	assert_non_null(strstr(error_of(files, "/x/./y"), "not a usable path"));
	assert_non_null(strstr(error_of(files, "relative"), "not a usable path"));
	assert_non_null(
		strstr(json_string_value(json_object_get(json_array_get(files, 4), "error")),
		       "listed twice"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(files, 3), "stored")),
			    "files/twice");
	list = list_files(root);
	assert_string_equal(list, "/boot/files/twice\n");
	free(list);
	json_decref(files);
	free(s.buf);
	strlist_free(&asked);
	rm_rf(root);
	free(dir);
	free(root);
}

/* sizes and offsets that do not add up: the file is refused and removed */
static void test_lies(void **state)
{
	static const char *const paths[] = { "/more", "/resize", "/gap",    "/start",
					     "/huge", "/inc",	 "/nosize", "/errafter" };
	struct strlist asked = { 0 };
	struct stream s = { 0 };
	char *root = tmpdir(), *dir = xasprintf("%s/boot", root), *list;
	json_t *files;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++)
		strlist_push(&asked, paths[i]);
	piece(&s, "/more", 4, 0, "0123456789", 10);
	piece(&s, "/resize", 10, 0, "01234", 5);
	piece(&s, "/resize", 20, 5, "56789", 5);
	piece(&s, "/gap", 10, 0, "01234", 5);
	piece(&s, "/gap", 10, 7, "789", 3);
	piece(&s, "/start", 10, 5, "56789", 5);
	piece(&s, "/huge", 1ULL << 60, 0, "x", 1);
	piece(&s, "/inc", 10, 0, "01234", 5);
	raw(&s, "path=/nosize offset=0", "x");
	piece(&s, "/errafter", 10, 0, "01234", 5);
	raw(&s, "path=/errafter error=changed", NULL);
	files = guest_files_store(s.buf, s.len, &asked, dir, NULL);
	assert_non_null(strstr(error_of(files, "/more"), "more of it than the 4 bytes"));
	assert_non_null(strstr(error_of(files, "/resize"), "two sizes"));
	assert_non_null(strstr(error_of(files, "/gap"), "at byte 7 where 5 was next"));
	assert_non_null(strstr(error_of(files, "/start"), "starts at byte 5"));
	assert_non_null(strstr(error_of(files, "/huge"), "impossible size"));
	assert_string_equal(error_of(files, "/inc"), "incomplete: 5 of its 10 bytes arrived");
	assert_non_null(strstr(error_of(files, "/nosize"), "without a size"));
	assert_string_equal(error_of(files, "/errafter"), "changed while the guest read it");
	list = list_files(root);
	assert_string_equal(list, "");
	free(list);
	json_decref(files);
	free(s.buf);
	strlist_free(&asked);
	rm_rf(root);
	free(dir);
	free(root);
}

/* larger than MMFILE_MAX: its first MMFILE_MAX bytes, said so */
static void test_truncated(void **state)
{
	struct strlist asked = { 0 };
	struct stream s = { 0 };
	unsigned long long size = MMFILE_MAX + 100ULL, off = 0;
	char *root = tmpdir(), *dir = xasprintf("%s/boot", root), *chunk = xmalloc(MMFILE_CHUNK);
	char *p;
	json_t *files, *f;
	struct stat st;

	(void)state;
	strlist_push(&asked, "/big");
	memset(chunk, 'b', MMFILE_CHUNK);
	/* pieces of 1 MiB, the last crossing the bound, then one beyond it */
	while (off < MMFILE_MAX) {
		size_t n = off + MMFILE_CHUNK > MMFILE_MAX ? MMFILE_CHUNK : MMFILE_CHUNK - 1;

		piece(&s, "/big", size, off, chunk, n);
		off += n;
	}
	piece(&s, "/big", size, off, chunk, 10);
	files = guest_files_store(s.buf, s.len, &asked, dir, NULL);
	f = json_array_get(files, 0);
	assert_null(json_object_get(f, "error"));
	assert_int_equal(json_integer_value(json_object_get(f, "size")), (json_int_t)size);
	assert_int_equal(json_integer_value(json_object_get(f, "stored_size")), MMFILE_MAX);
	assert_true(json_is_true(json_object_get(f, "truncated")));
	p = xasprintf("%s/files/big", dir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, MMFILE_MAX);
	free(p);
	json_decref(files);
	free(s.buf);
	free(chunk);
	strlist_free(&asked);
	rm_rf(root);
	free(dir);
	free(root);
}

/* what the iteration keeps: the stream without its FILE records, garbage and all */
static void test_drop_files(void **state)
{
	struct stream s = { 0 }, want = { 0 };
	char *root = tmpdir(), *out = xasprintf("%s/agent.bin", root), *got;
	size_t len;

	(void)state;
	put_rec(&s, MMREC_HELLO, "agent=1", NULL, 0);
	put_rec(&want, MMREC_HELLO, "agent=1", NULL, 0);
	piece(&s, "/x", 3, 0, "abc", 3);
	s.buf = xrealloc(s.buf, s.len + 5);
	memcpy(s.buf + s.len, "junk!", 5);
	s.len += 5;
	want.buf = xrealloc(want.buf, want.len + 5);
	memcpy(want.buf + want.len, "junk!", 5);
	want.len += 5;
	/* a file read back after an iteration (iter=) is no collected file: kept */
	put_rec(&s, MMREC_FILE, "iter=0 index=0 size=3 cut=0", "abc", 3);
	put_rec(&want, MMREC_FILE, "iter=0 index=0 size=3 cut=0", "abc", 3);
	put_rec(&s, MMREC_DONE, "iterations=1", NULL, 0);
	put_rec(&want, MMREC_DONE, "iterations=1", NULL, 0);
	piece(&s, "/y", 0, 0, NULL, 0);
	assert_int_equal(guest_stream_drop_files(s.buf, s.len, out), 0);
	got = read_file(out, &len, 1 << 20);
	assert_non_null(got);
	assert_int_equal(len, want.len);
	assert_memory_equal(got, want.buf, len);
	free(got);
	free(s.buf);
	free(want.buf);
	rm_rf(root);
	free(out);
	free(root);
}

/*
 * One walk with the stream's parser and the files' handler (what run/boot.c
 * does): the files stored, the stream kept without its FILE records only
 * when it has some, and the parser sees every record once.
 */
static void test_one_walk(void **state)
{
	struct stream s = { 0 }, want = { 0 };
	char *root = tmpdir(), *kept = xasprintf("%s/kept.bin", root), *got;
	struct strlist asked = { 0 };
	struct guest_files_stats st;
	struct mmrec_reader rd;
	size_t len;
	int k;

	(void)state;
	strlist_push(&asked, "/x");
	put_rec(&s, MMREC_HELLO, "agent=1", NULL, 0);
	put_rec(&want, MMREC_HELLO, "agent=1", NULL, 0);
	piece(&s, "/x", 3, 0, "abc", 3);
	put_rec(&s, MMREC_DONE, "iterations=0", NULL, 0);
	put_rec(&want, MMREC_DONE, "iterations=0", NULL, 0);
	for (int pass = 0; pass < 2; pass++) {
		struct guest_stream_parser *sp = guest_stream_begin("usemem");
		struct guest_files *gf =
			guest_files_begin(pass ? want.buf : s.buf, &asked, root, kept);
		const struct guest_record_handler h[] = { { guest_stream_record, sp },
							  { guest_files_record, gf } };
		const struct stream *in = pass ? &want : &s;
		struct guest_file_list l;
		struct guest_report *gs;
		json_t *files, *root_j, *fr;

		unlink(kept);
		guest_records_walk(in->buf, in->len, h, 2, &rd);
		guest_files_end(gf, in->len, &st, &k, &l);
		guest_stream_file_records(sp, &st);
		gs = guest_stream_end(sp, &rd);
		/* the typed counts, and the same as iteration.json's "stream" holds them */
		assert_int_equal(gs->counts.files.records, pass ? 0 : 1);
		root_j = guest_stream_to_json(gs);
		guest_stream_free(gs);
		files = guest_file_list_json(&l);
		assert_int_equal(l.n, 1);
		assert_string_equal(l.v[0].path, "/x");
		assert_int_equal(l.v[0].stored, !pass);
		guest_file_list_free(&l);
		assert_int_equal(json_integer_value(json_object_get(
					 json_object_get(root_j, "stream"), "records")),
				 pass ? 2 : 3);
		/* the stream's count of them, only when it had some */
		fr = json_object_get(json_object_get(root_j, "stream"), "file_records");
		if (pass) {
			assert_null(fr);
		} else {
			json_t *want_fr =
				json_pack("{s:i, s:i, s:i}", "total", 1, "ignored", 0, "late", 0);

			assert_true(json_equal(fr, want_fr));
			json_decref(want_fr);
		}
		assert_true(json_is_true(json_object_get(root_j, "done")));
		assert_int_equal(st.records, pass ? 0 : 1);
		assert_int_equal(k, pass ? 0 : 1);
		assert_int_equal(access(kept, F_OK) == 0, !pass);
		if (!pass) {
			assert_contents(root, "/x", "abc", 3);
			got = read_file(kept, &len, 1 << 20);
			assert_non_null(got);
			assert_int_equal(len, want.len);
			assert_memory_equal(got, want.buf, len);
			free(got);
		} else {
			assert_string_equal(
				error_of(files, "/x"),
				"the guest sent nothing for it (the agent sends files "
				"after its last iteration: did the guest get there? see "
				"console.log)");
		}
		json_decref(files);
		json_decref(root_j);
	}
	strlist_free(&asked);
	free(s.buf);
	free(want.buf);
	rm_rf(root);
	free(kept);
	free(root);
}

/* the iteration's "files" from the typed list, each of its three forms */
static void test_list_json(void **state)
{
	struct guest_file v[3] = {
		{ .path = "/a", .stored = true, .size = 10, .stored_size = 10 },
		{ .path = "/big", .stored = true, .size = 1ULL << 40, .stored_size = MMFILE_MAX },
		{ .path = "/gone", .error = "not in the guest" },
	};
	struct guest_file_list l = { v, 3 }, none = { NULL, 0 };
	json_t *got = guest_file_list_json(&l), *want;

	(void)state;
	want = json_pack("[{s:s, s:i, s:s}, {s:s, s:I, s:s, s:I, s:b}, {s:s, s:s}]", "path", "/a",
			 "size", 10, "stored", "files/a", "path", "/big", "size",
			 (json_int_t)(1ULL << 40), "stored", "files/big", "stored_size",
			 (json_int_t)MMFILE_MAX, "truncated", 1, "path", "/gone", "error",
			 "not in the guest");
	assert_non_null(want);
	assert_true(json_equal(got, want));
	json_decref(got);
	json_decref(want);
	got = guest_file_list_json(&none);
	assert_true(json_is_array(got) && json_array_size(got) == 0);
	json_decref(got);
}

static void test_path_codec(void **state)
{
	static const char *const paths[] = { "/var/log/x.log", "/a b/c%d", "/é/\t/=x y",
					     "/~user/a,b:c@d+e-f_g" };
	char enc[MMPATH_ENC_MAX + 1], dec[MMPATH_MAX + 1];
	char *longp = xmalloc(MMPATH_MAX + 2);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		assert_int_equal(mmpath_encode(paths[i], enc, sizeof(enc)), 0);
		assert_null(strpbrk(enc, " =\n\t"));
		assert_int_equal(mmpath_decode(enc, dec, sizeof(dec)), 0);
		assert_string_equal(dec, paths[i]);
	}
	assert_int_equal(mmpath_encode("/a b", enc, sizeof(enc)), 0);
	assert_string_equal(enc, "/a%20b");
	assert_int_equal(mmpath_encode("/a b", enc, 7), 0);
	assert_int_equal(mmpath_encode("/a b", enc, 6), -1);
	assert_int_equal(mmpath_decode("%2fetc%2Fx", dec, sizeof(dec)), 0);
	assert_string_equal(dec, "/etc/x");
	assert_int_equal(mmpath_decode("/a%00b", dec, sizeof(dec)), -1);
	assert_int_equal(mmpath_decode("/a%4", dec, sizeof(dec)), -1);
	assert_int_equal(mmpath_decode("/a%", dec, sizeof(dec)), -1);
	assert_int_equal(mmpath_decode("/a%G1", dec, sizeof(dec)), -1);
	assert_int_equal(mmpath_decode("/abc", dec, 4), -1);
	assert_int_equal(mmpath_decode("/abc", dec, 5), 0);
	assert_int_equal(mmpath_decode("", dec, 0), -1);

	assert_true(mmpath_ok("/var/log/x.log"));
	assert_true(mmpath_ok("/a..b/.c/d."));
	assert_true(mmpath_ok("/é"));
	assert_false(mmpath_ok("/"));
	assert_false(mmpath_ok("var/log"));
	assert_false(mmpath_ok("/var/../etc"));
	assert_false(mmpath_ok("/var/.."));
	assert_false(mmpath_ok("/var/./x"));
	assert_false(mmpath_ok("/var//x"));
	assert_false(mmpath_ok("/var/x/"));
	assert_false(mmpath_ok("/var/x\ny"));
	memset(longp, 'a', MMPATH_MAX + 1);
	longp[0] = '/';
	longp[MMPATH_MAX] = '\0';
	assert_true(mmpath_ok(longp));
	longp[MMPATH_MAX] = 'a';
	longp[MMPATH_MAX + 1] = '\0';
	assert_false(mmpath_ok(longp));
	free(longp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_honest),	      cmocka_unit_test(test_not_asked),
		cmocka_unit_test(test_unclean_asked), cmocka_unit_test(test_lies),
		cmocka_unit_test(test_truncated),     cmocka_unit_test(test_drop_files),
		cmocka_unit_test(test_path_codec),    cmocka_unit_test(test_one_walk),
		cmocka_unit_test(test_list_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
