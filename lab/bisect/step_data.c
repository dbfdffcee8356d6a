// SPDX-License-Identifier: GPL-2.0
/*
 * step_data.c - a measured step's data (step_data.h): its release.
 */
#include <stdlib.h>
#include <string.h>

#include "bisect/step_data.h"

void step_data_release(struct step_data *d)
{
	strlist_free(&d->runs);
	strlist_free(&d->statuses);
	free(d->values);
	free(d->build_log);
	free(d->verdict);
	free(d->why);
	memset(d, 0, sizeof(*d));
}
