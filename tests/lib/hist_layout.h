/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist_layout.h - a histogram laid out as docs/mmv-format.md §10.5 says
 * (bucket counters NAME.bucket with instances "lo-hi" on
 * their own indom, NAME.count, NAME.sum, the
 * "histogram" metric label, "lo"/"hi"/"of" instance labels), written
 * with the plain registry API only, so the agent's percentile tests do
 * not depend on libpcp_mmv's histogram calls. Shared by the unit test of
 * the agent's percentiles and the integration writer (hist_writer.c).
 */
#ifndef HIST_LAYOUT_H
#define HIST_LAYOUT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <pcp/mmv_stats.h>

#define HL_MAX_EDGES	512
#define HL_MAX_SETS	8

typedef struct hl_hist {
	char name[128];
	unsigned int nedges;		/* buckets: nedges + 1 */
	uint64_t edges[HL_MAX_EDGES];	/* [0,e0) [e0,e1) ... [e_last,inf) */
	unsigned int nsets;		/* 1: singular */
	char sets[HL_MAX_SETS][32];	/* instance names of @serial */
	pmAtomValue *bucket[HL_MAX_SETS][HL_MAX_EDGES + 1];
	pmAtomValue *count[HL_MAX_SETS], *sum[HL_MAX_SETS];
} hl_hist_t;

/* Log-linear edges: @sub per power of two from @lo (a power of two,
 * >= @sub) to @hi, and @hi itself. Returns the number of edges. */
static inline unsigned int hl_edges(uint64_t lo, uint64_t hi, unsigned int sub,
		uint64_t *edges)
{
	unsigned int n = 0, j;
	uint64_t e;

	for (e = lo; e < hi && n + sub < HL_MAX_EDGES; e *= 2)
		for (j = 0; j < sub; j++)
			edges[n++] = e + j * (e / sub);
	edges[n++] = hi;
	return n;
}

static inline void hl_bucket_name(const hl_hist_t *h, unsigned int k,
		char *buf, size_t len)
{
	if (k == 0)
		snprintf(buf, len, "0-%llu", (unsigned long long)h->edges[0]);
	else if (k == h->nedges)
		snprintf(buf, len, "%llu-inf",
				(unsigned long long)h->edges[k - 1]);
	else
		snprintf(buf, len, "%llu-%llu",
				(unsigned long long)h->edges[k - 1],
				(unsigned long long)h->edges[k]);
}

/*
 * Declare @h (name, edges, sets filled in) on @reg: items @item (buckets),
 * +1 (.count), +2 (.sum); bucket indom @bserial; @serial the indom of
 * the sets (0: singular; it must exist with the sets as instances
 * 0..nsets-1). Returns 0 or -1 at the first failing call.
 */
static inline int hl_declare(mmv_registry_t *reg, hl_hist_t *h, int item,
		int bserial, int serial, unsigned int sub, pmUnits units)
{
	pmUnits cnt = { .dimCount = 1, .scaleCount = PM_COUNT_ONE };
	unsigned int nb = h->nedges + 1, p, k;
	char name[256], bname[64], v[256];

	if (mmv_stats_add_indom(reg, bserial, "histogram buckets", NULL) < 0)
		return -1;
	for (p = 0; p < h->nsets; p++)
		for (k = 0; k < nb; k++) {
			int id = (int)(p * nb + k);

			hl_bucket_name(h, k, bname, sizeof(bname));
			if (serial)
				snprintf(name, sizeof(name), "%s:%s", h->sets[p], bname);
			else
				snprintf(name, sizeof(name), "%s", bname);
			if (mmv_stats_add_instance(reg, bserial, id, name) < 0)
				return -1;
			snprintf(v, sizeof(v), "%llu", (unsigned long long)
					(k ? h->edges[k - 1] : 0));
			if (mmv_stats_add_instance_label(reg, bserial, id, "lo",
					v, MMV_NUMBER_TYPE, 0) < 0)
				return -1;
			snprintf(v, sizeof(v), "%llu",
					(unsigned long long)h->edges[k < h->nedges ? k : 0]);
			if (k < h->nedges && mmv_stats_add_instance_label(reg,
					bserial, id, "hi", v, MMV_NUMBER_TYPE, 0) < 0)
				return -1;
			snprintf(v, sizeof(v), "\"%s\"", h->sets[p]);
			if (serial && mmv_stats_add_instance_label(reg, bserial,
					id, "of", v, MMV_STRING_TYPE, 0) < 0)
				return -1;
		}
	snprintf(v, sizeof(v), "{\"scheme\":\"log-linear\",\"low\":%llu,"
			"\"high\":%llu,\"sub_buckets\":%u}",
			(unsigned long long)h->edges[0],
			(unsigned long long)h->edges[h->nedges - 1], sub);
	snprintf(name, sizeof(name), "%.127s.bucket", h->name);
	if (mmv_stats_add_metric(reg, name, item, MMV_TYPE_U64,
			MMV_SEM_COUNTER, cnt, bserial, "bucket counts",
			"Values recorded per bucket") < 0 ||
	    mmv_stats_add_metric_label(reg, item, "histogram", v,
			MMV_MAP_TYPE, 0) < 0)
		return -1;
	snprintf(name, sizeof(name), "%.127s.count", h->name);
	if (mmv_stats_add_metric(reg, name, item + 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, cnt, serial, "values recorded", NULL) < 0)
		return -1;
	snprintf(name, sizeof(name), "%.127s.sum", h->name);
	return mmv_stats_add_metric(reg, name, item + 2, MMV_TYPE_U64,
			MMV_SEM_COUNTER, units, serial, "sum of values", NULL);
}

/* After mmv_stats_start: the value handles of @h in @addr. */
static inline int hl_bind(void *addr, hl_hist_t *h, int serial)
{
	char name[256], bname[64], iname[128];
	unsigned int p, k;

	for (p = 0; p < h->nsets; p++) {
		const char *set = serial ? h->sets[p] : NULL;

		for (k = 0; k <= h->nedges; k++) {
			hl_bucket_name(h, k, bname, sizeof(bname));
			snprintf(iname, sizeof(iname), "%s%s%s", set ? set : "",
					set ? ":" : "", bname);
			snprintf(name, sizeof(name), "%.127s.bucket", h->name);
			if ((h->bucket[p][k] = mmv_lookup_value_desc(addr,
					name, iname)) == NULL)
				return -1;
		}
		snprintf(name, sizeof(name), "%.127s.count", h->name);
		h->count[p] = mmv_lookup_value_desc(addr, name, set);
		snprintf(name, sizeof(name), "%.127s.sum", h->name);
		h->sum[p] = mmv_lookup_value_desc(addr, name, set);
		if (h->count[p] == NULL || h->sum[p] == NULL)
			return -1;
	}
	return 0;
}

/* Record @value @times times into set @p. */
static inline void hl_record(hl_hist_t *h, unsigned int p, uint64_t value,
		uint64_t times)
{
	unsigned int k = 0;

	while (k < h->nedges && value >= h->edges[k])
		k++;
	__atomic_fetch_add(&h->bucket[p][k]->ull, times, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->count[p]->ull, times, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum[p]->ull, value * times, __ATOMIC_RELAXED);
}

#endif /* HIST_LAYOUT_H */
