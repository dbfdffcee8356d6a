/* a.c - half of a planted include cycle (tests/lint/run): a uses b */
#include "a.h"
int a_twice(int x)
{
	return x < 0 ? b_thrice(-x) : 2 * x;
}
