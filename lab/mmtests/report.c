// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - mmtests' own report of a run (mmtests.h): the stored logs of
 * each variant's iterations laid out as mmtests lays out its runs
 * (work/log/<kernel>/iter-<i>/, one "kernel" per variant), in a
 * temporary directory, and mmtests' compare-kernels.sh run there with the
 * baseline first. mmlab computes nothing of this table; docs/compare.md
 * says how it differs from mmlab's.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/spawn.h"
#include "lib/util.h"
#include "mmtests/mmtests.h"
#include "store/run_data.h"

#define COMPARE_TIMEOUT_S 600
#define COMPARE_OUT_MAX (16u << 20)

/* a program in PATH */
static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL;
	bool found = false;

	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", *d ? d : ".", prog);

		found = !access(p, X_OK);
		free(p);
	}
	free(copy);
	return found;
}

/* mmtests' own complaints (a container's missing /sys files, ...) to stderr, bounded */
static void pass_stderr(const char *path)
{
	size_t len;
	char *t = path_exists(path) ? read_file(path, &len, 1u << 20) : NULL;

	if (t && len)
		fprintf(stderr, "%s%s", t, t[len - 1] == '\n' ? "" : "\n");
	free(t);
}

/* the variant index of the baseline: name, or the first */
static int baseline_index(const struct run_record *r, const char *baseline)
{
	if (!baseline)
		return 0;
	for (size_t i = 0; i < r->nvariants; i++)
		if (!strcmp(r->variants[i].name, baseline))
			return (int)i;
	lab_err("--baseline %s: the run has no such variant", baseline);
	return -1;
}

/* the iter-* directories of src (one mmlab iteration's mmtests run) to parent/iter-<k> */
static int copy_iters(const char *src, const char *parent, unsigned int *k)
{
	DIR *d = opendir(src);
	struct dirent *e;
	int rc = 0;

	if (!d)
		return 0; /* no log: nothing to lay out */
	while (!rc && (e = readdir(d))) {
		char *from, *to;

		if (strncmp(e->d_name, "iter-", 5) ||
		    strspn(e->d_name + 5, "0123456789") != strlen(e->d_name + 5) || !e->d_name[5])
			continue;
		from = xasprintf("%s/%s", src, e->d_name);
		to = xasprintf("%s/iter-%u", parent, *k);
		if (is_dir(from)) {
			const char *argv[] = { "cp", "-R", from, to, NULL };

			rc = mkdir_p(parent, 0755) || spawn_run(argv, NULL, NULL);
			*k += !rc;
		}
		free(from);
		free(to);
	}
	closedir(d);
	return rc;
}

/* each ok iteration's mmtests/mmlab/iter-* of a variant copied to tmp/<name>/iter-<k> */
static int lay_out(const char *results_dir, const char *run, const char *name,
		   const struct run_data_variant *its, const char *tmp, unsigned int *copied)
{
	char *parent = xasprintf("%s/%s", tmp, name);
	unsigned int k = 0;
	int rc = 0;

	for (size_t i = 0; its && i < its->n; i++) {
		unsigned int idx = its->its[i].index;
		char *src;

		if (!iteration_ok(&its->its[i]))
			continue;
		src = xasprintf("%s/%s/%s/%u/mmtests/%s", results_dir, run, name, idx,
				MMTESTS_RUN_NAME);
		rc = copy_iters(src, parent, &k);
		free(src);
		if (rc) {
			lab_err("cannot copy the mmtests log of %s iteration %u into %s", name, idx,
				tmp);
			break;
		}
	}
	free(parent);
	*copied = k;
	return rc ? -1 : 0;
}

/*
 * every variant's logs laid out in tmp (lay_out); *compare = the names of
 * the variants to compare with the baseline (base), space-separated
 * (malloc'd; NULL when there is none). A variant without a log is left
 * out with a warning; the baseline without one is an error. Returns 0, or
 * -1 after one message.
 */
static int lay_out_all(const char *results_dir, const struct run_data *run, int base,
		       const char *tmp, char **compare)
{
	for (size_t i = 0; i < run->rec.nvariants; i++) {
		const char *name = run->rec.variants[i].name;
		unsigned int n;

		if (lay_out(results_dir, run->rec.run, name, run->vars ? &run->vars[i] : NULL, tmp,
			    &n))
			return -1;
		if (!n) {
			lab_warn("variant '%s' has no iteration with an mmtests log; left out of "
				 "mmtests' report",
				 name);
			if ((int)i == base) {
				lab_err("the baseline '%s' has no mmtests log; choose another with "
					"--baseline",
					name);
				return -1;
			}
			continue;
		}
		if ((int)i == base)
			continue;
		if (*compare) {
			char *c = xasprintf("%s %s", *compare, name);

			free(*compare);
			*compare = c;
		} else {
			*compare = xstrdup(name);
		}
	}
	return 0;
}

int mmtests_report(const char *results_dir, const struct run_data *run, const char *baseline,
		   FILE *out)
{
	const char *id = run->rec.run;
	const char *mmdir = run_record_mmtests_dir(&run->rec);
	char tmpl[] = "/tmp/mmlab-mmtests-XXXXXX", *script = NULL, *compare = NULL, *errs = NULL;
	struct spawn_opts so = { .timeout_s = COMPARE_TIMEOUT_S, .capture_max = COMPARE_OUT_MAX };
	struct spawn_result r = { 0 };
	int base, ret = -1, rc;

	if (!mmdir) {
		lab_err("run %s ran no mmtests workload; --mmtests needs one (docs/workloads.md, "
			"\"mmtests\")",
			id ? id : "?");
		return -1;
	}
	base = baseline_index(&run->rec, baseline);
	if (base < 0)
		return -1;
	if (!mkdtemp(tmpl)) {
		lab_err("cannot make a temporary directory in /tmp");
		return -1;
	}
	if (lay_out_all(results_dir, run, base, tmpl, &compare))
		goto out;
	script = xasprintf("%s/compare-kernels.sh", mmdir);
	if (!path_exists(script)) {
		lab_err("%s is missing; the run's mmtests directory must still be there", script);
		goto out;
	}
	if (!in_path("R")) {
		lab_err("mmtests' compare-kernels.sh computes its confidence intervals with R, which "
			"is not installed; without it its significance marks are wrong. Install "
			"r-base-core (scripts/install-deps does)");
		goto out;
	}
	errs = xasprintf("%s/compare-kernels.err", tmpl);
	so.stderr_path = errs;
	{
		const char *bname = run->rec.variants[base].name;
		const char *argv[] = {
			"bash",	 script, "--baseline", bname, compare ? "--compare" : NULL,
			compare, NULL
		};
		static const char *const env[] = { "ASSUME_PACKAGE_INSTALLED=yes", NULL };
		char buf[128];

		so.cwd = tmpl;
		so.env = env;
		rc = spawn_run(argv, &so, &r);
		pass_stderr(errs);
		if (rc) {
			lab_err("mmtests' compare-kernels.sh %s; its output ends:\n%s",
				spawn_describe(&r, so.timeout_s, buf, sizeof(buf)),
				spawn_tail(&r, 20));
			goto out;
		}
	}
	if (r.out_len && fwrite(r.out, 1, r.out_len, out) != r.out_len) {
		lab_err("cannot write mmtests' report");
		goto out;
	}
	ret = 0;
out:
	spawn_result_free(&r);
	rm_rf(tmpl);
	free(errs);
	free(script);
	free(compare);
	return ret;
}
