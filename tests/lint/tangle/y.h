/* y.h - planted type-only tangle (tests/lint/run) */
struct y_point {
	unsigned int x, y;
};
unsigned int y_norm(unsigned int x, unsigned int y);
