/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mmv_hist.c - the cost of recording into a histogram
 * (<pcp/mmv_histogram.h>) beside mmv_inc_value on a U64 counter.
 *
 * One source, built twice like bench_mmv.c: against PCP's headers and
 * Debian's libpcp_mmv (bench_mmv_hist_pcp: mmv_inc_value only, PCP has no
 * histograms) and against ours with -DOURS (bench_mmv_hist_ours).
 *
 * Output: "key value unit" lines, "key na reason" for a case the library
 * lacks. Single-threaded cases: median ns per call over REPS timed loops of
 * a calibrated length. Two-thread cases: both threads start together and
 * make MT_CALLS calls each on the same value (or histogram); the figure is
 * wall time / MT_CALLS, the cost per call as each thread sees it, median
 * of MT_REPS runs. Recorded values cycle through a table of pseudo-random
 * values spread over every bucket, so the branch on under/overflow and
 * the bucket are not the same on every call.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
#ifdef OURS
#include <pcp/mmv_histogram.h>
#endif

#include "bench_util.h"

#define REPS		9
#define TARGET_NS	25e6
#define MT_CALLS	4000000
#define MT_REPS		5
#define NVALUES		4096	/* a power of two */

struct ctx {
	void *addr;
	pmAtomValue *counter;
	void *hist;		/* mmv_histogram_t *, NULL with PCP */
};

typedef void (*loop_fn)(const void *arg, long n);

static uint64_t values[NVALUES];

static double measure(loop_fn fn, const struct ctx *c)
{
	return bench_median_ns(fn, c, REPS, TARGET_NS);
}

static void loop_inc_value(const void *arg, long n)
{
	const struct ctx *c = arg;

	for (long i = 0; i < n; i++)
		mmv_inc_value(c->addr, c->counter, 1);
}

#ifdef OURS
static void loop_record(const void *arg, long n)
{
	const struct ctx *c = arg;

	for (long i = 0; i < n; i++)
		mmv_histogram_record(c->hist, values[i & (NVALUES - 1)]);
}

static void loop_record_since(const void *arg, long n)
{
	const struct ctx *c = arg;

	for (long i = 0; i < n; i++)
		mmv_histogram_record_since(c->hist, mmv_histogram_now());
}

static volatile uint64_t sink;

static void loop_now(const void *arg, long n)
{
	(void)arg;
	for (long i = 0; i < n; i++)
		sink = mmv_histogram_now();
}
#endif

struct job {
	loop_fn fn;
	const struct ctx *c;
	pthread_barrier_t *start;
};

static void *run_job(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(j->start);
	j->fn(j->c, MT_CALLS);
	return NULL;
}

/* Two threads, @a and @b (the same or different contexts). */
static double measure2(loop_fn fn, const struct ctx *a, const struct ctx *b)
{
	double r[MT_REPS];

	for (int k = 0; k < MT_REPS; k++) {
		pthread_barrier_t start;
		struct job ja = { fn, a, &start }, jb = { fn, b, &start };
		pthread_t ta, tb;
		double t0;

		pthread_barrier_init(&start, NULL, 3);
		pthread_create(&ta, NULL, run_job, &ja);
		pthread_create(&tb, NULL, run_job, &jb);
		t0 = now_ns();
		pthread_barrier_wait(&start);
		pthread_join(ta, NULL);
		pthread_join(tb, NULL);
		r[k] = (now_ns() - t0) / MT_CALLS;
		pthread_barrier_destroy(&start);
	}
	return median(r, MT_REPS);
}

static void report(const char *key, double v)
{
	printf("%s %.3f ns/op\n", key, v);
}

int main(void)
{
	pmUnits count = { .dimCount = 1, .scaleCount = PM_COUNT_ONE };
	mmv_registry_t *reg = mmv_stats_registry("bench_hist", 0, 0);
	struct ctx c = { 0 }, c2 = { 0 };
	uint64_t x = 88172645463325252ULL;

	for (int i = 0; i < NVALUES; i++) {	/* xorshift: 0 .. 2^21 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		values[i] = x >> 43;
	}
	if (reg == NULL ||
	    mmv_stats_add_metric(reg, "counter", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
				 count, 0, NULL, NULL) < 0 ||
	    mmv_stats_add_metric(reg, "counter2", 2, MMV_TYPE_U64, MMV_SEM_COUNTER,
				 count, 0, NULL, NULL) < 0) {
		perror("bench_mmv_hist: registry");
		return 1;
	}
#ifdef OURS
	pmUnits usec = { .dimTime = 1, .scaleTime = PM_TIME_USEC };

	/* 64 us .. 1 s, 4 sub-buckets: 16 powers of two, 66 buckets */
	if (mmv_stats_add_histogram(reg, "lat", 3, 10, 0, 64, 1 << 20, 4, usec,
				    NULL, NULL) < 0 ||
	    mmv_stats_add_histogram(reg, "lat2", 6, 11, 0, 64, 1 << 20, 4, usec,
				    NULL, NULL) < 0) {
		perror("bench_mmv_hist: histogram");
		return 1;
	}
#endif
	if ((c.addr = mmv_stats_start(reg)) == NULL) {
		perror("bench_mmv_hist: start");
		return 1;
	}
	c2.addr = c.addr;
	c.counter = mmv_lookup_value_desc(c.addr, "counter", NULL);
	c2.counter = mmv_lookup_value_desc(c.addr, "counter2", NULL);
#ifdef OURS
	c.hist = mmv_stats_histogram(c.addr, "lat", NULL);
	c2.hist = mmv_stats_histogram(c.addr, "lat2", NULL);
#endif

	report("inc_value_1t", measure(loop_inc_value, &c));
	report("inc_value_2t_same", measure2(loop_inc_value, &c, &c));
	report("inc_value_2t_own", measure2(loop_inc_value, &c, &c2));
#ifdef OURS
	report("record_1t", measure(loop_record, &c));
	report("record_2t_same", measure2(loop_record, &c, &c));
	report("record_2t_own", measure2(loop_record, &c, &c2));
	report("now_1t", measure(loop_now, &c));
	report("record_since_now_1t", measure(loop_record_since, &c));
#else
	for (int i = 0; i < 5; i++)
		printf("%s na no-histograms-in-pcp\n", (const char *[]){ "record_1t",
		       "record_2t_same", "record_2t_own", "now_1t",
		       "record_since_now_1t" }[i]);
#endif
	mmv_stats_free(reg);
	return 0;
}
