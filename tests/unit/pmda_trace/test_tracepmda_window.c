/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's aggregation (pmda_trace/core/agg_*.c): per-tag counts and the
 * rolling window, driven by an injected clock. Expected values are the
 * worked example (docs/trace-protocol.md §8.6, -T 6 -N 3) and the rules of §8.2, §8.3.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <urcu.h>

#include "../../../pmda_trace/core/agg.h"
#include "agg_clock.h"

static int rec(struct trace_agg *a, int type, const char *tag, double v)
{
	return tra_agg_record(a, type, tag, strlen(tag), v);
}

static struct trace_stats get(struct trace_agg *a, int type, const char *tag)
{
	struct trace_stats s;
	int inst = tra_agg_lookup(a, type, tag);

	assert_true(inst > 0);
	assert_int_equal(tra_agg_get(a, type, inst, &s), 0);
	return s;
}

/* rate as the agent exports it: window count over the period T */
static void assert_rate(struct trace_stats s, double expect, double period)
{
	assert_true(s.in_window);
	assert_true(fabs(s.wcount / period - expect) < 1e-9);
}

static void worked_example(void **state)
{
	struct trace_agg *a;
	struct trace_stats s;

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);
	assert_non_null(a);

	at(1.3);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rec(a, TRACE_POINT, "A", -1), 1);
	rec(a, TRACE_TRANSACT, "T", 1.0);
	rec(a, TRACE_TRANSACT, "T", 3.0);
	rec(a, TRACE_OBSERVE, "O", 10);
	rec(a, TRACE_COUNTER, "C", 100);
	s = get(a, TRACE_POINT, "A");
	assert_false(s.in_window);	/* nothing before the first rotation */
	s = get(a, TRACE_TRANSACT, "T");
	assert_false(s.in_window);
	assert_int_equal(s.count, 2);
	assert_true(s.total == 4.0);
	assert_true(get(a, TRACE_OBSERVE, "O").value == 10);

	at(3.0);
	assert_rate(get(a, TRACE_POINT, "A"), 5.0 / 6, 6);
	s = get(a, TRACE_TRANSACT, "T");
	assert_rate(s, 2.0 / 6, 6);
	assert_true(s.wsum / s.wcount == 2.0 && s.wmin == 1.0 && s.wmax == 3.0);

	at(3.1);
	for (int i = 0; i < 3; i++)
		rec(a, TRACE_POINT, "A", -1);
	assert_int_equal(rec(a, TRACE_POINT, "B", -1), 2);
	rec(a, TRACE_TRANSACT, "T", 2.0);
	rec(a, TRACE_OBSERVE, "O", 20);
	rec(a, TRACE_COUNTER, "C", 150);
	assert_rate(get(a, TRACE_POINT, "A"), 5.0 / 6, 6);
	assert_false(get(a, TRACE_POINT, "B").in_window);
	s = get(a, TRACE_TRANSACT, "T");
	assert_rate(s, 2.0 / 6, 6);
	assert_int_equal(s.count, 3);
	assert_true(s.total == 6.0);
	assert_true(get(a, TRACE_OBSERVE, "O").value == 20);
	assert_true(get(a, TRACE_COUNTER, "C").value == 150);

	at(5.0);
	assert_rate(get(a, TRACE_POINT, "A"), 8.0 / 6, 6);
	assert_rate(get(a, TRACE_POINT, "B"), 1.0 / 6, 6);
	s = get(a, TRACE_TRANSACT, "T");
	assert_rate(s, 0.5, 6);
	assert_true(s.wsum / s.wcount == 2.0 && s.wmin == 1.0 && s.wmax == 3.0);

	at(7.0);
	assert_rate(get(a, TRACE_POINT, "A"), 8.0 / 6, 6);

	at(9.0);
	assert_rate(get(a, TRACE_POINT, "A"), 0.5, 6);
	s = get(a, TRACE_TRANSACT, "T");
	assert_rate(s, 1.0 / 6, 6);
	assert_true(s.wsum / s.wcount == 2.0 && s.wmin == 2.0 && s.wmax == 2.0);

	at(11.0);
	assert_false(get(a, TRACE_POINT, "A").in_window);
	s = get(a, TRACE_TRANSACT, "T");
	assert_false(s.in_window);
	assert_int_equal(s.count, 3);	/* counts stay */
	tra_agg_free(a);
}

/* Sub-intervals of exactly T/N, also when N does not divide T (3.6.1). */
static void uneven_subinterval(void **state)
{
	struct trace_agg *a;

	(void)state;
	at(0);
	a = tra_agg_new(10, 3, 0, fake_clock, NULL);
	at(1);
	rec(a, TRACE_POINT, "p", -1);
	at(3.333);
	assert_false(get(a, TRACE_POINT, "p").in_window);
	at(3.334);	/* 10/3 s have passed */
	assert_true(get(a, TRACE_POINT, "p").in_window);
	at(13.333);	/* sub-interval 0 is still among the last three */
	assert_true(get(a, TRACE_POINT, "p").in_window);
	at(13.334);
	assert_false(get(a, TRACE_POINT, "p").in_window);
	tra_agg_free(a);
}

struct seen {
	int n;
	int inst[8];
	char name[8][8];
};

static void collect(void *arg, int inst, const char *name)
{
	struct seen *s = arg;

	s->inst[s->n] = inst;
	strcpy(s->name[s->n++], name);
}

static int seen_inst(const struct seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->name[i], name) == 0)
			return s->inst[i];
	return -1;
}

/* docs/trace-protocol.md §8.2: a=1 b=2 c=3; reset; c d a arrive and get 3 4 1. */
static void reset_keeps_numbers(void **state)
{
	struct trace_agg *a;
	struct seen s = { 0 };

	(void)state;
	at(0);
	a = tra_agg_new(60, 5, 0, fake_clock, NULL);
	assert_int_equal(rec(a, TRACE_POINT, "a", -1), 1);
	assert_int_equal(rec(a, TRACE_POINT, "b", -1), 2);
	assert_int_equal(rec(a, TRACE_POINT, "c", -1), 3);
	assert_int_equal(rec(a, TRACE_OBSERVE, "a", 5), 1);	/* types are independent */
	at(20);
	tra_agg_reset(a);
	assert_int_equal(tra_agg_instances(a, TRACE_POINT, collect, &s), 0);
	assert_int_equal(tra_agg_lookup(a, TRACE_POINT, "a"), -ENOENT);
	assert_int_equal(rec(a, TRACE_POINT, "c", -1), 3);
	assert_int_equal(rec(a, TRACE_POINT, "d", -1), 4);
	assert_int_equal(rec(a, TRACE_POINT, "a", -1), 1);
	assert_int_equal(tra_agg_instances(a, TRACE_POINT, collect, &s), 3);
	assert_int_equal(seen_inst(&s, "d"), 4);
	assert_int_equal(get(a, TRACE_POINT, "a").count, 1);
	/* the window phase restarts at the reset */
	at(31.9);
	assert_false(get(a, TRACE_POINT, "a").in_window);
	at(32.0);
	assert_true(get(a, TRACE_POINT, "a").in_window);
	tra_agg_free(a);
}

/*
 * A batch whose sub-interval was read before a reset and accounted after
 * it (a recorder racing the reset; a shared segment's last epoch
 * collected after it) must not hold its window slot on the old timeline:
 * here 3,000 sub-intervals ahead, so one slot in four would drop its
 * reports from the window for 6,000 s.
 */
static void stale_subinterval_after_reset(void **state)
{
	struct trace_agg *a;
	struct trace_stats s;
	uint64_t old;

	(void)state;
	at(0);
	a = tra_agg_new(6, 3, 0, fake_clock, NULL);	/* 2 s sub-intervals */
	assert_non_null(a);
	at(6000.5);
	old = tra_agg_seq(a);
	assert_true(old == 3000);
	tra_agg_reset(a);			/* the new timeline starts at 6000.5 */
	assert_int_equal(tra_agg_record_in(a, old, TRACE_POINT, "A", 1, -1), 1);
	for (int k = 1; k <= 4; k++) {		/* one point in each of 1..4 */
		at(6000.5 + 2 * k + 0.5);
		rec(a, TRACE_POINT, "A", -1);
	}
	at(6000.5 + 10.5);			/* sub-interval 5: 2, 3, 4 in the window */
	s = get(a, TRACE_POINT, "A");
	assert_int_equal(s.count, 5);
	assert_rate(s, 3.0 / 6, 6);		/* 4 shares slot 0 with the stale 3000 */
	tra_agg_free(a);
}

static void bad_arguments(void **state)
{
	struct trace_agg *a;
	char big[TRACE_TAG_MAX + 2];
	struct trace_stats s;

	(void)state;
	assert_null(tra_agg_new(0, 5, 0, NULL, NULL));
	assert_null(tra_agg_new(60, 0, 0, NULL, NULL));
	a = tra_agg_new(60, 5, 2, NULL, NULL);
	assert_int_equal(tra_agg_record(a, 0, "x", 1, 0), -EINVAL);
	assert_int_equal(tra_agg_record(a, 5, "x", 1, 0), -EINVAL);
	assert_int_equal(tra_agg_record(a, TRACE_POINT, "x", 0, 0), -EINVAL);
	memset(big, 'x', sizeof(big));
	assert_int_equal(tra_agg_record(a, TRACE_POINT, big, TRACE_TAG_MAX + 1, 0), -EINVAL);
	assert_true(tra_agg_record(a, TRACE_POINT, big, TRACE_TAG_MAX, 0) > 0);
	assert_true(rec(a, TRACE_POINT, "y", 0) > 0);
	assert_int_equal(rec(a, TRACE_POINT, "z", 0), -ENOSPC);	/* limit 2 */
	assert_true(rec(a, TRACE_POINT, "y", 0) > 0);	/* known tags still count */
	assert_int_equal(tra_agg_get(a, TRACE_POINT, 99, &s), -ENOENT);
	tra_agg_free(a);
}

#define NTHREADS 4
#define PER_THREAD 50000

struct worker {
	struct trace_agg *agg;
	int id;
};

static void *hammer(void *arg)
{
	struct worker *w = arg;
	char tag[16];

	rcu_register_thread();
	for (int i = 0; i < PER_THREAD; i++) {
		snprintf(tag, sizeof(tag), "t%d", i % 16);
		tra_agg_record(w->agg, TRACE_TRANSACT, tag, strlen(tag), 1.0);
	}
	rcu_unregister_thread();
	return NULL;
}

/* Concurrent writers lose nothing, while the fetch side reads. */
static void concurrent_records(void **state)
{
	pthread_t th[NTHREADS];
	struct worker w[NTHREADS];
	struct trace_agg *a = tra_agg_new(60, 5, 0, NULL, NULL);
	uint64_t total = 0;

	(void)state;
	for (int i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ a, i };
		pthread_create(&th[i], NULL, hammer, &w[i]);
	}
	for (int i = 0; i < 1000; i++) {
		struct trace_stats s;

		tra_agg_get(a, TRACE_TRANSACT, 1 + i % 16, &s);
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < 16; i++) {
		char tag[16];
		struct trace_stats s;

		snprintf(tag, sizeof(tag), "t%d", i);
		s = get(a, TRACE_TRANSACT, tag);
		total += s.count;
		assert_true(s.total == (double)s.count);
	}
	assert_int_equal(total, (uint64_t)NTHREADS * PER_THREAD);
	tra_agg_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worked_example),
		cmocka_unit_test(uneven_subinterval),
		cmocka_unit_test(reset_keeps_numbers),
		cmocka_unit_test(stale_subinterval_after_reset),
		cmocka_unit_test(bad_arguments),
		cmocka_unit_test(concurrent_records),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
