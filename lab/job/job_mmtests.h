/* SPDX-License-Identifier: GPL-2.0 */
/*
 * job_mmtests.h - a job's "workload: { mmtests: { dir, config } }": one
 * mmtests config run inside the guest by mmtests' own run-mmtests.sh
 * (docs/workloads.md, "mmtests"). Parsed by lab/job/parse_mmtests.c, which
 * also makes the command workload (job_own.h) that runs it: the guest
 * side is lab's fixed script workloads/mmtests-run.sh, the host side
 * lab/mmtests/ (the image's packages, the import of mmtests' logs, its
 * compare-kernels.sh report).
 */
#ifndef MMLAB_JOB_MMTESTS_H
#define MMLAB_JOB_MMTESTS_H

#include "lib/util.h"

#define MMTESTS_MAX_BENCHMARKS 16
#define MMTESTS_CONFIG_MAX (1u << 20)
/* mmtests' name for the run inside the guest (run-mmtests.sh RUNNAME) */
#define MMTESTS_RUN_NAME "mmlab"
/* the guest's paths, relative to the working directory /mmlab/work */
#define MMTESTS_GUEST_TREE "mmtests"
#define MMTESTS_GUEST_CONFIG "mmtests-config"
#define MMTESTS_GUEST_SCRIPT "mmtests-run.sh"
/* the archive of mmtests' work/log/ the script leaves, brought back by collect_files */
#define MMTESTS_GUEST_LOG "/mmlab/work/mmtests-log.tar.gz"

struct job_mmtests {
	char *dir; /* absolute: the user's mmtests checkout */
	char *config; /* absolute host path of the config file */
	struct strlist benchmarks; /* the config's MMTESTS= words */
	struct strlist packages; /* mmtests.packages: given in the job */
	char *mirror; /* absolute, or NULL: a local mirror laid out as mmtests' WEBROOT */
	unsigned int line, column; /* of mmtests:, for the run's refusals */
};

void job_mmtests_free(struct job_mmtests *m);

/*
 * The benchmarks a config runs: the words of its last MMTESTS= line
 * ("export MMTESTS=\"a b\""). 0, or -1 with why (malloc'd) when the
 * config sets none or names one that is not a benchmark name.
 */
int mmtests_config_benchmarks(const char *text, size_t len, struct strlist *out, char **why);

#endif
