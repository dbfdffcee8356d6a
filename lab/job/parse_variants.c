// SPDX-License-Identifier: GPL-2.0
/*
 * parse_variants.c - the job's "variants:" (each a kernel, its command
 * line, sysctls and THP settings, or a source variant: a ref and the
 * reverts, cherry-picks and patches applied to it) and "kernels:", the
 * tree and config that source variants are built from (docs/kernels.md).
 */
#include <stdlib.h>
#include <string.h>

#include "job/parse.h"
#include "lib/pkgname.h"
#include "lib/util.h"

#define JOB_SYSCTL_MAX 128 /* sysctl name length */

static const char *const thp_enabled_choices[] = {
	"always",
	"madvise",
	"never",
	NULL,
};
static const char *const thp_defrag_choices[] = {
	"always", "defer", "defer+madvise", "madvise", "never", NULL,
};

static bool sysctl_name_ok(const char *s)
{
	size_t len = strlen(s), seg = 0;
	bool dot = false;

	if (len < 3 || len > JOB_SYSCTL_MAX)
		return false;
	for (size_t i = 0; i <= len; i++) {
		if (s[i] == '.' || !s[i]) {
			if (!seg)
				return false;
			dot |= s[i] == '.';
			seg = 0;
		} else if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789_-",
				  s[i])) {
			seg++;
		} else {
			return false;
		}
	}
	return dot;
}

static void parse_sysctl(struct job_yaml *y, yaml_node_t *n, const char *path, struct kvlist *out)
{
	char p[PATHLEN], s[SHOWLEN];

	if (n->type != YAML_MAPPING_NODE) {
		job_yaml_err(
			y, n->start_mark, path,
			"got %s; expected a mapping of sysctl names to values, e.g. { vm.swappiness: 10 }",
			job_yaml_kind(n));
		return;
	}
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = job_yaml_node(y, pr->key);
		const char *key, *v;

		key = job_yaml_scalar(y, k, path, "a sysctl name such as vm.swappiness");
		if (!key)
			continue;
		job_pkey(p, path, key);
		if (!sysctl_name_ok(key)) {
			job_yaml_err(
				y, k->start_mark, p,
				"'%s' is not a sysctl name; expected dotted words of A-Z a-z 0-9 _ - such as vm.compaction_proactiveness",
				job_show(s, key));
			continue;
		}
		if (kvlist_get(out, key)) {
			job_yaml_err(y, k->start_mark, p, "duplicate key; give each sysctl once");
			continue;
		}
		v = job_yaml_scalar(y, job_yaml_node(y, pr->value), p, "a value such as 20");
		if (v)
			kvlist_set(out, key, v);
	}
}

enum { TH_ENABLED, TH_DEFRAG, TH_N };

static void parse_thp(struct job_yaml *y, yaml_node_t *n, const char *path, struct job_variant *v)
{
	struct job_field f[TH_N] = {
		[TH_ENABLED] = { .key = "enabled" },
		[TH_DEFRAG] = { .key = "defrag" },
	};
	char p[PATHLEN];
	int i;

	if (!job_yaml_map(y, n, path, "a mapping such as { enabled: always, defrag: madvise }", f,
			  TH_N))
		return;
	if (f[TH_ENABLED].val) {
		i = job_yaml_enum(y, f[TH_ENABLED].val, job_pkey(p, path, "enabled"),
				  thp_enabled_choices);
		if (i >= 0)
			v->thp_enabled = xstrdup(thp_enabled_choices[i]);
	}
	if (f[TH_DEFRAG].val) {
		i = job_yaml_enum(y, f[TH_DEFRAG].val, job_pkey(p, path, "defrag"),
				  thp_defrag_choices);
		if (i >= 0)
			v->thp_defrag = xstrdup(thp_defrag_choices[i]);
	}
}

enum { K_PACKAGE, K_VERSION, K_DEB, K_RPM, K_MODULES, K_N };

/* one string of kernel: { ... }: a path (dir given) or a package name/version */
static char *pkg_field(struct job_yaml *y, struct job_field *f, const char *path, const char *dir,
		       const char *want)
{
	char p[PATHLEN], sh[SHOWLEN];
	const char *s = job_yaml_scalar(y, f->val, job_pkey(p, path, f->key), want);

	if (!s)
		return NULL;
	if (!*s) {
		job_yaml_err(y, f->val->start_mark, p, "is empty; expected %s", want);
		return NULL;
	}
	if (dir)
		return job_path(dir, s);
	if (!strcmp(f->key, "package") ? !pkg_name_ok(s) : !pkg_version_ok(s)) {
		job_yaml_err(y, f->val->start_mark, p, "'%s' is not %s", job_show(sh, s), want);
		return NULL;
	}
	return xstrdup(s);
}

/* kernel: { package: NAME, version: V } | { deb: FILE } | { rpm: FILE, modules: FILE } */
static void parse_kernel_pkg(struct job_yaml *y, yaml_node_t *n, const char *path, const char *dir,
			     struct job_variant *v)
{
	struct job_field f[K_N] = {
		[K_PACKAGE] = { .key = "package" }, [K_VERSION] = { .key = "version" },
		[K_DEB] = { .key = "deb" },	    [K_RPM] = { .key = "rpm" },
		[K_MODULES] = { .key = "modules" },
	};
	char p[PATHLEN];
	int given;

	if (!job_yaml_map(y, n, path,
			  "a mapping such as { package: linux-image-6.1.0-52-amd64 }, { deb: FILE } "
			  "or { rpm: FILE }",
			  f, K_N))
		return;
	given = !!f[K_PACKAGE].val + !!f[K_DEB].val + !!f[K_RPM].val;
	if (given != 1) {
		job_yaml_err(y, n->start_mark, path,
			     "%s; give exactly one of package (a Debian package apt fetches), deb "
			     "(a .deb file) or rpm (an .rpm file)",
			     given ? "names more than one kernel" : "names no kernel");
		return;
	}
	if (f[K_VERSION].val && !f[K_PACKAGE].val)
		job_yaml_err(y, f[K_VERSION].key_node->start_mark, job_pkey(p, path, "version"),
			     "goes with 'package:' (the version apt fetches); a file has its own");
	if (f[K_MODULES].val && !f[K_RPM].val)
		job_yaml_err(y, f[K_MODULES].key_node->start_mark, job_pkey(p, path, "modules"),
			     "goes with 'rpm:' (a separate modules rpm such as Fedora's "
			     "kernel-modules); a .deb or apt package carries its modules");
	v->kernel_kind = KERNEL_PACKAGE;
	v->kernel_line = (unsigned int)n->start_mark.line + 1;
	v->kernel_col = (unsigned int)n->start_mark.column + 1;
	if (f[K_PACKAGE].val)
		v->pkg_name = pkg_field(y, &f[K_PACKAGE], path, NULL,
					"a Debian package name such as linux-image-6.1.0-52-amd64");
	if (f[K_VERSION].val && f[K_PACKAGE].val)
		v->pkg_version = pkg_field(y, &f[K_VERSION], path, NULL,
					   "a Debian version such as 6.1.176-1");
	if (f[K_DEB].val)
		v->pkg_deb = pkg_field(y, &f[K_DEB], path, dir, "the path of a .deb file");
	if (f[K_RPM].val)
		v->pkg_rpm = pkg_field(y, &f[K_RPM], path, dir, "the path of an .rpm file");
	if (f[K_MODULES].val && f[K_RPM].val)
		v->pkg_modules = pkg_field(y, &f[K_MODULES], path, dir,
					   "the path of the modules' .rpm file");
}

static void parse_kernel(struct job_yaml *y, yaml_node_t *n, const char *path, const char *dir,
			 struct job_variant *v)
{
	const char *want = "'distro' or the path of a kernel image (bzImage), or a package: "
			   "{ package: NAME }, { deb: FILE } or { rpm: FILE }";
	const char *k;

	if (n->type == YAML_MAPPING_NODE) {
		parse_kernel_pkg(y, n, path, dir, v);
		return;
	}
	k = job_yaml_scalar(y, n, path, want);
	if (!k)
		return;
	if (!*k) {
		job_yaml_err(y, n->start_mark, path, "is empty; expected %s", want);
	} else if (!strcmp(k, "distro")) {
		v->kernel_kind = KERNEL_DISTRO;
	} else {
		v->kernel_kind = KERNEL_PATH;
		v->kernel_path = k[0] == '/' ? xstrdup(k) : xasprintf("%s/%s", dir, k);
		/* the kernel is read later (kernel_resolve_job): its error needs these */
		v->kernel_line = (unsigned int)n->start_mark.line + 1;
		v->kernel_col = (unsigned int)n->start_mark.column + 1;
	}
}

enum { V_NAME, V_KERNEL, V_CMDLINE, V_SYSCTL, V_THP, V_REF, V_REVERT, V_PICK, V_APPLY, V_N };

/* ref: and the operations on it: a variant built from kernels.tree */
static void parse_source_ops(struct job_yaml *y, struct job_field *f, const char *path,
			     const char *dir, struct job_variant *v)
{
	char p[PATHLEN];
	const char *s;

	if (f[V_REF].val && f[V_KERNEL].val) {
		job_yaml_err(
			y, f[V_REF].key_node->start_mark, job_pkey(p, path, "ref"),
			"a variant has either 'kernel:' (a prebuilt kernel) or 'ref:' (built from "
			"kernels.tree), not both; remove one");
	} else if (f[V_REF].val) {
		s = job_yaml_scalar(y, f[V_REF].val, job_pkey(p, path, "ref"),
				    "a git ref (tag, branch, commit)");
		if (s && !*s)
			job_yaml_err(y, f[V_REF].val->start_mark, p,
				     "is empty; expected a git ref");
		else if (s && s[0] == '-')
			job_yaml_err(
				y, f[V_REF].val->start_mark, p,
				"'%s' starts with '-'; expected a git ref (tag, branch, commit)",
				s);
		else if (s)
			v->ref = xstrdup(s);
		v->kernel_kind = KERNEL_SOURCE;
	}
	if (f[V_REVERT].val)
		job_yaml_str_list(y, f[V_REVERT].val, job_pkey(p, path, "revert"), "a commit", NULL,
				  &v->revert);
	if (f[V_PICK].val)
		job_yaml_str_list(y, f[V_PICK].val, job_pkey(p, path, "cherry_pick"), "a commit",
				  NULL, &v->cherry_pick);
	if (f[V_APPLY].val)
		job_yaml_str_list(y, f[V_APPLY].val, job_pkey(p, path, "apply"),
				  "the path of a patch file", dir, &v->apply);
	for (int i = V_REVERT; i <= V_APPLY; i++)
		if (f[i].val && !f[V_REF].val)
			job_yaml_err(
				y, f[i].key_node->start_mark, job_pkey(p, path, f[i].key),
				"needs 'ref:' in the same variant (the commit the operations start "
				"from); add e.g. 'ref: v6.4-rc2'");
}

static yaml_node_t *parse_variant(struct job_yaml *y, yaml_node_t *n, const char *path,
				  const char *dir, struct job_variant *v)
{
	struct job_field f[V_N] = {
		[V_NAME] = { .key = "name" },	    [V_KERNEL] = { .key = "kernel" },
		[V_CMDLINE] = { .key = "cmdline" }, [V_SYSCTL] = { .key = "sysctl" },
		[V_THP] = { .key = "thp" },	    [V_REF] = { .key = "ref" },
		[V_REVERT] = { .key = "revert" },   [V_PICK] = { .key = "cherry_pick" },
		[V_APPLY] = { .key = "apply" },
	};
	char p[PATHLEN];
	const char *s;

	if (!job_yaml_map(y, n, path, "a mapping with name, kernel, cmdline, sysctl, thp, ref, ...",
			  f, V_N))
		return NULL;
	if (f[V_NAME].val)
		v->name = job_yaml_name(y, f[V_NAME].val, job_pkey(p, path, "name"));
	else
		job_yaml_missing(y, n, path, "name", "base");
	v->kernel_kind = KERNEL_DISTRO;
	if (f[V_KERNEL].val)
		parse_kernel(y, f[V_KERNEL].val, job_pkey(p, path, "kernel"), dir, v);
	if (f[V_CMDLINE].val) {
		s = job_yaml_scalar(y, f[V_CMDLINE].val, job_pkey(p, path, "cmdline"),
				    "a string of kernel arguments");
		if (s && *s)
			v->cmdline = xstrdup(s);
	}
	if (f[V_SYSCTL].val)
		parse_sysctl(y, f[V_SYSCTL].val, job_pkey(p, path, "sysctl"), &v->sysctl);
	if (f[V_THP].val)
		parse_thp(y, f[V_THP].val, job_pkey(p, path, "thp"), v);
	parse_source_ops(y, f, path, dir, v);
	return v->name ? f[V_NAME].val : NULL;
}

void job_parse_variants(struct job_yaml *y, yaml_node_t *n, struct job *job)
{
	yaml_node_t **names;
	size_t len;
	char p[PATHLEN], q[PATHLEN];

	if (n->type != YAML_SEQUENCE_NODE) {
		job_yaml_err(y, n->start_mark, "variants",
			     "got %s; expected a list of 1..%d variants (- name: ...)",
			     job_yaml_kind(n), JOB_MAX_VARIANTS);
		return;
	}
	len = job_yaml_seq_len(n);
	if (len < 1 || len > JOB_MAX_VARIANTS) {
		job_yaml_err(y, n->start_mark, "variants",
			     "has %zu entries; expected 1..%d variants", len, JOB_MAX_VARIANTS);
		return;
	}
	job->variants = xcalloc(len, sizeof(*job->variants));
	job->nvariants = len;
	names = xcalloc(len, sizeof(*names));
	for (size_t i = 0; i < len; i++) {
		names[i] = parse_variant(y, job_yaml_seq_item(y, n, i), job_pidx(p, "variants", i),
					 job->dir, &job->variants[i]);
		for (size_t j = 0; names[i] && j < i; j++) {
			if (!names[j] || strcmp(job->variants[i].name, job->variants[j].name))
				continue;
			job_yaml_err(
				y, names[i]->start_mark, job_pkey(q, p, "name"),
				"'%s' is already the name of variants[%zu]; give each variant a unique name",
				job->variants[i].name, j);
			break;
		}
	}
	free(names);
}

/* ---- kernels: ---- */

static const char *const config_bases[] = { "tinyconfig", "defconfig", "distro", NULL };

static void parse_kconfig(struct job_yaml *y, yaml_node_t *n, const char *dir,
			  struct job_kernels *k)
{
	struct job_field f[] = { { .key = "base" }, { .key = "fragments" } };
	const char *want = "tinyconfig, defconfig, distro or the path of a .config";
	const char *s;

	if (!job_yaml_map(y, n, "kernels.config", "a mapping with base, fragments", f, 2))
		return;
	if (f[0].val && (s = job_yaml_scalar(y, f[0].val, "kernels.config.base", want))) {
		bool named = false;

		for (size_t i = 0; config_bases[i]; i++)
			named |= !strcmp(s, config_bases[i]);
		if (!*s)
			job_yaml_err(y, f[0].val->start_mark, "kernels.config.base",
				     "is empty; expected %s", want);
		else
			k->config_base = named ? xstrdup(s) : job_path(dir, s);
	}
	if (f[1].val)
		job_yaml_str_list(y, f[1].val, "kernels.config.fragments",
				  "the path of a config fragment", dir, &k->fragments);
}

void job_parse_kernels(struct job_yaml *y, yaml_node_t *n, const char *dir, struct job_kernels *k)
{
	struct job_field f[] = { { .key = "tree" }, { .key = "config" } };
	const char *s;

	if (!job_yaml_map(y, n, "kernels", "a mapping with tree, config", f, 2))
		return;
	if (!f[0].val)
		job_yaml_missing(y, n, "kernels", "tree", "~/src/linux");
	else if ((s = job_yaml_scalar(y, f[0].val, "kernels.tree",
				      "the path of a git kernel tree"))) {
		if (!*s)
			job_yaml_err(y, f[0].val->start_mark, "kernels.tree",
				     "is empty; expected the path of a git kernel tree");
		else
			k->tree = job_path(dir, s);
	}
	if (f[1].val)
		parse_kconfig(y, f[1].val, dir, k);
	if (!k->config_base)
		k->config_base = xstrdup("tinyconfig");
}
