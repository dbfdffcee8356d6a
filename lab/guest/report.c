// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - what guest_stream_parse() returns (stream.h): an iteration
 * found by its index, the raw snapshots written to the iteration's
 * directory, and all of it freed.
 */
#include <stdlib.h>
#include <string.h>

#include "guest/stream.h"
#include "lib/util.h"

static void snapshots_free(struct guest_snapshot *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].text);
	}
	free(v);
}

void guest_stream_free(struct guest_report *gs)
{
	if (!gs)
		return;
	for (size_t i = 0; i < gs->nits; i++) {
		struct guest_iteration *g = &gs->its[i];

		for (size_t k = 0; k < g->nmetrics; k++)
			free(g->metrics[k].name);
		free(g->metrics);
		iter_timeseries_release(&g->ts);
		json_decref(g->tiers);
		snapshots_free(g->before, g->nbefore);
		snapshots_free(g->after, g->nafter);
	}
	free(gs->its);
	guest_nodes_free(gs->nodes, gs->nnodes);
	for (size_t i = 0; i < gs->nlog; i++)
		free(gs->log[i].message);
	free(gs->log);
	free(gs);
}

const struct guest_iteration *guest_stream_find(const struct guest_report *gs, unsigned int index)
{
	size_t lo = 0, hi = gs->nits;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (gs->its[mid].index == index)
			return &gs->its[mid];
		if (gs->its[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int save_phase(const struct guest_snapshot *v, size_t n, const char *phase, const char *dir)
{
	char *pdir;
	int ret = 0;

	if (!n)
		return 0;
	pdir = xasprintf("%s/%s", dir, phase);
	if (mkdir_p(pdir, 0755) < 0) {
		free(pdir);
		return -1;
	}
	for (size_t i = 0; i < n && !ret; i++) {
		char *file, *path;

		if (!guest_snapshot_name_ok(v[i].name))
			continue; /* not from guest_stream_parse() */
		file = xstrdup(v[i].name);
		for (char *s = file; *s; s++)
			if (*s == '/')
				*s = '.';
		path = xasprintf("%s/%s", pdir, file);
		if (write_file_atomic(path, v[i].text, v[i].len, 0644) < 0)
			ret = -1;
		free(path);
		free(file);
	}
	free(pdir);
	return ret;
}

int guest_stream_save_snapshots(const struct guest_iteration *it, const char *dir)
{
	if (save_phase(it->before, it->nbefore, "before", dir) < 0 ||
	    save_phase(it->after, it->nafter, "after", dir) < 0)
		return -1;
	return 0;
}
