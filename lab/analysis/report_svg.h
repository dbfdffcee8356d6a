/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report_svg.h - the summary's forest plot and the box plots of the HTML
 * report (report_svg.c).
 */
#ifndef MMLAB_REPORT_SVG_H
#define MMLAB_REPORT_SVG_H

#include <libxml/xmlwriter.h>

#include "analysis/compare.h"
#include "analysis/summary.h"

/*
 * A forest plot: one CI bar per (metric, variant) row of rows[0..n), the
 * change in percent against the baseline, coloured by verdict
 * (significant rows) or grey.
 */
void rep_forest(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_sig *rows,
		size_t n, bool significant);
/* a box plot with the samples of every variant (one row each) */
void rep_box_plot(xmlTextWriterPtr w, const struct comparison *c, const struct cmp_metric *m);

#endif
