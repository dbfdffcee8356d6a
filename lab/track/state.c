// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - a track's directory in the store (RESULTS/tracks/NAME): its
 * track file, its state.json written whole and atomically, and the lock
 * "track run" holds. What every step of lab/track/ builds on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "track/internal.h"

char *track_root(const char *results_dir)
{
	return xasprintf("%s/tracks", results_dir);
}

char *track_change_key(const char *job, const char *before, const char *after)
{
	return xasprintf("%s/%s..%s", job, before, after);
}

unsigned long long track_hash(const char *a, const char *b)
{
	unsigned long long h = 1469598103934665603ULL;

	for (const char *s = a; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	h = (h ^ '/') * 1099511628211ULL;
	for (const char *s = b; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

int track_state_write(const char *path, const struct track_state *st)
{
	char *text = track_state_dump(st);
	int ret = text ? write_file_atomic(path, text, strlen(text), 0644) : -1;

	free(text);
	return ret;
}

int track_save(struct track *t)
{
	char *path = xasprintf("%s/state.json", t->dir);
	int ret = track_state_write(path, &t->state);

	free(path);
	return ret;
}

struct track_point *track_point(struct track *t, const char *id)
{
	return track_state_point(&t->state, id);
}

static volatile sig_atomic_t stop_sleeping;

static void on_signal(int sig)
{
	(void)sig;
	stop_sleeping = 1;
}

bool track_sleep(unsigned int seconds)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;

	stop_sleeping = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (unsigned int s = 0; s < seconds && !stop_sleeping; s++)
		sleep(1);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return !stop_sleeping;
}

static int take_lock(struct track *t)
{
	char *path = xasprintf("%s/lock", t->dir);

	t->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (t->lock_fd < 0 || flock(t->lock_fd, LOCK_EX | LOCK_NB)) {
		lab_err("track %s: another 'mmlab track run' holds %s; wait for it, or stop it "
			"(it can be started again: nothing is measured twice)",
			t->def.name, path);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

int track_open(const struct track_env *env, const char *name, bool lock, struct track *t)
{
	char *root = track_root(env->results_dir), *file, *state;

	memset(t, 0, sizeof(*t));
	t->env = env;
	t->lock_fd = -1;
	t->dir = xasprintf("%s/%s", root, name);
	free(root);
	file = xasprintf("%s/track.yaml", t->dir);
	state = xasprintf("%s/state.json", t->dir);
	if (!path_exists(file)) {
		lab_err("no track '%s' in %s; add one with 'mmlab track add FILE' ('mmlab track "
			"list' lists them)",
			name, env->results_dir);
		goto fail;
	}
	if (track_state_load(state, &t->state))
		goto fail;
	if (trackfile_load(file, t->state.file, &t->def))
		goto fail;
	if (lock && take_lock(t))
		goto fail;
	t->store = store_open(env->results_dir);
	if (!t->store)
		goto fail;
	free(file);
	free(state);
	return 0;
fail:
	free(file);
	free(state);
	track_close(t);
	return -1;
}

void track_close(struct track *t)
{
	if (t->lock_fd >= 0)
		close(t->lock_fd);
	if (t->store)
		store_close(t->store);
	track_state_release(&t->state);
	trackfile_release(&t->def);
	free(t->dir);
	memset(t, 0, sizeof(*t));
	t->lock_fd = -1;
}
