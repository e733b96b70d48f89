/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table (pmda_trace/core/spans.c) over the aggregation, driven by
 * an injected clock: counts and errors per "SERVICE/SPAN", the kind
 * attribute, the window's percentiles, the cap and its overflow instance,
 * expiry (numbers never reused) and reset. Expected values come from the
 * spans fed in, not from the module's output.
 */
#include <errno.h>
#include <math.h>
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

#define MS 1000000ull	/* nanoseconds */

static struct trace_stats get(struct tra_spans *s, const char *tag)
{
	struct trace_stats st;
	int inst = tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, tag);

	assert_true(inst > 0);
	assert_int_equal(tra_agg_get(tra_spans_agg(s), TRACE_TRANSACT, inst, &st), 0);
	return st;
}

static void counts_errors_kind(void **state)
{
	struct tra_spans *s;
	struct trace_stats st;
	int a, b;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, fake_clock, NULL));
	at(0.5);
	for (int i = 0; i < 7; i++)
		a = tra_spans_record(s, "shop", "GET-cart", 2, i % 3 == 0, 1000, 1000 + 10 * MS);
	b = tra_spans_record(s, "shop", "checkout", 3, 0, 0, 0);
	assert_true(a > 0 && b > 0 && a != b);
	/* the same span name in another service is another instance */
	assert_true(tra_spans_record(s, "billing", "GET-cart", 1, 1, 5, 5) != a);
	st = get(s, "shop/GET-cart");
	assert_int_equal(st.count, 7);
	assert_int_equal(st.flagged, 3);	/* i = 0, 3, 6 */
	assert_int_equal(st.attr, 2);
	assert_string_equal(tra_span_kind_name(st.attr), "server");
	/* the kind changes: the latest is kept, the counters go on */
	assert_int_equal(tra_spans_record(s, "shop", "GET-cart", 3, 0, 0, 20 * MS), a);
	st = get(s, "shop/GET-cart");
	assert_int_equal(st.count, 8);
	assert_int_equal(st.flagged, 3);
	assert_string_equal(tra_span_kind_name(st.attr), "client");
	assert_int_equal(get(s, "billing/GET-cart").flagged, 1);
	assert_string_equal(tra_span_kind_name(0), "unspecified");
	assert_string_equal(tra_span_kind_name(5), "consumer");
	assert_string_equal(tra_span_kind_name(99), "unspecified");
	tra_spans_free(s);
}

static void bad_spans(void **state)
{
	struct tra_spans *s;
	char longsvc[300], longname[300];

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, fake_clock, NULL));
	assert_int_equal(tra_spans_record(s, "a", "b", 1, 0, 10, 9), -EINVAL);
	assert_int_equal(tra_spans_record(s, "", "b", 1, 0, 1, 2), -EINVAL);
	assert_int_equal(tra_spans_record(s, "a/x", "b", 1, 0, 1, 2), -EINVAL);
	assert_int_equal(tra_spans_record(s, "a", "b/y", 1, 0, 1, 2), -EINVAL);
	assert_int_equal(tra_agg_ntags(tra_spans_agg(s), TRACE_TRANSACT), 0);
	/* long names are cut: the service to 127 bytes, the name to the rest
	 * of a tag's 255, at a character boundary ("é" is 2 bytes) */
	memset(longsvc, 's', sizeof(longsvc));
	longsvc[126] = '\xc3';
	longsvc[127] = '\xa9';
	longsvc[299] = '\0';
	memset(longname, 'n', sizeof(longname));
	longname[299] = '\0';
	assert_true(tra_spans_record(s, longsvc, longname, 1, 0, 1, 2) > 0);
	{
		char want[256];

		memset(want, 's', 126);
		want[126] = '/';
		memset(want + 127, 'n', 128);
		want[255] = '\0';
		assert_true(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, want) > 0);
	}
	tra_spans_free(s);
}

static void window_and_percentiles(void **state)
{
	struct tra_spans *s;
	struct trace_stats st;
	const double pct[3] = { 50, 90, 99 };
	double out[3];
	int inst;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, fake_clock, NULL));
	at(1);
	/* 100 spans of 1..100 ms */
	for (int i = 1; i <= 100; i++)
		inst = tra_spans_record(s, "svc", "op", 1, 0, 7 * MS, 7 * MS + (uint64_t)i * MS);
	at(2.5);	/* the sub-interval [0, 2) completed */
	st = get(s, "svc/op");
	assert_true(st.in_window);
	assert_int_equal(st.wcount, 100);
	assert_true(fabs(st.wmax - 0.100) < 1e-12);
	assert_true(fabs(st.wsum / st.wcount - 0.0505) < 1e-12);
	assert_int_equal(tra_agg_percentiles(tra_spans_agg(s), TRACE_TRANSACT, inst, pct, 3, out), 0);
	assert_true(fabs(out[0] - 0.050) <= 0.050 / 64);
	assert_true(fabs(out[1] - 0.090) <= 0.090 / 64);
	assert_true(fabs(out[2] - 0.099) <= 0.099 / 64);
	tra_spans_free(s);
}

static void cap_and_overflow(void **state)
{
	struct tra_spans *s;
	char name[16];
	int over;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 3, 0, fake_clock, NULL));
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "op%d", i);
		assert_int_equal(tra_spans_record(s, "svc", name, 1, 0, 0, MS), i + 1);
	}
	/* the fourth and fifth names go to the overflow instance, errors too */
	over = tra_spans_record(s, "svc", "op3", 1, 1, 0, MS);
	assert_int_equal(over, 4);
	assert_int_equal(tra_spans_record(s, "svc", "op4", 2, 0, 0, MS), over);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc/op3"), -ENOENT);
	assert_int_equal(get(s, TRA_SPAN_OVERFLOW).count, 2);
	assert_int_equal(get(s, TRA_SPAN_OVERFLOW).flagged, 1);
	/* names under the cap still count in their own instances */
	assert_int_equal(tra_spans_record(s, "svc", "op1", 1, 0, 0, MS), 2);
	assert_int_equal(get(s, "svc/op1").count, 2);
	assert_int_equal(tra_agg_ntags(tra_spans_agg(s), TRACE_TRANSACT), 4);
	tra_spans_free(s);
}

static void expiry(void **state)
{
	struct tra_spans *s;
	int a, b, a2;

	(void)state;
	at(0);
	/* T 6 s in 3: sub-intervals of 2 s; idle after 4 of them (8 s) */
	assert_non_null(s = tra_spans_new(6, 3, 2, 4, fake_clock, NULL));
	at(1);
	a = tra_spans_record(s, "svc", "old", 1, 0, 0, MS);
	b = tra_spans_record(s, "svc", "busy", 1, 0, 0, MS);
	for (double t = 3; t <= 9; t += 2) {
		at(t);
		tra_spans_record(s, "svc", "busy", 1, 0, 0, MS);
		assert_int_equal(tra_spans_expire(s), 0);	/* "old" last in seq 0; now seq <= 4 */
	}
	at(10.5);	/* seq 5: 0 + 4 < 5 */
	assert_int_equal(tra_spans_expire(s), 1);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc/old"), -ENOENT);
	assert_int_equal(get(s, "svc/busy").count, 5);
	/* the freed place under the cap takes a new name, which gets a new number */
	assert_int_equal(tra_spans_record(s, "svc", "new", 1, 0, 0, MS), 3);
	/* the old name again: a new number, counting from zero; never a reused one */
	assert_int_equal(tra_spans_record(s, "svc", "old", 1, 0, 0, MS), 4);	/* overflow */
	at(30);
	assert_int_equal(tra_spans_expire(s), 3);
	a2 = tra_spans_record(s, "svc", "old", 1, 0, 0, MS);
	assert_true(a2 > 4 && a2 != a && a2 != b);
	assert_int_equal(get(s, "svc/old").count, 1);
	tra_spans_free(s);
}

static void reset_keeps_nothing(void **state)
{
	struct tra_spans *s;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 10, 0, fake_clock, NULL));
	tra_spans_record(s, "svc", "op", 1, 1, 0, MS);
	tra_spans_reset(s);
	assert_int_equal(tra_agg_ntags(tra_spans_agg(s), TRACE_TRANSACT), 0);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc/op"), -ENOENT);
	tra_spans_record(s, "svc", "op", 1, 0, 0, MS);
	assert_int_equal(get(s, "svc/op").count, 1);
	assert_int_equal(get(s, "svc/op").flagged, 0);
	tra_spans_free(s);
}

static void cumulative_buckets(void **state)
{
	struct tra_spans *s;
	uint64_t cum[TRACE_HIST_LE_N];
	unsigned first, last;
	int inst = 0;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 10, 0, fake_clock, NULL));
	for (int i = 0; i < 10; i++)
		inst = tra_spans_record(s, "svc", "op", 1, 0, 0, i < 4 ? 3 * MS : 300 * MS);
	assert_int_equal(tra_agg_le(tra_spans_agg(s), TRACE_TRANSACT, inst, cum, &first, &last), 0);
	assert_int_equal(cum[TRACE_HIST_LE_N - 1], 10);
	for (unsigned j = first; j <= last; j++) {
		double le = trace_hist_le_bound(j);
		uint64_t want = (le > 0.003 ? 4 : 0) + (le > 0.300 ? 6 : 0);

		assert_int_equal(cum[j], want);
	}
	tra_spans_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(counts_errors_kind),
		cmocka_unit_test(bad_spans),
		cmocka_unit_test(window_and_percentiles),
		cmocka_unit_test(cap_and_overflow),
		cmocka_unit_test(expiry),
		cmocka_unit_test(reset_keeps_nothing),
		cmocka_unit_test(cumulative_buckets),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
