// SPDX-License-Identifier: GPL-2.0
/*
 * taskrec.c - a Slurm task's state record (see taskrec.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "batch/queue.h"
#include "batch/taskrec.h"
#include "lib/util.h"

static const char *const state_names[] = { "running", "done", "failed" };

const char *taskrec_state_name(enum taskrec_state s)
{
	return (unsigned int)s < ARRAY_SIZE(state_names) ? state_names[s] : "?";
}

/* a string member into buf (at most size - 1 bytes); missing is "", too long fails */
static int get_str(json_t *o, const char *key, char *buf, size_t size, bool required)
{
	json_t *v = json_object_get(o, key);

	buf[0] = '\0';
	if (!v || json_is_null(v))
		return required ? -1 : 0;
	if (!json_is_string(v) || json_string_length(v) >= size ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return -1;
	memcpy(buf, json_string_value(v), json_string_length(v) + 1);
	return 0;
}

static int get_int(json_t *o, const char *key, long long max, long long *out)
{
	json_t *v = json_object_get(o, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > max)
		return -1;
	*out = json_integer_value(v);
	return 0;
}

static bool task_name_ok(const char *s)
{
	if (!*s || s[0] == '.')
		return false;
	for (; *s; s++)
		if (*s == '/' || (unsigned char)*s < 0x20)
			return false;
	return true;
}

int taskrec_parse(const char *buf, size_t len, struct taskrec *t)
{
	char state[16];
	long long pid, attempt, beat;
	json_t *o;
	int ret = -1;
	size_t i;

	memset(t, 0, sizeof(*t));
	if (!buf || len > TASKREC_MAX_BYTES)
		return -1;
	o = json_loadb(buf, len, JSON_REJECT_DUPLICATES, NULL);
	if (!json_is_object(o) || get_str(o, "task", t->task, sizeof(t->task), true) ||
	    !task_name_ok(t->task) || get_str(o, "state", state, sizeof(state), true) ||
	    get_str(o, "reason", t->reason, sizeof(t->reason), false) ||
	    get_str(o, "host", t->host, sizeof(t->host), true) ||
	    get_str(o, "boot_id", t->boot_id, sizeof(t->boot_id), false) ||
	    get_str(o, "slurm_job", t->slurm_job, sizeof(t->slurm_job), false) ||
	    get_str(o, "request", t->request, sizeof(t->request), false) ||
	    get_int(o, "pid", 1LL << 32, &pid) || get_int(o, "attempt", 1000000, &attempt) ||
	    get_int(o, "beat", 1LL << 53, &beat))
		goto out;
	for (i = 0; i < ARRAY_SIZE(state_names) && strcmp(state, state_names[i]); i++)
		;
	if (i == ARRAY_SIZE(state_names))
		goto out;
	t->state = (enum taskrec_state)i;
	t->pid = pid;
	t->attempt = (unsigned int)attempt;
	t->beat = (unsigned long long)beat;
	ret = 0;
out:
	json_decref(o);
	if (ret)
		memset(t, 0, sizeof(*t));
	return ret;
}

char *taskrec_path(const char *results_dir, const char *run, const char *task)
{
	return xasprintf("%s/%s/tasks/%s.json", results_dir, run, task);
}

int taskrec_write(const char *results_dir, const char *run, const struct taskrec *t)
{
	char *dir = xasprintf("%s/%s/tasks", results_dir, run), *path, *text;
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:I, s:i, s:s, s:s, s:I}", "task", t->task,
			      "state", taskrec_state_name(t->state), "reason", t->reason, "host",
			      t->host, "boot_id", t->boot_id, "pid", (json_int_t)t->pid, "attempt",
			      (int)t->attempt, "slurm_job", t->slurm_job, "request", t->request,
			      "beat", (json_int_t)t->beat);
	int ret = -1;

	path = taskrec_path(results_dir, run, t->task);
	text = o ? json_dumps(o, JSON_SORT_KEYS) : NULL;
	if (text && !mkdir_p(dir, 0755))
		ret = write_file_atomic(path, text, strlen(text), 0644);
	else if (!text)
		lab_err("cannot encode the task record %s", path);
	free(text);
	json_decref(o);
	free(path);
	free(dir);
	return ret;
}

int taskrec_read(const char *results_dir, const char *run, const char *task, struct taskrec *t,
		 struct timespec *mtime)
{
	char *path = taskrec_path(results_dir, run, task), *buf;
	struct stat st;
	size_t len;
	int ret = 1;

	memset(t, 0, sizeof(*t));
	if (stat(path, &st)) {
		free(path);
		return 1;
	}
	if (mtime)
		*mtime = st.st_mtim;
	buf = read_file(path, &len, TASKREC_MAX_BYTES);
	ret = buf && !taskrec_parse(buf, len, t) ? 0 : -1;
	if (ret)
		lab_err("the task record %s is damaged (not a task record of at most %u bytes)",
			path, TASKREC_MAX_BYTES);
	free(buf);
	free(path);
	return ret;
}

void taskrec_self(struct taskrec *t, const char *task, unsigned int attempt)
{
	struct queue_owner o;

	queue_owner_self(&o);
	memset(t, 0, sizeof(*t));
	snprintf(t->task, sizeof(t->task), "%s", task);
	snprintf(t->host, sizeof(t->host), "%s", o.host);
	snprintf(t->boot_id, sizeof(t->boot_id), "%s", o.boot);
	snprintf(t->slurm_job, sizeof(t->slurm_job), "%s", getenv("SLURM_JOB_ID") ?: "");
	t->pid = o.pid;
	t->attempt = attempt;
	t->state = TASK_RUNNING;
}

bool taskrec_same_owner(const struct taskrec *a, const struct taskrec *b)
{
	return a->pid == b->pid && a->attempt == b->attempt && !strcmp(a->host, b->host) &&
	       !strcmp(a->boot_id, b->boot_id);
}

bool taskrec_stale(struct task_seen *seen, const struct taskrec *t, struct timespec mtime,
		   double now, double stale_s)
{
	if (t->state != TASK_RUNNING)
		return false;
	if (!seen->at || seen->beat != t->beat || seen->mtime.tv_sec != mtime.tv_sec ||
	    seen->mtime.tv_nsec != mtime.tv_nsec) {
		seen->beat = t->beat;
		seen->mtime = mtime;
		seen->at = now;
		return false;
	}
	return now - seen->at > stale_s;
}
