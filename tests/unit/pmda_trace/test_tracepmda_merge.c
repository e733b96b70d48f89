/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's batch merge (tra_agg_merge_in, pmda_trace/core/agg_record.c)
 * and its histograms: a batch must leave exactly what its reports recorded
 * one by one (tra_agg_record_in) leave -- counts, totals, the window's
 * count/min/max/sum, the latest value, the histogram and so percentiles --
 * and a batch no reports could make is refused without a trace.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <urcu.h>

#include "../../../pmda_trace/core/agg.h"
#include "agg_clock.h"

/* A fixed pseudo-random sequence (xorshift64), the same on every run. */
static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/*
 * A value for @type: transaction times from 1 us to ~1000 s, observations
 * also zero and negative, all multiples of 2^-20 below 2^20 so sums in
 * any order are exact and the totals of the two paths compare with ==.
 */
static double pick(int type)
{
	uint64_t r = next_rand();
	double v = (double)(r % (1u << 20)) / (1u << 20);	/* [0, 1) */

	v *= (double)(1u << (r >> 20) % 20);			/* up to 2^19 */
	if (type == TRACE_OBSERVE && (r >> 40) % 8 == 0)
		v = -v;
	if (type == TRACE_TRANSACT && v < 0x1p-20)
		v = 0x1p-20;
	return v;
}

/* A batch being filled: what a client's segment would hold. */
struct acc {
	struct trace_batch b;
	uint64_t hist[TRACE_HIST_NBUCKETS];
};

static void acc_clear(struct acc *a)
{
	memset(a, 0, sizeof(*a));
	a->b.hist = a->hist;
}

static void acc_add(struct acc *a, double v)
{
	if (a->b.count == 0 || v < a->b.min)
		a->b.min = v;
	if (a->b.count == 0 || v > a->b.max)
		a->b.max = v;
	a->b.count++;
	a->b.sum += v;
	a->b.last = v;
	a->hist[trace_hist_index(v)]++;
}

static const char *const tags[] = { "alpha", "beta", "gamma" };
#define NTAGS 3

static void assert_same(struct trace_agg *one, struct trace_agg *batch, int type)
{
	static uint64_t h1[TRACE_HIST_NBUCKETS], h2[TRACE_HIST_NBUCKETS];

	for (int i = 0; i < NTAGS; i++) {
		/* instance numbers follow the order tags first arrive in */
		int inst = tra_agg_lookup(one, type, tags[i]);
		int inst2 = tra_agg_lookup(batch, type, tags[i]);
		struct trace_stats s1, s2;

		if (inst < 0) {
			assert_int_equal(inst2, -ENOENT);
			continue;
		}
		assert_true(inst2 > 0);
		assert_int_equal(tra_agg_get(one, type, inst, &s1), 0);
		assert_int_equal(tra_agg_get(batch, type, inst2, &s2), 0);
		assert_int_equal(s1.count, s2.count);
		assert_true(s1.total == s2.total);
		assert_true(s1.value == s2.value);
		assert_int_equal(s1.in_window, s2.in_window);
		if (!s1.in_window)
			continue;
		assert_int_equal(s1.wcount, s2.wcount);
		if (type == TRACE_POINT || type == TRACE_COUNTER)
			continue;	/* their min/max/sum are not exported */
		assert_true(s1.wmin == s2.wmin);
		assert_true(s1.wmax == s2.wmax);
		assert_true(s1.wsum == s2.wsum);
		assert_int_equal(tra_agg_window_hist(one, type, inst, h1), (int)s1.wcount);
		assert_int_equal(tra_agg_window_hist(batch, type, inst2, h2), (int)s2.wcount);
		assert_memory_equal(h1, h2, sizeof(h1));
		for (int p = 1; p <= 100; p++) {
			double pct = p, v1, v2;

			assert_int_equal(tra_agg_percentiles(one, type, inst, &pct, 1, &v1), 0);
			assert_int_equal(tra_agg_percentiles(batch, type, inst2, &pct, 1, &v2), 0);
			assert_true(v1 == v2);
		}
	}
}

/*
 * For each type, over 14 sub-intervals of -T 6 -N 3: random reports for
 * three tags, recorded one by one into one aggregation and merged into
 * the other as one to three batches a sub-interval (so batches also land
 * in histograms that already hold values); compared at every step.
 */
static void merge_equals_records(void **state)
{
	static struct acc acc[NTAGS];

	(void)state;
	for (int type = 1; type <= TRACE_NTYPES; type++) {
		struct trace_agg *one, *batch;

		at(0);
		one = tra_agg_new(6, 3, 0, fake_clock, NULL);
		batch = tra_agg_new(6, 3, 0, fake_clock, NULL);
		assert_non_null(one);
		assert_non_null(batch);
		for (int step = 0; step < 14; step++) {
			uint64_t seq;

			at(step * 2.0 + 0.5);
			seq = tra_agg_seq(one);
			assert_int_equal(seq, (uint64_t)step);
			for (int i = 0; i < NTAGS; i++)
				acc_clear(&acc[i]);
			/* tag i reports in steps where (step + i) % 4 != 3 */
			for (int n = 0; n < 400; n++) {
				int i = (int)(next_rand() % NTAGS);
				double v = pick(type);

				if ((step + i) % 4 == 3)
					continue;
				assert_true(tra_agg_record_in(one, seq, type, tags[i],
							strlen(tags[i]), v) > 0);
				acc_add(&acc[i], v);
				if (next_rand() % 150 == 0) {	/* flush early */
					assert_true(tra_agg_merge_in(batch, seq, type, tags[i],
								strlen(tags[i]), &acc[i].b) > 0);
					acc_clear(&acc[i]);
				}
			}
			for (int i = 0; i < NTAGS; i++) {
				int r = tra_agg_merge_in(batch, seq, type, tags[i],
							 strlen(tags[i]), &acc[i].b);

				assert_true(acc[i].b.count ? r > 0 : r >= 0);
			}
			assert_same(one, batch, type);
			at(step * 2.0 + 1.9);
			assert_same(one, batch, type);
		}
		at(40);	/* the window has emptied */
		assert_same(one, batch, type);
		tra_agg_free(one);
		tra_agg_free(batch);
	}
}

/* A batch of one report is one report, for a new tag too. */
static void merge_one(void **state)
{
	struct trace_agg *a;
	struct trace_stats s;
	static struct acc acc;
	double pct[3] = { 50, 90, 99 }, v[3];

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	acc_clear(&acc);
	acc_add(&acc, 0.25);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &acc.b), 1);
	assert_int_equal(tra_agg_get(a, TRACE_TRANSACT, 1, &s), 0);
	assert_int_equal(s.count, 1);
	assert_true(s.total == 0.25);
	assert_false(s.in_window);
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 3, v), -ENODATA);
	at(2);
	assert_int_equal(tra_agg_get(a, TRACE_TRANSACT, 1, &s), 0);
	assert_true(s.in_window && s.wcount == 1 && s.wmin == 0.25 && s.wmax == 0.25);
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 3, v), 0);
	assert_true(v[0] == 0.25 && v[1] == 0.25 && v[2] == 0.25);	/* clamped */
	tra_agg_free(a);
}

/* No reports: nothing happens, no tag appears; a known tag says its number. */
static void merge_empty(void **state)
{
	struct trace_agg *a;
	struct trace_batch none = { 0 };
	struct trace_stats s;

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &none), 0);
	assert_int_equal(tra_agg_lookup(a, TRACE_TRANSACT, "t"), -ENOENT);
	assert_int_equal(tra_agg_generation(a), 0);
	assert_int_equal(tra_agg_record_in(a, 0, TRACE_TRANSACT, "t", 1, 1.0), 1);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &none), 1);
	assert_int_equal(tra_agg_get(a, TRACE_TRANSACT, 1, &s), 0);
	assert_int_equal(s.count, 1);
	assert_true(s.total == 1.0);
	tra_agg_free(a);
}

/* Batches no reports could make: -EINVAL, nothing recorded or created. */
static void merge_refuses(void **state)
{
	struct trace_agg *a;
	static struct acc acc;
	struct trace_batch b;

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	acc_clear(&acc);
	acc_add(&acc, 1.0);
	acc_add(&acc, 2.0);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, NULL), -EINVAL);
	b = acc.b;
	b.hist = NULL;	/* transactions need their histogram */
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &b), -EINVAL);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_OBSERVE, "t", 1, &b), -EINVAL);
	b = acc.b;
	b.count = 3;	/* the histogram holds 2 */
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &b), -EINVAL);
	b = acc.b;
	b.min = 3.0;	/* above max */
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &b), -EINVAL);
	b = acc.b;
	b.count = TRACE_BATCH_MAX + 1;
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_POINT, "t", 1, &b), -EINVAL);
	acc.hist[5] = UINT64_MAX;	/* the counts overflow */
	acc.hist[6] = 3;
	b = acc.b;
	b.count = 4;
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &b), -EINVAL);
	acc.hist[5] = acc.hist[6] = 0;
	assert_int_equal(tra_agg_merge_in(a, 0, 0, "t", 1, &acc.b), -EINVAL);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_NTYPES + 1, "t", 1, &acc.b), -EINVAL);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 0, &acc.b), -EINVAL);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, NULL, 1, &acc.b), -EINVAL);
	assert_int_equal(tra_agg_generation(a), 0);	/* no tag was made */
	/* points and counters ignore a histogram, and need none */
	b = acc.b;
	b.hist = NULL;
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_POINT, "p", 1, &b), 1);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_COUNTER, "c", 1, &acc.b), 1);
	tra_agg_free(a);
}

/* The tag cap (-t) holds for batches as for reports. */
static void merge_tag_cap(void **state)
{
	struct trace_agg *a;
	struct trace_batch b = { .count = 2, .sum = 2, .min = 1, .max = 1, .last = 1 };

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 1, fake_clock, NULL);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_POINT, "x", 1, &b), 1);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_POINT, "y", 1, &b), -ENOSPC);
	assert_int_equal(tra_agg_record_in(a, 0, TRACE_POINT, "y", 1, 0), -ENOSPC);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_POINT, "x", 1, &b), 1);
	tra_agg_free(a);
}

/*
 * A batch for a sub-interval whose slot already holds a later one has
 * left the window: the totals take it, the window does not.
 */
static void merge_late(void **state)
{
	struct trace_agg *a;
	static struct acc acc;
	struct trace_stats s;
	static uint64_t h[TRACE_HIST_NBUCKETS];

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	at(8.5);	/* sub-interval 4, in the slot of 0 */
	assert_int_equal(tra_agg_record(a, TRACE_TRANSACT, "t", 1, 1.0), 1);
	acc_clear(&acc);
	acc_add(&acc, 5.0);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_TRANSACT, "t", 1, &acc.b), 1);
	at(10.5);
	assert_int_equal(tra_agg_get(a, TRACE_TRANSACT, 1, &s), 0);
	assert_int_equal(s.count, 2);
	assert_true(s.total == 6.0);
	assert_true(s.in_window && s.wcount == 1 && s.wmax == 1.0);
	assert_int_equal(tra_agg_window_hist(a, TRACE_TRANSACT, 1, h), 1);
	assert_int_equal(h[trace_hist_index(1.0)], 1);
	tra_agg_free(a);
}

/*
 * Every one of the 2242 histogram indexes in one sub-interval, then a
 * sparse one in the same slot: the arrays grow to the whole scheme and
 * shrink back (ASan watches), and the window counts stay exact.
 */
static void hist_grows_and_shrinks(void **state)
{
	struct trace_agg *a;
	static struct acc acc;
	static uint64_t h[TRACE_HIST_NBUCKETS];
	double pct = 50, v;

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	acc_clear(&acc);
	for (uint32_t i = 1; i < TRACE_HIST_NBUCKETS; i++)
		acc_add(&acc, trace_hist_low(i));
	acc_add(&acc, -1.0);
	assert_int_equal(tra_agg_merge_in(a, 0, TRACE_OBSERVE, "o", 1, &acc.b), 1);
	for (int i = TRACE_HIST_NBUCKETS - 1; i > 0; i -= 7)	/* into existing ones */
		assert_int_equal(tra_agg_record_in(a, 0, TRACE_OBSERVE, "o", 1,
						   trace_hist_value((uint32_t)i)), 1);
	at(2);
	assert_int_equal(tra_agg_window_hist(a, TRACE_OBSERVE, 1, h), 2242 + 321);
	for (uint32_t i = 0; i < TRACE_HIST_NBUCKETS; i++)
		assert_int_equal(h[i], 1 + (i > 0 && (TRACE_HIST_NBUCKETS - 1 - i) % 7 == 0));
	for (int round = 1; round <= 8; round++) {	/* slot 0 again, sparse */
		at(round * 8.0 + 0.5);
		assert_int_equal(tra_agg_record(a, TRACE_OBSERVE, "o", 1, 3.0), 1);
	}
	at(66.5);
	assert_int_equal(tra_agg_window_hist(a, TRACE_OBSERVE, 1, h), 1);
	assert_int_equal(h[trace_hist_index(3.0)], 1);
	assert_int_equal(tra_agg_percentiles(a, TRACE_OBSERVE, 1, &pct, 1, &v), 0);
	assert_true(v == 3.0);
	tra_agg_free(a);
}

/*
 * Percentiles of a known distribution: 1..1000 ms once each, in the
 * window; nearest rank gives 500, 900 and 990 ms, and the histogram
 * within the scheme's 1/64 relative error.
 */
static void percentiles_known(void **state)
{
	struct trace_agg *a;
	double pct[4] = { 50, 90, 99, 100 }, want[4] = { 0.5, 0.9, 0.99, 1.0 }, v[4];

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	for (int ms = 1000; ms >= 1; ms--)	/* order does not matter */
		assert_int_equal(tra_agg_record(a, TRACE_TRANSACT, "t", 1, ms / 1000.0), 1);
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 4, v), -ENODATA);
	at(2);
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 4, v), 0);
	for (int j = 0; j < 4; j++)
		assert_true(fabs(v[j] - want[j]) <= want[j] / 64);
	assert_true(v[3] == 1.0);	/* the top bucket clamps to the window's max */
	pct[0] = 0;
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 1, v), -EINVAL);
	pct[0] = 100.5;
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 1, v), -EINVAL);
	pct[0] = NAN;
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 1, v), -EINVAL);
	pct[0] = 50;
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 0, v), -EINVAL);
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 2, pct, 1, v), -ENOENT);
	assert_int_equal(tra_agg_record(a, TRACE_POINT, "p", 1, 0), 1);
	assert_int_equal(tra_agg_percentiles(a, TRACE_POINT, 1, pct, 1, v), -ENODATA);
	at(10);	/* out of the window */
	assert_int_equal(tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 1, v), -ENODATA);
	tra_agg_free(a);
}

/* Many sub-intervals (more slots than the stack holds) merge the same way. */
static void percentiles_many_slots(void **state)
{
	struct trace_agg *a;
	double pct[3] = { 50, 90, 99 }, v[3];

	(void)state;
	at(0);
	a = tra_agg_new(40, 40, 0, fake_clock, NULL);
	for (int s = 0; s < 40; s++) {
		at(s + 0.5);
		for (int k = 1; k <= 25; k++)	/* 1..1000 across the slots */
			tra_agg_record(a, TRACE_OBSERVE, "o", 1, (double)(s * 25 + k));
	}
	at(40.5);
	assert_int_equal(tra_agg_percentiles(a, TRACE_OBSERVE, 1, pct, 3, v), 0);
	assert_true(fabs(v[0] - 500) <= 500.0 / 64);
	assert_true(fabs(v[1] - 900) <= 900.0 / 64);
	assert_true(fabs(v[2] - 990) <= 990.0 / 64);
	tra_agg_free(a);
}

#define NTHREADS 4
#define ROUNDS 2000

static uint64_t merge_hist[TRACE_HIST_NBUCKETS];	/* three values of 0.5 s; set before the threads */
static int merge_failures;	/* cmocka's asserts belong to the main thread */

static void *merger(void *arg)
{
	struct trace_agg *a = arg;
	struct trace_batch b = { 3, 1.5, 0.5, 0.5, 0.5, merge_hist };

	rcu_register_thread();
	for (int i = 0; i < ROUNDS; i++) {
		if (tra_agg_merge_in(a, tra_agg_seq(a), TRACE_TRANSACT, "m", 1, &b) != 1 ||
		    tra_agg_record(a, TRACE_TRANSACT, "m", 1, 0.5) != 1)
			__atomic_add_fetch(&merge_failures, 1, __ATOMIC_RELAXED);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Batches and reports from several threads while the fetch side reads: nothing lost. */
static void concurrent_merges(void **state)
{
	pthread_t th[NTHREADS];
	struct trace_agg *a = tra_agg_new(1, 2, 0, NULL, NULL);	/* real clock, 0.5 s slots */
	struct trace_stats s;
	double pct[3] = { 50, 90, 99 }, v[3];

	(void)state;
	merge_hist[trace_hist_index(0.5)] = 3;
	assert_int_equal(tra_agg_record(a, TRACE_TRANSACT, "m", 1, 0.5), 1);
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, merger, a);
	for (int i = 0; i < 2000; i++) {
		int r = tra_agg_percentiles(a, TRACE_TRANSACT, 1, pct, 3, v);

		assert_true(r == 0 || r == -ENODATA);
		if (r == 0)
			assert_true(v[0] == 0.5 && v[2] == 0.5);
		assert_int_equal(tra_agg_get(a, TRACE_TRANSACT, 1, &s), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(merge_failures, 0);
	assert_int_equal(tra_agg_get(a, TRACE_TRANSACT, 1, &s), 0);
	assert_int_equal(s.count, 1 + (uint64_t)NTHREADS * ROUNDS * 4);
	assert_true(s.total == 0.5 * (double)s.count);
	tra_agg_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merge_equals_records),
		cmocka_unit_test(merge_one),
		cmocka_unit_test(merge_empty),
		cmocka_unit_test(merge_refuses),
		cmocka_unit_test(merge_tag_cap),
		cmocka_unit_test(merge_late),
		cmocka_unit_test(hist_grows_and_shrinks),
		cmocka_unit_test(percentiles_known),
		cmocka_unit_test(percentiles_many_slots),
		cmocka_unit_test(concurrent_merges),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
