// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-results.c - "mmlab results list|show": what the store holds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "store/import.h"
#include "store/results.h"
#include "lib/parse-options.h"
#include "lib/util.h"

static const char *const results_synopsis[] = {
	"mmlab results list [--json]", "mmlab results show [RUN] [--json]",
	"mmlab results path [RUN]",    "mmlab results reindex",
	"mmlab results import DIR",    NULL,
};

static const struct opt_usage results_usage = {
	.synopsis = results_synopsis,
	.text = "list   the stored runs, newest first: id, job, status, iterations ok/all\n"
		"show   one run (the latest when RUN is omitted; RUN may be a unique part of\n"
		"       the id): its host, variants, kernels and each iteration's status,\n"
		"       boot phases (docs/performance.md) and metrics; --json prints the\n"
		"       whole run as documented in docs/mmlab.md\n"
		"path   the run's directory\n"
		"reindex  rebuild the index (mmlab.db) from the files alone; the files are\n"
		"       the truth, the index can always be thrown away\n"
		"import DIR  the runs of a store copied from another lab server (rsync):\n"
		"       each run is checked whole first (a partial copy is refused, naming\n"
		"       what is missing), keeps its id, gets its provenance in import.json\n"
		"       (store, host, when); a run already here is skipped. Exit 1 when a\n"
		"       run was refused\n"
		"\n"
		"The store is --results DIR, $MMLAB_RESULTS, or ./results.",
};

/* the subcommands, each with the options it takes */
static const struct results_sub {
	const char *name;
	bool json; /* takes --json */
	bool run; /* takes a RUN */
} results_subs[] = {
	{ "list", true, false },     { "show", true, true },	{ "path", false, true },
	{ "reindex", false, false }, { "import", false, true },
};

static int do_list(struct store *s, bool json)
{
	json_t *runs = store_run_list(s), *r;
	size_t i;

	if (!runs)
		return EXIT_RUN_FAILED;
	if (json) {
		json_dumpf(runs, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
	} else if (!json_array_size(runs)) {
		printf("no runs in %s yet; 'mmlab run JOB' makes one\n", store_dir(s));
	} else {
		printf("%-44s %-16s %-11s %s\n", "RUN", "JOB", "STATUS", "ITERATIONS OK/ALL");
		json_array_foreach(runs, i, r)
			printf("%-44s %-16s %-11s %lld/%lld\n",
			       json_string_value(json_object_get(r, "run")),
			       json_string_value(json_object_get(r, "job")),
			       json_string_value(json_object_get(r, "status")),
			       (long long)json_integer_value(json_object_get(r, "iterations_ok")),
			       (long long)json_integer_value(json_object_get(r, "iterations")));
	}
	json_decref(runs);
	return 0;
}

static const char *js(json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? v : "-";
}

/* boot.phases in the order they happen (iteration.json sorts its keys) */
static const char *const phase_names[] = {
	"stage",	 "define", "start",    "guest_to_agent", "workload",
	"poweroff_seen", "guest",  "teardown", "collect",	 "store",
};

/* where the boot's wall time went (boot.phases), one line */
static void show_phases(json_t *it)
{
	json_t *ph = json_object_get(json_object_get(it, "boot"), "phases"), *x;
	double sum = 0;

	if (!json_object_size(ph))
		return;
	printf("    boot phases (s):");
	for (size_t i = 0; i < ARRAY_SIZE(phase_names); i++) {
		x = json_object_get(ph, phase_names[i]);
		if (!json_is_number(x))
			continue;
		printf(" %s %.3f", phase_names[i], json_number_value(x));
		sum += json_number_value(x);
	}
	printf("; total %.3f\n", sum);
}

static void show_iteration(json_t *it)
{
	json_t *m = json_object_get(it, "metrics"), *nodes, *n, *x;
	const char *key;
	size_t i;

	printf("  iteration %lld: %s", (long long)json_integer_value(json_object_get(it, "index")),
	       js(it, "status"));
	if (json_object_get(it, "reason"))
		printf(" (%s)", js(it, "reason"));
	printf(", guest kernel %s", js(json_object_get(it, "guest"), "kernel_release"));
	nodes = json_object_get(json_object_get(it, "guest"), "nodes");
	printf(", %zu node%s", json_array_size(nodes), json_array_size(nodes) == 1 ? "" : "s");
	json_array_foreach(nodes, i, n)
		printf("%s node%lld cpus %s %lld kB", i ? ";" : ":",
		       (long long)json_integer_value(json_object_get(n, "id")), js(n, "cpus"),
		       (long long)json_integer_value(json_object_get(n, "memory_kb")));
	printf("\n");
	show_phases(it);
	json_object_foreach(m, key, x) {
		/* per-node and numastat rows only with --json: they are many */
		if (!strncmp(key, "node", 4) || !strncmp(key, "numastat.", 9))
			continue;
		if (!strncmp(key, "vmstat.", 7) && json_number_value(x) == 0)
			continue;
		if (json_is_integer(x))
			printf("    %-40s %lld\n", key, (long long)json_integer_value(x));
		else
			printf("    %-40s %.6g\n", key, json_number_value(x));
	}
	if (json_object_get(it, "console_excerpt"))
		printf("    console:\n%s\n", js(it, "console_excerpt"));
}

static int do_show(struct store *s, const char *run, bool json)
{
	json_t *r = store_load_run(s, run), *v, *it;
	size_t i, k;

	if (!r)
		return EXIT_USAGE;
	if (json) {
		json_dumpf(r, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
		fputc('\n', stdout);
		json_decref(r);
		return 0;
	}
	printf("run %s\njob %s (%s)\nstatus %s\ncreated %s, finished %s\n", js(r, "run"),
	       js(r, "job"), js(r, "job_file"), js(r, "status"), js(r, "created"),
	       js(r, "finished"));
	printf("host: accel %s (%s), QEMU %s, libvirt %s, %s\n",
	       js(json_object_get(r, "host"), "accel"),
	       js(json_object_get(r, "host"), "accel_reason"),
	       js(json_object_get(r, "host"), "qemu"), js(json_object_get(r, "host"), "libvirt"),
	       js(json_object_get(r, "host"), "cpu"));
	json_array_foreach(json_object_get(r, "variants"), i, v) {
		printf("\nvariant %s: kernel %s (%s)\n", js(v, "name"),
		       js(json_object_get(v, "kernel"), "release"),
		       js(json_object_get(v, "kernel"), "path"));
		json_array_foreach(json_object_get(v, "iterations"), k, it)
			show_iteration(it);
	}
	json_decref(r);
	return 0;
}

static int do_path(struct store *s, const char *run)
{
	char *id = store_run_resolve(s, run), *p;

	if (!id)
		return EXIT_USAGE;
	p = store_run_path(s, id);
	printf("%s\n", p);
	free(p);
	free(id);
	return 0;
}

/*
 * The index of the subcommand: the first argument that is not an option
 * (results options take no value), so that "results --json show" works
 * like "results show --json"; 0 when there is none.
 */
static int find_sub(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1 < argc ? i + 1 : 0;
		if (argv[i][0] != '-' || !argv[i][1])
			return i;
	}
	return 0;
}

static int do_reindex(struct store *s)
{
	json_t *runs;

	if (store_reindex(s))
		return EXIT_RUN_FAILED;
	runs = store_run_list(s);
	printf("reindexed %zu run%s in %s from their files\n", json_array_size(runs),
	       json_array_size(runs) == 1 ? "" : "s", store_dir(s));
	json_decref(runs);
	return 0;
}

static int do_import(struct store *s, const char *dir)
{
	unsigned int imported, skipped;
	enum store_import_result ret = store_import(s, dir, &imported, &skipped);

	printf("imported %u run%s from %s, %u already here%s\n", imported, imported == 1 ? "" : "s",
	       dir, skipped, ret ? "; some were refused (above)" : "");
	return ret == STORE_IMPORT_NO_SOURCE ? EXIT_USAGE : ret ? EXIT_RUN_FAILED : 0;
}

/* argv without the subcommand, parsed with the subcommand's options */
static int parse_sub(int argc, char **argv, int at, const struct results_sub *sub, bool *json)
{
	struct opt json_opts[] = {
		OPT_BOOL(0, "json", json, "machine-readable output"),
		OPT_END(),
	};
	struct opt no_opts[] = { OPT_END() };
	static char name[32];
	int n;

	snprintf(name, sizeof(name), "results %s", sub->name);
	memmove(argv + at, argv + at + 1, (size_t)(argc - at) * sizeof(*argv));
	argv[0] = name;
	n = parse_options(argc - 1, argv, sub->json ? json_opts : no_opts, &results_usage, 0);
	if (n < 0)
		return n == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	if (n > 0 && !sub->run) {
		lab_err("'results %s' takes no run", sub->name);
		return EXIT_USAGE;
	}
	if (n > 1) {
		lab_err("too many arguments; see 'mmlab results --help'");
		return EXIT_USAGE;
	}
	return -1;
}

/* no subcommand: --help, an unknown option, or nothing */
static int no_sub(int argc, char **argv)
{
	bool json = false;
	struct opt opts[] = {
		OPT_BOOL(0, "json", &json, "machine-readable output (list, show)"),
		OPT_END(),
	};
	int n = parse_options(argc, argv, opts, &results_usage, 0);

	if (n == PARSE_OPT_HELP)
		return 0;
	if (n == 0)
		usage_with_options(stderr, opts, &results_usage);
	return EXIT_USAGE;
}

int cmd_results(int argc, char **argv)
{
	int at = find_sub(argc, argv), ret;
	const struct results_sub *sub = NULL;
	const char *run;
	bool json = false;
	struct store *s;

	if (!at)
		return no_sub(argc, argv);
	for (size_t i = 0; i < ARRAY_SIZE(results_subs); i++)
		if (!strcmp(argv[at], results_subs[i].name))
			sub = &results_subs[i];
	if (!sub) {
		lab_err("no 'results %s'; the subcommands are list, show, path, reindex and import",
			argv[at]);
		return EXIT_USAGE;
	}
	ret = parse_sub(argc, argv, at, sub, &json);
	if (ret >= 0)
		return ret;
	run = argv[0]; /* NULL when not given */
	if (!strcmp(sub->name, "import") && !run) {
		lab_err("'results import' wants the directory of the copied store");
		return EXIT_USAGE;
	}
	s = store_open(gopts.results_dir);
	if (!s)
		return EXIT_RUN_FAILED;
	if (!strcmp(sub->name, "list"))
		ret = do_list(s, json);
	else if (!strcmp(sub->name, "show"))
		ret = do_show(s, run, json);
	else if (!strcmp(sub->name, "reindex"))
		ret = do_reindex(s);
	else if (!strcmp(sub->name, "import"))
		ret = do_import(s, run);
	else
		ret = do_path(s, run);
	store_close(s);
	return ret;
}
