// SPDX-License-Identifier: GPL-2.0
/*
 * kmemo.c - the kernel cache's memos (kmemo.h): small files naming an
 * entry's key, so that a known request or a tree built before is answered
 * without a checkout, Kconfig or make.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel/build.h"
#include "kernel/bzimage.h"
#include "kernel/kmemo.h"
#include "lib/strbuf.h"

static char *kdir(const char *cache_dir, const char *sub)
{
	return xasprintf("%s/kernels/%s", cache_dir, sub);
}

/* the request's identity: everything that determines the key */
char *kmemo_request_hash(const struct kcache_req *q, const char *git_dir, const char *base_commit)
{
	struct strlist parts = { 0 };
	char hex[65], *all = NULL;
	size_t len = 0;

	strlist_pushf(&parts, "git %s\ncommit %s\nbase %s\ncc %s\n", git_dir, base_commit,
		      q->config_base, kbuild_cc_version());
	for (size_t i = 0; i < q->nops; i++)
		strlist_pushf(&parts, "op %s %s\n", src_op_name(q->ops[i].kind),
			      q->ops[i].resolved);
	for (size_t i = 0; i < q->nfragments; i++) {
		if (sha256_file(q->fragments[i], hex)) {
			strlist_free(&parts);
			return NULL;
		}
		strlist_pushf(&parts, "fragment %s\n", hex);
	}
	if (strcmp(q->config_base, "tinyconfig") && strcmp(q->config_base, "defconfig") &&
	    strcmp(q->config_base, "distro") && sha256_file(q->config_base, hex) == 0)
		strlist_pushf(&parts, "base-file %s\n", hex);
	for (size_t i = 0; i < parts.n; i++) {
		size_t l = strlen(parts.v[i]);

		all = xrealloc(all, len + l + 1);
		memcpy(all + len, parts.v[i], l + 1);
		len += l;
	}
	sha256_buf(all, len, hex);
	free(all);
	strlist_free(&parts);
	return xstrdup(hex);
}

/* the key a memo (requests/, trees/) names, or NULL */
char *kmemo_read(const char *path)
{
	char *k = path_exists(path) ? read_file(path, NULL, 128) : NULL;

	if (k)
		k[strcspn(k, "\n")] = '\0';
	return k;
}

void kmemo_write(const char *path, const char *key)
{
	char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));

	if (mkdir_p(dir, 0755) == 0) {
		char *k = xasprintf("%s\n", key);

		write_file_atomic(path, k, strlen(k), 0644);
		free(k);
	}
	free(dir);
}

bool kmemo_named_base(const char *base)
{
	return !strcmp(base, "tinyconfig") || !strcmp(base, "defconfig") ||
	       !strcmp(base, "allnoconfig");
}

/*
 * trees/<sha256 of the tree, the config recipe's contents and the
 * compiler>: what the final .config, and so the key, follow from. NULL +
 * message when a config file cannot be read.
 */
char *kmemo_tree_path(const char *cache_dir, const struct kcache_req *q, const char *tree_id)
{
	struct strbuf s = STRBUF_INIT;
	char hex[65], *path = NULL, *from = NULL;

	strbuf_addf(&s, "tree %s\nbase %s\n", tree_id, q->config_base);
	if (!kmemo_named_base(q->config_base)) {
		from = strcmp(q->config_base, "distro") ? xstrdup(q->config_base) :
							  kernel_distro_config();
		if (!from || sha256_file(from, hex))
			goto out;
		strbuf_addf(&s, "base-file %s\n", hex);
	}
	for (size_t i = 0; i < q->nfragments; i++) {
		if (sha256_file(q->fragments[i], hex))
			goto out;
		strbuf_addf(&s, "fragment %s\n", hex);
	}
	strbuf_addf(&s, "cc %s\n", kbuild_cc_version());
	sha256_buf(s.buf, s.len, hex);
	path = xasprintf("%s/kernels/trees/%s", cache_dir, hex);
out:
	strbuf_release(&s);
	free(from);
	return path;
}

/* remove the memos under kernels/SUB/ whose entry is gone */
void kmemo_drop_stale(const char *cache_dir, const char *sub)
{
	char *dir = kdir(cache_dir, sub);
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		char *p, *k, *ed;

		if (e->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, e->d_name);
		k = kmemo_read(p);
		if (k) {
			ed = xasprintf("%s/kernels/entries/%s", cache_dir, k);
			if (!*k || strchr(k, '/') || !is_dir(ed))
				unlink(p);
			free(ed);
		}
		free(k);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}
