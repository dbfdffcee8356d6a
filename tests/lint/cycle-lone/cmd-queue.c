/* cmd-queue.c - planted: defines queue_add, uses slurm_fill */
#include "shared.h"
int queue_add(const char *path)
{
	slurm_fill(path[0]);
	return 0;
}
