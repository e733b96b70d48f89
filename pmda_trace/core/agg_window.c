/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace aggregation's fetches (see agg.h): a tag's numbers and its
 * rolling window, the window's percentiles and merged histogram, and the
 * cumulative coarse buckets. Each reads one tag under its lock.
 */
#include "agg_priv.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Does slot @b hold one of the last N completed sub-intervals at @cur? */
static int slot_in_window(const struct trace_agg *agg, const struct bucket *b,
		uint64_t cur)
{
	return b->seq != NO_SEQ && b->count && b->seq < cur && b->seq + agg->nbuckets >= cur;
}

/* Sum the buckets of the last N completed sub-intervals (docs/trace-protocol.md §8.3). */
static void window(const struct trace_agg *agg, const struct tag *t,
		uint64_t cur, struct trace_stats *out)
{
	for (unsigned i = 0; i <= agg->nbuckets; i++) {
		const struct bucket *b = &t->buckets[i];

		if (!slot_in_window(agg, b, cur))
			continue;
		if (!out->in_window) {
			out->in_window = 1;
			out->wcount = b->count;
			out->wmin = b->min;
			out->wmax = b->max;
			out->wsum = b->sum;
			continue;
		}
		out->wcount += b->count;
		if (b->min < out->wmin)
			out->wmin = b->min;
		if (b->max > out->wmax)
			out->wmax = b->max;
		out->wsum += b->sum;
	}
}

int tra_agg_get(struct trace_agg *agg, int type, int inst,
		struct trace_stats *out)
{
	uint64_t cur = tra_agg_seq(agg);
	struct tag *t;

	memset(out, 0, sizeof(*out));
	if ((t = tra_agg_lock_tag(agg, type, inst)) == NULL)
		return -ENOENT;
	out->inst = t->inst;
	out->count = t->count;
	out->flagged = t->flagged;
	out->attr = t->attr;
	out->total = t->total;
	out->value = t->value;
	window(agg, t, cur, out);
	tra_agg_unlock_tag(t);
	return 0;
}

/* The bucket slots of @t in the window at @cur, into @in; how many. */
static unsigned window_slots(const struct trace_agg *agg, const struct tag *t,
		uint64_t cur, const struct bucket **in)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nslots; i++) {
		const struct bucket *b = &t->buckets[i];

		if (slot_in_window(agg, b, cur))
			in[n++] = b;
	}
	return n;
}

/*
 * Walk the sum of the @n histograms @in in index order, chunk by chunk,
 * keeping a running count; a percentile's index is where the count first
 * reaches its rank (UINT32_MAX if it never does).
 */
static void walk_ranks(const struct bucket **in, unsigned n,
		const uint64_t *rank, unsigned npct, uint32_t *at)
{
	uint64_t run = 0, sum[HCHUNK];
	unsigned left = npct;

	for (unsigned j = 0; j < npct; j++)
		at[j] = UINT32_MAX;
	for (unsigned c = 0; c < HCHUNKS && left; c++) {
		int any = 0;

		for (unsigned k = 0; k < n; k++) {
			const struct hist *h = in[k]->hist;

			if (h == NULL || h->row_of[c] == 0)
				continue;
			for (unsigned i = 0; i < HCHUNK; i++)
				sum[i] = (any ? sum[i] : 0) + h->counts[h->row_of[c] - 1][i];
			any = 1;
		}
		for (unsigned i = 0; any && i < HCHUNK; i++) {
			if (sum[i] == 0)
				continue;
			run += sum[i];
			for (unsigned j = 0; j < npct; j++) {
				if (at[j] == UINT32_MAX && run >= rank[j]) {
					at[j] = c * HCHUNK + i;
					left--;
				}
			}
		}
	}
}

#define PCT_MAX 16	/* percentiles one call computes */
#define SLOTS_ON_STACK 16

int tra_agg_percentiles(struct trace_agg *agg, int type, int inst,
		const double *pct, unsigned n, double *out)
{
	const struct bucket *stack_in[SLOTS_ON_STACK], **in = stack_in;
	uint32_t at[PCT_MAX];
	uint64_t rank[PCT_MAX], total = 0;
	uint64_t cur = tra_agg_seq(agg);
	struct tag *t;
	unsigned nslots = agg->nbuckets + 1, nin;
	double lo = 0, hi = 0;
	int err = 0;

	if (n == 0 || n > PCT_MAX || pct == NULL || out == NULL)
		return -EINVAL;
	for (unsigned j = 0; j < n; j++)
		if (!(pct[j] > 0 && pct[j] <= 100))
			return -EINVAL;
	if (!has_hist(type))
		return -ENODATA;
	if (nslots > SLOTS_ON_STACK && (in = malloc(nslots * sizeof(*in))) == NULL)
		return -ENOMEM;
	if ((t = tra_agg_lock_tag(agg, type, inst)) == NULL) {
		err = -ENOENT;
		goto out;
	}
	nin = window_slots(agg, t, cur, in);
	for (unsigned i = 0; i < nin; i++) {
		if (i == 0 || in[i]->min < lo)
			lo = in[i]->min;
		if (i == 0 || in[i]->max > hi)
			hi = in[i]->max;
		total += in[i]->count;	/* what its histogram holds */
	}
	if (total) {
		for (unsigned j = 0; j < n; j++)
			rank[j] = trace_hist_rank(pct[j], total);
		walk_ranks(in, nin, rank, n, at);
	}
	tra_agg_unlock_tag(t);
	if (total == 0) {
		err = -ENODATA;
		goto out;
	}
	for (unsigned j = 0; j < n; j++) {
		double v = trace_hist_value(at[j] == UINT32_MAX ? TRACE_HIST_NBUCKETS - 1 : at[j]);

		out[j] = v < lo ? lo : v > hi ? hi : v;
	}
out:
	if (in != stack_in)
		free(in);
	return err;
}

int tra_agg_window_hist(struct trace_agg *agg, int type, int inst,
		uint64_t *counts)
{
	uint64_t cur = tra_agg_seq(agg), n = 0;
	struct tag *t;

	memset(counts, 0, TRACE_HIST_NBUCKETS * sizeof(*counts));
	if (!has_hist(type))
		return -ENODATA;
	if ((t = tra_agg_lock_tag(agg, type, inst)) == NULL)
		return -ENOENT;
	for (unsigned i = 0; i < t->nslots; i++) {
		const struct bucket *b = &t->buckets[i];

		if (!slot_in_window(agg, b, cur))
			continue;
		for (unsigned c = 0; b->hist && c < HCHUNKS; c++) {
			if (b->hist->row_of[c] == 0)
				continue;
			for (uint32_t i = 0; i < HCHUNK && c * HCHUNK + i < TRACE_HIST_NBUCKETS; i++) {
				counts[c * HCHUNK + i] += b->hist->counts[b->hist->row_of[c] - 1][i];
				n += b->hist->counts[b->hist->row_of[c] - 1][i];
			}
		}
	}
	tra_agg_unlock_tag(t);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int tra_agg_le(struct trace_agg *agg, int type, int inst, uint64_t *cum,
		unsigned *first, unsigned *last)
{
	struct tag *t;
	int err = 0;

	if (!has_hist(type))
		return -ENODATA;
	if ((t = tra_agg_lock_tag(agg, type, inst)) == NULL)
		return -ENOENT;
	if (t->le_c == NULL) {
		err = -ENODATA;
		goto out;
	}
	*first = t->le_lo ? t->le_lo - 1u : 0;
	*last = t->le_hi;
	if (cum != NULL) {	/* the folded counts, the slots not reused yet, summed up */
		memset(cum, 0, TRACE_HIST_LE_N * sizeof(*cum));
		memcpy(&cum[t->le_lo], t->le_c, (t->le_hi - t->le_lo + 1u) * sizeof(*cum));
		for (unsigned i = 0; i < t->nslots; i++)
			if (t->buckets[i].seq != NO_SEQ && t->buckets[i].hist != NULL)
				tra_agg_le_fold(cum, 0, t->buckets[i].hist);
		for (uint32_t j = 1; j < TRACE_HIST_LE_N; j++)
			add_sat(&cum[j], cum[j - 1]);
	}
out:
	tra_agg_unlock_tag(t);
	return err;
}

