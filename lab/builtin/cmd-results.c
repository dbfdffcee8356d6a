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
#include "store/iteration.h"
#include "store/iteration_record.h"
#include "store/store.h"
#include "store/run_record.h"
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
	struct run_row *rows;
	size_t n;

	if (store_run_rows(s, &rows, &n))
		return EXIT_RUN_FAILED;
	if (json) {
		json_t *out = run_rows_to_json(rows, n);

		json_dumpf(out, stdout, JSON_INDENT(2));
		fputc('\n', stdout);
		json_decref(out);
	} else if (!n) {
		printf("no runs in %s yet; 'mmlab run JOB' makes one\n", store_dir(s));
	} else {
		printf("%-44s %-16s %-11s %s\n", "RUN", "JOB", "STATUS", "ITERATIONS OK/ALL");
		for (size_t i = 0; i < n; i++)
			printf("%-44s %-16s %-11s %lld/%lld\n", rows[i].run, rows[i].job,
			       rows[i].status, rows[i].iterations_ok, rows[i].iterations);
	}
	run_rows_free(rows, n);
	return 0;
}

/* boot.phases in the order they happen (iteration.json sorts its keys) */
static const char *const phase_names[] = {
	"stage",	 "define", "start",    "guest_to_agent", "workload",
	"poweroff_seen", "guest",  "teardown", "collect",	 "store",
};

/* where the boot's wall time went (boot.phases), one line */
static void show_phases(const struct iteration_record *it)
{
	double sum = 0;

	if (!it->nphases)
		return;
	printf("    boot phases (s):");
	for (size_t i = 0; i < ARRAY_SIZE(phase_names); i++) {
		for (size_t k = 0; k < it->nphases; k++) {
			if (strcmp(it->phases[k].name, phase_names[i]))
				continue;
			printf(" %s %.3f", phase_names[i], it->phases[k].s);
			sum += it->phases[k].s;
		}
	}
	printf("; total %.3f\n", sum);
}

static void show_iteration(const struct iteration_record *it)
{
	printf("  iteration %u: %s", it->index, it->status ? it->status : "-");
	if (it->reason)
		printf(" (%s)", it->reason);
	printf(", guest kernel %s", it->kernel_release ? it->kernel_release : "-");
	printf(", %zu node%s", it->nnodes, it->nnodes == 1 ? "" : "s");
	for (size_t i = 0; i < it->nnodes; i++)
		printf("%s node%lld cpus %s %lld kB", i ? ";" : ":", it->nodes[i].id,
		       it->nodes[i].cpus ? it->nodes[i].cpus : "-", it->nodes[i].memory_kb);
	printf("\n");
	show_phases(it);
	for (size_t i = 0; i < it->nmetrics; i++) {
		const struct iter_metric *m = &it->metrics[i];

		/* per-node and numastat rows only with --json: they are many */
		if (!strncmp(m->name, "node", 4) || !strncmp(m->name, "numastat.", 9))
			continue;
		if (!strncmp(m->name, "vmstat.", 7) && m->value == 0)
			continue;
		if (m->integer)
			printf("    %-40s %lld\n", m->name, m->ivalue);
		else
			printf("    %-40s %.6g\n", m->name, m->value);
	}
	if (it->console_excerpt)
		printf("    console:\n%s\n", it->console_excerpt);
}

/* a string of the record, or "-" when it has none */
static const char *str(const char *v)
{
	return v ? v : "-";
}

/* a variant's stored iterations, read as records; 0 or -1 after a message */
static int show_iterations(struct store *s, const char *id, const char *variant)
{
	struct iteration_record *its;
	size_t n;

	if (store_variant_iterations(s, id, variant, &its, &n))
		return -1;
	for (size_t k = 0; k < n; k++)
		show_iteration(&its[k]);
	iteration_records_free(its, n);
	return 0;
}

static int show_text(struct store *s, const char *id, const struct run_record *r)
{
	const struct run_host *h = &r->host;
	int ret = 0;

	printf("run %s\njob %s (%s)\nstatus %s\ncreated %s, finished %s\n", str(r->run),
	       str(r->job), str(r->job_file), run_record_status(r), str(r->created),
	       str(r->finished));
	printf("host: accel %s (%s), QEMU %s, libvirt %s, %s\n", str(h->accel),
	       str(h->accel_reason), str(h->qemu), str(h->libvirt), str(h->cpu));
	for (size_t i = 0; i < r->nvariants; i++) {
		const struct run_variant *v = &r->variants[i];

		printf("\nvariant %s: kernel %s (%s)\n", v->name, str(v->kernel.release),
		       str(v->kernel.path));
		if (show_iterations(s, id, v->name))
			ret = EXIT_USAGE;
	}
	return ret;
}

static int do_show(struct store *s, const char *run, bool json)
{
	struct run_record r;
	char *id;
	int ret;

	if (json)
		return print_run_json(s, run) ? EXIT_USAGE : 0;
	id = store_run_resolve(s, run);
	if (!id || store_record_read(s, id, &r)) {
		free(id);
		return EXIT_USAGE;
	}
	ret = show_text(s, id, &r);
	run_record_release(&r);
	free(id);
	return ret;
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

static int do_reindex(struct store *s)
{
	struct run_row *rows;
	size_t n;

	if (store_reindex(s) || store_run_rows(s, &rows, &n))
		return EXIT_RUN_FAILED;
	printf("reindexed %zu run%s in %s from their files\n", n, n == 1 ? "" : "s", store_dir(s));
	run_rows_free(rows, n);
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

/* argv[0] the subcommand: parsed with the subcommand's options */
static int parse_sub(int argc, char **argv, const struct results_sub *sub, bool *json)
{
	struct opt json_opts[] = {
		OPT_BOOL(0, "json", json, "machine-readable output"),
		OPT_END(),
	};
	struct opt no_opts[] = { OPT_END() };
	static char name[32];
	int n;

	snprintf(name, sizeof(name), "results %s", sub->name);
	argv[0] = name;
	if (*json && !sub->json) { /* "results --json path" */
		lab_err("%s: unknown option --json; see 'mmlab %s --help'", name, name);
		return EXIT_USAGE;
	}
	n = parse_options(argc, argv, sub->json ? json_opts : no_opts, &results_usage, 0);
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

int cmd_results(int argc, char **argv)
{
	struct opt opts[ARRAY_SIZE(results_subs) + 2];
	const struct results_sub *sub;
	const char *run;
	bool json = false;
	struct store *s;
	int at = -1, ret;

	/* "results --json show" works like "results show --json" */
	opts[0] = (struct opt)OPT_BOOL(0, "json", &json, "machine-readable output (list, show)");
	for (size_t i = 0; i < ARRAY_SIZE(results_subs); i++)
		opts[i + 1] = (struct opt)OPT_SUBCOMMAND(results_subs[i].name, &at, (int)i);
	opts[ARRAY_SIZE(results_subs) + 1] = (struct opt)OPT_END();
	ret = parse_options(argc, argv, opts, &results_usage, 0);
	if (ret == 0)
		usage_with_options(stderr, opts, &results_usage);
	if (ret <= 0 || at < 0) /* at >= 0 when ret > 0 */
		return ret == PARSE_OPT_HELP ? 0 : EXIT_USAGE;
	sub = &results_subs[at];
	ret = parse_sub(ret, argv, sub, &json);
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
