// SPDX-License-Identifier: GPL-2.0
/*
 * report_html.c - the comparison as one self-contained HTML page, in the
 * order a reviewer reads it: the run's facts (kernels, cmdline, topology,
 * accelerator, order and seed, comparability warnings), the summary (what
 * changed, with a forest plot; or the smallest change the run could have
 * seen), the time series, the evidence tables by group with constant
 * metrics folded, and a box plot per metric that varies. Written with
 * libxml2's xmlTextWriter so every name and value is escaped. No external
 * assets, no script; prints on paper. Plots: report_svg.c, report_ts.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "analysis/report_svg.h"
#include "analysis/report_ts.h"
#include "analysis/report_xml.h"
#include "lib/strbuf.h"

static const char css[] =
	"body{font-family:sans-serif;margin:1.2em auto;max-width:1180px;"
	"padding:0 1em;color:#222;line-height:1.35}"
	"h1{font-size:22px;margin:0 0 .2em}"
	"h2{font-size:17px;border-bottom:1px solid #ccc;margin:1.4em 0 .4em}"
	"h3{font-size:14px;margin:1em 0 .3em}h4{font-size:13px;margin:.4em 0 0}"
	"a{color:#1f4f8f;text-decoration:none}"
	".sub{color:#555;margin:0 0 .6em}.small{font-size:12px;color:#555}"
	"table{border-collapse:collapse;font-size:13px}"
	"td,th{border:1px solid #d4d4d4;padding:2px 6px;text-align:right;"
	"vertical-align:top}"
	"th{background:#f4f4f4}td.m,th.m{text-align:left;font-family:monospace}"
	"table.facts td,table.facts th{border:none;text-align:left;padding:1px 12px 1px 0}"
	"table.facts th{background:none;color:#555;font-weight:normal;white-space:nowrap}"
	".warn{background:#fff3dc;border-left:4px solid #e08a00;padding:3px 8px;"
	"margin:4px 0;font-size:13px}"
	".verdict{font-size:15px;margin:.4em 0}"
	"td.sig{background:#e6f4e6}div.v{white-space:nowrap}"
	"div.st{white-space:nowrap;font-size:11px;color:#666}"
	".better{color:#1a7f37}.worse{color:#c62828}.more,.less{color:#1f5fa8}"
	".ns{color:#777}"
	".grid{display:flex;flex-wrap:wrap;gap:6px 14px}.plot{margin:.2em 0}"
	".legend span{margin-right:1em;font-size:13px}"
	"p.unchanged{font-size:12px;color:#444;max-width:1100px}"
	"svg text{font-size:11px;font-family:sans-serif}"
	"@media print{body{max-width:none;margin:0}a{color:inherit}"
	"svg,table,.plot{break-inside:avoid}h2{break-after:avoid}}";

/* ---- the run's facts ---- */

static const char *str_or(const char *s, const char *dflt)
{
	return s ? s : dflt;
}

static void fact(xmlTextWriterPtr w, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	rep_el(w, "tr");
	rep_text_el(w, "th", NULL, key);
	rep_text_el(w, "td", NULL, value);
	rep_end(w);
}

/* "key=value ..." of a flat object (params, sysctl, thp) */
static void add_pairs(struct strbuf *sb, json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v) {
		char *s = json_is_string(v) ? xstrdup(json_string_value(v)) :
					      json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);

		strbuf_addf(sb, "%s%s=%s", sb->len ? " " : "", k, s ? s : "?");
		free(s);
	}
}

static char *fmt_kernel(const struct cmp_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	const struct cmp_setup *k = &v->setup;

	strbuf_addstr(&sb, v->kernel ? v->kernel : "kernel release unknown");
	if (k->ksource && !strcmp(k->ksource, "build")) {
		strbuf_addf(&sb, ", built from %.12s", str_or(k->kbase, "?"));
		for (size_t i = 0; i < k->kops.n; i++)
			strbuf_addf(&sb, " + %s", k->kops.v[i]);
	} else if (k->kpath) {
		strbuf_addf(&sb, " (%s)", k->kpath);
	}
	return strbuf_detach(&sb);
}

/* what the job sets for the variant besides the kernel */
static char *fmt_settings(const struct cmp_variant *v)
{
	struct strbuf sb = STRBUF_INIT;
	const struct cmp_setup *st = &v->setup;

	strbuf_addf(&sb, "cmdline: %s",
		    st->cmdline && *st->cmdline ? st->cmdline :
						  "(mmlab's console "
						  "and init arguments only)");
	if (json_object_size(st->thp)) {
		strbuf_addstr(&sb, "; THP ");
		add_pairs(&sb, st->thp);
	}
	if (json_object_size(st->sysctl)) {
		strbuf_addstr(&sb, "; sysctl ");
		add_pairs(&sb, st->sysctl);
	}
	return strbuf_detach(&sb);
}

static char *fmt_topology(const struct cmp_runinfo *f)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%zu node%s:", f->nnodes, f->nnodes == 1 ? "" : "s");
	for (size_t i = 0; i < f->nnodes; i++)
		strbuf_addf(&sb, "%s node%zu %lld CPU%s %lld MiB", i ? ";" : "", i,
			    f->nodes[i].cpus, f->nodes[i].cpus == 1 ? "" : "s", f->nodes[i].mib);
	if (f->ndist) {
		strbuf_addstr(&sb, "; distances");
		for (size_t i = 0; i < f->ndist; i++) {
			strbuf_addstr(&sb, i ? " /" : "");
			for (size_t k = 0; k < f->dist[i].n; k++)
				strbuf_addf(&sb, " %lld", f->dist[i].v[k]);
		}
	}
	return strbuf_detach(&sb);
}

static char *fmt_machine(const struct cmp_runinfo *f)
{
	struct strbuf sb = STRBUF_INIT;
	const char *acc = f->accel, *why = f->accel_reason;

	strbuf_addf(&sb, "%s", acc ? acc : "accelerator unknown");
	if (acc && !strcmp(acc, "tcg") && why)
		strbuf_addf(&sb, " (%s)", why);
	if (f->job_accel)
		strbuf_addf(&sb, "; job asked for %s", f->job_accel);
	strbuf_addf(&sb, "; QEMU %s, libvirt %s; host %s", str_or(f->qemu, "?"),
		    str_or(f->libvirt, "?"), str_or(f->hostname, "?"));
	if (f->cpus)
		strbuf_addf(&sb, " (%lld CPUs%s%s)", f->cpus, f->cpu ? ", " : "",
			    str_or(f->cpu, ""));
	return strbuf_detach(&sb);
}

static char *fmt_order(const struct cmp_runinfo *f)
{
	struct strbuf sb = STRBUF_INIT;

	if (!f->order_mode)
		return strbuf_detach(&sb);
	strbuf_addstr(&sb, f->order_mode);
	strbuf_addf(&sb, ", seed %lld", f->seed);
	for (size_t i = 0; i < f->sequence.n; i++) {
		if (i == 24) {
			strbuf_addf(&sb, " ... (%zu boots)", f->sequence.n);
			break;
		}
		strbuf_addf(&sb, "%s%s", i ? " " : ": ", f->sequence.v[i]);
	}
	return strbuf_detach(&sb);
}

static char *fmt_workload(const struct cmp_runinfo *f)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, f->workload ? f->workload : "custom command");
	if (json_object_size(f->params)) {
		strbuf_addch(&sb, ' ');
		add_pairs(&sb, f->params);
	}
	if (f->has_iterations)
		strbuf_addf(&sb, "; %lld iterations per variant, %lld per boot", f->iterations,
			    f->iterations_per_boot);
	if (f->image_kind)
		strbuf_addf(&sb, "; image %s", f->image_kind);
	return strbuf_detach(&sb);
}

static void run_facts(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_runinfo *f)
{
	const char *id = f->run;
	char *s;

	rep_el(w, "table");
	rep_attr(w, "class", "facts");
	s = xasprintf("%s (job %s%s%s)", id ? id : "?", str_or(f->job, "?"),
		      f->created ? ", created " : "", str_or(f->created, ""));
	fact(w, "Run", s);
	free(s);
	for (size_t j = 0; j < c->nvars; j++) {
		char *k, *set, *label;

		if (!id || !c->vars[j].run || strcmp(c->vars[j].run, id))
			continue;
		k = fmt_kernel(&c->vars[j]);
		set = fmt_settings(&c->vars[j]);
		label = xasprintf("%s%s", c->vars[j].name, j == c->baseline ? " (baseline)" : "");
		s = xasprintf("%s; %s; %zu ok iterations", k, set, c->vars[j].niter);
		fact(w, label, s);
		free(s);
		free(label);
		free(k);
		free(set);
	}
	s = fmt_topology(f);
	fact(w, "Topology", s);
	free(s);
	s = fmt_workload(f);
	fact(w, "Workload", s);
	free(s);
	s = fmt_machine(f);
	fact(w, "Machine", s);
	free(s);
	s = fmt_order(f);
	fact(w, "Order", s);
	free(s);
	rep_end(w);
}

static void write_header(xmlTextWriterPtr w, const struct comparison *c)
{
	struct strbuf sb = STRBUF_INIT;
	size_t i;

	strbuf_addstr(&sb, "mmlab report");
	if (c->nruninfo == 1 && c->runinfo[0].job)
		strbuf_addf(&sb, ": %s", c->runinfo[0].job);
	rep_text_el(w, "h1", NULL, sb.buf);
	strbuf_reset(&sb);
	for (size_t j = 0; j < c->nvars; j++)
		strbuf_addf(&sb, "%s%s%s (n=%zu)", j ? ", " : "", c->vars[j].name,
			    j == c->baseline ? " [baseline]" : "", c->vars[j].niter);
	rep_text_el(w, "p", "sub", sb.buf);
	strbuf_release(&sb);
	for (i = 0; i < c->nruninfo; i++)
		run_facts(w, c, &c->runinfo[i]);
	for (i = 0; i < c->runs.n; i++)
		if (!strncmp(c->runs.v[i], "samples:", 8))
			rep_text_el(w, "p", "small", c->runs.v[i]);
	for (i = 0; i < c->warnings.n; i++)
		rep_text_el(w, "div", "warn", c->warnings.v[i]);
	for (i = 0; i < c->notes.n; i++)
		rep_text_el(w, "p", "small", c->notes.v[i]);
}

/* ---- the summary ---- */

static void sum_row(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_sig *r)
{
	const struct cmp_metric *m = &c->metrics[r->metric];
	char b[48], n[48], chg[32], ci[64], q[32];
	char *href = rep_metric_id("#m-", m->name);

	cmp_fmt_sig(b, sizeof(b), m->cells[c->baseline].s.mean, 4, true);
	cmp_fmt_sig(n, sizeof(n), m->cells[r->variant].s.mean, 4, true);
	if (isnan(r->change))
		snprintf(chg, sizeof(chg), "from 0");
	else
		cmp_fmt_change(chg, sizeof(chg), r->change);
	cmp_fmt_ci(ci, sizeof(ci), r->lo, r->hi);
	snprintf(q, sizeof(q), "%.2g", m->cells[r->variant].q);
	rep_el(w, "tr");
	rep_attr(w, "class", "%s", cmp_verdict_name(r->verdict));
	rep_text_el(w, "td", "m", c->vars[r->variant].name);
	rep_el(w, "td");
	rep_attr(w, "class", "m");
	rep_el(w, "a");
	rep_attr(w, "href", "%s", href);
	rep_text(w, m->name);
	rep_end(w);
	rep_end(w);
	rep_text_el(w, "td", NULL, b);
	rep_text_el(w, "td", NULL, n);
	rep_text_el(w, "td", NULL, chg);
	rep_text_el(w, "td", NULL, ci);
	rep_text_el(w, "td", NULL, cmp_verdict_name(r->verdict));
	rep_text_el(w, "td", NULL, q);
	rep_end(w);
	free(href);
}

static void sum_table(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_summary *s)
{
	static const char *const head[] = { "variant",	  "metric", "mean before",
					    "mean after", "change", "95% CI",
					    "",		  "q" };
	char *t = xasprintf("%zu significant change%s against %s (Welch's t-test, "
			    "Benjamini-Hochberg q < %.3g), largest first. Change: "
			    "difference of the means relative to %s.",
			    s->nsig, s->nsig == 1 ? "" : "s", c->vars[c->baseline].name, c->alpha,
			    c->vars[c->baseline].name);

	rep_text_el(w, "p", "verdict", t);
	free(t);
	rep_el(w, "table");
	rep_attr(w, "class", "sum");
	rep_el(w, "tr");
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		rep_text_el(w, "th", i < 2 ? "m" : NULL, head[i]);
	rep_end(w);
	for (size_t k = 0; k < s->nsig; k++)
		sum_row(w, c, &s->sig[k]);
	rep_end(w);
}

/* no significant row: the workload and Duration intervals, in grey */
static void quiet_forest(xmlTextWriterPtr w, const struct comparison *c)
{
	struct cmp_sig *rows = NULL;
	size_t n = 0;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (m->constant || (m->group != GROUP_WORKLOAD && m->group != GROUP_DURATION))
			continue;
		for (size_t j = 0; j < c->nvars; j++) {
			if (j == c->baseline || !m->cells[j].t.valid)
				continue;
			rows = xrealloc(rows, (n + 1) * sizeof(*rows));
			rows[n].metric = i;
			rows[n].variant = j;
			rows[n].verdict = cmp_cell_verdict(c, m, j);
			cmp_cell_change(m, j, &rows[n].change, &rows[n].lo, &rows[n].hi);
			n++;
		}
	}
	if (n) {
		rep_text_el(w, "p", "small",
			    "The workload and Duration metrics with "
			    "the 95% confidence intervals of their change (grey: "
			    "not significant):");
		rep_forest(w, c, rows, n, false);
	}
	free(rows);
}

static void write_summary(xmlTextWriterPtr w, const struct comparison *c)
{
	struct cmp_summary s;

	cmp_summarize(c, &s);
	rep_el(w, "h2");
	rep_attr(w, "id", "summary");
	rep_text(w, "Summary");
	rep_end(w);
	if (s.nsig) {
		sum_table(w, c, &s);
		rep_text_el(w, "p", "small",
			    "Each bar is the 95% confidence interval "
			    "of a change, the dot its estimate; green better, red "
			    "worse, blue more or less of a metric with no direction.");
		rep_forest(w, c, s.sig, s.nsig, true);
	}
	for (size_t k = 0; k < s.nquiet; k++) {
		char *q = cmp_quiet_sentence(c, &s.quiet[k], true);

		rep_text_el(w, "p", "verdict", q);
		free(q);
	}
	if (!s.nsig && s.nquiet)
		quiet_forest(w, c);
	cmp_summary_release(&s);
}

/* ---- the evidence ---- */

static void ev_cell(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_metric *m,
		    size_t j)
{
	const struct cmp_cell *e = &m->cells[j];
	const struct cmp_cell *b = &m->cells[c->baseline];
	double base = cmp_mean_value(m, b), val = cmp_mean_value(m, e);
	double chg = isfinite(base) && base != 0 ? 100 * (val - base) / fabs(base) : NAN;
	char num[48], cs[32], ci[64], cov[32];
	struct strbuf st = STRBUF_INIT;

	cmp_fmt_sig(num, sizeof(num), val, 4, true);
	cmp_fmt_change(cs, sizeof(cs), chg);
	cmp_fmt_sig(cov, sizeof(cov), e->s.cov, 3, true);
	cmp_fmt_ci(ci, sizeof(ci), NAN, NAN);
	rep_el(w, "td");
	if (e->significant)
		rep_attr(w, "class", "sig");
	if (j != c->baseline && e->t.valid) {
		double lo, hi, d;

		cmp_cell_change(m, j, &d, &lo, &hi);
		cmp_fmt_ci(ci, sizeof(ci), lo, hi);
		rep_attr(w, "title", "p=%.3g q=%.3g 95%% CI %s", e->t.p, e->q, ci);
	} else if (j != c->baseline) {
		rep_attr(w, "title", "no test: %s", e->t.why ? e->t.why : "?");
	}
	rep_el(w, "div");
	rep_attr(w, "class", "v");
	rep_text(w, num);
	if (j != c->baseline && !isnan(chg)) {
		rep_text(w, " ");
		rep_text_el(w, "span",
			    e->significant ? cmp_verdict_name(cmp_cell_verdict(c, m, j)) : "ns",
			    cs);
		if (e->significant)
			rep_text(w, " *");
	}
	rep_end(w);
	strbuf_addf(&st, "n=%zu", e->s.n);
	if (!isnan(e->s.cov))
		strbuf_addf(&st, " \xc2\xb7 CoV %s%%", cov);
	if (e->significant)
		strbuf_addf(&st, " \xc2\xb7 CI %s", ci);
	rep_text_el(w, "div", "st", st.buf);
	strbuf_release(&st);
	rep_end(w);
}

static void ev_row(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_metric *m)
{
	char *id = rep_metric_id("m-", m->name);
	char *href = rep_metric_id("#box-", m->name);

	rep_el(w, "tr");
	rep_attr(w, "id", "%s", id);
	rep_el(w, "td");
	rep_attr(w, "class", "m");
	rep_el(w, "a");
	rep_attr(w, "href", "%s", href);
	rep_attr(w, "title", "its box plot");
	rep_text(w, m->name);
	rep_end(w);
	rep_end(w);
	rep_text_el(w, "td", NULL, cmp_mean_label(m));
	for (size_t j = 0; j < c->nvars; j++)
		ev_cell(w, c, m, j);
	rep_end(w);
	free(id);
	free(href);
}

/* "Unchanged: a = 0, b = -1" with an anchor on each name */
static void ev_unchanged(xmlTextWriterPtr w, const struct comparison *c, enum metric_group g)
{
	bool first = true;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		char v[48], *id;

		if (!m->constant || m->group != g)
			continue;
		if (first) {
			rep_el(w, "p");
			rep_attr(w, "class", "unchanged");
			rep_text(w, "Unchanged (one value in every sample of every "
				    "variant): ");
		}
		cmp_fmt_sig(v, sizeof(v), m->cells[c->baseline].s.mean, 4, true);
		id = rep_metric_id("m-", m->name);
		rep_text(w, first ? "" : ", ");
		rep_el(w, "span");
		rep_attr(w, "id", "%s", id);
		xmlTextWriterWriteFormatString(w, "%s = %s", m->name, v);
		rep_end(w);
		free(id);
		first = false;
	}
	if (!first)
		rep_end(w);
}

static void ev_group(xmlTextWriterPtr w, const struct comparison *c, enum metric_group g)
{
	size_t rows = 0, all = 0;

	for (size_t i = 0; i < c->nmetrics; i++) {
		all += c->metrics[i].group == g;
		rows += c->metrics[i].group == g && !c->metrics[i].constant;
	}
	if (!all)
		return;
	rep_el(w, "h3");
	rep_attr(w, "id", "g-%s", metric_group_name(g));
	rep_text(w, metric_group_title(g));
	rep_end(w);
	if (rows) {
		rep_el(w, "table");
		rep_attr(w, "class", "ev");
		rep_el(w, "tr");
		rep_text_el(w, "th", "m", "metric");
		rep_text_el(w, "th", NULL, "");
		for (size_t j = 0; j < c->nvars; j++) {
			char *h = xasprintf("%s%s", c->vars[j].name,
					    j == c->baseline ? " (baseline)" : "");

			rep_text_el(w, "th", NULL, h);
			free(h);
		}
		rep_end(w);
		for (size_t i = 0; i < c->nmetrics; i++)
			if (c->metrics[i].group == g && !c->metrics[i].constant)
				ev_row(w, c, &c->metrics[i]);
		rep_end(w);
	}
	ev_unchanged(w, c, g);
}

static void write_evidence(xmlTextWriterPtr w, const struct comparison *c)
{
	char *s = xasprintf("Mean (Hmean for higher-is-better workload metrics) "
			    "and its change against %s; * and green: significant "
			    "at q < %.3g, the 95%% CI below; hover a cell for p, q "
			    "and the CI. Every number is rounded to 4 significant "
			    "digits.",
			    c->vars[c->baseline].name, c->alpha);

	rep_el(w, "h2");
	rep_attr(w, "id", "evidence");
	rep_text(w, "Evidence");
	rep_end(w);
	rep_text_el(w, "p", "small", s);
	free(s);
	for (int g = 0; g < GROUP_COUNT; g++)
		ev_group(w, c, (enum metric_group)g);
}

static void write_distributions(xmlTextWriterPtr w, const struct comparison *c)
{
	bool any = false;

	for (size_t i = 0; i < c->nmetrics; i++)
		any |= !c->metrics[i].constant;
	if (!any)
		return;
	rep_el(w, "h2");
	rep_attr(w, "id", "distributions");
	rep_text(w, "Distributions");
	rep_end(w);
	rep_text_el(w, "p", "small",
		    "Every metric that varies: box from the first "
		    "to the third quartile, tick at the median, line from the "
		    "smallest to the largest sample, a dot per sample.");
	rep_el(w, "div");
	rep_attr(w, "class", "grid");
	for (int g = 0; g < GROUP_COUNT; g++)
		for (size_t i = 0; i < c->nmetrics; i++)
			if ((int)c->metrics[i].group == g && !c->metrics[i].constant)
				rep_box_plot(w, c, &c->metrics[i]);
	rep_end(w);
}

/* ---- page ---- */

int cmp_write_html(const struct comparison *c, FILE *out)
{
	xmlBufferPtr buf = xmlBufferCreate();
	xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
	int rc = 0;

	if (!w) {
		lab_err("cannot create an XML writer (out of memory?)");
		xmlBufferFree(buf);
		return -1;
	}
	rep_el(w, "html");
	rep_attr(w, "lang", "en");
	rep_el(w, "head");
	rep_el(w, "meta");
	rep_attr(w, "charset", "utf-8");
	xmlTextWriterEndElement(w);
	rep_text_el(w, "title", NULL, "mmlab report");
	rep_text_el(w, "style", NULL, css);
	rep_end(w);
	rep_el(w, "body");
	write_header(w, c);
	write_summary(w, c);
	rep_time_series(w, c);
	write_evidence(w, c);
	write_distributions(w, c);
	rep_end(w);
	rep_end(w);
	if (xmlTextWriterEndDocument(w) < 0)
		rc = -1;
	xmlFreeTextWriter(w);
	if (!rc) {
		fputs("<!DOCTYPE html>\n", out);
		fwrite(xmlBufferContent(buf), 1, (size_t)xmlBufferLength(buf), out);
		fputc('\n', out);
	} else {
		lab_err("cannot write the HTML report (out of memory?)");
	}
	xmlBufferFree(buf);
	return rc;
}
