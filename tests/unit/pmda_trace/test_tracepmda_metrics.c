/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's front end (pmda_trace/metrics.c) through its PMDA
 * callbacks: descriptors, help text, instance domains, fetch and store.
 * Expected values: the metric table of docs/trace-protocol.md §8.1 (read
 * back from PCP's pmdatrace with dbpmda), the stores of §8.7, and the
 * worked example of §8.6 (-T 6 -N 3), replayed on a clock the test drives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "../../../pmda_trace/trace_pmda.h"
#include "../../lib/pmda_values.h"

/* libpcp frees a PMDA's results with these (PCP_3.0, not in its headers) */
void __pmFreeInResult(pmInResult *);

#define DOM	10

static pmdaInterface dispatch;
static struct trace_pmda tp;
static int64_t now_us;

static int64_t test_clock(void *arg)
{
	(void)arg;
	return now_us;
}

static void at(double sec)
{
	now_us = (int64_t)(sec * 1e6);
}

static pmID pmid(unsigned item)
{
	return pmID_build(DOM, 0, item);
}

/* Ours: cluster 1, items 0..5 (p50/p90/p99 of times, then of values), 6 and 7
 * (cumulative buckets of times, of values). */
#define PCT(item)	(100 + (item))
#define SPAN(item)	(200 + (item))	/* cluster 2 */
#define OTLP(item)	(300 + (item))	/* cluster 3 */

static pmID any_pmid(unsigned item)
{
	return item >= 300 ? pmID_build(DOM, 3, item - 300) :
	       item >= 200 ? pmID_build(DOM, 2, item - 200) :
	       item >= 100 ? pmID_build(DOM, 1, item - 100) : pmid(item);
}

static void report(int type, const char *tag, double value)
{
	assert_true(tra_agg_record(tp.agg, type, tag, strlen(tag), value) > 0);
}

/* Fetch one metric; *vs is the value set (freed with the result). */
static pmdaResult *fetch(unsigned item, pmValueSet **vs)
{
	pmID id = any_pmid(item);
	pmdaResult *res = NULL;

	assert_int_equal(dispatch.version.any.fetch(1, &id, &res,
			dispatch.version.any.ext), 0);
	assert_non_null(res);
	assert_int_equal(res->numpmid, 1);
	*vs = res->vset[0];
	return res;
}

/* The value of instance @inst of @item as a double; NAN if it has none. */
static double value_of(unsigned item, int inst)
{
	pmValueSet *vs;
	pmdaResult *res = fetch(item, &vs);
	pmDesc d;
	pmAtomValue a;
	double v = -12345;
	int found = 0;

	assert_int_equal(dispatch.version.any.desc(any_pmid(item), &d,
			dispatch.version.any.ext), 0);
	for (int i = 0; i < vs->numval; i++) {
		if (vs->vlist[i].inst != inst)
			continue;
		assert_int_equal(pmExtractValue(vs->valfmt, &vs->vlist[i], d.type, &a,
				PM_TYPE_DOUBLE), 0);
		v = a.d;
		found = 1;
	}
	sdk_free_pmda_result_values(res);
	return found ? v : -1.0;	/* every value the test expects is >= 0 */
}

#define NONE	(-1.0)

static void near(double got, double want)
{
	if (want == NONE) {
		assert_true(got == NONE);
		return;
	}
	if (!(got > want - 0.0005 && got < want + 0.0005))
		print_message("got %.9g, want %.9g\n", got, want);
	assert_true(got > want - 0.0005 && got < want + 0.0005);
}

static int setup(void **state)
{
	(void)state;
	rcu_register_thread();
	at(0);
	tp.period = 6;
	tp.buckets = 3;
	tp.port_shown = 4323;
	tp.observe_units = (pmUnits)PMDA_PMUNITS(1, 0, 0, PM_SPACE_KBYTE, 0, 0);
	tp.counter_units = (pmUnits)PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	tp.agg = tra_agg_new(tp.period, tp.buckets, 0, test_clock, NULL);
	assert_non_null(tp.agg);
	pmSetProgname("test_tracepmda_metrics");
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, "test_tracepmda_metrics", DOM,
		   NULL, NULL);
	trace_pmda_init(&dispatch, &tp);
	assert_int_equal(dispatch.status, 0);
	return 0;
}

struct want_desc {
	unsigned item;
	int type, sem, indom_serial;	/* -1: PM_INDOM_NULL */
	pmUnits units;
};

#define UN(a, b, c, d, e, f)	((pmUnits)PMDA_PMUNITS(a, b, c, d, e, f))
#define WU_CNT	UN(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define WU_RATE	UN(0, -1, 1, 0, PM_TIME_SEC, PM_COUNT_ONE)
#define WU_AVE	UN(0, 1, -1, 0, PM_TIME_SEC, PM_COUNT_ONE)
#define WU_SEC	UN(0, 1, 0, 0, PM_TIME_SEC, 0)
#define WU_NONE	UN(0, 0, 0, 0, 0, 0)

/* docs/trace-protocol.md §8.1, the table as read back from PCP's agent with dbpmda */
/* The @n descriptors @w of cluster @cluster are the agent's. */
static void check_descs(unsigned cluster, const struct want_desc *w, size_t n)
{
	pmDesc d;

	for (size_t i = 0; i < n; i++) {
		assert_int_equal(dispatch.version.any.desc(pmID_build(DOM, cluster, w[i].item), &d,
				dispatch.version.any.ext), 0);
		assert_int_equal(d.type, w[i].type);
		assert_int_equal(d.sem, w[i].sem);
		assert_int_equal(d.indom, w[i].indom_serial < 0 ? PM_INDOM_NULL :
				 pmInDom_build(DOM, w[i].indom_serial));
		assert_memory_equal(&d.units, &w[i].units, sizeof(pmUnits));
	}
}

static void descriptors(void **state)
{
	const struct want_desc want[] = {
		{ 0, PM_TYPE_U64, PM_SEM_COUNTER, 0, WU_CNT },
		{ 1, PM_TYPE_FLOAT, PM_SEM_INSTANT, 0, WU_RATE },
		{ 2, PM_TYPE_FLOAT, PM_SEM_INSTANT, 0, WU_AVE },
		{ 3, PM_TYPE_FLOAT, PM_SEM_INSTANT, 0, WU_SEC },
		{ 4, PM_TYPE_FLOAT, PM_SEM_INSTANT, 0, WU_SEC },
		{ 5, PM_TYPE_DOUBLE, PM_SEM_COUNTER, 0, WU_SEC },
		{ 6, PM_TYPE_U64, PM_SEM_COUNTER, 1, WU_CNT },
		{ 7, PM_TYPE_FLOAT, PM_SEM_INSTANT, 1, WU_RATE },
		{ 8, PM_TYPE_U64, PM_SEM_COUNTER, 2, WU_CNT },
		{ 9, PM_TYPE_FLOAT, PM_SEM_INSTANT, 2, WU_RATE },
		/* -U as set up: Kbyte */
		{ 10, PM_TYPE_DOUBLE, PM_SEM_INSTANT, 2, UN(1, 0, 0, PM_SPACE_KBYTE, 0, 0) },
		{ 11, PM_TYPE_U32, PM_SEM_DISCRETE, -1, WU_SEC },
		{ 12, PM_TYPE_U32, PM_SEM_DISCRETE, -1, WU_SEC },
		{ 13, PM_TYPE_U32, PM_SEM_DISCRETE, -1, WU_NONE },
		{ 14, PM_TYPE_U32, PM_SEM_DISCRETE, -1, WU_NONE },
		{ 15, PM_TYPE_U32, PM_SEM_DISCRETE, -1, WU_NONE },
		{ 16, SDK_DEBUG_TYPE, PM_SEM_DISCRETE, -1, WU_NONE },	/* 32-bit, a string on PCP 7 */
		{ 17, PM_TYPE_U64, PM_SEM_COUNTER, 3, WU_CNT },
		{ 18, PM_TYPE_FLOAT, PM_SEM_INSTANT, 3, WU_RATE },
		{ 19, PM_TYPE_DOUBLE, PM_SEM_COUNTER, 3, WU_CNT },	/* -V as set up */
		/* ours: seconds like min_time, observations in -U's units */
		{ PCT(0), PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, WU_SEC },
		{ PCT(1), PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, WU_SEC },
		{ PCT(2), PM_TYPE_DOUBLE, PM_SEM_INSTANT, 0, WU_SEC },
		{ PCT(3), PM_TYPE_DOUBLE, PM_SEM_INSTANT, 2, UN(1, 0, 0, PM_SPACE_KBYTE, 0, 0) },
		{ PCT(4), PM_TYPE_DOUBLE, PM_SEM_INSTANT, 2, UN(1, 0, 0, PM_SPACE_KBYTE, 0, 0) },
		{ PCT(5), PM_TYPE_DOUBLE, PM_SEM_INSTANT, 2, UN(1, 0, 0, PM_SPACE_KBYTE, 0, 0) },
		/* cumulative buckets: counts, over indoms 4 (times) and 5 (values) */
		{ PCT(6), PM_TYPE_U64, PM_SEM_COUNTER, 4, WU_CNT },
		{ PCT(7), PM_TYPE_U64, PM_SEM_COUNTER, 5, WU_CNT },
	};
	pmDesc d;

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct want_desc *w = &want[i];

		assert_int_equal(dispatch.version.any.desc(any_pmid(w->item), &d,
				dispatch.version.any.ext), 0);
		assert_int_equal(d.pmid, any_pmid(w->item));
		assert_int_equal(d.type, w->type);
		assert_int_equal(d.sem, w->sem);
		if (w->indom_serial < 0)
			assert_int_equal(d.indom, PM_INDOM_NULL);
		else
			assert_int_equal(d.indom, pmInDom_build(DOM, w->indom_serial));
		assert_memory_equal(&d.units, &w->units, sizeof(pmUnits));
	}
	/* unknown items and clusters: PM_ERR_PMID (docs/trace-protocol.md §8.1) */
	assert_int_equal(dispatch.version.any.desc(pmid(20), &d,
			dispatch.version.any.ext), PM_ERR_PMID);
	assert_int_equal(dispatch.version.any.desc(pmID_build(DOM, 1, 8), &d,
			dispatch.version.any.ext), PM_ERR_PMID);
	assert_int_equal(dispatch.version.any.desc(pmID_build(DOM, 2, 9), &d,
			dispatch.version.any.ext), PM_ERR_PMID);
	assert_int_equal(dispatch.version.any.desc(pmID_build(DOM, 3, 23), &d,
			dispatch.version.any.ext), PM_ERR_PMID);
	assert_int_equal(dispatch.version.any.desc(pmID_build(DOM, 4, 0), &d,
			dispatch.version.any.ext), PM_ERR_PMID);
	/*
	 * cluster 3 (docs/trace-protocol.md §12.4): counters of requests by
	 * code (indom 8), spans taken, refused by reason (9), diverted by
	 * cause (10), body bytes; instant requests and bytes held; discrete
	 * budgets; trace reports refused by cause (10); requests by
	 * transport (11); OpenTelemetry metric data points taken, refused
	 * by reason (12); the metrics store's metrics, series and bytes, its
	 * budget; clients turned away by reason (13)
	 */
	{
		const pmUnits bytes = UN(1, 0, 0, PM_SPACE_BYTE, 0, 0);
		const struct want_desc otlp[] = {
			{ 0, PM_TYPE_U64, PM_SEM_COUNTER, 8, WU_CNT },
			{ 1, PM_TYPE_U64, PM_SEM_COUNTER, -1, WU_CNT },
			{ 2, PM_TYPE_U64, PM_SEM_COUNTER, 9, WU_CNT },
			{ 3, PM_TYPE_U64, PM_SEM_COUNTER, 10, WU_CNT },
			{ 4, PM_TYPE_U64, PM_SEM_COUNTER, -1, bytes },
			{ 5, PM_TYPE_U64, PM_SEM_INSTANT, -1, WU_CNT },
			{ 6, PM_TYPE_U64, PM_SEM_INSTANT, -1, bytes },
			{ 7, PM_TYPE_U64, PM_SEM_DISCRETE, -1, bytes },
			{ 8, PM_TYPE_U32, PM_SEM_INSTANT, -1, WU_NONE },
			{ 9, PM_TYPE_U64, PM_SEM_COUNTER, -1, WU_CNT },
			{ 10, PM_TYPE_U64, PM_SEM_INSTANT, -1, bytes },
			{ 11, PM_TYPE_U64, PM_SEM_DISCRETE, -1, bytes },
			{ 12, PM_TYPE_U64, PM_SEM_INSTANT, -1, bytes },
			{ 13, PM_TYPE_U64, PM_SEM_DISCRETE, -1, bytes },
			{ 14, PM_TYPE_U64, PM_SEM_COUNTER, 10, WU_CNT },
			{ 15, PM_TYPE_U64, PM_SEM_COUNTER, 11, WU_CNT },
			{ 16, PM_TYPE_U64, PM_SEM_COUNTER, -1, WU_CNT },
			{ 17, PM_TYPE_U64, PM_SEM_COUNTER, 12, WU_CNT },
			{ 18, PM_TYPE_U64, PM_SEM_INSTANT, -1, WU_CNT },
			{ 19, PM_TYPE_U64, PM_SEM_INSTANT, -1, WU_CNT },
			{ 20, PM_TYPE_U64, PM_SEM_INSTANT, -1, bytes },
			{ 21, PM_TYPE_U64, PM_SEM_DISCRETE, -1, bytes },
			{ 22, PM_TYPE_U64, PM_SEM_COUNTER, 13, WU_CNT },
		};

		check_descs(3, otlp, sizeof(otlp) / sizeof(otlp[0]));
	}
	/* the spans (cluster 2): count, errors, rate, ave, max, p50, p90, p99
	 * over indom 6, the buckets over 7; seconds whatever -U says */
	{
		const struct want_desc span[] = {
			{ 0, PM_TYPE_U64, PM_SEM_COUNTER, 6, WU_CNT },
			{ 1, PM_TYPE_U64, PM_SEM_COUNTER, 6, WU_CNT },
			{ 2, PM_TYPE_FLOAT, PM_SEM_INSTANT, 6, WU_RATE },
			{ 3, PM_TYPE_FLOAT, PM_SEM_INSTANT, 6, WU_AVE },
			{ 4, PM_TYPE_FLOAT, PM_SEM_INSTANT, 6, WU_SEC },
			{ 5, PM_TYPE_DOUBLE, PM_SEM_INSTANT, 6, WU_SEC },
			{ 6, PM_TYPE_DOUBLE, PM_SEM_INSTANT, 6, WU_SEC },
			{ 7, PM_TYPE_DOUBLE, PM_SEM_INSTANT, 6, WU_SEC },
			{ 8, PM_TYPE_U64, PM_SEM_COUNTER, 7, WU_CNT },
		};

		check_descs(2, span, sizeof(span) / sizeof(span[0]));
	}
}

static void help_text(void **state)
{
	char *buf = NULL;

	(void)state;
	for (unsigned i = 0; i < TRACE_NMETRICS; i++) {
		unsigned item = i < 20 ? i : i < 28 ? PCT(i - 20) : i < 37 ? SPAN(i - 28) : OTLP(i - 37);

		assert_int_equal(dispatch.version.any.text((int)any_pmid(item),
				PM_TEXT_PMID | PM_TEXT_ONELINE, &buf,
				dispatch.version.any.ext), 0);
		assert_true(buf != NULL && buf[0] != '\0');
		assert_int_equal(dispatch.version.any.text((int)any_pmid(item),
				PM_TEXT_PMID | PM_TEXT_HELP, &buf,
				dispatch.version.any.ext), 0);
		assert_true(buf != NULL && buf[0] != '\0');
	}
	assert_int_equal(dispatch.version.any.text((int)pmID_build(DOM, 1, 8),
			PM_TEXT_PMID | PM_TEXT_ONELINE, &buf,
			dispatch.version.any.ext), PM_ERR_PMID);
	for (int s = 0; s < 14; s++)
		assert_int_equal(dispatch.version.any.text((int)pmInDom_build(DOM, s),
				PM_TEXT_INDOM | PM_TEXT_ONELINE, &buf,
				dispatch.version.any.ext), 0);
	assert_int_equal(dispatch.version.any.text((int)pmid(20),
			PM_TEXT_PMID | PM_TEXT_ONELINE, &buf,
			dispatch.version.any.ext), PM_ERR_PMID);
	assert_int_equal(dispatch.version.any.text((int)pmInDom_build(DOM, 14),
			PM_TEXT_INDOM | PM_TEXT_ONELINE, &buf,
			dispatch.version.any.ext), PM_ERR_INDOM);
}

/*
 * Cluster 3: the receiver's counters as its thread leaves them, by their
 * fixed instances (a status code is its own instance number), and the
 * aggregation's memory and refusals.
 */
static void receiver_counters(void **state)
{
	struct otlp_stats *st = &tp.otlp_stats;
	struct trace_agg_usage u;

	(void)state;
	memset(st, 0, sizeof(*st));
	st->answers[OTLP_ANSWER_200] = 7;
	st->answers[OTLP_ANSWER_503] = 3;
	st->answers[OTLP_ANSWER_429] = 2;
	st->answers[OTLP_ANSWER_204] = 5;	/* CORS preflights */
	st->answers[OTLP_ANSWER_403] = 1;
	st->spans_accepted = 3584;
	st->spans_rejected[OTLP_REJECT_NO_START] = 5;
	st->bytes = 123456;
	st->inflight = 4;
	st->buffered = 65536;
	st->buf_max = 64 << 20;
	st->listening = 1;
	near(value_of(OTLP(0), 200), 7);
	near(value_of(OTLP(0), 503), 3);
	near(value_of(OTLP(0), 429), 2);
	near(value_of(OTLP(0), 413), 0);
	near(value_of(OTLP(0), 204), 5);
	near(value_of(OTLP(0), 403), 1);
	near(value_of(OTLP(0), 201), NONE);	/* no such answer, no such instance */
	near(value_of(OTLP(1), PM_IN_NULL), 3584);
	near(value_of(OTLP(2), OTLP_REJECT_NO_START), 5);
	near(value_of(OTLP(2), OTLP_REJECT_KIND), 0);
	near(value_of(OTLP(4), PM_IN_NULL), 123456);
	near(value_of(OTLP(5), PM_IN_NULL), 4);
	near(value_of(OTLP(6), PM_IN_NULL), 65536);
	near(value_of(OTLP(7), PM_IN_NULL), 64 << 20);
	near(value_of(OTLP(8), PM_IN_NULL), 1);
	st->via[OTLP_VIA_HTTP] = 9;
	st->via[OTLP_VIA_GRPC] = 3;
	near(value_of(OTLP(15), 0), 9);
	near(value_of(OTLP(15), 1), 3);
	near(value_of(OTLP(15), 2), NONE);
	st->answers[OTLP_ANSWER_401] = 6;
	st->denied[OTLP_DENY_HOST] = 4;
	st->denied[OTLP_DENY_BAD_TOKEN] = 2;
	near(value_of(OTLP(0), 401), 6);
	near(value_of(OTLP(22), OTLP_DENY_HOST), 4);
	near(value_of(OTLP(22), OTLP_DENY_HOST_LIMIT), 0);
	near(value_of(OTLP(22), OTLP_DENY_BAD_TOKEN), 2);
	near(value_of(OTLP(22), OTLP_DENY_N), NONE);
	/* the PDU aggregation's memory, as tra_agg_usage says */
	report(TRACE_POINT, "budgeted", 0);
	tra_agg_usage(tp.agg, &u);
	assert_true(u.bytes > 0);
	near(value_of(OTLP(12), PM_IN_NULL), (double)u.bytes);
	near(value_of(OTLP(14), 0), (double)u.refused_cap);
	near(value_of(OTLP(14), 1), (double)u.refused_bytes);
	memset(st, 0, sizeof(*st));
}

/* The control metrics: T, T div N, N, the port, reset 1 (debug below). */
static void control(void **state)
{
	(void)state;
	near(value_of(11, PM_IN_NULL), 6);
	near(value_of(12, PM_IN_NULL), 2);
	near(value_of(13, PM_IN_NULL), 3);
	near(value_of(14, PM_IN_NULL), 4323);
	near(value_of(15, PM_IN_NULL), 1);
}

/* The worked example of docs/trace-protocol.md §8.3 (-T 6 -N 3, sub-interval 2 s). */
static void worked_example(void **state)
{
	pmInResult *in = NULL;
	pmValueSet *vs;
	pmdaResult *res;
	int A, T;

	(void)state;
	/* t = 1.3: 5 x A; T 1.0 s, T 3.0 s; O = 10; C = 100 */
	at(1.3);
	for (int i = 0; i < 5; i++)
		report(TRACE_POINT, "A", -1.0);
	report(TRACE_TRANSACT, "T", 1.0);
	report(TRACE_TRANSACT, "T", 3.0);
	report(TRACE_OBSERVE, "O", 10);
	report(TRACE_COUNTER, "C", 100);
	A = tra_agg_lookup(tp.agg, TRACE_POINT, "A");
	T = tra_agg_lookup(tp.agg, TRACE_TRANSACT, "T");
	assert_int_equal(A, 1);		/* numbers start at 1 (docs/trace-protocol.md §8.2) */
	assert_int_equal(T, 1);
	near(value_of(7, A), NONE);
	near(value_of(1, T), NONE);
	near(value_of(0, T), 2);
	near(value_of(5, T), 4);
	near(value_of(6, A), 5);
	near(value_of(10, 1), 10);
	near(value_of(19, 1), 100);
	near(value_of(8, 1), 1);
	near(value_of(17, 1), 1);
	/* until the first rotation a window metric has no values at all */
	res = fetch(1, &vs);
	assert_int_equal(vs->numval, 0);
	sdk_free_pmda_result_values(res);

	at(3.0);
	near(value_of(7, A), 5.0 / 6);
	near(value_of(1, T), 2.0 / 6);
	near(value_of(2, T), 2);
	near(value_of(3, T), 1);
	near(value_of(4, T), 3);
	near(value_of(9, 1), 1.0 / 6);
	near(value_of(18, 1), 1.0 / 6);
	/* ours: 1.0 and 3.0 s; the midpoints of their buckets, clamped into [1, 3] */
	near(value_of(PCT(0), T), 1 + 1.0 / 64);
	near(value_of(PCT(1), T), 3);
	near(value_of(PCT(2), T), 3);
	near(value_of(PCT(3), 1), 10);
	near(value_of(PCT(5), 1), 10);

	/* t = 3.1: 3 x A, 1 x B; T 2.0 s; O = 20; C = 150 */
	at(3.1);
	for (int i = 0; i < 3; i++)
		report(TRACE_POINT, "A", -1.0);
	report(TRACE_POINT, "B", -1.0);
	report(TRACE_TRANSACT, "T", 2.0);
	report(TRACE_OBSERVE, "O", 20);
	report(TRACE_COUNTER, "C", 150);
	near(value_of(7, A), 5.0 / 6);
	near(value_of(7, 2), NONE);	/* B */
	near(value_of(1, T), 2.0 / 6);
	near(value_of(0, T), 3);
	near(value_of(5, T), 6);
	near(value_of(10, 1), 20);
	near(value_of(19, 1), 150);

	/* the point domain: A = 1, B = 2, sorted */
	assert_int_equal(dispatch.version.any.instance(pmInDom_build(DOM, 1),
			PM_IN_NULL, NULL, &in, dispatch.version.any.ext), 0);
	assert_int_equal(in->numinst, 2);
	assert_int_equal(in->instlist[0], 1);
	assert_string_equal(in->namelist[0], "A");
	assert_int_equal(in->instlist[1], 2);
	assert_string_equal(in->namelist[1], "B");
	__pmFreeInResult(in);
	assert_int_equal(dispatch.version.any.instance(pmInDom_build(DOM, 1),
			PM_IN_NULL, "B", &in, dispatch.version.any.ext), 0);
	assert_int_equal(in->instlist[0], 2);
	__pmFreeInResult(in);
	assert_int_equal(dispatch.version.any.instance(pmInDom_build(DOM, 1),
			7, NULL, &in, dispatch.version.any.ext), PM_ERR_INST);

	at(5.0);
	near(value_of(7, A), 8.0 / 6);
	near(value_of(7, 2), 1.0 / 6);
	near(value_of(1, T), 0.5);
	near(value_of(2, T), 2);
	near(value_of(3, T), 1);
	near(value_of(4, T), 3);
	near(value_of(PCT(0), T), 2 + 2.0 / 64);	/* 1, 2, 3: the median's bucket [2, 2 + 1/16) */
	near(value_of(PCT(3), 1), 10.125);	/* 10 and 20: rank 1, bucket [10, 10.25) */
	near(value_of(PCT(4), 1), 20);
	at(7.0);
	near(value_of(7, A), 8.0 / 6);
	near(value_of(1, T), 0.5);
	at(9.0);
	near(value_of(7, A), 0.5);
	near(value_of(1, T), 1.0 / 6);
	near(value_of(2, T), 2);
	near(value_of(3, T), 2);
	near(value_of(4, T), 2);
	at(11.0);
	near(value_of(7, A), NONE);
	near(value_of(1, T), NONE);
	near(value_of(PCT(0), T), NONE);
	near(value_of(PCT(2), T), NONE);
	near(value_of(PCT(3), 1), NONE);
	near(value_of(0, T), 3);
	near(value_of(5, T), 6);
}

static void unknown(void **state)
{
	pmID ids[2] = { pmid(20), pmID_build(DOM, 1, 8) };
	pmdaResult *res = NULL;

	(void)state;
	assert_int_equal(dispatch.version.any.fetch(2, ids, &res,
			dispatch.version.any.ext), 0);
	assert_int_equal(res->vset[0]->numval, PM_ERR_PMID);
	assert_int_equal(res->vset[1]->numval, PM_ERR_PMID);
	sdk_free_pmda_result_values(res);
}

/* Hand @vs (freed) to the agent's store, as pmcd does. */
static int store_value_set(pmValueSet *vs)
{
	pmdaResult r = { .numpmid = 1 };
	int rc;

	r.vset[0] = vs;
	rc = dispatch.version.any.store(&r, dispatch.version.any.ext);
	free_value_set(vs);
	return rc;
}

static int store(unsigned item, int32_t v)
{
	return store_value_set(int_value_set(any_pmid(item), v));
}

static int store_string(unsigned item, const char *s)
{
	return store_value_set(string_value_set(any_pmid(item), s));
}


/*
 * trace.control.debug as the PCP built against serves it (pmda_debug.h;
 * what PCP 7's pmdatrace answered under dbpmda): PCP 6, an integer kept;
 * PCP 7, the PCP debug options, in PCP's order, cleared by an unknown one.
 */
static void debug_control(void **state)
{
	(void)state;
#ifdef SDK_PCP7
	pmValueSet *vs;
	pmdaResult *res;

	assert_int_equal(store_string(16, "appl1,appl0"), 0);
	res = fetch(16, &vs);
	assert_int_equal(vs->valfmt == PM_VAL_INSITU, 0);
	assert_string_equal(vs->vlist[0].value.pval->vbuf, "appl0,appl1");
	sdk_free_pmda_result_values(res);
	assert_int_equal(store(16, 5), PM_ERR_BADSTORE);
	assert_int_equal(store_string(16, "appl0,bogus"), PM_ERR_CONV);
	res = fetch(16, &vs);
	assert_string_equal(vs->vlist[0].value.pval->vbuf, "");
	sdk_free_pmda_result_values(res);
#else
	near(value_of(16, PM_IN_NULL), 0);
	assert_int_equal(store(16, 5), 0);
	near(value_of(16, PM_IN_NULL), 5);
	assert_int_equal(store_string(16, "appl0"), PM_ERR_BADSTORE);
	assert_int_equal(store(16, 0), 0);
#endif
}

/* docs/trace-protocol.md : reset and debug store; everything else is PM_ERR_PMID */
static void stores(void **state)
{
	pmInResult *in = NULL;

	(void)state;
	at(20);
	report(TRACE_OBSERVE, "x", 1);
	for (unsigned i = 0; i < 20; i++) {
		if (i == 15 || i == 16)
			continue;
		assert_int_equal(store(i, 1), PM_ERR_PMID);
	}
	assert_int_equal(store(20, 1), PM_ERR_PMID);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(store(PCT(i), 1), PM_ERR_PMID);
	assert_int_equal(store(15, 0), 0);
	for (int s = 0; s < 6; s++) {
		assert_int_equal(dispatch.version.any.instance(pmInDom_build(DOM, s),
				PM_IN_NULL, NULL, &in, dispatch.version.any.ext), 0);
		assert_int_equal(in->numinst, 0);
		__pmFreeInResult(in);
	}
	near(value_of(15, PM_IN_NULL), 1);
	/* a tag seen again keeps its number (docs/trace-protocol.md §8.2): B was 2 */
	report(TRACE_POINT, "B", -1.0);
	assert_int_equal(tra_agg_lookup(tp.agg, TRACE_POINT, "B"), 2);
	near(value_of(6, 2), 1);
}

/*
 * Observed values 1..100 in one sub-interval: nearest rank gives 50, 90
 * and 99, exported as the midpoints of their buckets (width 1 in
 * [32, 64), 2 in [64, 128)); values below the scheme's range fall in its
 * bottom bucket, which stands for 2^-30, clamped into the window's [min, max].
 */
static void percentiles(void **state)
{
	int q, n;

	(void)state;
	at(30.1);	/* sub-interval 15 */
	for (int v = 100; v >= 1; v--)
		report(TRACE_OBSERVE, "q", v);
	report(TRACE_OBSERVE, "n", -5);
	report(TRACE_OBSERVE, "n", -3);
	q = tra_agg_lookup(tp.agg, TRACE_OBSERVE, "q");
	n = tra_agg_lookup(tp.agg, TRACE_OBSERVE, "n");
	near(value_of(PCT(3), q), NONE);
	at(32.0);
	near(value_of(PCT(3), q), 50.5);
	near(value_of(PCT(4), q), 91);
	near(value_of(PCT(5), q), 99);
	near(value_of(PCT(3), n), -3);	/* the bottom bucket, 2^-30, clamped to the max */
	near(value_of(PCT(5), n), -3);
	near(value_of(PCT(0), q), NONE);	/* not a transaction tag */
}

/* The instances of indom serial @s: numbers and names, into @in (freed by the caller). */
static pmInResult *instances(int s)
{
	pmInResult *in = NULL;

	assert_int_equal(dispatch.version.any.instance(pmInDom_build(DOM, s),
			PM_IN_NULL, NULL, &in, dispatch.version.any.ext), 0);
	return in;
}

/* The cumulative count of bucket "@tag:@le" of @item, from the indom's names; NONE if absent. */
static double bucket(unsigned item, int serial, const char *tag, const char *le)
{
	pmInResult *in = instances(serial);
	char name[128];
	double v = NONE;

	snprintf(name, sizeof(name), "%s:%s", tag, le);
	for (int i = 0; i < in->numinst; i++)
		if (strcmp(in->namelist[i], name) == 0)
			v = value_of(item, in->instlist[i]);
	__pmFreeInResult(in);
	return v;
}

/*
 * Cumulative buckets (docs/trace-protocol.md §8.8), computed by hand from
 * common/trace_hist.h's definition: quarter binades, le the upper bound.
 * 0.001 s = 1.024 x 2^-10, the binade's first quarter, below
 * 1.25 x 2^-10 = 0.001220703125; 0.0015 = 1.536 x 2^-10, below
 * 1.75 x 2^-10 = 0.001708984375; 0.003 = 1.536 x 2^-9, below
 * 0.00341796875. The served buckets run from the empty one below the
 * smallest (le 2^-10) to the one holding the largest, then +Inf.
 */
static void cumulative_buckets(void **state)
{
	static const struct { const char *le; double n; } want[] = {
		{ "0.0009765625", 0 }, { "0.001220703125", 3 }, { "0.00146484375", 3 },
		{ "0.001708984375", 4 }, { "0.001953125", 4 }, { "0.00244140625", 4 },
		{ "0.0029296875", 4 }, { "0.00341796875", 6 }, { "+Inf", 6 },
	};
	pmInResult *in;
	int b, names_ok = 1;

	(void)state;
	at(40.0);
	for (int i = 0; i < 3; i++)
		report(TRACE_TRANSACT, "buckets", 0.001);
	report(TRACE_TRANSACT, "buckets", 0.0015);
	report(TRACE_TRANSACT, "buckets", 0.003);
	/* a late report (sub-interval 18, long out of the window) still counts */
	assert_true(tra_agg_record_in(tp.agg, 18, TRACE_TRANSACT, "buckets", 7, 0.003) > 0);
	b = tra_agg_lookup(tp.agg, TRACE_TRANSACT, "buckets");
	in = instances(4);
	for (size_t k = 0, i = 0; i < (size_t)in->numinst; i++) {
		char name[64];

		if (in->instlist[i] >> 9 != b)
			continue;	/* another test's tag */
		snprintf(name, sizeof(name), "buckets:%s", k < 9 ? want[k].le : "?");
		if (k >= 9 || strcmp(in->namelist[i], name) != 0 ||
		    (in->instlist[i] & 511) == 0)
			names_ok = 0;
		k++;
		if (i + 1 == (size_t)in->numinst && k != 9)
			names_ok = 0;
	}
	__pmFreeInResult(in);
	assert_true(names_ok);
	for (size_t k = 0; k < 9; k++)
		near(bucket(PCT(6), 4, "buckets", want[k].le), want[k].n);
	near(value_of(0, b), 6);	/* +Inf is the count */
	near(bucket(PCT(6), 4, "buckets", "0.0004882812"), NONE);	/* not served */

	/* the edges: 1.24 x 2^-10, in the quarter's last fine bucket, is below
	 * 1.25 x 2^-10; that bound itself is not below itself */
	report(TRACE_TRANSACT, "edge", 0.0012109375);
	report(TRACE_TRANSACT, "edge", 0.001220703125);
	near(bucket(PCT(6), 4, "edge", "0.0009765625"), 0);
	near(bucket(PCT(6), 4, "edge", "0.001220703125"), 1);
	near(bucket(PCT(6), 4, "edge", "0.00146484375"), 2);

	/* a longer time widens the span: new instances, the old ones as they were */
	report(TRACE_TRANSACT, "buckets", 0.01);	/* 1.28 x 2^-7: below 1.5 x 2^-7 */
	near(bucket(PCT(6), 4, "buckets", "0.01171875"), 7);
	near(bucket(PCT(6), 4, "buckets", "0.009765625"), 6);
	near(bucket(PCT(6), 4, "buckets", "0.00341796875"), 6);
	near(bucket(PCT(6), 4, "buckets", "+Inf"), 7);

	/* ten sub-intervals on: every slot reused (its counts kept in the
	 * tag's), none lost; a batch (a client's segment) counts the same */
	for (int k = 1; k <= 10; k++) {
		at(40.0 + 2.0 * k);
		report(TRACE_TRANSACT, "buckets", 0.001);
	}
	{
		static uint64_t dense[TRACE_HIST_NBUCKETS];
		struct trace_batch batch = { 5, 0.005, 0.001, 0.001, 0.001, dense };

		dense[trace_hist_index(0.001)] = 5;
		assert_true(tra_agg_merge_in(tp.agg, tra_agg_seq(tp.agg), TRACE_TRANSACT,
					     "buckets", 7, &batch) > 0);
	}
	near(bucket(PCT(6), 4, "buckets", "0.001220703125"), 3 + 10 + 5);
	near(bucket(PCT(6), 4, "buckets", "0.00341796875"), 6 + 10 + 5);
	near(bucket(PCT(6), 4, "buckets", "+Inf"), 7 + 10 + 5);
	near(value_of(0, tra_agg_lookup(tp.agg, TRACE_TRANSACT, "buckets")), 7 + 10 + 5);

	/* observations: below the scheme's range (bucket 0, le 2^-30) and above it */
	report(TRACE_OBSERVE, "wide", -5);
	report(TRACE_OBSERVE, "wide", 0x1p41);
	near(bucket(PCT(7), 5, "wide", "9.313225746154785e-10"), 1);
	near(bucket(PCT(7), 5, "wide", "1099511627776"), 1);	/* 2^40: the last finite bound */
	near(bucket(PCT(7), 5, "wide", "+Inf"), 2);
	in = instances(5);
	b = 0;
	for (int i = 0; i < in->numinst; i++)
		b += strncmp(in->namelist[i], "wide:", 5) == 0;
	__pmFreeInResult(in);
	assert_int_equal(b, TRACE_HIST_LE_N);	/* every bucket once, +Inf not twice */
	/* a transaction tag's bucket is not an instance of the values' metric */
	near(value_of(PCT(7), tra_agg_lookup(tp.agg, TRACE_TRANSACT, "buckets") << 9 | 1), NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(descriptors),
		cmocka_unit_test(help_text),
		cmocka_unit_test(control),
		cmocka_unit_test(debug_control),
		cmocka_unit_test(worked_example),
		cmocka_unit_test(unknown),
		cmocka_unit_test(stores),
		cmocka_unit_test(percentiles),
		cmocka_unit_test(cumulative_buckets),
		cmocka_unit_test(receiver_counters),	/* last: it adds a tag */
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
