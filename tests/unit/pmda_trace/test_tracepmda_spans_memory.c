/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table's byte budget (pmda_trace/core/spans.c over the
 * aggregation's accounting): the worst case the issue measured before
 * the budget, 10,000 span names each given one span in each of 64
 * binades of duration in each of the window's 6 sub-intervals, 968 MiB
 * then (~99 KiB an instance). With the default budget (64 MiB) the
 * counted bytes must never pass the budget plus the overflow instance's
 * worst case, the heap must grow by no more than that and a small slack
 * (HEAP_SLACK: the aggregation's fixed tables, liburcu's bookkeeping, and
 * without ASan the blocks glibc's per-thread cache keeps after a realloc
 * moved them, up to 7 of each size to 1 KiB, which mallinfo2 counts as in
 * use; none of them grow with the instances), and every span must be
 * counted exactly once, the overflow instance taking those the budget
 * refused. The injected clock (agg_clock.h) steps through the
 * sub-intervals of -T 60 -N 5.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <urcu.h>

#include "../../../pmda_trace/core/spans.h"
#include "agg_clock.h"
#include "heap_bytes.h"

#define PERIOD	60
#define NBUCK	5
#define BINADES	64
#define HEAP_SLACK ((size_t)2 << 20)

/* Any instance's bytes at worst: the longest name and note a tag may have. */
static size_t overflow_worst(void)
{
	return tra_agg_tag_worst(NBUCK, TRACE_TAG_MAX + TRA_SPAN_NOTE_MAX);
}

struct sum {
	struct trace_agg *agg;
	uint64_t count;
	int n;
};

static void add_count(void *arg, int inst, const char *name)
{
	struct sum *s = arg;
	struct trace_stats st;

	(void)name;
	assert_int_equal(tra_agg_get(s->agg, TRACE_TRANSACT, inst, &st), 0);
	s->count += st.count;
	s->n++;
}

/*
 * One span of every name in every binade of duration (1 ns .. 2^63 ns)
 * in each sub-interval of the window: how many were recorded; the most
 * bytes counted at any name's end into *@peak.
 */
static uint64_t fill(struct tra_spans *s, int names, size_t *peak)
{
	struct tra_spans_usage u;
	uint64_t n = 0;
	char name[32];

	*peak = 0;
	for (int slot = 0; slot <= NBUCK; slot++) {
		at(1 + slot * (double)PERIOD / NBUCK);
		for (int i = 0; i < names; i++) {
			struct tra_span_id id = { "shop", NULL, name, 2 };

			snprintf(name, sizeof(name), "GET /item/%05d", i);
			for (int b = 0; b < BINADES; b++) {
				assert_true(tra_spans_record(s, &id, b == 7, 1, 1 + (UINT64_C(1) << b)) > 0);
				n++;
			}
			tra_spans_usage(s, &u);
			if (u.agg.bytes > *peak)
				*peak = u.agg.bytes;
		}
	}
	return n;
}

static uint64_t total_count(struct tra_spans *s, int *ninst)
{
	struct sum sum = { tra_spans_agg(s), 0, 0 };

	tra_agg_instances(tra_spans_agg(s), TRACE_TRANSACT, add_count, &sum);
	*ninst = sum.n;
	return sum.count;
}

/* What one instance takes at the worst case, measured and counted, without a budget in the way. */
static void worst_instance(void **state)
{
	struct tra_spans_usage u;
	struct tra_spans *s;
	size_t before, peak, heap;
	int names = 300, n;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(PERIOD, NBUCK, 10000, (size_t)1 << 40, 0,
					  fake_clock, NULL));
	rcu_barrier();
	before = heap_bytes();
	assert_int_equal(total_count(s, &n), 0);
	assert_int_equal(fill(s, names, &peak), (uint64_t)names * BINADES * (NBUCK + 1));
	heap = heap_bytes() - before;
	tra_spans_usage(s, &u);
	print_message("worst case: %zu bytes an instance counted, %zu on the heap, "
		      "tra_agg_tag_worst %zu\n", u.agg.bytes / names, heap / names,
		      tra_agg_tag_worst(NBUCK, 40 + 100));
	/* the count covers the heap (but for the slack), and the named worst case the count */
	assert_true(heap <= u.agg.bytes + HEAP_SLACK);
	assert_true(u.agg.bytes / names <= tra_agg_tag_worst(NBUCK, 40 + 100));
	assert_int_equal(u.overflow_cap + u.overflow_bytes, 0);
	tra_spans_free(s);
}

/* The case under the default budget (TRA_SPAN_BYTES_DEFAULT, 64 MiB). */
static void budget_holds(void **state)
{
	struct tra_spans_usage u;
	struct tra_spans *s;
	size_t before, peak, heap;
	uint64_t recorded;
	int n;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(PERIOD, NBUCK, 10000, 0, 0, fake_clock, NULL));
	rcu_barrier();
	before = heap_bytes();
	recorded = fill(s, 10000, &peak);
	heap = heap_bytes() > before ? heap_bytes() - before : 0;
	tra_spans_usage(s, &u);
	print_message("budget %zu: peak counted %zu, now %zu, heap grew %zu; "
		      "%zu instances, overflow by bytes %llu, by cap %llu\n",
		      u.agg.max_bytes, peak, u.agg.bytes, heap, u.instances,
		      (unsigned long long)u.overflow_bytes, (unsigned long long)u.overflow_cap);
	assert_int_equal(u.agg.max_bytes, TRA_SPAN_BYTES_DEFAULT);
	assert_true(peak <= TRA_SPAN_BYTES_DEFAULT + overflow_worst());
	assert_true(heap <= TRA_SPAN_BYTES_DEFAULT + overflow_worst() + HEAP_SLACK);
	/* every span counted once: in its own instance or the overflow one */
	assert_int_equal(total_count(s, &n), recorded);
	assert_int_equal((size_t)n, u.instances);
	assert_true(u.overflow_bytes > 0);
	assert_int_equal(u.overflow_cap, 0);	/* 10,000 names: the cap is not reached */
	assert_int_equal(u.agg.refused_bytes, u.overflow_bytes);
	assert_true(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, TRA_SPAN_OVERFLOW) > 0);
	tra_spans_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(worst_instance),
		cmocka_unit_test(budget_holds),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
