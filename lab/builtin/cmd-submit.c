// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-submit.c - "mmlab submit --slurm JOB...": create each run in the
 * (shared) results store, queue its boots as Slurm's work rather than
 * "queue run"'s, and submit them with sbatch: a build step per kernel the
 * run builds from source ("mmlab queue build RUN --variant V"), one array
 * job per run depending on them, a task per boot ("mmlab queue exec RUN
 * --boot $SLURM_ARRAY_TASK_ID"), then a finishing job depending on it
 * ("mmlab queue finish RUN"). See docs/queue.md.
 */
#include <ctype.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "job/job.h"
#include "batch/queue.h"
#include "batch/queue_build.h"
#include "batch/queue_cli.h"
#include "store/results.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define SBATCH_TIMEOUT_S 60

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab submit --slurm [options] JOB.yaml...\n"
		"\n"
		"Create a run of each job in the results store, which every Slurm node\n"
		"must see at the same path, and submit it with sbatch: a build job per\n"
		"kernel built from source ('mmlab queue build'), an array job depending on\n"
		"them with one task per boot (variant x iteration), each running 'mmlab\n"
		"queue exec' on its node, and a job depending on it that marks the run\n"
		"complete. The kernel cache (MMLAB_CACHE) and the kernel trees must be\n"
		"shared too.\n"
		"'mmlab queue status' shows Slurm's state; 'mmlab compare RUN' reads the\n"
		"results as for a local run.\n"
		"\n"
		"options:\n"
		"  --slurm            submit to Slurm (the only batch system so far)\n"
		"  --partition P      sbatch --partition\n"
		"  --results DIR      the shared results store (as the global --results)\n"
		"  --accel M          auto, kvm or tcg (default: the job's); the choice is\n"
		"                     made on this host and recorded in the run\n"
		"  --time MIN         sbatch --time per task, minutes (default: from the\n"
		"                     job's timeouts)\n"
		"  --build-cpus N     CPUs of a build job (default: the CPUs of the\n"
		"                     partition's smallest node, 'sinfo', at most 32)\n"
		"  --build-time MIN   sbatch --time of a build job (default 120)\n"
		"  --priority N       recorded in the queue (Slurm decides the order)\n"
		"  --json             print what was submitted as JSON\n"
		"  -h, --help         this help\n"
		"\n"
		"Exit status: 0 submitted, 1 sbatch failed, 2 bad usage or a bad job.\n");
}

char *sh_quote(const char *s)
{
	size_t n = 3;
	char *out, *o;

	if (strpbrk(s, "\n\r"))
		return NULL;
	for (const char *p = s; *p; p++)
		n += *p == '\'' ? 4 : 1;
	o = out = xmalloc(n);
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

static bool valid_token(const char *s)
{
	if (!*s || strlen(s) > 128)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("._-", *s)))
			return false;
	return true;
}

/*
 * "#!/bin/sh ... export MMLAB_CACHE='C'; exec 'mmlab' --results 'DIR'
 * queue <words...>"
 */
static int write_script(const char *path, const char *mmlab, const char *results,
			const char *const words[], size_t nwords, bool array)
{
	char *cache = path_abs(gopts.cache_dir);
	char *qm = sh_quote(mmlab), *qr = sh_quote(results), *qc = sh_quote(cache);
	struct strlist l = { 0 };
	size_t len = 0;
	char *text, *p;
	int ret = -1;

	if (!qm || !qr || !qc) {
		lab_err("the path %s, %s or %s holds a newline; use paths without one for Slurm",
			mmlab, results, cache);
		goto out;
	}
	strlist_push(&l, "#!/bin/sh\n# written by 'mmlab submit --slurm'; see docs/queue.md\n");
	strlist_pushf(&l, "export MMLAB_CACHE=%s\n", qc);
	strlist_pushf(&l, "exec %s --results %s queue", qm, qr);
	for (size_t i = 0; i < nwords; i++) {
		char *w = sh_quote(words[i]);

		if (!w) {
			lab_err("'%s' holds a newline; it cannot go into a Slurm script", words[i]);
			goto out;
		}
		strlist_pushf(&l, " %s", w);
		free(w);
	}
	if (array)
		strlist_push(&l, " --boot \"$SLURM_ARRAY_TASK_ID\"");
	strlist_push(&l, "\n");
	for (size_t i = 0; i < l.n; i++)
		len += strlen(l.v[i]);
	p = text = xmalloc(len + 1);
	for (size_t i = 0; i < l.n; i++)
		p = stpcpy(p, l.v[i]);
	ret = write_file_atomic(path, text, len, 0755);
	free(text);
out:
	strlist_free(&l);
	free(qm);
	free(qr);
	free(qc);
	free(cache);
	return ret;
}

/* sbatch --parsable ...: the job id, or NULL after a message */
static char *sbatch(struct strlist *args)
{
	struct spawn_opts so = { .timeout_s = SBATCH_TIMEOUT_S };
	struct spawn_result r;
	const char **argv = xcalloc(args->n + 1, sizeof(*argv));
	char *id = NULL;

	for (size_t i = 0; i < args->n; i++)
		argv[i] = args->v[i];
	if (spawn_run(argv, &so, &r) == 0 && r.out && r.out[0]) {
		r.out[strcspn(r.out, ";\n")] = '\0';	/* "id[;cluster]" */
		id = xstrdup(r.out);
	} else if (r.exit_code >= 0 || r.term_signal || r.timed_out) {
		/* it ran (a failure to start was reported by spawn_run) */
		char how[64];

		lab_err("sbatch %s: %.400s; check that slurmctld is reachable ('sinfo') "
			"and the options", spawn_describe(&r, so.timeout_s, how, sizeof(how)),
			r.out ? r.out : "");
	}
	spawn_result_free(&r);
	free(argv);
	return id;
}

static unsigned int task_minutes(struct store *s, const char *run, unsigned int count)
{
	json_t *rj = store_run_read(s, run);
	json_t *t = json_object_get(json_object_get(rj, "job_resolved"), "timeouts");
	double sec = json_integer_value(json_object_get(t, "boot_s")) +
		     (double)json_integer_value(json_object_get(t, "iteration_s")) * count;

	json_decref(rj);
	return (unsigned int)(sec / 60) + 5;
}

/* a task holds as many Slurm CPUs as its guest has vCPUs */
static unsigned int job_vcpus(struct store *s, const char *run)
{
	json_t *rj = store_run_read(s, run), *n;
	unsigned int cpus = 0;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(json_object_get(rj, "job_resolved"),
		"topology"), "nodes"), i, n)
		cpus += (unsigned int)json_integer_value(json_object_get(n, "cpus"));
	json_decref(rj);
	return cpus ? cpus : 1;
}

/* CPUs of the partition's smallest node ("sinfo -o %c"), 1 if unknown */
static unsigned int node_cpus(const char *partition)
{
	const char *argv[] = { "sinfo", "-h", "-o", "%c", partition ? "-p" : NULL, partition,
			       NULL };
	struct spawn_opts so = { .timeout_s = 20 };
	struct spawn_result r;
	unsigned long min = 0;

	if (spawn_run(argv, &so, &r) == 0 && r.out) {
		char *save = NULL;

		for (char *l = strtok_r(r.out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			unsigned long n = strtoul(l, NULL, 10);	/* "64" or "64+" */

			if (n && (!min || n < min))
				min = n;
		}
	}
	spawn_result_free(&r);
	return min ? (unsigned int)(min > 32 ? 32 : min) : 1;
}

struct submit_opts {
	const char *mmlab, *partition, *accel;
	unsigned int minutes, build_cpus, build_minutes;
	int priority;
};

/* the common sbatch options: name, output, directory, partition */
static void sbatch_args(struct strlist *a, const struct submit_opts *o, const char *dir,
			const char *name, const char *out)
{
	strlist_push(a, "sbatch");
	strlist_push(a, "--parsable");
	strlist_pushf(a, "--job-name=%s", name);
	strlist_pushf(a, "--output=%s/%s", dir, out);
	strlist_pushf(a, "--chdir=%s", dir);
	if (o->partition)
		strlist_pushf(a, "--partition=%s", o->partition);
}

/*
 * A build job per kernel of run still to be built (one per build request;
 * a build already done is handed to the run now). Their ids go into
 * builds {variant: id} and deps (":id:id..."); -1 after a message.
 */
static int submit_builds(struct queue *q, struct store *s, struct submit_opts *o,
			 const char *run, const char *dir, json_t *boots, json_t *builds,
			 char **deps)
{
	struct strlist reqs = { 0 };
	json_t *b;
	size_t i;
	int ret = 0;

	json_array_foreach(boots, i, b) {
		const char *req = json_string_value(json_object_get(b, "build"));
		const char *v = json_string_value(json_object_get(b, "variant"));
		const char *words[] = { "build", run, "--variant", v };
		struct strlist a = { 0 };
		enum item_state state;
		char *script, *name, *out, *why = NULL, *id, *d;
		size_t k;

		if (!req || !v)
			continue;
		for (k = 0; k < reqs.n && strcmp(reqs.v[k], req); k++)
			;
		if (k < reqs.n)
			continue;	/* another variant of this run needs the same kernel */
		strlist_push(&reqs, req);
		json_decref(queue_build_result(q, req, &state, NULL));
		if (state == ITEM_DONE && !build_kernel_ready(q, s, run, v, &why)) {
			lab_info("variant '%s': its kernel is built already (request %.12s)", v, req);
			continue;
		}
		free(why);
		script = xasprintf("%s/build-%s.sh", dir, v);
		name = xasprintf("mmlab-build-%s-%s", run, v);
		out = xasprintf("build-%s.out", v);
		if (write_script(script, o->mmlab, store_dir(s), words, ARRAY_SIZE(words), false)) {
			ret = -1;
		} else {
			if (!o->build_cpus)
				o->build_cpus = node_cpus(o->partition);
			sbatch_args(&a, o, dir, name, out);
			strlist_pushf(&a, "--cpus-per-task=%u", o->build_cpus);
			strlist_pushf(&a, "--time=%u", o->build_minutes);
			strlist_push(&a, script);
			id = sbatch(&a);
			if (id) {
				json_object_set_new(builds, v, json_string(id));
				d = xasprintf("%s:%s", *deps ? *deps : "", id);
				free(*deps);
				*deps = d;
				free(id);
			} else {
				ret = -1;
			}
		}
		strlist_free(&a);
		free(script);
		free(name);
		free(out);
		if (ret)
			break;
	}
	strlist_free(&reqs);
	return ret;
}

/* scancel what was submitted of a run that could not be submitted whole */
static void scancel_ids(json_t *builds, const char *arr)
{
	const char *argv[] = { "scancel", NULL, NULL };
	struct spawn_opts so = { .timeout_s = 20 };
	struct spawn_result r;
	const char *key;
	json_t *v;

	json_object_foreach(builds, key, v) {
		argv[1] = json_string_value(v);
		spawn_run(argv, &so, &r);
		spawn_result_free(&r);
	}
	if (arr) {
		argv[1] = arr;
		spawn_run(argv, &so, &r);
		spawn_result_free(&r);
	}
}

static int submit_one(struct queue *q, struct store *s, const char *path,
		      struct submit_opts *o, json_t *out)
{
	char *run = NULL, *dir = NULL, *task = NULL, *fin = NULL, *arr_id = NULL,
	     *fin_id = NULL, *slurm = NULL, *deps = NULL, *name = NULL;
	struct strlist a = { 0 }, b = { 0 };
	json_t *boots = NULL, *builds = json_object(), *sj;
	long long job;
	int ret = queue_add_job(q, s, path, o->priority, o->accel, "{\"state\":\"submitting\"}",
				&run, &job, &boots);
	const char *exec_words[] = { "exec", NULL };
	const char *fin_words[] = { "finish", NULL };
	unsigned int n;

	if (ret) {
		json_decref(builds);
		return ret;
	}
	ret = EXIT_RUN_FAILED;
	n = (unsigned int)json_array_size(boots);
	dir = xasprintf("%s/%s/slurm", store_dir(s), run);
	task = xasprintf("%s/task.sh", dir);
	fin = xasprintf("%s/finish.sh", dir);
	exec_words[1] = run;
	fin_words[1] = run;
	if (mkdir_p(dir, 0755) ||
	    write_script(task, o->mmlab, store_dir(s), exec_words, 2, true) ||
	    write_script(fin, o->mmlab, store_dir(s), fin_words, 2, false) ||
	    submit_builds(q, s, o, run, dir, boots, builds, &deps))
		goto out;
	name = xasprintf("mmlab-%s", run);
	sbatch_args(&a, o, dir, name, "task-%a.out");
	strlist_pushf(&a, "--array=0-%u", n - 1);
	strlist_pushf(&a, "--cpus-per-task=%u", job_vcpus(s, run));
	strlist_pushf(&a, "--time=%u", o->minutes ? o->minutes : task_minutes(s, run,
		(unsigned int)json_integer_value(json_object_get(json_array_get(boots, 0), "count"))));
	if (deps) {	/* a failed build cancels the boots instead of leaving them pending */
		strlist_pushf(&a, "--dependency=afterok%s", deps);
		strlist_push(&a, "--kill-on-invalid-dep=yes");
	}
	strlist_push(&a, task);
	arr_id = sbatch(&a);
	if (!arr_id)
		goto out;
	free(name);
	name = xasprintf("mmlab-finish-%s", run);
	sbatch_args(&b, o, dir, name, "finish.out");
	strlist_pushf(&b, "--dependency=afterany:%s", arr_id);
	strlist_push(&b, "--time=5");
	strlist_push(&b, fin);
	fin_id = sbatch(&b);
	sj = json_pack("{s:s, s:s?, s:O}", "array", arr_id, "finish", fin_id, "builds", builds);
	slurm = json_dumps(sj, JSON_COMPACT);
	json_decref(sj);
	if (queue_set_slurm(q, job, slurm) || !fin_id)
		goto out;
	json_array_append_new(out, json_pack("{s:I, s:s, s:s, s:i, s:O, s:s, s:s}", "id",
		(json_int_t)job, "run", run, "file", path, "boots", (int)n, "build_jobs", builds,
		"array_job", arr_id, "finish_job", fin_id));
	ret = 0;
out:
	if (ret && !arr_id) {	/* the queue keeps no half-submitted job */
		scancel_ids(builds, NULL);
		queue_cancel(q, job);
	}
	strlist_free(&a);
	strlist_free(&b);
	json_decref(boots);
	json_decref(builds);
	free(run);
	free(dir);
	free(task);
	free(fin);
	free(arr_id);
	free(fin_id);
	free(slurm);
	free(deps);
	free(name);
	return ret;
}

int cmd_submit(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slurm", no_argument, NULL, 'S' },
		{ "partition", required_argument, NULL, 'p' },
		{ "results", required_argument, NULL, 'r' },
		{ "accel", required_argument, NULL, 'a' },
		{ "time", required_argument, NULL, 't' },
		{ "priority", required_argument, NULL, 'P' },
		{ "build-cpus", required_argument, NULL, 'B' },
		{ "build-time", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *partition = NULL, *accel = NULL;
	bool slurm = false, json = false;
	uint64_t minutes = 0, prio = 0, bcpus = 0, bmin = 120;
	struct submit_opts so;
	char mmlab[PATH_MAX], *results;
	struct queue *q;
	struct store *s;
	json_t *out;
	ssize_t n;
	int c, ret = 0;

	optind = 0;	/* reinitialise getopt: options may follow operands */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'S': slurm = true; break;
		case 'p': partition = optarg; break;
		case 'r': gopts.results_dir = optarg; break;
		case 'a': accel = optarg; break;
		case 't':
			if (parse_uint(optarg, &minutes) || !minutes || minutes > 100000) {
				lab_err("--time wants minutes (1-100000), not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'P':
			if (parse_uint(optarg, &prio) || prio > 1000000) {
				lab_err("--priority wants a number from 0 to 1000000, not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'B':
			if (parse_uint(optarg, &bcpus) || !bcpus || bcpus > 4096) {
				lab_err("--build-cpus wants a number of CPUs (1-4096), not '%s'",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'T':
			if (parse_uint(optarg, &bmin) || !bmin || bmin > 100000) {
				lab_err("--build-time wants minutes (1-100000), not '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'J': json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (!slurm) {
		lab_err("mmlab submit needs --slurm (the only batch system it drives)");
		return EXIT_USAGE;
	}
	if (optind >= argc) {
		lab_err("mmlab submit wants job files; see 'mmlab submit --help'");
		return EXIT_USAGE;
	}
	if (partition && !valid_token(partition)) {
		lab_err("--partition '%s' is not a Slurm partition name ([A-Za-z0-9._-])",
			partition);
		return EXIT_USAGE;
	}
	if (accel && strcmp(accel, "auto") && strcmp(accel, "kvm") && strcmp(accel, "tcg")) {
		lab_err("--accel is auto, kvm or tcg, not '%s'", accel);
		return EXIT_USAGE;
	}
	n = readlink("/proc/self/exe", mmlab, sizeof(mmlab) - 1);
	if (n <= 0) {
		lab_err("cannot find this mmlab binary (/proc/self/exe)");
		return EXIT_RUN_FAILED;
	}
	mmlab[n] = '\0';
	if (mkdir_p(gopts.results_dir, 0755))
		return EXIT_RUN_FAILED;
	/* the nodes must find the store at the same path: make it absolute */
	results = realpath(gopts.results_dir, NULL);
	if (!results) {
		lab_err("cannot resolve the results directory %s", gopts.results_dir);
		return EXIT_RUN_FAILED;
	}
	gopts.results_dir = results;
	s = store_open(results);
	q = s ? queue_open(results) : NULL;
	if (!q) {
		store_close(s);
		free(results);
		return EXIT_RUN_FAILED;
	}
	so = (struct submit_opts) { .mmlab = mmlab, .partition = partition, .accel = accel,
		.minutes = (unsigned int)minutes, .build_minutes = (unsigned int)bmin,
		.build_cpus = (unsigned int)bcpus,	/* 0: ask sinfo when a build needs it */
		.priority = (int)prio };
	out = json_array();
	for (int i = optind; i < argc; i++) {
		int rc = submit_one(q, s, argv[i], &so, out);

		if (rc && (!ret || rc == EXIT_USAGE))
			ret = rc;
	}
	if (json) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else {
		size_t i;
		json_t *j;

		json_array_foreach(out, i, j) {
			const char *key;
			json_t *v;

			printf("submitted job %lld: run %s, %lld boots as Slurm array job %s, "
			       "finish job %s",
			       (long long)json_integer_value(json_object_get(j, "id")),
			       json_string_value(json_object_get(j, "run")),
			       (long long)json_integer_value(json_object_get(j, "boots")),
			       json_string_value(json_object_get(j, "array_job")),
			       json_string_value(json_object_get(j, "finish_job")));
			json_object_foreach(json_object_get(j, "build_jobs"), key, v)
				printf(", kernel build job %s (%s)", json_string_value(v), key);
			putchar('\n');
		}
	}
	json_decref(out);
	queue_close(q);
	store_close(s);
	free(results);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Slurm's view for "mmlab queue status" */

static void slurm_states(const char *const argv[], json_t *states)
{
	struct spawn_opts so = { .timeout_s = 20 };
	struct spawn_result r;

	if (spawn_run(argv, &so, &r) == 0 && r.out) {
		char *save = NULL;

		for (char *line = strtok_r(r.out, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			char *sep = strpbrk(line, " |");

			if (!sep)
				continue;
			*sep = '\0';
			sep++;
			sep[strcspn(sep, " |")] = '\0';
			if (*line && *sep && !strstr(line, ".batch") && !strstr(line, ".extern"))
				json_object_set_new(states, line, json_string(sep));
		}
	}
	spawn_result_free(&r);
}

void slurm_status_fill(json_t *j, struct store *s)
{
	json_t *sl = json_object_get(j, "slurm"), *states = json_object(), *counts, *it;
	const char *arr = json_string_value(json_object_get(sl, "array"));
	const char *fin = json_string_value(json_object_get(sl, "finish"));
	const char *run = json_string_value(json_object_get(j, "run")), *key;
	size_t i, boot = 0;
	json_t *v;

	if (arr) {
		struct strbuf sb = STRBUF_INIT;
		char *ids;

		strbuf_addstr(&sb, arr);
		if (fin)
			strbuf_addf(&sb, ",%s", fin);
		json_object_foreach(json_object_get(sl, "builds"), key, v)
			strbuf_addf(&sb, ",%s", json_string_value(v));
		ids = strbuf_detach(&sb);
		const char *acct[] = { "sacct", "-n", "-P", "-X", "-j", ids, "-o", "JobID,State",
				       NULL };
		/* all states: ended tasks too, while slurmctld remembers them */
		const char *sq[] = { "squeue", "-h", "-r", "-t", "all", "-j", ids, "-o", "%i %T",
				     NULL };

		/* accounting (where it is on) knows finished tasks; squeue the live ones */
		slurm_states(acct, states);
		slurm_states(sq, states);
		free(ids);
	}
	json_object_set_new(sl, "states", states);
	counts = json_object();
	json_array_foreach(json_object_get(j, "items"), i, it) {
		char bkey[64];
		const char *st, *qstate, *state = "queued";
		unsigned int first = (unsigned int)json_integer_value(json_object_get(it, "first"));
		unsigned int count = (unsigned int)json_integer_value(json_object_get(it, "count"));
		bool stored = true;

		if (!strcmp(json_string_value(json_object_get(it, "kind")) ?: "", "build")) {
			/* the queue's state (the build step settles it), and Slurm's */
			const char *id = json_string_value(json_object_get(json_object_get(sl,
				"builds"), json_string_value(json_object_get(it, "variant"))));

			st = id ? json_string_value(json_object_get(states, id)) : NULL;
			if (st)
				json_object_set_new(it, "slurm_state", json_string(st));
			continue;
		}
		for (unsigned int k = 0; k < count; k++)
			stored &= store_iteration_done(s, run, json_string_value(
				json_object_get(it, "variant")), first + k);
		snprintf(bkey, sizeof(bkey), "%s_%zu", arr ? arr : "", boot++);
		st = json_string_value(json_object_get(states, bkey));
		qstate = json_string_value(json_object_get(it, "state"));
		if (stored)
			state = "done";
		else if (qstate && (!strcmp(qstate, "failed") || !strcmp(qstate, "cancelled")))
			state = qstate;	/* the queue's word: its kernel build failed */
		else if (st && (!strcmp(st, "RUNNING") || !strcmp(st, "COMPLETING")))
			state = "running";
		else if (st && strcmp(st, "PENDING") && strcmp(st, "COMPLETED"))
			state = "failed";
		else if (st && !strcmp(st, "COMPLETED"))
			state = "failed";	/* finished but stored nothing */
		if (st)
			json_object_set_new(it, "slurm_state", json_string(st));
		/* counts first: state may be the string set_new() below frees */
		json_object_set_new(counts, state, json_integer(
			json_integer_value(json_object_get(counts, state)) + 1));
		json_object_set_new(it, "state", json_string(state));
	}
	json_object_set_new(j, "counts", counts);
}
