/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_hist.h - the log-linear bucket scheme of the trace agent's
 * histograms of transaction times and observed values, shared by the
 * client library (aggregates in shared memory) and the agent (the PDU
 * path and the merge), so both index and read buckets the same way.
 *
 * A value v >= 2^TRACE_HIST_EXP_MIN is put in the binade [2^e, 2^(e+1))
 * that holds it, split into TRACE_HIST_SUB equal sub-buckets, found from
 * the bits of the double (exponent and top mantissa bits, no libm).
 * Bucket 0 holds everything below 2^TRACE_HIST_EXP_MIN (zero, negative
 * values, NaN); the last bucket everything at or above
 * 2^TRACE_HIST_EXP_MAX (and +inf). A bucket's representative value is
 * its midpoint, within 1 / (2 * TRACE_HIST_SUB) = 1.6 % of any value it
 * holds; a reader clamps percentiles into the window's [min, max], which
 * also gives the two open buckets a meaning.
 */
#ifndef TRACE_HIST_H
#define TRACE_HIST_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#define TRACE_HIST_SUB_BITS	5
#define TRACE_HIST_SUB		(1u << TRACE_HIST_SUB_BITS)	/* sub-buckets a binade */
#define TRACE_HIST_EXP_MIN	(-30)	/* 2^-30 s ~ 0.93 ns */
#define TRACE_HIST_EXP_MAX	40	/* 2^40 ~ 1.1e12 */
#define TRACE_HIST_NBUCKETS \
	((uint32_t)(TRACE_HIST_EXP_MAX - TRACE_HIST_EXP_MIN) * TRACE_HIST_SUB + 2u)

_Static_assert(sizeof(double) == sizeof(uint64_t), "IEEE 754 binary64 double");

/* trace_hist_index - the bucket of @v, in [0, TRACE_HIST_NBUCKETS). */
static inline uint32_t trace_hist_index(double v)
{
	uint64_t bits;
	int e;

	if (!(v >= 0x1p-30))	/* below the range, negative or NaN */
		return 0;
	if (v >= 0x1p40)
		return TRACE_HIST_NBUCKETS - 1;
	memcpy(&bits, &v, sizeof(bits));
	e = (int)((bits >> 52) & 0x7ff) - 1023;
	return (uint32_t)(e - TRACE_HIST_EXP_MIN) * TRACE_HIST_SUB +
		(uint32_t)((bits >> (52 - TRACE_HIST_SUB_BITS)) & (TRACE_HIST_SUB - 1)) + 1u;
}

/*
 * trace_hist_low - the lower bound of bucket @i (1 .. NBUCKETS - 1);
 * bucket i holds [trace_hist_low(i), trace_hist_low(i + 1)).
 */
static inline double trace_hist_low(uint32_t i)
{
	uint32_t k = i - 1u;
	int e = (int)(k / TRACE_HIST_SUB) + TRACE_HIST_EXP_MIN;
	double m = 1.0 + (double)(k % TRACE_HIST_SUB) / TRACE_HIST_SUB;
	double p = 1.0;

	for (; e > 0; e--)
		p *= 2.0;
	for (; e < 0; e++)
		p *= 0.5;
	return m * p;
}

/*
 * trace_hist_value - the value that stands for bucket @i: its midpoint;
 * the two open buckets give their one finite bound (the caller clamps
 * into the observed [min, max]).
 */
static inline double trace_hist_value(uint32_t i)
{
	if (i == 0)
		return trace_hist_low(1);
	if (i >= TRACE_HIST_NBUCKETS - 1)
		return trace_hist_low(TRACE_HIST_NBUCKETS - 1);
	return (trace_hist_low(i) + trace_hist_low(i + 1)) / 2.0;
}

/*
 * trace_hist_rank - the 1-based rank of the @pct percentile (0 < pct <=
 * 100) among @n values: the smallest r with r >= pct/100 * n (the
 * nearest-rank method). The percentile is the value of the bucket where
 * the running count first reaches r.
 */
static inline uint64_t trace_hist_rank(double pct, uint64_t n)
{
	/*
	 * pct * n first: exact for a whole pct and n below 2^46, so a rank
	 * that is a whole number stays one (0.28 * 25 would give 7.000...01).
	 */
	double want = pct * (double)n / 100.0;
	uint64_t r = (uint64_t)want;

	if ((double)r < want)
		r++;
	return r ? r : 1;
}

/*
 * The coarse buckets the trace agent exports cumulatively, by upper bound
 * ("le", as Prometheus reads a histogram; docs/trace-protocol.md §8.8):
 * TRACE_HIST_LE_SUB to a binade, each the union of TRACE_HIST_LE_FINE
 * consecutive fine buckets, so every fine bucket lies in exactly one.
 * Coarse bucket 0 is fine bucket 0 (below 2^TRACE_HIST_EXP_MIN); coarse j
 * in 1 .. TRACE_HIST_LE_N - 2 is fine 8j - 7 .. 8j; the last is the last
 * fine one (2^TRACE_HIST_EXP_MAX and above).
 */
#define TRACE_HIST_LE_SUB	4u
#define TRACE_HIST_LE_FINE	(TRACE_HIST_SUB / TRACE_HIST_LE_SUB)	/* 8 */
#define TRACE_HIST_LE_N \
	((uint32_t)(TRACE_HIST_EXP_MAX - TRACE_HIST_EXP_MIN) * TRACE_HIST_LE_SUB + 2u)
_Static_assert(TRACE_HIST_SUB % TRACE_HIST_LE_SUB == 0, "coarse buckets hold whole fine ones");
_Static_assert((TRACE_HIST_NBUCKETS - 2u) / TRACE_HIST_LE_FINE + 1u == TRACE_HIST_LE_N - 1u,
	"the last fine bucket is the last coarse one");

/* trace_hist_le_of - the coarse bucket of fine bucket @i. */
static inline uint32_t trace_hist_le_of(uint32_t i)
{
	return i == 0 ? 0 : (i - 1u) / TRACE_HIST_LE_FINE + 1u;
}

/*
 * trace_hist_le_bound - the upper bound of coarse bucket @j: it holds the
 * values below this one and at or above the bound of @j - 1; +infinity for
 * the last.
 */
static inline double trace_hist_le_bound(uint32_t j)
{
	if (j >= TRACE_HIST_LE_N - 1u)
		return INFINITY;
	return trace_hist_low(1u + j * TRACE_HIST_LE_FINE);
}

#endif
