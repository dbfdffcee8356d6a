// SPDX-License-Identifier: GPL-2.0
/*
 * stream_json.c - a struct guest_report (stream.h) as JSON: the parts
 * iteration.json stores (run/record.c), and the whole stream for the
 * tests and the fuzzers. Only writes; nothing here reads JSON back.
 */
#include "guest/stream.h"

json_t *guest_nodes_json(const struct guest_report *gs)
{
	json_t *a = json_array();

	for (size_t i = 0; i < gs->nnodes; i++) {
		const struct iter_node *n = &gs->nodes[i];

		json_array_append_new(a, json_pack("{s:I, s:s, s:o}", "id", (json_int_t)n->id,
						   "cpus", n->cpus ? n->cpus : "", "memory_kb",
						   n->memory_kb >= 0 ? json_integer(n->memory_kb) :
								       json_null()));
	}
	return a;
}

json_t *guest_metrics_json(const struct guest_iteration *it)
{
	json_t *o = json_object();

	for (size_t i = 0; i < it->nmetrics; i++) {
		const struct iter_metric *m = &it->metrics[i];

		json_object_set_new(o, m->name,
				    m->integer ? json_integer(m->ivalue) : json_real(m->value));
	}
	return o;
}

json_t *guest_timeseries_json(const struct iter_timeseries *ts)
{
	json_t *series = json_object();

	for (size_t i = 0; i < ts->nseries; i++) {
		json_t *a = json_array();

		for (size_t k = 0; k < ts->series[i].n; k++)
			json_array_append_new(a, json_real(ts->series[i].v[k]));
		json_object_set_new(series, ts->series[i].name, a);
	}
	return json_pack("{s:I, s:I, s:o}", "interval_s", (json_int_t)ts->interval_s, "samples",
			 (json_int_t)ts->samples, "series", series);
}

json_t *guest_log_json(const struct guest_report *gs)
{
	json_t *a = json_array();

	for (size_t i = 0; i < gs->nlog; i++)
		json_array_append_new(a, json_pack("{s:s, s:s}", "level", gs->log[i].level,
						   "message", gs->log[i].message));
	return a;
}

json_t *guest_counts_json(const struct guest_stream_counts *c)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:I}", "records",
			      (json_int_t)c->records, "skipped_bytes", (json_int_t)c->skipped_bytes,
			      "bad_crc", (json_int_t)c->bad_crc, "oversized",
			      (json_int_t)c->oversized, "truncated", (json_int_t)c->truncated,
			      "bad_type", (json_int_t)c->bad_type, "crc_budget_spent",
			      (int)c->crc_budget_spent, "dropped_metrics",
			      (json_int_t)c->dropped_metrics, "dropped_samples",
			      (json_int_t)c->dropped_samples);

	if (c->files.records)
		json_object_set_new(o, "file_records",
				    json_pack("{s:I, s:I, s:I}", "total",
					      (json_int_t)c->files.records, "ignored",
					      (json_int_t)c->files.ignored, "late",
					      (json_int_t)c->files.late));
	return o;
}

static json_t *snapshots_json(const struct guest_snapshot *v, size_t n)
{
	json_t *o = json_object();

	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, v[i].name, json_stringn(v[i].text, v[i].len));
	return o;
}

static json_t *iteration_json(const struct guest_iteration *it)
{
	json_t *o = json_pack("{s:I, s:s, s:b}", "index", (json_int_t)it->index, "status",
			      it->ok ? "ok" : "failed", "ended", (int)it->ended);

	json_object_set_new(o, "exit", it->has_result ? json_integer(it->exit_code) : json_null());
	json_object_set_new(o, "signal", it->has_result ? json_integer(it->signal) : json_null());
	if (it->reason)
		json_object_set_new(o, "reason", json_string(it->reason));
	json_object_set_new(o, "metrics", guest_metrics_json(it));
	if (it->ts.present)
		json_object_set_new(o, "timeseries", guest_timeseries_json(&it->ts));
	if (it->tiers)
		json_object_set(o, "tiers", it->tiers);
	json_object_set_new(o, "snapshots",
			    json_pack("{s:o, s:o}", "before",
				      snapshots_json(it->before, it->nbefore), "after",
				      snapshots_json(it->after, it->nafter)));
	return o;
}

json_t *guest_stream_to_json(const struct guest_report *gs)
{
	const struct guest_hello *h = &gs->hello;
	json_t *its = json_array(), *root;

	for (size_t i = 0; i < gs->nits; i++)
		json_array_append_new(its, iteration_json(&gs->its[i]));
	root = json_pack("{s:o, s:o, s:o, s:b, s:o}", "nodes", guest_nodes_json(gs), "iterations",
			 its, "log", guest_log_json(gs), "done", (int)gs->info.done, "stream",
			 guest_counts_json(&gs->counts));
	json_object_set_new(root, "hello",
			    gs->has_hello ?
				    json_pack("{s:s, s:s, s:o}", "agent", h->agent, "release",
					      h->release, "boot_s",
					      h->has_boot_s ? json_real(h->boot_s) : json_null()) :
				    json_null());
	if (gs->info.setup_error)
		json_object_set_new(root, "setup_error",
				    json_pack("{s:s, s:s}", "what", gs->info.setup_what, "message",
					      gs->info.setup_message));
	return root;
}
