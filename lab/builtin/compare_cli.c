// SPDX-License-Identifier: GPL-2.0
/*
 * compare_cli.c - what `mmlab compare` and `mmlab report` share
 * (compare_cli.h): option callbacks, loading runs, the output file.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"
#include "builtin/compare_cli.h"
#include "store/store.h"
#include "lib/util.h"

int cmp_parse_pct(const char *s, double *frac)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v))
		return -1;
	if (*end == '%') {
		end++;
		v /= 100;
	}
	if (*end || !(v > 0) || v >= 10)
		return -1;
	*frac = v;
	return 0;
}

int cmp_parse_alpha(const char *s, double *alpha)
{
	char *end;

	*alpha = strtod(s, &end);
	if (end == s || *end || !(*alpha > 0 && *alpha < 1)) {
		lab_err("--alpha %s: give a probability between 0 and 1, e.g. 0.05", s);
		return -1;
	}
	return 0;
}

/* user formulas found in the run's job (job_resolved.derived): those the user did not give */
static int add_job_derived(struct comparison *c, const struct cmp_runinfo *ri)
{
	const char *key;
	json_t *val;

	json_object_foreach(ri->derived, key, val) {
		if (!json_is_string(val)) {
			lab_err("derived metric %s in the run's job is not a string", key);
			return -1;
		}
		if (!kvlist_get(&c->derived, key) &&
		    cmp_add_derived(c, key, json_string_value(val)) < 0)
			return -1;
	}
	return 0;
}

int cmp_load_run(const char *results_dir, const char *run, struct run_data *d)
{
	struct store *s = store_open(results_dir);
	int rc;

	memset(d, 0, sizeof(*d));
	if (!s)
		return -1;
	rc = store_run_load(s, run, d);
	store_close(s);
	return rc;
}

int cmp_load_runs(struct comparison *c, int nruns, char **runs)
{
	for (int i = 0; i < nruns; i++) {
		const char *id = strcmp(runs[i], "latest") ? runs[i] : NULL;
		struct run_data run;
		int rc;

		if (cmp_load_run(gopts.results_dir ? gopts.results_dir : "results", id, &run)) {
			run_data_release(&run);
			return EXIT_RUN_FAILED;
		}
		rc = cmp_add_run(c, &run) < 0 ||
		     add_job_derived(c, &c->runinfo[c->nruninfo - 1]) < 0;
		run_data_release(&run);
		if (rc)
			return EXIT_USAGE;
	}
	return 0;
}

int cmp_add_derive_opt(struct comparison *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	char *name;
	int rc;

	if (!eq || eq == arg) {
		lab_err("--derive %s: write NAME=EXPRESSION", arg);
		return -1;
	}
	name = xstrndup(arg, (size_t)(eq - arg));
	rc = cmp_add_derived(c, name, eq + 1);
	free(name);
	return rc;
}

int cmp_open_output(const char *path, FILE **out)
{
	*out = stdout;
	if (!path || !strcmp(path, "-"))
		return 0;
	*out = fopen(path, "w");
	if (!*out) {
		lab_err("cannot write %s: %s; check the directory exists and is "
			"writable",
			path, strerror(errno));
		return -1;
	}
	return 0;
}

int cmp_close_output(FILE *out, const char *path)
{
	int bad = ferror(out);

	if (out != stdout)
		bad |= fclose(out);
	else
		bad |= fflush(out);
	if (bad) {
		lab_err("writing %s failed: %s", path ? path : "standard output", strerror(errno));
		return -1;
	}
	return 0;
}

int cmp_opt_alpha(const struct opt *o, const char *arg)
{
	return cmp_parse_alpha(arg, o->value);
}

int cmp_opt_samples(const struct opt *o, const char *arg)
{
	return cmp_add_samples_csv(o->value, arg) < 0 ? -1 : 0;
}

int cmp_opt_derive(const struct opt *o, const char *arg)
{
	return cmp_add_derive_opt(o->value, arg) < 0 ? -1 : 0;
}

int cmp_cli_compute(struct comparison *c, const struct cmp_cli *cli, int nruns, char **runs)
{
	int rc = cmp_load_runs(c, nruns, runs);

	if (rc)
		return rc;
	return cmp_compute(c, cli->baseline, cli->alpha, cli->metrics) < 0 ? EXIT_USAGE : 0;
}
