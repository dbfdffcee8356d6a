// SPDX-License-Identifier: GPL-2.0
/*
 * start.c - "mmlab bisect start": the parameters of a bisection from the
 * options and the job (the mode, the variant, the tree, the endpoints as
 * commit ids, the iterations), then the session (session.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bisect/bisect_list.h"
#include "bisect/internal.h"
#include "analysis/expr.h"
#include "job/job.h"
#include "kernel/gitops.h"
#include "lib/util.h"

/* the metric expression or the signature parses; 0 or -1 after a message */
static int check_mode(const struct bisect_start_args *a)
{
	struct expectation e;
	struct expr *x;
	char err[256];

	if (a->signature) {
		if (expect_from_signature(a->signature, a->k ? a->k : 1, &e, err, sizeof(err))) {
			lab_err("--signature: %s", err);
			return -1;
		}
		expect_release(&e);
		return 0;
	}
	x = expr_parse(a->metric, err, sizeof(err));
	if (!x) {
		lab_err("--metric '%s': %s", a->metric, err);
		return -1;
	}
	expr_free(x);
	return 0;
}

/* the job (its text, directory and variant) into p; the loaded job in *job */
static int load_job(const struct bisect_start_args *a, struct bisect_params *p, struct job **job)
{
	size_t len, vidx = 0;
	char *abs;

	p->job_text = job_read_file(a->job, &len, &p->job_dir);
	if (!p->job_text)
		return -1;
	if (a->job_dir) {
		free(p->job_dir);
		p->job_dir = xstrdup(a->job_dir);
	}
	abs = realpath(p->job_dir, NULL);
	if (abs) {
		free(p->job_dir);
		p->job_dir = abs;
	}
	p->job_file = path_abs(a->job);
	if (job_load_buffer(p->job_file, p->job_text, len, p->job_dir, job))
		return -1;
	if (a->variant) {
		for (vidx = 0; vidx < (*job)->nvariants; vidx++)
			if (!strcmp((*job)->variants[vidx].name, a->variant))
				break;
		if (vidx == (*job)->nvariants) {
			lab_err("--variant %s: %s has no such variant", a->variant, a->job);
			return -1;
		}
	}
	p->variant = (unsigned int)vidx;
	p->variant_name = xstrdup((*job)->variants[vidx].name);
	return 0;
}

/* the tree, the endpoints as commit ids and the commits between them */
static int resolve_range(const struct bisect_start_args *a, const struct job *job,
			 struct bisect_params *p)
{
	const char *args[24] = { "rev-list", "--count", NULL, "--" };
	char *range, *count;
	size_t na = 4;

	p->tree = a->tree	    ? path_abs(a->tree) :
		  job->kernels.tree ? xstrdup(job->kernels.tree) :
				      NULL;
	if (!p->tree) {
		lab_err("%s has no kernels.tree to bisect in; give --tree DIR or add "
			"'kernels: { tree: DIR }' to the job",
			a->job);
		return -1;
	}
	if (a->tree && job->kernels.tree && strcmp(p->tree, job->kernels.tree))
		lab_warn("--tree %s: the job's kernels.tree %s is not used", p->tree,
			 job->kernels.tree);
	p->good = git_resolve_commit(p->tree, a->good, "--good");
	p->bad = p->good ? git_resolve_commit(p->tree, a->bad, "--bad") : NULL;
	if (!p->bad)
		return -1;
	if (!strcmp(p->good, p->bad)) {
		lab_err("--good and --bad are the same commit %.12s", p->good);
		return -1;
	}
	range = p->reverse ? xasprintf("%s..%s", p->bad, p->good) :
			     xasprintf("%s..%s", p->good, p->bad);
	args[2] = range;
	for (size_t i = 0; i < p->paths.n && na < ARRAY_SIZE(args) - 1; i++)
		args[na++] = p->paths.v[i];
	args[na] = NULL;
	count = git_out(p->tree, args);
	p->range_commits = count ? strtoull(count, NULL, 10) : 0;
	free(count);
	free(range);
	return 0;
}

/* iterations per commit and how far a step may grow */
static int set_iterations(const struct bisect_start_args *a, const struct job *job,
			  struct bisect_params *p)
{
	bool sig = a->signature != NULL;
	unsigned int iters = a->iterations;

	if (!iters)
		iters = sig ? (a->n ? a->n : 3) : job->iterations;
	if (sig && a->n)
		iters = a->n;
	if (iters < 2 && !sig) {
		lab_err("metric mode needs at least 2 iterations per commit for its tests; "
			"give --iterations 2 or more (the job has %u)",
			job->iterations);
		return -1;
	}
	if (sig && p->k > iters) {
		lab_err("--k %u is more than the %u runs per commit (--n)", p->k, iters);
		return -1;
	}
	p->max_iterations = a->max_iterations ? a->max_iterations : sig ? iters : 3 * iters;
	if (p->max_iterations < iters) {
		lab_err("--max-iterations %u is less than --iterations %u", p->max_iterations,
			iters);
		return -1;
	}
	p->iterations = iters;
	p->iterations_per_boot = job->iterations_per_boot;
	return 0;
}

/*
 * A list bisection: the entries, the endpoints k1 and kN (with --reverse
 * kN is the good one), and a job made for each entry now, so that a
 * mistyped entry is refused before anything boots.
 */
static int resolve_list(const struct bisect_start_args *a, struct bisect_params *p)
{
	size_t n, len = strlen(p->job_text);
	char *first, *last;

	p->kernels = bisect_list_read(a->kernels);
	if (!p->kernels || (a->tree && bisect_list_set_tree(p, a->tree, a->kernels)))
		return -1;
	n = json_array_size(p->kernels);
	first = xstrdup("k1");
	last = xasprintf("k%zu", n);
	p->good = p->reverse ? last : first;
	p->bad = p->reverse ? first : last;
	p->range_commits = n - 1;
	for (size_t i = 0; i < n; i++) {
		char err[256], *vname = xasprintf("c-k%zu", i + 1), *yaml;
		struct job *job = NULL;

		yaml = bisect_step_yaml_set(p->job_text, len, p->variant, "bisect-check", vname,
					    json_array_get(p->kernels, i), NULL, p->iterations,
					    p->iterations_per_boot, err, sizeof(err));
		free(vname);
		if (!yaml || job_load_buffer(p->job_file, yaml, strlen(yaml), p->job_dir, &job)) {
			lab_err("--kernels %s: entry %zu does not make a job of %s: %s", a->kernels,
				i + 1, p->job_file, yaml ? "see above" : err);
			free(yaml);
			return -1;
		}
		job_free(job);
		free(yaml);
	}
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

/* the options' part of the parameters */
static void from_options(const struct bisect_start_args *a, struct bisect_params *p)
{
	memset(p, 0, sizeof(*p));
	p->good_ref = a->good ? xstrdup(a->good) : NULL;
	p->bad_ref = a->bad ? xstrdup(a->bad) : NULL;
	p->metric = a->metric ? xstrdup(a->metric) : NULL;
	p->signature = a->signature ? xstrdup(a->signature) : NULL;
	p->better = a->better;
	p->min_change = a->min_change;
	p->alpha = a->alpha;
	p->k = a->k ? a->k : 1;
	p->reverse = a->reverse;
	for (size_t i = 0; a->paths && i < a->paths->n; i++)
		strlist_push(&p->paths, a->paths->v[i]);
}

int bisect_start(const struct bisect_env *env, const struct bisect_start_args *a,
		 struct bisect_params *p, char **progress)
{
	struct bisect_session s;
	struct job *job = NULL;
	char *out = NULL;
	int ret = -1;

	*progress = NULL;
	from_options(a, p);
	if (check_mode(a) || load_job(a, p, &job) || set_iterations(a, job, p) ||
	    (a->kernels ? resolve_list(a, p) : resolve_range(a, job, p)))
		goto out;
	p->id = random_id();
	if (session_create(&s, env, p, NULL, NULL, &out)) {
		session_close(&s);
		goto out;
	}
	session_close(&s);
	*progress = bisect_progress_line(out);
	ret = 0;
out:
	if (ret)
		bisect_params_release(p);
	job_free(job);
	free(out);
	return ret;
}
