/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what the report's formats share (report.c: text and JSON;
 * report_mail.c: the setup, the commands and mbox; report_html.c: HTML).
 */
#ifndef MMLAB_TRACK_REPORT_H
#define MMLAB_TRACK_REPORT_H

#include <stdio.h>

#include <jansson.h>

#include "track/internal.h"

/* a confirmed change with what the report says of it; borrows from the state */
struct track_entry {
	const char *key; /* JOB/BEFORE..AFTER */
	const struct track_confirmation *confirm;
	const struct track_bisection *bisect; /* NULL: not bisected */
	const struct track_test *primary; /* the confirmed test with the smallest p */
	const struct track_cand *change_point; /* the primary metric's candidate, or NULL */
	const struct track_cand **same; /* the other candidates of the change */
	size_t nsame;
	char subject[512];
};

/* the confirmed changes, regressions first; the changes measured again and not confirmed */
struct track_entry_list {
	struct track_entry *v;
	size_t n;
	const struct track_confirmation **nc;
	size_t nnc;
};

void track_entries(struct track *t, struct track_entry_list *out);
void track_entries_release(struct track_entry_list *e);
/* "[mmlab] BRANCH SHA12: METRIC -12.3% regression" */
void track_entry_subject(struct track *t, const struct track_entry *e, char *buf, size_t len);
/* one entry as text: the subject, first bad commit, setup, numbers, comparison, commands */
void track_write_entry(struct track *t, const struct track_entry *e, FILE *f);
/* the confirmation run's comparison, as "mmlab compare" prints it */
void track_write_compare(struct track *t, const struct track_entry *e, FILE *f);
/* job, topology, kernel config of an entry */
void track_write_setup(struct track *t, const struct track_entry *e, FILE *f);
/* the commands that reproduce an entry */
void track_write_commands(struct track *t, const struct track_entry *e, FILE *f);

int track_report_mbox(struct track *t, FILE *f);
int track_report_html(struct track *t, FILE *f);

#endif
