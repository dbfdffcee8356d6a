/* b.c - half of a planted include cycle (tests/lint/run): b uses a */
#include "a.h"
#include "b.h"
int b_thrice(int x)
{
	return a_twice(x) + x;
}
