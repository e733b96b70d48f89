/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace aggregation's reports (see agg.h): finding or making a
 * report's tag and accounting it, one report or a batch of them, and the
 * refusals counted by reason. Any number of threads at once.
 */
#include "agg_priv.h"

#include <errno.h>
#include <string.h>

/*
 * The histogram gets b->hist or, without one, @b's b->count values in
 * index @idx (the coarse counts get them when the slot is reused; the
 * span is widened now). A sub-interval older than the one its slot holds
 * now has left the window: only the totals and the coarse counts take it.
 */
int tra_agg_account(struct trace_agg *agg, struct tag *t, uint64_t seq,
		const struct trace_batch *b, uint32_t idx, const struct trace_extra *x)
{
	struct bucket *bk = &t->buckets[seq % t->nslots];
	uint32_t jlo = 0, jhi = 0;
	int err = 0, wider = 0;

	if (has_hist(t->type))
		tra_agg_le_span(b, idx, &jlo, &jhi);
	pthread_spin_lock(&t->lock);
	if (t->dead) {
		err = -EAGAIN;	/* expired since it was found: look again */
		goto out;
	}
	if (has_hist(t->type) && (err = wider = tra_agg_le_widen(t, jlo, jhi)) < 0)
		goto out;
	err = 0;
	if (bk->seq == NO_SEQ || bk->seq < seq) {
		/* A sub-interval ahead of the clock was read before a reset
		 * (a batch racing it, a segment's epoch collected after it):
		 * counted now, or it would hold its slot for as long as the
		 * old timeline had run (docs/trace-protocol.md §8.7). */
		uint64_t now = tra_agg_seq(agg);

		if (seq > now) {
			seq = now;
			bk = &t->buckets[seq % t->nslots];
		}
		if (bk->seq == NO_SEQ || bk->seq < seq)
			tra_agg_bucket_restart(t, bk, seq);
	}
	if (bk->seq == seq) {
		if (has_hist(t->type))
			err = b->hist ? tra_agg_hist_add_dense(t, bk, b->hist) :
					tra_agg_hist_add_one(t, bk, idx);
		if (err)
			goto out;	/* a wider span of zeros counts nothing */
		if (bk->count == 0) {
			bk->min = b->min;
			bk->max = b->max;
			bk->sum = b->sum;
		} else {
			if (b->min < bk->min)
				bk->min = b->min;
			if (b->max > bk->max)
				bk->max = b->max;
			bk->sum += b->sum;
		}
		bk->count += b->count;
	} else if (has_hist(t->type)) {
		tra_agg_le_add(t, b, idx);
	}
	t->count += b->count;
	if (x != NULL) {
		t->flagged += x->flagged ? b->count : 0;
		t->attr = x->attr;
	}
	if (t->type == TRACE_TRANSACT)
		t->total += b->sum;
	else if (t->type == TRACE_OBSERVE || t->type == TRACE_COUNTER)
		t->value = b->last;
out:
	pthread_spin_unlock(&t->lock);
	if (wider > 0)
		__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	return err;
}

/* A refusal counted by its reason; what the caller sees of it. */
static int refused(struct trace_agg *agg, int err)
{
	if (err == ERR_BUDGET) {
		__atomic_add_fetch(&agg->refused_bytes, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	if (err == -ENOSPC)
		__atomic_add_fetch(&agg->refused_cap, 1, __ATOMIC_RELAXED);
	return err;
}

/*
 * Find or make (@create; else -ENOENT when there is none) the tag and
 * account @b in it: the instance, 0 or -errno.
 */
static int add(struct trace_agg *agg, uint64_t seq, int type, const char *tag,
		size_t len, const struct trace_batch *b, uint32_t idx,
		const struct trace_extra *x, int create)
{
	struct name_key k = { type, tag, len };
	unsigned long hash;
	struct tag *t;
	int err = 0, inst, made = 0;

	if (type < 1 || type > TRACE_NTYPES || tag == NULL || len == 0 ||
	    len > TRACE_TAG_MAX)
		return -EINVAL;
	hash = tra_agg_hash_name(type, tag, len);
again:
	rcu_read_lock();
	if ((t = tra_agg_find_tag(agg, &k, hash)) == NULL) {
		if (b->count == 0) {
			read_unlock();
			return 0;	/* no reports: no tag */
		}
		if (!create) {
			read_unlock();
			return -ENOENT;
		}
		t = tra_agg_create_tag(agg, &k, hash, seq, b, idx, x, &made, &err);
		if (t == NULL) {
			read_unlock();
			return refused(agg, err);
		}
	}
	inst = t->inst;
	if (!made && b->count && (err = tra_agg_account(agg, t, seq, b, idx, x)) < 0)
		inst = err;
	read_unlock();
	if (inst == -EAGAIN)
		goto again;	/* expired under us: unlinked now, so not found again */
	return inst < 0 ? refused(agg, inst) : inst;
}

int tra_agg_record(struct trace_agg *agg, int type, const char *tag,
		size_t len, double value)
{
	return tra_agg_record_in(agg, tra_agg_seq(agg), type, tag, len, value);
}

int tra_agg_record_in(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value)
{
	return tra_agg_record_ex(agg, seq, type, tag, len, value, NULL);
}

int tra_agg_record_ex(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value, const struct trace_extra *x)
{
	struct trace_batch b = { 1, value, value, value, value, NULL };

	return add(agg, seq, type, tag, len, &b, trace_hist_index(value), x, 1);
}

int tra_agg_update_ex(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value, const struct trace_extra *x)
{
	struct trace_batch b = { 1, value, value, value, value, NULL };

	return add(agg, seq, type, tag, len, &b, trace_hist_index(value), x, 0);
}

/* A batch real reports could have made (agg.h); 0 or -EINVAL. */
static int batch_check(int type, const struct trace_batch *b)
{
	uint64_t n = 0;

	if (b == NULL || b->count > TRACE_BATCH_MAX || (b->count && b->min > b->max))
		return -EINVAL;
	if (!has_hist(type))
		return 0;
	if (b->hist == NULL)
		return b->count ? -EINVAL : 0;
	for (uint32_t i = 0; i < TRACE_HIST_NBUCKETS; i++) {
		if (b->hist[i] > TRACE_BATCH_MAX - n)
			return -EINVAL;
		n += b->hist[i];
	}
	return n == b->count ? 0 : -EINVAL;
}

int tra_agg_merge_in(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, const struct trace_batch *b)
{
	struct trace_batch copy;

	if (batch_check(type, b) < 0)
		return -EINVAL;
	copy = *b;
	if (!has_hist(type))
		copy.hist = NULL;
	return add(agg, seq, type, tag, len, &copy, 0, NULL, 1);
}
