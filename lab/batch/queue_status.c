// SPDX-License-Identifier: GPL-2.0
/*
 * queue_status.c - struct queue_status (see queue_status.h).
 */
#include <stdlib.h>
#include <string.h>

#include "batch/queue_status.h"

long long qs_count_of(const struct qs_count *counts, size_t n, const char *state)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(counts[i].state, state))
			return counts[i].n;
	return 0;
}

static void free_counts(struct qs_count *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(c[i].state);
	free(c);
}

static void free_pairs(struct qs_pair *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].key);
		free(p[i].value);
	}
	free(p);
}

void queue_status_job_release(struct queue_status_job *j)
{
	for (size_t i = 0; i < j->nitems; i++) {
		struct queue_status_item *it = &j->items[i];

		free(it->variant);
		free(it->state);
		free(it->request);
		free(it->error);
		json_decref(it->placement);
	}
	free(j->items);
	free(j->run);
	free_counts(j->counts, j->ncounts);
	free_counts(j->builds, j->nbuilds);
	free(j->slurm.array);
	free(j->slurm.finish);
	free_pairs(j->slurm.builds, j->slurm.nbuilds);
	free_pairs(j->slurm.states, j->slurm.nstates);
	memset(j, 0, sizeof(*j));
}

void queue_status_release(struct queue_status *st)
{
	for (size_t i = 0; i < st->njobs; i++)
		queue_status_job_release(&st->jobs[i]);
	free(st->jobs);
	memset(st, 0, sizeof(*st));
}

const char *qs_pair_get(const struct qs_pair *pairs, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(pairs[i].key, key))
			return pairs[i].value;
	return NULL;
}
