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

/* the confirmed test with the smallest p, or NULL */
static const struct track_test *primary_of(const struct track_confirmation *conf)
{
	const struct track_test *best = NULL;

	for (size_t i = 0; i < conf->ntests; i++) {
		const struct track_test *x = &conf->tests[i];

		if (x->confirmed && (!best || track_or0(x->p) < track_or0(best->p)))
			best = x;
	}
	return best;
}

/* a confirmed change with what the report says of it */
static void entry_of(struct track *t, const struct track_confirmation *conf, struct track_entry *e)
{
	const struct track_analysis *an = &t->state.analysis;

	memset(e, 0, sizeof(*e));
	e->key = conf->key;
	e->confirm = conf;
	e->bisect = track_state_bisect(&t->state, conf->key);
	e->primary = primary_of(conf);
	e->same = xcalloc(an->ncands + 1, sizeof(*e->same));
	for (size_t i = 0; i < an->ncands; i++) {
		const struct track_cand *c = &an->cands[i];
		char *k = track_change_key(c->job, c->before, c->after);

		if (!strcmp(k, conf->key)) {
			if (e->primary && !strcmp(c->metric, e->primary->metric))
				e->change_point = c;
			else
				e->same[e->nsame++] = c;
		}
		free(k);
	}
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

void track_entry_subject(struct track *t, const struct track_entry *e, char *buf, size_t len)
{
	const struct track_test *p = e->primary;
	const char *metric = p && p->metric ? p->metric : "?";
	double b = p ? track_or0(p->mean_before) : 0, a = p ? track_or0(p->mean_after) : 0;
	double rel = b != 0 ? (a / b - 1) * 100 : NAN;
	int better = track_better(t, metric);
	const char *what = !better ? "change" : (a - b) * better > 0 ? "improvement" : "regression";
	const char *after = strstr(e->key, "..") ? strstr(e->key, "..") + 2 : e->key;
	const char *where = e->bisect && e->bisect->has_first ? e->bisect->first.commit : NULL;
	char num[32], sha12[13];

	if (where) {
		/* the subject names the first bad commit by 12 hex digits, as linux-mm does */
		snprintf(sha12, sizeof(sha12), "%.12s", where);
		where = sha12;
	} else {
		const struct track_point *pt = track_point(t, after);

		where = pt && pt->label ? pt->label : after;
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

void track_entries(struct track *t, struct track_entry_list *out)
{
	struct track_entry *other = xcalloc(t->state.nconfirm + 1, sizeof(*other));
	size_t nother = 0;

	memset(out, 0, sizeof(*out));
	out->v = xcalloc(t->state.nconfirm + 1, sizeof(*out->v));
	out->nc = xcalloc(t->state.nconfirm + 1, sizeof(*out->nc));
	for (size_t i = 0; i < t->state.nconfirm; i++) {
		const struct track_confirmation *e = &t->state.confirm[i];
		const char *st = e->status ?: "";
		struct track_entry en;

		if (!strcmp(st, "not confirmed")) {
			out->nc[out->nnc++] = e;
			continue;
		}
		if (strcmp(st, "confirmed"))
			continue;
		entry_of(t, e, &en);
		track_entry_subject(t, &en, en.subject, sizeof(en.subject));
		if (strstr(en.subject, "regression"))
			out->v[out->n++] = en;
		else
			other[nother++] = en;
	}
	memcpy(out->v + out->n, other, nother * sizeof(*other));
	out->n += nother;
	free(other);
}

void track_entries_release(struct track_entry_list *e)
{
	for (size_t i = 0; i < e->n; i++)
		free(e->v[i].same);
	free(e->v);
	free(e->nc);
	memset(e, 0, sizeof(*e));
}

/* the comparison of the two kernels of the confirmation run, as compare prints it */
void track_write_compare(struct track *t, const struct track_entry *e, FILE *f)
{
	const char *run = e->confirm->run;
	struct run_data r = { 0 };
	struct comparison *c = cmp_new();

	if (run && !store_run_load(t->store, run, &r) && !cmp_add_run(c, &r) &&
	    !cmp_compute(c, NULL, t->def.alpha, e->confirm->metrics))
		cmp_write(c, CMP_TEXT, f);
	else
		fprintf(f, "  (the confirmation run %s could not be compared)\n", run ? run : "?");
	cmp_free(c);
	run_data_release(&r);
}

static void write_first(FILE *f, const struct track_entry *e)
{
	const struct track_bisection *b = e->bisect;

	if (b && b->has_first)
		fprintf(f, "first bad commit: %s (\"%s\")\n  author: %s, %s\n", b->first.commit,
			b->first.subject, b->first.author, b->first.date);
	else if (b && b->status)
		fprintf(f, "first bad commit: not yet named (bisection %s)\n", b->status);
	else
		fprintf(f,
			"first bad commit: not bisected (the change lies between kernels %s, "
			"which are not commits of one tree)\n",
			strchr(e->key, '/') ? strchr(e->key, '/') + 1 : e->key);
}

void track_write_entry(struct track *t, const struct track_entry *e, FILE *f)
{
	const struct track_cand *cp = e->change_point;
	const struct track_test *p = e->primary;

	fprintf(f, "%s\n\n", e->subject);
	write_first(f, e);
	fprintf(f, "change: %s\n", e->key);
	track_write_setup(t, e, f);
	if (cp)
		fprintf(f,
			"detected: E-divisive change point over %lld kernels, p = %.3g, q = %.3g "
			"(BH), mean %.6g -> %.6g, median %.6g -> %.6g\n",
			(long long)cp->kernels, track_or0(cp->p), track_or0(cp->q),
			track_or0(cp->mean_before), track_or0(cp->mean_after),
			track_or0(cp->median_before), track_or0(cp->median_after));
	fprintf(f,
		"confirmed: both kernels again in run %s, n = %lld and %lld, Welch p = %.3g, "
		"mean %.6g -> %.6g\n\n",
		e->confirm->run, p ? (long long)p->n_before : 0, p ? (long long)p->n_after : 0,
		p ? track_or0(p->p) : 0, p ? track_or0(p->mean_before) : 0,
		p ? track_or0(p->mean_after) : 0);
	track_write_compare(t, e, f);
	if (e->nsame) {
		fprintf(f, "\nother watched metrics that changed at the same commit:\n");
		for (size_t i = 0; i < e->nsame; i++)
			fprintf(f, "  %-40s %.6g -> %.6g (q = %.3g)\n", e->same[i]->metric,
				track_or0(e->same[i]->mean_before),
				track_or0(e->same[i]->mean_after), track_or0(e->same[i]->q));
	}
	fprintf(f, "\nreproduce:\n");
	track_write_commands(t, e, f);
}

static void write_topology(FILE *f, const struct track_setup *su)
{
	fprintf(f, "topology: %zu node%s (", su->nnodes, su->nnodes == 1 ? "" : "s");
	for (size_t i = 0; i < su->nnodes; i++)
		fprintf(f, "%snode%zu: %lld CPU%s, %lld MiB", i ? "; " : "", i, su->nodes[i].cpus,
			su->nodes[i].cpus == 1 ? "" : "s", su->nodes[i].memory_kib / 1024);
	fprintf(f, ")\n");
}

static void write_kernel_config(const struct track *t, const struct track_setup *su, FILE *f)
{
	if (t->def.config) {
		fprintf(f, "kernel config: %s", t->def.config_base ?: "tinyconfig");
		for (size_t i = 0; i < t->def.config_fragments.n; i++)
			fprintf(f, " + %s", t->def.config_fragments.v[i]);
		fputc('\n', f);
		return;
	}
	fprintf(f, "kernels:");
	for (size_t i = 0; i < su->nkernels; i++)
		fprintf(f, " %s %s%s", su->kernels[i].variant, su->kernels[i].release ?: "?",
			i + 1 < su->nkernels ? "," : "");
	fputc('\n', f);
}

void track_write_setup(struct track *t, const struct track_entry *e, FILE *f)
{
	const char *run = e->confirm->run;
	size_t jlen = strcspn(e->key, "/");
	struct track_setup su;
	bool has = run && !track_setup_load(t->store, run, &su);

	if (!has)
		memset(&su, 0, sizeof(su));
	for (size_t j = 0; j < t->def.njobs; j++)
		if (strlen(t->def.jobs[j].name) == jlen &&
		    !strncmp(t->def.jobs[j].name, e->key, jlen))
			fprintf(f, "job: %s (%s)\n", t->def.jobs[j].name, t->def.jobs[j].path);
	if (su.has_job) {
		write_topology(f, &su);
		fprintf(f, "workload: %s\n", su.workload ?: "?");
	}
	write_kernel_config(t, &su, f);
	if (has)
		fprintf(f, "host: %s, %s\n", su.accel ?: "?", su.qemu ?: "?");
	track_setup_release(&su);
}

void track_write_commands(struct track *t, const struct track_entry *e, FILE *f)
{
	const char *run = e->confirm->run, *key = e->key;
	const char *ids = strchr(key, '/') ? strchr(key, '/') + 1 : key;
	char *before = xstrdup(ids), *dots = strstr(before, "..");
	const struct track_point *b, *a;

	if (dots)
		*dots = '\0';
	b = track_point(t, before);
	a = dots ? track_point(t, dots + 2) : NULL;
	fprintf(f, "  mmlab compare %s              # the two kernels, measured again together\n",
		run ?: "?");
	fprintf(f, "  mmlab run %s/jobs/confirm--%.*s--%s..%s.yaml\n", t->dir,
		(int)strcspn(key, "/"), key, b && b->label ? b->label : "?",
		a && a->label ? a->label : "?");
	if (b && b->commit && a && a->commit)
		fprintf(f,
			"  mmlab bisect start --job %s/jobs/%.*s--%s.yaml --good %s --bad %s "
			"--metric %s\n",
			t->dir, (int)strcspn(key, "/"), key, a->label, b->commit, a->commit,
			e->primary ? e->primary->metric : "?");
	free(before);
}
