// SPDX-License-Identifier: GPL-2.0
/*
 * parse_guest.c - what the job asks of the guest besides the workload:
 * "image:" (the initramfs or a debootstrap disk), "collect_files:" (files
 * brought back from the guest), "collectors:" (tracepoints) and "timeouts:".
 */
#include <stdlib.h>
#include <string.h>

#include "image/recipe.h"
#include "job/parse.h"
#include "lib/util.h"
#include "proto.h"

static const char *const image_kind_choices[] = { "initramfs", "debootstrap", NULL };

void job_parse_packages(struct job_yaml *y, yaml_node_t *n, const char *path, struct strlist *out)
{
	const char *want = "a Debian package name such as numactl";
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, n->start_mark, path,
			     "got %s; expected a list such as [numactl, linux-perf]",
			     job_yaml_kind(n));
		return;
	}
	if (job_yaml_seq_len(n) > JOB_MAX_PACKAGES) {
		job_yaml_err(y, n->start_mark, path, "%zu packages; at most %d allowed",
			     job_yaml_seq_len(n), JOB_MAX_PACKAGES);
		return;
	}
	for (size_t i = 0; i < job_yaml_seq_len(n); i++) {
		yaml_node_t *it = job_yaml_seq_item(y, n, i);
		const char *v = job_yaml_scalar(y, it, job_pidx(p, path, i), want);

		if (!v)
			continue;
		if (!image_debian_name_ok(v, true))
			job_yaml_err(y, it->start_mark, p,
				     "'%s' is not a Debian package name; expected %s "
				     "(lowercase letters, digits, '+', '-', '.')",
				     job_show(s, v), want);
		else
			strlist_push(out, v);
	}
}

enum { IM_KIND, IM_RECIPE, IM_SUITE, IM_PACKAGES, IM_SIZE, IM_N };

static enum image_kind kind_of_recipe(const struct image_recipe *r)
{
	return r->kind == RECIPE_DEBOOTSTRAP ? IMAGE_DEBOOTSTRAP : IMAGE_INITRAMFS;
}

/*
 * image.recipe: the recipe file it names (images/NAME.yaml, or a path
 * relative to the job) loaded into r; its kind, or -1 after an error.
 */
static int named_recipe(struct job_yaml *y, struct job_field *f, const char *dir, int k,
			struct image_recipe *r, struct job_image *im)
{
	yaml_node_t *n = f[IM_RECIPE].val;
	const char *v =
		job_yaml_scalar(y, n, "image.recipe",
				"a recipe name such as debootstrap or the path of a .yaml file");
	char *path, s[SHOWLEN];

	if (!v)
		return -1;
	path = image_recipe_path(v, dir);
	if (!path || image_recipe_load(path, r)) {
		job_yaml_err(y, n->start_mark, "image.recipe",
			     "cannot use the image recipe '%s' "
			     "(see the message above); name one in %s or give the path of a .yaml "
			     "file",
			     job_show(s, v), image_recipe_dir());
		free(path);
		return -1;
	}
	im->recipe = path;
	if (k >= 0 && (enum image_kind)k != kind_of_recipe(r))
		job_yaml_err(y, f[IM_KIND].val->start_mark, "image.kind",
			     "is %s, but the recipe %s "
			     "is of kind %s; leave out image.kind or make them agree",
			     image_kind_choices[k], r->path, image_recipe_kind_name(r->kind));
	return (int)kind_of_recipe(r);
}

/* the image's recipe: the one image.recipe names, else the kind's default */
static int image_recipe_of(struct job_yaml *y, yaml_node_t *n, struct job_field *f, const char *dir,
			   struct image_recipe *r, struct job_image *im)
{
	int k = -1;

	if (!f[IM_KIND].val && !f[IM_RECIPE].val)
		job_yaml_missing(y, n, "image", "kind", "debootstrap");
	else if (f[IM_KIND].val)
		k = job_yaml_enum(y, f[IM_KIND].val, "image.kind", image_kind_choices);
	if (f[IM_RECIPE].val)
		return named_recipe(y, f, dir, k, r, im);
	/* a disk takes the suite and size it does not give from the default recipe */
	if (k == IMAGE_DEBOOTSTRAP && image_recipe_load_default(RECIPE_DEBOOTSTRAP, r))
		job_yaml_err(y, f[IM_KIND].val->start_mark, "image.kind",
			     "the default disk image "
			     "recipe cannot be used (see the message above)");
	return k;
}

void job_parse_image(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_image *im)
{
	struct job_field f[IM_N] = {
		[IM_KIND] = { .key = "kind" },	 [IM_RECIPE] = { .key = "recipe" },
		[IM_SUITE] = { .key = "suite" }, [IM_PACKAGES] = { .key = "packages" },
		[IM_SIZE] = { .key = "size" },
	};
	struct image_recipe r = { 0 };
	char s[SHOWLEN];
	int k;

	if (!job_yaml_map(y, n, "image",
			  "a mapping such as { kind: debootstrap, packages: [numactl] }", f, IM_N))
		return;
	k = image_recipe_of(y, n, f, dir, &r, im);
	if (k >= 0)
		im->kind = (enum image_kind)k;
	if (k == IMAGE_INITRAMFS) {
		for (int i = IM_SUITE; i < IM_N; i++)
			if (f[i].val)
				job_yaml_err(
					y, f[i].key_node->start_mark, f[i].key,
					"applies to 'kind: debootstrap' only; remove it or set image.kind: debootstrap");
		image_recipe_release(&r);
		return;
	}
	if (f[IM_SUITE].val) {
		const char *v = job_yaml_scalar(y, f[IM_SUITE].val, "image.suite",
						"a Debian suite such as bookworm");

		if (v && !image_debian_name_ok(v, false))
			job_yaml_err(
				y, f[IM_SUITE].val->start_mark, "image.suite",
				"'%s' is not a suite name; expected a Debian suite such as bookworm",
				job_show(s, v));
		else if (v)
			im->suite = xstrdup(v);
	}
	if (f[IM_PACKAGES].val)
		job_parse_packages(y, f[IM_PACKAGES].val, "image.packages", &im->packages);
	if (f[IM_SIZE].val && job_yaml_size(y, f[IM_SIZE].val, "image.size", &im->size_bytes) &&
	    (im->size_bytes < (512ULL << 20) || im->size_bytes > (1ULL << 40) ||
	     im->size_bytes % (1ULL << 20)))
		job_yaml_err(y, f[IM_SIZE].val->start_mark, "image.size",
			     "%llu bytes; expected a whole number of MiB from 512M to 1T",
			     (unsigned long long)im->size_bytes);
	if (k == IMAGE_DEBOOTSTRAP && r.suite && !im->suite)
		im->suite = xstrdup(r.suite);
	if (k == IMAGE_DEBOOTSTRAP && !im->size_bytes)
		im->size_bytes = r.size_bytes;
	image_recipe_release(&r);
}

void job_parse_collect(struct job_yaml *y, yaml_node_t *n, struct strlist *out)
{
	const char *want = "an absolute path in the guest such as /var/log/syslog";
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, n->start_mark, "collect_files",
			     "got %s; expected a list such as [/var/log/dpkg.log]",
			     job_yaml_kind(n));
		return;
	}
	if (job_yaml_seq_len(n) > JOB_MAX_COLLECT) {
		job_yaml_err(y, n->start_mark, "collect_files", "%zu paths; at most %d allowed",
			     job_yaml_seq_len(n), JOB_MAX_COLLECT);
		return;
	}
	for (size_t i = 0; i < job_yaml_seq_len(n); i++) {
		yaml_node_t *it = job_yaml_seq_item(y, n, i);
		const char *v = job_yaml_scalar(y, it, job_pidx(p, "collect_files", i), want);

		if (!v)
			continue;
		if (!mmpath_ok(v))
			job_yaml_err(y, it->start_mark, p,
				     "'%s' is not a usable path; expected %s "
				     "(at most %d bytes, no control characters, no '.' or '..' "
				     "components, no '//', no trailing '/')",
				     job_show(s, v), want, MMPATH_MAX);
		else
			strlist_push(out, v);
	}
}

/* ---- collectors: ---- */

static bool tracepoint_ok(const char *s)
{
	const char *colon = strchr(s, ':');

	return colon && colon != s && colon[1] && !strchr(colon + 1, ':') &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_:*?[]-") == strlen(s) &&
	       strlen(s) <= 128;
}

enum { CL_TRACEPOINTS, CL_ENABLED, CL_N };

void job_parse_collectors(struct job_yaml *y, yaml_node_t *n, struct job_collectors *jc)
{
	struct job_field f[CL_N] = {
		[CL_TRACEPOINTS] = { .key = "tracepoints" },
		[CL_ENABLED] = { .key = "enabled" },
	};
	const char *want =
		"a tracepoint pattern \"system:event\" such as compaction:* or migrate:mm_migrate_pages";
	char p[PATHLEN], s[SHOWLEN];
	yaml_node_t *tp;

	if (!job_yaml_map(y, n, "collectors",
			  "a mapping such as { tracepoints: [\"compaction:*\"] }", f, CL_N))
		return;
	if (f[CL_ENABLED].val) {
		static const char *const bools[] = { "true", "false", NULL };
		int b = job_yaml_enum(y, f[CL_ENABLED].val, "collectors.enabled", bools);

		jc->disabled = b == 1;
	}
	tp = f[CL_TRACEPOINTS].val;
	if (!tp)
		return;
	if (tp->type == YAML_SCALAR_NODE) {
		const char *v = job_yaml_scalar(y, tp, "collectors.tracepoints", want);

		if (v && !tracepoint_ok(v))
			job_yaml_err(y, tp->start_mark, "collectors.tracepoints",
				     "'%s' is not a tracepoint pattern; expected %s",
				     job_show(s, v), want);
		else if (v)
			strlist_push(&jc->tracepoints, v);
		return;
	}
	if (tp->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, tp->start_mark, "collectors.tracepoints",
			     "got %s; expected a list of %s", job_yaml_kind(tp), want);
		return;
	}
	if (job_yaml_seq_len(tp) > JOB_MAX_TRACEPOINTS) {
		job_yaml_err(y, tp->start_mark, "collectors.tracepoints",
			     "has %zu entries; at most %d patterns", job_yaml_seq_len(tp),
			     JOB_MAX_TRACEPOINTS);
		return;
	}
	for (size_t i = 0; i < job_yaml_seq_len(tp); i++) {
		yaml_node_t *it = job_yaml_seq_item(y, tp, i);
		const char *path = job_pidx(p, "collectors.tracepoints", i);
		const char *v = job_yaml_scalar(y, it, path, want);

		if (v && !tracepoint_ok(v))
			job_yaml_err(y, it->start_mark, path,
				     "'%s' is not a tracepoint pattern; expected %s",
				     job_show(s, v), want);
		else if (v)
			strlist_push(&jc->tracepoints, v);
	}
}

/* ---- timeouts: ---- */

enum { TM_BOOT, TM_ITERATION, TM_N };

void job_parse_timeouts(struct job_yaml *y, yaml_node_t *n, struct job_timeouts *t)
{
	struct job_field f[TM_N] = {
		[TM_BOOT] = { .key = "boot" },
		[TM_ITERATION] = { .key = "iteration" },
	};

	if (!job_yaml_map(y, n, "timeouts", "a mapping such as { boot: 120s, iteration: 10m }", f,
			  TM_N))
		return;
	if (f[TM_BOOT].val)
		job_yaml_duration(y, f[TM_BOOT].val, "timeouts.boot", 3600, &t->boot_s);
	if (f[TM_ITERATION].val)
		t->iteration_given = job_yaml_duration(y, f[TM_ITERATION].val, "timeouts.iteration",
						       7 * 86400, &t->iteration_s);
}
