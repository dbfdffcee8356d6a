// SPDX-License-Identifier: GPL-2.0
/*
 * topo_layout.c - the guest-physical layout of a topology and its memmap=
 * arguments (topo_layout.h).
 */
#include <stdio.h>
#include <string.h>

#include "topo/topo_layout.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define GIB (1ULL << 30)
#define PAD_ROUNDS 8

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

static uint64_t align_down(uint64_t v, uint64_t a)
{
	return v / a * a;
}

/* QEMU 7.2's pc-i440fx: all RAM below 4 GiB up to 3.5 GiB, else 3 GiB of it */
static uint64_t below_4g_of(uint64_t total)
{
	if (total >= 0xe0000000ULL)
		return 0xc0000000ULL;
	return total;
}

static void add_range(struct topo_layout *l, uint64_t start, uint64_t len, unsigned int type,
		      unsigned int node)
{
	if (!len || l->nr >= TOPO_MAX_RANGES)
		return;
	l->r[l->nr++] = (struct topo_range){ start, len, type, node };
}

/*
 * The physical pieces of RAM offsets [off, off + len): one, or two when
 * they straddle below_4g. Returns the number of pieces.
 */
static unsigned int pieces(const struct topo_layout *l, uint64_t off, uint64_t len,
			   uint64_t start[2], uint64_t end[2])
{
	uint64_t b = l->below_4g, e = off + len;

	if (e <= b) {
		start[0] = off, end[0] = e;
		return 1;
	}
	if (off >= b) {
		start[0] = 4 * GIB + off - b, end[0] = 4 * GIB + e - b;
		return 1;
	}
	start[0] = off, end[0] = b;
	start[1] = 4 * GIB, end[1] = 4 * GIB + e - b;
	return 2;
}

/* whole memory blocks of [s, e); the BIOS's bytes below 4 GiB are not RAM */
static void usable_blocks(const struct topo_layout *l, uint64_t s, uint64_t e, uint64_t *bs,
			  uint64_t *be)
{
	if (e == l->below_4g && e < 4 * GIB)
		e -= TOPO_BIOS_RESERVED;
	*bs = align_up(s, TOPO_BLOCK);
	*be = align_down(e, TOPO_BLOCK);
	if (*be < *bs)
		*be = *bs;
}

/*
 * Ranges of a kmem node: soft reserved whole blocks up to want bytes, the
 * rest of its cell reserved. Returns the bytes it could soft-reserve.
 */
static uint64_t lay_kmem(struct topo_layout *l, unsigned int node, uint64_t off, uint64_t want)
{
	uint64_t s[2], e[2], got = 0;
	unsigned int n = pieces(l, off, l->cell_bytes[node], s, e);

	for (unsigned int i = 0; i < n; i++) {
		uint64_t bs, be, take;

		usable_blocks(l, s[i], e[i], &bs, &be);
		take = be - bs < want - got ? be - bs : want - got;
		add_range(l, s[i], bs - s[i], TOPO_E820_RESERVED, node);
		add_range(l, bs, take, TOPO_E820_SOFT_RESERVED, node);
		add_range(l, bs + take, e[i] - bs - take, TOPO_E820_RESERVED, node);
		got += take;
	}
	return got;
}

static void lay_reserved(struct topo_layout *l, unsigned int node, uint64_t off)
{
	uint64_t s[2], e[2];
	unsigned int n = pieces(l, off, l->cell_bytes[node], s, e);

	for (unsigned int i = 0; i < n; i++)
		add_range(l, s[i], e[i] - s[i], TOPO_E820_RESERVED, node);
}

/* one pass with the current pads; true when every kmem node got its memory */
static bool lay_once(const struct job_topology *t, struct topo_layout *l, const uint64_t *pad)
{
	uint64_t off = 0;
	bool settled = true;

	l->total = 0;
	l->nr = 0;
	for (unsigned int i = 0; i < t->nnodes; i++) {
		const struct job_node *n = &t->nodes[i];

		l->cell_bytes[i] = n->memory_kib ? (n->memory_kib << 10) + pad[i] : TOPO_BLOCK;
		l->total += l->cell_bytes[i];
	}
	l->below_4g = below_4g_of(l->total);
	for (unsigned int i = 0; i < t->nnodes; i++) {
		const struct job_node *n = &t->nodes[i];

		if (!n->memory_kib)
			lay_reserved(l, i, off);
		else if (n->kmem && lay_kmem(l, i, off, n->memory_kib << 10) < n->memory_kib << 10)
			settled = false;
		off += l->cell_bytes[i];
	}
	return settled;
}

int topo_layout(const struct job_topology *t, struct topo_layout *l, unsigned int *bad, char *why,
		size_t whylen)
{
	uint64_t pad[JOB_MAX_NODES] = { 0 };

	memset(l, 0, sizeof(*l));
	for (unsigned int i = 0; i < t->nnodes; i++) {
		if (t->nodes[i].kmem && (t->nodes[i].memory_kib << 10) % TOPO_BLOCK) {
			*bad = i;
			snprintf(
				why, whylen,
				"a kmem node's memory must be a whole number of 128M memory blocks (kmem onlines whole blocks)");
			return -1;
		}
	}
	for (int round = 0; round < PAD_ROUNDS; round++) {
		if (lay_once(t, l, pad))
			return 0;
		/* a kmem node short of blocks gets one more (reserved) block */
		for (unsigned int i = 0; i < t->nnodes; i++) {
			uint64_t soft = 0;

			if (!t->nodes[i].kmem)
				continue;
			for (unsigned int k = 0; k < l->nr; k++)
				if (l->r[k].node == i && l->r[k].type == TOPO_E820_SOFT_RESERVED)
					soft += l->r[k].len;
			if (soft < t->nodes[i].memory_kib << 10)
				pad[i] += TOPO_BLOCK;
		}
	}
	*bad = 0;
	snprintf(why, whylen, "the guest's memory layout does not settle; this is a bug");
	return -1;
}

char *topo_kernel_args(const struct topo_layout *l)
{
	struct strbuf sb = STRBUF_INIT;

	if (!l->nr)
		return NULL;
	strbuf_addstr(&sb, "nokaslr");
	for (unsigned int i = 0; i < l->nr; i++)
		strbuf_addf(&sb, " memmap=%lluM%%0x%llx-1+0x%x",
			    (unsigned long long)(l->r[i].len >> 20),
			    (unsigned long long)l->r[i].start, l->r[i].type);
	return strbuf_detach(&sb);
}
