// SPDX-License-Identifier: GPL-2.0
/*
 * compare_out.c - the forms of a comparison people read: text (a summary,
 * then the mmtests layout in groups, 100 columns) and markdown. csv, json
 * and --power are in compare_json.c, html in report_html.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/compare_int.h"
#include "analysis/summary.h"
#include "lib/strbuf.h"

#define TEXT_WIDTH 100
#define OP_W 10 /* "BAmean-95 " */
#define CELL_W 22 /* " %11s (%6s%)" */
#define NAME_MAX_W 36
#define CONF_PCT 95

enum row_stat { ROW_MEAN, ROW_STDDEV, ROW_COV, ROW_MIN, ROW_MAX, ROW_BAMEAN };

static const char *const row_label[] = {
	NULL, "Stddev", "CoeffVar", "Min", "Max", "BAmean-95",
};

static double row_value(const struct cmp_metric *m, const struct cmp_cell *c, enum row_stat r)
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
		fprintf(out, "%*s%.*s\n", first ? 0 : (int)plen, first ? prefix : "", (int)n, p);
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
		return !strcmp(m->name, "time.user_s")	 ? "User" :
		       !strcmp(m->name, "time.system_s") ? "System" :
							   "Elapsed";
	if (m->kind == KIND_OPS && !strncmp(m->name, "vmstat.", 7))
		return m->name + 7;
	if (m->kind == KIND_OPS && !strncmp(m->name, "derived.", 8))
		return m->name + 8;
	return m->name;
}

struct layout {
	int name_w;
	size_t per_block; /* variants per block, baseline included */
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

static void text_cell(char *buf, size_t len, const struct cmp_metric *m, const struct comparison *c,
		      size_t j, enum row_stat r)
{
	const struct cmp_cell *cell = &m->cells[j];
	const struct cmp_cell *base = &m->cells[c->baseline];
	double v = row_value(m, cell, r);
	double pct = cmp_pct(row_value(m, base, r), v, row_dir(m, r));
	bool star = r == ROW_MEAN && cell->significant;
	char num[32], p[16];

	fmt_num(num, sizeof(num), v, 11);
	fmt_pct(p, sizeof(p), pct);
	snprintf(buf, len, " %11s %c%s%c", num, star ? '*' : '(', p, star ? '*' : ')');
}

static void text_row(FILE *out, const struct comparison *c, const struct layout *l,
		     const size_t *cols, size_t ncols, const struct cmp_metric *m, enum row_stat r)
{
	char line[1024], cell[64], name[NAME_MAX_W + 1];
	const char *label = r == ROW_MEAN ? cmp_mean_label(m) : row_label[r];
	const char *shown = text_name(m);
	size_t pos;

	if ((int)strlen(shown) > l->name_w) {
		snprintf(name, sizeof(name), "%.*s~", l->name_w - 1, shown);
		shown = name;
	}
	pos = (size_t)snprintf(line, sizeof(line), "%-*s%-*s", OP_W, label, l->name_w, shown);
	for (size_t k = 0; k < ncols && pos < sizeof(line); k++) {
		text_cell(cell, sizeof(cell), m, c, cols[k], r);
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, "%s", cell);
	}
	put_line(out, line);
}

static void text_header(FILE *out, const struct comparison *c, const struct layout *l,
			const size_t *cols, size_t ncols)
{
	char line[1024];
	size_t pos = (size_t)snprintf(line, sizeof(line), "%*s", OP_W + l->name_w, "");

	for (size_t k = 0; k < ncols && pos < sizeof(line); k++)
		pos += (size_t)snprintf(line + pos, sizeof(line) - pos, " %*.*s", CELL_W - 1,
					CELL_W - 1, c->vars[cols[k]].name);
	put_line(out, line);
}

/* "name=value, ..." of the constant metrics of group g, or NULL */
static char *unchanged_list(const struct comparison *c, enum metric_group g, bool text)
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
static bool text_group(FILE *out, const struct comparison *c, const struct layout *l,
		       const size_t *cols, size_t ncols, enum metric_group g, bool gap,
		       bool first_block)
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

static void text_block(FILE *out, const struct comparison *c, const struct layout *l,
		       const size_t *cols, size_t ncols, bool first_block)
{
	bool gap = false;

	text_header(out, c, l, cols, ncols);
	for (int g = 0; g < GROUP_COUNT; g++)
		gap |= text_group(out, c, l, cols, ncols, (enum metric_group)g, gap, first_block);
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
		      c->alpha, c->nmetrics, nconst ? ", the Unchanged ones included" : "",
		      c->vars[c->baseline].name,
		      nconst ? " Unchanged: one value in every sample of every "
			       "variant." :
			       "");
	put_wrapped(out, "", s);
	free(s);
	for (size_t i = 0; i < c->notes.n; i++)
		put_wrapped(out, "Note: ", c->notes.v[i]);
	for (size_t i = 0; i < c->warnings.n; i++)
		put_wrapped(out, "Warning: ", c->warnings.v[i]);
}

/* ---- the summary ---- */

static void text_sig_rows(FILE *out, const struct comparison *c, const struct cmp_summary *s)
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
	fprintf(out, "  %-*s  %-*s  %8s  %-20s  %-6s  %s\n", vw, "variant", mw, "metric", "change",
		"95% CI", "", "q");
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
		snprintf(line, sizeof(line), "  %-*.*s  %-*s  %8s  %-20s  %-6s  q=%.2g", vw, vw,
			 c->vars[r->variant].name, mw, name, chg, ci, cmp_verdict_name(r->verdict),
			 m->cells[r->variant].q);
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
				       "means relative to %s:",
				       s.nsig, s.nsig == 1 ? "" : "s", c->vars[c->baseline].name,
				       c->alpha, c->vars[c->baseline].name);

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

static void md_cell_stats(FILE *out, const struct comparison *c, const struct cmp_metric *m,
			  size_t j, bool ci)
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

static void md_row(FILE *out, const struct comparison *c, const struct cmp_metric *m,
		   enum row_stat r, bool first)
{
	const char *label = r == ROW_MEAN ? cmp_mean_label(m) : row_label[r];

	if (first)
		fprintf(out, "| `%s` | %s |", m->name, label);
	else
		fprintf(out, "| | %s |", label);
	for (size_t j = 0; j < c->nvars; j++) {
		const struct cmp_cell *cell = &m->cells[j];
		double v = row_value(m, cell, r);
		double pct = cmp_pct(row_value(m, &m->cells[c->baseline], r), v, row_dir(m, r));
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
		fprintf(out,
			"**Summary:** %zu significant change%s against %s "
			"(Welch's t-test, Benjamini-Hochberg q < %.3g), largest first; "
			"change = difference of the means relative to %s.\n\n"
			"| Variant | Metric | Change | 95%% CI | | q |\n"
			"|:--|:--|--:|:--|:--|--:|\n",
			s.nsig, s.nsig == 1 ? "" : "s", c->vars[c->baseline].name, c->alpha,
			c->vars[c->baseline].name);
	}
	for (size_t k = 0; k < s.nsig; k++) {
		const struct cmp_sig *r = &s.sig[k];
		char chg[32], ci[64];

		if (isnan(r->change))
			snprintf(chg, sizeof(chg), "from 0");
		else
			cmp_fmt_change(chg, sizeof(chg), r->change);
		cmp_fmt_ci(ci, sizeof(ci), r->lo, r->hi);
		fprintf(out, "| %s | `%s` | %s | %s | %s | %.2g |\n", c->vars[r->variant].name,
			c->metrics[r->metric].name, chg, ci, cmp_verdict_name(r->verdict),
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

static void md_metric(FILE *out, const struct comparison *c, const struct cmp_metric *m)
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
		fprintf(out, " %s%s |", c->vars[j].name, j == c->baseline ? " (baseline)" : "");
	fputs("\n|:--|:--|", out);
	for (size_t j = 0; j < c->nvars; j++)
		fputs("--:|", out);
	fputc('\n', out);
	for (int g = 0; g < GROUP_COUNT; g++)
		md_group(out, c, (enum metric_group)g);
	fprintf(out,
		"\n\\* significant at alpha %.3g (Welch's t-test, "
		"Benjamini-Hochberg q). %% is the change against %s, positive "
		"when better. Unchanged: one value in every sample of every "
		"variant.\n",
		c->alpha, c->vars[c->baseline].name);
	for (size_t i = 0; i < c->notes.n; i++)
		fprintf(out, "\n- Note: %s", c->notes.v[i]);
	for (size_t i = 0; i < c->warnings.n; i++)
		fprintf(out, "\n- **Warning:** %s", c->warnings.v[i]);
	if (c->notes.n || c->warnings.n)
		fputc('\n', out);
	return 0;
}

int cmp_write(const struct comparison *c, enum cmp_format fmt, FILE *out)
{
	switch (fmt) {
	case CMP_TEXT:
		return write_text(c, out);
	case CMP_MARKDOWN:
		return write_markdown(c, out);
	case CMP_CSV:
		return cmp_write_csv(c, out);
	case CMP_JSON:
		return cmp_write_json(c, out);
	default:
		return cmp_write_html(c, out);
	}
}
