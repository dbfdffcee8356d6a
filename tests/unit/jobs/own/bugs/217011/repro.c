/* a stand-in for a bug report's reproducer (tests/unit/job/test_job_own.c) */
#include <stdio.h>

int main(void)
{
	printf("avg alloc latency: 1.5 us\nfailed: 0\n");
	return 0;
}
