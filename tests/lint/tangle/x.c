/* x.c - planted type-only tangle (tests/lint/run) */
#include "x.h"
unsigned int x_len(const struct y_point *p)
{
	return p->x + p->y;
}
