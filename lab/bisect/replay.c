// SPDX-License-Identifier: GPL-2.0
/*
 * replay.c - a new bisection from the log of an earlier one (result.c
 * writes it): its parameters and measured steps, then git's bisect log
 * replayed in a new worktree (docs/bisect.md, "Commands": replay).
 */
#include <stdlib.h>

#include <jansson.h>

#include "bisect/bisect_git.h"
#include "bisect/internal.h"
#include "lib/util.h"

/* the log's parameters, typed; 0 or -1 after a message */
static int replay_params(const char *file, const char *text, struct bisect_params *p, json_t *steps)
{
	json_t *params;
	char err[256];
	int ret = 0;

	bisect_log_parse(text, &params, steps);
	if (!params) {
		lab_err("%s is not a log of 'mmlab bisect' (no '%sparams' line); "
			"'mmlab bisect log' writes one",
			file, BISECT_LOG_TAG);
		return -1;
	}
	if (bisect_params_from_json(params, p, err, sizeof(err))) {
		lab_err("%s: its '%sparams' line is not one mmlab wrote (%s); "
			"'mmlab bisect log' writes one",
			file, BISECT_LOG_TAG, err);
		ret = -1;
	}
	json_decref(params);
	return ret;
}

/* the replayed bisection: made, and concluded when git finished */
static int replay_create(const struct bisect_env *env, const struct bisect_params *p, json_t *steps,
			 const char *file, const char *afile, json_t **result,
			 enum bisect_failure *why)
{
	struct bisect_session s;
	char *out = NULL;
	int ret = -1;

	if (session_create(&s, env, p, steps, afile, &out))
		goto out;
	lab_info("bisect: replayed %zu measured commits from %s", json_array_size(steps), file);
	ret = 0;
	*why = BISECT_FAIL_RUN;
	if (bisect_git_finished(out, session_new_term(&s)))
		ret = bisect_conclude(&s, out, result);
out:
	session_close(&s);
	free(out);
	return ret;
}

int bisect_replay(const struct bisect_env *env, const char *file, json_t **result,
		  enum bisect_failure *why)
{
	char *text = read_file(file, NULL, 64u << 20), *afile;
	json_t *steps = json_array();
	struct bisect_params p = { 0 };
	int ret = -1;

	*result = NULL;
	*why = BISECT_FAIL_USAGE;
	if (!text) {
		lab_err("cannot read the bisect log %s", file);
	} else if (!replay_params(file, text, &p, steps)) {
		afile = path_abs(file);
		ret = replay_create(env, &p, steps, file, afile, result, why);
		free(afile);
	}
	bisect_params_release(&p);
	json_decref(steps);
	free(text);
	return ret;
}
