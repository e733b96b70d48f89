/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_trace_shm - nanoseconds per trace call, one thread or two threads
 * on one tag, against whatever agent PCP_TRACE_HOST/PCP_TRACE_PORT name.
 * Linked against <pcp/trace.h> only (no rpath): bench/run-trace-shm.sh
 * runs it on PCP's library, on ours with PCP_TRACE_SHM=0 (PDUs) and on
 * ours with the shared segment, in one run.
 * usage: bench_trace_shm sync|async point|obs|txn|clock|hpoint|hobs THREADS N [BLOCKS]
 * (hpoint, hobs: through a tag handle, <pcp/trace_handle.h>; only in the
 * build with -DHANDLES, bench_trace_shm_ours, which needs our library;
 * clock: two clock_gettime(CLOCK_MONOTONIC) and no trace call, the floor
 * of a begin+end pair)
 * prints: <op> <threads> <median ns per call> <failed calls> <calls> <min ns per call>
 * (each thread makes N calls in BLOCKS blocks, default 9 or
 * $TRACE_SHM_BLOCKS, each timed alone: the median and the fastest block;
 * ns per call is the wall time of all threads over the calls of one
 * thread, so two threads at the speed of one give the same figure; a
 * begin+end pair counts as one call)
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
#include "bench_util.h"

#define MAX_BLOCKS	99

enum op { OP_POINT, OP_OBS, OP_TXN, OP_CLOCK, OP_HPOINT, OP_HOBS };

static const char *const op_names[] = { "point", "obs", "txn", "clock", "hpoint", "hobs" };
static enum op op;
static long per_block;
static int blocks;
static pthread_barrier_t bar;
static double start_ns[MAX_BLOCKS][16], end_ns[MAX_BLOCKS][16];

/* @count calls, counting those for which @fails is true */
#define LOOP(fails) for (long i = 0; i < count; i++) failed += (fails)

/* @count calls of the operation; the calls that failed */
static long calls(const char *tag, void *h, long count)
{
	struct timespec ts;
	long failed = 0;

	(void)h;
	switch (op) {
	case OP_POINT:
		LOOP(pmtracepoint(tag) < 0);
		break;
	case OP_OBS:
		LOOP(pmtraceobs(tag, (double)(i & 1023)) < 0);
		break;
	case OP_TXN:
		LOOP(pmtracebegin(tag) < 0 || pmtraceend(tag) < 0);
		break;
	case OP_CLOCK:
		for (long i = 0; i < count; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			clock_gettime(CLOCK_MONOTONIC, &ts);
			__asm__ volatile("" : : "r"(&ts) : "memory");
		}
		break;
#ifdef HANDLES
	case OP_HPOINT:
		LOOP(pmtracepoint_h(h) < 0);
		break;
	case OP_HOBS:
		LOOP(pmtraceobs_h(h, (double)(i & 1023)) < 0);
		break;
#endif
	default:
		break;
	}
	return failed;
}

static void *run(void *arg)
{
	char tag[32];
	void *h = NULL;
	long failed = 0;

	/* transactions are one per tag per process: a tag per thread */
	if (op == OP_TXN)
		snprintf(tag, sizeof(tag), "shm.txn%ld", (long)arg);
	else
		snprintf(tag, sizeof(tag), "shm.%s", op_names[op]);
#ifdef HANDLES
	if (op == OP_HPOINT || op == OP_HOBS)
		h = pmtracehandle_new(tag);
#endif
	/* each thread times itself: main() may not run while they do */
	for (int b = 0; b < blocks; b++) {
		pthread_barrier_wait(&bar);
		start_ns[b][(long)arg] = now_ns();
		failed += calls(tag, h, per_block);
		end_ns[b][(long)arg] = now_ns();
	}
#ifdef HANDLES
	pmtracehandle_free(h);
#endif
	return (void *)failed;
}

int main(int argc, char **argv)
{
	const char *env = getenv("TRACE_SHM_BLOCKS");
	double ns[MAX_BLOCKS], lo;
	pthread_t th[16];
	long failed = 0, n;
	int threads, k = -1;
	void *f;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s sync|async point|obs|txn|clock|hpoint|hobs THREADS N "
			"[BLOCKS]\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < (int)(sizeof(op_names) / sizeof(op_names[0])); i++)
		if (strcmp(argv[2], op_names[i]) == 0)
			k = i;
#ifndef HANDLES
	if (k >= OP_HPOINT)
		k = -1;
#endif
	threads = atoi(argv[3]);
	n = atol(argv[4]);
	blocks = argc == 6 ? atoi(argv[5]) : env != NULL ? atoi(env) : 9;
	if (k < 0 || threads < 1 || threads > 16 || blocks < 1 || blocks > MAX_BLOCKS ||
	    n < blocks)
		return 2;
	op = (enum op)k;
	per_block = n / blocks;
	if (strcmp(argv[1], "async") == 0)
		pmtracestate(PMTRACE_STATE_ASYNC);
	pmtracepoint("shm.connect");	/* connect before the clock starts */
	pthread_barrier_init(&bar, NULL, (unsigned)threads);
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, run, (void *)(long)t);
	for (int t = 0; t < threads; t++) {
		pthread_join(th[t], &f);
		failed += (long)f;
	}
	/* a block: from its first thread's start to its last thread's end */
	for (int b = 0; b < blocks; b++) {
		double t0 = start_ns[b][0], t1 = end_ns[b][0];

		for (int t = 1; t < threads; t++) {
			t0 = start_ns[b][t] < t0 ? start_ns[b][t] : t0;
			t1 = end_ns[b][t] > t1 ? end_ns[b][t] : t1;
		}
		ns[b] = (t1 - t0) / (double)per_block;
	}
	lo = ns[0];
	for (int b = 1; b < blocks; b++)
		lo = ns[b] < lo ? ns[b] : lo;
	printf("%s %d %.1f %ld %ld %.1f\n", op_names[op], threads, median(ns, blocks), failed,
	       per_block * blocks * threads, lo);
	return 0;
}
