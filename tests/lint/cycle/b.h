/* b.h - half of a planted include cycle (tests/lint/run) */
int b_thrice(int x);
