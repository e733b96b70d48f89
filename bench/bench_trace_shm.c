/*
 * bench_trace_shm - nanoseconds per trace call, one thread or two threads
 * on one tag, against whatever agent PCP_TRACE_HOST/PCP_TRACE_PORT name.
 * Linked against <pcp/trace.h> only (no rpath): bench/run-trace-shm.sh
 * runs it on PCP's library, on ours with PCP_TRACE_SHM=0 (PDUs) and on
 * ours with the shared segment, in one run.
 * usage: bench_trace_shm sync|async point|obs|txn|hpoint|hobs THREADS N
 * (hpoint, hobs: through a tag handle, <pcp/trace_handle.h>; only in the
 * build with -DHANDLES, bench_trace_shm_ours, which needs our library)
 * prints: <op> <threads> <ns per call> <failed calls> <calls>
 * (each thread makes N calls; ns per call is the wall time of all threads
 * over the calls of one thread, so two threads at the speed of one give
 * the same figure; a begin+end pair counts as one call)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/trace.h>
#ifdef HANDLES
#include <pcp/trace_handle.h>
#endif

static const char *op;
static long n;
static pthread_barrier_t bar;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	char tag[32];
	long failed = 0;

	/* transactions are one per tag per process: a tag per thread */
	if (strcmp(op, "txn") == 0)
		snprintf(tag, sizeof(tag), "shm.txn%ld", (long)arg);
	else
		snprintf(tag, sizeof(tag), "shm.%s", op);
	pthread_barrier_wait(&bar);
	if (strcmp(op, "point") == 0) {
		for (long i = 0; i < n; i++)
			failed += pmtracepoint(tag) < 0;
	} else if (strcmp(op, "obs") == 0) {
		for (long i = 0; i < n; i++)
			failed += pmtraceobs(tag, (double)(i & 1023)) < 0;
#ifdef HANDLES
	} else if (strcmp(op, "hpoint") == 0 || strcmp(op, "hobs") == 0) {
		pmtracehandle *h = pmtracehandle_new(tag);

		if (op[1] == 'p')
			for (long i = 0; i < n; i++)
				failed += pmtracepoint_h(h) < 0;
		else
			for (long i = 0; i < n; i++)
				failed += pmtraceobs_h(h, (double)(i & 1023)) < 0;
		pmtracehandle_free(h);
#endif
	} else {
		for (long i = 0; i < n; i++)
			failed += pmtracebegin(tag) < 0 || pmtraceend(tag) < 0;
	}
	pthread_barrier_wait(&bar);
	return (void *)failed;
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	long failed = 0;
	double t0, t1;
	int threads;
	void *f;

	if (argc != 5) {
		fprintf(stderr, "usage: %s sync|async point|obs|txn THREADS N\n", argv[0]);
		return 2;
	}
	op = argv[2];
	threads = atoi(argv[3]);
	n = atol(argv[4]);
	if (threads < 1 || threads > 16 || n < 1)
		return 2;
	if (strcmp(argv[1], "async") == 0)
		pmtracestate(PMTRACE_STATE_ASYNC);
	pmtracepoint("shm.connect");	/* connect before the clock starts */
	pthread_barrier_init(&bar, NULL, (unsigned)threads + 1);
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, run, (void *)(long)t);
	pthread_barrier_wait(&bar);
	t0 = now();
	pthread_barrier_wait(&bar);
	t1 = now();
	for (int t = 0; t < threads; t++) {
		pthread_join(th[t], &f);
		failed += (long)f;
	}
	printf("%s %d %.1f %ld %ld\n", op, threads, (t1 - t0) * 1e9 / (double)n, failed,
	       n * threads);
	return 0;
}
