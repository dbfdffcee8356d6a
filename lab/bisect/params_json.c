// SPDX-License-Identifier: GPL-2.0
/*
 * params_json.c - a bisection's parameters to and from their stored JSON; see
 * params.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect/params.h"

void bisect_params_release(struct bisect_params *p)
{
	free(p->id);
	free(p->tree);
	free(p->job_file);
	free(p->job_dir);
	free(p->job_text);
	free(p->variant_name);
	free(p->good);
	free(p->bad);
	free(p->good_ref);
	free(p->bad_ref);
	free(p->metric);
	free(p->signature);
	strlist_free(&p->paths);
	json_decref(p->kernels);
	memset(p, 0, sizeof(*p));
}

const char *bisect_direction_name(int better)
{
	return better < 0 ? "lower" : better > 0 ? "higher" : NULL;
}

/* a string, or null when s is NULL (the stored form keeps the key) */
static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *bisect_params_to_json(const struct bisect_params *p)
{
	json_t *paths = json_array();
	json_t *o;

	for (size_t i = 0; i < p->paths.n; i++)
		json_array_append_new(paths, json_string(p->paths.v[i]));
	o = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:o, "
		      "s:f, s:f, s:I, s:I, s:I, s:I, s:b, s:o, s:I}",
		      "id", str_or_null(p->id), "tree", str_or_null(p->tree), "job_file",
		      str_or_null(p->job_file), "job_dir", str_or_null(p->job_dir), "job_text",
		      str_or_null(p->job_text), "variant_name", str_or_null(p->variant_name),
		      "variant", (json_int_t)p->variant, "good", str_or_null(p->good), "bad",
		      str_or_null(p->bad), "metric", str_or_null(p->metric), "signature",
		      str_or_null(p->signature), "direction",
		      str_or_null(bisect_direction_name(p->better)), "min_change", p->min_change,
		      "alpha", p->alpha, "iterations", (json_int_t)p->iterations, "max_iterations",
		      (json_int_t)p->max_iterations, "k", (json_int_t)p->k, "iterations_per_boot",
		      (json_int_t)p->iterations_per_boot, "reverse", p->reverse, "paths", paths,
		      "range_commits", (json_int_t)p->range_commits);
	if (!o)
		oom(0);
	if (p->good_ref)
		json_object_set_new(o, "good_ref", json_string(p->good_ref));
	if (p->bad_ref)
		json_object_set_new(o, "bad_ref", json_string(p->bad_ref));
	if (p->kernels)
		json_object_set_new(o, "kernels", json_deep_copy(p->kernels));
	return o;
}

/* reading: the first problem goes to err, later ones are not looked at */
struct reader {
	json_t *j;
	char *err;
	size_t len;
	bool failed;
};

static void problem(struct reader *r, const char *fmt, const char *key)
{
	if (!r->failed)
		snprintf(r->err, r->len, fmt, key);
	r->failed = true;
}

/* a string: required ones must be there; optional ones may be absent or null */
static char *get_str(struct reader *r, const char *key, bool required)
{
	json_t *v = json_object_get(r->j, key);

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (!v || json_is_null(v)) {
		if (required)
			problem(r, "no '%s'", key);
	} else {
		problem(r, "'%s' is not a string", key);
	}
	return NULL;
}

static unsigned long long get_uint(struct reader *r, const char *key, unsigned long long min,
				   unsigned long long max)
{
	json_t *v = json_object_get(r->j, key);
	json_int_t x = json_integer_value(v);
	char fmt[96];

	if (!v) {
		problem(r, "no '%s'", key);
		return min;
	}
	if (!json_is_integer(v) || x < 0 || (unsigned long long)x < min ||
	    (unsigned long long)x > max) {
		snprintf(fmt, sizeof(fmt), "'%%s' is not an integer from %llu to %llu", min, max);
		problem(r, fmt, key);
		return min;
	}
	return (unsigned long long)x;
}

/* a number in [min, max) */
static double get_num(struct reader *r, const char *key, double min, double max)
{
	json_t *v = json_object_get(r->j, key);
	double x = json_number_value(v);

	if (!v) {
		problem(r, "no '%s'", key);
		return min;
	}
	if (!json_is_number(v) || !(x >= min && x < max)) {
		problem(r, "'%s' is not a number in range", key);
		return min;
	}
	return x;
}

static bool get_bool(struct reader *r, const char *key)
{
	json_t *v = json_object_get(r->j, key);

	if (!json_is_boolean(v))
		problem(r, v ? "'%s' is not true or false" : "no '%s'", key);
	return json_is_true(v);
}

static void get_paths(struct reader *r, struct strlist *out)
{
	json_t *a = json_object_get(r->j, "paths"), *v;
	size_t i;

	if (!json_is_array(a)) {
		problem(r, a ? "'%s' is not an array of strings" : "no '%s'", "paths");
		return;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_string(v)) {
			problem(r, "'%s' is not an array of strings", "paths");
			return;
		}
		strlist_push(out, json_string_value(v));
	}
}

/* "kernels": absent, or 2 to BISECT_LIST_MAX objects */
static void get_kernels(struct reader *r, struct bisect_params *p)
{
	json_t *a = json_object_get(r->j, "kernels"), *v;
	size_t i;

	if (!a || json_is_null(a))
		return;
	if (!json_is_array(a) || json_array_size(a) < 2 || json_array_size(a) > BISECT_LIST_MAX) {
		problem(r, "'%s' is not an array of 2 to 1000 objects", "kernels");
		return;
	}
	json_array_foreach(a, i, v) {
		if (!json_is_object(v)) {
			problem(r, "'%s' is not an array of 2 to 1000 objects", "kernels");
			return;
		}
	}
	p->kernels = json_deep_copy(a);
}

static int get_direction(struct reader *r)
{
	char *d = get_str(r, "direction", false);
	int better = 0;

	if (d && !strcmp(d, "lower"))
		better = -1;
	else if (d && !strcmp(d, "higher"))
		better = 1;
	else if (d)
		problem(r, "'%s' is not \"lower\", \"higher\" or null", "direction");
	free(d);
	return better;
}

static void get_strings(struct reader *r, struct bisect_params *p)
{
	p->id = get_str(r, "id", true);
	p->tree = get_str(r, "tree", !json_object_get(r->j, "kernels"));
	p->job_file = get_str(r, "job_file", false);
	p->job_dir = get_str(r, "job_dir", true);
	p->job_text = get_str(r, "job_text", true);
	p->variant_name = get_str(r, "variant_name", false);
	p->good = get_str(r, "good", true);
	p->bad = get_str(r, "bad", true);
	p->good_ref = get_str(r, "good_ref", false);
	p->bad_ref = get_str(r, "bad_ref", false);
	p->metric = get_str(r, "metric", false);
	p->signature = get_str(r, "signature", false);
}

static void get_numbers(struct reader *r, struct bisect_params *p)
{
	p->variant = (unsigned int)get_uint(r, "variant", 0, 1u << 20);
	p->better = get_direction(r);
	p->min_change = get_num(r, "min_change", 0, 100.000001);
	p->alpha = get_num(r, "alpha", 1e-300, 1);
	p->iterations = (unsigned int)get_uint(r, "iterations", 1, BISECT_MAX_ITERATIONS);
	p->max_iterations = (unsigned int)get_uint(r, "max_iterations", 1, BISECT_MAX_ROUNDS);
	p->k = (unsigned int)get_uint(r, "k", 1, BISECT_MAX_ITERATIONS);
	p->iterations_per_boot =
		(unsigned int)get_uint(r, "iterations_per_boot", 0, BISECT_MAX_ITERATIONS);
	p->reverse = get_bool(r, "reverse");
	p->range_commits = get_uint(r, "range_commits", 0, 1ull << 40);
}

int bisect_params_from_json(json_t *j, struct bisect_params *p, char *err, size_t len)
{
	struct reader r = { .j = j, .err = err, .len = len };

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j)) {
		snprintf(err, len, "the parameters are not a JSON object");
		return -1;
	}
	get_strings(&r, p);
	get_numbers(&r, p);
	get_paths(&r, &p->paths);
	get_kernels(&r, p);
	if (!r.failed && !p->metric == !p->signature)
		problem(&r, "%s", "one of 'metric' and 'signature' is needed, not both");
	if (!r.failed && p->max_iterations < p->iterations)
		problem(&r, "%s", "'max_iterations' is less than 'iterations'");
	if (r.failed) {
		bisect_params_release(p);
		return -1;
	}
	return 0;
}
