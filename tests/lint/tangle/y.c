/* y.c - planted type-only tangle (tests/lint/run): y uses x */
#include "x.h"
#include "y.h"
unsigned int y_norm(unsigned int x, unsigned int y)
{
	struct y_point p = { x, y };

	return x_len(&p);
}
