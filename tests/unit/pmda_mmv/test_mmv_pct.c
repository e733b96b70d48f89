/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_mmv_pct.c - the agent's percentiles of histograms
 * (docs/mmv-format.md §9.8): the estimator on known bucket counts, the
 * rolling window, and the percentile metrics found in files laid out as
 * docs/mmv-format.md §10.5 says (written here with the plain registry API).
 * Expected values are worked out by hand from the definition: rank
 * q * total, linear inside the bucket holding it.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "../../lib/cmocka_compat.h"
#include "mmv_reader_test.h"
#include "../../lib/hist_layout.h"

#define INF	INFINITY

/* cmocka 1.1 has no double compare: within @eps. */
#define assert_close(a, b, eps)	assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* [0,10) [10,20) [20,30) [30,inf) */
static const mmvr_pct_bucket_t four[] = {
	{ 0, 10 }, { 10, 20 }, { 20, 30 }, { 30, INF },
};

static double est(const uint64_t *c, double q)
{
	double v = -1;

	assert_int_equal(mmvr_pct_estimate(four, c, 4, q, &v), 1);
	return v;
}

static void test_estimate_one_bucket(void **state)
{
	const uint64_t c[] = { 0, 10, 0, 0 };

	(void)state;
	/* rank 5 of 10 in [10,20): 10 + 10 * 5/10 */
	assert_close(est(c, 0.5), 15, 1e-9);
	assert_close(est(c, 0.9), 19, 1e-9);
	assert_close(est(c, 0.99), 19.9, 1e-9);
	/* q = 1: the bucket's upper bound */
	assert_close(est(c, 1), 20, 1e-9);
}

static void test_estimate_across(void **state)
{
	const uint64_t c[] = { 10, 10, 0, 0 };
	const uint64_t gap[] = { 1, 0, 0, 1 };

	(void)state;
	/* rank 10 ends the first bucket: its upper bound */
	assert_close(est(c, 0.5), 10, 1e-9);
	/* rank 18: 8 of the second bucket's 10 */
	assert_close(est(c, 0.9), 18, 1e-9);
	/* empty buckets between are skipped: rank 1.8 is in the last */
	assert_close(est(gap, 0.5), 10, 1e-9);
	assert_close(est(gap, 0.9), 30, 1e-9);
}

static void test_estimate_edges(void **state)
{
	const uint64_t none[] = { 0, 0, 0, 0 };
	const uint64_t under[] = { 4, 0, 0, 0 };
	const uint64_t over[] = { 0, 0, 0, 5 };
	const uint64_t mixed[] = { 0, 0, 90, 10 };
	double v = -1;

	(void)state;
	assert_int_equal(mmvr_pct_estimate(four, none, 4, 0.5, &v), 0);
	assert_close(v, -1, 0);
	/* underflow [0,10): rank 2 of 4 */
	assert_close(est(under, 0.5), 5, 1e-9);
	/* overflow: its lower bound, whatever the rank */
	assert_close(est(over, 0.5), 30, 1e-9);
	assert_close(est(over, 0.99), 30, 1e-9);
	assert_close(est(mixed, 0.5), 20 + 10 * 50.0 / 90, 1e-9);
	assert_close(est(mixed, 0.99), 30, 1e-9);
	/* one value: the middle of its bucket for p50 */
	assert_int_equal(mmvr_pct_estimate(four + 1, (uint64_t[]){ 1 }, 1,
			0.5, &v), 1);
	assert_close(v, 15, 1e-9);
}

static void test_window(void **state)
{
	mmvr_pct_window_t w;
	uint64_t c, d[2];
	unsigned int t;

	(void)state;
	assert_int_equal(mmvr_pct_window_init(&w, 3000, 1000, 2), 0);
	assert_true(mmvr_pct_window_due(&w, 0));
	assert_false(mmvr_pct_window_delta(&w, 0, 2, d));	/* empty */
	mmvr_pct_window_push(&w, 0, (uint64_t[]){ 0, 100 });
	assert_false(mmvr_pct_window_delta(&w, 0, 2, d));	/* one sample */
	/* due from 7/8 of a step on */
	assert_false(mmvr_pct_window_due(&w, 874));
	assert_true(mmvr_pct_window_due(&w, 875));
	mmvr_pct_window_push(&w, 1000, (uint64_t[]){ 5, 101 });
	assert_true(mmvr_pct_window_delta(&w, 0, 2, d));
	assert_int_equal(d[0], 5);
	assert_int_equal(d[1], 1);
	/* 5 a step: at 9000 the window [6000, 9000] holds 3 steps */
	for (t = 2; t <= 9; t++) {
		c = 5 * t;
		mmvr_pct_window_push(&w, t * 1000, (uint64_t[]){ c, 100 + t });
	}
	assert_true(mmvr_pct_window_delta(&w, 0, 1, d));
	assert_int_equal(d[0], 15);
	assert_true(mmvr_pct_window_delta(&w, 1, 1, d));
	assert_int_equal(d[0], 3);
	/* a counter going back (writer restarted): only the new sample */
	mmvr_pct_window_push(&w, 10000, (uint64_t[]){ 1, 200 });
	assert_false(mmvr_pct_window_delta(&w, 0, 2, d));
	mmvr_pct_window_push(&w, 11000, (uint64_t[]){ 4, 200 });
	assert_true(mmvr_pct_window_delta(&w, 0, 1, d));
	assert_int_equal(d[0], 3);
	/* a gap longer than the window: no older sample inside it */
	mmvr_pct_window_push(&w, 20000, (uint64_t[]){ 9, 200 });
	assert_false(mmvr_pct_window_delta(&w, 0, 1, d));
	assert_false(mmvr_pct_window_delta(&w, 1, 2, d));	/* out of range */
	mmvr_pct_window_fini(&w);
	assert_int_equal(mmvr_pct_window_init(&w, 500, 1000, 1), -EINVAL);
	assert_int_equal(mmvr_pct_window_init(&w, 1000, 0, 1), -EINVAL);
}

/* The test file "shop": lat per product (usec), size singular (bytes). */
static char *dir;
static hl_hist_t lat, size;
static void *addr;
static mmv_registry_t *reg;

static void write_shop(const char *name, uint64_t lat_hi)
{
	pmUnits usec = { .dimTime = 1, .scaleTime = PM_TIME_USEC };
	pmUnits bytes = { .dimSpace = 1, .scaleSpace = PM_SPACE_BYTE };
	pmUnits none = { 0 };
	mmv_registry_t *r = mmv_stats_registry(file_path(dir, name), 0, 0);

	assert_non_null(r);
	memset(&lat, 0, sizeof(lat));
	memset(&size, 0, sizeof(size));
	snprintf(lat.name, sizeof(lat.name), "lat");
	lat.nedges = hl_edges(8, lat_hi, 2, lat.edges);
	lat.nsets = 2;
	snprintf(lat.sets[0], sizeof(lat.sets[0]), "anvils");
	snprintf(lat.sets[1], sizeof(lat.sets[1]), "rockets");
	snprintf(size.name, sizeof(size.name), "size");
	size.nedges = hl_edges(1, 4, 1, size.edges);
	size.nsets = 1;
	assert_int_equal(mmv_stats_add_indom(r, 1, "products", NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 0, "anvils"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 1, "rockets"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "x", 1, MMV_TYPE_U32,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_int_equal(hl_declare(r, &lat, 10, 2, 1, 2, usec), 0);
	assert_int_equal(hl_declare(r, &size, 20, 3, 0, 1, bytes), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	assert_int_equal(hl_bind(addr, &lat, 1), 0);
	assert_int_equal(hl_bind(addr, &size, 0), 0);
	reg = r;
}

static int setup(void **state)
{
	(void)state;
	dir = make_dir();
	return dir == NULL;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

static const mmvr_metric_info_t *metric(const mmvr_pct_view_t *v,
		const char *name)
{
	const mmvr_metric_info_t *m = mmvr_pct_view_lookup_name(v, name);

	assert_non_null(m);
	assert_ptr_equal(mmvr_pct_view_lookup_pmid(v, m->desc.pmid), m);
	return m;
}

/* A percentile (which reads no live value: no snapshot needed). */
static int fetch(mmvr_pct_t *p, const mmvr_pct_view_t *v, const char *name,
		int inst, double *out)
{
	pmAtomValue a;
	int sts = mmvr_pct_fetch(p, v, NULL, metric(v, name), inst, &a);

	if (sts == 1)
		*out = a.d;
	return sts;
}

static void test_metrics(void **state)
{
	mmvr_pct_t *p = mmvr_pct_new("mmv", 70, 3000, 1000);
	const mmvr_metric_info_t *m;
	const mmvr_indom_info_t *d;
	mmvr_snapshot_t *s;
	mmvr_pct_view_t *v;
	test_log_t log;
	bool items[MMVR_PCT_NITEMS * 2] = { false };
	size_t i, first;

	(void)state;
	write_shop("shop", 64);
	s = scan_dir(dir, &log);
	assert_non_null(s);
	assert_non_null(p);
	v = mmvr_pct_view_build(p, s);
	assert_non_null(v);
	assert_int_equal(mmvr_pct_view_nhists(v), 2);
	assert_int_equal(mmvr_pct_view_nmetrics(v), 8);
	/* names sorted; PMIDs in cluster 0 from MMVR_PCT_ITEM0, one each */
	assert_string_equal(mmvr_pct_view_metric(v, 0)->name,
			"mmv.percentile.shop.lat.bucket");
	assert_string_equal(mmvr_pct_view_metric(v, 1)->name,
			"mmv.percentile.shop.lat.p50");
	assert_string_equal(mmvr_pct_view_metric(v, 7)->name,
			"mmv.percentile.shop.size.p99");
	for (i = 0; i < 8; i++) {
		pmID id = mmvr_pct_view_metric(v, i)->desc.pmid;

		assert_int_equal(mmv_pmid_domain(id), 70);
		assert_int_equal(mmv_pmid_cluster(id), 0);
		assert_uint_in_range(mmv_pmid_item(id), MMVR_PCT_ITEM0, MMVR_PCT_ITEM0 + 7);
		assert_false(items[mmv_pmid_item(id) - MMVR_PCT_ITEM0]);
		items[mmv_pmid_item(id) - MMVR_PCT_ITEM0] = true;
	}
	assert_int_equal(mmvr_pct_view_name_range(v, "mmv.percentile.shop.lat.",
			&first), 4);
	assert_int_equal(first, 0);
	/* descriptor: double, instant, the products indom, .sum's units */
	m = metric(v, "mmv.percentile.shop.lat.p90");
	assert_int_equal(m->desc.type, PM_TYPE_DOUBLE);
	assert_int_equal(m->desc.sem, PM_SEM_INSTANT);
	assert_int_equal(m->desc.units.dimTime, 1);
	assert_int_equal(m->desc.units.scaleTime, PM_TIME_USEC);
	assert_int_equal(m->desc.indom,
			mmvr_snapshot_lookup_name(s, "mmv.shop.lat.count")->desc.indom);
	d = mmvr_snapshot_lookup_indom(s, m->desc.indom);
	assert_non_null(d);
	assert_int_equal(d->ninstances, 2);
	assert_non_null(strstr(m->shorttext, "90th percentile of mmv.shop.lat"));
	assert_non_null(m->helptext);
	m = metric(v, "mmv.percentile.shop.size.p50");
	assert_int_equal(m->desc.indom, PM_INDOM_NULL);
	assert_int_equal(m->desc.units.dimSpace, 1);
	assert_null(mmvr_pct_view_lookup_name(v, "mmv.shop.x"));
	/* the sampler's read: one copy of all values, as fetched one by one */
	{
		const mmvr_metric_info_t *b = mmvr_snapshot_lookup_name(s,
				"mmv.shop.lat.bucket");
		int insts[3] = { 3, 0, 9 }, bad[1] = { 99 };
		uint64_t got[3];
		mmvr_value_t one;

		hl_record(&lat, 0, 20, 5);	/* anvils:16-24 is id 3 */
		hl_record(&lat, 1, 9, 2);	/* rockets:8-12 is id 8 + 1 */
		assert_int_equal(mmvr_snapshot_fetch_counts(s, b, insts, 3, got), 1);
		assert_int_equal(got[0], 5);
		assert_int_equal(got[1], 0);
		assert_int_equal(got[2], 2);
		assert_int_equal(mmvr_snapshot_fetch_metric(s, b, 9, &one), 1);
		assert_int_equal(one.atom.ull, 2);
		assert_int_equal(mmvr_snapshot_fetch_counts(s, b, bad, 1, got),
				PM_ERR_INST);
		assert_int_equal(mmvr_snapshot_fetch_counts(s,
				mmvr_snapshot_lookup_name(s, "mmv.shop.x"), insts, 1,
				got), PM_ERR_TYPE);
	}
	assert_null(mmvr_pct_view_lookup_pmid(v, mmv_pmid_build(70, 0, 1)));
	mmvr_pct_view_free(v);
	mmvr_snapshot_free(s);
	mmvr_pct_free(p);
	mmv_stats_free(reg);
}

/* The label @key of instance @inst of @indom, as the agent hands it on. */
struct le_labels {
	int inst;
	char le[64], of[64];
};

static int take_label(void *arg, unsigned int flags, int inst, const char *json)
{
	struct le_labels *l = arg;

	assert_int_equal(flags, PM_LABEL_INSTANCES);
	assert_int_equal(inst, l->inst);
	if (strncmp(json, "{\"le\":", 6) == 0)
		snprintf(l->le, sizeof(l->le), "%s", json);
	else
		snprintf(l->of, sizeof(l->of), "%s", json);
	return 0;
}

/*
 * The buckets again as Prometheus reads a histogram (docs/mmv-format.md
 * §9.8): cumulative counts, one instance per bucket named and labelled
 * by its upper bound, read live; counts worked out by hand.
 */
static void test_le_buckets(void **state)
{
	static const struct {
		const char *metric, *name, *le, *of;
		int inst;
		uint64_t want;
	} rows[] = {
		/* anvils: 2 in [8,12), 5 in [16,24), 3 over 64 */
		{ "lat", "anvils:8", "8", "anvils", 0, 0 },
		{ "lat", "anvils:12", "12", "anvils", 1, 2 },
		{ "lat", "anvils:16", "16", "anvils", 2, 2 },
		{ "lat", "anvils:24", "24", "anvils", 3, 7 },
		{ "lat", "anvils:64", "64", "anvils", 6, 7 },
		{ "lat", "anvils:+Inf", "+Inf", "anvils", 7, 10 },
		/* rockets: nothing */
		{ "lat", "rockets:+Inf", "+Inf", "rockets", 15, 0 },
		/* size, singular: 4 in [2,4) */
		{ "size", "1", "1", NULL, 0, 0 },
		{ "size", "2", "2", NULL, 1, 0 },
		{ "size", "4", "4", NULL, 2, 4 },
		{ "size", "+Inf", "+Inf", NULL, 3, 4 },
	};
	mmvr_pct_t *p = mmvr_pct_new("mmv", 70, 3000, 1000);
	mmvr_snapshot_t *s;
	mmvr_pct_view_t *v;
	test_log_t log;
	const char *text;
	pmAtomValue a;

	(void)state;
	write_shop("shop", 64);
	s = scan_dir(dir, &log);
	v = mmvr_pct_view_build(p, s);
	assert_non_null(v);
	hl_record(&lat, 0, 9, 2);
	hl_record(&lat, 0, 20, 5);
	hl_record(&lat, 0, 1000, 3);
	hl_record(&size, 0, 3, 4);
	for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		char name[128];
		const mmvr_metric_info_t *m;
		const mmvr_indom_info_t *d;
		struct le_labels l = { .inst = rows[r].inst };
		char want[80];
		unsigned int k;

		snprintf(name, sizeof(name), "mmv.percentile.shop.%s.bucket", rows[r].metric);
		m = metric(v, name);
		assert_int_equal(m->desc.type, PM_TYPE_U64);
		assert_int_equal(m->desc.sem, PM_SEM_COUNTER);
		assert_int_equal(m->desc.units.dimCount, 1);
		/* an indom no file can have: serial's low bits 0 */
		assert_int_equal(mmv_indom_file_serial(m->desc.indom), 0);
		assert_null(mmvr_snapshot_lookup_indom(s, m->desc.indom));
		d = mmvr_pct_view_lookup_indom(v, m->desc.indom);
		assert_non_null(d);
		for (k = 0; k < d->ninstances && d->instances[k].inst != rows[r].inst; k++)
			;
		assert_true(k < d->ninstances);
		assert_string_equal(d->instances[k].name, rows[r].name);
		assert_int_equal(mmvr_pct_fetch(p, v, s, m, rows[r].inst, &a), 1);
		assert_int_equal(a.ull, rows[r].want);
		assert_int_equal(mmvr_pct_view_labels(v, PM_LABEL_INSTANCES, m->desc.indom,
				rows[r].inst, take_label, &l), rows[r].of ? 2 : 1);
		snprintf(want, sizeof(want), "{\"le\":\"%s\"}", rows[r].le);
		assert_string_equal(l.le, want);
		if (rows[r].of != NULL) {
			snprintf(want, sizeof(want), "{\"of\":\"%s\"}", rows[r].of);
			assert_string_equal(l.of, want);
		}
		assert_int_equal(mmvr_pct_view_text(v, (int)m->desc.indom,
				PM_TEXT_INDOM | PM_TEXT_ONELINE, &text), 0);
		assert_non_null(strstr(text, "Cumulative buckets of histogram mmv.shop."));
		assert_int_equal(mmvr_pct_fetch(p, v, s, m, 99, &a), PM_ERR_INST);
	}
	mmvr_pct_view_free(v);
	mmvr_snapshot_free(s);
	mmvr_pct_free(p);
	mmv_stats_free(reg);
}

static void test_values(void **state)
{
	mmvr_pct_t *p = mmvr_pct_new("mmv", 70, 3000, 1000);
	mmvr_snapshot_t *s, *s2;
	mmvr_pct_view_t *v, *v2;
	test_log_t log;
	double x = -1;
	pmID before;

	(void)state;
	write_shop("shop", 64);
	s = scan_dir(dir, &log);
	v = mmvr_pct_view_build(p, s);
	assert_non_null(v);
	/* recorded before the first sample: outside every window */
	hl_record(&lat, 0, 10, 10);
	/* no sample yet, then one: no value */
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 0);
	assert_int_equal(mmvr_pct_sample(p, v, s, 0), 2);
	assert_int_equal(mmvr_pct_sample(p, v, s, 800), 0);	/* not due */
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 0);
	/* 100 values of 20 usec, in [16,24), for anvils */
	hl_record(&lat, 0, 20, 100);
	hl_record(&size, 0, 3, 4);	/* [2,4) */
	assert_int_equal(mmvr_pct_sample(p, v, s, 1000), 2);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 1);
	assert_close(x, 16 + 8 * 0.5, 1e-9);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p99", 0, &x), 1);
	assert_close(x, 16 + 8 * 0.99, 1e-9);
	/* nothing recorded for rockets: no value; not an instance: error */
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 1, &x), 0);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 7, &x),
			PM_ERR_INST);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.size.p50",
			(int)PM_IN_NULL, &x), 1);
	assert_close(x, 3, 1e-9);	/* rank 2 of 4 in [2,4) */
	/* 900 values over 64 usec: p50 and p90 in overflow, at its bound */
	hl_record(&lat, 0, 1000, 900);
	assert_int_equal(mmvr_pct_sample(p, v, s, 2000), 2);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 1);
	assert_close(x, 64, 1e-9);
	/* the 100 at 20 leave the 3 s window at 4000 */
	assert_int_equal(mmvr_pct_sample(p, v, s, 4000), 2);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 1);
	assert_close(x, 64, 1e-9);
	hl_record(&lat, 0, 9, 4);	/* [8,12) */
	/* window [2000, 5000]: the 900 came before 2000, only these 4 */
	assert_int_equal(mmvr_pct_sample(p, v, s, 5000), 2);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 1);
	assert_close(x, 8 + 4 * 0.5, 1e-9);
	/* at 9000 the window holds one sample: no value */
	assert_int_equal(mmvr_pct_sample(p, v, s, 9000), 2);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 0);
	assert_int_equal(mmvr_pct_sample(p, v, s, 10000), 2);

	/* the same file again: same PMIDs, window kept */
	before = metric(v, "mmv.percentile.shop.lat.p50")->desc.pmid;
	s2 = scan_after(dir, &log, s);
	v2 = mmvr_pct_view_build(p, s2);
	assert_int_equal(metric(v2, "mmv.percentile.shop.lat.p50")->desc.pmid,
			before);
	hl_record(&lat, 0, 30, 2);	/* [24,32) */
	assert_int_equal(mmvr_pct_sample(p, v2, s2, 11000), 2);
	assert_int_equal(fetch(p, v2, "mmv.percentile.shop.lat.p50", 0, &x), 1);
	assert_close(x, 24 + 8 * 0.5, 1e-9);
	mmvr_pct_view_free(v);
	mmvr_snapshot_free(s);
	mmv_stats_free(reg);

	/* other buckets: same PMIDs, an empty window; the old view's
	 * histograms no longer sample or fetch */
	write_shop("shop", 128);
	s = scan_after(dir, &log, s2);
	v = mmvr_pct_view_build(p, s);
	assert_int_equal(metric(v, "mmv.percentile.shop.lat.p50")->desc.pmid,
			before);
	assert_int_equal(fetch(p, v, "mmv.percentile.shop.lat.p50", 0, &x), 0);
	assert_int_equal(fetch(p, v2, "mmv.percentile.shop.lat.p50", 0, &x), 0);
	assert_int_equal(mmvr_pct_sample(p, v2, s2, 20000), 1);	/* size only */
	mmvr_pct_view_free(v2);
	mmvr_snapshot_free(s2);
	mmvr_pct_view_free(v);
	mmvr_snapshot_free(s);
	mmvr_pct_free(p);
	mmv_stats_free(reg);
}

/* "percentile" is the agent's: a file of that name is refused. */
static void test_reserved(void **state)
{
	mmvr_snapshot_t *s;
	test_log_t log;

	(void)state;
	write_shop("percentile", 64);
	s = scan_dir(dir, &log);
	assert_non_null(s);
	assert_int_equal(mmvr_snapshot_nfiles(s), 0);
	assert_non_null(strstr(log.text, "reserved"));
	mmvr_snapshot_free(s);
	mmv_stats_free(reg);
}

/* Buckets that overlap give no percentiles for their set. */
static void test_bad_buckets(void **state)
{
	mmvr_pct_t *p = mmvr_pct_new("mmv", 70, 3000, 1000);
	mmvr_snapshot_t *s;
	mmvr_pct_view_t *v;
	test_log_t log;
	double x;

	(void)state;
	{
		mmv_registry_t *r = mmv_stats_registry(file_path(dir, "odd"),
				0, 0);
		pmUnits none = { 0 };

		assert_int_equal(mmv_stats_add_indom(r, 3, NULL, NULL), 0);
		assert_int_equal(mmv_stats_add_instance(r, 3, 0, "a"), 0);
		assert_int_equal(mmv_stats_add_instance(r, 3, 1, "b"), 0);
		assert_int_equal(mmv_stats_add_instance_label(r, 3, 0, "lo",
				"0", MMV_NUMBER_TYPE, 0), 0);
		assert_int_equal(mmv_stats_add_instance_label(r, 3, 0, "hi",
				"10", MMV_NUMBER_TYPE, 0), 0);
		assert_int_equal(mmv_stats_add_instance_label(r, 3, 1, "lo",
				"5", MMV_NUMBER_TYPE, 0), 0);
		assert_int_equal(mmv_stats_add_metric(r, "h.bucket", 1, MMV_TYPE_U64,
				MMV_SEM_COUNTER, none, 3, NULL, NULL), 0);
		assert_int_equal(mmv_stats_add_metric_label(r, 1, "histogram",
				"{}", MMV_MAP_TYPE, 0), 0);
		assert_int_equal(mmv_stats_add_metric(r, "h.count", 2,
				MMV_TYPE_U64, MMV_SEM_COUNTER, none, 0, NULL,
				NULL), 0);
		addr = mmv_stats_start(r);
		assert_non_null(addr);
		reg = r;
	}
	s = scan_dir(dir, &log);
	v = mmvr_pct_view_build(p, s);
	assert_int_equal(mmvr_pct_view_nhists(v), 1);
	assert_non_null(strstr(log.text, "overlap"));
	mmvr_pct_sample(p, v, s, 0);
	mmvr_pct_sample(p, v, s, 1000);
	assert_int_equal(fetch(p, v, "mmv.percentile.odd.h.p50",
			(int)PM_IN_NULL, &x), 0);
	mmvr_pct_view_free(v);
	mmvr_snapshot_free(s);
	mmvr_pct_free(p);
	mmv_stats_free(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_estimate_one_bucket),
		cmocka_unit_test(test_estimate_across),
		cmocka_unit_test(test_estimate_edges),
		cmocka_unit_test(test_window),
		cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(test_le_buckets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reserved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_buckets, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
