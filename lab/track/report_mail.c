// SPDX-License-Identifier: GPL-2.0
/*
 * report_mail.c - the parts of a report entry that say how it was measured
 * and how to measure it again, and the mbox format: one message per
 * regression, ready for the user's mailer (mmlab sends no mail).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "track/report.h"

/* text with "From " at a line's start quoted (mboxrd) */
static void mbox_body(FILE *f, const char *text)
{
	const char *l = text;

	while (*l) {
		size_t n = strcspn(l, "\n");
		const char *q = l;

		while (*q == '>')
			q++;
		if (!strncmp(q, "From ", 5))
			fputc('>', f);
		fwrite(l, 1, n, f);
		fputc('\n', f);
		l += n + (l[n] == '\n');
	}
}

int track_report_mbox(struct track *t, FILE *f)
{
	struct track_entry_list es;
	char host[256] = "localhost", date[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	gethostname(host, sizeof(host) - 1);
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
	track_entries(t, &es);
	for (i = 0; i < es.n; i++) {
		const struct track_entry *e = &es.v[i];
		const char *subj = e->subject;
		char *body = NULL, *msgid;
		size_t len = 0;
		FILE *m;

		/* regressions, and changes of metrics with no better direction */
		if (strstr(subj, " improvement"))
			continue;
		m = open_memstream(&body, &len);
		if (!m) {
			track_entries_release(&es);
			return -1;
		}
		track_write_entry(t, e, m);
		fclose(m);
		msgid = xasprintf("%s.%zu.%lld@%s", t->def.name, i, (long long)now, host);
		fprintf(f, "From mmlab@%s %s", host, asctime(&tm));
		fprintf(f,
			"From: mmlab <mmlab@%s>\nDate: %s\nSubject: %s\nMessage-ID: <%s>\n"
			"MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
			"Content-Transfer-Encoding: 8bit\nX-Mmlab-Track: %s\n\n",
			host, date, subj, msgid, t->def.name);
		mbox_body(f, body);
		fputc('\n', f);
		free(body);
		free(msgid);
	}
	track_entries_release(&es);
	return 0;
}
