/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bisect_list.h - a bisection over a list of kernels (bisect_list.c): the
 * list file read at start, the entries k1..kN, and the binary search that
 * stands in for git. For the files of lab/bisect/ and their unit tests.
 */
#ifndef MMLAB_BISECT_LIST_H
#define MMLAB_BISECT_LIST_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "bisect/params.h"

struct bisect_session;

/* p bisects a list (p->kernels), not commits */
bool bisect_is_list(const struct bisect_params *p);
/* "abc123def456 subject" of a commit, or a list entry's "kI {...}" */
char *session_commit_line(struct bisect_session *s, const char *commit);
/*
 * The list file (a YAML list, oldest first; docs/bisect.md) as the
 * entries' rewrite sets, relative file paths made absolute against the
 * file's directory; NULL after a message naming the file and the entry.
 * Returns a new reference. The list file's keys are read in list_json.c.
 */
json_t *bisect_list_read(const char *file);
/* entry i's "tag" (its release's git ref), NULL when it has none */
const char *bisect_list_tag(const struct bisect_params *p, size_t i);
/* "kI" as a 0-based index, -1 when it names no entry */
long bisect_list_index(const struct bisect_params *p, const char *commit);
/* entry kI (borrowed), NULL when none */
json_t *bisect_list_entry(const struct bisect_params *p, const char *commit);
/* "kI {...}" (malloc'd), for messages and the result's subject */
char *bisect_list_line(const struct bisect_params *p, const char *commit);
/*
 * The search's state from the verdicts in bisect.db, in git's words (the
 * session's progress; malloc'd); *next (when asked) the entry to test
 * next, NULL when finished.
 */
char *bisect_list_progress(struct bisect_session *s, char **next);
/* the first new entry the progress names, or NULL */
char *bisect_list_first(struct bisect_session *s, const char *out);
/* the entries of "could be any of:"; a new reference */
json_t *bisect_list_candidates(const char *out);
/* the result's {"commit", "short", "subject", "kernel"} of an entry; a new reference */
json_t *bisect_list_commit_json(const struct bisect_params *p, const char *commit);

/*
 * --tree DIR: every entry's "tag" resolves to a commit in DIR (p->tree set);
 * 0, or -1 after a message naming the entry.
 */
int bisect_list_set_tree(struct bisect_params *p, const char *tree, const char *file);
/*
 * The list named its first new entry: the start of the commit bisection
 * between the tags of the last old entry and that one in p->tree, with
 * the same job, mode and statistics (a's strings borrowed from s); false
 * after a message when one of the two has no tag. measure.c runs it in
 * the state directory's tree/.
 */
struct bisect_start_args;
bool bisect_list_tree_args(struct bisect_session *s, struct bisect_start_args *a);

#endif
