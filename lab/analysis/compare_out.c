// SPDX-License-Identifier: GPL-2.0
/*
 * compare_out.c - the text (a summary, then the mmtests layout in groups,
 * 100 columns), markdown, csv and json forms of a comparison, and the
 * --power table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/summary.h"
#include "lib/strbuf.h"

#define TEXT_WIDTH 100
#define OP_W 10		/* "BAmean-95 " */
#define CELL_W 22	/* " %11s (%6s%)" */
#define NAME_MAX_W 36
#define CONF_PCT 95

enum row_stat { ROW_MEAN, ROW_STDDEV, ROW_COV, ROW_MIN, ROW_MAX, ROW_BAMEAN };

static const char *const row_label[] = {
	NULL, "Stddev", "CoeffVar", "Min", "Max", "BAmean-95",
};

static double row_value(const struct cmp_metric *m, const struct cmp_cell *c,
			enum row_stat r)
{
	switch (r) {
	case ROW_MEAN:
		return cmp_mean_value(m, c);
	case ROW_STDDEV:
		return c->s.stddev;
	case ROW_COV:
		return c->s.cov;
	case ROW_MIN:
		return c->s.min;
	case ROW_MAX:
		return c->s.max;
	default:
		return c->s.bamean95;
	}
}

static enum metric_dir row_dir(const struct cmp_metric *m, enum row_stat r)
{
	return (r == ROW_STDDEV || r == ROW_COV) ? DIR_LOWER : m->dir;
}

/*
 * A number in at most width characters: two decimals as mmtests prints
 * them, three significant digits below 1 (0.00533, not 0.01).
 */
static void fmt_num(char *buf, size_t len, double v, int width)
{
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (v != 0 && fabs(v) < 0.995) {
		cmp_fmt_sig(buf, len, v, 3, false);
		if ((int)strlen(buf) <= width)
			return;
	}
	if (snprintf(buf, len, "%.2f", v) <= width)
		return;
	if (snprintf(buf, len, "%.0f", v) <= width)
		return;
	snprintf(buf, len, "%.*e", width >= 10 ? width - 7 : 1, v);
}

static void fmt_pct(char *buf, size_t len, double pct)
{
	if (isnan(pct))
		snprintf(buf, len, "   n/a ");
	else if (fabs(pct) < 999.995 && pct > -99.995)
		snprintf(buf, len, "%6.2f%%", pct);
	else if (fabs(pct) < 9999.95 && pct > -999.95)
		snprintf(buf, len, "%6.1f%%", pct);
	else if (fabs(pct) < 99999.5)
		snprintf(buf, len, "%6.0f%%", pct);
	else
		snprintf(buf, len, "%6s%%", pct > 0 ? "+big" : "-big");
}

/* print line without trailing blanks */
static void put_line(FILE *out, const char *line)
{
	size_t n = strlen(line);

	while (n && line[n - 1] == ' ')
		n--;
	fprintf(out, "%.*s\n", (int)n, line);
}

static void put_wrapped(FILE *out, const char *prefix, const char *text)
{
	size_t plen = strlen(prefix), room = TEXT_WIDTH - plen;
	const char *p = text;
	bool first = true;

	while (*p) {
		size_t n = strlen(p);

		if (n > room) {
			n = room;
			while (n && p[n] != ' ')
				n--;
			if (!n)
				n = room;
		}
		fprintf(out, "%*s%.*s\n", first ? 0 : (int)plen,
			first ? prefix : "", (int)n, p);
		first = false;
		p += n;
		while (*p == ' ')
			p++;
	}
}

/*
 * The name shown in the text table: Duration rows as mmtests names them,
 * Ops rows without the "vmstat." / "derived." prefix so three variants fit.
 */
static const char *text_name(const struct cmp_metric *m)
{
	if (m->kind == KIND_DURATION)
		return !strcmp(m->name, "time.user_s") ? "User" :
		       !strcmp(m->name, "time.system_s") ? "System" : "Elapsed";
	if (m->kind == KIND_OPS && !strncmp(m->name, "vmstat.", 7))
		return m->name + 7;
	if (m->kind == KIND_OPS && !strncmp(m->name, "derived.", 8))
		return m->name + 8;
	return m->name;
}

struct layout {
	int name_w;
	size_t per_block;	/* variants per block, baseline included */
};

static struct layout text_layout(const struct comparison *c)
{
	struct layout l = { 8, 1 };

	for (size_t i = 0; i < c->nmetrics; i++) {
		int n = (int)strlen(text_name(&c->metrics[i]));

		if (c->metrics[i].constant)
			continue;
		if (n > l.name_w)
			l.name_w = n;
	}
	if (l.name_w > NAME_MAX_W)
		l.name_w = NAME_MAX_W;
	l.per_block = (size_t)(TEXT_WIDTH - OP_W - l.name_w) / CELL_W;
	return l;
}

static void text_cell(char *buf, size_t len, const struct cmp_metric *m,
		      const struct comparison *c, size_t j, enum row_stat r)
{
	const struct cmp_cell *cell = &m->cells[j];
	const struct cmp_cell *base = &m->cells[c->baseline];
	double v = row_value(m, cell, r);
	double pct = cmp_pct(row_value(m, base, r), v, row_dir(m, r));
	bool star = r == ROW_MEAN && cell->significant;
	char num[32], p[16];

	fmt_num(num, sizeof(num), v, 11);
	fmt_pct(p, sizeof(p), pct);
	snprintf(buf, len, " %11s %c%s%c", num, star ? '*' : '(', p,
		 star ? '*' : ')');
}

static void text_row(FILE *out, const struct comparison *c,
		     const struct layout *l, const size_t *cols, size_t ncols,
		     const struct cmp_metric *m, enum row_stat r)
{
	char line[1024], cell[64], name[NAME_MAX_W + 1];
	const char *label = r == ROW_MEAN ? cmp_mean_label(m) : row_label[r];
	const char *shown = text_name(m);
	size_t pos;

	if ((int)strlen(shown) > l->name_w) {
		snprintf(name, sizeof(name), "%.*s~", l->name_w - 1, shown);
		shown = name;
	}
	pos = (size_t)snprintf(line, sizeof(line), "%-*s%-*s", OP_W, label,
			       l->name_w, shown);
	for (size_t k = 0; k < ncols && pos < sizeof(line); k++) {
		text_cell(cell, sizeof(cell), m, c, cols[k], r);
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%s", cell);
	}
	put_line(out, line);
}

static void text_header(FILE *out, const struct comparison *c,
			const struct layout *l, const size_t *cols, size_t ncols)
{
	char line[1024];
	size_t pos = (size_t)snprintf(line, sizeof(line), "%*s",
				      OP_W + l->name_w, "");

	for (size_t k = 0; k < ncols && pos < sizeof(line); k++)
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %*.*s",
					CELL_W - 1, CELL_W - 1,
					c->vars[cols[k]].name);
	put_line(out, line);
}

/* "name=value, ..." of the constant metrics of group g, or NULL */
static char *unchanged_list(const struct comparison *c, enum metric_group g,
			    bool text)
{
	struct strlist l = { 0 };
	char *joined;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		char v[32];

		if (!m->constant || m->group != g)
			continue;
		cmp_fmt_sig(v, sizeof(v), m->cells[c->baseline].s.mean, 4, true);
		if (text)
			strlist_pushf(&l, "%s=%s", text_name(m), v);
		else
			strlist_pushf(&l, "`%s` = %s", m->name, v);
	}
	joined = l.n ? strlist_join(&l, ", ") : NULL;
	strlist_free(&l);
	return joined;
}

/* the rows of group g (first block: also its Unchanged line); any row? */
static bool text_group(FILE *out, const struct comparison *c,
		       const struct layout *l, const size_t *cols, size_t ncols,
		       enum metric_group g, bool gap, bool first_block)
{
	char *unchanged = first_block ? unchanged_list(c, g, true) : NULL;
	bool any = false;

	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		if (m->group != g || m->constant)
			continue;
		if (gap && !any)
			fputc('\n', out);
		any = true;
		text_row(out, c, l, cols, ncols, m, ROW_MEAN);
		/* collectors are monitors: their mean row only */
		if (m->kind != KIND_MAIN || g == GROUP_COLLECTORS)
			continue;
		for (int r = ROW_STDDEV; r <= ROW_BAMEAN; r++)
			text_row(out, c, l, cols, ncols, m, (enum row_stat)r);
	}
	if (unchanged) {
		if (gap && !any)
			fputc('\n', out);
		any = true;
		put_wrapped(out, "Unchanged ", unchanged);
		free(unchanged);
	}
	return any;
}

static void text_block(FILE *out, const struct comparison *c,
		       const struct layout *l, const size_t *cols, size_t ncols,
		       bool first_block)
{
	bool gap = false;

	text_header(out, c, l, cols, ncols);
	for (int g = 0; g < GROUP_COUNT; g++)
		gap |= text_group(out, c, l, cols, ncols, (enum metric_group)g,
				  gap, first_block);
}

static void text_notes(FILE *out, const struct comparison *c)
{
	size_t nconst = 0;
	char *s;

	for (size_t i = 0; i < c->nmetrics; i++)
		nconst += c->metrics[i].constant;
	fputc('\n', out);
	s = xasprintf("* significant at alpha %.3g (Welch's t-test, "
		      "Benjamini-Hochberg over the %zu rows of each variant%s). "
		      "Percentages are changes against %s, positive when better, "
		      "or when more for rows with no direction.%s",
		      c->alpha, c->nmetrics,
		      nconst ? ", the Unchanged ones included" : "",
		      c->vars[c->baseline].name,
		      nconst ? " Unchanged: one value in every sample of every "
			       "variant." : "");
	put_wrapped(out, "", s);
	free(s);
	for (size_t i = 0; i < c->notes.n; i++)
		put_wrapped(out, "Note: ", c->notes.v[i]);
	for (size_t i = 0; i < c->warnings.n; i++)
		put_wrapped(out, "Warning: ", c->warnings.v[i]);
}

/* ---- the summary ---- */

/*
 * The sentence for a variant without a significant row: "no significant
 * change in V against B (N metrics tested, q < a); at n = 3 vs 3 this run
 * could detect changes of 12.5% or more (M, CoV 4.1%, power 0.8)."
 */
char *cmp_quiet_sentence(const struct comparison *c, const struct cmp_quiet *q,
			 bool capital)
{
	const char *v = c->vars[q->variant].name, *b = c->vars[c->baseline].name;
	const char *no = capital ? "No" : "no";
	char mde[32], cov[32];

	if (!q->tested)
		return xasprintf("%s test of %s against %s: fewer than 2 samples on "
				 "a side.", capital ? "No" : "no", v, b);
	if (q->metric == (size_t)-1)
		return xasprintf("%s significant change in %s against %s (%zu metrics "
				 "tested, q < %.3g); each has one value in every "
				 "sample.", no, v, b, q->tested, c->alpha);
	cmp_fmt_sig(mde, sizeof(mde), q->mde, 3, true);
	cmp_fmt_sig(cov, sizeof(cov), q->cov, 3, true);
	return xasprintf("%s significant change in %s against %s (%zu metrics "
			 "tested, q < %.3g); at n = %zu vs %zu this run could "
			 "detect changes of %s%% or more (%s, CoV %s%%, power %.1f).",
			 no, v, b, q->tested, c->alpha, q->n_base, q->n_new, mde,
			 c->metrics[q->metric].name, cov, SUMMARY_POWER);
}

static void text_sig_rows(FILE *out, const struct comparison *c,
			  const struct cmp_summary *s)
{
	int vw = 7, mw = 6;

	for (size_t k = 0; k < s->nsig; k++) {
		int a = (int)strlen(c->vars[s->sig[k].variant].name);
		int b = (int)strlen(c->metrics[s->sig[k].metric].name);

		vw = a > vw ? a : vw;
		mw = b > mw ? b : mw;
	}
	vw = vw > 16 ? 16 : vw;
	/* 2 + vw + 2 + mw + 2 + 8 + 2 + 20 + 2 + 6 + 2 + 8 <= 100 */
	if (mw > TEXT_WIDTH - 54 - vw)
		mw = TEXT_WIDTH - 54 - vw;
	fprintf(out, "  %-*s  %-*s  %8s  %-20s  %-6s  %s\n", vw, "variant", mw,
		"metric", "change", "95% CI", "", "q");
	for (size_t k = 0; k < s->nsig; k++) {
		const struct cmp_sig *r = &s->sig[k];
		const struct cmp_metric *m = &c->metrics[r->metric];
		char chg[32], ci[64], line[512], name[128];

		/* a zero baseline has no relative change */
		if (isnan(r->change))
			snprintf(chg, sizeof(chg), "from 0");
		else
			cmp_fmt_change(chg, sizeof(chg), r->change);
		cmp_fmt_ci(ci, sizeof(ci), r->lo, r->hi);
		if ((int)strlen(m->name) > mw)
			snprintf(name, sizeof(name), "%.*s~", mw - 1, m->name);
		else
			snprintf(name, sizeof(name), "%s", m->name);
		snprintf(line, sizeof(line), "  %-*.*s  %-*s  %8s  %-20s  %-6s  q=%.2g",
			 vw, vw, c->vars[r->variant].name, mw, name, chg, ci,
			 cmp_verdict_name(r->verdict), m->cells[r->variant].q);
		put_line(out, line);
	}
}

static void text_summary(FILE *out, const struct comparison *c)
{
	struct cmp_summary s;

	cmp_summarize(c, &s);
	if (s.nsig) {
		char *head = xasprintf("Summary: %zu significant change%s against %s "
				       "(Welch's t-test, Benjamini-Hochberg q < %.3g), "
				       "largest first; change = difference of the "
				       "means relative to %s:", s.nsig,
				       s.nsig == 1 ? "" : "s",
				       c->vars[c->baseline].name, c->alpha,
				       c->vars[c->baseline].name);

		put_wrapped(out, "", head);
		free(head);
		text_sig_rows(out, c, &s);
	}
	for (size_t k = 0; k < s.nquiet; k++) {
		char *q = cmp_quiet_sentence(c, &s.quiet[k], s.nsig || k);

		put_wrapped(out, s.nsig || k ? "" : "Summary: ", q);
		free(q);
	}
	if (!s.nsig && !s.nquiet)
		put_wrapped(out, "Summary: ", "only the baseline; nothing to compare.");
	cmp_summary_release(&s);
}

static int write_text(const struct comparison *c, FILE *out)
{
	struct layout l = text_layout(c);
	size_t *cols = xmalloc((l.per_block + 1) * sizeof(*cols));
	size_t next = 0;
	bool first = true;

	text_summary(out, c);
	fputc('\n', out);
	do {
		size_t n = 0;

		cols[n++] = c->baseline;
		while (n < l.per_block && next < c->nvars) {
			if (next != c->baseline)
				cols[n++] = next;
			next++;
		}
		if (next == c->baseline)
			next++;
		if (!first)
			fputc('\n', out);
		text_block(out, c, &l, cols, n, first);
		first = false;
	} while (next < c->nvars);
	free(cols);
	text_notes(out, c);
	return 0;
}

/* ---- markdown ---- */

static void md_cell_stats(FILE *out, const struct comparison *c,
			  const struct cmp_metric *m, size_t j, bool ci)
{
	const struct cmp_cell *cell = &m->cells[j];

	if (j == c->baseline) {
		fputs(" |", out);
		return;
	}
	if (!cell->t.valid) {
		fprintf(out, " n/a: %s |", cell->t.why);
		return;
	}
	if (ci)
		fprintf(out, " [%.2f%%, %.2f%%] |", cell->ci_low, cell->ci_high);
	else
		fprintf(out, " %.3g (%.3g) |", cell->t.p, cell->q);
}

static void md_row(FILE *out, const struct comparison *c,
		   const struct cmp_metric *m, enum row_stat r, bool first)
{
	const char *label = r == ROW_MEAN ? cmp_mean_label(m) : row_label[r];

	if (first)
		fprintf(out, "| `%s` | %s |", m->name, label);
	else
		fprintf(out, "| | %s |", label);
	for (size_t j = 0; j < c->nvars; j++) {
		const struct cmp_cell *cell = &m->cells[j];
		double v = row_value(m, cell, r);
		double pct = cmp_pct(row_value(m, &m->cells[c->baseline], r), v,
				     row_dir(m, r));
		char num[32];

		fmt_num(num, sizeof(num), v, 16);
		if (isnan(pct))
			fprintf(out, " %s (n/a)", num);
		else
			fprintf(out, " %s (%.2f%%)", num, pct);
		fputs(r == ROW_MEAN && cell->significant ? " \\* |" : " |", out);
	}
	fputc('\n', out);
}

static void md_summary(FILE *out, const struct comparison *c)
{
	struct cmp_summary s;

	cmp_summarize(c, &s);
	if (s.nsig) {
		fprintf(out, "**Summary:** %zu significant change%s against %s "
			"(Welch's t-test, Benjamini-Hochberg q < %.3g), largest first; "
			"change = difference of the means relative to %s.\n\n"
			"| Variant | Metric | Change | 95%% CI | | q |\n"
			"|:--|:--|--:|:--|:--|--:|\n", s.nsig, s.nsig == 1 ? "" : "s",
			c->vars[c->baseline].name, c->alpha, c->vars[c->baseline].name);
	}
	for (size_t k = 0; k < s.nsig; k++) {
		const struct cmp_sig *r = &s.sig[k];
		char chg[32], ci[64];

		if (isnan(r->change))
			snprintf(chg, sizeof(chg), "from 0");
		else
			cmp_fmt_change(chg, sizeof(chg), r->change);
		cmp_fmt_ci(ci, sizeof(ci), r->lo, r->hi);
		fprintf(out, "| %s | `%s` | %s | %s | %s | %.2g |\n",
			c->vars[r->variant].name, c->metrics[r->metric].name, chg, ci,
			cmp_verdict_name(r->verdict),
			c->metrics[r->metric].cells[r->variant].q);
	}
	for (size_t k = 0; k < s.nquiet; k++) {
		char *q = cmp_quiet_sentence(c, &s.quiet[k], true);

		fprintf(out, "%s%s%s\n", s.nsig || k ? "\n" : "",
			s.nsig || k ? "" : "**Summary:** ", q);
		free(q);
	}
	fputc('\n', out);
	cmp_summary_release(&s);
}

static void md_metric(FILE *out, const struct comparison *c,
		      const struct cmp_metric *m)
{
	md_row(out, c, m, ROW_MEAN, true);
	for (int r = ROW_STDDEV; m->kind == KIND_MAIN && r <= ROW_BAMEAN; r++)
		md_row(out, c, m, (enum row_stat)r, false);
	fputs("| | p (q) |", out);
	for (size_t j = 0; j < c->nvars; j++)
		md_cell_stats(out, c, m, j, false);
	fprintf(out, "\n| | %d%% CI |", CONF_PCT);
	for (size_t j = 0; j < c->nvars; j++)
		md_cell_stats(out, c, m, j, true);
	fputc('\n', out);
}

/* "| text | |" and an empty cell per variant */
static void md_wide_row(FILE *out, const struct comparison *c, const char *text)
{
	fprintf(out, "| %s | |", text);
	for (size_t j = 0; j < c->nvars; j++)
		fputs(" |", out);
	fputc('\n', out);
}

static void md_group(FILE *out, const struct comparison *c, enum metric_group g)
{
	char *unchanged = unchanged_list(c, g, false), *t;
	bool any = unchanged != NULL;

	for (size_t i = 0; i < c->nmetrics && !any; i++)
		any = c->metrics[i].group == g;
	if (!any)
		return;
	t = xasprintf("**%s**", metric_group_title(g));
	md_wide_row(out, c, t);
	free(t);
	for (size_t i = 0; i < c->nmetrics; i++)
		if (c->metrics[i].group == g && !c->metrics[i].constant)
			md_metric(out, c, &c->metrics[i]);
	if (unchanged) {
		t = xasprintf("*Unchanged:* %s", unchanged);
		md_wide_row(out, c, t);
		free(t);
		free(unchanged);
	}
}

static int write_markdown(const struct comparison *c, FILE *out)
{
	md_summary(out, c);
	fputs("| Metric | |", out);
	for (size_t j = 0; j < c->nvars; j++)
		fprintf(out, " %s%s |", c->vars[j].name,
			j == c->baseline ? " (baseline)" : "");
	fputs("\n|:--|:--|", out);
	for (size_t j = 0; j < c->nvars; j++)
		fputs("--:|", out);
	fputc('\n', out);
	for (int g = 0; g < GROUP_COUNT; g++)
		md_group(out, c, (enum metric_group)g);
	fprintf(out, "\n\\* significant at alpha %.3g (Welch's t-test, "
		"Benjamini-Hochberg q). %% is the change against %s, positive "
		"when better. Unchanged: one value in every sample of every "
		"variant.\n", c->alpha, c->vars[c->baseline].name);
	for (size_t i = 0; i < c->notes.n; i++)
		fprintf(out, "\n- Note: %s", c->notes.v[i]);
	for (size_t i = 0; i < c->warnings.n; i++)
		fprintf(out, "\n- **Warning:** %s", c->warnings.v[i]);
	if (c->notes.n || c->warnings.n)
		fputc('\n', out);
	return 0;
}

/* ---- csv ---- */

static void csv_str(FILE *out, const char *s, const char *sep)
{
	if (strpbrk(s, ",\"\n")) {
		fputc('"', out);
		for (; *s; s++) {
			if (*s == '"')
				fputc('"', out);
			fputc(*s, out);
		}
		fputc('"', out);
	} else {
		fputs(s, out);
	}
	fputs(sep, out);
}

static void csv_num(FILE *out, double v, const char *sep)
{
	if (isfinite(v))
		fprintf(out, "%.10g", v);
	else if (isinf(v))
		fputs(v > 0 ? "inf" : "-inf", out);
	fputs(sep, out);
}

static const char *kind_name(enum metric_kind k)
{
	return k == KIND_OPS ? "ops" : k == KIND_DURATION ? "duration" : "main";
}

static int write_csv(const struct comparison *c, FILE *out)
{
	fputs("metric,kind,direction,variant,baseline,n,mean,stddev,coeffvar,"
	      "min,max,bamean95,hmean,pct,p,q,ci_low,ci_high,significant\n", out);
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];

		for (size_t j = 0; j < c->nvars; j++) {
			const struct cmp_cell *e = &m->cells[j];

			csv_str(out, m->name, ",");
			fprintf(out, "%s,%s,", kind_name(m->kind),
				metric_dir_name(m->dir));
			csv_str(out, c->vars[j].name, ",");
			fprintf(out, "%d,%zu,", j == c->baseline, e->s.n);
			csv_num(out, e->s.mean, ",");
			csv_num(out, e->s.stddev, ",");
			csv_num(out, e->s.cov, ",");
			csv_num(out, e->s.min, ",");
			csv_num(out, e->s.max, ",");
			csv_num(out, e->s.bamean95, ",");
			csv_num(out, e->s.hmean, ",");
			csv_num(out, e->pct, ",");
			csv_num(out, e->t.valid ? e->t.p : NAN, ",");
			csv_num(out, e->t.valid ? e->q : NAN, ",");
			csv_num(out, e->ci_low, ",");
			csv_num(out, e->ci_high, ",");
			fprintf(out, "%d\n", e->significant);
		}
	}
	return 0;
}

/* ---- json ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_strlist(const struct strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(a, json_string(l->v[i]));
	return a;
}

static json_t *json_cell(const struct comparison *c, size_t j,
			 const struct cmp_cell *e)
{
	json_t *o = json_pack("{s:s, s:I}", "variant", c->vars[j].name,
			      "n", (json_int_t)e->s.n);
	const struct { const char *k; double v; } f[] = {
		{ "mean", e->s.mean }, { "stddev", e->s.stddev },
		{ "cov", e->s.cov }, { "min", e->s.min }, { "max", e->s.max },
		{ "bamean95", e->s.bamean95 }, { "hmean", e->s.hmean },
		{ "pct", e->pct }, { "p", e->t.valid ? e->t.p : NAN },
		{ "q", e->t.valid ? e->q : NAN },
		{ "df", e->t.valid ? e->t.df : NAN },
		{ "ci_low", e->ci_low }, { "ci_high", e->ci_high },
	};

	for (size_t k = 0; k < ARRAY_SIZE(f); k++)
		json_object_set_new(o, f[k].k, jnum(f[k].v));
	json_object_set_new(o, "significant", json_boolean(e->significant));
	if (j != c->baseline && !e->t.valid)
		json_object_set_new(o, "why", json_string(e->t.why));
	return o;
}

static json_t *json_metric(const struct comparison *c,
			   const struct cmp_metric *m)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "name", m->name,
			      "kind", kind_name(m->kind),
			      "direction", metric_dir_name(m->dir),
			      "label", cmp_mean_label(m));
	json_t *vars = json_array();

	if (m->formula)
		json_object_set_new(o, "formula", json_string(m->formula));
	json_object_set_new(o, "group", json_string(metric_group_name(m->group)));
	json_object_set_new(o, "constant", json_boolean(m->constant));
	for (size_t j = 0; j < c->nvars; j++)
		json_array_append_new(vars, json_cell(c, j, &m->cells[j]));
	json_object_set_new(o, "variants", vars);
	return o;
}

static json_t *json_variants(const struct comparison *c)
{
	json_t *a = json_array();

	for (size_t j = 0; j < c->nvars; j++) {
		const struct cmp_variant *v = &c->vars[j];
		json_t *o = json_pack("{s:s, s:I}", "name", v->name,
				      "n", (json_int_t)v->niter);

		json_object_set_new(o, "run", v->run ? json_string(v->run) :
						      json_null());
		json_object_set_new(o, "kernel", v->kernel ?
				    json_string(v->kernel) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static int dump(json_t *root, FILE *out)
{
	int rc = json_dumpf(root, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10));

	json_decref(root);
	fputc('\n', out);
	if (rc < 0)
		lab_err("cannot write the comparison as JSON (out of space?)");
	return rc < 0 ? -1 : 0;
}

/*
 * "summary": the significant cells largest change first (change in percent
 * of the baseline mean, null from a zero baseline) and, for each variant
 * with none, the smallest change it could have detected.
 */
static json_t *json_summary(const struct comparison *c)
{
	json_t *rows = json_array(), *quiet = json_array();
	struct cmp_summary s;

	cmp_summarize(c, &s);
	for (size_t k = 0; k < s.nsig; k++) {
		const struct cmp_sig *r = &s.sig[k];

		json_array_append_new(rows, json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:s}",
			"metric", c->metrics[r->metric].name,
			"variant", c->vars[r->variant].name,
			"change_pct", jnum(r->change), "ci_low_pct", jnum(r->lo),
			"ci_high_pct", jnum(r->hi),
			"q", jnum(c->metrics[r->metric].cells[r->variant].q),
			"verdict", cmp_verdict_name(r->verdict)));
	}
	for (size_t k = 0; k < s.nquiet; k++) {
		const struct cmp_quiet *q = &s.quiet[k];
		bool have = q->metric != (size_t)-1;

		json_array_append_new(quiet, json_pack("{s:s, s:I, s:o, s:o, s:o, s:I, s:I}",
			"variant", c->vars[q->variant].name, "tested", (json_int_t)q->tested,
			"detectable_pct", jnum(q->mde),
			"metric", have ? json_string(c->metrics[q->metric].name) : json_null(),
			"cov", jnum(q->cov), "n_baseline", (json_int_t)q->n_base,
			"n", (json_int_t)q->n_new));
	}
	cmp_summary_release(&s);
	return json_pack("{s:I, s:f, s:o, s:o}", "significant",
			 (json_int_t)json_array_size(rows), "power", SUMMARY_POWER,
			 "changes", rows, "no_change", quiet);
}

static int write_json(const struct comparison *c, FILE *out)
{
	json_t *metrics = json_array();
	json_t *root;

	for (size_t i = 0; i < c->nmetrics; i++)
		json_array_append_new(metrics, json_metric(c, &c->metrics[i]));
	root = json_pack("{s:i, s:o, s:s, s:f, s:f, s:s, s:o, s:o, s:o, s:o}",
			 "schema", 1, "runs", json_strlist(&c->runs),
			 "baseline", c->vars[c->baseline].name,
			 "alpha", c->alpha, "confidence", CONF_PCT / 100.0,
			 "correction", "benjamini-hochberg per variant",
			 "variants", json_variants(c),
			 "warnings", json_strlist(&c->warnings),
			 "notes", json_strlist(&c->notes),
			 "metrics", metrics);
	json_object_set_new(root, "summary", json_summary(c));
	return dump(root, out);
}

int cmp_write(const struct comparison *c, enum cmp_format fmt, FILE *out)
{
	switch (fmt) {
	case CMP_TEXT:
		return write_text(c, out);
	case CMP_MARKDOWN:
		return write_markdown(c, out);
	case CMP_CSV:
		return write_csv(c, out);
	case CMP_JSON:
		return write_json(c, out);
	default:
		return cmp_write_html(c, out);
	}
}

/* ---- power ---- */

/* the largest CoV (a fraction) among variants with n >= 2 */
static double worst_cov(const struct comparison *c, const struct cmp_metric *m,
			size_t *nmin)
{
	double cov = NAN;

	*nmin = (size_t)-1;
	for (size_t j = 0; j < c->nvars; j++) {
		const struct stats_summary *s = &m->cells[j].s;

		if (s->n < *nmin)
			*nmin = s->n;
		if (s->n >= 2 && s->mean != 0 && (isnan(cov) || s->cov / 100 > cov))
			cov = s->cov / 100;
	}
	return cov;
}

int cmp_write_power(const struct comparison *c, double effect,
		    enum cmp_format fmt, FILE *out)
{
	json_t *arr = json_array();
	int w = 12;

	for (size_t i = 0; i < c->nmetrics; i++)
		if ((int)strlen(c->metrics[i].name) + 2 > w)
			w = (int)strlen(c->metrics[i].name) + 2;

	if (fmt != CMP_JSON) {
		fprintf(out, "Iterations per variant to detect a %.2f%% change "
			"(alpha %.3g, power 0.80, Welch's t-test)\n", 100 * effect,
			c->alpha);
		fprintf(out, "%-*s%10s%8s%10s%12s\n", w, "Metric", "CoV%", "n now",
			"n needed", "detectable");
	}
	for (size_t i = 0; i < c->nmetrics; i++) {
		const struct cmp_metric *m = &c->metrics[i];
		size_t nmin, need;
		double cov = worst_cov(c, m, &nmin);
		double mde = 100 * stats_mde(cov, nmin, nmin, c->alpha, SUMMARY_POWER);
		char det[32];

		need = isnan(cov) ? 0 : stats_power_n(cov, effect, c->alpha, 0.8);
		if (fmt == CMP_JSON) {
			json_t *o = json_pack("{s:s, s:o, s:I, s:o}", "name", m->name,
					      "cov", jnum(100 * cov),
					      "n", (json_int_t)nmin,
					      "detectable_pct", jnum(mde));

			json_object_set_new(o, "n_needed", need ?
					    json_integer((json_int_t)need) :
					    json_null());
			json_array_append_new(arr, o);
			continue;
		}
		cmp_fmt_sig(det, sizeof(det), mde, 3, true);
		if (!isnan(mde))
			strcat(det, "%");
		fprintf(out, "%-*s", w, m->name);
		if (isnan(cov))
			fprintf(out, "%10s%8zu%10s%12s\n", "n/a", nmin, "n/a", "n/a");
		else if (!need)
			fprintf(out, "%10.2f%8zu%10s%12s\n", 100 * cov, nmin, ">1e6", det);
		else
			fprintf(out, "%10.2f%8zu%10zu%12s\n", 100 * cov, nmin, need, det);
	}
	if (fmt != CMP_JSON) {
		json_decref(arr);
		fputs("CoV% is the largest among the variants; n/a where a "
		      "variant has fewer than 2 samples or a zero mean. detectable: "
		      "the smallest change the current n detects with power 0.80.\n",
		      out);
		return 0;
	}
	return dump(json_pack("{s:f, s:f, s:f, s:o}", "effect", effect,
			      "alpha", c->alpha, "power", 0.8, "metrics", arr),
		    out);
}
