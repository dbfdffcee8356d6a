/* cmd-submit.c - planted: defines slurm_fill, uses queue_add */
#include "shared.h"
void slurm_fill(int id)
{
	if (id > 1)
		queue_add("x");
}
