// SPDX-License-Identifier: GPL-2.0
/*
 * bisect_list.c - a bisection over a list of kernels instead of commits
 * (bisect start --kernels FILE; docs/bisect.md, "A list of kernels").
 *
 * The list is oldest first; its entries are named k1..kN, the first and
 * the last are the endpoints. There is no git: the search is a binary
 * search over the list driven by the same verdicts, its state nothing but
 * the verdicts bisect.db holds (so a run resumes as a commit bisection
 * does). After each verdict the state is written as git would say it
 * ("Bisecting: N revisions left...", "kI is the first bad commit", "There
 * are only 'skip'ped commits left"), so status, the log and the result
 * read the same.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/bisect_git.h"
#include "bisect/bisect_list.h"
#include "bisect/internal.h"
#include "job/job.h"
#include "kernel/gitops.h"
#include "lib/strbuf.h"
#include "lib/util.h"

#define LINE_MAX_SHOWN 160

bool bisect_is_list(const struct bisect_params *p)
{
	return p->kernels != NULL;
}

long bisect_list_index(const struct bisect_params *p, const char *commit)
{
	char *end;
	long i;

	if (!commit || commit[0] != 'k' || commit[1] < '1' || commit[1] > '9')
		return -1;
	errno = 0;
	i = strtol(commit + 1, &end, 10);
	if (errno || *end || i < 1 || (size_t)i > json_array_size(p->kernels))
		return -1;
	return i - 1;
}

json_t *bisect_list_entry(const struct bisect_params *p, const char *commit)
{
	long i = bisect_list_index(p, commit);

	return i < 0 ? NULL : json_array_get(p->kernels, (size_t)i);
}

char *bisect_list_line(const struct bisect_params *p, const char *commit)
{
	json_t *e = bisect_list_entry(p, commit);
	char *j = e ? json_dumps(e, JSON_COMPACT | JSON_SORT_KEYS) : NULL, *line;

	line = xasprintf("%s %.*s%s", commit, LINE_MAX_SHOWN, j ? j : "?",
			 j && strlen(j) > LINE_MAX_SHOWN ? "..." : "");
	free(j);
	return line;
}

char *session_commit_line(struct bisect_session *s, const char *commit)
{
	if (bisect_is_list(s->p))
		return bisect_list_line(s->p, commit);
	return bisect_commit_line(s->p->tree, commit);
}

/* ---- the search ---------------------------------------------------------- */

/*
 * Each entry's state from the verdicts: 'o' like the older endpoint, 'n'
 * like the newer (the term looked for), 's' skipped, 0 not decided.
 */
static char *list_marks(struct bisect_session *s)
{
	const struct bisect_params *p = s->p;
	size_t n = json_array_size(p->kernels), i;
	char *m = xcalloc(n + 1, 1);
	const char *new_verdict = p->reverse ? "good" : "bad";
	struct bstore_steps steps;

	bstore_step_list(s->bs, &steps);
	for (i = 0; i < steps.n; i++) {
		const struct bstore_step *st = &steps.v[i];
		long k = bisect_list_index(p, st->commit);
		const char *role = st->role ?: "";
		const char *v = st->d.verdict;

		if (k < 0)
			continue;
		if (!strcmp(role, "good") || !strcmp(role, "bad"))
			m[k] = !strcmp(role, new_verdict) ? 'n' : 'o';
		else if (v && !strcmp(v, "skip"))
			m[k] = 's';
		else if (v)
			m[k] = !strcmp(v, new_verdict) ? 'n' : 'o';
	}
	bstore_steps_release(&steps);
	/* the endpoints are what they are even before they are measured */
	m[0] = m[0] ? m[0] : 'o';
	m[n - 1] = m[n - 1] ? m[n - 1] : 'n';
	return m;
}

/* the last old and the first new entry, and the undecided ones between */
static void list_bounds(const char *m, size_t n, size_t *lo, size_t *hi, size_t *open)
{
	*hi = n - 1;
	for (size_t i = 0; i < n; i++)
		if (m[i] == 'n') {
			*hi = i;
			break;
		}
	*lo = 0;
	for (size_t i = 0; i < *hi; i++)
		if (m[i] == 'o')
			*lo = i;
	*open = 0;
	for (size_t i = *lo + 1; i < *hi; i++)
		*open += !m[i];
}

/* the undecided entry nearest the middle of (lo, hi) */
static size_t list_pick(const char *m, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, best = hi;

	for (size_t i = lo + 1; i < hi; i++)
		if (!m[i] && (best == hi || (i > mid ? i - mid : mid - i) <
						    (best > mid ? best - mid : mid - best)))
			best = i;
	return best;
}

char *bisect_list_progress(struct bisect_session *s, char **next)
{
	size_t n = json_array_size(s->p->kernels), lo, hi, open;
	char *m = list_marks(s), *line;
	const char *term = session_new_term(s);
	struct strbuf sb = STRBUF_INIT;

	list_bounds(m, n, &lo, &hi, &open);
	if (next)
		*next = NULL;
	if (open) {
		size_t pick = list_pick(m, lo, hi);
		char id[32];

		snprintf(id, sizeof(id), "k%zu", pick + 1);
		line = bisect_list_line(s->p, id);
		strbuf_addf(
			&sb,
			"Bisecting: %zu revisions left to test after this (roughly %d steps)\n[%s]\n",
			open - 1, (int)ceil(log2((double)open)), line);
		free(line);
		if (next)
			*next = xstrdup(id);
	} else if (hi > lo + 1) {
		strbuf_addf(&sb,
			    "There are only 'skip'ped commits left to test.\n"
			    "The first %s commit could be any of:\n",
			    term);
		for (size_t i = lo + 1; i <= hi; i++)
			strbuf_addf(&sb, "k%zu\n", i + 1);
		strbuf_addstr(&sb, "We cannot bisect more!\n");
	} else {
		line = xasprintf("k%zu", hi + 1);
		strbuf_addf(&sb, "%s is the first %s commit\n", line, term);
		free(line);
	}
	free(m);
	return strbuf_detach(&sb);
}

char *bisect_list_first(struct bisect_session *s, const char *out)
{
	char *needle = xasprintf(" is the first %s commit", session_new_term(s));
	const char *p = out ? strstr(out, needle) : NULL, *b;
	char *first = NULL;

	if (p) {
		for (b = p; b > out && b[-1] != '\n'; b--)
			;
		first = xstrndup(b, (size_t)(p - b));
		if (bisect_list_index(s->p, first) < 0) {
			free(first);
			first = NULL;
		}
	}
	free(needle);
	return first;
}

json_t *bisect_list_candidates(const char *out)
{
	json_t *a = json_array();
	const char *p = out ? strstr(out, "could be any of:") : NULL;

	p = p ? strchr(p, '\n') : NULL;
	while (p && *++p == 'k') {
		size_t n = 1 + strspn(p + 1, "0123456789");

		json_array_append_new(a, json_stringn(p, n));
		p = strchr(p, '\n');
	}
	return a;
}

json_t *bisect_list_commit_json(const struct bisect_params *p, const char *commit)
{
	json_t *e = bisect_list_entry(p, commit);
	char *line = bisect_list_line(p, commit);
	json_t *o = json_pack("{s:s, s:s, s:s, s:O}", "commit", commit, "short", commit, "subject",
			      line + strlen(commit) + 1, "kernel", e ? e : json_null());

	free(line);
	return o;
}

/* ---- --tree: the list's answer bisected as commits ------------------------ */

/* the job builds a kernel from the tree (kernels.config): refused now, not after the list */
static int tree_job_check(const struct bisect_params *p, const char *commit, const char *file)
{
	char err[256], *yaml;
	struct job *job = NULL;

	yaml = bisect_step_yaml(p->job_text, strlen(p->job_text), p->variant, "bisect-check",
				"c-tree", commit, p->tree, p->iterations, p->iterations_per_boot,
				err, sizeof(err));
	if (!yaml || job_load_buffer(p->job_file, yaml, strlen(yaml), p->job_dir, &job)) {
		lab_err("--kernels %s --tree %s: %s does not make a job that builds a commit of "
			"the tree: %s",
			file, p->tree, p->job_file, yaml ? "see above" : err);
		free(yaml);
		return -1;
	}
	job_free(job);
	free(yaml);
	return 0;
}

int bisect_list_set_tree(struct bisect_params *p, const char *tree, const char *file)
{
	size_t n = json_array_size(p->kernels);

	p->tree = path_abs(tree);
	for (size_t i = 0; i < n; i++) {
		char *what = xasprintf("--kernels %s: entry %zu: tag", file, i + 1), *c = NULL;

		if (!bisect_list_tag(p, i))
			lab_err("--kernels %s: entry %zu has no tag; with --tree every entry names "
				"its release's git ref in %s ('tag: v6.1.52'; docs/bisect.md)",
				file, i + 1, p->tree);
		else
			c = git_resolve_commit(p->tree, bisect_list_tag(p, i), what);
		free(what);
		if (!c)
			return -1;
		if (i == 0 && tree_job_check(p, c, file)) {
			free(c);
			return -1;
		}
		free(c);
	}
	return 0;
}

bool bisect_list_tree_args(struct bisect_session *s, struct bisect_start_args *a)
{
	const struct bisect_params *p = s->p;
	size_t n = json_array_size(p->kernels), lo, hi, open;
	char *m = list_marks(s);
	const char *old_tag, *new_tag;

	list_bounds(m, n, &lo, &hi, &open);
	free(m);
	old_tag = bisect_list_tag(p, lo);
	new_tag = bisect_list_tag(p, hi);
	if (!old_tag || !new_tag) {
		lab_err("bisect: k%zu or k%zu has no tag to bisect the commits between", lo + 1,
			hi + 1);
		return false;
	}
	*a = (struct bisect_start_args){
		.job = p->job_file,
		.job_dir = p->job_dir,
		.variant = p->variant_name,
		.good = p->reverse ? new_tag : old_tag,
		.bad = p->reverse ? old_tag : new_tag,
		.metric = p->metric,
		.signature = p->signature,
		.better = p->better,
		.min_change = p->min_change,
		.alpha = p->alpha,
		.k = p->k,
		.iterations = p->iterations,
		.max_iterations = p->max_iterations,
		.reverse = p->reverse,
		.tree = p->tree,
	};
	lab_info("bisect: the list's first %s entry is k%zu (%s), after k%zu (%s); bisecting "
		 "the commits between them in %s",
		 session_new_term(s), hi + 1, new_tag, lo + 1, old_tag, p->tree);
	return true;
}
