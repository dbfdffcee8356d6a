// SPDX-License-Identifier: GPL-2.0
/*
 * test_srctree.c - a variant's source tree worked out in git's object
 * database (kernel/srctree.h) against what git itself makes in a checkout
 * (git revert, git cherry-pick --allow-empty, git am --no-3way --keep-cr,
 * git apply --index: what mmlab ran before), on a small real repository:
 * the same tree ids, so cache keys do not change. Conflicts, patches that
 * do not apply, merge commits, root commits, empty results and cover
 * letters are clear errors that leave the repository as it was; the
 * checkout for a build holds exactly the tree and refuses anything else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "kernel/gitops.h"
#include "kernel/srctree.h"
#include "lib/spawn.h"
#include "lib/util.h"

#include "capture.h"

/*
 * base: a.c, b.c, dir/c.c (40 lines); c1, c2: a.c; c3: b.c and a new d.c;
 * side (from c3): s1 changes line 20 of dir/c.c; c4 (on c3) renames
 * dir/c.c to dir/e.c; merge: side merged into c4; empty: no change;
 * orphan: a root commit with o.c only; c5 (on empty): b.c executable, a
 * binary bin.dat; c6: two/a, two/b; c7: two/a moved to three/a (move.diff:
 * a deletion and a creation). Patches next to the repository.
 */
static const char fixture[] =
	"set -e; mkdir -p \"$1\"; cd \"$1\"; git init -q -b m .;"
	"export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t "
	"GIT_COMMITTER_EMAIL=t@t;"
	"mkdir dir; printf 'int a = 1;\\n' > a.c; printf 'x\\n' > b.c; seq 1 40 > dir/c.c;"
	"git add .; git commit -qm base; git tag base;"
	"printf 'int a = 2;\\n' > a.c; git commit -qam c1; git tag c1;"
	"printf 'int a = 3;\\n' > a.c; git commit -qam c2; git tag c2;"
	"printf 'y\\n' > b.c; printf 'new\\n' > d.c; git add d.c; git commit -qam c3; git tag c3;"
	"git checkout -q -b side; sed -i 's/^20$/twenty/' dir/c.c; git commit -qam s1;"
	"git tag s1; git checkout -q m; git mv dir/c.c dir/e.c; git commit -qm c4; git tag c4;"
	"git merge -q --no-ff -m merge side; git tag merge;"
	"git commit -q --allow-empty -m empty; git tag empty;"
	"git checkout -q --orphan o; git rm -rqf .; printf 'o\\n' > o.c; git add o.c;"
	"git commit -qm orphan; git tag orphan; git checkout -q m; git branch -qD o;"
	"chmod +x b.c; printf 'a\\000b\\001' > bin.dat; git add bin.dat; git commit -qam c5;"
	"git tag c5; mkdir two; printf '1\\n' > two/a; printf '2\\n' > two/b; git add two;"
	"git commit -qm c6; git tag c6; mkdir three; git mv two/a three/a; git commit -qm c7;"
	"git tag c7;"
	"git diff base c1 > ../c1.diff; git format-patch -q --stdout base..c1 > ../c1.mbox;"
	"git format-patch -q --stdout base..c3 > ../c1-c3.mbox;"
	"cat ../c1.mbox ../c1.mbox > ../twice.mbox;"
	"git format-patch -q --stdout c3..c4 > ../rename.mbox;"
	"git format-patch -q --stdout empty..c5 > ../binary.mbox;"
	"git format-patch -q --stdout c2..c3 > ../c3.mbox;"
	"git diff --no-renames c6 c7 > ../move.diff;"
	"git format-patch -q --cover-letter --stdout base..c1 > ../cover.mbox;"
	/* c1's mail as quoted-printable: mailinfo must decode it as git am does */
	"sed -e 's/^\\(Subject: .*\\)$/\\1\\nMIME-Version: 1.0\\nContent-Type: text\\/plain; "
	"charset=UTF-8\\nContent-Transfer-Encoding: quoted-printable/' -e 's/ = / =3D /g' "
	"../c1.mbox > ../qp.mbox;"
	"cd ..; git clone -q repo ref";

struct fx {
	char top[32];
	char *repo, *ref, *git_dir;
};

static int setup(void **state)
{
	struct fx *f = xcalloc(1, sizeof(*f));
	const char *argv[] = { "sh", "-c", fixture, "sh", NULL, NULL };

	strcpy(f->top, "/tmp/mmlab-srctree-XXXXXX");
	assert_non_null(mkdtemp(f->top));
	f->repo = xasprintf("%s/repo", f->top);
	f->ref = xasprintf("%s/ref", f->top);
	f->git_dir = xasprintf("%s/.git", f->repo);
	argv[4] = f->repo;
	assert_int_equal(spawn_run(argv, NULL, NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	rm_rf(f->top);
	free(f->repo);
	free(f->ref);
	free(f->git_dir);
	free(f);
	return 0;
}

static char *at(const struct fx *f, const char *name)
{
	return xasprintf("%s/%s", f->top, name);
}

static void git_ok(const char *dir, const char *const args[])
{
	struct spawn_result r;
	int rc = git_run(dir, args, &r);

	if (rc)
		print_error("git %s in %s: %s\n", args[0], dir, r.out);
	spawn_result_free(&r);
	assert_int_equal(rc, 0);
}

/* what git makes of ops on base in the clone, as mmlab did in its worktree */
static char *git_tree(const struct fx *f, const char *base, const struct src_op *ops, size_t n)
{
	const char *co[] = { "checkout", "-q", "--detach", base, NULL };
	const char *tree[] = { "rev-parse", "HEAD^{tree}", NULL };

	git_ok(f->ref, co);
	for (size_t i = 0; i < n; i++) {
		const char *revert[] = { "revert", "--no-edit", ops[i].resolved, NULL };
		const char *pick[] = { "cherry-pick", "--allow-empty", ops[i].resolved, NULL };
		const char *am[] = { "am", "--no-3way", "--keep-cr", ops[i].arg, NULL };
		const char *apply[] = { "apply", "--index", ops[i].arg, NULL };
		const char *commit[] = { "commit", "-q", "-m", "patch", NULL };

		if (ops[i].kind == SRC_OP_REVERT) {
			git_ok(f->ref, revert);
		} else if (ops[i].kind == SRC_OP_CHERRY_PICK) {
			git_ok(f->ref, pick);
		} else if (patch_is_mbox(ops[i].arg)) {
			git_ok(f->ref, am);
		} else {
			git_ok(f->ref, apply);
			git_ok(f->ref, commit);
		}
	}
	return git_out(f->ref, tree);
}

static char *commit_of(const struct fx *f, const char *rev)
{
	char *c = git_resolve_commit(f->repo, rev, "test");

	assert_non_null(c);
	return c;
}

/* src_tree() of ops on base: 0 and the tree, or -1 and NULL; msg gets stderr */
static char *computed(const struct fx *f, const char *base, struct src_op *ops, size_t n,
		      char **msg)
{
	char *b = commit_of(f, base), *tree = NULL;
	struct capture c;
	int rc;

	assert_int_equal(src_ops_resolve(f->repo, ops, n, "v"), 0);
	capture_start(&c);
	rc = src_tree(f->git_dir, b, ops, n, "v", &tree);
	*msg = capture_end(&c);
	assert_int_equal(rc, tree ? 0 : -1);
	free(b);
	return tree;
}

static void free_ops(struct src_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ops[i].resolved);
		ops[i].resolved = NULL;
	}
}

/* ops on base: src_tree() gives the tree git gives */
static void same_as_git(const struct fx *f, const char *base, struct src_op *ops, size_t n)
{
	char *msg, *got = computed(f, base, ops, n, &msg), *want;

	if (!got)
		print_error("src_tree failed: %s\n", msg);
	assert_non_null(got);
	want = git_tree(f, base, ops, n);
	assert_string_equal(got, want);
	free(got);
	free(want);
	free(msg);
	free_ops(ops, n);
}

static void test_same_as_git(void **state)
{
	struct fx *f = *state;
	char *c1diff = at(f, "c1.diff"), *c1mbox = at(f, "c1.mbox");
	char *series = at(f, "c1-c3.mbox"), *qp = at(f, "qp.mbox");
	char *rename = at(f, "rename.mbox"), *binary = at(f, "binary.mbox");
	char *move = at(f, "move.diff");
	struct src_op ops[4];

	/* revert the top commit: its parent's tree */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	same_as_git(f, "c2", ops, 1);
	/* revert an older commit that does not conflict */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c3" };
	same_as_git(f, "c4", ops, 1);
	/* cherry-pick across a rename: s1 changes dir/c.c, c4 has it as dir/e.c */
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "s1" };
	same_as_git(f, "c4", ops, 1);
	/* an empty commit cherry-picks to the same tree (--allow-empty) */
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "empty" };
	same_as_git(f, "c1", ops, 1);
	/* a root commit: cherry-picked (adds o.c), then reverted (removes it) */
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "orphan" };
	same_as_git(f, "c2", ops, 1);
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "orphan" };
	ops[1] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "orphan" };
	same_as_git(f, "c2", ops, 2);
	/* a plain diff, an mbox, a three-patch mbox, a quoted-printable mail */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = c1diff };
	same_as_git(f, "base", ops, 1);
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = c1mbox };
	same_as_git(f, "base", ops, 1);
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = series };
	same_as_git(f, "base", ops, 1);
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = qp };
	same_as_git(f, "base", ops, 1);
	/* a rename, a mode change and a binary file */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = rename };
	same_as_git(f, "c3", ops, 1);
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = binary };
	same_as_git(f, "empty", ops, 1);
	/* two/ loses its only patched file: two/b stays (no directory rename) */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = move };
	same_as_git(f, "c6", ops, 1);
	/* in order: revert, cherry-pick, apply, each on the one before */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	ops[1] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c1" };
	ops[2] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "s1" };
	ops[3] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = c1diff };
	same_as_git(f, "c2", ops, 4);
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	ops[1] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c1" };
	ops[2] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = series };
	same_as_git(f, "c2", ops, 3);
	free(c1diff);
	free(c1mbox);
	free(series);
	free(qp);
	free(rename);
	free(binary);
	free(move);
}

/* which gits src_tree() ran for ops on base (GIT_TRACE), its tree equal to git's */
static char *traced(const struct fx *f, const char *base, struct src_op *ops, size_t n)
{
	char *trace = at(f, "trace"), *msg, *tree, *want, *log;

	unlink(trace);
	setenv("GIT_TRACE", trace, 1);
	tree = computed(f, base, ops, n, &msg);
	unsetenv("GIT_TRACE");
	want = git_tree(f, base, ops, n);
	assert_non_null(tree);
	assert_string_equal(tree, want);
	log = read_file(trace, NULL, 1 << 20);
	assert_non_null(log);
	free(trace);
	free(msg);
	free(tree);
	free(want);
	free_ops(ops, n);
	return log;
}

/*
 * A patch goes to an index of only the paths it names (no git read-tree
 * of the whole tree); a rename, whose source that index lacks, takes the
 * full way, and both give git's tree.
 */
static void test_partial_index(void **state)
{
	struct fx *f = *state;
	char *series = at(f, "c1-c3.mbox"), *rename = at(f, "rename.mbox"), *log;
	struct src_op ops[1];

	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = series };
	log = traced(f, "base", ops, 1);
	assert_null(strstr(log, "git read-tree"));
	assert_non_null(strstr(log, "git update-index -z --index-info"));
	free(log);
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = rename };
	log = traced(f, "c3", ops, 1);
	assert_non_null(strstr(log, "git read-tree"));
	free(log);
	free(series);
	free(rename);
}

/* what must not change when a variant fails: HEAD, status, the index, worktrees */
struct repo_state {
	char *head, *status;
	struct timespec index_mtime;
	bool worktrees;
};

static void repo_state(const struct fx *f, struct repo_state *s)
{
	const char *head[] = { "rev-parse", "HEAD", NULL };
	struct spawn_result r;
	/* a status that never refreshes the index (that would change its mtime) */
	const char *status[] = { "--no-optional-locks", "status", "--porcelain", NULL };
	char *idx = xasprintf("%s/index", f->git_dir), *wts = xasprintf("%s/worktrees", f->git_dir);
	struct stat st;

	s->head = git_out(f->repo, head);
	assert_int_equal(git_run(f->repo, status, &r), 0);
	s->status = xstrdup(r.out);
	spawn_result_free(&r);
	assert_int_equal(stat(idx, &st), 0);
	s->index_mtime = st.st_mtim;
	s->worktrees = is_dir(wts);
	free(idx);
	free(wts);
}

static void assert_untouched(const struct fx *f, struct repo_state *before)
{
	struct repo_state now;

	repo_state(f, &now);
	assert_string_equal(now.head, before->head);
	assert_string_equal(now.status, before->status);
	assert_string_equal(now.status, "");
	assert_true(now.index_mtime.tv_sec == before->index_mtime.tv_sec &&
		    now.index_mtime.tv_nsec == before->index_mtime.tv_nsec);
	assert_false(now.worktrees);
	free(now.head);
	free(now.status);
}

/* ops on base fail with a message holding every string of want[] */
static void fails(const struct fx *f, const char *base, struct src_op *ops, size_t n,
		  const char *const want[])
{
	struct repo_state before;
	char *msg, *tree;

	repo_state(f, &before);
	tree = computed(f, base, ops, n, &msg);
	assert_null(tree);
	for (size_t i = 0; want[i]; i++) {
		if (!strstr(msg, want[i]))
			print_error("'%s' not in: %s\n", want[i], msg);
		assert_non_null(strstr(msg, want[i]));
	}
	assert_true(strchr(msg, '\n') == strrchr(msg, '\n')); /* one message */
	assert_untouched(f, &before);
	free(before.head);
	free(before.status);
	free(msg);
	free_ops(ops, n);
}

static void test_errors(void **state)
{
	struct fx *f = *state;
	char *c1mbox = at(f, "c1.mbox"), *twice = at(f, "twice.mbox");
	char *cover = at(f, "cover.mbox"), *c3mbox = at(f, "c3.mbox");
	struct src_op ops[2];

	/* reverting c1 on c2 conflicts in a.c */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c1" };
	fails(f, "c2", ops, 1,
	      (const char *const[]){ "variant 'v': revert c1 failed in a.c",
				     "CONFLICT (content): Merge conflict in a.c", "untouched",
				     "Rebase the commit onto the variant's ref or drop it", NULL });
	/* the second operation conflicts on the first one's result */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	ops[1] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "c2" };
	same_as_git(f, "c2", ops, 2);
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	ops[1] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	fails(f, "c2", ops, 2, (const char *const[]){ "revert c2 changes nothing", NULL });
	/* c1's patch does not apply on c2 */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = c1mbox };
	fails(f, "c2", ops, 1,
	      (const char *const[]){ "apply ", "c1.mbox failed in a.c", "patch does not apply",
				     "message 1 of 1: c1", "Rebase the patch", NULL });
	/* the second message of an mbox does not apply after the first */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = twice };
	fails(f, "base", ops, 1,
	      (const char *const[]){ "twice.mbox failed in a.c", "message 2 of 2: c1", NULL });
	/* a cover letter has no patch: git am stops there too */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = cover };
	fails(f, "base", ops, 1,
	      (const char *const[]){ "message 1 of 2", "has no patch (a cover letter?)", NULL });
	/* a patch creating a file the tree has */
	ops[0] = (struct src_op){ .kind = SRC_OP_APPLY, .arg = c3mbox };
	fails(f, "c3", ops, 1,
	      (const char *const[]){ "c3.mbox failed in b.c, d.c", "already exists in index",
				     NULL });
	/* a merge commit */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "merge" };
	fails(f, "merge", ops, 1,
	      (const char *const[]){ "is a merge commit (2 parents)", "git diff", NULL });
	/* a revert of what the source does not have, a pick of what it has */
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "c2" };
	fails(f, "c1", ops, 1, (const char *const[]){ "revert c2 changes nothing", NULL });
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "c1" };
	fails(f, "c2", ops, 1, (const char *const[]){ "cherry_pick c1", "failed in a.c", NULL });
	ops[0] = (struct src_op){ .kind = SRC_OP_CHERRY_PICK, .arg = "c3" };
	fails(f, "c3", ops, 1,
	      (const char *const[]){ "cherry_pick c3 changes nothing", "in the source already",
				     NULL });
	ops[0] = (struct src_op){ .kind = SRC_OP_REVERT, .arg = "empty" };
	fails(f, "empty", ops, 1, (const char *const[]){ "revert empty changes nothing", NULL });
	free(c1mbox);
	free(twice);
	free(cover);
	free(c3mbox);
}

/* the checkout for a build: the commit of the tree, verified, refused when wrong */
static void test_checkout(void **state)
{
	struct fx *f = *state;
	char *wt = at(f, "wt"), *msg, *tree, *commit, *again, *c2 = commit_of(f, "c2");
	const char *parent[] = { "rev-parse", "HEAD^", NULL };
	const char *c1tree_args[] = { "rev-parse", "c1^{tree}", NULL };
	struct src_op ops[1] = { { .kind = SRC_OP_REVERT, .arg = "c2" } };
	char *c1tree = git_out(f->repo, c1tree_args), *p;
	struct capture c;

	tree = computed(f, "c2", ops, 1, &msg);
	assert_string_equal(tree, c1tree);
	commit = src_tree_commit(f->git_dir, c2, tree, ops, 1, "v");
	again = src_tree_commit(f->git_dir, c2, tree, ops, 1, "v");
	assert_non_null(commit);
	assert_string_equal(commit, again); /* the same inputs, the same commit */
	assert_int_equal(src_checkout(f->repo, wt, commit, tree, "v"), 0);
	p = git_out(wt, parent);
	assert_string_equal(p, c2);
	free(p);
	p = src_tree_id(wt);
	assert_string_equal(p, tree);
	free(p);
	/* no operations: the base commit itself */
	free(again);
	again = src_tree_commit(f->git_dir, c2, "unused", NULL, 0, "v");
	assert_string_equal(again, c2);
	/* a worktree that does not end at the tree worked out is refused */
	capture_start(&c);
	assert_int_equal(src_checkout(f->repo, wt, c2, tree, "v"), -1);
	free(msg);
	msg = capture_end(&c);
	assert_non_null(strstr(msg, "refusing to build"));
	free(msg);
	free(wt);
	free(tree);
	free(commit);
	free(again);
	free(c2);
	free(c1tree);
	free_ops(ops, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_git),
		cmocka_unit_test(test_partial_index),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_checkout),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
