/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP transports' sink (pmda_trace/otlp/sink.c): admission refuses
 * by size (413), count (429) and byte budget (503) and never lets the
 * bytes held pass the budget, also with two threads admitting at once;
 * a reservation grows by doubling and goes back whole; an export counts
 * its spans and gives its bytes back whatever the outcome; answers are
 * counted by code and by transport. tests/unit/build.mk builds it with
 * ASan+UBSan and with TSan, which must see no race in the two threads.
 */
#include <errno.h>
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

#include "../../../pmda_trace/otlp/sink.h"
#include "sdk_tsan.h"

#ifdef SDK_TSAN
/* liburcu's own hand-overs, which TSan cannot see (test_tracepmda_agg_threads.c) */
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:liburcu-cds.so\ncalled_from_lib:liburcu.so\n";
}
#endif

#define BUDGET	(1u << 20)

static const char body[] =
	"{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\","
	"\"value\":{\"stringValue\":\"svc\"}}]},\"scopeSpans\":[{\"spans\":["
	"{\"name\":\"op\",\"kind\":2,\"startTimeUnixNano\":\"1000\",\"endTimeUnixNano\":\"2000\"},"
	"{\"name\":\"bad\",\"kind\":2,\"startTimeUnixNano\":\"3000\",\"endTimeUnixNano\":\"2000\"}"
	"]}]}]}";

static struct tra_spans *spans;

static struct otlp_sink *sink_of(struct otlp_stats *st, unsigned max_inflight)
{
	struct otlp_sink_cfg cfg = {
		.spans = spans, .body_max = 64 << 10, .buf_max = BUDGET,
		.max_inflight = max_inflight, .retry_min = 2, .retry_max = 4, .stats = st,
	};

	return otlp_sink_new(&cfg);
}

static uint64_t stat_of(const uint64_t *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

static int setup(void **state)
{
	(void)state;
	rcu_register_thread();
	spans = tra_spans_new(6, 3, 100, 0, 0, NULL, NULL);
	return spans == NULL;
}

static int teardown(void **state)
{
	(void)state;
	tra_spans_free(spans);
	rcu_unregister_thread();
	return 0;
}

static void refusals(void **state)
{
	struct otlp_stats st = { 0 };
	struct otlp_sink *s;
	struct otlp_hold a = { 0 }, b = { 0 }, c = { 0 };
	struct otlp_outcome o;

	(void)state;
	assert_non_null(s = sink_of(&st, 2));
	assert_int_equal(stat_of(&st.buf_max), BUDGET);
	assert_int_equal(otlp_sink_admit(s, (64 << 10) + 1, &a, &o), 413);
	assert_int_equal(o.grpc, OTLP_GRPC_RESOURCE_EXHAUSTED);
	assert_int_equal(stat_of(&st.inflight), 0);
	/* two in flight: the third is refused by count, whatever its size */
	assert_int_equal(otlp_sink_admit(s, 60000, &a, &o), 0);
	assert_int_equal(otlp_sink_admit(s, 0, &b, &o), 0);
	assert_int_equal(stat_of(&st.inflight), 2);
	assert_int_equal(stat_of(&st.buffered), 60000);
	assert_int_equal(otlp_sink_admit(s, 10, &c, &o), 429);
	otlp_sink_done(s, &b);
	otlp_sink_done(s, &b);	/* idempotent */
	assert_int_equal(stat_of(&st.inflight), 1);
	/* a body of no announced length grows by doubling, within the budget */
	assert_int_equal(otlp_sink_admit(s, 0, &b, &o), 0);
	assert_int_equal(otlp_sink_grow(s, &b, 100), 0);
	assert_int_equal(b.reserved, 16384);
	assert_int_equal(otlp_sink_grow(s, &b, 16385), 0);
	assert_int_equal(b.reserved, 32768);
	assert_int_equal(stat_of(&st.buffered), 60000 + 32768);
	otlp_sink_done(s, &a);
	otlp_sink_done(s, &b);
	assert_int_equal(stat_of(&st.buffered), 0);
	assert_int_equal(stat_of(&st.inflight), 0);
	otlp_sink_free(s);

	/* the byte budget: 503 once the bodies held would pass it */
	memset(&st, 0, sizeof(st));
	assert_non_null(s = sink_of(&st, 0));
	struct otlp_hold h[20];

	memset(h, 0, sizeof(h));
	for (int i = 0; i < 16; i++)
		assert_int_equal(otlp_sink_admit(s, 64 << 10, &h[i], &o), 0);
	assert_int_equal(stat_of(&st.buffered), BUDGET);
	assert_int_equal(otlp_sink_admit(s, 1, &h[16], &o), 503);
	assert_int_equal(o.grpc, OTLP_GRPC_UNAVAILABLE);
	assert_int_equal(otlp_sink_admit(s, 0, &h[16], &o), 0);	/* nothing reserved yet */
	assert_int_equal(otlp_sink_grow(s, &h[16], 1), -1);
	assert_int_equal(h[16].reserved, 0);
	for (int i = 0; i < 17; i++)
		otlp_sink_done(s, &h[i]);
	assert_int_equal(stat_of(&st.buffered), 0);
	assert_int_equal(stat_of(&st.inflight), 0);
	for (int i = 0; i < 100; i++) {
		unsigned r = otlp_sink_retry_after(s);

		assert_true(r >= 2 && r <= 4);
	}
	otlp_sink_free(s);
}

static void exports(void **state)
{
	struct otlp_stats st = { 0 };
	struct otlp_sink *s;
	struct otlp_hold h = { 0 };
	struct otlp_outcome o;

	(void)state;
	assert_non_null(s = sink_of(&st, 0));
	assert_int_equal(otlp_sink_admit(s, sizeof(body) - 1, &h, &o), 0);
	otlp_sink_took(s, sizeof(body) - 1);
	otlp_sink_export(s, &h, OTLP_SIGNAL_TRACES, OTLP_JSON, 0, body, sizeof(body) - 1, &o);
	assert_int_equal(o.http, 200);
	assert_int_equal(o.grpc, OTLP_GRPC_OK);
	assert_int_equal(o.res.accepted, 1);
	assert_int_equal(o.res.rejected, 1);
	assert_int_equal(h.reserved, 0);	/* given back at once */
	assert_int_equal(stat_of(&st.buffered), 0);
	assert_int_equal(stat_of(&st.inflight), 1);	/* until the answer went */
	otlp_sink_answered(s, OTLP_VIA_GRPC, o.http, NULL);
	otlp_sink_done(s, &h);
	assert_int_equal(stat_of(&st.inflight), 0);
	assert_int_equal(stat_of(&st.spans_accepted), 1);
	assert_int_equal(stat_of(&st.spans_rejected[OTLP_REJECT_BACKWARDS]), 1);
	assert_int_equal(stat_of(&st.bytes), sizeof(body) - 1);
	assert_int_equal(stat_of(&st.answers[OTLP_ANSWER_200]), 1);
	assert_int_equal(stat_of(&st.via[OTLP_VIA_GRPC]), 1);
	assert_int_equal(stat_of(&st.via[OTLP_VIA_HTTP]), 0);

	/* bad gzip, and not a request: 400, the bytes back all the same */
	assert_int_equal(otlp_sink_admit(s, 5, &h, &o), 0);
	otlp_sink_export(s, &h, OTLP_SIGNAL_TRACES, OTLP_PROTOBUF, 1, "junk!", 5, &o);
	assert_int_equal(o.http, 400);
	assert_int_equal(o.grpc, OTLP_GRPC_INVALID_ARGUMENT);
	otlp_sink_answered(s, OTLP_VIA_HTTP, o.http, o.why);
	otlp_sink_done(s, &h);
	assert_int_equal(otlp_sink_admit(s, 3, &h, &o), 0);
	otlp_sink_export(s, &h, OTLP_SIGNAL_TRACES, OTLP_JSON, 0, "{[}", 3, &o);
	assert_int_equal(o.http, 400);
	assert_non_null(o.why);
	otlp_sink_done(s, &h);
	assert_int_equal(stat_of(&st.buffered), 0);
	assert_int_equal(stat_of(&st.answers[OTLP_ANSWER_400]), 1);
	assert_int_equal(stat_of(&st.via[OTLP_VIA_HTTP]), 1);
	assert_int_equal(stat_of(&st.spans_accepted), 1);
	otlp_sink_free(s);
}

/* Two threads admit, grow and finish at once: the budget is never passed. */
struct racer {
	struct otlp_sink *s;
	struct otlp_stats *st;
	unsigned seed;
	int admitted, over;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct otlp_outcome o;

	rcu_register_thread();
	for (int i = 0; i < 20000; i++) {
		struct otlp_hold h = { 0 };
		size_t len = (size_t)rand_r(&r->seed) % (64 << 10);

		if (otlp_sink_admit(r->s, len, &h, &o) == 0) {
			r->admitted++;
			if (otlp_sink_grow(r->s, &h, len + 1000) < 0)
				otlp_sink_release(r->s, &h);
		}
		if (stat_of(&r->st->buffered) > BUDGET)
			r->over++;
		otlp_sink_done(r->s, &h);
	}
	rcu_unregister_thread();
	return NULL;
}

static void two_threads(void **state)
{
	struct otlp_stats st = { 0 };
	struct racer r[2];
	pthread_t t[2];

	(void)state;
	memset(r, 0, sizeof(r));
	r[0].s = r[1].s = sink_of(&st, 0);
	assert_non_null(r[0].s);
	r[0].st = r[1].st = &st;
	r[0].seed = 1;
	r[1].seed = 2;
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_int_equal(r[0].over + r[1].over, 0);
	assert_true(r[0].admitted > 0 && r[1].admitted > 0);
	assert_int_equal(stat_of(&st.buffered), 0);
	assert_int_equal(stat_of(&st.inflight), 0);
	otlp_sink_free(r[0].s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refusals),
		cmocka_unit_test(exports),
		cmocka_unit_test(two_threads),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
