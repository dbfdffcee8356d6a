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

/*
 * The confirmed changes, regressions first, each {"key", "subject",
 * "confirm", "bisect", "primary" (the confirmed test with the smallest p),
 * "change_point", "same_commit"}; *not_confirmed the others. New references.
 */
json_t *track_entries(struct track *t, json_t **not_confirmed);
/* "[mmlab] BRANCH SHA12: METRIC -12.3% regression" */
void track_entry_subject(struct track *t, json_t *e, char *buf, size_t len);
/* one entry as text: the subject, first bad commit, setup, numbers, comparison, commands */
void track_write_entry(struct track *t, json_t *e, FILE *f);
/* the confirmation run's comparison, as "mmlab compare" prints it */
void track_write_compare(struct track *t, json_t *e, FILE *f);
/* job, topology, kernel config of an entry */
void track_write_setup(struct track *t, json_t *e, FILE *f);
/* the commands that reproduce an entry */
void track_write_commands(struct track *t, json_t *e, FILE *f);

int track_report_mbox(struct track *t, FILE *f);
int track_report_html(struct track *t, FILE *f);

#endif
