// SPDX-License-Identifier: GPL-2.0
/*
 * track.c - "track add", "list", "status", and the steps of "track run" in
 * order (track.h).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/timefmt.h"
#include "track/internal.h"

int track_add(const struct track_env *env, const char *file, char **name)
{
	struct track_def d;
	char *root, *dir, *copy, *statef, *text;
	size_t len;
	int ret = -1;

	if (trackfile_load(file, NULL, &d))
		return -1;
	root = track_root(env->results_dir);
	dir = xasprintf("%s/%s", root, d.name);
	copy = xasprintf("%s/track.yaml", dir);
	statef = xasprintf("%s/state.json", dir);
	text = read_file(file, &len, 1u << 20);
	if (text && !mkdir_p(dir, 0755) && !write_file_atomic(copy, text, len, 0644)) {
		char now[TIME_STR_LEN];
		struct track_state st;

		/* no state yet, or a damaged one: made anew */
		if (track_state_try_load(statef, &st)) {
			memset(&st, 0, sizeof(st));
			st.name = xstrdup(d.name);
			st.created = xstrdup(time_iso_now(now));
			st.has_runs = true;
		}
		/* relative paths of the copy resolve against the file's directory */
		free(st.file);
		st.file = xstrdup(d.file);
		ret = track_state_write(statef, &st);
		track_state_release(&st);
	}
	if (!ret)
		*name = xstrdup(d.name);
	free(text);
	free(copy);
	free(statef);
	free(dir);
	free(root);
	trackfile_release(&d);
	return ret;
}

struct track_info *track_list(const struct track_env *env, size_t *n)
{
	char *root = track_root(env->results_dir);
	DIR *dh = opendir(root);
	struct track_info *out = NULL;
	struct dirent *e;

	*n = 0;
	while (dh && (e = readdir(dh))) {
		char *path = xasprintf("%s/%s/state.json", root, e->d_name);
		struct track_state st;

		if (e->d_name[0] != '.' && !track_state_try_load(path, &st)) {
			out = xrealloc(out, (*n + 1) * sizeof(*out));
			out[(*n)++] = (struct track_info){ .name = xstrdup(e->d_name),
							   .points = st.npoints,
							   .file = st.file };
			st.file = NULL;
			track_state_release(&st);
		}
		free(path);
	}
	if (dh)
		closedir(dh);
	free(root);
	return out;
}

void track_list_free(struct track_info *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].name);
		free(l[i].file);
	}
	free(l);
}

static void progress(struct track *t)
{
	unsigned int done, queued, failed;

	track_counts(t, &done, &queued, &failed);
	lab_info("track %s: %zu kernels x %zu jobs: %u measured, %u queued, %u failed", t->def.name,
		 t->state.npoints, t->def.njobs, done, queued, failed);
}

/* one pass: new points, measure, detect, confirm, bisect; 0 or -1 */
static int run_once(struct track *t, const struct track_run_opts *o)
{
	size_t added;
	int ret;

	if (track_points_update(t, &added) || track_save(t))
		return -1;
	if (added)
		lab_info("track %s: %zu new kernel%s", t->def.name, added, added == 1 ? "" : "s");
	ret = track_measure(t, o);
	progress(t);
	if (ret)
		return -1;
	if (track_detect(t) || track_save(t))
		return -1;
	if (o->no_confirm)
		return 0;
	if (track_confirm(t))
		return -1;
	if (o->no_bisect || !t->def.bisect)
		return 0;
	return track_bisect(t) ? -1 : 0;
}

/* --follow: wait poll_s seconds for the next look; false when interrupted */
static bool wait_poll(const struct track *t, unsigned int poll_s)
{
	lab_info("track %s: the next look at the kernels in %u s (--poll)", t->def.name, poll_s);
	return track_sleep(poll_s);
}

/* --follow: the track file read again, for points 'track add' added since */
static int reload(struct track *t)
{
	char *file = xasprintf("%s/track.yaml", t->dir);
	struct track_def d;
	int ret = trackfile_load(file, t->state.file, &d);

	if (!ret) {
		trackfile_release(&t->def);
		t->def = d;
	}
	free(file);
	return ret;
}

int track_run(const struct track_env *env, const char *name, const struct track_run_opts *o,
	      bool *bad_input)
{
	struct track t;
	int ret;

	*bad_input = true;
	if (track_open(env, name, true, &t))
		return -1;
	*bad_input = false;
	/* --follow ends at the first pass that fails or is interrupted */
	while (!(ret = run_once(&t, o)) && o->follow)
		if (!wait_poll(&t, o->poll_s ? o->poll_s : 600) || reload(&t))
			break;
	track_close(&t);
	return ret;
}

json_t *track_status(const struct track_env *env, const char *name)
{
	struct track t;
	unsigned int done, queued, failed;
	json_t *st, *jobs;

	if (track_open(env, name, false, &t))
		return NULL;
	track_counts(&t, &done, &queued, &failed);
	st = track_state_to_json(&t.state);
	json_object_set_new(st, "counts",
			    json_pack("{s:I, s:I, s:I, s:I}", "kernels",
				      (json_int_t)t.state.npoints, "measured", (json_int_t)done,
				      "queued", (json_int_t)queued, "failed", (json_int_t)failed));
	jobs = json_array();
	for (size_t i = 0; i < t.def.njobs; i++)
		json_array_append_new(jobs, json_string(t.def.jobs[i].name));
	json_object_set_new(st, "jobs", jobs);
	track_close(&t);
	return st;
}
