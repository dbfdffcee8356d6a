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

static json_t *confirm_run_json(struct track *t, json_t *e)
{
	const char *run = json_string_value(json_object_get(json_object_get(e, "confirm"), "run"));

	return run ? store_load_run(t->store, run) : NULL;
}

static void write_topology(FILE *f, json_t *topo)
{
	json_t *n;
	size_t i;

	fprintf(f, "topology: %zu node%s (", json_array_size(json_object_get(topo, "nodes")),
		json_array_size(json_object_get(topo, "nodes")) == 1 ? "" : "s");
	json_array_foreach(json_object_get(topo, "nodes"), i, n) {
		fprintf(f, "%snode%zu: %lld CPU%s, %lld MiB", i ? "; " : "", i,
			(long long)json_integer_value(json_object_get(n, "cpus")),
			json_integer_value(json_object_get(n, "cpus")) == 1 ? "" : "s",
			(long long)json_integer_value(json_object_get(n, "memory_kib")) / 1024);
	}
	fprintf(f, ")\n");
}

void track_write_setup(struct track *t, json_t *e, FILE *f)
{
	const char *key = json_string_value(json_object_get(e, "key"));
	json_t *r = confirm_run_json(t, e), *jr = json_object_get(r, "job_resolved"), *frag;
	size_t jlen = strcspn(key, "/"), i;

	for (size_t j = 0; j < t->def.njobs; j++)
		if (strlen(t->def.jobs[j].name) == jlen && !strncmp(t->def.jobs[j].name, key, jlen))
			fprintf(f, "job: %s (%s)\n", t->def.jobs[j].name, t->def.jobs[j].path);
	if (jr) {
		json_t *wl = json_object_get(jr, "workload");

		write_topology(f, json_object_get(jr, "topology"));
		fprintf(f, "workload: %s\n", json_string_value(json_object_get(wl, "name")) ?: "?");
	}
	if (t->def.config) {
		fprintf(f, "kernel config: %s",
			json_string_value(json_object_get(t->def.config, "base")) ?: "tinyconfig");
		json_array_foreach(json_object_get(t->def.config, "fragments"), i, frag)
			fprintf(f, " + %s", json_string_value(frag));
		fputc('\n', f);
	} else {
		json_t *v;

		fprintf(f, "kernels:");
		json_array_foreach(json_object_get(r, "variants"), i, v) {
			json_t *k = json_object_get(v, "kernel");

			fprintf(f, " %s %s%s", json_string_value(json_object_get(v, "name")),
				json_string_value(json_object_get(k, "release")) ?: "?",
				i + 1 < json_array_size(json_object_get(r, "variants")) ? "," : "");
		}
		fputc('\n', f);
	}
	if (r)
		fprintf(f, "host: %s, %s\n",
			json_string_value(json_object_get(json_object_get(r, "host"), "accel")) ?:
												  "?",
			json_string_value(json_object_get(json_object_get(r, "host"), "qemu")) ?:
												 "?");
	json_decref(r);
}

void track_write_commands(struct track *t, json_t *e, FILE *f)
{
	json_t *conf = json_object_get(e, "confirm"), *p = json_object_get(e, "primary");
	const char *run = json_string_value(json_object_get(conf, "run"));
	const char *key = json_string_value(json_object_get(e, "key"));
	const char *ids = strchr(key, '/') ? strchr(key, '/') + 1 : key;
	char *before = xstrdup(ids), *dots = strstr(before, "..");
	json_t *b, *a;

	if (dots)
		*dots = '\0';
	b = track_point(t, before);
	a = dots ? track_point(t, dots + 2) : NULL;
	fprintf(f, "  mmlab compare %s              # the two kernels, measured again together\n",
		run ?: "?");
	fprintf(f, "  mmlab run %s/jobs/confirm--%.*s--%s..%s.yaml\n", t->dir,
		(int)strcspn(key, "/"), key, json_string_value(json_object_get(b, "label")) ?: "?",
		json_string_value(json_object_get(a, "label")) ?: "?");
	if (json_object_get(b, "commit") && json_object_get(a, "commit"))
		fprintf(f,
			"  mmlab bisect start --job %s/jobs/%.*s--%s.yaml --good %s --bad %s "
			"--metric %s\n",
			t->dir, (int)strcspn(key, "/"), key,
			json_string_value(json_object_get(a, "label")),
			json_string_value(json_object_get(b, "commit")),
			json_string_value(json_object_get(a, "commit")),
			json_string_value(json_object_get(p, "metric")));
	free(before);
}

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
	json_t *nc, *entries = track_entries(t, &nc), *e;
	char host[256] = "localhost", date[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	gethostname(host, sizeof(host) - 1);
	localtime_r(&now, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S %z", &tm);
	json_array_foreach(entries, i, e) {
		const char *subj = json_string_value(json_object_get(e, "subject"));
		char *body = NULL, *msgid;
		size_t len = 0;
		FILE *m;

		/* regressions, and changes of metrics with no better direction */
		if (strstr(subj, " improvement"))
			continue;
		m = open_memstream(&body, &len);
		if (!m)
			return -1;
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
	json_decref(entries);
	json_decref(nc);
	return 0;
}
