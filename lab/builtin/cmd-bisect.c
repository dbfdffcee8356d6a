// SPDX-License-Identifier: GPL-2.0
/*
 * cmd-bisect.c - "mmlab bisect": find the commit that changed a metric (or
 * brought a signature: a warning, a crash, a hang) with git bisect as the
 * search engine and mmlab deciding each verdict from measured runs.
 *
 * The bisection lives in RESULTS/bisect/: bisect.db (bisect_store.h),
 * wt/ (a lab-owned --no-checkout worktree of the tree where git keeps its
 * bisect state), jobs/ (the YAML of each measured job), bisect.log (the
 * replayable log: git's bisect log plus "# mmlab-bisect" lines carrying the
 * parameters and every measurement). docs/bisect.md is the reference.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bisect/bisect.h"
#include "bisect/bisect_store.h"
#include "builtin/builtin.h"
#include "analysis/expr.h"
#include "kernel/gitops.h"
#include "job/job.h"
#include "repro/recipe.h"
#include "repro/repro.h"
#include "store/results.h"
#include "run/runner.h"
#include "lib/spawn.h"
#include "lib/timefmt.h"
#include "lib/util.h"

#define EXIT_INTERRUPTED 130
#define LOG_TAG "# mmlab-bisect "

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mmlab bisect start --job JOB --good REF --bad REF\n"
		"                          (--metric EXPR [--direction lower|higher] [--min-change P%%]\n"
		"                           | --signature SIG [--k K] [--n N])\n"
		"                          [--reverse] [--paths PATH]... [--tree DIR] [--variant NAME]\n"
		"                          [--iterations N] [--max-iterations M] [--alpha A]\n"
		"       mmlab bisect run [--json]\n"
		"       mmlab bisect status [--json]\n"
		"       mmlab bisect log\n"
		"       mmlab bisect replay FILE [--json]\n"
		"       mmlab bisect reset\n"
		"\n"
		"Find the commit that made a metric worse (or brought a signature) between a\n"
		"good and a bad commit. git bisect, in a lab-owned worktree of the job's\n"
		"kernels.tree, picks the commits; mmlab builds each one (incrementally, through the\n"
		"kernel cache), boots it, runs the job's workload and decides the verdict.\n"
		"\n"
		"  start      record the bisection (RESULTS/bisect/) and let git pick the first\n"
		"             commit; nothing is measured yet\n"
		"  run        measure both endpoints, refuse when they do not differ, then test\n"
		"             commits until git names the first bad one; safe to interrupt\n"
		"             (Ctrl-C, kill -9) and run again: finished steps are not redone\n"
		"  status     where the bisection is; the steps so far\n"
		"  log        the replayable log (git's bisect log and the measurements)\n"
		"  replay F   start a bisection from such a log: no build, no run for the\n"
		"             steps it holds; 'run' goes on if it was not finished\n"
		"  reset      end the bisection (kept as RESULTS/bisect-<time>/)\n"
		"\n"
		"  --job JOB          the job: topology, workload, kernels.tree and config; its\n"
		"                     first variant (or --variant) gives sysctl, thp, cmdline and\n"
		"                     patches applied on top of every tested commit\n"
		"  --good/--bad REF   the endpoints (tags, branches, commit ids)\n"
		"  --metric EXPR      a metric or an expression of metrics (vmstat.compact_stall,\n"
		"                     \"kthread.kcompactd0.cpu_s / time.elapsed_s\")\n"
		"  --direction D      lower or higher: which values are better (default: either;\n"
		"                     the bad endpoint then only has to differ)\n"
		"  --min-change P     the endpoints must differ by at least P (default 5%%)\n"
		"  --signature SIG    pass/fail mode: 'dmesg:REGEX', 'crash', 'hang' or\n"
		"                     'metric:EXPR OP VALUE'; a commit is bad when SIG occurs in at\n"
		"                     least K (--k, default 1) of N runs (--n, default 3), good\n"
		"                     when in none\n"
		"  --reverse          find the first good commit (the fix): --bad is the older\n"
		"  --paths PATH       only commits touching PATH (repeatable; git bisect -- PATH)\n"
		"  --tree DIR         the git tree (default: the job's kernels.tree)\n"
		"  --iterations N     iterations per endpoint and per step (default: the job's)\n"
		"  --max-iterations M iterations a step may grow to when its verdict is unsure\n"
		"                     before it is skipped (default 3 N)\n"
		"  --alpha A          significance level of the tests (default 0.05)\n"
		"\n"
		"Exit status: 0 first bad commit found (or the command done), 1 refused,\n"
		"failed or undecided (only skipped commits left), 2 bad usage, 130 interrupted.\n"
		"See docs/bisect.md.\n");
}

/* the bisection as loaded from RESULTS/bisect ------------------------------- */

struct bisect {
	char *dir, *wt, *lock;
	struct bstore *bs;
	json_t *params;		/* borrowed from state */
	json_t *state;
	struct store *store;
	struct expr *metric;	/* metric mode */
	struct expectation sig;	/* pass/fail mode */
	bool sig_mode;
	struct bisect_rule rule;
	unsigned int n, max_iter, k;
	const char *tree, *id;
	int lock_fd;
};

static const char *pstr(json_t *params, const char *key)
{
	return json_string_value(json_object_get(params, key));
}

static unsigned int puint(json_t *params, const char *key)
{
	return (unsigned int)json_integer_value(json_object_get(params, key));
}

static char *bisect_dir(void)
{
	return xasprintf("%s/bisect", gopts.results_dir);
}

static void bisect_close(struct bisect *b)
{
	if (b->metric)
		expr_free(b->metric);
	if (b->sig_mode)
		expect_release(&b->sig);
	if (b->store)
		store_close(b->store);
	bstore_close(b->bs);
	json_decref(b->state);
	if (b->lock_fd >= 0)
		close(b->lock_fd);
	free(b->dir);
	free(b->wt);
	free(b->lock);
	memset(b, 0, sizeof(*b));
	b->lock_fd = -1;
}

/* parse the stored parameters into b; 0 or -1 after a message */
static int load_params(struct bisect *b)
{
	const char *metric = pstr(b->params, "metric"), *sig = pstr(b->params, "signature");
	const char *dir = pstr(b->params, "direction");
	char err[256];

	b->tree = pstr(b->params, "tree");
	b->id = pstr(b->params, "id");
	b->n = puint(b->params, "iterations");
	b->max_iter = puint(b->params, "max_iterations");
	b->k = puint(b->params, "k");
	b->rule.alpha = json_number_value(json_object_get(b->params, "alpha"));
	b->rule.min_change = json_number_value(json_object_get(b->params, "min_change"));
	b->rule.better = !dir ? 0 : !strcmp(dir, "lower") ? -1 : 1;
	b->rule.near = 1.0 / 3;
	if (metric) {
		b->metric = expr_parse(metric, err, sizeof(err));
		if (!b->metric) {
			lab_err("--metric '%s': %s", metric, err);
			return -1;
		}
	} else if (sig) {
		if (expect_from_signature(sig, b->k, &b->sig, err, sizeof(err))) {
			lab_err("--signature: %s", err);
			return -1;
		}
		b->sig_mode = true;
	}
	if (!b->tree || !b->id || !b->n || (!metric && !sig)) {
		lab_err("the bisect state in %s is damaged (no tree, id, iterations or mode); "
			"'mmlab bisect reset' and start again", b->dir);
		return -1;
	}
	return 0;
}

static int bisect_open(struct bisect *b)
{
	memset(b, 0, sizeof(*b));
	b->lock_fd = -1;
	b->dir = bisect_dir();
	b->wt = xasprintf("%s/wt", b->dir);
	b->lock = xasprintf("%s/lock", b->dir);
	b->bs = bstore_open(b->dir, false);
	if (!b->bs)
		return -1;
	b->state = bstore_get(b->bs);
	if (!b->state) {
		lab_err("no bisection in %s; start one with 'mmlab bisect start'", b->dir);
		return -1;
	}
	b->params = json_object_get(b->state, "params");
	return load_params(b);
}

/* one 'mmlab bisect run' at a time per bisection */
static int take_lock(struct bisect *b, const char *what)
{
	b->lock_fd = open(b->lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (b->lock_fd < 0) {
		lab_err("cannot open %s: %s", b->lock, strerror(errno));
		return -1;
	}
	if (flock(b->lock_fd, LOCK_EX | LOCK_NB)) {
		lab_err("another 'mmlab bisect run' is working on %s; %s", b->dir, what);
		return -1;
	}
	return 0;
}

/* git in the worktree ------------------------------------------------------- */

/* git -C wt ARGS; its whole output in *out (may be NULL); git's exit code */
static int git_wt(const char *wt, const char *const args[], char **out)
{
	struct spawn_result r;
	int rc = git_run(wt, args, &r);

	if (out)
		*out = xstrdup(r.out ? r.out : "");
	spawn_result_free(&r);
	return rc;
}

static const char *term_for(struct bisect *b, bool bad)
{
	bool reverse = json_is_true(json_object_get(b->params, "reverse"));

	if (reverse)
		return bad ? "broken" : "fixed";
	return bad ? "bad" : "good";
}

/* the term of the commit git looks for (the first "new" one) */
static const char *new_term(struct bisect *b)
{
	return json_is_true(json_object_get(b->params, "reverse")) ? "fixed" : "bad";
}

/* git said it is finished: the first new commit, or only skipped ones left */
static bool git_finished(const char *out, const char *term)
{
	char *first = xasprintf("is the first %s commit", term);
	bool done = strstr(out, first) || strstr(out, "only 'skip'ped commits left");

	free(first);
	return done;
}

/* "Bisecting: 3 revisions left to test after this (roughly 2 steps)" */
static char *progress_line(const char *out)
{
	const char *p = strstr(out, "Bisecting:");

	if (!p)
		p = out;
	return xstrndup(p, strcspn(p, "\n"));
}

static char *commit_line(const char *tree, const char *commit)
{
	const char *args[] = { "log", "-1", "--no-show-signature",
		"--format=%h %s", commit, NULL };

	return git_out(tree, args);
}

/* the replayable log: params, measurements, git's own log -------------------- */

static int write_log(struct bisect *b)
{
	json_t *steps = bstore_steps(b->bs);
	char *path = xasprintf("%s/bisect.log", b->dir), *p, *glog = NULL;
	const char *args[] = { "bisect", "log", NULL };
	size_t i;
	json_t *st;
	FILE *m;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	m = open_memstream(&buf, &len);
	p = json_dumps(b->params, JSON_COMPACT);
	fprintf(m, "# mmlab bisect log: 'mmlab bisect replay %s' starts the same bisection\n",
		path);
	fprintf(m, LOG_TAG "params %s\n", p);
	free(p);
	json_array_foreach(steps, i, st) {
		if (strcmp(json_string_value(json_object_get(st, "state")) ?: "", "done"))
			continue;
		p = json_dumps(st, JSON_COMPACT);
		fprintf(m, LOG_TAG "step %s\n", p);
		free(p);
	}
	if (git_wt(b->wt, args, &glog) == 0)
		fputs(glog, m);
	free(glog);
	fclose(m);
	ret = write_file_atomic(path, buf, len, 0644);
	free(buf);
	free(path);
	json_decref(steps);
	return ret;
}

/* measuring one commit ------------------------------------------------------ */

/* the run of this job name in the store: its id and status, or NULL */
static char *find_run(struct store *s, const char *job, const char **status)
{
	json_t *runs = store_run_list(s), *r;
	char *id = NULL;
	size_t i;

	json_array_foreach(runs, i, r) {
		if (!strcmp(json_string_value(json_object_get(r, "job")) ?: "", job)) {
			id = xstrdup(json_string_value(json_object_get(r, "run")));
			*status = !strcmp(json_string_value(json_object_get(r, "status")) ?: "",
					  "complete") ? "complete" : "incomplete";
			break;
		}
	}
	json_decref(runs);
	return id;
}

static int lookup(void *ctx, const char *name, double *val)
{
	json_t *v = json_object_get(ctx, name);

	if (!json_is_number(v))
		return -1;
	*val = json_number_value(v);
	return 0;
}

static void add_count(json_t *data, const char *key, json_int_t by)
{
	json_object_set_new(data, key, json_integer(
		json_integer_value(json_object_get(data, key)) + by));
}

static json_t *array_of(json_t *data, const char *key)
{
	json_t *a = json_object_get(data, key);

	if (!json_is_array(a)) {
		a = json_array();
		json_object_set_new(data, key, a);
	}
	return a;
}

/* fold a finished run of one commit into data */
static void collect(struct bisect *b, const char *run_id, json_t *data)
{
	json_t *run = store_load_run(b->store, run_id);
	json_t *var = json_array_get(json_object_get(run, "variants"), 0);
	json_t *kernel = json_object_get(var, "kernel"), *it;
	json_t *values = array_of(data, "values"), *statuses = array_of(data, "statuses");
	const char *vname = json_string_value(json_object_get(var, "name"));
	char *run_dir = store_run_path(b->store, run_id);
	size_t i;

	if (json_is_true(json_object_get(kernel, "build_failed"))) {
		json_object_set_new(data, "build_failed", json_true());
		json_object_set(data, "build_log", json_object_get(kernel, "build_log"));
		add_count(data, "builds", 1);
	} else if (json_is_false(json_object_get(kernel, "cache_hit"))) {
		add_count(data, "builds", 1);
	}
	json_array_foreach(json_object_get(var, "iterations"), i, it) {
		const char *st = json_string_value(json_object_get(it, "status")) ?: "missing";
		json_t *metrics = json_object_get(it, "metrics");
		double v;
		char err[256];

		json_array_append_new(statuses, json_string(st));
		if (strcmp(st, "failed"))
			add_count(data, "vm_runs", 1);
		if (b->sig_mode) {
			json_int_t idx = json_integer_value(json_object_get(it, "index"));
			char *console = repro_read_console(run_dir, vname, idx);
			int o = repro_eval_run(&b->sig, st, metrics, console, NULL);

			add_count(data, o > 0 ? "met" : o == 0 ? "not_met" : "unknown", 1);
			free(console);
		} else if (!strcmp(st, "ok") &&
			   !expr_eval(b->metric, lookup, metrics, &v, err, sizeof(err)) &&
			   isfinite(v)) {
			json_array_append_new(values, json_real(v));
		} else if (!strcmp(st, "ok")) {
			add_count(data, "missing", 1);
		}
	}
	free(run_dir);
	json_decref(run);
}

/*
 * One round of n iterations of commit for step seq: a run named
 * bisect-<id>-<seq>-<round>, resumed when an earlier attempt was stopped,
 * taken as it is when it finished. 0, 1 interrupted, -1 failed.
 */
static int measure(struct bisect *b, long long seq, unsigned int round, const char *commit,
		   unsigned int n, json_t *data)
{
	char *name = xasprintf("bisect-%s-%lld-%u", b->id, seq, round);
	char *vname = xasprintf("c-%.12s", commit), *yaml = NULL, *path = NULL, *id;
	const char *status = NULL, *text = pstr(b->params, "job_text");
	unsigned int per_boot = puint(b->params, "iterations_per_boot");
	struct run_opts o = { .cache_dir = gopts.cache_dir, .connect_uri = gopts.connect_uri };
	struct run_result res = { 0 };
	struct job *job = NULL;
	double start = now_monotonic();
	char err[256];
	int ret = -1, rc;

	id = find_run(b->store, name, &status);
	if (id && !strcmp(status, "complete")) {
		lab_info("bisect: %.12s: run %s was finished before; using it", commit, id);
		goto collect;
	}
	if (id) {
		lab_info("bisect: %.12s: resuming run %s", commit, id);
		o.resume = id;
	} else {
		yaml = bisect_step_yaml(text, strlen(text), puint(b->params, "variant"), name,
					vname, commit, b->tree, n, per_boot < n ? per_boot : n,
					err, sizeof(err));
		if (!yaml) {
			lab_err("bisect: the job cannot be made for %.12s: %s", commit, err);
			goto out;
		}
		path = xasprintf("%s/jobs/%s.yaml", b->dir, name);
		{
			char *jobs = xasprintf("%s/jobs", b->dir);

			rc = mkdir_p(jobs, 0755);
			free(jobs);
			if (rc || write_file_atomic(path, yaml, strlen(yaml), 0644))
				goto out;
		}
		if (job_load_buffer(path, yaml, strlen(yaml), pstr(b->params, "job_dir"), &job))
			goto out;
		o.job = job;
	}
	/* its exit status is in the run: failed builds and iterations count there */
	runner_run(b->store, &o, &res);
	if (res.interrupted) {
		ret = 1;
		goto out;
	}
	if (!res.run_id) {
		lab_err("bisect: %.12s could not be measured (see above)", commit);
		goto out;
	}
	free(id);
	id = xstrdup(res.run_id);
collect:
	json_array_append_new(array_of(data, "runs"), json_string(id));
	collect(b, id, data);
	json_object_set_new(data, "wall_s", json_real(
		json_number_value(json_object_get(data, "wall_s")) + now_monotonic() - start));
	ret = 0;
out:
	run_result_release(&res);
	free(id);
	free(name);
	free(vname);
	free(yaml);
	free(path);
	return ret;
}

/* the values of a step's data as a C array (NaN-free); count in *n */
static double *values_of(json_t *data, size_t *n)
{
	json_t *a = json_object_get(data, "values"), *v;
	double *x = xcalloc(json_array_size(a) + 1, sizeof(*x));
	size_t i;

	*n = 0;
	json_array_foreach(a, i, v)
		x[(*n)++] = json_number_value(v);
	return x;
}

static unsigned int count_of(json_t *data, const char *key)
{
	return (unsigned int)json_integer_value(json_object_get(data, key));
}

static unsigned int iterations_of(json_t *data)
{
	return (unsigned int)json_array_size(json_object_get(data, "statuses"));
}

/* a crash, timeout or lost iteration among the statuses (metric mode skips) */
static const char *bad_status(json_t *data)
{
	json_t *s;
	size_t i;

	json_array_foreach(json_object_get(data, "statuses"), i, s)
		if (strcmp(json_string_value(s) ?: "", "ok"))
			return json_string_value(s);
	return NULL;
}

static json_t *endpoint_data(json_t *steps, const char *role)
{
	json_t *st;
	size_t i;

	json_array_foreach(steps, i, st)
		if (!strcmp(json_string_value(json_object_get(st, "role")) ?: "", role) &&
		    !strcmp(json_string_value(json_object_get(st, "state")) ?: "", "done"))
			return json_object_get(st, "data");
	return NULL;
}

/* measure an endpoint unless done; 0, 1 interrupted, -1 failed */
static int endpoint(struct bisect *b, const char *role)
{
	const char *commit = pstr(b->params, role);
	json_t *steps = bstore_steps(b->bs), *data;
	long long seq;
	char *line;
	int ret;

	if (endpoint_data(steps, role)) {
		json_decref(steps);
		return 0;
	}
	json_decref(steps);
	seq = bstore_step_open(b->bs, commit, role);
	if (seq < 0)
		return -1;
	line = commit_line(b->tree, commit);
	lab_info("bisect: measuring the %s endpoint %s (%u iterations)", role,
		 line ? line : commit, b->n);
	free(line);
	data = json_object();
	ret = measure(b, seq, 0, commit, b->n, data);
	if (!ret) {
		json_object_set_new(data, "verdict", json_string(role));
		json_object_set_new(data, "why", json_string("endpoint"));
		if (json_is_true(json_object_get(data, "build_failed"))) {
			lab_err("bisect: the %s endpoint %.12s does not build; see %s", role, commit,
				json_string_value(json_object_get(data, "build_log")) ?: "its log");
			ret = -1;
		} else if (bstore_step_set(b->bs, seq, "done", data)) {
			ret = -1;
		}
	}
	json_decref(data);
	return ret;
}

/* is the endpoint pair worth bisecting? why gets the numbers */
static bool endpoints_ok(struct bisect *b, char *why, size_t len)
{
	json_t *steps = bstore_steps(b->bs);
	json_t *g = endpoint_data(steps, "good"), *bd = endpoint_data(steps, "bad");
	bool ok;

	if (b->sig_mode) {
		unsigned int gm = count_of(g, "met"), gu = count_of(g, "unknown");
		unsigned int bm = count_of(bd, "met");

		snprintf(why, len, "signature in %u of %u runs at the good endpoint%s, in %u of %u "
			 "at the bad one (%u needed)", gm, iterations_of(g),
			 gu ? " (some ended before it could be seen)" : "", bm,
			 iterations_of(bd), b->k);
		ok = !gm && !gu && bm >= b->k;
	} else {
		struct stats_test t;
		size_t ng, nb;
		double *xg = values_of(g, &ng), *xb = values_of(bd, &nb);

		ok = bisect_endpoints_ok(xg, ng, xb, nb, &b->rule, &t, why, len);
		free(xg);
		free(xb);
	}
	json_decref(steps);
	return ok;
}

/* decide one step from its data: call, reason, *p_wrong */
static enum bisect_call decide(struct bisect *b, json_t *steps, json_t *data,
			       char *why, size_t len, bool *final)
{
	enum bisect_call c;
	double pos, pw = NAN;

	*final = true;
	if (json_is_true(json_object_get(data, "build_failed"))) {
		snprintf(why, len, "the build failed: %s",
			 json_string_value(json_object_get(data, "build_log")) ?: "no log");
		return BISECT_UNSURE;
	}
	if (b->sig_mode) {
		c = bisect_call_signature(count_of(data, "met"), count_of(data, "unknown"),
					  iterations_of(data), b->k, why, len);
	} else if (bad_status(data)) {
		snprintf(why, len, "an iteration %s (not a measurement): skipped",
			 bad_status(data));
		return BISECT_UNSURE;
	} else {
		json_t *g = endpoint_data(steps, "good"), *bd = endpoint_data(steps, "bad");
		size_t ng, nb, ns;
		double *xg = values_of(g, &ng), *xb = values_of(bd, &nb);
		double *xs = values_of(data, &ns);

		c = bisect_call_metric(xg, ng, xb, nb, xs, ns, &b->rule, &pos, &pw, why, len);
		json_object_set_new(data, "position", isfinite(pos) ? json_real(pos) : json_null());
		free(xg);
		free(xb);
		free(xs);
	}
	json_object_set_new(data, "p_wrong", isfinite(pw) ? json_real(pw) : json_null());
	if (c == BISECT_UNSURE && iterations_of(data) < b->max_iter)
		*final = false;
	return c;
}

/* git's verdict for commit is already in its log (a kill came after telling git) */
static bool git_has_verdict(struct bisect *b, const char *commit)
{
	const char *args[] = { "bisect", "log", NULL };
	const char *terms[] = { term_for(b, false), term_for(b, true), "skip" };
	char *log = NULL;
	bool has = false;

	if (git_wt(b->wt, args, &log) == 0) {
		for (size_t i = 0; i < ARRAY_SIZE(terms) && !has; i++) {
			char *needle = xasprintf("git bisect %s %s\n", terms[i], commit);

			has = strstr(log, needle) != NULL;
			free(needle);
		}
	}
	free(log);
	return has;
}

/* tell git; its output saved as progress. 0 or -1 */
static int tell_git(struct bisect *b, const char *term, const char *commit, char **out)
{
	const char *args[] = { "bisect", term, commit, NULL };
	int rc = git_wt(b->wt, args, out);

	if (rc != 0 && !git_finished(*out, new_term(b))) {
		lab_err("bisect: 'git bisect %s %.12s' failed in %s: %s", term, commit, b->wt, *out);
		return -1;
	}
	return bstore_set_progress(b->bs, *out);
}

/* one step; 0 done, 1 interrupted, -1 failed */
static int step(struct bisect *b, const char *commit, unsigned int stepno)
{
	long long seq = bstore_step_open(b->bs, commit, "step");
	json_t *steps = bstore_steps(b->bs), *data = NULL, *st;
	const char *term = NULL;
	char why[512], *line = NULL, *out = NULL;
	enum bisect_call c;
	bool final = false;
	size_t i;
	int ret = -1;

	if (seq < 0)
		goto out;
	json_array_foreach(steps, i, st)
		if (json_integer_value(json_object_get(st, "seq")) == seq)
			data = json_deep_copy(json_object_get(st, "data"));
	if (!data)
		data = json_object();
	line = commit_line(b->tree, commit);
	if (!json_object_get(data, "verdict")) {
		unsigned int round = (unsigned int)json_array_size(json_object_get(data, "runs"));

		lab_info("bisect: step %u: testing %s", stepno, line ? line : commit);
		for (;;) {
			unsigned int have = iterations_of(data), n = b->n;

			/* a failed build has runs but no iterations: decide() skips it */
			if (json_array_size(json_object_get(data, "runs"))) {
				c = decide(b, steps, data, why, sizeof(why), &final);
				if (final || c != BISECT_UNSURE)
					break;
				lab_info("bisect: %.12s is not clear yet (%s); more iterations",
					 commit, why);
			}
			if (have + n > b->max_iter)
				n = b->max_iter > have ? b->max_iter - have : 1;
			ret = measure(b, seq, round++, commit, n, data);
			if (ret)
				goto out;
			ret = -1;
			/* the rounds so far are kept: a kill -9 loses at most one */
			if (bstore_step_set(b->bs, seq, "running", data))
				goto out;
		}
		json_object_set_new(data, "verdict", json_string(
			c == BISECT_UNSURE ? "skip" : bisect_call_name(c)));
		json_object_set_new(data, "why", json_string(why));
		if (bstore_step_set(b->bs, seq, "decided", data))
			goto out;
	}
	term = json_string_value(json_object_get(data, "verdict"));
	if (strcmp(term, "skip"))
		term = term_for(b, !strcmp(term, "bad"));
	lab_info("bisect: %s is %s: %s", line ? line : commit,
		 json_string_value(json_object_get(data, "verdict")),
		 json_string_value(json_object_get(data, "why")));
	if (!git_has_verdict(b, commit) && tell_git(b, term, commit, &out))
		goto out;
	if (bstore_step_set(b->bs, seq, "done", data) || write_log(b))
		goto out;
	ret = 0;
out:
	free(out);
	free(line);
	json_decref(data);
	json_decref(steps);
	return ret;
}

/* the result ---------------------------------------------------------------- */

static json_t *commit_json(const char *tree, const char *commit)
{
	const char *args[] = { "log", "-1", "--no-show-signature",
		"--format=%H%x1f%h%x1f%s%x1f%an <%ae>%x1f%aI", commit, NULL };
	struct spawn_result r;
	char *f[5] = { 0 }, *p;
	json_t *o;

	if (git_run(tree, args, &r) || !r.out) {
		spawn_result_free(&r);
		return json_pack("{s:s}", "commit", commit);
	}
	p = r.out;
	p[strcspn(p, "\n")] = '\0';
	for (int i = 0; i < 5; i++) {
		f[i] = p;
		p = strchr(p, 0x1f);
		if (!p) {
			for (int j = i + 1; j < 5; j++)
				f[j] = "";
			break;
		}
		*p++ = '\0';
	}
	o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "commit", f[0], "short", f[1],
		      "subject", f[2], "author", f[3], "date", f[4]);
	spawn_result_free(&r);
	return o;
}

/* candidates named after "could be any of:" (only skipped commits left) */
static json_t *candidates(const char *out)
{
	json_t *a = json_array();
	const char *p = strstr(out, "could be any of:");

	if (!p)
		return a;
	p = strchr(p, '\n');
	while (p && *++p) {
		size_t n = strspn(p, "0123456789abcdef");

		if (n >= 7)
			json_array_append_new(a, json_stringn(p, n));
		p = strchr(p, '\n');
	}
	return a;
}

static json_t *make_result(struct bisect *b, const char *out)
{
	json_t *steps = bstore_steps(b->bs), *rows = json_array(), *st, *res;
	json_int_t builds = 0, vm_runs = 0;
	double wall = 0, sum_p = 0, good_ok = 1, rate = NAN;
	char *first_ref = xasprintf("refs/bisect/%s", new_term(b)), *first = NULL;
	char *needle = xasprintf("is the first %s commit", new_term(b)), conf[512];
	unsigned int calls = 0;
	size_t i;

	json_array_foreach(steps, i, st) {
		json_t *d = json_object_get(st, "data");
		const char *commit = json_string_value(json_object_get(st, "commit"));
		json_t *row = commit_json(b->tree, commit), *sample;
		size_t n;
		double *x = values_of(d, &n);

		if (strcmp(json_string_value(json_object_get(st, "state")) ?: "", "done")) {
			free(x);
			json_decref(row);
			continue;
		}
		sample = bisect_sample_json(x, n);
		free(x);
		json_object_set(row, "role", json_object_get(st, "role"));
		json_object_set(row, "verdict", json_object_get(d, "verdict"));
		json_object_set(row, "why", json_object_get(d, "why"));
		json_object_set_new(row, "iterations", json_integer(iterations_of(d)));
		if (b->sig_mode) {
			json_object_set_new(row, "met", json_integer(count_of(d, "met")));
		} else {
			json_object_set(row, "mean", json_object_get(sample, "mean"));
			json_object_set(row, "ci95", json_object_get(sample, "ci95"));
			json_object_set(row, "n", json_object_get(sample, "n"));
		}
		json_decref(sample);
		json_object_set(row, "runs", json_object_get(d, "runs"));
		json_array_append_new(rows, row);
		builds += count_of(d, "builds");
		vm_runs += count_of(d, "vm_runs");
		wall += json_number_value(json_object_get(d, "wall_s"));
		if (!strcmp(json_string_value(json_object_get(st, "role")) ?: "", "bad") &&
		    iterations_of(d))
			rate = (double)count_of(d, "met") / iterations_of(d);
		if (json_is_number(json_object_get(d, "p_wrong"))) {
			sum_p += json_number_value(json_object_get(d, "p_wrong"));
			calls++;
		}
	}
	if (b->sig_mode) {
		json_array_foreach(steps, i, st) {
			json_t *d = json_object_get(st, "data");

			if (!strcmp(json_string_value(json_object_get(d, "verdict")) ?: "", "good") &&
			    !strcmp(json_string_value(json_object_get(st, "role")) ?: "", "step"))
				good_ok *= 1 - bisect_miss_prob(rate, iterations_of(d));
		}
		snprintf(conf, sizeof(conf), "the signature occurred in %.0f %% of the runs at the "
			 "bad endpoint; at that rate every 'good' verdict is right with probability "
			 "%.4f (the chance that all runs of a bad commit miss it is (1 - rate)^n)",
			 100 * rate, good_ok);
	} else {
		snprintf(conf, sizeof(conf), "each of the %u verdicts rests on a Welch test against "
			 "the other endpoint; all are right with probability at least %.4f "
			 "(1 - the sum of their p-values)", calls, sum_p < 1 ? 1 - sum_p : 0.0);
	}
	if (out && strstr(out, needle)) {
		const char *args[] = { "rev-parse", first_ref, NULL };

		first = git_out(b->wt, args);
	}
	res = json_pack("{s:s, s:s, s:o, s:o, s:o, s:I, s:I, s:f, s:I, s:I, s:s, s:f}",
		"mode", b->sig_mode ? "signature" : "metric",
		"looked_for", b->sig_mode ? pstr(b->params, "signature") : pstr(b->params, "metric"),
		"first", first ? commit_json(b->tree, first) : json_null(),
		"candidates", out ? candidates(out) : json_array(),
		"steps", rows, "builds", builds, "vm_runs", vm_runs, "wall_s", wall,
		"range_commits", (json_int_t)puint(b->params, "range_commits"),
		"log2_range", (json_int_t)ceil(log2(fmax(1, puint(b->params, "range_commits")))),
		"confidence", conf,
		"confidence_value", b->sig_mode ? good_ok : (sum_p < 1 ? 1 - sum_p : 0));
	json_object_set_new(res, "term", json_string(new_term(b)));
	free(first);
	free(first_ref);
	free(needle);
	json_decref(steps);
	return res;
}

static void print_table(FILE *f, json_t *rows, bool sig)
{
	json_t *r;
	size_t i;

	fprintf(f, "  %-5s %-12s %-40s %5s  %-22s %-7s %s\n", "role", "commit", "subject",
		sig ? "runs" : "n", sig ? "signature" : "mean ± 95% CI", "verdict", "why");
	json_array_foreach(rows, i, r) {
		char val[64] = "-";
		const char *subj = json_string_value(json_object_get(r, "subject")) ?: "";

		if (sig)
			snprintf(val, sizeof(val), "in %lld",
				 (long long)json_integer_value(json_object_get(r, "met")));
		else if (json_is_number(json_object_get(r, "mean")))
			snprintf(val, sizeof(val), "%.6g ± %.3g",
				 json_number_value(json_object_get(r, "mean")),
				 json_is_number(json_object_get(r, "ci95")) ?
				 json_number_value(json_object_get(r, "ci95")) : 0.0);
		fprintf(f, "  %-5s %-12.12s %-40.40s %5lld  %-22s %-7s %s\n",
			json_string_value(json_object_get(r, "role")),
			json_string_value(json_object_get(r, "short")) ?:
			json_string_value(json_object_get(r, "commit")), subj,
			(long long)json_integer_value(json_object_get(r, "iterations")), val,
			json_string_value(json_object_get(r, "verdict")) ?: "-",
			json_string_value(json_object_get(r, "why")) ?: "");
	}
}

static void print_result(json_t *res, const char *looked_for)
{
	json_t *first = json_object_get(res, "first");
	const char *term = json_string_value(json_object_get(res, "term"));
	double wall = json_number_value(json_object_get(res, "wall_s"));

	if (json_is_object(first)) {
		printf("first %s commit: %s %s\n", term,
		       json_string_value(json_object_get(first, "commit")),
		       json_string_value(json_object_get(first, "subject")));
		printf("  author %s, %s\n", json_string_value(json_object_get(first, "author")),
		       json_string_value(json_object_get(first, "date")));
	} else {
		json_t *c;
		size_t i;

		printf("no single first %s commit: only skipped commits are left; it is one of:\n",
		       term);
		json_array_foreach(json_object_get(res, "candidates"), i, c)
			printf("  %s\n", json_string_value(c));
	}
	printf("looked for: %s\n\n", looked_for);
	print_table(stdout, json_object_get(res, "steps"),
		    !strcmp(json_string_value(json_object_get(res, "mode")), "signature"));
	printf("\n%lld kernel builds, %lld VM runs, %.0f min %.0f s building and running; "
	       "%lld commits in the range, ceil(log2) = %lld\n",
	       (long long)json_integer_value(json_object_get(res, "builds")),
	       (long long)json_integer_value(json_object_get(res, "vm_runs")),
	       floor(wall / 60), fmod(wall, 60),
	       (long long)json_integer_value(json_object_get(res, "range_commits")),
	       (long long)json_integer_value(json_object_get(res, "log2_range")));
	printf("confidence: %s\n", json_string_value(json_object_get(res, "confidence")));
}

static void print_json(json_t *o)
{
	json_dumpf(o, stdout, JSON_INDENT(2));
	fputc('\n', stdout);
}

/* git finished: store and print the result; exit status */
static int conclude(struct bisect *b, const char *out, bool json)
{
	json_t *res = make_result(b, out);
	int ret = json_is_object(json_object_get(res, "first")) ? 0 : EXIT_RUN_FAILED;

	if (bstore_set_status(b->bs, "done", res) || write_log(b))
		ret = EXIT_RUN_FAILED;
	if (json)
		print_json(res);
	else
		print_result(res, json_string_value(json_object_get(res, "looked_for")));
	json_decref(res);
	return ret;
}

/* subcommands --------------------------------------------------------------- */

static int bisect_head(struct bisect *b, char **commit)
{
	const char *args[] = { "rev-parse", "--verify", "-q", "BISECT_HEAD", NULL };

	*commit = git_out(b->wt, args);
	if (!*commit) {
		lab_err("bisect: git has no commit to test in %s (BISECT_HEAD); "
			"'mmlab bisect status' shows the state", b->wt);
		return -1;
	}
	return 0;
}

static int do_run(bool json)
{
	struct bisect b;
	const char *status, *progress;
	char why[1024], *commit = NULL;
	unsigned int stepno;
	int ret = EXIT_RUN_FAILED, rc;

	if (bisect_open(&b) || take_lock(&b, "wait for it or stop it first")) {
		bisect_close(&b);
		return EXIT_USAGE;
	}
	status = json_string_value(json_object_get(b.state, "status"));
	progress = json_string_value(json_object_get(b.state, "progress")) ?: "";
	if (!strcmp(status, "done")) {
		lab_info("bisect: already finished");
		ret = conclude(&b, progress, json);
		goto out;
	}
	if (!strcmp(status, "refused")) {
		lab_err("bisect: refused: %s", json_string_value(json_object_get(
			json_object_get(b.state, "result"), "refused")) ?: "?");
		goto out;
	}
	b.store = store_open(gopts.results_dir);
	if (!b.store || bstore_set_status(b.bs, "running", NULL))
		goto out;
	for (int i = 0; i < 2; i++) {
		rc = endpoint(&b, i ? "bad" : "good");
		if (rc) {
			ret = rc > 0 ? EXIT_INTERRUPTED : EXIT_RUN_FAILED;
			if (rc > 0)
				lab_err("bisect: interrupted; 'mmlab bisect run' goes on from here");
			else
				bstore_set_status(b.bs, "failed", NULL);
			goto out;
		}
	}
	if (!endpoints_ok(&b, why, sizeof(why))) {
		json_t *r = json_pack("{s:s}", "refused", why);

		bstore_set_status(b.bs, "refused", r);
		json_decref(r);
		write_log(&b);
		lab_err("bisect: refusing to bisect: the endpoints do not differ as asked: %s", why);
		goto out;
	}
	lab_info("bisect: the endpoints differ: %s", why);
	write_log(&b);
	{
		json_t *steps = bstore_steps(b.bs), *st;
		size_t i;

		/* numbered on from the steps a run before this one finished */
		stepno = 1;
		json_array_foreach(steps, i, st)
			stepno += !strcmp(json_string_value(json_object_get(st, "role")), "step") &&
				  !strcmp(json_string_value(json_object_get(st, "state")), "done");
		json_decref(steps);
	}
	for (;; stepno++) {
		json_t *st = bstore_get(b.bs);
		char *out = xstrdup(json_string_value(json_object_get(st, "progress")) ?: "");

		json_decref(st);
		if (git_finished(out, new_term(&b))) {
			ret = conclude(&b, out, json);
			free(out);
			goto out;
		}
		if (strstr(out, "Bisecting:")) {
			char *l = progress_line(out);

			lab_info("bisect: %s", l);
			free(l);
		}
		free(out);
		free(commit);
		if (bisect_head(&b, &commit))
			goto out;
		rc = step(&b, commit, stepno);
		if (rc) {
			ret = rc > 0 ? EXIT_INTERRUPTED : EXIT_RUN_FAILED;
			if (rc > 0)
				lab_err("bisect: interrupted; 'mmlab bisect run' goes on from here");
			goto out;
		}
	}
out:
	free(commit);
	bisect_close(&b);
	return ret;
}

static int do_status(bool json)
{
	struct bisect b;
	json_t *steps, *res;

	if (bisect_open(&b)) {
		bisect_close(&b);
		return EXIT_USAGE;
	}
	steps = bstore_steps(b.bs);
	if (json) {
		json_t *o = json_deep_copy(b.state);

		json_object_set(o, "steps", steps);
		print_json(o);
		json_decref(o);
	} else {
		const char *status = json_string_value(json_object_get(b.state, "status"));
		const char *progress = json_string_value(json_object_get(b.state, "progress"));
		json_t *st;
		size_t i;

		printf("bisection of %s, %s: good %.12s, bad %.12s%s\n",
		       pstr(b.params, "metric") ?: pstr(b.params, "signature"), b.tree,
		       pstr(b.params, "good"), pstr(b.params, "bad"),
		       json_is_true(json_object_get(b.params, "reverse")) ?
		       " (reverse: looking for the fix)" : "");
		printf("status: %s\n", status);
		if (progress && strstr(progress, "Bisecting:")) {
			char *l = progress_line(progress);

			printf("git: %s\n", l);
			free(l);
		}
		res = make_result(&b, NULL);
		if (json_array_size(json_object_get(res, "steps"))) {
			printf("\n");
			print_table(stdout, json_object_get(res, "steps"), b.sig_mode);
		}
		json_decref(res);
		json_array_foreach(steps, i, st)
			if (strcmp(json_string_value(json_object_get(st, "state")) ?: "", "done"))
				printf("\nin progress: %s %.12s (%zu iterations so far)\n",
				       json_string_value(json_object_get(st, "role")),
				       json_string_value(json_object_get(st, "commit")),
				       (size_t)iterations_of(json_object_get(st, "data")));
		if (!strcmp(status, "refused"))
			printf("\nrefused: %s\n", json_string_value(json_object_get(
				json_object_get(b.state, "result"), "refused")));
	}
	json_decref(steps);
	bisect_close(&b);
	return 0;
}

static int do_log(void)
{
	char *dir = bisect_dir(), *path = xasprintf("%s/bisect.log", dir), *text;
	size_t len;
	int ret = 0;

	text = path_exists(path) ? read_file(path, &len, 64u << 20) : NULL;
	if (!text) {
		lab_err("no bisect log at %s; start a bisection with 'mmlab bisect start'", path);
		ret = EXIT_USAGE;
	} else {
		fwrite(text, 1, len, stdout);
	}
	free(text);
	free(path);
	free(dir);
	return ret;
}

/* remove the worktree wt of tree (and git's record of it) */
static void remove_worktree(const char *tree, const char *wt)
{
	const char *rm[] = { "worktree", "remove", "--force", wt, NULL };
	const char *prune[] = { "worktree", "prune", NULL };

	if (tree)
		git_run(tree, rm, NULL);
	rm_rf(wt);
	if (tree)
		git_run(tree, prune, NULL);
}

static int do_reset(void)
{
	struct bisect b;
	char stamp[TIME_STR_LEN], *to;
	time_t t = time(NULL);
	int ret = 0;

	if (bisect_open(&b)) {
		bisect_close(&b);
		return EXIT_USAGE;
	}
	if (take_lock(&b, "stop it before resetting")) {
		bisect_close(&b);
		return EXIT_USAGE;
	}
	remove_worktree(b.tree, b.wt);
	time_stamp(t, true, stamp);
	to = xasprintf("%s-%s", b.dir, stamp);
	/* two resets in one second: the second gets a suffix */
	for (int i = 2; path_exists(to) && i < 1000; i++) {
		free(to);
		to = xasprintf("%s-%s-%d", b.dir, stamp, i);
	}
	if (rename(b.dir, to)) {
		lab_err("cannot move %s to %s: %s", b.dir, to, strerror(errno));
		ret = EXIT_RUN_FAILED;
	} else {
		printf("bisect: ended; its state and log are kept in %s\n", to);
	}
	free(to);
	bisect_close(&b);
	return ret;
}

/* make the worktree and the state for params; git's start output in *out */
static int create(json_t *params, json_t *steps, const char *replay_file, char **out,
		  struct bisect *b)
{
	const char *tree = pstr(params, "tree");
	const char *add[] = { "worktree", "add", "--detach", "--no-checkout", NULL, NULL, NULL };
	const char *start[24] = { "bisect", "start", "--no-checkout" };
	const char *replay[] = { "bisect", "replay", replay_file, NULL };
	bool reverse = json_is_true(json_object_get(params, "reverse"));
	size_t n = 3, i;
	json_t *p, *st;
	char *dbpath;

	memset(b, 0, sizeof(*b));
	b->lock_fd = -1;
	b->dir = bisect_dir();
	b->wt = xasprintf("%s/wt", b->dir);
	b->lock = xasprintf("%s/lock", b->dir);
	*out = NULL;
	dbpath = xasprintf("%s/bisect.db", b->dir);
	if (path_exists(dbpath)) {
		lab_err("a bisection is already in %s; 'mmlab bisect status' shows it, "
			"'mmlab bisect reset' ends it", b->dir);
		free(dbpath);
		return -1;
	}
	free(dbpath);
	if (path_exists(b->wt))
		remove_worktree(tree, b->wt);
	if (mkdir_p(b->dir, 0755))
		return -1;
	add[4] = b->wt;
	add[5] = pstr(params, reverse ? "good" : "bad");
	if (git_wt(tree, add, out)) {
		lab_err("cannot make the bisect worktree %s of %s: %s", b->wt, tree, *out);
		return -1;
	}
	free(*out);
	*out = NULL;
	if (replay_file) {
		if (git_wt(b->wt, replay, out) && !git_finished(*out, reverse ? "fixed" : "bad")) {
			lab_err("git bisect replay %s failed: %s", replay_file, *out);
			goto fail;
		}
	} else {
		if (reverse) {
			start[n++] = "--term-old=broken";
			start[n++] = "--term-new=fixed";
		}
		start[n++] = pstr(params, reverse ? "good" : "bad");
		start[n++] = pstr(params, reverse ? "bad" : "good");
		start[n++] = "--";
		json_array_foreach(json_object_get(params, "paths"), i, p)
			if (n < ARRAY_SIZE(start) - 1)
				start[n++] = json_string_value(p);
		start[n] = NULL;
		if (git_wt(b->wt, start, out)) {
			lab_err("git bisect start failed: %s", *out);
			goto fail;
		}
	}
	b->bs = bstore_open(b->dir, true);
	if (!b->bs || bstore_init(b->bs, params) || bstore_set_progress(b->bs, *out))
		goto fail;
	json_array_foreach(steps, i, st)
		if (bstore_step_add_done(b->bs, json_string_value(json_object_get(st, "commit")),
					 json_string_value(json_object_get(st, "role")),
					 json_object_get(st, "data"),
					 json_number_value(json_object_get(st, "started")),
					 json_number_value(json_object_get(st, "finished"))))
			goto fail;
	b->state = bstore_get(b->bs);
	b->params = json_object_get(b->state, "params");
	if (load_params(b) || write_log(b))
		goto fail;
	return 0;
fail:
	bstore_close(b->bs);
	b->bs = NULL;
	remove_worktree(tree, b->wt);
	{
		char *db = xasprintf("%s/bisect.db", b->dir);
		char *wal = xasprintf("%s-wal", db), *shm = xasprintf("%s-shm", db);

		unlink(db);
		unlink(wal);
		unlink(shm);
		free(db);
		free(wal);
		free(shm);
	}
	return -1;
}

static int parse_fraction(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s)
		return -1;
	if (*end == '%') {
		v /= 100;
		end++;
	}
	if (*end || !(v >= 0) || v > 100)
		return -1;
	*out = v;
	return 0;
}

static char *random_id(void)
{
	unsigned char r[3] = { 0 };
	FILE *f = fopen("/dev/urandom", "r");

	if (!f || fread(r, 1, sizeof(r), f) != sizeof(r)) {
		unsigned long x = (unsigned long)time(NULL) ^ (unsigned long)getpid();

		r[0] = (unsigned char)x;
		r[1] = (unsigned char)(x >> 8);
		r[2] = (unsigned char)(x >> 16);
	}
	if (f)
		fclose(f);
	return xasprintf("%02x%02x%02x", r[0], r[1], r[2]);
}

static int do_start(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'J' },
		{ "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' },
		{ "metric", required_argument, NULL, 'm' },
		{ "direction", required_argument, NULL, 'd' },
		{ "min-change", required_argument, NULL, 'c' },
		{ "signature", required_argument, NULL, 's' },
		{ "k", required_argument, NULL, 'k' },
		{ "n", required_argument, NULL, 'n' },
		{ "reverse", no_argument, NULL, 'r' },
		{ "paths", required_argument, NULL, 'p' },
		{ "tree", required_argument, NULL, 't' },
		{ "variant", required_argument, NULL, 'v' },
		{ "iterations", required_argument, NULL, 'i' },
		{ "max-iterations", required_argument, NULL, 'M' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *jobp = NULL, *good = NULL, *bad = NULL, *metric = NULL, *sig = NULL;
	const char *direction = NULL, *tree_opt = NULL, *variant = NULL;
	double min_change = 0.05, alpha = 0.05;
	unsigned int k = 1, n_runs = 0, iters = 0, max_iter = 0;
	bool reverse = false;
	json_t *paths = json_array(), *params = NULL;
	struct job *job = NULL;
	struct bisect b = { .lock_fd = -1 };
	char *text = NULL, *jdir = NULL, *tree = NULL, *gsha = NULL, *bsha = NULL;
	char *out = NULL, *id = NULL, *count = NULL, *jfile = NULL, err[256];
	size_t len, vidx = 0;
	uint64_t x;
	int c, ret = EXIT_USAGE;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'J': jobp = optarg; break;
		case 'g': good = optarg; break;
		case 'b': bad = optarg; break;
		case 'm': metric = optarg; break;
		case 's': sig = optarg; break;
		case 'd':
			if (strcmp(optarg, "lower") && strcmp(optarg, "higher")) {
				lab_err("--direction is 'lower' or 'higher' (which values are better), "
					"not '%s'", optarg);
				goto out;
			}
			direction = optarg;
			break;
		case 'c':
			if (parse_fraction(optarg, &min_change)) {
				lab_err("--min-change wants a fraction or a percentage (0.05, 5%%), "
					"not '%s'", optarg);
				goto out;
			}
			break;
		case 'a':
			if (parse_fraction(optarg, &alpha) || !(alpha > 0 && alpha < 0.5)) {
				lab_err("--alpha wants a number in (0, 0.5), not '%s'", optarg);
				goto out;
			}
			break;
		case 'k': case 'n': case 'i': case 'M':
			if (parse_uint(optarg, &x) || x < 1 || x > 1000) {
				lab_err("--%s wants an integer 1..1000, not '%s'",
					c == 'k' ? "k" : c == 'n' ? "n" : c == 'i' ? "iterations" :
					"max-iterations", optarg);
				goto out;
			}
			if (c == 'k')
				k = (unsigned int)x;
			else if (c == 'n')
				n_runs = (unsigned int)x;
			else if (c == 'i')
				iters = (unsigned int)x;
			else
				max_iter = (unsigned int)x;
			break;
		case 'r': reverse = true; break;
		case 'p': json_array_append_new(paths, json_string(optarg)); break;
		case 't': tree_opt = optarg; break;
		case 'v': variant = optarg; break;
		case 'h': usage(stdout); ret = 0; goto out;
		default: usage(stderr); goto out;
		}
	}
	if (optind != argc) {
		lab_err("bisect start: unexpected '%s'; see 'mmlab bisect --help'", argv[optind]);
		goto out;
	}
	if (!jobp || !good || !bad) {
		lab_err("bisect start needs --job, --good and --bad; see 'mmlab bisect --help'");
		goto out;
	}
	if (!metric == !sig) {
		lab_err("bisect start needs one of --metric (metric mode) or --signature "
			"(pass/fail mode)");
		goto out;
	}
	if (sig && (direction || min_change != 0.05)) {
		lab_err("--direction and --min-change are for --metric, not --signature");
		goto out;
	}
	if (metric && (n_runs || k != 1)) {
		lab_err("--k and --n are for --signature; with --metric give --iterations");
		goto out;
	}
	if (sig) {
		struct expectation e;

		if (expect_from_signature(sig, k, &e, err, sizeof(err))) {
			lab_err("--signature: %s", err);
			goto out;
		}
		expect_release(&e);
	} else {
		struct expr *e = expr_parse(metric, err, sizeof(err));

		if (!e) {
			lab_err("--metric '%s': %s", metric, err);
			goto out;
		}
		expr_free(e);
	}
	text = job_read_file(jobp, &len, &jdir);
	if (!text)
		goto out;
	{
		char *a = realpath(jdir, NULL);

		if (a) {
			free(jdir);
			jdir = a;
		}
	}
	jfile = path_abs(jobp);
	if (job_load_buffer(jfile, text, len, jdir, &job))
		goto out;
	if (variant) {
		for (vidx = 0; vidx < job->nvariants; vidx++)
			if (!strcmp(job->variants[vidx].name, variant))
				break;
		if (vidx == job->nvariants) {
			lab_err("--variant %s: %s has no such variant", variant, jobp);
			goto out;
		}
	}
	tree = tree_opt ? path_abs(tree_opt) : job->kernels.tree ? xstrdup(job->kernels.tree) : NULL;
	if (!tree) {
		lab_err("%s has no kernels.tree to bisect in; give --tree DIR or add "
			"'kernels: { tree: DIR }' to the job", jobp);
		goto out;
	}
	if (tree_opt && job->kernels.tree && strcmp(tree, job->kernels.tree))
		lab_warn("--tree %s: the job's kernels.tree %s is not used", tree, job->kernels.tree);
	gsha = git_resolve_commit(tree, good, "--good");
	bsha = gsha ? git_resolve_commit(tree, bad, "--bad") : NULL;
	if (!bsha)
		goto out;
	if (!strcmp(gsha, bsha)) {
		lab_err("--good and --bad are the same commit %.12s", gsha);
		goto out;
	}
	{
		char *range = xasprintf(reverse ? "%2$s..%1$s" : "%1$s..%2$s", gsha, bsha);
		const char *args[24] = { "rev-list", "--count", range, "--" };
		size_t na = 4, i;
		json_t *p;

		json_array_foreach(paths, i, p)
			if (na < ARRAY_SIZE(args) - 1)
				args[na++] = json_string_value(p);
		args[na] = NULL;
		count = git_out(tree, args);
		free(range);
	}
	if (!iters)
		iters = sig ? (n_runs ? n_runs : 3) : job->iterations;
	if (sig && n_runs)
		iters = n_runs;
	if (iters < 2 && !sig) {
		lab_err("metric mode needs at least 2 iterations per commit for its tests; "
			"give --iterations 2 or more (the job has %u)", job->iterations);
		goto out;
	}
	if (sig && k > iters) {
		lab_err("--k %u is more than the %u runs per commit (--n)", k, iters);
		goto out;
	}
	if (!max_iter)
		max_iter = sig ? iters : 3 * iters;
	if (max_iter < iters) {
		lab_err("--max-iterations %u is less than --iterations %u", max_iter, iters);
		goto out;
	}
	id = random_id();
	params = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:s, s:s, s:s?, s:s?, s:s?, "
			   "s:f, s:f, s:I, s:I, s:I, s:I, s:b, s:O, s:I}",
		"id", id, "tree", tree, "job_file", jfile, "job_dir", jdir, "job_text", text,
		"variant_name", job->variants[vidx].name, "variant", (json_int_t)vidx,
		"good", gsha, "bad", bsha, "metric", metric, "signature", sig,
		"direction", direction, "min_change", min_change, "alpha", alpha,
		"iterations", (json_int_t)iters, "max_iterations", (json_int_t)max_iter,
		"k", (json_int_t)k, "iterations_per_boot", (json_int_t)job->iterations_per_boot,
		"reverse", reverse, "paths", paths,
		"range_commits", (json_int_t)(count ? strtoll(count, NULL, 10) : 0));
	json_object_set_new(params, "good_ref", json_string(good));
	json_object_set_new(params, "bad_ref", json_string(bad));
	if (create(params, NULL, NULL, &out, &b))
		goto out;
	printf("bisect: %s between good %s (%.12s) and bad %s (%.12s) in %s\n",
	       metric ? metric : sig, good, gsha, bad, bsha, tree);
	{
		char *l = progress_line(out);

		printf("git: %s\n", l);
		free(l);
	}
	printf("next: 'mmlab bisect run' measures the endpoints (%u iterations each) and bisects\n",
	       iters);
	ret = 0;
out:
	bisect_close(&b);
	json_decref(params);
	json_decref(paths);
	job_free(job);
	free(text);
	free(jdir);
	free(tree);
	free(gsha);
	free(bsha);
	free(out);
	free(id);
	free(count);
	free(jfile);
	return ret;
}

static int do_replay(const char *file, bool json)
{
	char *text = read_file(file, NULL, 64u << 20), *out = NULL, *afile;
	json_t *params = NULL, *steps = json_array();
	struct bisect b = { .lock_fd = -1 };
	int ret = EXIT_USAGE;

	if (!text) {
		lab_err("cannot read the bisect log %s", file);
		goto out;
	}
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');

		if (nl)
			*nl = '\0';
		if (!strncmp(l, LOG_TAG "params ", strlen(LOG_TAG "params "))) {
			json_decref(params);
			params = json_loads(l + strlen(LOG_TAG "params "), 0, NULL);
		} else if (!strncmp(l, LOG_TAG "step ", strlen(LOG_TAG "step "))) {
			json_t *st = json_loads(l + strlen(LOG_TAG "step "), 0, NULL);

			if (st)
				json_array_append_new(steps, st);
		}
		l = nl ? nl + 1 : NULL;
	}
	if (!json_is_object(params) || !pstr(params, "tree") || !pstr(params, "good")) {
		lab_err("%s is not a log of 'mmlab bisect' (no '%sparams' line); "
			"'mmlab bisect log' writes one", file, LOG_TAG);
		goto out;
	}
	afile = path_abs(file);
	if (create(params, steps, afile, &out, &b)) {
		free(afile);
		goto out;
	}
	free(afile);
	lab_info("bisect: replayed %zu measured commits from %s", json_array_size(steps), file);
	if (git_finished(out, new_term(&b))) {
		ret = conclude(&b, out, json);
	} else {
		printf("bisect: replayed; not finished: 'mmlab bisect run' goes on\n");
		ret = 0;
	}
out:
	bisect_close(&b);
	json_decref(params);
	json_decref(steps);
	free(text);
	free(out);
	return ret;
}

int cmd_bisect(int argc, char **argv)
{
	const char *sub = argc > 1 ? argv[1] : NULL;
	bool json = false;

	if (!sub || !strcmp(sub, "--help") || !strcmp(sub, "-h") || !strcmp(sub, "help")) {
		usage(sub ? stdout : stderr);
		return sub ? 0 : EXIT_USAGE;
	}
	if (!strcmp(sub, "start"))
		return do_start(argc - 1, argv + 1);
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else if (strcmp(sub, "replay") || i != 2) {
			lab_err("bisect %s: unexpected '%s'; see 'mmlab bisect --help'", sub, argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!strcmp(sub, "run"))
		return do_run(json);
	if (!strcmp(sub, "status"))
		return do_status(json);
	if (!strcmp(sub, "log"))
		return do_log();
	if (!strcmp(sub, "reset"))
		return do_reset();
	if (!strcmp(sub, "replay")) {
		if (argc < 3 || argv[2][0] == '-') {
			lab_err("bisect replay wants the log file: 'mmlab bisect replay FILE'");
			return EXIT_USAGE;
		}
		return do_replay(argv[2], json);
	}
	lab_err("unknown bisect command '%s'; one of start, run, status, log, replay, reset", sub);
	return EXIT_USAGE;
}
