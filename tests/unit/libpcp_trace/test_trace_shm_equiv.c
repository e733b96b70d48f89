/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The PDU path and the shared segment give the same numbers, at the
 * level of the agent's aggregation (docs/trace-protocol.md §10.8): the same
 * reports fed to one agent one by one (tra_agg_record_in, as the listener
 * does for PDUs) and to another by collecting the client's segment
 * (tra_shm_collect, tra_agg_merge_in) must export the same counts,
 * totals, latest values, window count/min/max/sum and percentiles. The
 * integration test tests/integration/trace_shm.sh does it through pmcd.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <urcu.h>

#include "../../../libpcp_trace/trace_priv.h"
#include "../../../pmda_trace/core/shm.h"

static struct trace_shm_seg seg;

/* A report by name as the library makes it: the thread's cache, else the segment's tables. */
static int rec(int type, const char *tag, double v)
{
	size_t taglen;
	int rc = trace__shm_fast(type, tag, v, &taglen);

	return rc != TRACE_SHM_PDU ? rc : trace__shm_record(type, tag, strlen(tag) + 1, 0, NULL, v);
}

static int64_t fake_now;

static int64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static int merge(void *arg, uint64_t seq, int type, const char *tag, size_t len,
		const struct trace_batch *b)
{
	return tra_agg_merge_in(arg, seq, type, tag, len, b);
}

static void assert_same(struct trace_agg *a, struct trace_agg *b, int type, const char *tag)
{
	static const double pct[] = { 50, 90, 99 };
	struct trace_stats x, y;
	double px[3], py[3];

	assert_int_equal(tra_agg_get(a, type, tra_agg_lookup(a, type, tag), &x), 0);
	assert_int_equal(tra_agg_get(b, type, tra_agg_lookup(b, type, tag), &y), 0);
	assert_int_equal(x.count, y.count);
	assert_int_equal(x.wcount, y.wcount);
	assert_true(x.in_window && y.in_window);
	assert_true(x.value == y.value);
	assert_true(x.wmin == y.wmin && x.wmax == y.wmax);
	/* sums: the same values added in the same order, then one difference */
	assert_true(fabs(x.total - y.total) <= 1e-12 * fabs(x.total));
	assert_true(fabs(x.wsum - y.wsum) <= 1e-12 * fabs(x.wsum));
	if (type == TRACE_TYPE_TRANSACT || type == TRACE_TYPE_OBSERVE) {
		assert_int_equal(tra_agg_percentiles(a, type, tra_agg_lookup(a, type, tag), pct, 3, px), 0);
		assert_int_equal(tra_agg_percentiles(b, type, tra_agg_lookup(b, type, tag), pct, 3, py), 0);
		for (int i = 0; i < 3; i++)
			assert_true(px[i] == py[i]);
	}
}

/*
 * The same reports, one agent fed one by one (the PDU path) and one fed
 * by collecting the segment (in three sub-intervals): every number the
 * agent exports, percentiles included, is the same.
 */
static void equivalence(void **state)
{
	static const int types[] = { TRACE_TYPE_TRANSACT, TRACE_TYPE_POINT,
				     TRACE_TYPE_OBSERVE, TRACE_TYPE_COUNTER };
	static const char *const tags[] = { "t", "p", "o", "c" };
	struct trace_agg *pdu, *shm;
	struct tra_shm *s;
	char why[64] = "";

	(void)state;
	assert_int_equal(trace__shm_seg_create(&seg, 8, 4), 0);
	assert_int_equal(trace__shm_install(&seg), 0);
	s = tra_shm_open(dup(seg.fd), seg.tags, seg.rows, why, sizeof(why));
	assert_non_null(s);
	rcu_register_thread();
	fake_now = 0;
	pdu = tra_agg_new(3, 3, 0, fake_clock, NULL);
	shm = tra_agg_new(3, 3, 0, fake_clock, NULL);
	for (int sub = 0; sub < 3; sub++) {
		fake_now = sub * 1000000 + 500000;
		for (int i = 1; i <= 300; i++) {
			for (int k = 0; k < 4; k++) {
				double v = types[k] == TRACE_TYPE_TRANSACT ? 1e-4 * (i % 97 + sub) :
					types[k] == TRACE_TYPE_POINT ? -1.0 : 0.25 * i * (sub + 1);

				tra_agg_record_in(pdu, tra_agg_seq(pdu), types[k], tags[k], 1, v);
				assert_int_equal(rec(types[k], tags[k], v), 0);
			}
		}
		/* the agent collects before the sub-interval ends */
		fake_now = sub * 1000000 + 900000;
		assert_int_equal(tra_shm_collect(s, tra_agg_seq(shm), 0, merge, shm, why, sizeof(why)), 4);
	}
	fake_now = 3500000;	/* all three complete: the window holds them */
	for (int k = 0; k < 4; k++)
		assert_same(pdu, shm, types[k], tags[k]);
	tra_shm_close(s);
	tra_agg_free(pdu);
	tra_agg_free(shm);
	trace__shm_drop(1);
	rcu_unregister_thread();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equivalence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
