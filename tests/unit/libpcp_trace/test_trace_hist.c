/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/trace_hist.h, the trace histograms' log-linear bucket scheme:
 * indexes against an independent frexp() computation, bucket bounds that
 * contain what they index, the stated 1.6 % error, and nearest rank.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "trace_hist.h"

#define LAST (TRACE_HIST_NBUCKETS - 1)

/* The scheme from its definition: binade from frexp, sub-bucket from the mantissa. */
static uint32_t index_ref(double v)
{
	int e;
	double m;

	if (!(v >= ldexp(1, TRACE_HIST_EXP_MIN)))
		return 0;
	if (v >= ldexp(1, TRACE_HIST_EXP_MAX))
		return LAST;
	m = frexp(v, &e);	/* v = m * 2^e, m in [0.5, 1) */
	m *= 2;
	e -= 1;
	return (uint32_t)(e - TRACE_HIST_EXP_MIN) * TRACE_HIST_SUB +
		(uint32_t)floor((m - 1) * TRACE_HIST_SUB) + 1;
}

static void layout(void **state)
{
	(void)state;
	assert_int_equal(TRACE_HIST_NBUCKETS, 2242);
	assert_int_equal(TRACE_HIST_SUB, 32);
}

/* The edges of the range and what falls outside it. */
static void edges(void **state)
{
	double lo = ldexp(1, -30), hi = ldexp(1, 40);

	(void)state;
	assert_int_equal(trace_hist_index(0.0), 0);
	assert_int_equal(trace_hist_index(-0.0), 0);
	assert_int_equal(trace_hist_index(-1.0), 0);
	assert_int_equal(trace_hist_index(-INFINITY), 0);
	assert_int_equal(trace_hist_index(NAN), 0);
	assert_int_equal(trace_hist_index(ldexp(1, -1074)), 0);	/* subnormal */
	assert_int_equal(trace_hist_index(nextafter(lo, 0)), 0);
	assert_int_equal(trace_hist_index(lo), 1);
	assert_int_equal(trace_hist_index(nextafter(hi, 0)), LAST - 1);
	assert_int_equal(trace_hist_index(hi), LAST);
	assert_int_equal(trace_hist_index(INFINITY), LAST);
	assert_int_equal(trace_hist_index(1e300), LAST);
	assert_int_equal(trace_hist_index(1.0), (uint32_t)(0 - TRACE_HIST_EXP_MIN) * 32 + 1);
	assert_true(trace_hist_low(1) == lo);
	assert_true(trace_hist_low(LAST) == hi);
	assert_true(trace_hist_value(0) == lo);	/* open buckets: their finite bound */
	assert_true(trace_hist_value(LAST) == hi);
}

/*
 * Every closed bucket: its lower bound and the double just below the
 * next bucket's index to it, so does its midpoint, the bounds rise, and
 * the midpoint is within 1/64 (1.56 % <= the stated 1.6 %) of both ends.
 */
static void every_bucket(void **state)
{
	double worst = 0;

	(void)state;
	for (uint32_t i = 1; i < LAST; i++) {
		double low = trace_hist_low(i), next = trace_hist_low(i + 1);
		double top = nextafter(next, 0), mid = trace_hist_value(i);
		double e1 = (mid - low) / low, e2 = (top - mid) / top;

		assert_true(low < next);
		assert_true(low == ldexp(1 + (double)((i - 1) % 32) / 32, (int)((i - 1) / 32) - 30));
		assert_int_equal(trace_hist_index(low), i);
		assert_int_equal(trace_hist_index(top), i);
		assert_int_equal(trace_hist_index(mid), i);
		assert_int_equal(index_ref(low), i);
		assert_int_equal(index_ref(top), i);
		if (e1 > worst)
			worst = e1;
		if (e2 > worst)
			worst = e2;
	}
	assert_true(worst <= 1.0 / 64);
	assert_true(worst > 1.0 / 64 - 1e-9);	/* the bound is tight: bucket [1, 1+1/32) */
}

/* Values across the whole range and beyond: the same index as from frexp. */
static void matches_reference(void **state)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	(void)state;
	for (int n = 0; n < 200000; n++) {
		double v;
		uint32_t i;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = ldexp((double)(x >> 11) / 9007199254740992.0, (int)(x % 90) - 40);
		i = trace_hist_index(v);
		assert_int_equal(i, index_ref(v));
		if (i > 0 && i < LAST) {
			assert_true(v >= trace_hist_low(i) && v < trace_hist_low(i + 1));
			assert_true(fabs(trace_hist_value(i) - v) <= v / 64);
		}
	}
}

/* Nearest rank: the smallest r with r >= pct/100 * n, at least 1. */
static void rank(void **state)
{
	(void)state;
	assert_int_equal(trace_hist_rank(50, 1000), 500);
	assert_int_equal(trace_hist_rank(90, 1000), 900);
	assert_int_equal(trace_hist_rank(99, 1000), 990);
	assert_int_equal(trace_hist_rank(99, 100), 99);
	assert_int_equal(trace_hist_rank(50, 3), 2);
	assert_int_equal(trace_hist_rank(50, 4), 2);
	assert_int_equal(trace_hist_rank(99, 1), 1);
	assert_int_equal(trace_hist_rank(0.001, 10), 1);
	assert_int_equal(trace_hist_rank(100, 7), 7);
	assert_int_equal(trace_hist_rank(99.9, 1001), 1000);	/* 999.999 */
	for (uint64_t n = 1; n < 500; n++)
		for (int p = 1; p <= 100; p++) {
			uint64_t r = trace_hist_rank(p, n);

			assert_true(r >= 1 && r <= n);
			assert_true(r * 100 >= (uint64_t)p * n);	/* reaches pct */
			assert_true((r - 1) * 100 < (uint64_t)p * n || r == 1);	/* smallest */
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layout),
		cmocka_unit_test(edges),
		cmocka_unit_test(every_bucket),
		cmocka_unit_test(matches_reference),
		cmocka_unit_test(rank),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
