/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table (pmda_trace/core/spans.c) over the aggregation, driven by
 * an injected clock: counts and errors per instance, the instance names
 * ([NAMESPACE/]SERVICE:KIND/SPAN: spaces, namespaces, kinds, cuts) and
 * their labels (the tag's note), spans refused, the window's
 * percentiles, the cap and its overflow instance, expiry (numbers never
 * reused) and reset, which forgets names. Expected values come from the
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
#include "heap_bytes.h"

#define MS 1000000ull	/* nanoseconds */
#define T0 1000ull	/* a start time: 0 is none */

/* One span of @svc's @name, no namespace. */
static int rec(struct tra_spans *s, const char *svc, const char *name, int kind, int error,
		uint64_t start, uint64_t end)
{
	struct tra_span_id id = { svc, NULL, name, kind };

	return tra_spans_record(s, &id, error, start, end);
}

/* One span of @ns's @svc's @name. */
static int rec_ns(struct tra_spans *s, const char *ns, const char *svc, const char *name,
		int kind)
{
	struct tra_span_id id = { svc, ns, name, kind };

	return tra_spans_record(s, &id, 0, T0, T0 + MS);
}

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
	int a, b, c;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, 0, fake_clock, NULL));
	at(0.5);
	for (int i = 0; i < 7; i++)
		a = rec(s, "shop", "GET-cart", 2, i % 3 == 0, T0, T0 + 10 * MS);
	b = rec(s, "shop", "checkout", 3, 0, T0, T0);
	assert_true(a > 0 && b > 0 && a != b);
	/* the same span name in another service is another instance */
	assert_true(rec(s, "billing", "GET-cart", 2, 1, 5, 5) != a);
	st = get(s, "shop:server/GET-cart");
	assert_int_equal(st.count, 7);
	assert_int_equal(st.flagged, 3);	/* i = 0, 3, 6 */
	assert_int_equal(st.attr, 2);
	/* another kind of the same name is another instance (spanmetrics' key) */
	c = rec(s, "shop", "GET-cart", 3, 0, T0, T0 + 20 * MS);
	assert_true(c > 0 && c != a && c != b);
	assert_int_equal(get(s, "shop:server/GET-cart").count, 7);
	st = get(s, "shop:client/GET-cart");
	assert_int_equal(st.count, 1);
	assert_int_equal(st.flagged, 0);
	assert_int_equal(get(s, "billing:server/GET-cart").flagged, 1);
	assert_string_equal(tra_span_kind_name(0), "unspecified");
	assert_string_equal(tra_span_kind_name(5), "consumer");
	assert_string_equal(tra_span_kind_name(99), "unspecified");
	/* a kind out of range is unspecified */
	assert_int_equal(rec(s, "shop", "odd", 99, 0, T0, T0 + MS),
			 rec(s, "shop", "odd", 0, 0, T0, T0 + MS));
	assert_int_equal(get(s, "shop:unspecified/odd").count, 2);
	tra_spans_free(s);
}

static void bad_spans(void **state)
{
	struct tra_spans *s;
	struct tra_span_id none = { NULL, NULL, "b", 1 };

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, 0, fake_clock, NULL));
	assert_int_equal(rec(s, "a", "b", 1, 0, 10, 9), -EINVAL);
	assert_int_equal(rec(s, "", "b", 1, 0, 1, 2), -EINVAL);
	assert_int_equal(rec(s, "a", "", 1, 0, 1, 2), -EINVAL);
	assert_int_equal(tra_spans_record(s, &none, 0, 1, 2), -EINVAL);
	assert_int_equal(tra_spans_record(s, NULL, 0, 1, 2), -EINVAL);
	/* no start time is no duration: not a 56-year span */
	assert_int_equal(rec(s, "a", "b", 1, 0, 0, 1700000000ull * 1000000000ull), -EINVAL);
	assert_int_equal(rec(s, "a", "b", 1, 0, 0, 0), -EINVAL);
	assert_int_equal(tra_agg_ntags(tra_spans_agg(s), TRACE_TRANSACT), 0);
	tra_spans_free(s);
}

/* The note of the instance named @tag, into @buf. */
static const char *note_of(struct tra_spans *s, const char *tag, char *buf, size_t cap)
{
	int inst = tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, tag);

	assert_true(inst > 0);
	assert_true(tra_agg_note(tra_spans_agg(s), TRACE_TRANSACT, inst, buf, cap) > 0);
	return buf;
}

static void names_and_labels(void **state)
{
	struct tra_spans *s;
	char note[TRA_SPAN_NOTE_MAX];
	int a, b, c, d;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, 0, fake_clock, NULL));
	/* spaces: '_' in the name; '/' and ':' kept in the span name */
	a = rec(s, "shop-api", "GET /users/:id", 2, 0, T0, T0 + MS);
	assert_true(a > 0);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT,
					"shop-api:server/GET_/users/:id"), a);
	assert_string_equal(note_of(s, "shop-api:server/GET_/users/:id", note, sizeof(note)),
			    "{\"service_name\":\"shop-api\",\"span_name\":\"GET /users/:id\","
			    "\"span_kind\":\"server\"}");
	/* ' ' and '_' share an instance; the first name's labels stay */
	assert_int_equal(rec(s, "shop-api", "GET_/users/:id", 2, 0, T0, T0 + MS), a);
	assert_int_equal(get(s, "shop-api:server/GET_/users/:id").count, 2);
	assert_non_null(strstr(note_of(s, "shop-api:server/GET_/users/:id", note, sizeof(note)),
			       "\"GET /users/:id\""));
	/* in the service part '/', ':' and ' ' all become '_' */
	b = rec(s, "a/b:c d", "op", 1, 0, T0, T0 + MS);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "a_b_c_d:internal/op"), b);
	assert_string_equal(note_of(s, "a_b_c_d:internal/op", note, sizeof(note)),
			    "{\"service_name\":\"a/b:c d\",\"span_name\":\"op\","
			    "\"span_kind\":\"internal\"}");
	/* namespaces: two instances, the namespace in the labels; "" is none */
	c = rec_ns(s, "ns1", "api", "op", 1);
	d = rec_ns(s, "ns2", "api", "op", 1);
	assert_true(c > 0 && d > 0 && c != d);
	assert_int_equal(rec_ns(s, "", "api", "op", 1), rec(s, "api", "op", 1, 0, T0, T0 + MS));
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "ns1/api:internal/op"), c);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "ns2/api:internal/op"), d);
	assert_string_equal(note_of(s, "ns2/api:internal/op", note, sizeof(note)),
			    "{\"service_name\":\"api\",\"service_namespace\":\"ns2\","
			    "\"span_name\":\"op\",\"span_kind\":\"internal\"}");
	assert_true(rec_ns(s, "x/y:z", "api", "op", 4) > 0);
	assert_true(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "x_y_z/api:producer/op") > 0);
	/* JSON escapes in the labels */
	assert_true(rec(s, "q\"s", "back\\slash", 5, 0, T0, T0 + MS) > 0);
	assert_string_equal(note_of(s, "q\"s:consumer/back\\slash", note, sizeof(note)),
			    "{\"service_name\":\"q\\\"s\",\"span_name\":\"back\\\\slash\","
			    "\"span_kind\":\"consumer\"}");
	/* a note too small for its buffer, an instance that is not */
	assert_int_equal(tra_agg_note(tra_spans_agg(s), TRACE_TRANSACT, a, note, 10), -ENOSPC);
	assert_int_equal(tra_agg_note(tra_spans_agg(s), TRACE_TRANSACT, 9999, note, sizeof(note)),
			 -ENOENT);
	tra_spans_free(s);
}

/* Is @s's length @n valid UTF-8 ending at a character's end? (2-byte characters here) */
static int whole_chars(const char *s, size_t n)
{
	return n == 0 || ((unsigned char)s[n - 1] & 0xc0) != 0xc0;
}

static void long_names_cut(void **state)
{
	struct tra_spans *s;
	char ns[200], svc[300], name[2000], want[TRACE_TAG_MAX + 1], note[TRA_SPAN_NOTE_MAX];
	struct tra_span_id id = { svc, ns, name, 2 };
	size_t o = 0;
	int inst;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, 0, fake_clock, NULL));
	/* the namespace cut to 63 bytes; "é" (2 bytes) across the service's cut at 127 */
	memset(ns, 'n', sizeof(ns));
	ns[199] = '\0';
	memset(svc, 's', sizeof(svc));
	svc[126] = '\xc3';
	svc[127] = '\xa9';
	svc[299] = '\0';
	for (size_t i = 0; i + 1 < sizeof(name); i += 2) {
		name[i] = '\xc3';
		name[i + 1] = '\xa9';
	}
	name[sizeof(name) - 1] = '\0';
	assert_true((inst = tra_spans_record(s, &id, 0, T0, T0 + MS)) > 0);
	memset(want, 'n', 63);
	o = 63;
	want[o++] = '/';
	memset(want + o, 's', 126);
	o += 126;
	memcpy(want + o, ":server/", 8);
	o += 8;
	/* the span name: what is left of 255 bytes (57), whole characters (56) */
	for (; o + 2 <= TRACE_TAG_MAX; o += 2) {
		want[o] = '\xc3';
		want[o + 1] = '\xa9';
	}
	want[o] = '\0';
	assert_int_equal(o, 254);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, want), inst);
	/* the labels: the names uncut until the note's bound, whole characters, valid JSON */
	assert_true(tra_agg_note(tra_spans_agg(s), TRACE_TRANSACT, inst, note, sizeof(note)) <
		    TRA_SPAN_NOTE_MAX);
	assert_non_null(strstr(note, "\"service_namespace\":\""));
	assert_null(strstr(note, ns));	/* 199 bytes: cut to the note's room */
	{
		const char *v = strstr(note, "\"span_name\":\"") + 13;
		const char *end = strchr(v, '"');

		assert_true(end - v > 300 && end - v < 1000);
		assert_true(whole_chars(v, (size_t)(end - v)));
		assert_string_equal(end, "\",\"span_kind\":\"server\"}");
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
	assert_non_null(s = tra_spans_new(6, 3, 100, 0, 0, fake_clock, NULL));
	at(1);
	/* 100 spans of 1..100 ms */
	for (int i = 1; i <= 100; i++)
		inst = rec(s, "svc", "op", 1, 0, 7 * MS, 7 * MS + (uint64_t)i * MS);
	at(2.5);	/* the sub-interval [0, 2) completed */
	st = get(s, "svc:internal/op");
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
	struct tra_spans_usage u;
	struct tra_spans *s;
	char name[16];
	int over;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 3, 0, 0, fake_clock, NULL));
	for (int i = 0; i < 3; i++) {
		snprintf(name, sizeof(name), "op%d", i);
		assert_int_equal(rec(s, "svc", name, 1, 0, T0, T0 + MS), i + 1);
	}
	/* the fourth and fifth names go to the overflow instance, errors too */
	over = rec(s, "svc", "op3", 1, 1, T0, T0 + MS);
	assert_int_equal(over, 4);
	assert_int_equal(rec(s, "svc", "op4", 2, 0, T0, T0 + MS), over);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc:server/op4"), -ENOENT);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc:internal/op3"), -ENOENT);
	assert_int_equal(get(s, TRA_SPAN_OVERFLOW).count, 2);
	assert_int_equal(get(s, TRA_SPAN_OVERFLOW).flagged, 1);
	/* names under the cap still count in their own instances */
	assert_int_equal(rec(s, "svc", "op1", 1, 0, T0, T0 + MS), 2);
	assert_int_equal(get(s, "svc:internal/op1").count, 2);
	/* the overflow instance is not one of the cap's */
	assert_int_equal(tra_agg_ntags(tra_spans_agg(s), TRACE_TRANSACT), 3);
	tra_spans_usage(s, &u);
	assert_int_equal(u.instances, 4);
	assert_int_equal(u.overflow_cap, 2);
	assert_int_equal(u.overflow_bytes, 0);
	assert_int_equal(u.agg.refused_cap, 2);
	assert_int_equal(u.agg.refused_bytes, 0);
	assert_int_equal(u.agg.tags[TRACE_TRANSACT], 3);
	assert_int_equal(u.agg.max_bytes, TRA_SPAN_BYTES_DEFAULT);
	assert_true(u.agg.bytes > 0 && u.agg.bytes < 4 * tra_agg_tag_worst(3, 300));
	tra_spans_free(s);
}

static void expiry(void **state)
{
	struct tra_spans *s;
	int a, b, a2;

	(void)state;
	at(0);
	/* T 6 s in 3: sub-intervals of 2 s; idle after 4 of them (8 s) */
	assert_non_null(s = tra_spans_new(6, 3, 2, 0, 4, fake_clock, NULL));
	at(1);
	a = rec(s, "svc", "old", 1, 0, T0, T0 + MS);
	b = rec(s, "svc", "busy", 1, 0, T0, T0 + MS);
	for (double t = 3; t <= 9; t += 2) {
		at(t);
		rec(s, "svc", "busy", 1, 0, T0, T0 + MS);
		assert_int_equal(tra_spans_expire(s), 0);	/* "old" last in seq 0; now seq <= 4 */
	}
	at(10.5);	/* seq 5: 0 + 4 < 5 */
	assert_int_equal(tra_spans_expire(s), 1);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc:internal/old"), -ENOENT);
	assert_int_equal(get(s, "svc:internal/busy").count, 5);
	/* the freed place under the cap takes a new name, which gets a new number */
	assert_int_equal(rec(s, "svc", "new", 1, 0, T0, T0 + MS), 3);
	/* the old name again: a new number, counting from zero; never a reused one */
	assert_int_equal(rec(s, "svc", "old", 1, 0, T0, T0 + MS), 4);	/* overflow */
	at(30);
	assert_int_equal(tra_spans_expire(s), 3);
	a2 = rec(s, "svc", "old", 1, 0, T0, T0 + MS);
	assert_true(a2 > 4 && a2 != a && a2 != b);
	assert_int_equal(get(s, "svc:internal/old").count, 1);
	tra_spans_free(s);
}

static void reset_keeps_nothing(void **state)
{
	struct tra_spans *s;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 10, 0, 0, fake_clock, NULL));
	rec(s, "svc", "op", 1, 1, T0, T0 + MS);
	tra_spans_reset(s);
	assert_int_equal(tra_agg_ntags(tra_spans_agg(s), TRACE_TRANSACT), 0);
	assert_int_equal(tra_agg_lookup(tra_spans_agg(s), TRACE_TRANSACT, "svc:internal/op"), -ENOENT);
	rec(s, "svc", "op", 1, 0, T0, T0 + MS);
	assert_int_equal(get(s, "svc:internal/op").count, 1);
	assert_int_equal(get(s, "svc:internal/op").flagged, 0);
	tra_spans_free(s);
}

/*
 * Names that come and go without end, reset between them (the cap 10):
 * today's table kept every name ever seen, 76.5 MiB after 100,000 cycles.
 * Now reset forgets them: the heap stays put, the numbers go on.
 */
static void reset_forgets_names(void **state)
{
	struct tra_spans_usage u;
	struct tra_spans *s;
	char name[32];
	size_t before;
	int last = 0;

	(void)state;
	at(0);
	assert_non_null(s = tra_spans_new(6, 3, 10, 0, 0, fake_clock, NULL));
	for (int i = 0; i < 100; i++)	/* the tables' and allocator's first growth */
		rec(s, "svc", "warm", 1, 0, T0, T0 + MS);
	tra_spans_reset(s);
	rcu_barrier();
	before = heap_bytes();
	for (int cycle = 0; cycle < 10000; cycle++) {
		for (int i = 0; i < 10; i++) {
			int inst;

			snprintf(name, sizeof(name), "op-%d-%d", cycle, i);
			inst = rec(s, "svc", name, 1, 0, T0, T0 + MS);
			assert_true(inst > last);	/* never a number given before */
			last = inst;
		}
		tra_spans_reset(s);
		tra_spans_usage(s, &u);
		assert_int_equal(u.agg.remembered, 0);
		assert_int_equal(u.instances, 0);
	}
	rcu_barrier();	/* what resets left to free after a grace period */
	assert_true(heap_bytes() < before + (1u << 20));
	tra_spans_usage(s, &u);
	assert_int_equal(u.overflow_cap + u.overflow_bytes, 0);
	assert_true(u.agg.bytes < 4096);	/* only the frees after the grace period were pending */
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
	assert_non_null(s = tra_spans_new(6, 3, 10, 0, 0, fake_clock, NULL));
	for (int i = 0; i < 10; i++)
		inst = rec(s, "svc", "op", 1, 0, T0, T0 + (i < 4 ? 3 * MS : 300 * MS));
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
		cmocka_unit_test(names_and_labels),
		cmocka_unit_test(long_names_cut),
		cmocka_unit_test(window_and_percentiles),
		cmocka_unit_test(cap_and_overflow),
		cmocka_unit_test(expiry),
		cmocka_unit_test(reset_keeps_nothing),
		cmocka_unit_test(reset_forgets_names),
		cmocka_unit_test(cumulative_buckets),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
