// SPDX-License-Identifier: GPL-2.0
/*
 * timefmt.c - time formatting (timefmt.h).
 */
#include "lib/timefmt.h"

char *time_iso(time_t t, char buf[TIME_STR_LEN])
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, TIME_STR_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm))
		buf[0] = '\0';
	return buf;
}

char *time_iso_now(char buf[TIME_STR_LEN])
{
	return time_iso(time(NULL), buf);
}

char *time_stamp(time_t t, bool local, char buf[TIME_STR_LEN])
{
	struct tm tm;

	if (!(local ? localtime_r(&t, &tm) : gmtime_r(&t, &tm)) ||
	    !strftime(buf, TIME_STR_LEN, "%Y%m%d-%H%M%S", &tm))
		buf[0] = '\0';
	return buf;
}
