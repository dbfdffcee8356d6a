// SPDX-License-Identifier: GPL-2.0
/*
 * verdict.c - the typed records of repro: their names, exit statuses and
 * release; see verdict.h.
 */
#include <stdlib.h>
#include <string.h>

#include "repro/verdict.h"

static const char *const verdict_names[] = {
	[REPRO_REPRODUCED] = "REPRODUCED",
	[REPRO_NOT_REPRODUCED] = "NOT REPRODUCED",
	[REPRO_INCONCLUSIVE] = "INCONCLUSIVE",
};

const char *repro_verdict_name(enum repro_verdict v)
{
	return verdict_names[v];
}

int repro_verdict_exit(enum repro_verdict v)
{
	return v == REPRO_REPRODUCED	 ? REPRO_EXIT_REPRODUCED :
	       v == REPRO_NOT_REPRODUCED ? REPRO_EXIT_NOT_REPRODUCED :
					   REPRO_EXIT_INCONCLUSIVE;
}

void repro_cell_release(struct repro_cell *c)
{
	strlist_free(&c->lines);
	free(c->why);
	memset(c, 0, sizeof(*c));
}

void repro_eval_release(struct repro_eval *ev)
{
	for (size_t i = 0; i < ev->nvariants; i++) {
		struct repro_variant *v = &ev->variants[i];

		for (size_t j = 0; j < v->nexpect; j++)
			free(v->expect[j].describe);
		for (size_t j = 0; j < v->nrows; j++) {
			for (size_t k = 0; k < v->rows[j].ncells; k++)
				repro_cell_release(&v->rows[j].cells[k]);
			free(v->rows[j].cells);
			free(v->rows[j].status);
		}
		free(v->expect);
		free(v->rows);
		free(v->name);
		free(v->kernel);
	}
	for (size_t i = 0; i < ev->ncmp; i++) {
		free(ev->cmp[i].variant);
		free(ev->cmp[i].good);
		free(ev->cmp[i].describe);
		free(ev->cmp[i].why);
	}
	free(ev->cmp);
	free(ev->variants);
	free(ev->run);
	strlist_free(&ev->notes);
	memset(ev, 0, sizeof(*ev));
}

void repro_report_release(struct repro_report *rep)
{
	free(rep->run);
	json_decref(rep->recipe);
	free(rep->info.file);
	free(rep->info.bug_id);
	free(rep->info.bug_title);
	free(rep->info.bug_url);
	repro_eval_release(&rep->eval);
	memset(rep, 0, sizeof(*rep));
}

void repro_run_release(struct repro_run *r)
{
	for (size_t i = 0; i < r->nvariants; i++) {
		struct repro_run_variant *v = &r->variants[i];

		for (size_t j = 0; j < v->niters; j++) {
			free(v->iters[j].status);
			json_decref(v->iters[j].metrics);
		}
		free(v->iters);
		free(v->name);
		free(v->kernel);
	}
	free(r->variants);
	free(r->run);
	memset(r, 0, sizeof(*r));
}

void repro_entries_release(struct repro_entries *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].file);
		free(l->v[i].bug);
		free(l->v[i].title);
		free(l->v[i].workload);
		free(l->v[i].why);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}
