// SPDX-License-Identifier: GPL-2.0
/*
 * iteration_record.c - what readers ask of a struct iteration_record
 * (iteration_record.h); its JSON is iteration_record_json.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store/iteration_record.h"

bool iteration_ok(const struct iteration_record *rec)
{
	return rec->status && !strcmp(rec->status, "ok");
}

double iteration_metric(const struct iteration_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->nmetrics; i++)
		if (!strcmp(rec->metrics[i].name, name))
			return rec->metrics[i].value;
	return NAN;
}

const struct iter_series *iteration_series(const struct iteration_record *rec, const char *name)
{
	for (size_t i = 0; i < rec->ts.nseries; i++)
		if (!strcmp(rec->ts.series[i].name, name))
			return &rec->ts.series[i];
	return NULL;
}

void iter_timeseries_release(struct iter_timeseries *ts)
{
	for (size_t i = 0; i < ts->nseries; i++) {
		free(ts->series[i].name);
		free(ts->series[i].v);
	}
	free(ts->series);
	memset(ts, 0, sizeof(*ts));
	ts->samples = -1;
}

void iteration_records_free(struct iteration_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		iteration_record_release(&recs[i]);
	free(recs);
}

void iteration_record_release(struct iteration_record *rec)
{
	for (size_t i = 0; i < rec->nmetrics; i++)
		free(rec->metrics[i].name);
	iter_timeseries_release(&rec->ts);
	for (size_t i = 0; i < rec->nnodes; i++)
		free(rec->nodes[i].cpus);
	for (size_t i = 0; i < rec->nphases; i++)
		free(rec->phases[i].name);
	free(rec->metrics);
	free(rec->nodes);
	free(rec->phases);
	free(rec->status);
	free(rec->reason);
	free(rec->kernel_release);
	free(rec->console_excerpt);
	json_decref(rec->rest);
	memset(rec, 0, sizeof(*rec));
	rec->ts.samples = -1;
}
