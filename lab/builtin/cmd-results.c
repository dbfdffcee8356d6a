// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-results.c - "mmlab results list|show": what the store holds.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "builtin/builtin.h"
#include "store/results.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab results list [--json]\n"
		"       mmlab results show [RUN] [--json]\n"
		"       mmlab results path [RUN]\n"
		"\n"
		"list   the stored runs, newest first: id, job, status, iterations ok/all\n"
		"show   one run (the latest when RUN is omitted; RUN may be a unique part of\n"
		"       the id): its host, variants, kernels and each iteration's status and\n"
		"       metrics; --json prints the whole run as documented in docs/mmlab.md\n"
		"path   the run's directory\n"
		"\n"
		"The store is --results DIR, $MMLAB_RESULTS, or ./results.\n");
}

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

int cmd_results(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *sub, *run = NULL;
	bool json = false;
	struct store *s;
	int c, ret;

	/* options anywhere: "results show RUN --json" and "results --json show" */
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	sub = argv[optind++];
	if (optind < argc)
		run = argv[optind++];
	if (optind < argc) {
		lab_err("too many arguments; see 'mmlab results --help'");
		return EXIT_USAGE;
	}
	if (strcmp(sub, "list") && strcmp(sub, "show") && strcmp(sub, "path")) {
		lab_err("no 'results %s'; the subcommands are list, show and path", sub);
		return EXIT_USAGE;
	}
	if (!strcmp(sub, "list") && run) {
		lab_err("'results list' takes no run");
		return EXIT_USAGE;
	}
	s = store_open(gopts.results_dir);
	if (!s)
		return EXIT_RUN_FAILED;
	if (!strcmp(sub, "list")) {
		ret = do_list(s, json);
	} else if (!strcmp(sub, "show")) {
		ret = do_show(s, run, json);
	} else {
		char *id = store_run_resolve(s, run);

		ret = id ? 0 : EXIT_USAGE;
		if (id) {
			char *p = store_run_path(s, id);

			printf("%s\n", p);
			free(p);
		}
		free(id);
	}
	store_close(s);
	return ret;
}
