/* low.h - the lower folder of a planted upward include (tests/lint/run) */
int low_half(int x);
