// SPDX-License-Identifier: GPL-2.0
/*
 * test_bisect_list.c - a bisection over a list of kernels (bisect start
 * --kernels; lab/bisect/bisect_list.c) without booting anything: the list
 * file read (every form of entry, and a wrong one), then five entries of
 * which k3.. are "bad" by a fake measure, found with the same verdicts and
 * statistics as a commit bisection, resumed after an interruption, in
 * pass/fail mode too, and with --reverse; with --tree, the entries' tags
 * checked at start and the commits between the last good and the first
 * bad entry's tags bisected next, in a real git tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "capture.h"
#include "bisect/bisect_list.h"
#include "bisect/internal.h"
#include "kernel/gitops.h"
#include "lib/strbuf.h"
#include "lib/util.h"

/* why the last engine call failed */
static enum bisect_failure fail;

#define N 5
#define FIRST_BAD 2 /* k3 */

struct fixture {
	char dir[64];
	char *results, *job, *list;
	struct bisect_env env;
	unsigned int calls[N];
	unsigned int total, interrupt_at;
	bool reverse; /* the bad ones are then k1..k2 */
	char *bad_commits; /* --tree: the commits measured bad, one id a line */
	unsigned int commit_calls;
};

static int fake_measure(void *ctx, const struct bisect_params *p, const struct bisect_round *r,
			json_t *data)
{
	struct fixture *f = ctx;
	long i = bisect_list_index(p, r->commit);
	bool bad;

	if (i < 0) { /* a commit of --tree's bisection */
		assert_non_null(f->bad_commits);
		assert_int_equal(strlen(r->commit), 40);
		bad = strstr(f->bad_commits, r->commit) != NULL;
		f->commit_calls++;
	} else {
		assert_true(i < N);
		bad = f->reverse ? i < FIRST_BAD : i >= FIRST_BAD;
		if (++f->total == f->interrupt_at)
			return 1;
		f->calls[i]++;
	}
	if (!json_object_get(data, "runs")) {
		json_object_set_new(data, "runs", json_array());
		json_object_set_new(data, "values", json_array());
		json_object_set_new(data, "statuses", json_array());
	}
	json_array_append_new(json_object_get(data, "runs"), json_sprintf("fake-%ld", i));
	for (unsigned int k = 0; k < r->n; k++) {
		json_array_append_new(json_object_get(data, "statuses"), json_string("ok"));
		json_array_append_new(json_object_get(data, "values"),
				      json_real((bad ? 150 : 100) + (k % 3) - 1.0));
	}
	if (p->signature)
		json_object_set_new(data, bad ? "met" : "not_met", json_integer(r->n));
	json_object_set_new(data, "vm_runs", json_integer(r->n));
	return 0;
}

static void put(const char *path, const char *text)
{
	assert_int_equal(write_file_atomic(path, text, strlen(text), 0644), 0);
}

static int setup(void **state)
{
	struct fixture *f = xcalloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/mmlab-test-bisect-list-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->results = xasprintf("%s/results", f->dir);
	f->job = xasprintf("%s/job.yaml", f->dir);
	f->list = xasprintf("%s/kernels.yaml", f->dir);
	put(f->job, "name: t\nvariants: [ { name: k, kernel: distro, cmdline: quiet } ]\n"
		    "topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }\n"
		    "workload: { name: usemem, params: { size: 16M } }\niterations: 3\n");
	/* the same package five times, a boot setting differing from the third on */
	put(f->list, "- linux-image-6.1.0-47-amd64\n"
		     "- { kernel: { package: linux-image-6.1.0-47-amd64 }, cmdline: a=1 }\n"
		     "- { kernel: linux-image-6.1.0-47-amd64=6.1.170-3, sysctl: { vm.x: 1 } }\n"
		     "- { package: linux-image-6.1.0-47-amd64, version: 6.1.170-3 }\n"
		     "- { kernel: distro, cmdline: b=2 }\n");
	f->env.results_dir = f->results;
	f->env.measure = fake_measure;
	f->env.measure_ctx = f;
	lab_quiet = true;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	rm_rf(f->dir);
	free(f->results);
	free(f->job);
	free(f->list);
	free(f->bad_commits);
	free(f);
	return 0;
}

static void start(struct fixture *f, const char *metric, const char *signature)
{
	struct bisect_start_args a = {
		.job = f->job,
		.kernels = f->list,
		.metric = metric,
		.signature = signature,
		.min_change = 0.05,
		.alpha = 0.05,
		.reverse = f->reverse,
	};
	struct bisect_params p;
	char *progress;

	assert_int_equal(bisect_start(&f->env, &a, &p, &progress), 0);
	assert_non_null(strstr(progress, "Bisecting: 2 revisions left"));
	assert_string_equal(p.good, f->reverse ? "k5" : "k1");
	assert_string_equal(p.bad, f->reverse ? "k1" : "k5");
	assert_null(p.tree);
	assert_int_equal(p.range_commits, N - 1);
	free(progress);
	bisect_params_release(&p);
}

static void reset(struct fixture *f)
{
	char *kept;

	assert_int_equal(bisect_reset(&f->env, &kept, &fail), 0);
	free(kept);
	memset(f->calls, 0, sizeof(f->calls));
	f->total = 0;
	f->interrupt_at = 0;
}

static void assert_first(json_t *res, const char *want)
{
	json_t *first = json_object_get(res, "first");

	assert_true(json_is_object(first));
	assert_string_equal(json_string_value(json_object_get(first, "commit")), want);
	assert_true(json_is_object(json_object_get(first, "kernel")));
}

static void test_read(void **state)
{
	struct fixture *f = *state;
	json_t *l = bisect_list_read(f->list), *k;
	char *deb = xasprintf("%s/k.deb", f->dir), *bad = xasprintf("%s/bad.yaml", f->dir), *e;
	struct bisect_params p = { 0 };
	struct capture c;

	assert_int_equal(json_array_size(l), N);
	k = json_object_get(json_array_get(l, 0), "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "package")),
			    "linux-image-6.1.0-47-amd64");
	assert_string_equal(json_string_value(json_object_get(json_array_get(l, 1), "cmdline")),
			    "a=1");
	k = json_object_get(json_array_get(l, 2), "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "version")), "6.1.170-3");
	k = json_object_get(json_array_get(l, 3), "kernel");
	assert_string_equal(json_string_value(json_object_get(k, "version")), "6.1.170-3");
	assert_string_equal(json_string_value(json_object_get(json_array_get(l, 4), "kernel")),
			    "distro");
	json_decref(l);
	/* files and paths relative to the list's directory */
	put(bad, "- k.deb\n- { rpm: sub/k.rpm, modules: m.rpm }\n- boot/vmlinuz-1\n");
	l = bisect_list_read(bad);
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(json_array_get(l, 0), "kernel"), "deb")),
			    deb);
	e = xasprintf("%s/sub/k.rpm", f->dir);
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(json_array_get(l, 1), "kernel"), "rpm")),
			    e);
	free(e);
	e = xasprintf("%s/boot/vmlinuz-1", f->dir);
	assert_string_equal(json_string_value(json_object_get(json_array_get(l, 2), "kernel")), e);
	free(e);
	json_decref(l);
	/* refusals name the file and the entry */
	put(bad, "- linux-image-6.1.0-47-amd64\n- { kernel: distro, colour: red }\n");
	capture_start(&c);
	assert_null(bisect_list_read(bad));
	e = capture_end(&c);
	assert_non_null(strstr(e, "entry 2: unknown key 'colour'"));
	free(e);
	put(bad, "- only-one\n");
	capture_start(&c);
	assert_null(bisect_list_read(bad));
	e = capture_end(&c);
	assert_non_null(strstr(e, "not a YAML list of 2 to 1000 kernels"));
	free(e);
	put(bad, "- distro\n- 'no such; thing'\n");
	capture_start(&c);
	assert_null(bisect_list_read(bad));
	e = capture_end(&c);
	assert_non_null(strstr(e, "entry 2: 'no such; thing' is neither"));
	free(e);
	/* a tag of the wrong type is refused; an entry without one has none */
	put(bad, "- { kernel: distro, tag: [v1] }\n- distro\n");
	capture_start(&c);
	assert_null(bisect_list_read(bad));
	e = capture_end(&c);
	assert_non_null(strstr(e, "entry 1: 'tag' is the release's git ref"));
	free(e);
	put(bad, "- { kernel: distro, tag: v6.1 }\n- distro\n");
	p.kernels = bisect_list_read(bad);
	assert_string_equal(bisect_list_tag(&p, 0), "v6.1");
	assert_null(bisect_list_tag(&p, 1));
	assert_null(bisect_list_tag(&p, 2));
	json_decref(p.kernels);
	free(deb);
	free(bad);
}

static void test_metric(void **state)
{
	struct fixture *f = *state;
	struct bisect_report r;
	json_t *res = NULL, *again = NULL;
	unsigned int total;

	start(f, "usemem.elapsed_s", NULL);
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	{
		/* what the engine made reads as a result, and prints its first commit */
		struct bisect_result typed;

		assert_int_equal(bisect_result_from_json(res, &typed), 0);
		assert_true(typed.has_first);
		assert_true(typed.nrows >= 2);
		bisect_result_release(&typed);
	}
	assert_first(res, "k3");
	assert_int_equal(f->calls[0], 1);
	assert_int_equal(f->calls[4], 1);
	assert_int_equal(f->calls[2], 1);
	assert_int_equal(json_integer_value(json_object_get(res, "log2_range")), 2);
	assert_true(json_number_value(json_object_get(res, "confidence_value")) > 0.9);
	/* again: the same answer, nothing measured */
	total = f->total;
	assert_int_equal(bisect_run(&f->env, &again, &fail), 0);
	assert_int_equal(f->total, total);
	assert_true(json_equal(json_object_get(res, "first"), json_object_get(again, "first")));
	assert_int_equal(bisect_status(&f->env, true, &r), 0);
	assert_int_equal(r.state.status, BISECT_DONE);
	assert_int_equal(json_array_size(r.state.params.kernels), N);
	bisect_report_release(&r);
	json_decref(res);
	json_decref(again);
	reset(f);
}

static void test_resume(void **state)
{
	struct fixture *f = *state;
	json_t *res = NULL;
	struct capture c;

	start(f, "usemem.elapsed_s", NULL);
	f->interrupt_at = 3; /* the first step, after both endpoints */
	capture_start(&c);
	assert_int_equal(bisect_run(&f->env, &res, &fail), -1);
	assert_int_equal(fail, BISECT_FAIL_INTERRUPTED);
	free(capture_end(&c));
	assert_null(res);
	f->interrupt_at = 0;
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_first(res, "k3");
	assert_int_equal(f->calls[0], 1); /* the endpoints not measured again */
	assert_int_equal(f->calls[4], 1);
	json_decref(res);
	reset(f);
}

static void test_signature_reverse(void **state)
{
	struct fixture *f = *state;
	json_t *res = NULL;

	start(f, NULL, "crash");
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_first(res, "k3");
	json_decref(res);
	reset(f);
	/* looking for the fix: k1, k2 broken, k3.. fixed */
	f->reverse = true;
	start(f, "usemem.elapsed_s", NULL);
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_first(res, "k3");
	assert_string_equal(json_string_value(json_object_get(res, "term")), "fixed");
	json_decref(res);
	reset(f);
}

/* git ARGS in dir; its output (chomped) */
static char *git(const char *dir, const char *const args[])
{
	char *out = git_out(dir, args);

	assert_non_null(out);
	out[strcspn(out, "\n")] = '\0';
	return out;
}

/*
 * A tree whose releases r1..r5 are the list's five entries; between r2
 * (the last good entry) and r3 (the first bad) are commits a, b and r3
 * itself, b the first bad one.
 */
static char *make_tree(struct fixture *f, char **b)
{
	static const char *const commits[] = { "r1", "r2", "a", "b", "r3", "r4", "r5" };
	char *tree = xasprintf("%s/tree", f->dir), *c;
	struct strbuf bad = STRBUF_INIT;

	assert_int_equal(mkdir_p(tree, 0755), 0);
	setenv("GIT_AUTHOR_NAME", "t", 1);
	setenv("GIT_AUTHOR_EMAIL", "t@t.invalid", 1);
	setenv("GIT_COMMITTER_NAME", "t", 1);
	setenv("GIT_COMMITTER_EMAIL", "t@t.invalid", 1);
	free(git(tree, (const char *[]){ "init", "-q", NULL }));
	for (size_t i = 0; i < ARRAY_SIZE(commits); i++) {
		free(git(tree, (const char *[]){ "commit", "-q", "--allow-empty", "-m", commits[i],
						 NULL }));
		if (commits[i][0] == 'r')
			free(git(tree, (const char *[]){ "tag", commits[i], NULL }));
		c = git(tree, (const char *[]){ "rev-parse", "HEAD", NULL });
		if (i >= 3) /* b and after */
			strbuf_addf(&bad, "%s\n", c);
		if (i == 3)
			*b = xstrdup(c);
		free(c);
	}
	f->bad_commits = strbuf_detach(&bad);
	return tree;
}

static void start_tree(struct fixture *f, const char *tree, int want)
{
	struct bisect_start_args a = {
		.job = f->job,
		.kernels = f->list,
		.metric = "usemem.elapsed_s",
		.min_change = 0.05,
		.alpha = 0.05,
		.tree = tree,
	};
	struct bisect_params p;
	char *progress = NULL;

	assert_int_equal(bisect_start(&f->env, &a, &p, &progress), want);
	if (!want) {
		assert_string_equal(p.tree, tree);
		assert_string_equal(
			json_string_value(json_object_get(json_array_get(p.kernels, 2), "tag")),
			"r3");
		bisect_params_release(&p);
	}
	free(progress);
}

/* start with --tree, refused with a message holding want */
static void refused(struct fixture *f, const char *tree, const char *want)
{
	struct capture c;
	char *e;

	capture_start(&c);
	start_tree(f, tree, -1);
	e = capture_end(&c);
	if (!strstr(e, want))
		fail_msg("'%s' is not in: %s", want, e);
	free(e);
}

static void test_tree(void **state)
{
	struct fixture *f = *state;
	char *b = NULL, *tree = make_tree(f, &b), *e;
	json_t *res = NULL, *again = NULL, *list;
	unsigned int calls;

	e = xasprintf("name: t\nkernels: { tree: %s, config: { base: tinyconfig } }\n"
		      "variants: [ { name: k, kernel: distro } ]\n"
		      "topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }\n"
		      "workload: { name: usemem, params: { size: 16M } }\niterations: 3\n",
		      tree);
	put(f->job, e);
	free(e);
	/* an entry without a tag, then one whose tag is not in the tree */
	put(f->list, "- { kernel: distro, tag: r1 }\n- distro\n");
	refused(f, tree, "entry 2 has no tag; with --tree every entry names");
	put(f->list, "- { kernel: distro, tag: r1 }\n- { package: linux-image-6.1.0-47-amd64, "
		     "tag: nope }\n");
	refused(f, tree, "entry 2: tag: 'nope' is not a commit in");
	put(f->list, "- { kernel: distro, tag: --output=x }\n- { kernel: distro, tag: r2 }\n");
	refused(f, tree, "entry 1: 'tag' is the release's git ref");
	e = xasprintf("%s/bisect/bisect.db", f->results);
	assert_false(path_exists(e)); /* a refused start leaves no bisection */
	free(e);

	/* five releases, bad from r3 on: k3, then b between r2 and r3 */
	put(f->list, "- { kernel: distro, tag: r1 }\n"
		     "- { package: linux-image-6.1.0-47-amd64, tag: r2 }\n"
		     "- { kernel: distro, cmdline: a=1, tag: r3 }\n"
		     "- { kernel: distro, cmdline: a=1, tag: r4 }\n"
		     "- { kernel: distro, cmdline: a=1, tag: r5 }\n");
	start_tree(f, tree, 0);
	assert_int_equal(bisect_run(&f->env, &res, &fail), 0);
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(res, "first"), "commit")), b);
	list = json_object_get(res, "list");
	assert_first(list, "k3");
	/* the commits' endpoints r2 and r3, then what git picks between them */
	assert_int_equal(json_integer_value(json_object_get(res, "range_commits")), 3);
	assert_true(f->commit_calls >= 3);
	assert_true(json_number_value(json_object_get(res, "confidence_value")) > 0.9);
	/* again: the same answer, nothing measured */
	calls = f->commit_calls + f->total;
	assert_int_equal(bisect_run(&f->env, &again, &fail), 0);
	assert_int_equal(f->commit_calls + f->total, calls);
	assert_true(json_equal(res, again));
	json_decref(res);
	json_decref(again);
	reset(f);
	/* reset removed the commit bisection's worktree too */
	e = git(tree, (const char *[]){ "worktree", "list", "--porcelain", NULL });
	assert_null(strstr(e, "/tree/wt"));
	free(e);
	free(tree);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_metric, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signature_reverse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tree, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
