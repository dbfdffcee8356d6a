/* up.h - the upper folder of a planted upward include (tests/lint/run) */
#include "lower/low.h"
int up_double(int x);
