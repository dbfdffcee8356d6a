// SPDX-License-Identifier: GPL-2.0
/*
 * gitops.c - git operations for kernel variants, run through spawn_run()
 * with argv arrays.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/gitops.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#define GIT_TIMEOUT_S 1800
#define GIT_ARGS_MAX 24

const char *const git_lab_env[] = {
	"GIT_AUTHOR_NAME=mmlab",
	"GIT_AUTHOR_EMAIL=mmlab@localhost",
	"GIT_COMMITTER_NAME=mmlab",
	"GIT_COMMITTER_EMAIL=mmlab@localhost",
	"GIT_EDITOR=true",
	"GIT_TERMINAL_PROMPT=0",
	"LC_ALL=C",
	NULL,
};

const char *src_op_name(enum src_op_kind k)
{
	switch (k) {
	case SRC_OP_REVERT:
		return "revert";
	case SRC_OP_CHERRY_PICK:
		return "cherry_pick";
	case SRC_OP_APPLY:
		return "apply";
	}
	return "?";
}

int git_run(const char *dir, const char *const args[], struct spawn_result *r)
{
	const char *argv[GIT_ARGS_MAX + 4] = { "git", "-C", dir };
	struct spawn_opts o = { .env = git_lab_env, .timeout_s = GIT_TIMEOUT_S };
	size_t n = 3;

	for (size_t i = 0; args[i] && n < ARRAY_SIZE(argv) - 1; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return spawn_run(argv, &o, r);
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
		s[--n] = '\0';
}

char *git_out(const char *dir, const char *const args[])
{
	struct spawn_result r;
	char *out = NULL;

	if (git_run(dir, args, &r) == 0) {
		chomp(r.out);
		out = xstrndup(r.out, strcspn(r.out, "\n"));
	} else {
		chomp(r.out);
		lab_err("git %s in %s failed: %s", args[0], dir, *r.out ? r.out : "no output");
	}
	spawn_result_free(&r);
	return out;
}

char *git_resolve_commit(const char *dir, const char *rev, const char *what)
{
	char *spec = xasprintf("%s^{commit}", rev);
	const char *args[] = { "rev-parse", "-q", "--verify", "--end-of-options", spec, NULL };
	struct spawn_result r;
	char *out = NULL;

	if (rev[0] == '-') {
		lab_err("%s: '%s' is not a commit (it starts with '-')", what, rev);
	} else if (git_run(dir, args, &r) == 0) {
		chomp(r.out);
		out = xstrdup(r.out);
		spawn_result_free(&r);
	} else {
		lab_err("%s: '%s' is not a commit in %s; give a tag, branch or commit id "
			"that 'git -C %s rev-parse' knows",
			what, rev, dir, dir);
		spawn_result_free(&r);
	}
	free(spec);
	return out;
}

int patch_is_mbox(const char *path)
{
	char buf[6] = "";
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(buf, 1, 5, f);
	fclose(f);
	return n == 5 && !memcmp(buf, "From ", 5);
}

int src_ops_resolve(const char *tree, struct src_op *ops, size_t nops, const char *variant)
{
	for (size_t i = 0; i < nops; i++) {
		char *what =
			xasprintf("variant '%s': %s[%zu]", variant, src_op_name(ops[i].kind), i);
		char hex[65];

		free(ops[i].resolved);
		ops[i].resolved = NULL;
		if (ops[i].kind == SRC_OP_APPLY) {
			if (sha256_file(ops[i].arg, hex) == 0)
				ops[i].resolved = xasprintf("sha256:%s", hex);
		} else {
			ops[i].resolved = git_resolve_commit(tree, ops[i].arg, what);
		}
		free(what);
		if (!ops[i].resolved)
			return -1;
	}
	return 0;
}

/* abort whatever is in progress and put wt back at commit, clean */
static int src_reset(const char *wt, const char *commit)
{
	const char *am[] = { "am", "--abort", NULL };
	const char *cp[] = { "cherry-pick", "--abort", NULL };
	const char *rv[] = { "revert", "--abort", NULL };
	const char *reset[] = { "reset", "-q", "--hard", NULL };
	const char *clean[] = { "clean", "-q", "-f", "-d", NULL };
	const char *co[] = { "checkout", "-q", "--detach", commit, NULL };
	struct spawn_result r;
	int ret = 0;

	git_run(wt, am, NULL);
	git_run(wt, cp, NULL);
	git_run(wt, rv, NULL);
	if (git_run(wt, reset, &r) || (spawn_result_free(&r), git_run(wt, clean, &r)) ||
	    (spawn_result_free(&r), git_run(wt, co, &r))) {
		chomp(r.out);
		lab_err("cannot reset the lab worktree %s to %s: %s; remove it ('git worktree "
			"remove --force %s') and retry",
			wt, commit, r.out, wt);
		ret = -1;
	}
	spawn_result_free(&r);
	return ret;
}

char *git_reason(const char *out)
{
	static const char *const pfx[] = { "error: ", "fatal: ", "CONFLICT", "Patch failed" };
	struct strbuf why = STRBUF_INIT;
	const char *p = out;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		for (size_t i = 0; i < ARRAY_SIZE(pfx); i++) {
			if (strncmp(p, pfx[i], strlen(pfx[i])))
				continue;
			if (why.len)
				strbuf_addstr(&why, "; ");
			strbuf_add(&why, p, len);
			break;
		}
		p = eol ? eol + 1 : NULL;
	}
	if (why.len)
		return strbuf_detach(&why);
	return xstrdup(out && *out ? out : "no output");
}

/* the output of a git command in dir, or NULL without a message */
static char *git_quiet(const char *dir, const char *const args[])
{
	struct spawn_result r;
	char *out = NULL;

	if (git_run(dir, args, &r) == 0) {
		chomp(r.out);
		out = xstrndup(r.out, strcspn(r.out, "\n"));
	}
	spawn_result_free(&r);
	return out;
}

/*
 * The lab worktree belongs to another repository, or to one that was
 * removed or made anew at the same path (its .git/worktrees entry is gone).
 * It is the lab's own, under the cache: drop it and add it again.
 */
static bool worktree_stale(const char *tree, const char *wt)
{
	const char *args[] = { "rev-parse", "--path-format=absolute", "--git-common-dir", NULL };
	char *a, *b;
	bool stale;

	if (!is_dir(wt))
		return false;
	a = git_quiet(wt, args);
	b = git_quiet(tree, args);
	stale = !a || !b || strcmp(a, b);
	free(a);
	free(b);
	return stale;
}

/* the lab worktree holds exactly tree_id (HEAD's tree, nothing changed) */
static int src_verify(const char *wt, const char *commit, const char *tree_id, const char *variant)
{
	const char *status[] = { "status", "--porcelain", "--untracked-files=all", NULL };
	char *head = src_tree_id(wt);
	struct spawn_result r;
	int ret = -1;

	if (!head)
		return -1;
	if (strcmp(head, tree_id)) {
		lab_err("variant '%s': the lab worktree %s holds the tree %.12s after checking "
			"out %.12s, not the tree %.12s mmlab worked out for the variant; refusing "
			"to build it. Remove the worktree ('git worktree remove --force %s') and "
			"retry",
			variant, wt, head, commit, tree_id, wt);
	} else if (git_run(wt, status, &r) || *r.out) {
		chomp(r.out);
		lab_err("variant '%s': the lab worktree %s is not clean after checking out %.12s "
			"(%s); refusing to build it. Remove the worktree ('git worktree remove "
			"--force %s') and retry",
			variant, wt, commit, *r.out ? r.out : "git status failed", wt);
		spawn_result_free(&r);
	} else {
		spawn_result_free(&r);
		ret = 0;
	}
	free(head);
	return ret;
}

int src_checkout(const char *tree, const char *wt, const char *commit, const char *tree_id,
		 const char *variant)
{
	if (worktree_stale(tree, wt)) {
		lab_warn("the lab worktree %s no longer belongs to %s (the repository was "
			 "made anew?); making it again",
			 wt, tree);
		if (rm_rf(wt))
			return -1;
	}
	if (!is_dir(wt)) {
		const char *add[] = { "worktree", "add", "-q", "--detach", wt, commit, NULL };
		const char *prune[] = { "worktree", "prune", NULL };
		struct spawn_result r;

		git_run(tree, prune, NULL);
		lab_info("variant '%s': checking out %.12s into the lab worktree %s", variant,
			 commit, wt);
		if (git_run(tree, add, &r)) {
			chomp(r.out);
			lab_err("cannot add a git worktree of %s at %s: %s", tree, wt, r.out);
			spawn_result_free(&r);
			return -1;
		}
		spawn_result_free(&r);
	} else if (src_reset(wt, commit)) {
		return -1;
	}
	return src_verify(wt, commit, tree_id, variant);
}

char *src_tree_id(const char *wt)
{
	const char *args[] = { "rev-parse", "HEAD^{tree}", NULL };

	return git_out(wt, args);
}
