/* SPDX-License-Identifier: GPL-2.0 */
/*
 * timefmt.h - the two ways mmlab writes a time: ISO 8601 in UTC for what
 * it stores ("2026-12-03T10:28:59Z"), and a compact stamp for names
 * ("20261203-102859").
 */
#ifndef MMLAB_TIMEFMT_H
#define MMLAB_TIMEFMT_H

#include <stdbool.h>
#include <time.h>

#define TIME_STR_LEN 32

/* t in UTC as "YYYY-MM-DDTHH:MM:SSZ"; returns buf */
char *time_iso(time_t t, char buf[TIME_STR_LEN]);
/* now, the same */
char *time_iso_now(char buf[TIME_STR_LEN]);
/* t as "YYYYMMDD-HHMMSS", in UTC or in local time; returns buf */
char *time_stamp(time_t t, bool local, char buf[TIME_STR_LEN]);

#endif
