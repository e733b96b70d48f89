/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * bucket_pct.h - a quantile estimated from bucket counts, as
 * Prometheus's histogram_quantile does, shared by the MMV agent's
 * percentiles (docs/mmv-format.md §9.8) and the trace agent's
 * OpenTelemetry histograms (docs/otlp-metrics.md), so both agents give
 * the same number for the same buckets.
 *
 * Threads: reentrant, no state.
 */
#ifndef SDK_BUCKET_PCT_H
#define SDK_BUCKET_PCT_H

#include <math.h>
#include <stdint.h>

/* One bucket: [lo, hi) in the histogram's units; hi INFINITY: overflow. */
struct sdk_pct_bucket {
	double lo, hi;
};

/*
 * sdk_pct_estimate - the @q quantile (0 < q <= 1) of the @n buckets
 * @b (sorted by lo, not overlapping) holding @counts: the rank q * total
 * is found in the cumulative counts and interpolated linearly inside its
 * bucket; in the overflow bucket the estimate is its lower bound.
 * Returns 1 with *out set, 0 when the buckets hold nothing.
 */
static inline int sdk_pct_estimate(const struct sdk_pct_bucket *b, const uint64_t *counts,
		unsigned int n, double q, double *out)
{
	uint64_t total = 0, cum = 0;
	unsigned int k;
	double rank;

	for (k = 0; k < n; k++)
		total += counts[k];
	if (total == 0)
		return 0;
	rank = q * (double)total;
	for (k = 0; k < n; k++) {
		if (counts[k] == 0)
			continue;
		if ((double)(cum + counts[k]) >= rank || k == n - 1)
			break;
		cum += counts[k];
	}
	while (counts[k] == 0)	/* q beyond the last count: its bucket */
		k--;
	if (isinf(b[k].hi)) {
		*out = b[k].lo;	/* no upper bound: the lower one */
		return 1;
	}
	*out = b[k].lo + (b[k].hi - b[k].lo) *
		((rank - (double)cum) / (double)counts[k]);
	if (*out < b[k].lo)
		*out = b[k].lo;
	return 1;
}

#endif
