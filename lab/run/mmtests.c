// SPDX-License-Identifier: GPL-2.0
/*
 * mmtests.c - an mmtests workload in a run (job_mmtests.h, mmtests.h), its
 * struct workload_ops (run.h): a command workload (own.c) that runs lab's
 * script, with these steps added:
 *
 *   before any boot   what the config's benchmarks need (mmtests/needs.c):
 *                     the image's packages, the externals Debian stands in
 *                     for; the source files the shellpacks fetch, from the
 *                     job's mirror or the host's cache (mmtests/sources.c),
 *                     else the run is refused. The user's tree (without
 *                     work/ and .git), those files (in its work/sources/,
 *                     where mmtests' sources_fetch and git_fetch find them)
 *                     and lab's script go to the guest with every boot.
 *   each iteration    mmtests' log unpacked and its samples imported as
 *                     metrics (mmtests/import.c); an iteration whose log
 *                     gives none fails, saying why
 */
#include <stdlib.h>
#include <string.h>

#include "job/job_mmtests.h"
#include "job/job_own.h"
#include "mmtests/mmtests.h"
#include "lib/util.h"
#include "run/run.h"

#define GUEST_WORKDIR "mmlab/work"

static char *guest_script(void)
{
	char *dir = resource_dir("MMLAB_GUEST_SCRIPTS_DIR", "scripts/guest",
				 "../share/mmlab/guest-scripts");
	char *p = xasprintf("%s/%s", dir, MMTESTS_GUEST_SCRIPT);

	free(dir);
	if (path_exists(p))
		return p;
	lab_err("%s is missing; is mmlab installed completely (make install)?", p);
	free(p);
	return NULL;
}

/* the mmtests part first: the stubs it adds are checked with the command */
static int mmtests_prepare(struct run *r)
{
	struct job_mmtests *m = r->job->workload.mmtests;
	struct job_own *o = r->job->workload.own;
	struct mmtests_needs nd;
	struct kvlist src = { 0 };
	char *script, *gp;

	if (mmtests_needs(m, r->spec->cache_dir, &nd))
		return -1;
	if (mmtests_sources(&nd.fetches, m->mirror, r->spec->cache_dir, &src)) {
		mmtests_needs_release(&nd);
		return -1;
	}
	for (size_t i = 0; i < src.n; i++) {
		gp = xasprintf("%s/%s/work/sources/%s", GUEST_WORKDIR, MMTESTS_GUEST_TREE,
			       src.v[i].key);
		kvlist_set(&r->guest_files, gp, src.v[i].value);
		free(gp);
	}
	kvlist_free(&src);
	for (size_t i = 0; i < nd.notes.n; i++)
		lab_info("%s", nd.notes.v[i]);
	for (size_t i = 0; i < nd.packages.n; i++)
		if (!strlist_has(&r->job->image.packages, nd.packages.v[i]))
			strlist_push(&r->job->image.packages, nd.packages.v[i]);
	/* a resumed run loads the job again: the stubs are added once */
	for (size_t i = 0; i < nd.stubs.n; i++)
		if (!strlist_has(&o->argv, nd.stubs.v[i])) {
			strlist_push(&o->argv, "--stub");
			strlist_push(&o->argv, nd.stubs.v[i]);
		}
	mmtests_needs_release(&nd);
	script = guest_script();
	if (!script)
		return -1;
	gp = xasprintf("%s/%s", GUEST_WORKDIR, MMTESTS_GUEST_SCRIPT);
	kvlist_set(&r->guest_files, gp, script);
	free(gp);
	free(script);
	gp = xasprintf("%s/%s", GUEST_WORKDIR, MMTESTS_GUEST_TREE);
	kvlist_set(&r->guest_trees, gp, m->dir);
	free(gp);
	return run_own_prepare(r);
}

/* the command's record, then the import */
static void mmtests_record(struct run *r, const struct boot_out *out, struct iteration_out *io,
			   const char *dir)
{
	const struct job_mmtests *m = r->job->workload.mmtests;
	char *why = NULL;
	json_t *imp;

	run_own_record(r, out, io, dir);
	imp = mmtests_import(m, dir, io->metrics, &why);
	if (imp) {
		json_object_set_new(io->doc, "mmtests", imp);
		return;
	}
	if (!strcmp(io->status, "ok")) {
		io->status = "failed";
		free(io->reason);
		io->reason = why;
		return;
	}
	json_object_set_new(io->doc, "mmtests", json_pack("{s:s}", "error", why));
	free(why);
}

const struct workload_ops workload_mmtests_ops = {
	.name = "mmtests",
	.prepare = mmtests_prepare,
	.plan = run_own_plan,
	.collect = run_own_collect,
	.record = mmtests_record,
	.warn_failures = true,
};
