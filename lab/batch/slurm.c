// SPDX-License-Identifier: GPL-2.0
/*
 * slurm.c - the Slurm client (see slurm.h).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "batch/queue_status.h"
#include "batch/slurm.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"

char *sh_quote(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	if (strpbrk(s, "\n\r"))
		return NULL;
	strbuf_addch(&sb, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(&sb, "'\\''");
		else
			strbuf_addch(&sb, *p);
	}
	strbuf_addch(&sb, '\'');
	return strbuf_detach(&sb);
}

bool slurm_valid_name(const char *s)
{
	if (!*s || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("._-", *s)))
			return false;
	return true;
}

/* the words, quoted and each after a space; -1 after a message */
static int add_words(struct strbuf *sb, const char *const words[], size_t nwords)
{
	for (size_t i = 0; i < nwords; i++) {
		char *w = sh_quote(words[i]);

		if (!w) {
			lab_err("'%s' holds a newline; it cannot go into a Slurm script", words[i]);
			return -1;
		}
		strbuf_addf(sb, " %s", w);
		free(w);
	}
	return 0;
}

char *slurm_script_text(const char *mmlab, const char *results, const char *cache_dir,
			const char *const words[], size_t nwords, bool array)
{
	char *cache = path_abs(cache_dir);
	char *qm = sh_quote(mmlab), *qr = sh_quote(results), *qc = sh_quote(cache);
	struct strbuf sb = STRBUF_INIT;
	char *text = NULL;

	if (!qm || !qr || !qc) {
		lab_err("the path %s, %s or %s holds a newline; use paths without one for Slurm",
			mmlab, results, cache);
		goto out;
	}
	strbuf_addstr(&sb, "#!/bin/sh\n# written by 'mmlab submit --slurm'; see docs/queue.md\n");
	strbuf_addf(&sb, "export MMLAB_CACHE=%s\n", qc);
	strbuf_addf(&sb, "exec %s --results %s queue", qm, qr);
	if (add_words(&sb, words, nwords))
		goto out;
	if (array)
		strbuf_addstr(&sb, " --boot \"$SLURM_ARRAY_TASK_ID\"");
	strbuf_addch(&sb, '\n');
	text = strbuf_detach(&sb);
out:
	strbuf_release(&sb);
	free(qm);
	free(qr);
	free(qc);
	free(cache);
	return text;
}

/* the options every job of a run has: name, output, directory, partition */
static void sbatch_common(struct strlist *a, const struct slurm_target *t, const char *name,
			  const char *out)
{
	strlist_push(a, "sbatch");
	strlist_push(a, "--parsable");
	strlist_pushf(a, "--job-name=%s", name);
	strlist_pushf(a, "--output=%s/%s", t->dir, out);
	strlist_pushf(a, "--chdir=%s", t->dir);
	if (t->partition)
		strlist_pushf(a, "--partition=%s", t->partition);
}

void slurm_build_argv(struct strlist *a, const struct slurm_target *t, const char *run,
		      const char *variant, unsigned int cpus, unsigned int minutes,
		      const char *script)
{
	char *name = xasprintf("mmlab-build-%s-%s", run, variant);
	char *out = xasprintf("build-%s.out", variant);

	sbatch_common(a, t, name, out);
	strlist_pushf(a, "--cpus-per-task=%u", cpus);
	strlist_pushf(a, "--time=%u", minutes);
	strlist_push(a, script);
	free(name);
	free(out);
}

void slurm_array_argv(struct strlist *a, const struct slurm_target *t, const char *run,
		      unsigned int ntasks, unsigned int cpus, unsigned int minutes,
		      const char *deps, const char *script)
{
	char *name = xasprintf("mmlab-%s", run);

	sbatch_common(a, t, name, "task-%a.out");
	strlist_pushf(a, "--array=0-%u", ntasks - 1);
	strlist_pushf(a, "--cpus-per-task=%u", cpus);
	strlist_pushf(a, "--time=%u", minutes);
	if (deps) { /* a failed build cancels the boots instead of leaving them pending */
		strlist_pushf(a, "--dependency=afterok%s", deps);
		strlist_push(a, "--kill-on-invalid-dep=yes");
	}
	strlist_push(a, script);
	free(name);
}

void slurm_finish_argv(struct strlist *a, const struct slurm_target *t, const char *run,
		       const char *array_id, const char *script)
{
	char *name = xasprintf("mmlab-finish-%s", run);

	sbatch_common(a, t, name, "finish.out");
	strlist_pushf(a, "--dependency=afterany:%s", array_id);
	strlist_push(a, "--time=5");
	strlist_push(a, script);
	free(name);
}

char *slurm_parse_job_id(const char *out)
{
	size_t n = strcspn(out, ";\n"); /* "id[;cluster]" */

	return n ? xstrndup(out, n) : NULL;
}

char *slurm_sbatch(const struct strlist *a)
{
	struct spawn_opts so = { .timeout_s = SLURM_SBATCH_TIMEOUT_S };
	struct spawn_result r;
	const char **argv = xcalloc(a->n + 1, sizeof(*argv));
	char *id = NULL;
	char how[64];

	for (size_t i = 0; i < a->n; i++)
		argv[i] = a->v[i];
	if (spawn_run(argv, &so, &r) == 0 && r.out)
		id = slurm_parse_job_id(r.out);
	/* it ran (a failure to start was reported by spawn_run) */
	if (!id && (r.exit_code >= 0 || r.term_signal || r.timed_out))
		lab_err("sbatch %s: %.400s; check that slurmctld is reachable ('sinfo') "
			"and the options",
			spawn_describe(&r, so.timeout_s, how, sizeof(how)), r.out ? r.out : "");
	spawn_result_free(&r);
	free(argv);
	return id;
}

unsigned int slurm_parse_node_cpus(const char *out)
{
	unsigned long min = 0;

	for (const char *l = out; *l; l += strcspn(l, "\n"), l += *l == '\n') {
		unsigned long n = strtoul(l, NULL, 10); /* "64" or "64+" */

		if (n && (!min || n < min))
			min = n;
	}
	return (unsigned int)(min > 32 ? 32 : min);
}

unsigned int slurm_node_cpus(const char *partition)
{
	const char *argv[] = { "sinfo", "-h", "-o", "%c", partition ? "-p" : NULL, partition, NULL };
	struct spawn_opts so = { .timeout_s = 20 };
	struct spawn_result r;
	unsigned int n = 0;

	if (spawn_run(argv, &so, &r) == 0 && r.out)
		n = slurm_parse_node_cpus(r.out);
	spawn_result_free(&r);
	return n ? n : 1;
}

void slurm_scancel(const char *const ids[], size_t n)
{
	const char *argv[] = { "scancel", NULL, NULL };
	struct spawn_opts so = { .timeout_s = 20 };
	struct spawn_result r;

	for (size_t i = 0; i < n; i++) {
		argv[1] = ids[i];
		spawn_run(argv, &so, &r);
		spawn_result_free(&r);
	}
}

void slurm_parse_states(const char *out, json_t *states)
{
	char *copy = xstrdup(out), *save = NULL;

	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sep = strpbrk(line, " |");

		if (!sep)
			continue;
		*sep++ = '\0';
		sep[strcspn(sep, " |")] = '\0';
		if (*line && *sep && !strstr(line, ".batch") && !strstr(line, ".extern"))
			json_object_set_new(states, line, json_string(sep));
	}
	free(copy);
}

static void query_states(const char *const argv[], json_t *states)
{
	struct spawn_opts so = { .timeout_s = 20 };
	struct spawn_result r;

	if (spawn_run(argv, &so, &r) == 0 && r.out)
		slurm_parse_states(r.out, states);
	spawn_result_free(&r);
}

/* "array,finish,build..." of a job's Slurm jobs, or NULL without an array job */
static char *job_ids(const struct queue_status_slurm *sl)
{
	struct strbuf sb = STRBUF_INIT;

	if (!sl->array)
		return NULL;
	strbuf_addstr(&sb, sl->array);
	if (sl->finish)
		strbuf_addf(&sb, ",%s", sl->finish);
	for (size_t i = 0; i < sl->nbuilds; i++)
		strbuf_addf(&sb, ",%s", sl->builds[i].value);
	return strbuf_detach(&sb);
}

void slurm_status_fill(json_t *j, struct store *s)
{
	struct queue_status_job job;
	json_t *states = json_object();
	char *ids = NULL;

	if (!queue_status_job_from_json(j, &job)) {
		ids = job_ids(&job.slurm);
		queue_status_job_release(&job);
	}
	if (ids) {
		const char *acct[] = { "sacct", "-n", "-P",	     "-X", "-j",
				       ids,	"-o", "JobID,State", NULL };
		/* all states: ended tasks too, while slurmctld remembers them */
		const char *sq[] = { "squeue", "-h", "-r", "-t",    "all",
				     "-j",     ids,  "-o", "%i %T", NULL };

		/* accounting (where it is on) knows finished tasks; squeue the live ones */
		query_states(acct, states);
		query_states(sq, states);
		free(ids);
	}
	qs_doc_set_slurm_states(j, states);
	slurm_items_state(j, s);
}

/* a boot item's state from the store, the queue and its array task's state st */
static const char *boot_state(const struct queue_status_item *it, struct store *s, const char *run,
			      const char *st)
{
	const char *qstate = it->state;
	bool stored = true;

	for (unsigned int k = 0; k < it->count; k++)
		stored &= store_iteration_done(s, run, it->variant, it->first + k);
	if (stored)
		return "done";
	if (qstate && (!strcmp(qstate, "failed") || !strcmp(qstate, "cancelled")))
		return qstate; /* the queue's word: its kernel build failed */
	if (st && (!strcmp(st, "RUNNING") || !strcmp(st, "COMPLETING")))
		return "running";
	if (st && strcmp(st, "PENDING") && strcmp(st, "COMPLETED"))
		return "failed";
	if (st && !strcmp(st, "COMPLETED"))
		return "failed"; /* finished but stored nothing */
	return "queued";
}

/* the Slurm state of build item it: its build job's */
static const char *build_slurm_state(const struct queue_status_slurm *sl,
				     const struct queue_status_item *it)
{
	const char *id = it->variant ? qs_pair_get(sl->builds, sl->nbuilds, it->variant) : NULL;

	return id ? qs_pair_get(sl->states, sl->nstates, id) : NULL;
}

void slurm_items_state(json_t *j, struct store *s)
{
	json_t *counts = json_object();
	struct queue_status_job job;
	size_t boot = 0;

	if (queue_status_job_from_json(j, &job)) {
		json_decref(counts);
		return;
	}
	for (size_t i = 0; i < job.nitems; i++) {
		const struct queue_status_item *it = &job.items[i];
		json_t *o = qs_doc_item(j, i);
		const char *st, *state;
		char bkey[64];

		if (it->build) {
			/* the queue's state (the build step settles it), and Slurm's */
			st = build_slurm_state(&job.slurm, it);
			if (st)
				json_object_set_new(o, "slurm_state", json_string(st));
			continue;
		}
		snprintf(bkey, sizeof(bkey), "%s_%zu", job.slurm.array ?: "", boot++);
		st = qs_pair_get(job.slurm.states, job.slurm.nstates, bkey);
		state = boot_state(it, s, job.run, st);
		if (st)
			json_object_set_new(o, "slurm_state", json_string(st));
		json_object_set_new(
			counts, state,
			json_integer(json_integer_value(json_object_get(counts, state)) + 1));
		json_object_set_new(o, "state", json_string(state));
	}
	json_object_set_new(j, "counts", counts);
	queue_status_job_release(&job);
}
