// SPDX-License-Identifier: GPL-2.0
/*
 * hang - says ready, then never finishes its measured phase (tests the
 * host's iteration deadline).
 */
#include <unistd.h>

#include "wl.h"

int main(int argc, char **argv)
{
	if (wl_init(argc, argv) < 0)
		return 2;
	if (wl_ready_and_wait() < 0)
		return 1;
	for (;;)
		pause();
}
