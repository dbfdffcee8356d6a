/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_ts.h - the time-series plots of the HTML report (report_ts.c).
 */
#ifndef MMLAB_REPORT_TS_H
#define MMLAB_REPORT_TS_H

#include <libxml/xmlwriter.h>

#include "analysis/compare.h"

/*
 * The 1 Hz series as small multiples (<svg class="ts">, variants overlaid,
 * the measured phase marked) and the memory taken per node
 * (<svg class="nodemem">); nothing when no variant has a time series.
 */
void rep_time_series(xmlTextWriterPtr w, const struct comparison *c);

#endif
