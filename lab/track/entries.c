// SPDX-License-Identifier: GPL-2.0
/*
 * entries.c - the confirmed changes of a track as the report gives them
 * (report.h): which changes, their subject line, and each entry's text:
 * the first bad commit, the setup it was measured on, the numbers, the
 * comparison as "mmlab compare" prints it, and the commands that
 * reproduce it. Every format of the report (report.c, report_html.c,
 * report_mail.c) is written from these.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/metrics_dir.h"
#include "track/report.h"

/* a confirmed change with what the report says of it (new reference) */
static json_t *entry_of(struct track *t, const char *key, json_t *conf)
{
	json_t *bis = json_object_get(json_object_get(t->state, "bisect"), key);
	json_t *cands = json_object_get(json_object_get(t->state, "analysis"), "candidates");
	json_t *e = json_pack("{s:s, s:O, s:O?}", "key", key, "confirm", conf, "bisect", bis);
	json_t *same = json_array(), *c, *x, *best = NULL;
	size_t i;

	json_array_foreach(json_object_get(conf, "tests"), i, x) {
		if (json_is_true(json_object_get(x, "confirmed")) &&
		    (!best || json_number_value(json_object_get(x, "p")) <
				      json_number_value(json_object_get(best, "p"))))
			best = x;
	}
	json_array_foreach(cands, i, c) {
		char *k = track_change_key(json_string_value(json_object_get(c, "job")),
					   json_string_value(json_object_get(c, "before")),
					   json_string_value(json_object_get(c, "after")));

		if (!strcmp(k, key)) {
			if (best && !strcmp(json_string_value(json_object_get(c, "metric")),
					    json_string_value(json_object_get(best, "metric"))))
				json_object_set(e, "change_point", c);
			else
				json_array_append(same, c);
		}
		free(k);
	}
	json_object_set_new(e, "same_commit", same);
	json_object_set(e, "primary", best);
	return e;
}

int track_better(const struct track *t, const char *metric)
{
	enum metric_dir d;

	for (size_t i = 0; i < t->def.nwatch; i++)
		if (t->def.watch[i].better && !fnmatch(t->def.watch[i].glob, metric, 0))
			return t->def.watch[i].better;
	d = metric_direction(metric);
	return d == DIR_LOWER ? -1 : d == DIR_HIGHER ? 1 : 0;
}

void track_entry_subject(struct track *t, json_t *e, char *buf, size_t len)
{
	json_t *p = json_object_get(e, "primary");
	const char *metric = json_string_value(json_object_get(p, "metric")) ?: "?";
	double b = json_number_value(json_object_get(p, "mean_before"));
	double a = json_number_value(json_object_get(p, "mean_after"));
	double rel = b != 0 ? (a / b - 1) * 100 : NAN;
	int better = track_better(t, metric);
	const char *what = !better ? "change" : (a - b) * better > 0 ? "improvement" : "regression";
	json_t *first = json_object_get(json_object_get(e, "bisect"), "first");
	const char *key = json_string_value(json_object_get(e, "key"));
	const char *after = strstr(key, "..") ? strstr(key, "..") + 2 : key;
	const char *where = json_string_value(json_object_get(first, "commit"));
	char num[32], sha12[13];

	if (where) {
		/* the subject names the first bad commit by 12 hex digits, as linux-mm does */
		snprintf(sha12, sizeof(sha12), "%.12s", where);
		where = sha12;
	} else {
		json_t *pt = track_point(t, after);

		where = json_string_value(json_object_get(pt, "label")) ?: after;
	}
	if (isfinite(rel))
		snprintf(num, sizeof(num), "%+.1f%%", rel);
	else
		snprintf(num, sizeof(num), "%+g", a - b);
	snprintf(buf, len, "[mmlab] %s %s: %s %s %s",
		 t->def.branch ? t->def.branch :
		 t->def.tags   ? t->def.tags :
				 t->def.name,
		 where, metric, num, what);
}

json_t *track_entries(struct track *t, json_t **not_confirmed)
{
	json_t *conf = json_object_get(t->state, "confirm"), *e, *out = json_array();
	json_t *regress = json_array(), *other = json_array();
	const char *key;

	*not_confirmed = json_array();
	json_object_foreach(conf, key, e) {
		const char *st = json_string_value(json_object_get(e, "status")) ?: "";
		json_t *en;
		char subj[512];

		if (!strcmp(st, "not confirmed")) {
			json_array_append_new(*not_confirmed,
					      json_pack("{s:s, s:O}", "key", key, "confirm", e));
			continue;
		}
		if (strcmp(st, "confirmed"))
			continue;
		en = entry_of(t, key, e);
		track_entry_subject(t, en, subj, sizeof(subj));
		json_object_set_new(en, "subject", json_string(subj));
		json_array_append_new(strstr(subj, "regression") ? regress : other, en);
	}
	json_array_extend(out, regress);
	json_array_extend(out, other);
	json_decref(regress);
	json_decref(other);
	return out;
}

/* the comparison of the two kernels of the confirmation run, as compare prints it */
void track_write_compare(struct track *t, json_t *e, FILE *f)
{
	const char *run = json_string_value(json_object_get(json_object_get(e, "confirm"), "run"));
	const char *metrics =
		json_string_value(json_object_get(json_object_get(e, "confirm"), "metrics"));
	json_t *r = run ? store_load_run(t->store, run) : NULL;
	struct comparison *c = cmp_new();

	if (r && !cmp_add_run(c, r) && !cmp_compute(c, NULL, t->def.alpha, metrics))
		cmp_write(c, CMP_TEXT, f);
	else
		fprintf(f, "  (the confirmation run %s could not be compared)\n", run ? run : "?");
	cmp_free(c);
	json_decref(r);
}

static void write_first(FILE *f, json_t *e)
{
	json_t *b = json_object_get(e, "bisect"), *first = json_object_get(b, "first");
	const char *st = json_string_value(json_object_get(b, "status"));
	const char *key = json_string_value(json_object_get(e, "key"));

	if (first)
		fprintf(f, "first bad commit: %s (\"%s\")\n  author: %s, %s\n",
			json_string_value(json_object_get(first, "commit")),
			json_string_value(json_object_get(first, "subject")),
			json_string_value(json_object_get(first, "author")),
			json_string_value(json_object_get(first, "date")));
	else if (st)
		fprintf(f, "first bad commit: not yet named (bisection %s)\n", st);
	else
		fprintf(f,
			"first bad commit: not bisected (the change lies between kernels %s, "
			"which are not commits of one tree)\n",
			strchr(key, '/') ? strchr(key, '/') + 1 : key);
}

void track_write_entry(struct track *t, json_t *e, FILE *f)
{
	json_t *cp = json_object_get(e, "change_point"), *p = json_object_get(e, "primary"), *x;
	const char *key = json_string_value(json_object_get(e, "key"));
	const char *run = json_string_value(json_object_get(json_object_get(e, "confirm"), "run"));
	size_t i;

	fprintf(f, "%s\n\n", json_string_value(json_object_get(e, "subject")));
	write_first(f, e);
	fprintf(f, "change: %s\n", key);
	track_write_setup(t, e, f);
	if (cp)
		fprintf(f,
			"detected: E-divisive change point over %lld kernels, p = %.3g, q = %.3g "
			"(BH), mean %.6g -> %.6g, median %.6g -> %.6g\n",
			(long long)json_integer_value(json_object_get(cp, "kernels")),
			json_number_value(json_object_get(cp, "p")),
			json_number_value(json_object_get(cp, "q")),
			json_number_value(json_object_get(cp, "mean_before")),
			json_number_value(json_object_get(cp, "mean_after")),
			json_number_value(json_object_get(cp, "median_before")),
			json_number_value(json_object_get(cp, "median_after")));
	fprintf(f,
		"confirmed: both kernels again in run %s, n = %lld and %lld, Welch p = %.3g, "
		"mean %.6g -> %.6g\n\n",
		run, (long long)json_integer_value(json_object_get(p, "n_before")),
		(long long)json_integer_value(json_object_get(p, "n_after")),
		json_number_value(json_object_get(p, "p")),
		json_number_value(json_object_get(p, "mean_before")),
		json_number_value(json_object_get(p, "mean_after")));
	track_write_compare(t, e, f);
	if (json_array_size(json_object_get(e, "same_commit"))) {
		fprintf(f, "\nother watched metrics that changed at the same commit:\n");
		json_array_foreach(json_object_get(e, "same_commit"), i, x) {
			fprintf(f, "  %-40s %.6g -> %.6g (q = %.3g)\n",
				json_string_value(json_object_get(x, "metric")),
				json_number_value(json_object_get(x, "mean_before")),
				json_number_value(json_object_get(x, "mean_after")),
				json_number_value(json_object_get(x, "q")));
		}
	}
	fprintf(f, "\nreproduce:\n");
	track_write_commands(t, e, f);
}

static json_t *confirm_run_json(struct track *t, json_t *e)
{
	const char *run = json_string_value(json_object_get(json_object_get(e, "confirm"), "run"));

	return run ? store_load_run(t->store, run) : NULL;
}

static void write_topology(FILE *f, json_t *topo)
{
	json_t *n;
	size_t i;

	fprintf(f, "topology: %zu node%s (", json_array_size(json_object_get(topo, "nodes")),
		json_array_size(json_object_get(topo, "nodes")) == 1 ? "" : "s");
	json_array_foreach(json_object_get(topo, "nodes"), i, n) {
		fprintf(f, "%snode%zu: %lld CPU%s, %lld MiB", i ? "; " : "", i,
			(long long)json_integer_value(json_object_get(n, "cpus")),
			json_integer_value(json_object_get(n, "cpus")) == 1 ? "" : "s",
			(long long)json_integer_value(json_object_get(n, "memory_kib")) / 1024);
	}
	fprintf(f, ")\n");
}

void track_write_setup(struct track *t, json_t *e, FILE *f)
{
	const char *key = json_string_value(json_object_get(e, "key"));
	json_t *r = confirm_run_json(t, e), *jr = json_object_get(r, "job_resolved"), *frag;
	size_t jlen = strcspn(key, "/"), i;

	for (size_t j = 0; j < t->def.njobs; j++)
		if (strlen(t->def.jobs[j].name) == jlen && !strncmp(t->def.jobs[j].name, key, jlen))
			fprintf(f, "job: %s (%s)\n", t->def.jobs[j].name, t->def.jobs[j].path);
	if (jr) {
		json_t *wl = json_object_get(jr, "workload");

		write_topology(f, json_object_get(jr, "topology"));
		fprintf(f, "workload: %s\n", json_string_value(json_object_get(wl, "name")) ?: "?");
	}
	if (t->def.config) {
		fprintf(f, "kernel config: %s",
			json_string_value(json_object_get(t->def.config, "base")) ?: "tinyconfig");
		json_array_foreach(json_object_get(t->def.config, "fragments"), i, frag)
			fprintf(f, " + %s", json_string_value(frag));
		fputc('\n', f);
	} else {
		json_t *v;

		fprintf(f, "kernels:");
		json_array_foreach(json_object_get(r, "variants"), i, v) {
			json_t *k = json_object_get(v, "kernel");

			fprintf(f, " %s %s%s", json_string_value(json_object_get(v, "name")),
				json_string_value(json_object_get(k, "release")) ?: "?",
				i + 1 < json_array_size(json_object_get(r, "variants")) ? "," : "");
		}
		fputc('\n', f);
	}
	if (r)
		fprintf(f, "host: %s, %s\n",
			json_string_value(json_object_get(json_object_get(r, "host"), "accel")) ?:
												  "?",
			json_string_value(json_object_get(json_object_get(r, "host"), "qemu")) ?:
												 "?");
	json_decref(r);
}

void track_write_commands(struct track *t, json_t *e, FILE *f)
{
	json_t *conf = json_object_get(e, "confirm"), *p = json_object_get(e, "primary");
	const char *run = json_string_value(json_object_get(conf, "run"));
	const char *key = json_string_value(json_object_get(e, "key"));
	const char *ids = strchr(key, '/') ? strchr(key, '/') + 1 : key;
	char *before = xstrdup(ids), *dots = strstr(before, "..");
	json_t *b, *a;

	if (dots)
		*dots = '\0';
	b = track_point(t, before);
	a = dots ? track_point(t, dots + 2) : NULL;
	fprintf(f, "  mmlab compare %s              # the two kernels, measured again together\n",
		run ?: "?");
	fprintf(f, "  mmlab run %s/jobs/confirm--%.*s--%s..%s.yaml\n", t->dir,
		(int)strcspn(key, "/"), key, json_string_value(json_object_get(b, "label")) ?: "?",
		json_string_value(json_object_get(a, "label")) ?: "?");
	if (json_object_get(b, "commit") && json_object_get(a, "commit"))
		fprintf(f,
			"  mmlab bisect start --job %s/jobs/%.*s--%s.yaml --good %s --bad %s "
			"--metric %s\n",
			t->dir, (int)strcspn(key, "/"), key,
			json_string_value(json_object_get(a, "label")),
			json_string_value(json_object_get(b, "commit")),
			json_string_value(json_object_get(a, "commit")),
			json_string_value(json_object_get(p, "metric")));
	free(before);
}
