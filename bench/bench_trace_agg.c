/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's aggregation alone (pmda_trace/core/agg_*.c), one thread,
 * no sockets: what the PDU path costs per event once a PDU is decoded,
 * built twice (bench/build.mk): against the current core (-DBENCH_HIST:
 * with histograms; also the merge and percentile calls) and against the
 * core of TRACE_AGG_BASE, before histograms. Prints "key value unit".
 *
 * Events go as the listener sends them: tra_agg_seq once per 128 events,
 * then tra_agg_record_in, -T 60 -N 5. Values: "narrow" within one binade
 * (1-2 ms, at most 32 histogram buckets), "wide" log-uniform over 1 us to
 * 1 s (20 binades, up to 640 buckets), from a fixed table.
 */
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

#include "agg.h"
#include "bench_util.h"

#define NVALUES 4096
#define NTAGS 100
#define PER_SEQ 128

static double narrow[NVALUES], wide[NVALUES];
static char tags[NTAGS][8];

struct load {
	struct trace_agg *agg;
	int type, ntags;
	const double *values;
};

static void run_record(const void *arg, long n)
{
	const struct load *l = arg;
	uint64_t seq = 0;

	for (long i = 0; i < n; i++) {
		int t = (int)(i % l->ntags);

		if (i % PER_SEQ == 0)
			seq = tra_agg_seq(l->agg);
		tra_agg_record_in(l->agg, seq, l->type, tags[t], 6, l->values[i % NVALUES]);
	}
}

/* BENCH_CASE=KEY runs only that case (for perf and the like). */
static int wanted(const char *key)
{
	const char *only = getenv("BENCH_CASE");

	return only == NULL || strcmp(only, key) == 0;
}

static void record_case(const char *key, int type, int ntags, const double *values)
{
	struct load l = { NULL, type, ntags, values };

	if (!wanted(key))
		return;
	l.agg = tra_agg_new(60, 5, 0, NULL, NULL);

	printf("%s %.2f ns/event\n", key, bench_median_ns(run_record, &l, 7, 2e8));
	tra_agg_free(l.agg);
}

static int64_t fake_usec;

static int64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_usec;
}

/*
 * Heap bytes per tag: 1000 tags, each with 1000 values in each of the
 * N + 1 = 6 sub-intervals a -T 60 -N 5 window keeps.
 */
static void memory_case(const char *key, int type, const double *values)
{
	struct mallinfo2 before, after;
	struct trace_agg *agg;
	char tag[16];

	if (!wanted(key))
		return;
	fake_usec = 0;
	before = mallinfo2();
	agg = tra_agg_new(60, 5, 0, fake_clock, NULL);
	for (int s = 0; s < 6; s++) {
		fake_usec = (int64_t)s * 12000000 + 1;
		for (int t = 0; t < 1000; t++) {
			int len = snprintf(tag, sizeof(tag), "tag%04d", t);

			for (int v = 0; v < 1000; v++)
				tra_agg_record(agg, type, tag, (size_t)len, values[(t * 7 + v * 13) % NVALUES]);
		}
	}
	after = mallinfo2();
	printf("%s %.0f bytes/tag\n", key, (double)(after.uordblks - before.uordblks) / 1000);
	tra_agg_free(agg);
}

#ifdef BENCH_HIST
static uint64_t batch_hist[TRACE_HIST_NBUCKETS];
static struct trace_batch batch;

static void run_merge(const void *arg, long n)
{
	const struct load *l = arg;

	for (long i = 0; i < n; i++)
		tra_agg_merge_in(l->agg, tra_agg_seq(l->agg), l->type, tags[i % l->ntags], 6, &batch);
}

static void run_pct(const void *arg, long n)
{
	const struct load *l = arg;
	static const double pct[3] = { 50, 90, 99 };
	double out[3];

	for (long i = 0; i < n; i++)
		tra_agg_percentiles(l->agg, l->type, 1 + (int)(i % l->ntags), pct, 3, out);
}

/* A batch of 1000 wide values into 100 tags, round robin: ns per batch. */
static void merge_case(void)
{
	struct load l = { NULL, TRACE_TRANSACT, NTAGS, wide };

	if (!wanted("merge_batch_1000_wide"))
		return;
	l.agg = tra_agg_new(60, 5, 0, NULL, NULL);
	batch.count = 1000;
	batch.min = batch.max = wide[0];
	for (int v = 0; v < 1000; v++) {
		batch_hist[trace_hist_index(wide[v])]++;
		batch.sum += wide[v];
		batch.min = fmin(batch.min, wide[v]);
		batch.max = fmax(batch.max, wide[v]);
	}
	batch.last = wide[999];
	batch.hist = batch_hist;
	printf("merge_batch_1000_wide %.0f ns/batch\n", bench_median_ns(run_merge, &l, 7, 2e8));
	tra_agg_free(l.agg);
}

/* p50, p90 and p99 of a tag whose 5-sub-interval window is full of @values. */
static void pct_case(const char *key, const double *values)
{
	struct load l = { NULL, TRACE_TRANSACT, NTAGS, values };

	if (!wanted(key))
		return;
	fake_usec = 1;
	l.agg = tra_agg_new(60, 5, 0, fake_clock, NULL);
	for (int s = 0; s < 6; s++) {
		fake_usec = (int64_t)s * 12000000 + 1;
		for (int t = 0; t < NTAGS; t++)
			for (int v = 0; v < 1000; v++)
				tra_agg_record(l.agg, TRACE_TRANSACT, tags[t], 6,
					       values[(t * 7 + v * 13) % NVALUES]);
	}
	fake_usec = 6 * 12000000 + 1;	/* sub-intervals 1..5 in the window */
	printf("%s %.0f ns/call\n", key, bench_median_ns(run_pct, &l, 7, 2e8));
	tra_agg_free(l.agg);
}
#endif

int main(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	rcu_register_thread();
	for (int i = 0; i < NVALUES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		narrow[i] = 0.001 * (1 + (double)(x >> 11) / 9007199254740992.0);
		wide[i] = 1e-6 * pow(1e6, (double)(x >> 11) / 9007199254740992.0);
	}
	for (int t = 0; t < NTAGS; t++)
		snprintf(tags[t], sizeof(tags[t]), "tag%03d", t);
#ifdef BENCH_HIST
	printf("core histograms\n");
#else
	printf("core base\n");
#endif
	record_case("point_1tag", TRACE_POINT, 1, narrow);
	record_case("point_100tags", TRACE_POINT, NTAGS, narrow);
	record_case("transact_narrow_100tags", TRACE_TRANSACT, NTAGS, narrow);
	record_case("transact_wide_100tags", TRACE_TRANSACT, NTAGS, wide);
	record_case("observe_wide_100tags", TRACE_OBSERVE, NTAGS, wide);
	memory_case("mem_point", TRACE_POINT, narrow);
	memory_case("mem_transact_narrow", TRACE_TRANSACT, narrow);
	memory_case("mem_transact_wide", TRACE_TRANSACT, wide);
#ifdef BENCH_HIST
	merge_case();
	pct_case("pct3_narrow", narrow);
	pct_case("pct3_wide", wide);
#endif
	rcu_unregister_thread();
	return 0;
}
