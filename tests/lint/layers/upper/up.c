/* up.c - includes the folder below it, as a layer may (tests/lint/run) */
#include "upper/up.h"
int up_double(int x)
{
	return low_half(x) * 4;
}
