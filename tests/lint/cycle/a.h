/* a.h - half of a planted include cycle (tests/lint/run) */
#include "b.h"
int a_twice(int x);
