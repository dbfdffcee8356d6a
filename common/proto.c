// SPDX-License-Identifier: GPL-2.0
/*
 * proto.c - encoder and untrusted-stream decoder for the agent's records
 * (format in proto.h). Built into both the static guest agent and the host,
 * so it depends on libc and zlib only.
 */
#include <string.h>
#include <zlib.h>

#include "proto.h"

static const char *const type_names[] = {
	[MMREC_HELLO] = "HELLO",
	[MMREC_NODES] = "NODES",
	[MMREC_ITER_BEGIN] = "ITER_BEGIN",
	[MMREC_SNAPSHOT] = "SNAPSHOT",
	[MMREC_WL_OUTPUT] = "WL_OUTPUT",
	[MMREC_RESULT] = "RESULT",
	[MMREC_ITER_END] = "ITER_END",
	[MMREC_LOG] = "LOG",
	[MMREC_DONE] = "DONE",
	[MMREC_SETUP_ERROR] = "SETUP_ERROR",
	[MMREC_COUNTS] = "COUNTS",
	[MMREC_SERIES] = "SERIES",
	[MMREC_FILE] = "FILE",
	[MMREC_TIERS] = "TIERS",
};

const char *mmrec_type_name(unsigned int type)
{
	if (type == 0 || type > MMREC_TYPE_MAX || !type_names[type])
		return "UNKNOWN";
	return type_names[type];
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static uint16_t get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)get_le16(p) | ((uint32_t)get_le16(p + 2) << 16);
}

/* crc32 of the 16-byte header (with its crc field zeroed) then the payload */
static uint32_t record_crc(const uint8_t *hdr, const void *payload, uint32_t len)
{
	uint8_t h[MMREC_HDR_SIZE];
	uLong crc;

	memcpy(h, hdr, sizeof(h));
	put_le32(h + 12, 0);
	crc = crc32(0L, Z_NULL, 0);
	crc = crc32(crc, h, sizeof(h));
	if (len)
		crc = crc32(crc, payload, len);
	return (uint32_t)crc;
}

size_t mmrec_encode(void *out, unsigned int type, const void *payload, uint32_t len)
{
	uint8_t *p = out;

	put_le32(p, MMREC_MAGIC);
	put_le16(p + 4, (uint16_t)type);
	put_le16(p + 6, MMREC_VERSION);
	put_le32(p + 8, len);
	put_le32(p + 12, 0);
	if (len)
		memcpy(p + MMREC_HDR_SIZE, payload, len);
	put_le32(p + 12, record_crc(p, p + MMREC_HDR_SIZE, len));
	return MMREC_HDR_SIZE + (size_t)len;
}

void mmrec_reader_init(struct mmrec_reader *r, const void *buf, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->buf = buf;
	r->len = buf ? len : 0;
	r->crc_budget = MMREC_CRC_BUDGET(r->len);
}

/* advance to the next possible magic at or after pos, counting skipped bytes */
static void resync(struct mmrec_reader *r, size_t from)
{
	static const uint8_t magic[4] = { 'M', 'M', 'L', 'R' };
	const uint8_t *m = NULL;
	size_t next;

	if (from < r->len)
		m = memmem(r->buf + from, r->len - from, magic, sizeof(magic));
	next = m ? (size_t)(m - r->buf) : r->len;
	r->skipped_bytes += next - r->pos;
	r->pos = next;
}

/* 1: a valid record at r->pos; 0: not one (counted), caller resyncs */
static int check_record(struct mmrec_reader *r, uint32_t *len)
{
	const uint8_t *p = r->buf + r->pos;
	size_t avail = r->len - r->pos;
	uint16_t type, version;

	if (avail < MMREC_HDR_SIZE) {
		r->truncated++;
		return 0;
	}
	*len = get_le32(p + 8);
	if (*len > MMREC_MAX_PAYLOAD) {
		r->oversized++;
		return 0;
	}
	if (avail - MMREC_HDR_SIZE < *len) {
		r->truncated++;
		return 0;
	}
	type = get_le16(p + 4);
	version = get_le16(p + 6);
	if (type == 0 || type > MMREC_TYPE_MAX || version != MMREC_VERSION) {
		r->bad_type++;
		return 0;
	}
	if (MMREC_HDR_SIZE + (size_t)*len > r->crc_budget) {
		r->crc_budget_spent = 1;
		return 0;
	}
	r->crc_budget -= MMREC_HDR_SIZE + (size_t)*len;
	if (record_crc(p, p + MMREC_HDR_SIZE, *len) != get_le32(p + 12)) {
		r->bad_crc++;
		return 0;
	}
	return 1;
}

int mmrec_next(struct mmrec_reader *r, unsigned int *type, const char **payload, uint32_t *len)
{
	uint32_t n = 0;

	for (;;) {
		resync(r, r->pos);
		if (r->pos >= r->len)
			return 0;
		if (check_record(r, &n)) {
			*type = get_le16(r->buf + r->pos + 4);
			*payload = (const char *)r->buf + r->pos + MMREC_HDR_SIZE;
			*len = n;
			r->pos += MMREC_HDR_SIZE + (size_t)n;
			return 1;
		}
		if (r->crc_budget_spent) {
			/* hostile: give up, the rest counts as skipped */
			r->stopped_at = r->pos;
			r->skipped_bytes += r->len - r->pos;
			r->pos = r->len;
			return 0;
		}
		/* not a record after all: skip this magic and look further */
		resync(r, r->pos + 1);
	}
}

static uint32_t header_len(const char *payload, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (payload[i] == '\n' || payload[i] == '\0')
			break;
	return i;
}

int mmrec_hdr_get(const char *payload, uint32_t len, const char *key, char *out, size_t outlen)
{
	uint32_t hl = header_len(payload, len);
	size_t kl = strlen(key);
	uint32_t i = 0;

	while (i < hl) {
		uint32_t start = i, vstart, vend;

		while (i < hl && payload[i] != ' ')
			i++;
		/* token is payload[start, i) */
		if (i - start > kl && !memcmp(payload + start, key, kl) &&
		    payload[start + kl] == '=') {
			vstart = start + (uint32_t)kl + 1;
			vend = i;
			if ((size_t)(vend - vstart) + 1 > outlen)
				return -1;
			memcpy(out, payload + vstart, vend - vstart);
			out[vend - vstart] = '\0';
			return 0;
		}
		while (i < hl && payload[i] == ' ')
			i++;
	}
	return -1;
}

int mmrec_file_iter(const char *payload, uint32_t len)
{
	uint32_t hl = header_len(payload, len);

	/* "iter=" as a key: at the start of the header or after a space */
	for (uint32_t i = 0; i + 5 <= hl; i++)
		if ((i == 0 || payload[i - 1] == ' ') && !memcmp(payload + i, "iter=", 5))
			return 1;
	return 0;
}

const char *mmrec_body(const char *payload, uint32_t len, uint32_t *body_len)
{
	const char *nl = len ? memchr(payload, '\n', len) : NULL;

	if (!nl) {
		*body_len = 0;
		return payload + len;
	}
	*body_len = len - (uint32_t)(nl + 1 - payload);
	return nl + 1;
}

static int path_byte_plain(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("/._+,:@~-", c));
}

int mmpath_encode(const char *in, char *out, size_t outlen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
		if (path_byte_plain(*p)) {
			if (o + 1 >= outlen)
				return -1;
			out[o++] = (char)*p;
			continue;
		}
		if (o + 3 >= outlen)
			return -1;
		out[o++] = '%';
		out[o++] = hex[*p >> 4];
		out[o++] = hex[*p & 15];
	}
	if (o >= outlen)
		return -1;
	out[o] = '\0';
	return 0;
}

static int hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int mmpath_decode(const char *in, char *out, size_t outlen)
{
	size_t o = 0;

	for (const char *p = in; *p; p++) {
		int c = (unsigned char)*p;

		if (c == '%') {
			int hi = hex_val(p[1]), lo = hi < 0 ? -1 : hex_val(p[2]);

			if (lo < 0)
				return -1;
			c = hi << 4 | lo;
			if (!c)
				return -1;
			p += 2;
		}
		if (o + 1 >= outlen)
			return -1;
		out[o++] = (char)c;
	}
	if (!outlen)
		return -1;
	out[o] = '\0';
	return 0;
}

int mmpath_ok(const char *path)
{
	size_t n = strlen(path);

	if (n < 2 || n > MMPATH_MAX || path[0] != '/')
		return 0;
	for (const char *s = path; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	for (const char *c = path + 1; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL) {
		size_t len = strcspn(c, "/");

		if (!len || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
	}
	return 1;
}
