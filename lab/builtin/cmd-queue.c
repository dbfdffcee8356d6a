// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-queue.c - "mmlab queue add|run|status|cancel|retry" (and the
 * "build"/"exec"/"finish" steps Slurm jobs call): the command line of the
 * batch queue (lab/batch/). Each subcommand has its own option table,
 * calls one engine function and prints what it did. See docs/queue.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "batch/enqueue.h"
#include "batch/pool.h"
#include "batch/queue.h"
#include "batch/queue_status.h"
#include "batch/runstate.h"
#include "batch/status.h"
#include "batch/steps.h"
#include "store/store.h"
#include "store/run_record.h"
#include "vm/placement.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const queue_synopsis[] = {
	"mmlab queue add [--priority N] [--accel M] [--json] JOB.yaml...",
	"mmlab queue run [--jobs N] [--build-jobs M]",
	"mmlab queue status [--json] [--items]",
	"mmlab queue cancel ID",
	"mmlab queue retry ID",
	"mmlab queue build RUN --variant V (one kernel; what Slurm build steps run)",
	"mmlab queue exec RUN --boot K     (one boot; what Slurm tasks run)",
	"mmlab queue finish RUN            (mark a Slurm-run run complete)",
	NULL,
};

static const char queue_text[] =
	"A resumable batch queue in the results store (RESULTS/queue.db). 'add'\n"
	"creates a run per job file and queues its boots (variant x iteration);\n"
	"'run' boots them, up to N VMs at once, each on its own host CPUs (and host\n"
	"NUMA nodes), until the queue is empty. 'run' is safe to kill -9 and start\n"
	"again: boots that were running are requeued, stored iterations are kept.";

static const char queue_footer[] =
	"Exit status: 0 success, 1 a boot failed or the run was interrupted, 2 bad\n"
	"usage or input. See docs/queue.md.";

/* every option of every subcommand; the table of subcommands says whose */
struct queue_args {
	int priority;
	const char *accel, *variant, *boot;
	unsigned int jobs, build_jobs;
	bool json, items;
	long long id; /* the operand of cancel and retry */
	/* what a subcommand works on */
	char **args; /* the operands */
	int n;
	struct store *s;
	struct queue *q; /* NULL for finish */
};

int batch_exit(enum batch_result r)
{
	switch (r) {
	case BATCH_OK:
		return 0;
	case BATCH_BAD_INPUT:
		return EXIT_USAGE;
	case BATCH_INTERRUPTED:
		return EXIT_INTERRUPTED;
	default:
		return EXIT_RUN_FAILED;
	}
}

static int priority_cb(const struct opt *o, const char *arg)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (!*arg || *end || v < -1000000 || v > 1000000) {
		lab_err("--priority wants an integer, not '%s'", arg);
		return -1;
	}
	*(int *)o->value = (int)v;
	return 0;
}

/* bit i: entry i of queue_options()' table */
enum {
	O_PRIORITY = 1u << 0,
	O_ACCEL = 1u << 1,
	O_JOBS = 1u << 2,
	O_BUILD_JOBS = 1u << 3,
	O_ITEMS = 1u << 4,
	O_VARIANT = 1u << 5,
	O_BOOT = 1u << 6,
	O_JSON = 1u << 7,
	O_ALL = (1u << 8) - 1,
};

/* the options whose bits are in mask, in help order, into out[] (OPT_END last) */
static void queue_options(struct queue_args *a, unsigned int mask, struct opt out[9])
{
	const struct opt all[] = {
		OPT_CALLBACK(0, "priority", &a->priority, "N", "higher runs first (default 0)",
			     priority_cb),
		OPT_CALLBACK(0, "accel", &a->accel, "M", "auto, kvm or tcg (default: the job's)",
			     opt_accel_cb),
		OPT_UINT(0, "jobs", &a->jobs, 1, PLACE_MAX_CPUS, "N",
			 "at most N VMs at once (default: as many as the host's\n"
			 "CPUs and free memory hold, one host CPU per vCPU)"),
		OPT_UINT(0, "build-jobs", &a->build_jobs, 1, 64, "M",
			 "kernel builds at once, beside the VMs (default 1); each\n"
			 "kernel a job builds from source is one build item,\n"
			 "shared by every queued job that needs the same kernel"),
		OPT_BOOL(0, "items", &a->items, "status: every item with its state and placement"),
		OPT_STRING(0, "variant", &a->variant, "V",
			   "build: the variant whose kernel to build"),
		OPT_STRING(0, "boot", &a->boot, "K",
			   "exec: the boot of the run's plan to run (0-based)"),
		OPT_BOOL(0, "json", &a->json, "machine-readable output"),
	};
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		if (mask & (1u << i))
			out[n++] = all[i];
	out[n] = (struct opt)OPT_END();
}

static void usage(FILE *f)
{
	struct queue_args a = { 0 };
	const struct opt_usage u = { queue_synopsis, queue_text, queue_footer };
	struct opt opts[9];

	queue_options(&a, O_ALL, opts);
	usage_with_options(f, opts, &u);
}

static void print_added(long long id, const char *run, const struct run_record *rec,
			const char *file)
{
	char *kernels = queue_build_variants(rec);
	size_t n = rec->nboots;

	printf("queued job %lld: run %s, %zu boot%s%s%s (%s)\n", id, run, n, n == 1 ? "" : "s",
	       kernels ? ", kernels built from source: " : "", kernels ? kernels : "", file);
	free(kernels);
}

static int do_add(struct queue_args *a)
{
	struct run_opts ro = { .accel = a->accel,
			       .cache_dir = gopts.cache_dir,
			       .connect_uri = gopts.connect_uri };
	json_t *out = json_array();
	int ret = 0;

	for (int i = 0; i < a->n; i++) {
		char *run = NULL;
		long long id;
		struct run_record rec;
		enum batch_result rc = queue_add_job(a->q, a->s, a->args[i], a->priority, &ro, NULL,
						     &run, &id, &rec);

		if (rc) {
			ret = batch_exit(rc);
			continue;
		}
		if (!a->json)
			print_added(id, run, &rec, a->args[i]);
		json_array_append_new(out,
				      json_pack("{s:I, s:s, s:s, s:i}", "id", (json_int_t)id, "run",
						run, "file", a->args[i], "boots", (int)rec.nboots));
		run_record_release(&rec);
		free(run);
	}
	if (a->json)
		print_json(out);
	json_decref(out);
	return ret;
}

static int do_run(struct queue_args *a)
{
	struct pool_opts po = { .jobs = a->jobs,
				.build_jobs = a->build_jobs,
				.cache_dir = gopts.cache_dir,
				.connect_uri = gopts.connect_uri };

	return pool_run(a->q, a->s, &po) ? EXIT_RUN_FAILED : 0;
}

static void print_item(const struct queue_status_item *it)
{
	const char *err = it->error;
	char *pl;

	if (it->build) {
		printf("     item %lld kernel build of %s (request %.12s, %lld boots need it): "
		       "%s%s%s\n",
		       it->id, it->variant, it->request, it->needed_by, it->state, err ? ": " : "",
		       err ?: "");
		return;
	}
	pl = it->placement ? json_dumps(it->placement, JSON_COMPACT) : NULL;
	printf("     item %lld %s/%u: %s%s%s%s%s\n", it->id, it->variant, it->first, it->state,
	       pl ? " " : "", pl ? pl : "", err ? ": " : "", err ?: "");
	free(pl);
}

/* the job's line of counts, and its kernel builds */
static void print_job(const struct queue_status_job *j)
{
	const struct qs_count *c = j->counts;
	size_t n = j->ncounts;
	char etab[32] = "-";

	if (j->has_eta)
		snprintf(etab, sizeof(etab), "%.0fs", j->eta_s);
	printf("%-4lld %-40s %4lld %5lld %5lld %6lld %6lld %6lld %8s\n", j->id, j->run, j->priority,
	       qs_count_of(c, n, "done"), qs_count_of(c, n, "running"), qs_count_of(c, n, "queued"),
	       qs_count_of(c, n, "failed"), qs_count_of(c, n, "cancelled"), etab);
	if (!j->nbuilds)
		return;
	printf("     kernel builds:");
	for (size_t i = 0; i < j->nbuilds; i++)
		printf("%s %lld %s", i ? "," : "", j->builds[i].n, j->builds[i].state);
	putchar('\n');
}

/* the Slurm jobs of a job submitted with "mmlab submit --slurm" */
static void print_slurm(const struct queue_status_slurm *sl)
{
	printf("     slurm: array job %s, finish job %s", sl->array ?: "?", sl->finish ?: "?");
	for (size_t i = 0; i < sl->nbuilds; i++)
		printf(", build job %s (%s)", sl->builds[i].value, sl->builds[i].key);
	for (size_t i = 0; i < sl->nstates; i++)
		printf(", %s %s", sl->states[i].key, sl->states[i].value);
	putchar('\n');
}

static int print_status(const json_t *doc, bool items)
{
	struct queue_status st;

	if (queue_status_from_json(doc, &st))
		return -1;
	printf("%-4s %-40s %4s %5s %5s %6s %6s %6s %8s\n", "ID", "RUN", "PRI", "DONE", "RUN",
	       "QUEUED", "FAILED", "CANCEL", "ETA");
	for (size_t i = 0; i < st.njobs; i++) {
		const struct queue_status_job *j = &st.jobs[i];

		print_job(j);
		if (j->has_slurm)
			print_slurm(&j->slurm);
		for (size_t k = 0; items && k < j->nitems; k++)
			print_item(&j->items[k]);
	}
	queue_status_release(&st);
	return 0;
}

static int do_status(struct queue_args *a)
{
	json_t *st = batch_status(a->q, a->s);
	int ret = st ? 0 : EXIT_RUN_FAILED;

	if (st && a->json)
		print_json(st);
	else if (st && print_status(st, a->items))
		ret = EXIT_RUN_FAILED;
	json_decref(st);
	return ret;
}

static int do_cancel(struct queue_args *a)
{
	int moved = batch_cancel(a->q, a->s, a->id);

	if (moved >= 0)
		printf("job %lld: %d queued boot%s cancelled (running ones finish)\n", a->id, moved,
		       moved == 1 ? "" : "s");
	return moved < 0 ? EXIT_USAGE : 0;
}

static int do_retry(struct queue_args *a)
{
	int moved = batch_retry(a->q, a->s, a->id);

	if (moved >= 0)
		printf("job %lld: %d boot%s queued again\n", a->id, moved, moved == 1 ? "" : "s");
	return moved < 0 ? EXIT_USAGE : 0;
}

static int do_build(struct queue_args *a)
{
	return batch_exit(step_build(a->s, a->args[0], a->variant, gopts.cache_dir));
}

static int do_exec(struct queue_args *a)
{
	return batch_exit(step_exec(a->s, a->args[0], a->boot, gopts.cache_dir, gopts.connect_uri));
}

static int do_finish(struct queue_args *a)
{
	return batch_exit(runstate_finish(a->s, a->args[0]));
}

enum operands { NO_OPERANDS, JOB_FILES, JOB_ID, ONE_RUN };

/* in the order of queue_synopsis */
static const struct subcmd {
	const char *name;
	unsigned int opts; /* the options it takes: O_* */
	enum operands operands;
	bool node_step; /* a Slurm job's step, maybe on another host: files only, no SQLite */
	int (*fn)(struct queue_args *a);
} subcmds[] = {
	{ "add", O_PRIORITY | O_ACCEL | O_JSON, JOB_FILES, false, do_add },
	{ "run", O_JOBS | O_BUILD_JOBS, NO_OPERANDS, false, do_run },
	{ "status", O_JSON | O_ITEMS, NO_OPERANDS, false, do_status },
	{ "cancel", 0, JOB_ID, false, do_cancel },
	{ "retry", 0, JOB_ID, false, do_retry },
	{ "build", O_VARIANT, ONE_RUN, true, do_build },
	{ "exec", O_BOOT, ONE_RUN, true, do_exec },
	{ "finish", 0, ONE_RUN, true, do_finish },
};
_Static_assert(ARRAY_SIZE(subcmds) + 1 == ARRAY_SIZE(queue_synopsis),
	       "a synopsis line per subcommand");

/* the operands are what c wants; 0, or -1 after a message */
static int check_operands(const struct subcmd *c, int n, char **args, struct queue_args *a)
{
	uint64_t id;

	switch (c->operands) {
	case JOB_FILES:
		if (n)
			return 0;
		lab_err("queue add wants job files; see 'mmlab queue --help'");
		return -1;
	case NO_OPERANDS:
		if (!n)
			return 0;
		lab_err("'mmlab queue %s' takes no arguments; see 'mmlab queue --help'", c->name);
		return -1;
	case JOB_ID:
		if (n == 1 && !parse_uint(args[0], &id) && id) {
			a->id = (long long)id;
			return 0;
		}
		lab_err("'mmlab queue %s' wants a queue job id (a number from 'mmlab queue "
			"status'), not '%s'",
			c->name, n ? args[0] : "");
		return -1;
	default:
		if (n == 1)
			return 0;
		lab_err("'mmlab queue %s' wants one run; see 'mmlab queue --help'", c->name);
		return -1;
	}
}

/* argv[0] is "queue SUB": parse c's options and operands, open the store, run it */
static int subcmd_main(const struct subcmd *c, int argc, char **argv)
{
	const char *const synopsis[] = { queue_synopsis[c - subcmds], NULL };
	const struct opt_usage u = { synopsis, queue_text, queue_footer };
	struct queue_args a = { .build_jobs = 1 };
	struct opt opts[9];
	int n, ret;

	queue_options(&a, c->opts, opts);
	n = parse_options(argc, argv, opts, &u, 0);
	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (check_operands(c, n, argv, &a))
		return EXIT_USAGE;
	a.args = argv;
	a.n = n;
	a.s = c->node_step ? store_open_files(gopts.results_dir) : store_open(gopts.results_dir);
	if (a.s && !c->node_step)
		a.q = queue_open(gopts.results_dir);
	if (!a.s || (!a.q && !c->node_step)) {
		store_close(a.s);
		return EXIT_RUN_FAILED;
	}
	ret = c->fn(&a);
	queue_close(a.q);
	store_close(a.s);
	return ret;
}

int cmd_queue(int argc, char **argv)
{
	struct opt opts[ARRAY_SIZE(subcmds) + 1];
	char *name;
	int sub = -1, n, ret;

	for (size_t i = 0; i < ARRAY_SIZE(subcmds); i++)
		opts[i] = (struct opt)OPT_SUBCOMMAND(subcmds[i].name, &sub, (int)i);
	opts[ARRAY_SIZE(subcmds)] = (struct opt)OPT_END();
	n = parse_options(argc, argv, opts, NULL, PARSE_OPT_NO_HELP_PRINT);
	if (n == PARSE_OPT_HELP || !n)
		usage(n ? stdout : stderr);
	if (n <= 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	/* "queue SUB" names the subcommand in parse_options' messages */
	name = xasprintf("queue %s", subcmds[sub].name);
	argv[0] = name;
	ret = subcmd_main(&subcmds[sub], n, argv);
	free(name);
	return ret;
}
