/*
 * x.h - a planted type-only tangle (tests/lint/run): x.h includes y.h for
 * its struct, y.c calls x_len(); no .c file needs the other's code, so
 * only check-include-cycles --includes reports it
 */
#include "y.h"
unsigned int x_len(const struct y_point *p);
