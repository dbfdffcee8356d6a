// SPDX-License-Identifier: GPL-2.0
/*
 * test_track.c - the track file (lab/track/trackfile.c) and the jobs a
 * track derives from a job file (lab/job/rewrite.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "capture.h"
#include "job/job.h"
#include "job/rewrite.h"
#include "lib/util.h"
#include "track/internal.h"

static char dir[] = "/tmp/mmlab-test-track.XXXXXX";

static const char job_text[] = "name: j\n"
			       "kernels: { tree: /tmp }\n"
			       "variants:\n"
			       "  - name: first\n"
			       "    kernel: distro\n"
			       "  - name: tuned\n"
			       "    ref: v6.3\n"
			       "    cmdline: quiet\n"
			       "    sysctl: { vm.x: 2, vm.y: 1 }\n"
			       "    thp: { defrag: always }\n"
			       "    apply: [fix.patch]\n"
			       "topology: { nodes: 2, cpus_per_node: 1, memory_per_node: 256M }\n"
			       "workload: { name: usemem, params: { size: 64M } }\n"
			       "iterations: 5\n";

static char *write_in(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", dir, name);

	assert_int_equal(write_file_atomic(p, text, strlen(text), 0644), 0);
	return p;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(dir))
		return -1;
	free(write_in("job.yaml", job_text));
	free(write_in("fix.patch", "x\n"));
	free(write_in("x.config", "CONFIG_NUMA=y\n"));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return rm_rf(dir);
}

/* a point's settings replace the kernel and amend cmdline, sysctl and thp */
static void test_rewrite_point(void **state)
{
	json_t *set = json_pack("{s:s, s:s, s:{s:s}, s:{s:s}}", "kernel", "distro", "cmdline",
				"numa_balancing=1", "sysctl", "vm.x", "5", "thp", "enabled",
				"never");
	struct job_rewrite_variant v = { .name = "p07", .from = 1, .set = set, .drop_ops = true };
	struct job_rewrite rw = { .name = "j", .variants = &v, .nvariants = 1, .iterations = 2 };
	struct job *job = NULL;
	char err[256], *y;

	(void)state;
	y = job_rewrite_yaml(job_text, strlen(job_text), &rw, err, sizeof(err));
	assert_non_null(y);
	assert_int_equal(job_load_buffer("d.yaml", y, strlen(y), dir, &job), 0);
	assert_int_equal(job->nvariants, 1);
	assert_string_equal(job->variants[0].name, "p07");
	assert_int_equal(job->variants[0].kernel_kind, KERNEL_DISTRO);
	assert_null(job->variants[0].ref);
	assert_int_equal(job->variants[0].apply.n, 0);
	assert_string_equal(job->variants[0].cmdline, "quiet numa_balancing=1");
	assert_string_equal(kvlist_get(&job->variants[0].sysctl, "vm.x"), "5");
	assert_string_equal(kvlist_get(&job->variants[0].sysctl, "vm.y"), "1");
	assert_string_equal(job->variants[0].thp_enabled, "never");
	assert_string_equal(job->variants[0].thp_defrag, "always");
	assert_int_equal(job->iterations, 2);
	job_free(job);
	free(y);
	json_decref(set);
}

/* two variants (a confirmation), ops kept, kernels.tree and config replaced */
static void test_rewrite_pair(void **state)
{
	json_t *a = json_pack("{s:s}", "ref", "0123456789abcdef0123456789abcdef01234567");
	json_t *b = json_pack("{s:s}", "ref", "89abcdef0123456789abcdef0123456789abcdef");
	json_t *cfg = json_pack("{s:s, s:[s]}", "base", "defconfig", "fragments", "x.config");
	struct job_rewrite_variant v[2] = { { .name = "before", .from = 1, .set = a },
					    { .name = "after", .from = 1, .set = b } };
	struct job_rewrite rw = {
		.name = "c", .variants = v, .nvariants = 2, .tree = "/src/l", .config = cfg
	};
	struct job *job = NULL;
	char err[256], *y;

	(void)state;
	y = job_rewrite_yaml(job_text, strlen(job_text), &rw, err, sizeof(err));
	assert_non_null(y);
	assert_int_equal(job_load_buffer("d.yaml", y, strlen(y), dir, &job), 0);
	assert_int_equal(job->nvariants, 2);
	assert_string_equal(job->variants[1].name, "after");
	assert_string_equal(job->variants[1].ref, "89abcdef0123456789abcdef0123456789abcdef");
	assert_int_equal(job->variants[1].apply.n, 1);
	assert_string_equal(job->kernels.tree, "/src/l");
	assert_string_equal(job->kernels.config_base, "defconfig");
	assert_int_equal(job->iterations, 5);
	job_free(job);
	free(y);
	/* no such variant */
	v[1].from = 7;
	assert_null(job_rewrite_yaml(job_text, strlen(job_text), &rw, err, sizeof(err)));
	assert_non_null(strstr(err, "no variant number 8"));
	json_decref(a);
	json_decref(b);
	json_decref(cfg);
}

static const char good_track[] =
	"name: sweep\n"
	"kernels:\n"
	"  list:\n"
	"    - distro\n"
	"    - { name: p10, kernel: distro, sysctl: { vm.compaction_proactiveness: 10 } }\n"
	"    - { name: p20, kernel: distro, cmdline: 'a=b' }\n"
	"    - { name: pkg, kernel: { package: linux-image-6.1.0-47-amd64 } }\n"
	"jobs: [job.yaml, { job: job.yaml, variant: tuned }]\n"
	"iterations: 4\n"
	"watch: ['vmstat.compact_*', { metric: 'time.*', min_change: 5%, better: lower }]\n"
	"detect: { q: 0.01, seed: 7 }\n"
	"confirm: { max_iterations: 9 }\n"
	"bisect: false\n";

static void test_track_good(void **state)
{
	char *p = write_in("good.yaml", good_track);
	struct track_def d;
	struct capture c;
	char *errs, *frag;

	(void)state;
	/* the two jobs have one name: refused, naming both */
	capture_start(&c);
	assert_int_equal(trackfile_load(p, NULL, &d), -1);
	errs = capture_end(&c);
	assert_non_null(strstr(errs, "two jobs are named 'j'"));
	free(errs);
	free(p);
	p = write_in("good.yaml", "name: sweep\n"
				  "kernels: { list: [distro, distro2, { name: x, kernel: distro }, "
				  "{ name: y, ref: v1 }], config: { base: defconfig, "
				  "fragments: [x.config] } }\n"
				  "jobs: [{ job: job.yaml, variant: tuned }]\n");
	assert_int_equal(trackfile_load(p, NULL, &d), 0);
	assert_int_equal(d.njobs, 1);
	assert_int_equal(d.jobs[0].from, 1);
	assert_int_equal(d.nlist, 4);
	assert_string_equal(d.list[1].name, "p02");
	assert_null(d.list[1].ref);
	assert_null(json_object_get(d.list[1].set, "name"));
	assert_true(strstr(json_string_value(json_object_get(d.list[1].set, "kernel")),
			   "/distro2") != NULL);
	assert_string_equal(d.list[3].name, "y");
	assert_string_equal(d.list[3].ref, "v1");
	assert_string_equal(json_string_value(json_object_get(d.list[3].set, "ref")), "v1");
	/* kernels.config as fields, the fragments' paths absolute */
	assert_string_equal(d.config_base, "defconfig");
	assert_int_equal(d.config_fragments.n, 1);
	frag = xasprintf("%s/x.config", dir);
	assert_string_equal(d.config_fragments.v[0], frag);
	free(frag);
	assert_int_equal(d.iterations, 3);
	assert_true(d.q == 0.05 && d.min_rel == 0.02 && d.bisect);
	trackfile_release(&d);
	free(p);
}

static void test_track_options(void **state)
{
	char *text = xstrdup(good_track), *p;
	struct track_def d;

	(void)state;
	/* one job only: the file's second job entry dropped */
	*strstr(text, ", { job: job.yaml, variant: tuned }") = '\0';
	p = xasprintf("%s%s", text,
		      "]\niterations: 4\n"
		      "watch: ['vmstat.compact_*', { metric: 'time.*', "
		      "min_change: 5%, better: lower }]\n"
		      "detect: { q: 0.01, seed: 7 }\nconfirm: { max_iterations: 9 }\n"
		      "bisect: false\n");
	free(text);
	text = write_in("opts.yaml", p);
	assert_int_equal(trackfile_load(text, NULL, &d), 0);
	assert_int_equal(d.iterations, 4);
	assert_int_equal(d.nwatch, 2);
	assert_true(d.watch[1].min_rel == 0.05 && d.watch[1].better == -1);
	assert_true(d.q == 0.01 && d.seed == 7 && d.confirm_max == 9 && !d.bisect);
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(d.list[3].set, "kernel"), "package")),
			    "linux-image-6.1.0-47-amd64");
	trackfile_release(&d);
	free(text);
	free(p);
}

/* every error at its place, all of them in one pass */
static void test_track_errors(void **state)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "kernels: { list: [a, b, c, d] }\njobs: [job.yaml]\n",
		  "bad.yaml:1:1: error: name: required key is missing" },
		{ "name: x y\nkernels: { list: [a, b, c, d] }\njobs: [job.yaml]\n",
		  "bad.yaml:1:7: error: name: 'x y' is not a name" },
		{ "name: x\nkernels: { list: [a, b] }\njobs: [job.yaml]\n",
		  "bad.yaml:2:18: error: kernels.list: 2 points" },
		{ "name: x\nkernels: { branch: main }\njobs: [job.yaml]\n",
		  "bad.yaml:2:10: error: kernels.tree: required key is missing" },
		{ "name: x\nkernels: { list: [a, b, c, d], tags: 'v*' }\njobs: [job.yaml]\n",
		  "kernels.list: give a list, or a branch or tags" },
		{ "name: x\nkernels: { list: [a, b, c, d] }\njobs: []\n",
		  "bad.yaml:3:7: error: jobs: no job" },
		{ "name: x\nkernels: { list: [a, b, c, d] }\njobs: [job.yaml]\nwatch: [{ metric: "
		  "'a', min_change: lots }]\n",
		  "bad.yaml:4:36: error: watch[0].min_change: 'lots' is not a change" },
		{ "name: x\nkernels: { list: [a, b, c, d] }\njobs: [job.yaml]\ndetect: { q: 0.7 }\n",
		  "bad.yaml:4:14: error: detect.q: '0.7' is not a level" },
		{ "name: x\nkernels: { list: [a, a2, { name: a }, { name: p01 }] }\njobs: "
		  "[job.yaml]\n",
		  "the name 'p01' is given twice" },
		{ "name: x\nkernels: { list: [a, b, c, d] }\njobs: [job.yaml]\nbogus: 1\n",
		  "bad.yaml:4:1: error: bogus" },
		{ "name: x\nkernels: { list: [a, b, c, d] }\njobs: [nojob.yaml]\n",
		  "jobs[0]: the job" },
		{ "name: x\nkernels: { list: [a, b, c, d] }\njobs: [{ job: job.yaml, variant: "
		  "nope }]\n",
		  "jobs[0].variant: " },
	};

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char *p = write_in("bad.yaml", bad[i].text), *errs;
		struct track_def d;
		struct capture c;

		capture_start(&c);
		assert_int_equal(trackfile_load(p, NULL, &d), -1);
		errs = capture_end(&c);
		if (!strstr(errs, bad[i].want))
			fail_msg("case %zu: want \"%s\" in:\n%s", i, bad[i].want, errs);
		free(errs);
		free(p);
	}
}

/* run argv in the test repository; its output (malloc'd) */
static char *git(const char *repo, const char *const *args)
{
	char *out = track_git(repo, args);

	assert_non_null(out);
	return out;
}

static void make_repo(const char *repo)
{
	const char *init[] = { "init", "-q", "-b", "main", NULL };
	const char *cfg1[] = { "config", "user.email", "t@t.invalid", NULL };
	const char *cfg2[] = { "config", "user.name", "T", NULL };

	assert_int_equal(mkdir_p(repo, 0755), 0);
	free(git(repo, init));
	free(git(repo, cfg1));
	free(git(repo, cfg2));
	for (int i = 0; i < 7; i++) {
		char msg[32], tag[32];
		const char *commit[] = { "commit", "-q", "--allow-empty", "-m", msg, NULL };
		const char *tg[] = { "tag", tag, NULL };

		snprintf(msg, sizeof(msg), "commit %d", i);
		free(git(repo, commit));
		snprintf(tag, sizeof(tag), i == 6 ? "odd/v1.%d" : "v1.%d", i);
		free(git(repo, tg));
	}
}

/* a branch every 2nd commit from since (and the newest), tags in version order */
static void test_points(void **state)
{
	char *repo = xasprintf("%s/repo", dir);
	struct track t = { 0 };
	struct track_point *pts;
	size_t added;

	(void)state;
	make_repo(repo);
	t.def.tree = repo;
	t.def.branch = "main";
	t.def.since = "v1.1";
	t.def.every = 2;
	assert_int_equal(track_points_update(&t, &added), 0);
	pts = t.state.points;
	/* v1.1 (since), v1.3, v1.5, and the newest (v1.6's commit) */
	assert_int_equal(added, 4);
	assert_int_equal(t.state.npoints, 4);
	assert_string_equal(pts[0].subject, "commit 1");
	assert_string_equal(pts[3].subject, "commit 6");
	assert_true(pts[1].commit != NULL);
	assert_string_equal(json_string_value(json_object_get(pts[1].set, "ref")), pts[1].commit);
	assert_non_null(pts[1].added);
	/* again: nothing new */
	assert_int_equal(track_points_update(&t, &added), 0);
	assert_int_equal(added, 0);
	assert_int_equal(t.state.npoints, 4);
	track_state_release(&t.state);
	/* tags: version order; a tag that cannot name a variant is named by its commit */
	t.def.branch = NULL;
	t.def.tags = "*v1.*";
	assert_int_equal(track_points_update(&t, &added), 0);
	pts = t.state.points;
	assert_int_equal(added, 7);
	/* "odd/v1.6" sorts first; its label is its commit's 12 digits */
	assert_int_equal(strlen(pts[0].label), 12);
	assert_string_equal(pts[1].label, "v1.0");
	assert_string_equal(pts[6].label, "v1.5");
	track_state_release(&t.state);
	free(repo);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rewrite_point), cmocka_unit_test(test_rewrite_pair),
		cmocka_unit_test(test_track_good),    cmocka_unit_test(test_track_options),
		cmocka_unit_test(test_track_errors),  cmocka_unit_test(test_points),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
