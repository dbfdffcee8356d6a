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

static json_t *find_iteration(json_t *agent, unsigned int index)
{
	size_t i;
	json_t *it;

	json_array_foreach(json_object_get(agent, "iterations"), i, it)
		if (json_integer_value(json_object_get(it, "index")) == (json_int_t)index)
			return it;
	return NULL;
}

static json_t *guest_json(json_t *agent)
{
	json_t *hello = json_object_get(agent, "hello");
	json_t *nodes = json_object_get(agent, "nodes");
	const char *rel = json_string_value(json_object_get(hello, "release"));

	return json_pack("{s:s?, s:O?, s:O?}", "kernel_release", rel, "nodes",
			 json_is_array(nodes) ? nodes : NULL, "boot_s",
			 json_object_get(hello, "boot_s"));
}

/* what happened to the iteration the agent reported as ait (or did not) */
static const char *iteration_status(json_t *ait, const struct vm_result *vr, const char *excerpt,
				    const char **why)
{
	*why = NULL;
	if (vr->outcome == VM_LOST) {
		/* libvirtd went away under the guest: the boot is not trusted */
		*why = vr->detail;
		return "failed";
	}
	if (ait && json_string_value(json_object_get(ait, "status")) &&
	    json_is_true(json_object_get(ait, "ended")))
		return json_string_value(json_object_get(ait, "status"));
	if (vr->outcome == VM_CRASHED || excerpt) {
		*why = excerpt ? "the guest kernel crashed (console excerpt stored)" : vr->detail;
		return "crashed";
	}
	if (vr->outcome == VM_TIMEOUT) {
		*why = vr->detail;
		return "timeout";
	}

	*why = ait ? "the workload did not finish its iteration" :
		     "the guest stopped without reporting this iteration";
	return "failed";
}

/*
 * What the data channel held, when the agent reported nothing of the
 * iteration: the reason alone ("deadline passed") does not say that the
 * agent was silent or sent only garbage. NULL when records arrived.
 */
static char *channel_note(json_t *agent)
{
	json_t *st = json_object_get(agent, "stream");
	json_int_t records = json_integer_value(json_object_get(st, "records"));
	json_int_t skipped = json_integer_value(json_object_get(st, "skipped_bytes"));

	if (records)
		return NULL;
	if (!skipped)
		return xstrdup("the agent sent nothing on the data channel (ttyS1)");
	return xasprintf("the data channel (ttyS1) held %lld bytes and no valid record",
			 (long long)skipped);
}

/* set key from src's key, if it has one */
static void copy_key(json_t *dst, json_t *src, const char *key)
{
	json_t *v = json_object_get(src, key);

	if (v)
		json_object_set(dst, key, v);
}

static void set_or(json_t *dst, const char *key, json_t *v, json_t *otherwise)
{
	json_object_set_new(dst, key, v ? json_incref(v) : otherwise);
	if (v)
		json_decref(otherwise);
}

/* iteration.json (results/README.md) */
static json_t *iteration_json(const struct run *r, const struct boot_out *out, unsigned int index,
			      json_t *ait, const char *excerpt, const char **statusp)
{
	const struct vm_result *vr = &out->vr;
	const char *why, *status = iteration_status(ait, vr, excerpt, &why);
	json_t *it = json_pack("{s:i, s:s, s:o, s:{s:s, s:s, s:f, s:s}}", "index", (int)index,
			       "status", status, "guest", guest_json(out->agent), "boot", "domain",
			       out->domain, "outcome", vm_outcome_name(vr->outcome), "elapsed_s",
			       vr->elapsed_s, "detail", vr->detail);

	set_or(it, "metrics", json_object_get(ait, "metrics"), json_object());
	copy_key(it, ait, "timeseries");
	copy_key(it, ait, "tiers"); /* the memory tiers the guest saw */
	copy_key(it, ait, "exit");
	copy_key(it, ait, "signal");
	if (r->spec->place && r->spec->place->placement)
		json_object_set(json_object_get(it, "boot"), "placement",
				r->spec->place->placement);
	if (why) {
		char *note = ait ? NULL : channel_note(out->agent);

		json_object_set_new(it, "reason",
				    note ? json_sprintf("%s; %s", why, note) : json_string(why));
		free(note);
	}
	if (excerpt)
		json_object_set_new(it, "console_excerpt",
				    console_json_text(excerpt, strlen(excerpt)));
	if (strcmp(status, "ok") && !excerpt) {
		char *tail = console_tail(out->console, strlen(out->console), CONSOLE_TAIL_MAX);

		json_object_set_new(it, "console_tail", console_json_text(tail, strlen(tail)));
		free(tail);
	}
	set_or(it, "log", json_object_get(out->agent, "log"), json_array());
	set_or(it, "stream", json_object_get(out->agent, "stream"), json_object());
	*statusp = status;
	return it;
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
static int iteration_files(const struct boot_out *out, json_t *ait, json_t *it, const char *dir)
{
	/* a truncated copy (a full store) must not be taken with an iteration.json */
	if (mkdir_p(dir, 0755) || copy_if_there(out->dir, dir, "console.log", "console.log") ||
	    copy_if_there(out->dir, dir, out->data_file ? out->data_file : "agent.bin",
			  "agent.bin"))
		return -1;
	if (out->files) {
		char *src = xasprintf("%s/files", out->dir);
		int bad;

		json_object_set(it, "files", out->files);
		bad = is_dir(src) && copy_tree(src, dir);
		free(src);
		if (bad)
			return -1;
	}
	return ait ? guest_stream_save_snapshots(ait, dir) : 0;
}

/* store one iteration of a finished boot; *status its status */
static int store_iteration(struct run *r, const struct boot *b, unsigned int index,
			   const struct boot_out *out, const char **status)
{
	const char *name = r->job->variants[b->variant].name;
	double begin = now_monotonic();
	json_t *ait = find_iteration(out->agent, index);
	char *excerpt = console_crash_excerpt(out->console, strlen(out->console));
	char *dir = store_iteration_path(r->store, r->id, name, index);
	const char *st;
	json_t *it = iteration_json(r, out, index, ait, excerpt, &st);
	int ret = -1;

	*status = "?";
	if (iteration_files(out, ait, it, dir))
		goto out;
	run_workload(r)->record(r, out, index, it, dir);
	/* an mmtests import that found nothing fails an "ok" iteration (st: a literal) */
	if (!strcmp(st, "ok") && !strcmp(json_string_value(json_object_get(it, "status")) ?
						 json_string_value(json_object_get(it, "status")) :
						 "",
					 "failed"))
		st = "failed";
	json_object_set_new(json_object_get(it, "boot"), "phases",
			    record_phases(out, now_monotonic() - begin));
	if (out->vr.t.prestart_s > 0)
		json_object_set_new(json_object_get(it, "boot"), "prestarted",
				    json_pack("{s:o, s:o}", "stage", seconds(out->clock.prestage_s),
					      "create", seconds(out->vr.t.prestart_s)));
	/* from the guest's start, as the phases count (end < guest_to_agent: before the agent was up) */
	if (out->clock.next_end > 0 && out->vr.t.started > 0)
		json_object_set_new(json_object_get(it, "boot"), "next_prepared",
				    json_pack("{s:o, s:o}", "begin",
					      seconds(out->clock.next_begin - out->vr.t.started),
					      "end",
					      seconds(out->clock.next_end - out->vr.t.started)));
	ret = store_iteration_write(r->store, r->id, name, index, it);
	*status = st;
	/* a command workload's failure, on the terminal too: it is the user's program */
	if (run_workload(r)->warn_failures && strcmp(st, "ok") && json_object_get(it, "reason"))
		lab_warn("%s iteration %u: %s", name, index,
			 json_string_value(json_object_get(it, "reason")));
	if (strcmp(st, "ok"))
		r->failed_iterations++;
out:
	json_decref(it);
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
