// SPDX-License-Identifier: GPL-2.0
/*
 * variant.c - copying and releasing a job variant (struct job_variant,
 * job.h). There is one copy of a variant in the tree, this one: a copy
 * written field by field elsewhere drifts when the struct grows (the
 * observer check's twins once lost ref, revert, cherry_pick and apply, and a
 * twin of a source variant crashed the run).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"
#include "lib/util.h"

/*
 * The fields of struct job_variant, in order. When a field is added to the
 * struct the sizes differ and the build stops here: add the field below, and
 * to variant_dup() and variant_release() (and to test_variant.c).
 * A scalar that slips into padding is still copied: variant_dup() starts
 * from a byte copy of the whole struct.
 */
struct variant_fields {
	char *name;
	enum kernel_kind kernel_kind;
	char *kernel_path;
	unsigned int kernel_line, kernel_col;
	char *cmdline;
	struct kvlist sysctl;
	char *thp_enabled;
	char *thp_defrag;
	bool no_tracepoints;
	char *ref;
	struct strlist revert;
	struct strlist cherry_pick;
	struct strlist apply;
	char *pkg_name;
	char *pkg_version;
	char *pkg_deb;
	char *pkg_rpm;
	char *pkg_modules;
};
_Static_assert(sizeof(struct job_variant) == sizeof(struct variant_fields),
	       "struct job_variant changed: update struct variant_fields, variant_dup() "
	       "and variant_release() in lab/job/variant.c, and tests/unit/job/test_variant.c");

static void strlist_copy(struct strlist *dst, const struct strlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++)
		strlist_push(dst, src->v[i]);
}

static void kvlist_copy(struct kvlist *dst, const struct kvlist *src)
{
	memset(dst, 0, sizeof(*dst));
	for (size_t i = 0; i < src->n; i++)
		kvlist_set(dst, src->v[i].key, src->v[i].value);
}

void variant_dup(struct job_variant *dst, const struct job_variant *src)
{
	/* the scalars (kernel_kind, no_tracepoints, ...), then every owned pointer */
	memcpy(dst, src, sizeof(*dst));
	dst->name = xstrdup_or_null(src->name);
	dst->kernel_path = xstrdup_or_null(src->kernel_path);
	dst->cmdline = xstrdup_or_null(src->cmdline);
	kvlist_copy(&dst->sysctl, &src->sysctl);
	dst->thp_enabled = xstrdup_or_null(src->thp_enabled);
	dst->thp_defrag = xstrdup_or_null(src->thp_defrag);
	dst->ref = xstrdup_or_null(src->ref);
	strlist_copy(&dst->revert, &src->revert);
	strlist_copy(&dst->cherry_pick, &src->cherry_pick);
	strlist_copy(&dst->apply, &src->apply);
	dst->pkg_name = xstrdup_or_null(src->pkg_name);
	dst->pkg_version = xstrdup_or_null(src->pkg_version);
	dst->pkg_deb = xstrdup_or_null(src->pkg_deb);
	dst->pkg_rpm = xstrdup_or_null(src->pkg_rpm);
	dst->pkg_modules = xstrdup_or_null(src->pkg_modules);
}

void variant_release(struct job_variant *v)
{
	free(v->name);
	free(v->kernel_path);
	free(v->cmdline);
	kvlist_free(&v->sysctl);
	free(v->thp_enabled);
	free(v->thp_defrag);
	free(v->ref);
	strlist_free(&v->revert);
	strlist_free(&v->cherry_pick);
	strlist_free(&v->apply);
	free(v->pkg_name);
	free(v->pkg_version);
	free(v->pkg_deb);
	free(v->pkg_rpm);
	free(v->pkg_modules);
	memset(v, 0, sizeof(*v));
}
