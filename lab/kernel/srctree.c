// SPDX-License-Identifier: GPL-2.0
/*
 * srctree.c - a variant's source tree worked out in git's object database
 * (srctree.h): every git runs with --git-dir and a private scratch
 * directory as its current directory, through spawn_run() with argv.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/srctree.h"
#include "lib/spawn.h"
#include "lib/strbuf.h"

#define DB_TIMEOUT_S 1800
#define DB_ENV_MAX 24
#define DB_OUT_MAX (1u << 20)
#define MBOX_MAILS_MAX 100000
#define PARTIAL_PATHS_MAX 2000

/* one computation: the repository, a scratch directory and its index */
struct db {
	const char *git_dir;
	const char *variant;
	char *tmp; /* scratch directory: the temporary index, split mails */
	char *index_env; /* GIT_INDEX_FILE=<tmp>/index */
	char *index_tree; /* the tree the temporary index holds, or NULL */
	char *empty_tree;
	bool quiet; /* failures are expected (a fast path): no messages */
	const char *env[DB_ENV_MAX];
};

static int db_open(struct db *db, const char *git_dir, const char *variant)
{
	const char *tmpdir = getenv("TMPDIR");
	char *tmpl;
	size_t n = 0;

	memset(db, 0, sizeof(*db));
	db->git_dir = git_dir;
	db->variant = variant;
	/* absolute: git runs in it, and GIT_INDEX_FILE must name the same file */
	tmpl = xasprintf("%s/mmlab-srctree-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	db->tmp = path_abs(tmpl);
	free(tmpl);
	if (!mkdtemp(db->tmp)) {
		lab_err("variant '%s': cannot make a scratch directory %s: %s; set TMPDIR to a "
			"writable directory",
			variant, db->tmp, strerror(errno));
		free(db->tmp);
		db->tmp = NULL;
		return -1;
	}
	db->index_env = xasprintf("GIT_INDEX_FILE=%s/index", db->tmp);
	for (size_t i = 0; git_lab_env[i] && n < DB_ENV_MAX - 4; i++)
		db->env[n++] = git_lab_env[i];
	db->env[n++] = db->index_env;
	/* commits made here are the same for the same trees and parents */
	db->env[n++] = "GIT_AUTHOR_DATE=946684800 +0000";
	db->env[n++] = "GIT_COMMITTER_DATE=946684800 +0000";
	db->env[n] = NULL;
	return 0;
}

static void db_close(struct db *db)
{
	if (db->tmp)
		rm_rf(db->tmp);
	free(db->tmp);
	free(db->index_env);
	free(db->index_tree);
	free(db->empty_tree);
}

/* git --git-dir=GIT_DIR ARGS..., in the scratch directory, stdin from in */
static int db_run(struct db *db, const char *const args[], const char *in, struct spawn_result *r)
{
	size_t nargs = 0, n = 0;
	const char **argv;
	char *gd = xasprintf("--git-dir=%s", db->git_dir);
	struct spawn_opts o = { .cwd = db->tmp,
				.env = db->env,
				.stdin_path = in,
				.timeout_s = DB_TIMEOUT_S,
				.capture_max = DB_OUT_MAX };
	int ret;

	while (args[nargs])
		nargs++;
	argv = xcalloc(nargs + 3, sizeof(*argv));
	argv[n++] = "git";
	argv[n++] = gd;
	for (size_t i = 0; i < nargs; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	ret = spawn_run(argv, &o, r);
	free(argv);
	free(gd);
	return ret;
}

static bool is_oid(const char *s, size_t n)
{
	if (n != 40 && n != 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!s[i] || !strchr("0123456789abcdef", s[i]))
			return false;
	return true;
}

/* every line of out that is an object id, in order (git's stderr lines are not) */
static void oid_lines(const char *out, struct strlist *oids)
{
	const char *p = out;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *oid;

		if (is_oid(p, len)) {
			oid = xstrndup(p, len);
			strlist_push(oids, oid);
			free(oid);
		}
		p = eol ? eol + 1 : NULL;
	}
}

/* a failed git's words, for a message: its error lines or its output */
static char *db_why(const struct spawn_result *r)
{
	char how[64];

	if (r->exit_code < 0)
		return xstrdup(spawn_describe(r, DB_TIMEOUT_S, how, sizeof(how)));
	return git_reason(r->out ? r->out : "");
}

/* the first object id git prints, or NULL after a message naming what for */
static char *db_oid(struct db *db, const char *const args[], const char *what)
{
	struct spawn_result r;
	struct strlist oids = { 0 };
	char *oid = NULL;

	if (db_run(db, args, NULL, &r) == 0)
		oid_lines(r.out, &oids);
	if (oids.n) {
		oid = xstrdup(oids.v[0]);
	} else if (!db->quiet) {
		char *why = db_why(&r);

		lab_err("variant '%s': %s failed in %s (git %s: %s)", db->variant, what,
			db->git_dir, args[0], why);
		free(why);
	}
	strlist_free(&oids);
	spawn_result_free(&r);
	return oid;
}

static char *tree_of(struct db *db, const char *commit)
{
	char *spec = xasprintf("%s^{tree}", commit);
	const char *args[] = { "rev-parse", "-q", "--verify", "--end-of-options", spec, NULL };
	char *what = xasprintf("reading the tree of %.12s", commit);
	char *tree = db_oid(db, args, what);

	free(what);
	free(spec);
	return tree;
}

static const char *empty_tree(struct db *db)
{
	const char *args[] = { "hash-object", "-t", "tree", "-w", "/dev/null", NULL };

	if (!db->empty_tree)
		db->empty_tree = db_oid(db, args, "writing the empty tree");
	return db->empty_tree;
}

/* the parents of commit, in order (none for a root commit); 0 or -1 + message */
static int parents_of(struct db *db, const char *commit, struct strlist *parents)
{
	char *spec = xasprintf("%s^@", commit);
	const char *args[] = { "rev-parse", "--end-of-options", spec, NULL };
	struct spawn_result r;
	int ret = 0;

	if (db_run(db, args, NULL, &r) == 0) {
		oid_lines(r.out, parents);
	} else {
		char *why = db_why(&r);

		lab_err("variant '%s': cannot read the parents of %.12s in %s (%s)", db->variant,
			commit, db->git_dir, why);
		free(why);
		ret = -1;
	}
	spawn_result_free(&r);
	free(spec);
	return ret;
}

/* a commit of tree (parent: none or parent), message msg */
static char *commit_of(struct db *db, const char *tree, const char *parent, const char *msg)
{
	const char *args[] = { "commit-tree", "-m", msg, tree, parent ? "-p" : NULL, parent, NULL };

	return db_oid(db, args, "writing a commit");
}

/* file names of a failed git apply: "patch failed: F:N", "F: does not exist ..." */
static void apply_files(const char *out, struct strlist *files)
{
	static const char *const marks[] = { "patch failed: ", "error: " };
	const char *p = out;

	while (p && *p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char *line = xstrndup(p, len), *h, *end = NULL;

		for (size_t i = 0; i < ARRAY_SIZE(marks) && !end; i++) {
			h = strstr(line, marks[i]);
			if (!h)
				continue;
			h += strlen(marks[i]);
			if (i == 0) {
				end = strrchr(h, ':');
			} else {
				end = strstr(h, ": ");
				if (end && !strstr(end, "does not exist") &&
				    !strstr(end, "already exists") && !strstr(end, "No such file"))
					end = NULL;
			}
			if (end && end > h) {
				*end = '\0';
				strlist_push(files, h);
			}
		}
		free(line);
		p = eol ? eol + 1 : NULL;
	}
}

/*
 * git merge-tree --write-tree merges two commits over their merge base
 * (git 2.38; --merge-base=COMMIT came only in git 2.40): the three trees
 * become commits, base a root commit, ours and theirs its children. This
 * is the merge git revert (base = the commit, theirs = its parent) and git
 * cherry-pick (base = the parent, theirs = the commit) make with merge-ort
 * (renames: as the repository's configuration says; else none at all).
 * 0 with *result, 1 on a conflict (*files and *why filled), -1 + message.
 */
static int merge3(struct db *db, const char *base, const char *ours, const char *theirs,
		  bool renames, char **result, struct strlist *files, char **why)
{
	char *b = commit_of(db, base, NULL, "mmlab: merge base");
	char *x = b ? commit_of(db, ours, b, "mmlab: ours") : NULL;
	char *y = x ? commit_of(db, theirs, b, "mmlab: theirs") : NULL;
	const char *with[] = {
		"merge-tree", "--write-tree", "--name-only", "--end-of-options", x, y, NULL
	};
	const char *without[] = { "-c",
				  "merge.renames=false",
				  "-c",
				  "merge.directoryRenames=false",
				  "merge-tree",
				  "--write-tree",
				  "--name-only",
				  "--end-of-options",
				  x,
				  y,
				  NULL };
	const char *const *args = renames ? with : without;
	struct spawn_result r = { 0 };
	int rc, ret = -1;

	if (!y)
		goto out;
	rc = db_run(db, args, NULL, &r);
	if (rc == 0 || rc == 1) {
		const char *p = r.out, *eol;
		bool seen_oid = false;

		/* <tree>\n, then conflicted paths one a line, a blank line, messages */
		for (; p && *p; p = eol ? eol + 1 : NULL) {
			size_t len;

			eol = strchr(p, '\n');
			len = eol ? (size_t)(eol - p) : strlen(p);
			if (!seen_oid) {
				if (is_oid(p, len)) {
					seen_oid = true;
					*result = xstrndup(p, len);
				}
				continue;
			}
			if (rc == 0 || !len)
				break;
			{
				char *f = xstrndup(p, len);

				strlist_push(files, f);
				free(f);
			}
		}
		if (seen_oid && rc == 1) {
			*why = git_reason(p ? p : "");
			ret = 1;
		} else if (seen_oid) {
			ret = 0;
		}
	}
	if (ret < 0 && !db->quiet) {
		char *w = db_why(&r);

		lab_err("variant '%s': git merge-tree --write-tree failed in %s (%s)%s",
			db->variant, db->git_dir, w,
			rc == 129 || strstr(r.out ? r.out : "", "usage:") ?
				"; it needs git 2.38 or later ('git --version' says which "
				"git runs)" :
				"");
		free(w);
	}
	if (ret) { /* a tree with conflict markers is no result */
		free(*result);
		*result = NULL;
	}
out:
	spawn_result_free(&r);
	free(b);
	free(x);
	free(y);
	return ret;
}

/* a revert or a cherry-pick of op->resolved on the tree cur */
static int op_merge(struct db *db, const struct src_op *op, const char *cur, char **result,
		    struct strlist *files, char **why)
{
	bool revert = op->kind == SRC_OP_REVERT;
	struct strlist par = { 0 };
	char *ctree = NULL, *ptree = NULL;
	int ret = -1;

	if (parents_of(db, op->resolved, &par))
		goto out;
	if (par.n > 1) {
		lab_err("variant '%s': %s %s: %.12s is a merge commit (%zu parents), and mmlab "
			"reverts and cherry-picks single-parent commits only; name its commits "
			"one by one, or apply 'git diff %.12s^1 %.12s' as a patch",
			db->variant, src_op_name(op->kind), op->arg, op->resolved, par.n,
			op->resolved, op->resolved);
		goto out;
	}
	ctree = tree_of(db, op->resolved);
	ptree = par.n ? tree_of(db, par.v[0]) : (empty_tree(db) ? xstrdup(db->empty_tree) : NULL);
	if (!ctree || !ptree)
		goto out;
	ret = revert ? merge3(db, ctree, cur, ptree, true, result, files, why) :
		       merge3(db, ptree, cur, ctree, true, result, files, why);
	/* as git revert and git cherry-pick --allow-empty: an empty result fails */
	if (ret == 0 && !strcmp(*result, cur) && (revert || strcmp(ctree, ptree))) {
		lab_err("variant '%s': %s %s changes nothing: %s; drop it from the variant",
			db->variant, src_op_name(op->kind), op->arg,
			revert ?
				"its change is not in the source (the ref does not contain it, or an "
				"earlier operation undid it)" :
				"its change is in the source already");
		free(*result);
		*result = NULL;
		ret = -1;
	}
out:
	strlist_free(&par);
	free(ctree);
	free(ptree);
	return ret;
}

/* the temporary index holds tree (git read-tree when it holds another) */
static int index_at(struct db *db, const char *tree)
{
	const char *args[] = { "read-tree", "--end-of-options", tree, NULL };
	struct spawn_result r;
	int ret = 0;

	if (db->index_tree && !strcmp(db->index_tree, tree))
		return 0;
	free(db->index_tree);
	db->index_tree = NULL;
	if (db_run(db, args, NULL, &r)) {
		char *why = db_why(&r);

		lab_err("variant '%s': git read-tree %.12s into a temporary index failed (%s)",
			db->variant, tree, why);
		free(why);
		ret = -1;
	} else {
		db->index_tree = xstrdup(tree);
	}
	spawn_result_free(&r);
	return ret;
}

/* git apply --cached PATCH on the temporary index: 0, or 1 (*files, *why) */
static int apply_one(struct db *db, const char *patch, struct strlist *files, char **why)
{
	const char *args[] = { "apply", "--cached", "--", patch, NULL };
	struct spawn_result r;
	int ret = 0;

	free(db->index_tree);
	db->index_tree = NULL;
	if (db_run(db, args, NULL, &r)) {
		if (files)
			apply_files(r.out, files);
		if (why)
			*why = db_why(&r);
		ret = 1;
	}
	spawn_result_free(&r);
	return ret;
}

/* the patches of one apply operation, in order: a plain diff, or an mbox's messages */
struct patches {
	struct strlist files; /* each patch; an mbox message's may be empty */
	struct strlist subjects; /* an mbox message's subject, each */
	bool mbox;
};

static void patches_free(struct patches *p)
{
	strlist_free(&p->files);
	strlist_free(&p->subjects);
}

/* "Subject: ..." of git mailinfo's output, or "" */
static char *mail_subject(const char *out)
{
	const char *s = strstr(out ? out : "", "Subject: ");

	if (!s || (s != out && s[-1] != '\n'))
		return xstrdup("");
	s += strlen("Subject: ");
	return xstrndup(s, strcspn(s, "\n"));
}

/* message i (1-based) of n split in dir: its patch (git mailinfo) into p */
static int read_mail(struct db *db, const struct src_op *op, const char *dir, unsigned long i,
		     unsigned long n, struct patches *p)
{
	char *mail = xasprintf("%s/%04lu", dir, i), *msg = xasprintf("%s/msg", dir);
	char *patch = xasprintf("%s/%04lu.patch", dir, i), *subject;
	const char *args[] = { "mailinfo", msg, patch, NULL };
	struct spawn_result r;
	int ret = 0;

	if (db_run(db, args, mail, &r)) {
		char *w = db_why(&r);

		lab_err("variant '%s': apply %s: git mailinfo cannot read message %lu of %lu "
			"(%s); git am would stop there too: fix or remove that message",
			db->variant, op->arg, i, n, w);
		free(w);
		ret = -1;
	} else {
		subject = mail_subject(r.out);
		strlist_push(&p->files, patch);
		strlist_push(&p->subjects, subject);
		free(subject);
	}
	spawn_result_free(&r);
	free(mail);
	free(msg);
	free(patch);
	return ret;
}

/* an mbox split and read message by message, as git am --keep-cr does */
static int split_mbox(struct db *db, const struct src_op *op, struct patches *p)
{
	char *dir = xasprintf("%s/mail", db->tmp), *o = xasprintf("-o%s", dir);
	const char *args[] = { "mailsplit", "-d4", o, "-b", "--keep-cr", "--", op->arg, NULL };
	struct spawn_result r;
	unsigned long n = 0;
	int ret = -1;

	p->mbox = true;
	rm_rf(dir);
	if (mkdir_p(dir, 0700))
		goto out;
	if (db_run(db, args, NULL, &r) == 0)
		n = strtoul(r.out, NULL, 10);
	if (n == 0 || n > MBOX_MAILS_MAX) {
		char *w = db_why(&r);

		lab_err("variant '%s': apply %s: git mailsplit found %s in the mbox (%s); give "
			"a 'git format-patch' mbox or a plain diff",
			db->variant, op->arg, n ? "too many messages" : "no message", w);
		free(w);
	} else {
		ret = 0;
	}
	spawn_result_free(&r);
	for (unsigned long i = 1; ret == 0 && i <= n; i++)
		ret = read_mail(db, op, dir, i, n, p);
out:
	free(dir);
	free(o);
	return ret;
}

static bool patch_empty(const char *path)
{
	struct stat st;

	return stat(path, &st) || st.st_size == 0;
}

/*
 * The patches applied in order to the whole tree cur in the temporary
 * index, as git am and git apply --index did: 0 with *result, 1 (*files,
 * *why: the message's number and subject too), or -1 + message.
 */
static int apply_full(struct db *db, const struct src_op *op, const struct patches *p,
		      const char *cur, char **result, struct strlist *files, char **why)
{
	const char *args[] = { "write-tree", NULL };
	size_t n = p->files.n;
	int ret = 0;

	if (index_at(db, cur))
		return -1;
	for (size_t i = 0; ret == 0 && i < n; i++) {
		const char *subject = p->mbox ? p->subjects.v[i] : "";

		if (p->mbox && patch_empty(p->files.v[i])) {
			lab_err("variant '%s': apply %s: message %zu of %zu ('%s') has no patch "
				"(a cover letter?); git am stops at it too: remove it from the "
				"mbox",
				db->variant, op->arg, i + 1, n, subject);
			return -1;
		}
		ret = apply_one(db, p->files.v[i], files, why);
		if (ret && p->mbox) {
			char *w = xasprintf("%s; message %zu of %zu: %s", *why, i + 1, n, subject);

			free(*why);
			*why = w;
		}
	}
	if (ret)
		return ret;
	*result = db_oid(db, args, "writing the patched tree");
	if (!*result)
		return -1;
	db->index_tree = xstrdup(*result);
	return 0;
}

/* the paths of "ADDED\tDELETED\tPATH\0" records (git apply --numstat -z); false on others */
static bool numstat_paths(const char *out, size_t len, struct strlist *paths)
{
	size_t i = 0;

	while (i < len) {
		const char *rec = out + i, *end = memchr(rec, '\0', len - i), *q = rec;

		if (!end)
			return false;
		for (int field = 0; field < 2; field++) {
			if (*q == '-')
				q++;
			else if (*q < '0' || *q > '9')
				return false;
			while (*q >= '0' && *q <= '9')
				q++;
			if (*q++ != '\t')
				return false;
		}
		if (q >= end)
			return false;
		strlist_push(paths, q);
		i = (size_t)(end - out) + 1;
	}
	return true;
}

/* every path the patches name as git apply reads them (renames: the new name only) */
static bool patch_paths(struct db *db, const struct patches *p, struct strlist *paths)
{
	bool ok = true;

	for (size_t i = 0; ok && i < p->files.n; i++) {
		const char *args[] = { "apply", "--numstat", "-z", "--", p->files.v[i], NULL };
		struct spawn_result r;

		ok = !patch_empty(p->files.v[i]) && db_run(db, args, NULL, &r) == 0 &&
		     r.out_len < DB_OUT_MAX && numstat_paths(r.out, r.out_len, paths);
		spawn_result_free(&r);
	}
	return ok && paths->n && paths->n <= PARTIAL_PATHS_MAX;
}

/* the temporary index holds only the entries of cur under paths; its tree */
static char *partial_tree(struct db *db, const char *cur, const struct strlist *paths)
{
	const char **ls = xcalloc(paths->n + 9, sizeof(*ls));
	const char *upd[] = { "update-index", "-z", "--index-info", NULL };
	const char *wt[] = { "write-tree", NULL };
	char *info = xasprintf("%s/partial", db->tmp), *idx = xasprintf("%s/index", db->tmp);
	char *tree = NULL;
	struct spawn_result r;
	size_t n = 0;

	ls[n++] = "--literal-pathspecs";
	ls[n++] = "ls-tree";
	ls[n++] = "-r";
	ls[n++] = "-z";
	ls[n++] = "--full-tree";
	ls[n++] = cur;
	ls[n++] = "--";
	for (size_t i = 0; i < paths->n; i++)
		ls[n++] = paths->v[i];
	ls[n] = NULL;
	free(db->index_tree);
	db->index_tree = NULL;
	unlink(idx);
	if (db_run(db, ls, NULL, &r) == 0 && r.out_len < DB_OUT_MAX &&
	    write_file_atomic(info, r.out, r.out_len, 0600) == 0) {
		struct spawn_result u;

		if (db_run(db, upd, info, &u) == 0)
			tree = db_oid(db, wt, "writing a partial tree");
		spawn_result_free(&u);
	}
	spawn_result_free(&r);
	free(ls);
	free(info);
	free(idx);
	return tree;
}

/*
 * The fast way, without an index of the whole tree (on Linux, git
 * read-tree of ~90k files is most of an apply's time): the patches
 * applied to an index holding only the paths they name, then put into
 * cur as a merge without renames: base = those paths in cur, theirs = the
 * same patched; every path is then ours' or theirs' unchanged, which is
 * what applying to the whole tree gives. Whatever goes wrong (a patch
 * that does not apply, a rename or copy whose source is not in the
 * partial index, a directory/file clash) returns 1 without a message, and
 * apply_full() does it the full way and says why. 0 with *result.
 */
static int apply_partial(struct db *db, const struct patches *p, const char *cur, char **result)
{
	const char *wt[] = { "write-tree", NULL };
	struct strlist paths = { 0 }, files = { 0 };
	char *t0 = NULL, *t1 = NULL, *why = NULL;
	int ret = 1;

	db->quiet = true;
	if (!patch_paths(db, p, &paths))
		goto out;
	t0 = partial_tree(db, cur, &paths);
	if (!t0)
		goto out;
	for (size_t i = 0; i < p->files.n; i++)
		if (apply_one(db, p->files.v[i], NULL, NULL))
			goto out;
	t1 = db_oid(db, wt, "writing the patched partial tree");
	if (t1 && merge3(db, t0, cur, t1, false, result, &files, &why) == 0)
		ret = 0;
out:
	db->quiet = false;
	strlist_free(&paths);
	strlist_free(&files);
	free(t0);
	free(t1);
	free(why);
	return ret;
}

/* a patch or an mbox applied to the tree cur */
static int op_apply(struct db *db, const struct src_op *op, const char *cur, char **result,
		    struct strlist *files, char **why)
{
	struct patches p = { 0 };
	int ret;

	if (patch_is_mbox(op->arg)) {
		if (split_mbox(db, op, &p)) {
			patches_free(&p);
			return -1;
		}
	} else {
		strlist_push(&p.files, op->arg);
	}
	ret = apply_partial(db, &p, cur, result);
	if (ret)
		ret = apply_full(db, op, &p, cur, result, files, why);
	patches_free(&p);
	return ret;
}

/* the clear error of an operation that does not apply (files, git's words) */
static void op_failed(const char *variant, const struct src_op *op, struct strlist *files,
		      const char *why)
{
	struct strlist uniq = { 0 };
	char *list = NULL;

	for (size_t i = 0; i < files->n; i++)
		if (!strlist_has(&uniq, files->v[i]))
			strlist_push(&uniq, files->v[i]);
	if (uniq.n)
		list = strlist_join(&uniq, ", ");
	lab_err("variant '%s': %s %s failed%s%s (%s); worked out in git's object database: "
		"your tree and the lab worktree are untouched. Rebase the %s onto the variant's "
		"ref or drop it",
		variant, src_op_name(op->kind), op->arg, list ? " in " : "", list ? list : "",
		why && *why ? why : "no output", op->kind == SRC_OP_APPLY ? "patch" : "commit");
	free(list);
	strlist_free(&uniq);
}

int src_tree(const char *git_dir, const char *commit, const struct src_op *ops, size_t nops,
	     const char *variant, char **tree_id)
{
	struct db db;
	char *cur;

	*tree_id = NULL;
	if (db_open(&db, git_dir, variant))
		return -1;
	cur = tree_of(&db, commit);
	for (size_t i = 0; cur && i < nops; i++) {
		struct strlist files = { 0 };
		char *why = NULL, *next = NULL;
		int ret = ops[i].kind == SRC_OP_APPLY ?
				  op_apply(&db, &ops[i], cur, &next, &files, &why) :
				  op_merge(&db, &ops[i], cur, &next, &files, &why);

		if (ret == 1)
			op_failed(variant, &ops[i], &files, why);
		free(cur);
		cur = ret == 0 ? next : NULL;
		if (ret)
			free(next);
		strlist_free(&files);
		free(why);
	}
	db_close(&db);
	*tree_id = cur;
	return cur ? 0 : -1;
}

char *src_tree_commit(const char *git_dir, const char *commit, const char *tree_id,
		      const struct src_op *ops, size_t nops, const char *variant)
{
	struct strbuf msg = STRBUF_INIT;
	struct db db;
	char *out;

	if (!nops)
		return xstrdup(commit);
	if (db_open(&db, git_dir, variant))
		return NULL;
	strbuf_addf(&msg, "mmlab: %.12s", commit);
	for (size_t i = 0; i < nops; i++) {
		const char *base = ops[i].kind == SRC_OP_APPLY ? strrchr(ops[i].arg, '/') : NULL;

		strbuf_addf(&msg, " + %s %s", src_op_name(ops[i].kind),
			    base ? base + 1 : ops[i].arg);
	}
	strbuf_addf(&msg,
		    "\n\nThe source of kernel variant '%s', worked out by mmlab:\n\n"
		    "base %s\n",
		    variant, commit);
	for (size_t i = 0; i < nops; i++)
		strbuf_addf(&msg, "%s %s (%s)\n", src_op_name(ops[i].kind), ops[i].arg,
			    ops[i].resolved);
	out = commit_of(&db, tree_id, commit, msg.buf);
	strbuf_release(&msg);
	db_close(&db);
	return out;
}
