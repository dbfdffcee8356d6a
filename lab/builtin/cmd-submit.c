// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-submit.c - "mmlab submit --slurm JOB...": the command line of the
 * Slurm submission (lab/batch/submit.c): each job becomes a run in the
 * shared results store, its boots an array job. See docs/queue.md.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "batch/queue.h"
#include "batch/slurm.h"
#include "batch/submit.h"
#include "store/store.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const submit_synopsis[] = {
	"mmlab submit --slurm [options] JOB.yaml...",
	NULL,
};

static const struct opt_usage submit_usage = {
	.synopsis = submit_synopsis,
	.text = "Create a run of each job in the results store, which every Slurm node\n"
		"must see at the same path, and submit it with sbatch: a build job per\n"
		"kernel built from source ('mmlab queue build'), an array job depending on\n"
		"them with one task per boot (variant x iteration), each running 'mmlab\n"
		"queue exec' on its node, and a job depending on it that marks the run\n"
		"complete. The kernel cache (MMLAB_CACHE) and the kernel trees must be\n"
		"shared too.\n"
		"'mmlab queue status' shows Slurm's state; 'mmlab compare RUN' reads the\n"
		"results as for a local run.",
	.footer = "Exit status: 0 submitted, 1 sbatch failed, 2 bad usage or a bad job.",
};

static int partition_cb(const struct opt *o, const char *arg)
{
	if (!slurm_valid_name(arg)) {
		lab_err("--partition '%s' is not a Slurm partition name ([A-Za-z0-9._-])", arg);
		return -1;
	}
	*(const char **)o->value = arg;
	return 0;
}

static int results_cb(const struct opt *o, const char *arg)
{
	(void)o;
	gopts.results_dir = arg;
	return 0;
}

/* the shared store, by the absolute path every node uses; NULL after a message */
static char *results_path(void)
{
	char *results;

	if (mkdir_p(gopts.results_dir, 0755))
		return NULL;
	results = realpath(gopts.results_dir, NULL);
	if (!results)
		lab_err("cannot resolve the results directory %s", gopts.results_dir);
	return results;
}

static void print_submitted(const struct submitted_list *out)
{
	for (size_t i = 0; i < out->n; i++) {
		const struct submitted *d = &out->v[i];

		printf("submitted job %lld: run %s, %lld boots as Slurm array job %s, "
		       "finish job %s",
		       d->id, d->run, (long long)d->boots, d->array_job, d->finish_job);
		for (size_t k = 0; k < d->build_variants.n; k++)
			printf(", kernel build job %s (%s)", d->build_ids.v[k],
			       d->build_variants.v[k]);
		putchar('\n');
	}
}

/* open the store at results, submit the files, print; the exit status */
static int submit(char *results, char **files, int n, struct submit_opts *so, bool json)
{
	struct store *s = store_open(results);
	struct queue *q = s ? queue_open(results) : NULL;
	struct submitted_list out = { 0 };
	int ret;

	if (!q) {
		store_close(s);
		return EXIT_RUN_FAILED;
	}
	ret = batch_exit(submit_jobs(q, s, files, (size_t)n, so, &out));
	if (json) {
		json_t *j = submitted_list_json(&out);

		json_dumpf(j, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(j);
	} else {
		print_submitted(&out);
	}
	submitted_list_release(&out);
	queue_close(q);
	store_close(s);
	return ret;
}

int cmd_submit(int argc, char **argv)
{
	struct submit_opts so = { .build_minutes = 120,
				  .cache_dir = gopts.cache_dir,
				  .connect_uri = gopts.connect_uri };
	unsigned int prio = 0;
	bool slurm = false, json = false;
	char mmlab[PATH_MAX], *results;
	const char *given;
	ssize_t len;
	int n, ret;
	const struct opt opts[] = {
		OPT_BOOL(0, "slurm", &slurm, "submit to Slurm (the only batch system so far)"),
		OPT_CALLBACK(0, "partition", &so.partition, "P", "sbatch --partition",
			     partition_cb),
		OPT_CALLBACK(0, "results", NULL, "DIR",
			     "the shared results store (as the global --results)", results_cb),
		OPT_CALLBACK(0, "accel", &so.accel, "M",
			     "auto, kvm or tcg (default: the job's); the choice is\n"
			     "made on this host and recorded in the run",
			     opt_accel_cb),
		OPT_UINT(0, "time", &so.minutes, 1, 100000, "MIN",
			 "sbatch --time per task, minutes (default: from the\njob's timeouts)"),
		OPT_UINT(0, "build-cpus", &so.build_cpus, 1, 4096, "N",
			 "CPUs of a build job (default: the CPUs of the\n"
			 "partition's smallest node, 'sinfo', at most 32)"),
		OPT_UINT(0, "build-time", &so.build_minutes, 1, 100000, "MIN",
			 "sbatch --time of a build job (default 120)"),
		OPT_UINT(0, "priority", &prio, 0, 1000000, "N",
			 "recorded in the queue (Slurm decides the order)"),
		OPT_BOOL(0, "json", &json, "print what was submitted as JSON"),
		OPT_END(),
	};

	n = parse_options(argc, argv, opts, &submit_usage, 0);
	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (!slurm) {
		lab_err("mmlab submit needs --slurm (the only batch system it drives)");
		return EXIT_USAGE;
	}
	if (!n) {
		lab_err("mmlab submit wants job files; see 'mmlab submit --help'");
		return EXIT_USAGE;
	}
	len = readlink("/proc/self/exe", mmlab, sizeof(mmlab) - 1);
	if (len <= 0) {
		lab_err("cannot find this mmlab binary (/proc/self/exe)");
		return EXIT_RUN_FAILED;
	}
	mmlab[len] = '\0';
	so.mmlab = mmlab;
	so.priority = (int)prio;
	/* the nodes must find the store at the same path: make it absolute */
	results = results_path();
	if (!results)
		return EXIT_RUN_FAILED;
	given = gopts.results_dir;
	gopts.results_dir = results;
	ret = submit(results, argv, n, &so, json);
	gopts.results_dir = given;
	free(results);
	return ret;
}
