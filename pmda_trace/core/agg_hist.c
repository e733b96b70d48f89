/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace aggregation's histograms (see agg.h): each sub-interval's
 * sparse histogram of times/values, and each tag's coarse "le" counts
 * since start or reset. Every allocation here is counted in the byte
 * budget first (agg_tags.c) and refused, changing nothing, beyond it.
 * Called with the tag's lock held.
 */
#include "agg_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Room for @need rows in @b's histogram; 0, ERR_BUDGET or -ENOMEM, @b unchanged. */
static int hist_reserve(struct tag *t, struct bucket *b, unsigned need)
{
	size_t more = tra_agg_block(tra_agg_hist_bytes(need));
	struct hist *h;

	if (b->hist && need <= b->hist->cap)
		return 0;
	if (b->hist)
		more -= tra_agg_block(tra_agg_hist_bytes(b->hist->cap));
	if (tra_agg_charge(t->agg, more, t->exempt) < 0)
		return ERR_BUDGET;
	if ((h = realloc(b->hist, tra_agg_hist_bytes(need))) == NULL) {
		tra_agg_uncharge(t->agg, more);
		return -ENOMEM;
	}
	t->charged += more;
	if (b->hist == NULL) {
		memset(h->row_of, 0, sizeof(h->row_of));
		h->n = 0;
	}
	h->cap = (uint8_t)need;
	b->hist = h;
	return 0;
}

/* The counts of chunk @c in @h, a fresh zeroed row if it had none (room reserved). */
static uint64_t *hist_row(struct hist *h, unsigned c)
{
	if (h->row_of[c] == 0) {
		memset(h->counts[h->n], 0, sizeof(h->counts[0]));
		h->row_of[c] = ++h->n;
	}
	return h->counts[h->row_of[c] - 1];
}

int tra_agg_hist_add_one(struct tag *t, struct bucket *b, uint32_t idx)
{
	struct hist *h = b->hist;
	int err;

	if (h && h->row_of[idx / HCHUNK]) {	/* the common case */
		h->counts[h->row_of[idx / HCHUNK] - 1][idx % HCHUNK]++;
		return 0;
	}
	if ((err = hist_reserve(t, b, (h ? h->n : 0) + 1u)) < 0)
		return err;
	hist_row(b->hist, idx / HCHUNK)[idx % HCHUNK] = 1;
	return 0;
}

/* Does chunk @c of the dense counts @h hold a value? */
static int dense_chunk_used(const uint64_t *h, unsigned c)
{
	for (uint32_t i = c * HCHUNK; i < (c + 1) * HCHUNK && i < TRACE_HIST_NBUCKETS; i++)
		if (h[i])
			return 1;
	return 0;
}

/* Count the chunks @b lacks, make room, add: so a refusal changes nothing. */
int tra_agg_hist_add_dense(struct tag *t, struct bucket *b, const uint64_t *h)
{
	unsigned fresh = 0, used = b->hist ? b->hist->n : 0;
	int err;

	for (unsigned c = 0; c < HCHUNKS; c++)
		if ((b->hist == NULL || b->hist->row_of[c] == 0) && dense_chunk_used(h, c))
			fresh++;
	if ((err = hist_reserve(t, b, used + fresh)) < 0)
		return err;
	for (unsigned c = 0; c < HCHUNKS; c++) {
		uint64_t *row;

		if (!dense_chunk_used(h, c))
			continue;
		row = hist_row(b->hist, c);
		for (uint32_t i = 0; i < HCHUNK && c * HCHUNK + i < TRACE_HIST_NBUCKETS; i++)
			add_sat(&row[i], h[c * HCHUNK + i]);
	}
	return 0;
}

void tra_agg_le_fold(uint64_t *c, uint32_t lo, const struct hist *h)
{
	for (unsigned k = 0; k < HCHUNKS; k++) {
		const uint64_t *row;

		if (h->row_of[k] == 0)
			continue;
		row = h->counts[h->row_of[k] - 1];
		for (uint32_t i = 0; i < HCHUNK && k * HCHUNK + i < TRACE_HIST_NBUCKETS; i++)
			if (row[i])
				add_sat(&c[trace_hist_le_of(k * HCHUNK + i) - lo], row[i]);
	}
}

/*
 * The slot's values go to the coarse counts first (the span holds them:
 * account widened it for each). Its histogram keeps its room, less half
 * when the sub-interval before used under half of it.
 */
void tra_agg_bucket_restart(struct tag *t, struct bucket *bk, uint64_t seq)
{
	struct hist *h = bk->hist;

	if (h) {
		if (t->le_c != NULL)
			tra_agg_le_fold(t->le_c, t->le_lo, h);
		if (h->n < h->cap / 2) {
			unsigned cap = h->cap / 2u;
			size_t less = tra_agg_hist_bytes(h->cap) - tra_agg_hist_bytes(cap);
			struct hist *smaller = realloc(h, tra_agg_hist_bytes(cap));

			if (smaller != NULL) {
				tra_agg_uncharge(t->agg, less);
				t->charged -= less;
				h = bk->hist = smaller;
				h->cap = (uint8_t)cap;
			}
		}
		memset(h->row_of, 0, sizeof(h->row_of));
		h->n = 0;
	}
	bk->seq = seq;
	bk->count = 0;
}

int tra_agg_le_widen(struct tag *t, uint32_t jlo, uint32_t jhi)
{
	uint32_t lo = jlo, hi = jhi;
	size_t bytes;
	uint64_t *c;

	if (t->le_c != NULL) {
		if (jlo >= t->le_lo && jhi <= t->le_hi)
			return 0;
		if (t->le_lo < lo)
			lo = t->le_lo;
		if (t->le_hi > hi)
			hi = t->le_hi;
	}
	bytes = tra_agg_block((hi - lo + 1u) * sizeof(*c));
	if (tra_agg_charge(t->agg, bytes, t->exempt) < 0)
		return ERR_BUDGET;
	if ((c = calloc(hi - lo + 1u, sizeof(*c))) == NULL) {
		tra_agg_uncharge(t->agg, bytes);
		return -ENOMEM;
	}
	t->charged += bytes;
	if (t->le_c != NULL) {
		size_t old = tra_agg_block((t->le_hi - t->le_lo + 1u) * sizeof(*c));

		memcpy(&c[t->le_lo - lo], t->le_c, (t->le_hi - t->le_lo + 1u) * sizeof(*c));
		free(t->le_c);
		tra_agg_uncharge(t->agg, old);
		t->charged -= old;
	}
	t->le_c = c;
	t->le_lo = (uint16_t)lo;
	t->le_hi = (uint16_t)hi;
	return 1;
}

void tra_agg_le_span(const struct trace_batch *b, uint32_t idx, uint32_t *jlo, uint32_t *jhi)
{
	uint32_t i, j;

	if (b->hist == NULL) {
		*jlo = *jhi = trace_hist_le_of(idx);
		return;
	}
	for (i = 0; i < TRACE_HIST_NBUCKETS - 1u && b->hist[i] == 0; i++)
		;
	for (j = TRACE_HIST_NBUCKETS - 1u; j > i && b->hist[j] == 0; j--)
		;
	*jlo = trace_hist_le_of(i);
	*jhi = trace_hist_le_of(j);
}

void tra_agg_le_add(struct tag *t, const struct trace_batch *b, uint32_t idx)
{
	if (b->hist == NULL) {
		add_sat(&t->le_c[trace_hist_le_of(idx) - t->le_lo], b->count);
		return;
	}
	for (uint32_t i = 0; i < TRACE_HIST_NBUCKETS; i++)
		if (b->hist[i])
			add_sat(&t->le_c[trace_hist_le_of(i) - t->le_lo], b->hist[i]);
}
