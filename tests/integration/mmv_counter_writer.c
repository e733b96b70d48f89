/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmv_counter_writer.c - threads incrementing contention-free counters
 * (include/pcp/mmv_counter.h) for tests/integration/mmv_counter.sh, built
 * on our libpcp_mmv.
 *
 * Creates $PCP_TMP_DIR/mmv/ctr (no MMV_FLAG_PROCESS: the file stays) with
 *   ctr.hits   U64 counter (item 1)
 *   ctr.small  U32 counter (item 2)
 *   ctr.req    U64 counter of indom 1 (get 0, put 1) (item 3)
 * all through mmv_counter_open, prints "ready", then reads commands:
 *   run N M PAUSE  start N threads (at most 16), each of which adds, M
 *                  times, 1 to hits, small and req[get] and 3 to
 *                  req[put], sleeping PAUSE microseconds after every
 *                  1000 rounds; answered at once
 *   join           join them (each thread's exit folds its slots)
 *   fork K         a child adds K to hits and exits (its exit folds);
 *                  answered once it has been waited for
 * each answered by a line "done" ("fail" if a call failed). On EOF it
 * exits normally. The values are never flushed explicitly.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pcp/mmv_counter.h>

#define MAX_THREADS	16

static mmv_counter_t *hits, *small, *get, *put;

struct job {
	unsigned long m;
	unsigned long pause_us;
};

static void *worker(void *arg)
{
	const struct job *j = arg;
	struct timespec nap = {
		(time_t)(j->pause_us / 1000000), (long)(j->pause_us % 1000000) * 1000
	};

	for (unsigned long i = 1; i <= j->m; i++) {
		mmv_counter_inc(hits);
		mmv_counter_inc(small);
		mmv_counter_inc(get);
		mmv_counter_add(put, 3);
		if (i % 1000 == 0 && j->pause_us)
			nanosleep(&nap, NULL);
	}
	return NULL;
}

static mmv_counter_t *counter(void *addr, const char *metric, const char *inst)
{
	return mmv_counter_open(addr, mmv_lookup_value_desc(addr, metric, inst));
}

static int fork_add(unsigned long long k)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		mmv_counter_add(hits, k);
		exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return 0;
}

int main(void)
{
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	mmv_registry_t *reg = mmv_stats_registry("ctr", 0, 0);
	pthread_t th[MAX_THREADS];
	unsigned long long k;
	unsigned int nthreads = 0, n;
	struct job job;
	char line[256];
	void *addr;
	int ok;

	if (reg == NULL ||
	    mmv_stats_add_indom(reg, 1, "methods", NULL) < 0 ||
	    mmv_stats_add_instance(reg, 1, 0, "get") < 0 ||
	    mmv_stats_add_instance(reg, 1, 1, "put") < 0 ||
	    mmv_stats_add_metric(reg, "hits", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
				 count, 0, "Hits", NULL) < 0 ||
	    mmv_stats_add_metric(reg, "small", 2, MMV_TYPE_U32, MMV_SEM_COUNTER,
				 count, 0, "A 32-bit counter", NULL) < 0 ||
	    mmv_stats_add_metric(reg, "req", 3, MMV_TYPE_U64, MMV_SEM_COUNTER,
				 count, 1, "Requests by method", NULL) < 0 ||
	    (addr = mmv_stats_start(reg)) == NULL) {
		perror("mmv_counter_writer: cannot create the MMV file");
		return 1;
	}
	hits = counter(addr, "hits", NULL);
	small = counter(addr, "small", NULL);
	get = counter(addr, "req", "get");
	put = counter(addr, "req", "put");
	if (!hits || !small || !get || !put) {
		perror("mmv_counter_writer: mmv_counter_open");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		ok = 1;
		if (sscanf(line, "run %u %lu %lu", &n, &job.m, &job.pause_us) == 3 &&
		    n <= MAX_THREADS && nthreads == 0) {
			for (nthreads = 0; nthreads < n; nthreads++)
				if (pthread_create(&th[nthreads], NULL, worker, &job) != 0) {
					ok = 0;
					break;
				}
		} else if (strcmp(line, "join\n") == 0) {
			while (nthreads > 0)
				if (pthread_join(th[--nthreads], NULL) != 0)
					ok = 0;
		} else if (sscanf(line, "fork %llu", &k) == 1) {
			ok = fork_add(k) == 0;
		} else {
			fprintf(stderr, "mmv_counter_writer: unknown command %s", line);
			return 2;
		}
		printf(ok ? "done\n" : "fail\n");
		fflush(stdout);
	}
	while (nthreads > 0)
		pthread_join(th[--nthreads], NULL);
	if (mmv_counter_fallbacks() != 0) {
		fprintf(stderr, "mmv_counter_writer: %llu fallbacks\n",
			(unsigned long long)mmv_counter_fallbacks());
		return 3;
	}
	return 0;
}
