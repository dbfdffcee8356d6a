/*
 * shared.h - a header without a .c of its own, implemented by two command
 * files that each use what the other defines: the cmd-queue.c/cmd-submit.c
 * knot of issue 16, planted (tests/lint/run)
 */
int queue_add(const char *path);
void slurm_fill(int id);
