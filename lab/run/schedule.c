// SPDX-License-Identifier: GPL-2.0
/*
 * schedule.c - the boots of a run and their order (docs/mmlab.md, "run"):
 * each variant's iterations cut into boots of iterations_per_boot, run
 * variant by variant or interleaved in a seeded random order that run.json
 * records ("order"), plus the rounds --until-significant adds, the queue's
 * boot plan ("boots"), and the observer check's twin variants.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/order.h"
#include "lib/util.h"
#include "run/run.h"

/*
 * The observer check: every variant gets a twin "<name>.nocollect" that
 * boots the same kernel with the same settings but counts no tracepoint;
 * the run summary compares their workload times.
 */
void run_add_observer_twins(struct job *job)
{
	size_t n = job->nvariants;

	job->variants = xrealloc(job->variants, 2 * n * sizeof(*job->variants));
	for (size_t i = 0; i < n; i++) {
		struct job_variant *t = &job->variants[n + i];

		variant_dup(t, &job->variants[i]);
		free(t->name);
		t->name = xasprintf("%s.nocollect", job->variants[i].name);
		t->no_tracepoints = true;
	}
	job->nvariants = 2 * n;
}

static bool sequential(const struct run *r)
{
	return r->rec.order.mode == RUN_ORDER_SEQUENTIAL;
}

static void shuffle_boots(struct boot *boots, size_t n, unsigned long seed)
{
	size_t *perm = xcalloc(n ? n : 1, sizeof(*perm));
	struct boot *copy = xcalloc(n ? n : 1, sizeof(*copy));

	order_permute(perm, n, seed);
	for (size_t i = 0; i < n; i++)
		copy[i] = boots[perm[i]];
	memcpy(boots, copy, n * sizeof(*boots));
	free(copy);
	free(perm);
}

/* stable reorder by variant */
static void sort_by_variant(struct run *r)
{
	struct boot *s = xcalloc(r->nboots ? r->nboots : 1, sizeof(*s));
	size_t k = 0;

	for (size_t v = 0; v < r->job->nvariants; v++)
		for (size_t i = 0; i < r->nboots; i++)
			if (r->boots[i].variant == v)
				s[k++] = r->boots[i];
	free(r->boots);
	r->boots = s;
}

void run_plan_boots(struct run *r)
{
	const struct job *job = r->job;
	unsigned int per = job->iterations_per_boot ? job->iterations_per_boot : 1;
	size_t n = 0;

	r->boots = xcalloc(job->nvariants * (job->iterations / per + 1), sizeof(*r->boots));
	/* sequential: variant by variant; interleaved: iteration-major, then shuffled */
	for (unsigned int first = 0; first < job->iterations; first += per) {
		for (size_t v = 0; v < job->nvariants; v++) {
			struct boot *b = &r->boots[n++];

			b->variant = v;
			b->first = first;
			b->count = job->iterations - first < per ? job->iterations - first : per;
		}
	}
	r->nboots = n;
	if (sequential(r))
		sort_by_variant(r);
	else /* Fisher-Yates with GSL's MT19937, seeded and recorded in the run */
		shuffle_boots(r->boots, n, r->rec.order.seed);
}

/* add one boot of one iteration per variant, shuffled with seed + round */
void run_add_round(struct run *r, unsigned int round)
{
	size_t nv = r->job->nvariants, from = r->nboots;

	r->boots = xrealloc(r->boots, (r->nboots + nv) * sizeof(*r->boots));
	for (size_t v = 0; v < nv; v++)
		r->boots[r->nboots++] =
			(struct boot){ .variant = v, .first = r->job->iterations, .count = 1 };
	if (!sequential(r))
		shuffle_boots(r->boots + from, nv, r->rec.order.seed + round);
	r->job->iterations++;
	run_record_order(r, from);
}

/* order.sequence in run.json: the boots in the order they run, "variant/i" or "variant/i..j" */
void run_record_order(struct run *r, size_t from)
{
	struct run_order *o = &r->rec.order;

	if (o->mode == RUN_ORDER_NONE)
		return;
	if (!o->has_sequence)
		o->has_sequence = true;
	else if (!from)
		return; /* resumed: the order it started with stays */
	for (size_t i = from; i < r->nboots; i++) {
		const struct boot *b = &r->boots[i];
		const char *name = r->job->variants[b->variant].name;

		if (b->count > 1)
			strlist_pushf(&o->sequence, "%s/%u..%u", name, b->first,
				      b->first + b->count - 1);
		else
			strlist_pushf(&o->sequence, "%s/%u", name, b->first);
	}
}

/* "boots" in run.json: the queue's plan, with the build each boot waits for */
void run_record_boots(struct run *r)
{
	struct run_record *rec = &r->rec;

	/* a new run's record (runner_create()): it has none yet */
	rec->boots = xcalloc(r->nboots + 1, sizeof(*rec->boots));
	rec->nboots = r->nboots;
	for (size_t i = 0; i < r->nboots; i++) {
		const struct boot *b = &r->boots[i];
		const struct kernel_info *ki = &r->kernels[b->variant];

		rec->boots[i].variant = xstrdup(r->job->variants[b->variant].name);
		rec->boots[i].first = b->first;
		rec->boots[i].count = b->count;
		if (ki->build_pending)
			rec->boots[i].build = xstrdup(ki->request);
	}
}

bool run_boot_done(struct run *r, const struct boot *b)
{
	const char *name = r->job->variants[b->variant].name;

	for (unsigned int i = 0; i < b->count; i++)
		if (!store_iteration_done(r->store, r->id, name, b->first + i))
			return false;
	return true;
}

/* the boot of the queue's plan that runs variant's iterations from first */
int run_find_boot(struct run *r, const char *variant, unsigned int first, struct boot *b)
{
	memset(b, 0, sizeof(*b));
	b->first = first;
	for (b->variant = 0; b->variant < r->job->nvariants; b->variant++)
		if (!strcmp(r->job->variants[b->variant].name, variant))
			break;
	for (size_t i = 0; i < r->rec.nboots; i++)
		if (!strcmp(r->rec.boots[i].variant, variant) && r->rec.boots[i].first == first)
			b->count = r->rec.boots[i].count;
	if (b->variant == r->job->nvariants || !b->count) {
		lab_err("run %s has no boot of variant '%s' at iteration %u; see 'mmlab results "
			"show %s'",
			r->id, variant, first, r->id);
		return -1;
	}
	return 0;
}

/* the boot that runs after boots[i] (run_boot() makes it ready), or NULL */
static const struct boot *next_boot(struct run *r, size_t i)
{
	for (size_t k = i + 1; k < r->nboots; k++) {
		const struct boot *b = &r->boots[k];

		if (!run_boot_done(r, b) && !r->kernels[b->variant].build_failed)
			return b;
	}
	return NULL;
}

/* every boot not stored yet, in run order */
int run_boots(struct run *r)
{
	struct progress pg;
	unsigned int todo = 0;

	for (size_t i = 0; i < r->nboots; i++)
		if (!run_boot_done(r, &r->boots[i]))
			todo += r->boots[i].count;
	progress_init(&pg, todo);
	lab_info("run %s: %u iteration%s to run (%zu variant%s, order %s)", r->id, todo,
		 todo == 1 ? "" : "s", r->job->nvariants, r->job->nvariants == 1 ? "" : "s",
		 r->rec.order.mode == RUN_ORDER_SEQUENTIAL ? "sequential" : "random");
	for (size_t i = 0; i < r->nboots && !run_interrupted() && !r->setup_failed; i++) {
		const struct boot *b = &r->boots[i];

		if (run_boot_done(r, b))
			continue;
		if (r->kernels[b->variant].build_failed) {
			record_build_failed(r, b, &pg);
			continue;
		}
		if (run_boot(r, b, next_boot(r, i), &pg) < 0 && !run_interrupted())
			r->failed_iterations += b->count;
	}
	run_drop_next(r); /* a boot made ready that will not run (interrupted) */
	progress_clear(&pg);
	return run_interrupted() ? -1 : 0;
}
