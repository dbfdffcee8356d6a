/* SPDX-License-Identifier: GPL-2.0 */
/*
 * walk.h - the stream targets' one walk over the agent's records, as
 * run/boot.c walks a boot's stream: the iterations (guest/stream.c), a
 * command workload's outputs and read-back files (guest/outputs.c) and
 * the collected files (guest/files.c, none asked: every FILE record is
 * decoded, counted and ignored, nothing is written) see every record.
 * The typed result is walked as run/record.c reads it (each iteration
 * found by its index, its snapshots' lengths), converted to what
 * iteration.json stores and must always encode as JSON; then all of it
 * is freed (a leak is a finding).
 */
#ifndef MMLAB_FUZZ_WALK_H
#define MMLAB_FUZZ_WALK_H

#include <jansson.h>

#include "fuzz.h"
#include "guest/files.h"
#include "guest/outputs.h"
#include "guest/records.h"
#include "guest/stream.h"

static inline void fuzz_walk(const void *buf, size_t len)
{
	struct guest_stream_parser *sp = guest_stream_begin("usemem");
	struct guest_files *gf = guest_files_begin(buf, NULL, NULL, NULL);
	struct guest_outputs o;
	struct guest_file_list files;
	struct guest_files_stats st;
	struct mmrec_reader rd;
	const struct guest_record_handler h[] = { { guest_stream_record, sp },
						  { guest_outputs_record, &o },
						  { guest_files_record, gf } };
	struct guest_report *gs;
	json_t *j;
	char *s;

	guest_outputs_init(&o);
	guest_records_walk(buf, len, h, 3, &rd);
	guest_files_end(gf, len, &st, NULL, &files);
	guest_stream_file_records(sp, &st);
	gs = guest_stream_end(sp, &rd);
	for (size_t i = 0; i < gs->nits; i++) {
		const struct guest_iteration *it = &gs->its[i];
		json_t *m = guest_metrics_json(it), *ts = guest_timeseries_json(&it->ts);

		/* sorted by index, each found; ok only with all it needs; one metric a name */
		if (guest_stream_find(gs, it->index) != it ||
		    (it->ok && (!it->ended || it->reason || !it->has_result || !it->nbefore ||
				!it->nafter)) ||
		    (!it->ended && (it->ok || !it->reason)) || json_object_size(m) != it->nmetrics)
			abort();
		for (size_t k = 0; k < it->nbefore; k++)
			if (strlen(it->before[k].text) != it->before[k].len)
				abort();
		for (size_t k = 0; k < it->nafter; k++)
			if (strlen(it->after[k].text) != it->after[k].len)
				abort();
		json_decref(m);
		json_decref(ts);
	}
	if (gs->nlog > GUEST_STREAM_MAX_LOG + 1 || gs->nnodes > GUEST_STREAM_MAX_NODES)
		abort();
	j = guest_stream_to_json(gs);
	s = json_dumps(j, JSON_COMPACT);
	if (!s || files.n)
		abort(); /* what the store writes must be JSON; nothing was asked */
	free(s);
	guest_stream_free(gs);
	guest_file_list_free(&files);
	json_decref(j);
	guest_outputs_free(&o);
}

#endif
