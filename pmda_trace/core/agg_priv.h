/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * agg_priv.h - what the files of the trace aggregation share: its structs,
 * its byte accounting and the functions one file calls in another
 * (agg_tags.c the tag table and budget, agg_hist.c the histograms and
 * coarse counts, agg_record.c accounting reports, agg_window.c fetches,
 * agg_expire.c expiry, reset and freeing). The model is agg.h's.
 */
#ifndef TRACE_AGG_PRIV_H
#define TRACE_AGG_PRIV_H

/*
 * liburcu's read lock inlined (its code is LGPL; these files may take it),
 * except under ThreadSanitizer, which would then check liburcu's own
 * wake-up flag as if it were ours.
 */
#include "sdk_tsan.h"
#ifndef SDK_TSAN
#define _LGPL_SOURCE
#endif
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "agg.h"

#define NO_SEQ UINT64_MAX

/*
 * A sub-interval's histogram: the 2242 bucket indexes in chunks of 32
 * consecutive ones (a binade's sub-buckets, give or take the offset of
 * bucket 0), a chunk's counts allocated the first time a value falls in
 * it. Recording is two array lookups; memory follows the spread of the
 * values, 256 bytes for each chunk in use.
 */
#define HCHUNK 32u
#define HCHUNKS ((TRACE_HIST_NBUCKETS + HCHUNK - 1) / HCHUNK)	/* 71 */

struct hist {
	uint8_t row_of[HCHUNKS];	/* chunk c's row + 1 in counts; 0: none */
	uint8_t n, cap;			/* rows in use, allocated */
	uint64_t counts[][HCHUNK];	/* in the order chunks came */
};
_Static_assert(HCHUNKS < 255, "a row number fits a byte");

struct bucket {
	uint64_t seq;		/* sub-interval it holds, NO_SEQ: never used */
	uint64_t count;		/* 0: nothing recorded (min, max, sum unset) */
	double min, max, sum;
	struct hist *hist;	/* transactions and observations; NULL until a value */
};

_Static_assert(TRACE_HIST_LE_N <= UINT16_MAX, "a coarse bucket number fits 16 bits");

struct tag {
	struct cds_lfht_node by_name, by_inst;
	struct rcu_head rcu;
	struct trace_agg *agg;	/* whose byte total its allocations count in */
	int type, inst;
	pthread_spinlock_t lock;	/* guards the numbers below; held for a few stores */
	int dead;		/* expired: unlinked, taking no more reports */
	int exempt;		/* the budget's exempt tag: never refused, not capped */
	int attr;		/* the latest report's attribute (tra_agg_record_ex) */
	uint64_t count;
	uint64_t flagged;	/* reports flagged (tra_agg_record_ex) */
	double total, value;
	struct bucket *buckets;	/* nslots = nbuckets + 1, indexed by seq % that */
	/*
	 * Transactions and observations since start or reset, in the coarse
	 * buckets of trace_hist.h (the exported cumulative "le" counts):
	 * le_c[j - le_lo] for j in the span le_lo..le_hi every value so far
	 * fell in (NULL: none yet), widened when one falls outside. A slot's
	 * histogram is added when the slot is reused, so a record costs two
	 * compares here; a fetch adds the slots not reused yet.
	 */
	uint64_t *le_c;
	uint16_t le_lo, le_hi;
	unsigned nslots;
	size_t charged;		/* bytes counted for it (agg_tags.c), under lock */
	const char *note;	/* in name[], after the name's NUL; never changed */
	size_t note_len;
	size_t len;
	char name[];		/* len bytes and a NUL, note_len bytes and a NUL */
};

/* (type, name) -> instance number, kept across resets (docs/trace-protocol.md §8.2). */
struct remembered {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	struct trace_agg *agg;
	int type, inst;
	size_t len;
	char name[];
};

struct trace_agg {
	uint64_t period_usec;
	unsigned nbuckets;
	size_t max_tags;
	int forget;		/* expiry and reset forget names (tra_agg_forget_expired) */
	trace_clock_fn clock;
	void *clock_arg;
	int64_t t0;		/* start of sub-interval 0, atomic */
	struct cds_lfht *by_name, *by_inst, *memory;
	pthread_mutex_t create_lock;	/* creation, reset, the fields below */
	int next_inst[TRACE_NTYPES + 1];
	size_t ntags[TRACE_NTYPES + 1];	/* the exempt tag not counted */
	size_t nremembered;
	uint64_t generation;	/* atomic: bumped on create, reset and a wider le span */
	/* the byte budget (tra_agg_set_budget): set before use, then read only */
	size_t max_bytes;	/* 0: none */
	char *exempt;		/* NULL: no tag is exempt */
	size_t exempt_len;
	size_t bytes;		/* atomic: every allocation counted (agg_tags.c) */
	uint64_t refused_cap, refused_bytes;	/* atomic */
};

/*
 * Internal reason of a refusal by the budget, told apart from the cap's
 * -ENOSPC until add() counts it; callers only ever see -ENOSPC.
 */
#define ERR_BUDGET (-EDQUOT)

struct name_key {
	int type;
	const char *name;
	size_t len;
};

/* liburcu's read-side end, with what it orders told to TSan (agg_tags.c). */
extern char tra_agg_grace;

static inline void read_unlock(void)
{
	tsan_release(&tra_agg_grace);
	rcu_read_unlock();
}

static inline int has_hist(int type)
{
	return type == TRACE_TRANSACT || type == TRACE_OBSERVE;
}

static inline void add_sat(uint64_t *c, uint64_t n)
{
	*c = n > UINT64_MAX - *c ? UINT64_MAX : *c + n;
}

/* agg_tags.c: the byte budget. */

/*
 * tra_agg_charge - count @n more bytes of @exempt's (non-zero: never
 * refused) or another tag's. Returns 0, or ERR_BUDGET (nothing counted)
 * when the total would pass the budget. Any thread, lock-free.
 */
int tra_agg_charge(struct trace_agg *agg, size_t n, int exempt);

/* tra_agg_uncharge - @n bytes counted before were freed. Any thread. */
void tra_agg_uncharge(struct trace_agg *agg, size_t n);

/* What one heap block of @size bytes counts for: its size and malloc's overhead. */
size_t tra_agg_block(size_t size);

/* The bytes of a histogram with room for @rows chunks (a heap block's). */
size_t tra_agg_hist_bytes(unsigned rows);

/* What a remembered name of @len bytes counts for (its block and hash node). */
size_t tra_agg_remembered_bytes(size_t len);

/* agg_tags.c: the tag table. */

/* cds_lfht match of a remembered name against a struct name_key. */
int tra_agg_match_remembered(struct cds_lfht_node *node, const void *key);

unsigned long tra_agg_hash_name(int type, const char *name, size_t len);

/* The tag of @k in by_name (inside a read-side section), or NULL. */
struct tag *tra_agg_find_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash);

/*
 * tra_agg_create_tag - find the tag of @k or make it with @b (count > 0)
 * accounted in it (as tra_agg_account) and x->note kept, before it is
 * published: a report refused leaves no tag. Inside a read-side section.
 * Returns it (*@made 1 if made here, the report in it), or NULL with
 * *@err -ENOSPC (the cap), ERR_BUDGET or -ENOMEM, nothing changed.
 */
struct tag *tra_agg_create_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash, uint64_t seq, const struct trace_batch *b, uint32_t idx,
		const struct trace_extra *x, int *made, int *err);

/* The first or next tag of an iteration over by_name, NULL at the end. */
struct tag *tra_agg_tag_at(struct cds_lfht_iter *iter);

/*
 * tra_agg_lock_tag - the tag of instance @inst of @type with its lock held,
 * inside a read-side section (both released by tra_agg_unlock_tag), or
 * NULL (neither held).
 */
struct tag *tra_agg_lock_tag(struct trace_agg *agg, int type, int inst);
void tra_agg_unlock_tag(struct tag *t);

/* Does @t take another tag's place under max_tags (create_lock held)? */
static inline void tra_agg_count_tag(struct trace_agg *agg, const struct tag *t, int delta)
{
	if (!t->exempt)
		agg->ntags[t->type] += (size_t)(ptrdiff_t)delta;
}

/* agg_record.c */

/*
 * tra_agg_account - account @b (b->count > 0) in @t: its totals and the
 * bucket of sub-interval @seq (its histogram: b->hist, or b->count values
 * in index @idx), @x's flag and attribute. 0, or ERR_BUDGET, -ENOMEM (no
 * number changed) or -EAGAIN (@t expired: look again). Takes @t's lock.
 */
int tra_agg_account(struct trace_agg *agg, struct tag *t, uint64_t seq,
		const struct trace_batch *b, uint32_t idx, const struct trace_extra *x);

/* agg_hist.c: the sub-intervals' histograms and the coarse counts. */

/* One value in bucket index @idx of @t's slot @b; 0, ERR_BUDGET or -ENOMEM, unchanged. */
int tra_agg_hist_add_one(struct tag *t, struct bucket *b, uint32_t idx);

/* Add the dense counts @h (TRACE_HIST_NBUCKETS), saturating; as tra_agg_hist_add_one. */
int tra_agg_hist_add_dense(struct tag *t, struct bucket *b, const uint64_t *h);

/* Add histogram @h's counts to @c, TRACE_HIST_LE_N coarse counts from bucket @lo on. */
void tra_agg_le_fold(uint64_t *c, uint32_t lo, const struct hist *h);

/* Start slot @bk of @t afresh for sub-interval @seq (its values folded first). */
void tra_agg_bucket_restart(struct tag *t, struct bucket *bk, uint64_t seq);

/*
 * @t's span widened to hold coarse buckets @jlo .. @jhi: 0 (it did), 1
 * (it grew) or ERR_BUDGET / -ENOMEM (unchanged).
 */
int tra_agg_le_widen(struct tag *t, uint32_t jlo, uint32_t jhi);

/* The coarse span of @b's values: fine bucket @idx's, or its histogram's. */
void tra_agg_le_span(const struct trace_batch *b, uint32_t idx, uint32_t *jlo, uint32_t *jhi);

/* A late report's values straight into @t's coarse counts (room made by le_widen). */
void tra_agg_le_add(struct tag *t, const struct trace_batch *b, uint32_t idx);

/* agg_expire.c */

/* Free @t now, its bytes uncounted; no reader may hold it. */
void tra_agg_free_tag(struct tag *t);

#endif
