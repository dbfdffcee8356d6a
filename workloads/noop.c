// SPDX-License-Identifier: GPL-2.0
/*
 * noop - an empty measured phase: the lab's own overhead.
 */
#include "wl.h"

int main(int argc, char **argv)
{
	if (wl_init(argc, argv) < 0)
		return 2;
	if (wl_ready_and_wait() < 0 || wl_done_and_wait() < 0)
		return 1;
	return 0;
}
