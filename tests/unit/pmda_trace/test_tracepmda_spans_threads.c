/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table (pmda_trace/core/spans.c) used by threads at once, as the
 * agent may: two recorders (receiver threads), one thread expiring idle
 * instances while the clock moves on, one reading as metrics.c does,
 * for about a second. With nothing expiring the counts must add up
 * exactly; under expiry no count may exceed what was recorded and no two
 * live names may share a number. Also built with -fsanitize=thread
 * (tests/unit/build.mk): a race TSan sees fails the run.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <urcu.h>

#include "../../../pmda_trace/core/spans.h"
#include "sdk_tsan.h"

#ifdef SDK_TSAN
/* liburcu's own hand-overs, which TSan cannot see (test_tracepmda_agg_threads.c) */
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:liburcu-cds.so\ncalled_from_lib:liburcu.so\n";
}
#endif

#define NNAMES	8
#define PER_THREAD 40000

static int64_t now_usec;	/* atomic */
static int stop;		/* atomic */
static int moving;		/* the clock moves and instances expire */

static int64_t clock_fn(void *arg)
{
	(void)arg;
	return __atomic_load_n(&now_usec, __ATOMIC_RELAXED);
}

static struct tra_spans *spans;

static void *recorder(void *arg)
{
	char name[16];
	long fails = 0;

	rcu_register_thread();
	for (int i = 0; i < PER_THREAD; i++) {
		/* a name's kind is part of its instance: one kind a name */
		struct tra_span_id id = { arg, NULL, name, 1 + i % NNAMES % 5 };

		snprintf(name, sizeof(name), "op%d", i % NNAMES);
		if (tra_spans_record(spans, &id, i % 4 == 0,
				     1000, 1000 + (uint64_t)(i % 100) * 1000000) <= 0)
			fails++;
	}
	rcu_unregister_thread();
	return (void *)fails;
}

static void *expirer(void *arg)
{
	(void)arg;
	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		if (moving) {
			__atomic_add_fetch(&now_usec, 500000, __ATOMIC_RELAXED);	/* a sub-interval */
			tra_spans_expire(spans);
		}
		{
			struct timespec ts = { 0, 200000 };

			nanosleep(&ts, NULL);
		}
	}
	rcu_unregister_thread();
	return NULL;
}

struct seen {
	int n, inst[4 * NNAMES];
	uint64_t count;
};

static void one(void *arg, int inst, const char *name)
{
	struct seen *s = arg;
	struct trace_stats st;

	(void)name;
	if (s->n < 4 * NNAMES)
		s->inst[s->n++] = inst;
	if (tra_agg_get(tra_spans_agg(spans), TRACE_TRANSACT, inst, &st) == 0) {
		s->count += st.count;
		assert_true(st.flagged <= st.count);
	}
}

static void *reader(void *arg)
{
	const double pct[3] = { 50, 90, 99 };
	double out[3];

	(void)arg;
	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct seen s = { 0 };

		tra_agg_instances(tra_spans_agg(spans), TRACE_TRANSACT, one, &s);
		for (int i = 0; i < s.n; i++)
			tra_agg_percentiles(tra_spans_agg(spans), TRACE_TRANSACT, s.inst[i],
					    pct, 3, out);
		assert_true(s.count <= 2 * PER_THREAD);
	}
	rcu_unregister_thread();
	return NULL;
}

static void run(int expire)
{
	pthread_t r[2], e, rd;
	void *fails;
	struct seen s = { 0 };

	moving = expire;
	stop = 0;
	now_usec = 0;
	assert_non_null(spans = tra_spans_new(6, 12, 100, 0, expire ? 2 : 0, clock_fn, NULL));
	pthread_create(&e, NULL, expirer, NULL);
	pthread_create(&rd, NULL, reader, NULL);
	pthread_create(&r[0], NULL, recorder, "a");
	pthread_create(&r[1], NULL, recorder, "b");
	for (int i = 0; i < 2; i++) {
		pthread_join(r[i], &fails);
		assert_int_equal((long)fails, 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(e, NULL);
	pthread_join(rd, NULL);
	tra_agg_instances(tra_spans_agg(spans), TRACE_TRANSACT, one, &s);
	assert_true(s.n <= 2 * NNAMES);
	for (int i = 0; i < s.n; i++)
		for (int j = 0; j < i; j++)
			assert_int_not_equal(s.inst[i], s.inst[j]);
	if (!expire) {
		assert_int_equal(s.n, 2 * NNAMES);
		assert_int_equal(s.count, 2 * PER_THREAD);
	} else {
		assert_true(s.count <= 2 * PER_THREAD);
	}
	tra_spans_free(spans);
}

static void no_expiry_exact(void **state)
{
	(void)state;
	run(0);
}

static void under_expiry(void **state)
{
	(void)state;
	run(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_expiry_exact),
		cmocka_unit_test(under_expiry),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
