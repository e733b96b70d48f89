/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OpenTelemetry metrics store (pmda_trace/otel/otel.h, Threads): two
 * threads record points (gauges, delta sums, explicit and exponential
 * histograms, summaries; shared metrics and series of their own, new
 * metrics and series as they go) while a third does what the agent's
 * thread answering pmcd does: lists the leaves when the generation
 * changes, their instances, values, help text and labels, and expires
 * idle series. tests/unit/build.mk builds it with ASan+UBSan and with
 * TSan, which must see no race; at the end each recorder's cumulative
 * sum, if not expired, holds exactly what it sent.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "otel_helpers.h"

#define POINTS	20000

static struct otel_store *store;
static int stop;

struct recorder {
	const char *service;
	int64_t added;
};

static void *record(void *arg)
{
	struct recorder *rc = arg;
	struct otel_resource r = shop;
	static const double b[] = { 0.001, 0.01, 0.1, 1 };
	static const struct otel_quantile q[] = { { 0.5, 1 }, { 0.9, 2 } };
	char val[32], name[32];
	struct otel_attr a = { "route", 5, val, 0 };

	r.service = rc->service;
	for (int i = 0; i < POINTS; i++) {
		uint64_t t = (uint64_t)(i + 1) * 1000;
		uint64_t c[5] = { (uint64_t)i, 1, 2, 3, (uint64_t)i % 7 };
		uint64_t pos[3] = { 1, (uint64_t)i, 2 };
		struct otel_metric m;
		struct otel_point p;

		/* a route lives for 500 points (0.5 s of the clock or less): then idle */
		a.json_len = (size_t)snprintf(val, sizeof(val), "\"/r/%d\"", i / 500);
		switch (i % 5) {
		case 0:
			/* a delta and its running total: whichever series is left holds it */
			rc->added += 3;
			m = sum("requests", "{request}", true, OTEL_TEMP_DELTA);
			p = ipoint(3, t);
			assert_int_equal(otel_record(store, &r, &m, &p), 0);
			m = sum("total", "{request}", true, OTEL_TEMP_CUMULATIVE);
			p = ipoint(rc->added, t);
			assert_int_equal(otel_record(store, &r, &m, &p), 0);
			break;
		case 1:
			m = histo("latency", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE);
			p = hpoint(b, 4, c, 0.5 * i, t);
			p.attrs = &a;
			p.n_attrs = 1;
			assert_int_equal(otel_record(store, &r, &m, &p), 0);
			break;
		case 2:
			m = histo("size", "By", OTEL_EXPHIST, OTEL_TEMP_DELTA);
			p = (struct otel_point){ .start_ns = t - 1, .time_ns = t, .scale = i % 4,
						 .pos_offset = i % 9, .pos = pos, .n_pos = 3,
						 .count = 3 + (uint64_t)i };
			assert_int_equal(otel_record(store, &r, &m, &p), 0);
			break;
		case 3:
			snprintf(name, sizeof(name), "%s.gauge.%d", rc->service, i % 100);
			m = gauge(name, "ms");
			p = dpoint(i, t);
			p.attrs = &a;
			p.n_attrs = 1;
			assert_int_equal(otel_record(store, &r, &m, &p), 0);
			break;
		default:
			m = histo("gc", "ms", OTEL_SUMMARY, OTEL_TEMP_UNSPECIFIED);
			p = (struct otel_point){ .start_ns = 1, .time_ns = t, .count = (uint64_t)i,
						 .quantiles = q, .n_quantiles = (size_t)1 + i % 2 };
			assert_int_equal(otel_record(store, &r, &m, &p), 0);
			break;
		}
		__atomic_add_fetch(&test_now, 1000000, __ATOMIC_RELAXED);
	}
	return NULL;
}

struct reader_state {
	uint64_t gen;
	int leaves, fetched;
	size_t expired;
	char buf[8192];
};

struct leaf_seen {
	struct reader_state *rs;
	pmDesc d;
};

/* Under the store's mutex: nothing here may call the store. */
static void inst_seen(void *arg, int inst, const char *name)
{
	struct leaf_seen *ls = arg;

	ls->rs->fetched += inst >= 0 && name[0] != '\0';
}

static void leaf_seen(void *arg, const char *name, const pmDesc *d)
{
	struct reader_state *rs = arg;

	rs->leaves += name[0] != '\0' && d->pmid != PM_ID_NULL;
}

/* Leaf @leaf's instances, values and labels, its text, as a fetch would. */
static void read_leaf(struct reader_state *rs, const char *leaf)
{
	struct leaf_seen ls = { rs, { 0 } };
	static struct insts c;
	pmAtomValue a;

	if (leaf_insts(store, leaf, &c, &ls.d) != 0)
		return;
	for (int i = 0; i < c.n; i++) {
		if (otel_fetch(store, ls.d.pmid, c.inst[i], &a) == 1)
			rs->fetched++;
		otel_inst_labels(store, ls.d.indom, c.inst[i], rs->buf, sizeof(rs->buf));
	}
	otel_instances(store, ls.d.indom, inst_seen, &ls);
	otel_item_labels(store, ls.d.pmid, rs->buf, sizeof(rs->buf));
	otel_text(store, ls.d.pmid, false, rs->buf, sizeof(rs->buf));
	otel_lookup_pmid(store, ls.d.pmid, rs->buf, sizeof(rs->buf), &ls.d);
}

static void *read_all(void *arg)
{
	struct reader_state *rs = arg;

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		uint64_t g = otel_generation(store);

		if (g != rs->gen) {
			rs->gen = g;
			rs->leaves = 0;
			otel_leaves(store, leaf_seen, rs);
		}
		read_leaf(rs, "trace.otel.latency.bucket");
		read_leaf(rs, "trace.otel.latency.p90");
		read_leaf(rs, "trace.otel.size.p99");
		read_leaf(rs, "trace.otel.size.bucket");
		read_leaf(rs, "trace.otel.gc.quantile");
		read_leaf(rs, "trace.otel.requests");
		read_leaf(rs, "trace.otel.alpha.gauge.3");
		rs->expired += otel_expire(store);
	}
	return NULL;
}

static void threads(void **state)
{
	struct otel_cfg cfg = { .domain = 155, .idle_sec = 1, .now_ns = test_clock };
	struct recorder a = { "alpha", 0 }, b = { "beta", 0 };
	struct reader_state rs = { 0 };
	pthread_t ta, tb, tr;
	struct otel_usage u;
	pmAtomValue v;

	(void)state;
	assert_non_null(store = otel_store_new(&cfg));
	assert_int_equal(pthread_create(&tr, NULL, read_all, &rs), 0);
	assert_int_equal(pthread_create(&ta, NULL, record, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, record, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(tr, NULL);
	otel_usage_get(store, &u);
	print_message("%llu points, %zu metrics, %zu series, %zu bytes; the reader saw %d leaves, "
		      "fetched %d, expired %zu\n", (unsigned long long)u.accepted, u.metrics,
		      u.series, u.bytes, rs.leaves, rs.fetched, rs.expired);
	assert_true(rs.expired > 0);
	assert_int_equal(u.accepted, 2 * (POINTS + POINTS / 5));
	for (int i = 0; i < OTEL_REJECT_N; i++)
		assert_int_equal(u.rejected[i], 0);
	/* a recorder may have been idle for a second of the other's clock: expired */
	if (fetch(store, "trace.otel.total", "alpha", &v) == 1)
		assert_int_equal(v.ll, a.added);
	if (fetch(store, "trace.otel.total", "beta", &v) == 1)
		assert_int_equal(v.ll, b.added);
	if (fetch(store, "trace.otel.requests", "alpha", &v) == 1)
		assert_true(v.ll > 0 && v.ll <= a.added);
	otel_store_free(store);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
