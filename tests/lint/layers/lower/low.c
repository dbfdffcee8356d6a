/* low.c - a planted upward include (tests/lint/run): lower/ uses upper/ */
#include "lower/low.h"
#include "upper/up.h"
int low_half(int x)
{
	return x < 0 ? up_double(x) : x / 2;
}
