/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_util.h - timing helpers shared by the MMV benchmarks.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @v in place. */
static inline double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/*
 * Median ns per call of run(arg, n) over @reps (at most 32) repetitions,
 * n calibrated first (doubling, which also warms caches and the PLT) so
 * that one repetition takes about @target_ns.
 */
static inline double bench_median_ns(void (*run)(const void *arg, long n),
		const void *arg, int reps, double target_ns)
{
	double r[32], t = 0;
	long n = 1;

	for (;;) {
		double t0 = now_ns();

		run(arg, n);
		t = now_ns() - t0;
		if (t >= target_ns / 8 || n >= (1L << 40))
			break;
		n *= 2;
	}
	if (t > 0)
		n = (long)((double)n * target_ns / t) + 1;
	if (reps > 32)
		reps = 32;
	for (int i = 0; i < reps; i++) {
		double t0 = now_ns();

		run(arg, n);
		r[i] = (now_ns() - t0) / (double)n;
	}
	return median(r, reps);
}

#endif
