// SPDX-License-Identifier: GPL-2.0
/*
 * bisect.c - the decisions of "mmlab bisect"; see bisect.h and
 * docs/bisect.md ("How a commit is judged").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <yaml.h>

#include "bisect/bisect.h"
#include "lib/util.h"

const char *bisect_call_name(enum bisect_call c)
{
	switch (c) {
	case BISECT_GOOD:
		return "good";
	case BISECT_BAD:
		return "bad";
	case BISECT_UNSURE:
		return "unsure";
	}
	return "?";
}

static void summarize(const double *x, size_t n, struct stats_summary *s)
{
	stats_summarize(x, n, false, s);
}

bool bisect_endpoints_ok(const double *good, size_t ng, const double *bad, size_t nb,
			 const struct bisect_rule *r, struct stats_test *t, char *why, size_t len)
{
	struct stats_summary g, b;
	double change;
	bool worse;
	char rel[64];

	summarize(good, ng, &g);
	summarize(bad, nb, &b);
	stats_welch(&g, &b, 1 - r->alpha, t);
	change = g.mean != 0 ? b.mean / g.mean - 1 : (b.mean != 0 ? INFINITY : 0);
	if (isfinite(change))
		snprintf(rel, sizeof(rel), "%+.1f %%", 100 * change);
	else
		snprintf(rel, sizeof(rel), "from 0");
	if (g.n < 2 || b.n < 2) {
		snprintf(why, len, "too few values to compare: %zu good, %zu bad (2 each needed)",
			 g.n, b.n);
		return false;
	}
	worse = !r->better || (r->better < 0 ? b.mean > g.mean : b.mean < g.mean);
	snprintf(why, len, "good %.6g ± %.3g (n=%zu), bad %.6g ± %.3g (n=%zu): %s, Welch p = %.3g",
		 g.mean, isnan(g.stddev) ? 0 : g.stddev, g.n, b.mean,
		 isnan(b.stddev) ? 0 : b.stddev, b.n, rel, t->p);
	if (!(t->p < r->alpha)) {
		snprintf(why + strlen(why), len - strlen(why),
			 "; not a significant difference at alpha = %g", r->alpha);
		return false;
	}
	if (fabs(change) < r->min_change) {
		snprintf(why + strlen(why), len - strlen(why), "; smaller than --min-change %g %%",
			 100 * r->min_change);
		return false;
	}
	if (!worse) {
		snprintf(why + strlen(why), len - strlen(why),
			 "; the bad endpoint is better (%s is better), not worse",
			 r->better < 0 ? "lower" : "higher");
		return false;
	}
	return true;
}

enum bisect_call bisect_call_metric(const double *good, size_t ng, const double *bad, size_t nb,
				    const double *step, size_t ns, const struct bisect_rule *r,
				    double *pos, double *p_wrong, char *why, size_t len)
{
	struct stats_summary g, b, s;
	struct stats_test tg, tb;
	double gap;

	summarize(good, ng, &g);
	summarize(bad, nb, &b);
	summarize(step, ns, &s);
	*p_wrong = NAN;
	*pos = NAN;
	gap = b.mean - g.mean;
	if (s.n < 2) {
		snprintf(why, len, "%zu value%s (2 needed)", s.n, s.n == 1 ? "" : "s");
		return BISECT_UNSURE;
	}
	if (gap == 0 || !isfinite(gap)) {
		snprintf(why, len, "the endpoints have the same mean");
		return BISECT_UNSURE;
	}
	stats_welch(&g, &s, 1 - r->alpha, &tg);
	stats_welch(&b, &s, 1 - r->alpha, &tb);
	*pos = (s.mean - g.mean) / gap;
	snprintf(why, len,
		 "mean %.6g at %.0f %% of the way from good to bad; "
		 "p = %.3g vs good, %.3g vs bad",
		 s.mean, 100 * *pos, tg.p, tb.p);
	if (*pos <= r->near && tb.p < r->alpha) {
		*p_wrong = tb.p;
		return BISECT_GOOD;
	}
	if (*pos >= 1 - r->near && tg.p < r->alpha) {
		*p_wrong = tg.p;
		return BISECT_BAD;
	}
	snprintf(why + strlen(why), len - strlen(why), "%s",
		 *pos > r->near && *pos < 1 - r->near ?
			 ": in between" :
			 ": not significantly different from the other endpoint");
	return BISECT_UNSURE;
}

enum bisect_call bisect_call_signature(unsigned int met, unsigned int unknown, unsigned int n,
				       unsigned int k, char *why, size_t len)
{
	snprintf(why, len, "signature in %u of %u runs", met, n);
	if (unknown)
		snprintf(why + strlen(why), len - strlen(why),
			 " (%u ended before it could be seen)", unknown);
	if (met >= k)
		return BISECT_BAD;
	if (!met && !unknown)
		return BISECT_GOOD;
	snprintf(why + strlen(why), len - strlen(why), "; %u needed for bad, none for good", k);
	return BISECT_UNSURE;
}

double bisect_miss_prob(double rate, unsigned int n)
{
	if (!(rate > 0))
		return 1;
	if (rate >= 1)
		return 0;
	return pow(1 - rate, n);
}

json_t *bisect_sample_json(const double *x, size_t n)
{
	struct stats_summary s;
	double hw = NAN;

	summarize(x, n, &s);
	if (s.n >= 2)
		hw = gsl_cdf_tdist_Qinv(0.025, (double)(s.n - 1)) * s.stddev / sqrt((double)s.n);
	return json_pack("{s:I, s:o, s:o}", "n", (json_int_t)s.n, "mean",
			 s.n ? json_real(s.mean) : json_null(), "ci95",
			 isfinite(hw) ? json_real(hw) : json_null());
}

/* the step job's YAML ------------------------------------------------------ */

static bool scalar_is(yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && !strcmp((char *)n->data.scalar.value, s);
}

static int add_scalar(yaml_document_t *d, const char *v, bool quoted)
{
	return yaml_document_add_scalar(d, NULL, (yaml_char_t *)v, (int)strlen(v),
					quoted ? YAML_DOUBLE_QUOTED_SCALAR_STYLE :
						 YAML_PLAIN_SCALAR_STYLE);
}

static int copy_node(yaml_document_t *src, int id, yaml_document_t *dst, int depth);

static int copy_pairs(yaml_document_t *src, yaml_node_t *map, yaml_document_t *dst, int to,
		      const char *const *skip, int depth)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *k = yaml_document_get_node(src, p->key);
		bool skipped = false;
		int kid, vid;

		for (size_t i = 0; skip && skip[i]; i++)
			skipped |= scalar_is(k, skip[i]);
		if (skipped)
			continue;
		kid = copy_node(src, p->key, dst, depth + 1);
		vid = copy_node(src, p->value, dst, depth + 1);
		if (!kid || !vid || !yaml_document_append_mapping_pair(dst, to, kid, vid))
			return -1;
	}
	return 0;
}

static int copy_node(yaml_document_t *src, int id, yaml_document_t *dst, int depth)
{
	yaml_node_t *n = yaml_document_get_node(src, id);
	int to;

	if (!n || depth > 32)
		return 0;
	switch (n->type) {
	case YAML_SCALAR_NODE:
		return yaml_document_add_scalar(dst, NULL, n->data.scalar.value,
						(int)n->data.scalar.length, n->data.scalar.style);
	case YAML_SEQUENCE_NODE:
		to = yaml_document_add_sequence(dst, NULL, YAML_FLOW_SEQUENCE_STYLE);
		for (yaml_node_item_t *it = n->data.sequence.items.start;
		     to && it < n->data.sequence.items.top; it++) {
			int c = copy_node(src, *it, dst, depth + 1);

			if (!c || !yaml_document_append_sequence_item(dst, to, c))
				return 0;
		}
		return to;
	case YAML_MAPPING_NODE:
		to = yaml_document_add_mapping(dst, NULL, YAML_BLOCK_MAPPING_STYLE);
		return to && !copy_pairs(src, n, dst, to, NULL, depth) ? to : 0;
	default:
		return 0;
	}
}

static int add_pair(yaml_document_t *d, int map, const char *k, int vid)
{
	int kid = add_scalar(d, k, false);

	return kid && vid && yaml_document_append_mapping_pair(d, map, kid, vid) ? 0 : -1;
}

static int emit(yaml_char_t *buf, size_t size, size_t *written, yaml_document_t *d)
{
	yaml_emitter_t em;
	int ok;

	if (!yaml_emitter_initialize(&em))
		return -1;
	yaml_emitter_set_output_string(&em, buf, size, written);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);
	ok = yaml_emitter_open(&em) && yaml_emitter_dump(&em, d) && yaml_emitter_close(&em);
	yaml_emitter_delete(&em); /* yaml_emitter_dump deleted d */
	return ok ? 0 : -1;
}

/* kernels: the job's, with tree: replaced by tree */
static int add_kernels(yaml_document_t *src, yaml_node_t *root, yaml_document_t *dst, int droot,
		       const char *tree)
{
	static const char *const skip[] = { "tree", NULL };
	int map = yaml_document_add_mapping(dst, NULL, YAML_BLOCK_MAPPING_STYLE);

	if (!map || add_pair(dst, map, "tree", add_scalar(dst, tree, true)))
		return -1;
	for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
	     pr < root->data.mapping.pairs.top; pr++) {
		yaml_node_t *v = yaml_document_get_node(src, pr->value);

		if (scalar_is(yaml_document_get_node(src, pr->key), "kernels") && v &&
		    v->type == YAML_MAPPING_NODE && copy_pairs(src, v, dst, map, skip, 0))
			return -1;
	}
	return add_pair(dst, droot, "kernels", map);
}

char *bisect_step_yaml(const char *text, size_t len, size_t variant, const char *name,
		       const char *vname, const char *commit, const char *tree,
		       unsigned int iterations, unsigned int per_boot, char *err, size_t errlen)
{
	static const char *const top_skip[] = {
		"name", "variants", "iterations", "iterations_per_boot", NULL,
	};
	static const char *const top_skip_kernels[] = {
		"name", "variants", "iterations", "iterations_per_boot", "kernels", NULL,
	};
	static const char *const var_skip[] = { "name", "ref", "kernel", NULL };
	yaml_parser_t p;
	yaml_document_t src, dst;
	yaml_node_t *root, *vars = NULL, *var;
	int droot, seq, vmap;
	char num[32], *out = NULL;
	size_t size = 2 * len + 4096, written = 0;
	yaml_char_t *buf;

	if (!yaml_parser_initialize(&p)) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, &src)) {
		snprintf(err, errlen, "not YAML: %s", p.problem ? p.problem : "?");
		yaml_parser_delete(&p);
		return NULL;
	}
	yaml_parser_delete(&p);
	root = yaml_document_get_root_node(&src);
	if (root && root->type == YAML_MAPPING_NODE) {
		for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
		     pr < root->data.mapping.pairs.top; pr++)
			if (scalar_is(yaml_document_get_node(&src, pr->key), "variants"))
				vars = yaml_document_get_node(&src, pr->value);
	}
	if (!vars || vars->type != YAML_SEQUENCE_NODE ||
	    variant >= (size_t)(vars->data.sequence.items.top - vars->data.sequence.items.start)) {
		snprintf(err, errlen, "no variant number %zu in the job", variant + 1);
		yaml_document_delete(&src);
		return NULL;
	}
	var = yaml_document_get_node(&src, vars->data.sequence.items.start[variant]);
	if (!var || var->type != YAML_MAPPING_NODE) {
		snprintf(err, errlen, "variant number %zu is not a mapping", variant + 1);
		yaml_document_delete(&src);
		return NULL;
	}
	if (!yaml_document_initialize(&dst, NULL, NULL, NULL, 1, 1)) {
		yaml_document_delete(&src);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	droot = yaml_document_add_mapping(&dst, NULL, YAML_BLOCK_MAPPING_STYLE);
	seq = yaml_document_add_sequence(&dst, NULL, YAML_BLOCK_SEQUENCE_STYLE);
	vmap = yaml_document_add_mapping(&dst, NULL, YAML_BLOCK_MAPPING_STYLE);
	if (add_pair(&dst, droot, "name", add_scalar(&dst, name, false)) ||
	    add_pair(&dst, vmap, "name", add_scalar(&dst, vname, false)) ||
	    add_pair(&dst, vmap, "ref", add_scalar(&dst, commit, true)) ||
	    copy_pairs(&src, var, &dst, vmap, var_skip, 0) ||
	    !yaml_document_append_sequence_item(&dst, seq, vmap) ||
	    add_pair(&dst, droot, "variants", seq) ||
	    copy_pairs(&src, root, &dst, droot, tree ? top_skip_kernels : top_skip, 0) ||
	    (tree && add_kernels(&src, root, &dst, droot, tree)))
		goto fail;
	snprintf(num, sizeof(num), "%u", iterations);
	if (add_pair(&dst, droot, "iterations", add_scalar(&dst, num, false)))
		goto fail;
	snprintf(num, sizeof(num), "%u", per_boot);
	if (add_pair(&dst, droot, "iterations_per_boot", add_scalar(&dst, num, false)))
		goto fail;
	yaml_document_delete(&src);
	buf = xmalloc(size + 1);
	if (emit(buf, size, &written, &dst)) {
		free(buf);
		snprintf(err, errlen, "the job could not be written as YAML");
		return NULL;
	}
	buf[written] = '\0';
	out = (char *)buf;
	return out;
fail:
	yaml_document_delete(&src);
	yaml_document_delete(&dst);
	snprintf(err, errlen, "out of memory");
	return NULL;
}
