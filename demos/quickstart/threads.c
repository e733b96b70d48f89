/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads.c - four threads add to one counter, mmv.threads.work, through
 * the inline fast path: one atomic add each, none lost.
 */
#include <pthread.h>
#include <stdio.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_inline.h>

enum { THREADS = 4, ADDS = 1000000 };

static pmAtomValue *work;	/* a value handle, shared by the threads */

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ADDS; i++)
		mmv_fast_add_u64(work, 1);	/* for MMV_TYPE_U64 only */
	return NULL;
}

int main(void)
{
	pmUnits one = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	mmv_registry_t *reg = mmv_stats_registry("threads", 0, 0);
	pthread_t t[THREADS];

	mmv_stats_add_metric(reg, "work", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
		one, 0, "Units of work done", NULL);
	void *mmv = mmv_stats_start(reg);
	/* the fast path checks nothing: no handle, no threads */
	if ((work = mmv_lookup_value_desc(mmv, "work", NULL)) == NULL) {
		perror("threads: no metrics");
		return 1;
	}
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("work %llu\n", (unsigned long long)work->ull);
	mmv_stats_free(reg);
	return 0;
}
