// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-queue.c - "mmlab queue add|run|status|cancel|retry" (and the
 * "build"/"exec"/"finish" steps Slurm jobs call): the command line of the
 * batch queue (lab/batch/). See docs/queue.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "vm/placement.h"
#include "batch/enqueue.h"
#include "batch/pool.h"
#include "batch/queue.h"
#include "batch/runstate.h"
#include "batch/status.h"
#include "batch/steps.h"
#include "store/results.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab queue add [--priority N] [--accel M] [--json] JOB.yaml...\n"
		"       mmlab queue run [--jobs N] [--build-jobs M]\n"
		"       mmlab queue status [--json] [--items]\n"
		"       mmlab queue cancel ID\n"
		"       mmlab queue retry ID\n"
		"       mmlab queue build RUN --variant V (one kernel; what Slurm build steps run)\n"
		"       mmlab queue exec RUN --boot K     (one boot; what Slurm tasks run)\n"
		"       mmlab queue finish RUN            (mark a Slurm-run run complete)\n"
		"\n"
		"A resumable batch queue in the results store (RESULTS/queue.db). 'add'\n"
		"creates a run per job file and queues its boots (variant x iteration);\n"
		"'run' boots them, up to N VMs at once, each on its own host CPUs (and host\n"
		"NUMA nodes), until the queue is empty. 'run' is safe to kill -9 and start\n"
		"again: boots that were running are requeued, stored iterations are kept.\n"
		"\n"
		"options:\n"
		"  --priority N     higher runs first (default 0)\n"
		"  --accel M        auto, kvm or tcg (default: the job's)\n"
		"  --jobs N         at most N VMs at once (default: as many as the host's\n"
		"                   CPUs and free memory hold, one host CPU per vCPU)\n"
		"  --build-jobs M   kernel builds at once, beside the VMs (default 1); each\n"
		"                   kernel a job builds from source is one build item,\n"
		"                   shared by every queued job that needs the same kernel\n"
		"  --items          status: every item with its state and placement\n"
		"  --variant V      build: the variant whose kernel to build\n"
		"  --boot K         exec: the boot of the run's plan to run (0-based)\n"
		"  --json           machine-readable output\n"
		"  -h, --help       this help\n"
		"\n"
		"Exit status: 0 success, 1 a boot failed or the run was interrupted, 2 bad\n"
		"usage or input. See docs/queue.md.\n");
}

static int parse_prio(const char *s, int *out)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (!*s || *end || v < -1000000 || v > 1000000) {
		lab_err("--priority wants an integer, not '%s'", s);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int do_add(struct queue *q, struct store *s, int argc, char **argv, int priority,
		  const char *accel, bool json)
{
	json_t *out = json_array();
	int ret = 0;

	if (optind >= argc) {
		lab_err("queue add wants job files; see 'mmlab queue --help'");
		json_decref(out);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		char *run = NULL, *kernels;
		long long id;
		json_t *boots;
		int rc = queue_add_job(q, s, argv[i], priority, accel, NULL, &run, &id, &boots);

		if (rc) {
			ret = rc;
			continue;
		}
		kernels = queue_build_variants(boots);
		if (!json)
			printf("queued job %lld: run %s, %zu boot%s%s%s (%s)\n", id, run,
			       json_array_size(boots), json_array_size(boots) == 1 ? "" : "s",
			       kernels ? ", kernels built from source: " : "",
			       kernels ? kernels : "", argv[i]);
		json_array_append_new(out, json_pack("{s:I, s:s, s:s, s:i}", "id",
			(json_int_t)id, "run", run, "file", argv[i], "boots",
			(int)json_array_size(boots)));
		free(kernels);
		json_decref(boots);
		free(run);
	}
	if (json) {
		json_dumpf(out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	}
	json_decref(out);
	return ret;
}

static void print_item(json_t *it)
{
	const char *err = json_string_value(json_object_get(it, "error"));
	char *pl;

	if (!strcmp(json_string_value(json_object_get(it, "kind")) ?: "", "build")) {
		printf("     item %lld kernel build of %s (request %.12s, %lld boots need it): "
		       "%s%s%s\n", (long long)json_integer_value(json_object_get(it, "id")),
		       json_string_value(json_object_get(it, "variant")),
		       json_string_value(json_object_get(it, "request")),
		       (long long)json_integer_value(json_object_get(it, "needed_by")),
		       json_string_value(json_object_get(it, "state")), err ? ": " : "",
		       err ?: "");
		return;
	}
	pl = json_object_get(it, "placement") ?
	     json_dumps(json_object_get(it, "placement"), JSON_COMPACT) : NULL;
	printf("     item %lld %s/%lld: %s%s%s%s%s\n",
	       (long long)json_integer_value(json_object_get(it, "id")),
	       json_string_value(json_object_get(it, "variant")),
	       (long long)json_integer_value(json_object_get(it, "first")),
	       json_string_value(json_object_get(it, "state")), pl ? " " : "", pl ? pl : "",
	       err ? ": " : "", err ?: "");
	free(pl);
}

static void print_status(json_t *st, bool items)
{
	size_t i, k;
	json_t *j, *it;

	printf("%-4s %-40s %4s %5s %5s %6s %6s %6s %8s\n", "ID", "RUN", "PRI", "DONE",
	       "RUN", "QUEUED", "FAILED", "CANCEL", "ETA");
	json_array_foreach(st, i, j) {
		json_t *c = json_object_get(j, "counts"), *eta = json_object_get(j, "eta_s");
		char etab[32] = "-";

		if (json_is_number(eta))
			snprintf(etab, sizeof(etab), "%.0fs", json_number_value(eta));
		printf("%-4lld %-40s %4lld %5lld %5lld %6lld %6lld %6lld %8s\n",
		       (long long)json_integer_value(json_object_get(j, "id")),
		       json_string_value(json_object_get(j, "run")),
		       (long long)json_integer_value(json_object_get(j, "priority")),
		       (long long)json_integer_value(json_object_get(c, "done")),
		       (long long)json_integer_value(json_object_get(c, "running")),
		       (long long)json_integer_value(json_object_get(c, "queued")),
		       (long long)json_integer_value(json_object_get(c, "failed")),
		       (long long)json_integer_value(json_object_get(c, "cancelled")), etab);
		if (json_object_size(json_object_get(j, "builds"))) {
			const char *key;
			json_t *v;
			const char *sep = "";

			printf("     kernel builds:");
			json_object_foreach(json_object_get(j, "builds"), key, v) {
				printf("%s %lld %s", sep, (long long)json_integer_value(v), key);
				sep = ",";
			}
			putchar('\n');
		}
		if (json_is_object(json_object_get(j, "slurm"))) {
			json_t *sl = json_object_get(j, "slurm");
			const char *key;
			json_t *v;

			printf("     slurm: array job %s, finish job %s",
			       json_string_value(json_object_get(sl, "array")) ?: "?",
			       json_string_value(json_object_get(sl, "finish")) ?: "?");
			json_object_foreach(json_object_get(sl, "builds"), key, v)
				printf(", build job %s (%s)", json_string_value(v), key);
			json_object_foreach(json_object_get(sl, "states"), key, v)
				printf(", %s %s", key, json_string_value(v));
			putchar('\n');
		}
		if (!items)
			continue;
		json_array_foreach(json_object_get(j, "items"), k, it)
			print_item(it);
	}
}

static int do_status(struct queue *q, struct store *s, bool json, bool items)
{
	json_t *st = batch_status(q, s);

	if (st && json) {
		json_dumpf(st, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (st) {
		print_status(st, items);
	}
	json_decref(st);
	return st ? 0 : EXIT_RUN_FAILED;
}

static int parse_id(const char *s, long long *id)
{
	uint64_t v;

	if (!s || parse_uint(s, &v) || !v) {
		lab_err("wants a queue job id (a number from 'mmlab queue status'), not '%s'",
			s ? s : "");
		return -1;
	}
	*id = (long long)v;
	return 0;
}

int cmd_queue(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "priority", required_argument, NULL, 'p' },
		{ "accel", required_argument, NULL, 'a' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "build-jobs", required_argument, NULL, 'b' },
		{ "boot", required_argument, NULL, 'k' },
		{ "variant", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'J' },
		{ "items", no_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub, *accel = NULL, *boot = NULL, *variant = NULL;
	bool json = false, items = false;
	int priority = 0, c, ret;
	uint64_t jobs = 0, build_jobs = 1;
	struct queue *q;
	struct store *s;
	long long id = 0;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	sub = argv[1];
	argc--;
	argv++;
	optind = 0;	/* reinitialise getopt: options may follow operands */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (parse_prio(optarg, &priority))
				return EXIT_USAGE;
			break;
		case 'a': accel = optarg; break;
		case 'j':
			if (parse_uint(optarg, &jobs) || !jobs || jobs > PLACE_MAX_CPUS) {
				lab_err("--jobs wants a number of VMs from 1 to %d, not '%s'",
					PLACE_MAX_CPUS, optarg);
				return EXIT_USAGE;
			}
			break;
		case 'b':
			if (parse_uint(optarg, &build_jobs) || !build_jobs || build_jobs > 64) {
				lab_err("--build-jobs wants a number of builds from 1 to 64, not '%s'",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case 'k': boot = optarg; break;
		case 'v': variant = optarg; break;
		case 'J': json = true; break;
		case 'i': items = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (accel && strcmp(accel, "auto") && strcmp(accel, "kvm") && strcmp(accel, "tcg")) {
		lab_err("--accel is auto, kvm or tcg, not '%s'", accel);
		return EXIT_USAGE;
	}
	if (strcmp(sub, "add") && strcmp(sub, "run") && strcmp(sub, "status") &&
	    strcmp(sub, "cancel") && strcmp(sub, "retry") && strcmp(sub, "exec") &&
	    strcmp(sub, "finish") && strcmp(sub, "build")) {
		lab_err("no queue command '%s'; 'mmlab queue --help' lists them", sub);
		return EXIT_USAGE;
	}
	if ((!strcmp(sub, "run") || !strcmp(sub, "status")) && optind != argc) {
		lab_err("'mmlab queue %s' takes no arguments; see 'mmlab queue --help'", sub);
		return EXIT_USAGE;
	}
	if ((!strcmp(sub, "cancel") || !strcmp(sub, "retry")) &&
	    (optind != argc - 1 || parse_id(argv[optind], &id)))
		return EXIT_USAGE;
	if ((!strcmp(sub, "exec") || !strcmp(sub, "finish") || !strcmp(sub, "build")) &&
	    optind != argc - 1) {
		lab_err("'mmlab queue %s' wants one run; see 'mmlab queue --help'", sub);
		return EXIT_USAGE;
	}
	s = store_open(gopts.results_dir);
	if (!s)
		return EXIT_RUN_FAILED;
	if (!strcmp(sub, "finish")) {
		ret = runstate_finish(s, argv[optind]);
		store_close(s);
		return ret;
	}
	q = queue_open(gopts.results_dir);
	if (!q) {
		store_close(s);
		return EXIT_RUN_FAILED;
	}
	if (!strcmp(sub, "exec")) {
		ret = step_exec(q, s, argv[optind], boot);
	} else if (!strcmp(sub, "build")) {
		ret = step_build(q, s, argv[optind], variant, gopts.cache_dir);
	} else if (!strcmp(sub, "add")) {
		ret = do_add(q, s, argc, argv, priority, accel, json);
	} else if (!strcmp(sub, "run")) {
		struct pool_opts po = { .jobs = (unsigned int)jobs,
					.build_jobs = (unsigned int)build_jobs,
					.cache_dir = gopts.cache_dir };

		ret = pool_run(q, s, &po);
	} else if (!strcmp(sub, "status")) {
		ret = do_status(q, s, json, items);
	} else {
		int n = !strcmp(sub, "cancel") ? batch_cancel(q, s, id) : batch_retry(q, s, id);

		ret = n < 0 ? EXIT_USAGE : 0;
		if (n >= 0 && !strcmp(sub, "cancel"))
			printf("job %lld: %d queued boot%s cancelled (running ones finish)\n",
			       id, n, n == 1 ? "" : "s");
		else if (n >= 0)
			printf("job %lld: %d boot%s queued again\n", id, n, n == 1 ? "" : "s");
	}
	queue_close(q);
	store_close(s);
	return ret;
}
