// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - the last step of a boot: each of its iterations into the
 * results store (iteration.json, the console log, the agent's stream, the
 * snapshots and collected files), with a status that says what happened:
 * ok, crashed (with the console lines around the crash), timeout or
 * failed (with why).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "guest/console.h"
#include "guest/stream.h"
#include "lib/spawn.h"
#include "lib/util.h"
#include "run/run.h"

/* "guest": the guest's kernel (null without a HELLO), its nodes, its boot time */
static json_t *guest_json(const struct guest_report *gs)
{
	const struct guest_hello *h = gs->has_hello ? &gs->hello : NULL;

	return json_pack("{s:s?, s:o, s:o}", "kernel_release", h ? h->release : NULL, "nodes",
			 guest_nodes_json(gs), "boot_s",
			 h && h->has_boot_s ? json_real(h->boot_s) : json_null());
}

/* what happened to the iteration the agent reported as g (or did not) */
static const char *iteration_status(const struct guest_iteration *g, const struct vm_result *vr,
				    const char *excerpt, const char **why)
{
	*why = NULL;
	if (vr->outcome == VM_LOST) {
		/* libvirtd went away under the guest: the boot is not trusted */
		*why = vr->detail;
		return "failed";
	}
	if (g && g->ended)
		return g->ok ? "ok" : "failed";
	if (vr->outcome == VM_CRASHED || excerpt) {
		*why = excerpt ? "the guest kernel crashed (console excerpt stored)" : vr->detail;
		return "crashed";
	}
	if (vr->outcome == VM_TIMEOUT) {
		*why = vr->detail;
		return "timeout";
	}

	*why = g ? "the workload did not finish its iteration" :
		   "the guest stopped without reporting this iteration";
	return "failed";
}

/*
 * What the data channel held, when the agent reported nothing of the
 * iteration: the reason alone ("deadline passed") does not say that the
 * agent was silent or sent only garbage. NULL when records arrived.
 */
static char *channel_note(const struct guest_stream_counts *c)
{
	if (c->records)
		return NULL;
	if (!c->skipped_bytes)
		return xstrdup("the agent sent nothing on the data channel (ttyS1)");
	return xasprintf("the data channel (ttyS1) held %zu bytes and no valid record",
			 c->skipped_bytes);
}

/*
 * iteration.json (results/README.md) as io: its status, reason, metrics
 * and log as fields, the rest in io->doc; *boot its "boot" (borrowed)
 */
static void iteration_begin(const struct run *r, const struct boot_out *out, const char *excerpt,
			    struct iteration_out *io, json_t **boot)
{
	const struct vm_result *vr = &out->vr;
	const struct guest_iteration *g = io->guest;
	const char *why;

	io->status = iteration_status(g, vr, excerpt, &why);
	*boot = json_pack("{s:s, s:s, s:f, s:s}", "domain", out->domain, "outcome",
			  vm_outcome_name(vr->outcome), "elapsed_s", vr->elapsed_s, "detail",
			  vr->detail);
	io->doc = json_pack("{s:o, s:O}", "guest", guest_json(out->agent), "boot", *boot);
	json_decref(*boot);
	io->metrics = g ? guest_metrics_json(g) : json_object();
	io->log = guest_log_json(out->agent);
	if (g && g->ts.present)
		json_object_set_new(io->doc, "timeseries", guest_timeseries_json(&g->ts));
	if (g && g->tiers) /* the memory tiers the guest saw */
		json_object_set(io->doc, "tiers", g->tiers);
	if (g) {
		json_object_set_new(io->doc, "exit",
				    g->has_result ? json_integer(g->exit_code) : json_null());
		json_object_set_new(io->doc, "signal",
				    g->has_result ? json_integer(g->signal) : json_null());
	}
	if (r->spec->place && r->spec->place->placement)
		json_object_set(*boot, "placement", r->spec->place->placement);
	if (why) {
		char *note = g ? NULL : channel_note(&out->agent->counts);

		io->reason = note ? xasprintf("%s; %s", why, note) : xstrdup(why);
		free(note);
	}
	if (excerpt)
		json_object_set_new(io->doc, "console_excerpt",
				    console_json_text(excerpt, strlen(excerpt)));
	if (strcmp(io->status, "ok") && !excerpt) {
		char *tail = console_tail(out->console, strlen(out->console), CONSOLE_TAIL_MAX);

		json_object_set_new(io->doc, "console_tail", console_json_text(tail, strlen(tail)));
		free(tail);
	}
	json_object_set_new(io->doc, "stream", guest_counts_json(&out->agent->counts));
}

/* io's fields into its document, which it gives up: iteration.json (a new reference) */
static json_t *iteration_end(struct iteration_out *io)
{
	json_t *it = io->doc;

	json_object_set_new(it, "index", json_integer(io->index));
	json_object_set_new(it, "status", json_string(io->status));
	if (io->reason)
		json_object_set_new(it, "reason", json_string(io->reason));
	json_object_set_new(it, "metrics", io->metrics);
	json_object_set_new(it, "log", io->log);
	io->doc = io->metrics = io->log = NULL;
	return it;
}

static void iteration_out_release(struct iteration_out *io)
{
	free(io->reason);
	json_decref(io->metrics);
	json_decref(io->log);
	json_decref(io->doc);
}

/* seconds, to the millisecond */
static json_t *seconds(double s)
{
	return json_real((double)(long long)(s * 1000 + 0.5) / 1000);
}

/* "name": end - start, when both were reached */
static void phase(json_t *o, const char *name, double start, double end)
{
	if (start > 0 && end >= start)
		json_object_set_new(o, name, seconds(end - start));
}

json_t *record_phases(const struct boot_out *out, double store_s)
{
	const struct boot_clock *c = &out->clock;
	const struct vm_times *t = &out->vr.t;
	json_t *o = json_object();

	phase(o, "stage", c->begin, c->staged);
	phase(o, "define", c->staged, t->create);
	phase(o, "start", t->create, t->started);
	if (t->first_output > 0 && t->last_output > 0) {
		/* the mtime's clock is coarser than inotify's: never before the first */
		double last = t->last_output > t->first_output ? t->last_output : t->first_output;

		phase(o, "guest_to_agent", t->started, t->first_output);
		phase(o, "workload", t->first_output, last);
		phase(o, "poweroff_seen", last, t->outcome > last ? t->outcome : last);
	} else {
		phase(o, "guest", t->started, t->outcome);
	}
	phase(o, "teardown", t->outcome, t->torn_down);
	phase(o, "collect", t->torn_down, c->collected);
	json_object_set_new(o, "store", seconds(store_s));
	return o;
}

/* copy the tree under src (regular files and directories) to dst_dir/<basename of src> */
static int copy_tree(const char *src, const char *dst_dir)
{
	const char *argv[] = { "cp", "-r", "--", src, dst_dir, NULL };
	struct spawn_opts o = { .timeout_s = 600 };

	return spawn_run(argv, &o, NULL);
}

/* from_dir/from as to_dir/name if it is there; -1 when it could not be copied (said) */
static int copy_if_there(const char *from_dir, const char *to_dir, const char *from,
			 const char *name)
{
	char *src = xasprintf("%s/%s", from_dir, from);
	char *dst = xasprintf("%s/%s", to_dir, name);
	int ret = path_exists(src) ? copy_file(src, dst, 0644) : 0;

	free(src);
	free(dst);
	return ret;
}

/* the boot's files into the iteration's directory */
static int iteration_files(const struct boot_out *out, const struct iteration_out *io,
			   const char *dir)
{
	/* a truncated copy (a full store) must not be taken with an iteration.json */
	if (mkdir_p(dir, 0755) || copy_if_there(out->dir, dir, "console.log", "console.log") ||
	    copy_if_there(out->dir, dir, out->data_file ? out->data_file : "agent.bin",
			  "agent.bin"))
		return -1;
	if (out->files) {
		char *src = xasprintf("%s/files", out->dir);
		int bad;

		json_object_set(io->doc, "files", out->files);
		bad = is_dir(src) && copy_tree(src, dir);
		free(src);
		if (bad)
			return -1;
	}
	return io->guest ? guest_stream_save_snapshots(io->guest, dir) : 0;
}

/* "boot": its phases, and what was made ready during the boot before and for the next */
static void boot_times(json_t *boot, const struct boot_out *out, double begin)
{
	json_object_set_new(boot, "phases", record_phases(out, now_monotonic() - begin));
	if (out->vr.t.prestart_s > 0)
		json_object_set_new(boot, "prestarted",
				    json_pack("{s:o, s:o}", "stage", seconds(out->clock.prestage_s),
					      "create", seconds(out->vr.t.prestart_s)));
	/* from the guest's start, as the phases count (end < guest_to_agent: before the agent was up) */
	if (out->clock.next_end > 0 && out->vr.t.started > 0)
		json_object_set_new(boot, "next_prepared",
				    json_pack("{s:o, s:o}", "begin",
					      seconds(out->clock.next_begin - out->vr.t.started),
					      "end",
					      seconds(out->clock.next_end - out->vr.t.started)));
}

/* store one iteration of a finished boot; *status its status */
static int store_iteration(struct run *r, const struct boot *b, unsigned int index,
			   const struct boot_out *out, const char **status)
{
	const char *name = r->job->variants[b->variant].name;
	double begin = now_monotonic();
	char *excerpt = console_crash_excerpt(out->console, strlen(out->console));
	char *dir = store_iteration_path(r->store, r->id, name, index);
	struct iteration_out io = {
		.index = index,
		.guest = guest_stream_find(out->agent, index),
	};
	json_t *boot, *it;
	int ret = -1;

	iteration_begin(r, out, excerpt, &io, &boot);
	*status = "?";
	if (iteration_files(out, &io, dir))
		goto out;
	/* the kind's part; an mmtests import that found nothing fails an "ok" iteration */
	run_workload(r)->record(r, out, &io, dir);
	boot_times(boot, out, begin);
	/* a command workload's failure, on the terminal too: it is the user's program */
	if (run_workload(r)->warn_failures && strcmp(io.status, "ok") && io.reason)
		lab_warn("%s iteration %u: %s", name, index, io.reason);
	*status = io.status;
	if (strcmp(io.status, "ok"))
		r->failed_iterations++;
	it = iteration_end(&io);
	ret = store_iteration_write(r->store, r->id, name, index, it);
	json_decref(it);
out:
	iteration_out_release(&io);
	free(excerpt);
	free(dir);
	return ret;
}

int record_boot(struct run *r, const struct boot *b, const struct boot_out *out,
		struct progress *pg)
{
	const char *name = r->job->variants[b->variant].name;
	int ret = 0;

	for (unsigned int i = 0; i < b->count; i++) {
		unsigned int idx = b->first + i;
		const char *st;

		if (store_iteration(r, b, idx, out, &st))
			ret = -1;
		progress_step_done(pg, out->vr.elapsed_s / b->count, "%s iteration %u: %s", name,
				   idx, st);
	}
	return ret;
}

/* a variant whose kernel failed to build: its iterations, failed, with the log */
/* every iteration of boot b stored as failed, with reason (and the build log, if any) */
static int record_failed(struct run *r, const struct boot *b, const char *reason,
			 const char *build_log)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	int ret = 0;

	for (unsigned int i = 0; i < b->count; i++) {
		unsigned int idx = b->first + i;
		json_t *it = json_pack("{s:i, s:s, s:s, s:s?, s:o}", "index", (int)idx, "status",
				       "failed", "reason", reason, "build_log", build_log,
				       "metrics", json_object());
		char *dir = store_iteration_path(r->store, r->id, v->name, idx);

		if (mkdir_p(dir, 0755) || store_iteration_write(r->store, r->id, v->name, idx, it))
			ret = -1;
		json_decref(it);
		free(dir);
	}
	return ret;
}

int record_build_failed(struct run *r, const struct boot *b, struct progress *pg)
{
	const struct job_variant *v = &r->job->variants[b->variant];
	const struct kernel_info *ki = &r->kernels[b->variant];
	int ret = record_failed(r, b, "the kernel build failed", ki->build_log);

	for (unsigned int i = 0; i < b->count; i++) {
		r->failed_iterations++;
		progress_step_done(pg, 0, "%s iteration %u: failed (kernel build; log %s)", v->name,
				   b->first + i, ki->build_log ? ki->build_log : "none");
	}
	return ret;
}

int record_not_started(struct run *r, const struct boot *b, const char *detail)
{
	char *reason = xasprintf("the domain did not start: %s", detail);
	int ret = record_failed(r, b, reason, NULL);

	free(reason);
	return ret;
}
