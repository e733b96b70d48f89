/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace aggregation over a rolling window: see agg.h for the model.
 */
/*
 * liburcu's read lock inlined (its code is LGPL; this file may take it),
 * except under ThreadSanitizer, which would then check liburcu's own
 * wake-up flag as if it were ours.
 */
#include "sdk_tsan.h"
#ifndef SDK_TSAN
#define _LGPL_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "agg.h"
#include "clock_usec.h"

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
	int type, inst;
	pthread_spinlock_t lock;	/* guards the numbers below; held for a few stores */
	int dead;		/* expired: unlinked, taking no more reports */
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
	size_t len;
	char name[];		/* len bytes and a NUL */
};

/* (type, name) -> instance number, kept across resets (docs/trace-protocol.md §8.2). */
struct remembered {
	struct cds_lfht_node node;
	struct rcu_head rcu;
	int type, inst;
	size_t len;
	char name[];
};

struct trace_agg {
	uint64_t period_usec;
	unsigned nbuckets;
	size_t max_tags;
	int forget;		/* tra_agg_expire forgets names (tra_agg_forget_expired) */
	trace_clock_fn clock;
	void *clock_arg;
	int64_t t0;		/* start of sub-interval 0, atomic */
	struct cds_lfht *by_name, *by_inst, *memory;
	pthread_mutex_t create_lock;	/* creation, reset, the fields below */
	int next_inst[TRACE_NTYPES + 1];
	size_t ntags[TRACE_NTYPES + 1];
	uint64_t generation;	/* atomic: bumped on create, reset and a wider le span */
};

struct name_key {
	int type;
	const char *name;
	size_t len;
};

struct inst_key {
	int type, inst;
};

/*
 * What liburcu orders, told to TSan (liburcu is not instrumented): a tag
 * is released by create_tag before it is published and acquired by
 * whoever finds it (match_tag_*, tag_at); every read section ends in
 * read_unlock, releasing @grace, which free_tag_rcu acquires, since the
 * grace period put the free after every reader that could hold the tag.
 * Remembered names need neither: only create_lock's holder reads them.
 */
static char grace;

static void read_unlock(void)
{
	tsan_release(&grace);
	rcu_read_unlock();
}

static int64_t monotonic_usec(void *arg)
{
	(void)arg;
	return clock_usec(CLOCK_MONOTONIC);
}

static unsigned long hash_name(int type, const char *name, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)type;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)name[i];
		h *= 0x100000001b3ULL;
	}
	return (unsigned long)(h ^ (h >> 29));
}

static unsigned long hash_inst(int type, int inst)
{
	uint64_t h = ((uint64_t)(unsigned)type << 32 | (unsigned)inst) * 0x9e3779b97f4a7c15ULL;

	return (unsigned long)(h >> 17);
}

/*
 * The first or next tag in by_name, NULL at the end. liburcu's
 * cds_lfht_for_each_entry converts the NULL end node with container_of,
 * which is undefined; check the node first.
 */
static struct tag *tag_at(struct cds_lfht_iter *iter)
{
	struct cds_lfht_node *node = cds_lfht_iter_get_node(iter);
	struct tag *t;

	if (node == NULL)
		return NULL;
	t = caa_container_of(node, struct tag, by_name);
	tsan_acquire(t);
	return t;
}

static int match_tag_name(struct cds_lfht_node *node, const void *key)
{
	const struct tag *t = caa_container_of(node, struct tag, by_name);
	const struct name_key *k = key;

	tsan_acquire(t);
	return t->type == k->type && t->len == k->len && memcmp(t->name, k->name, k->len) == 0;
}

static int match_tag_inst(struct cds_lfht_node *node, const void *key)
{
	const struct tag *t = caa_container_of(node, struct tag, by_inst);
	const struct inst_key *k = key;

	tsan_acquire(t);
	return t->type == k->type && t->inst == k->inst;
}

static int match_remembered(struct cds_lfht_node *node, const void *key)
{
	const struct remembered *r = caa_container_of(node, struct remembered, node);
	const struct name_key *k = key;

	return r->type == k->type && r->len == k->len && memcmp(r->name, k->name, k->len) == 0;
}

static struct cds_lfht *new_table(void)
{
	return cds_lfht_new(64, 64, 0, CDS_LFHT_AUTO_RESIZE | CDS_LFHT_ACCOUNTING, NULL);
}

struct trace_agg *tra_agg_new(unsigned period_sec, unsigned buckets,
		size_t max_tags, trace_clock_fn clock, void *clock_arg)
{
	struct trace_agg *agg;

	if (period_sec == 0 || buckets == 0 || buckets > 1000000) {
		errno = EINVAL;
		return NULL;
	}
	if ((agg = calloc(1, sizeof(*agg))) == NULL)
		return NULL;
	agg->period_usec = (uint64_t)period_sec * 1000000;
	agg->nbuckets = buckets;
	agg->max_tags = max_tags;
	agg->clock = clock ? clock : monotonic_usec;
	agg->clock_arg = clock_arg;
	agg->t0 = agg->clock(agg->clock_arg);
	pthread_mutex_init(&agg->create_lock, NULL);
	for (int t = 1; t <= TRACE_NTYPES; t++)
		agg->next_inst[t] = 1;
	agg->by_name = new_table();
	agg->by_inst = new_table();
	agg->memory = new_table();
	if (!agg->by_name || !agg->by_inst || !agg->memory) {
		tra_agg_free(agg);
		errno = ENOMEM;
		return NULL;
	}
	return agg;
}

/* The sub-interval now is in: exactly (now - t0) / (T / N). */
uint64_t tra_agg_seq(const struct trace_agg *agg)
{
	int64_t t0 = __atomic_load_n(&agg->t0, __ATOMIC_ACQUIRE);
	int64_t now = agg->clock(agg->clock_arg);

	if (now <= t0)
		return 0;
	return (uint64_t)((unsigned __int128)(now - t0) * agg->nbuckets / agg->period_usec);
}

static void free_tag(struct tag *t)
{
	pthread_spin_destroy(&t->lock);
	for (unsigned i = 0; i < t->nslots; i++)
		free(t->buckets[i].hist);
	free(t->buckets);
	free(t->le_c);
	free(t);
}

static void free_tag_rcu(struct rcu_head *head)
{
	tsan_acquire(&grace);
	free_tag(caa_container_of(head, struct tag, rcu));
}

/* Its readers held create_lock inside a read section, whose end orders this (@grace). */
static void free_remembered_rcu(struct rcu_head *head)
{
	tsan_acquire(&grace);
	free(caa_container_of(head, struct remembered, rcu));
}

/* Instance number for (type, name): remembered, or the next new one. */
static int instance_number(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct remembered *r;

	cds_lfht_lookup(agg->memory, hash, match_remembered, k, &iter);
	if ((node = cds_lfht_iter_get_node(&iter)) != NULL)
		return caa_container_of(node, struct remembered, node)->inst;
	if ((r = malloc(sizeof(*r) + k->len + 1)) == NULL)
		return -ENOMEM;
	r->type = k->type;
	r->inst = agg->next_inst[k->type]++;
	r->len = k->len;
	memcpy(r->name, k->name, k->len);
	r->name[k->len] = '\0';
	cds_lfht_add(agg->memory, hash, &r->node);
	return r->inst;
}

static struct tag *find_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(agg->by_name, hash, match_tag_name, k, &iter);
	node = cds_lfht_iter_get_node(&iter);
	return node ? caa_container_of(node, struct tag, by_name) : NULL;
}

/*
 * Called inside an RCU read-side section; creation is serialised.
 * A new tag's count, total and value start at zero, so its first report
 * sets them as every later one adds to them (docs/trace-protocol.md §8.3).
 */
static struct tag *create_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash, int *err)
{
	struct tag *t;
	int inst;

	pthread_mutex_lock(&agg->create_lock);
	if ((t = find_tag(agg, k, hash)) != NULL)
		goto out;	/* another thread won the race */
	if (agg->max_tags && agg->ntags[k->type] >= agg->max_tags) {
		*err = -ENOSPC;
		goto out;
	}
	if ((t = calloc(1, sizeof(*t) + k->len + 1)) == NULL ||
	    (t->buckets = calloc(agg->nbuckets + 1, sizeof(*t->buckets))) == NULL ||
	    (inst = instance_number(agg, k, hash)) < 0) {
		if (t)
			free(t->buckets);
		free(t);
		t = NULL;
		*err = -ENOMEM;
		goto out;
	}
	pthread_spin_init(&t->lock, PTHREAD_PROCESS_PRIVATE);
	t->type = k->type;
	t->inst = inst;
	t->len = k->len;
	t->nslots = agg->nbuckets + 1;
	memcpy(t->name, k->name, k->len);
	for (unsigned i = 0; i < t->nslots; i++)
		t->buckets[i].seq = NO_SEQ;
	tsan_release(t);
	cds_lfht_add(agg->by_inst, hash_inst(t->type, t->inst), &t->by_inst);
	cds_lfht_add(agg->by_name, hash, &t->by_name);
	agg->ntags[k->type]++;
	__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&agg->create_lock);
	return t;
}

static int has_hist(int type)
{
	return type == TRACE_TRANSACT || type == TRACE_OBSERVE;
}

/* Room for @need rows in @b's histogram; 0 or -ENOMEM, @b unchanged. */
static int hist_reserve(struct bucket *b, unsigned need)
{
	struct hist *h;

	if (b->hist && need <= b->hist->cap)
		return 0;
	if ((h = realloc(b->hist, sizeof(*h) + need * sizeof(h->counts[0]))) == NULL)
		return -ENOMEM;
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

/* One value in bucket index @idx; 0 or -ENOMEM, @b unchanged. */
static int hist_add_one(struct bucket *b, uint32_t idx)
{
	struct hist *h = b->hist;

	if (h && h->row_of[idx / HCHUNK]) {	/* the common case */
		h->counts[h->row_of[idx / HCHUNK] - 1][idx % HCHUNK]++;
		return 0;
	}
	if (hist_reserve(b, (h ? h->n : 0) + 1u) < 0)
		return -ENOMEM;
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

/*
 * Add the dense counts @h (TRACE_HIST_NBUCKETS of them), saturating:
 * count the chunks @b lacks, make room, add. 0 or -ENOMEM, @b unchanged.
 */
static int hist_add_dense(struct bucket *b, const uint64_t *h)
{
	unsigned fresh = 0, used = b->hist ? b->hist->n : 0;

	for (unsigned c = 0; c < HCHUNKS; c++)
		if ((b->hist == NULL || b->hist->row_of[c] == 0) && dense_chunk_used(h, c))
			fresh++;
	if (hist_reserve(b, used + fresh) < 0)
		return -ENOMEM;
	for (unsigned c = 0; c < HCHUNKS; c++) {
		uint64_t *row;

		if (!dense_chunk_used(h, c))
			continue;
		row = hist_row(b->hist, c);
		for (uint32_t i = 0; i < HCHUNK && c * HCHUNK + i < TRACE_HIST_NBUCKETS; i++) {
			uint64_t n = h[c * HCHUNK + i];

			row[i] = n > UINT64_MAX - row[i] ? UINT64_MAX : row[i] + n;
		}
	}
	return 0;
}

static inline void add_sat(uint64_t *c, uint64_t n)
{
	*c = n > UINT64_MAX - *c ? UINT64_MAX : *c + n;
}

/* Add histogram @h's counts to @c, TRACE_HIST_LE_N coarse counts from bucket @lo on. */
static void le_fold(uint64_t *c, uint32_t lo, const struct hist *h)
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
 * Start slot @bk of @t afresh for sub-interval @seq, its values added to
 * the tag's coarse counts first (the span holds them: account widened it
 * for each). Its histogram keeps its room, less half when the
 * sub-interval before used under half of it.
 */
static void bucket_restart(struct tag *t, struct bucket *bk, uint64_t seq)
{
	struct hist *h = bk->hist;

	if (h) {
		if (t->le_c != NULL)
			le_fold(t->le_c, t->le_lo, h);
		if (h->n < h->cap / 2) {
			unsigned cap = h->cap / 2u;
			struct hist *smaller = realloc(h, sizeof(*h) + cap * sizeof(h->counts[0]));

			if (smaller != NULL) {
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

/*
 * @t's span widened to hold coarse buckets @jlo .. @jhi: 0 (it did), 1
 * (it grew: the exported instances change) or -ENOMEM (unchanged).
 */
static inline int le_widen(struct tag *t, uint32_t jlo, uint32_t jhi)
{
	uint32_t lo = jlo, hi = jhi;
	uint64_t *c;

	if (t->le_c != NULL) {
		if (jlo >= t->le_lo && jhi <= t->le_hi)
			return 0;
		if (t->le_lo < lo)
			lo = t->le_lo;
		if (t->le_hi > hi)
			hi = t->le_hi;
	}
	if ((c = calloc(hi - lo + 1u, sizeof(*c))) == NULL)
		return -ENOMEM;
	if (t->le_c != NULL)
		memcpy(&c[t->le_lo - lo], t->le_c, (t->le_hi - t->le_lo + 1u) * sizeof(*c));
	free(t->le_c);
	t->le_c = c;
	t->le_lo = (uint16_t)lo;
	t->le_hi = (uint16_t)hi;
	return 1;
}

/* The coarse span of @b's values: fine bucket @idx's, or its histogram's. */
static void le_span(const struct trace_batch *b, uint32_t idx, uint32_t *jlo, uint32_t *jhi)
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

/* A late report's values straight into @t's coarse counts (room made by le_widen). */
static void le_add(struct tag *t, const struct trace_batch *b, uint32_t idx)
{
	if (b->hist == NULL) {
		add_sat(&t->le_c[trace_hist_le_of(idx) - t->le_lo], b->count);
		return;
	}
	for (uint32_t i = 0; i < TRACE_HIST_NBUCKETS; i++)
		if (b->hist[i])
			add_sat(&t->le_c[trace_hist_le_of(i) - t->le_lo], b->hist[i]);
}

/*
 * Account @b (b->count > 0) in @t: its totals and the bucket of @seq,
 * whose histogram gets b->hist or, without one, @b's b->count values in
 * index @idx (the coarse counts get them when the slot is reused; the
 * span is widened now). A sub-interval older than the one its slot holds
 * now has left the window: only the totals and the coarse counts take
 * it. 0 or -ENOMEM (no number changed).
 */
static int account(struct trace_agg *agg, struct tag *t, uint64_t seq,
		const struct trace_batch *b, uint32_t idx, const struct trace_extra *x)
{
	struct bucket *bk = &t->buckets[seq % t->nslots];
	uint32_t jlo = 0, jhi = 0;
	int err = 0, wider = 0;

	if (has_hist(t->type))
		le_span(b, idx, &jlo, &jhi);
	pthread_spin_lock(&t->lock);
	if (t->dead) {
		err = -EAGAIN;	/* expired since it was found: look again */
		goto out;
	}
	if (has_hist(t->type) && (err = wider = le_widen(t, jlo, jhi)) < 0)
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
			bucket_restart(t, bk, seq);
	}
	if (bk->seq == seq) {
		if (has_hist(t->type))
			err = b->hist ? hist_add_dense(bk, b->hist) : hist_add_one(bk, idx);
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
		le_add(t, b, idx);
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
	int err = 0, inst;

	if (type < 1 || type > TRACE_NTYPES || tag == NULL || len == 0 ||
	    len > TRACE_TAG_MAX)
		return -EINVAL;
	hash = hash_name(type, tag, len);
again:
	rcu_read_lock();
	if ((t = find_tag(agg, &k, hash)) == NULL) {
		if (b->count == 0) {
			read_unlock();
			return 0;	/* no reports: no tag */
		}
		if (!create) {
			read_unlock();
			return -ENOENT;
		}
		if ((t = create_tag(agg, &k, hash, &err)) == NULL) {
			read_unlock();
			return err;
		}
	}
	inst = t->inst;
	if (b->count && (err = account(agg, t, seq, b, idx, x)) < 0)
		inst = err;
	read_unlock();
	if (inst == -EAGAIN)
		goto again;	/* expired under us: unlinked now, so not found again */
	return inst;
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

void tra_agg_reset(struct trace_agg *agg)
{
	struct cds_lfht_iter iter;
	struct tag *t;

	pthread_mutex_lock(&agg->create_lock);
	__atomic_store_n(&agg->t0, agg->clock(agg->clock_arg), __ATOMIC_RELEASE);
	rcu_read_lock();
	for (cds_lfht_first(agg->by_name, &iter); (t = tag_at(&iter)) != NULL;
	     cds_lfht_next(agg->by_name, &iter)) {
		cds_lfht_del(agg->by_name, &t->by_name);
		cds_lfht_del(agg->by_inst, &t->by_inst);
		call_rcu(&t->rcu, free_tag_rcu);
	}
	read_unlock();
	memset(agg->ntags, 0, sizeof(agg->ntags));
	__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&agg->create_lock);
}

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

/* The tag of instance @inst of @type, or NULL; inside an RCU read-side section. */
static struct tag *tag_by_inst(struct trace_agg *agg, int type, int inst)
{
	struct inst_key k = { type, inst };
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(agg->by_inst, hash_inst(type, inst), match_tag_inst, &k, &iter);
	node = cds_lfht_iter_get_node(&iter);
	return node ? caa_container_of(node, struct tag, by_inst) : NULL;
}

/*
 * The tag of instance @inst of @type with its lock held, inside an RCU
 * read-side section (both released by unlock_tag), or NULL (neither held).
 */
static struct tag *lock_tag(struct trace_agg *agg, int type, int inst)
{
	struct tag *t;

	rcu_read_lock();
	if ((t = tag_by_inst(agg, type, inst)) == NULL) {
		read_unlock();
		return NULL;
	}
	pthread_spin_lock(&t->lock);
	return t;
}

static void unlock_tag(struct tag *t)
{
	pthread_spin_unlock(&t->lock);
	read_unlock();
}

int tra_agg_get(struct trace_agg *agg, int type, int inst,
		struct trace_stats *out)
{
	uint64_t cur = tra_agg_seq(agg);
	struct tag *t;

	memset(out, 0, sizeof(*out));
	if ((t = lock_tag(agg, type, inst)) == NULL)
		return -ENOENT;
	out->inst = t->inst;
	out->count = t->count;
	out->flagged = t->flagged;
	out->attr = t->attr;
	out->total = t->total;
	out->value = t->value;
	window(agg, t, cur, out);
	unlock_tag(t);
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
	if ((t = lock_tag(agg, type, inst)) == NULL) {
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
	unlock_tag(t);
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
	if ((t = lock_tag(agg, type, inst)) == NULL)
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
	unlock_tag(t);
	return n > INT_MAX ? INT_MAX : (int)n;
}

int tra_agg_le(struct trace_agg *agg, int type, int inst, uint64_t *cum,
		unsigned *first, unsigned *last)
{
	struct tag *t;
	int err = 0;

	if (!has_hist(type))
		return -ENODATA;
	if ((t = lock_tag(agg, type, inst)) == NULL)
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
				le_fold(cum, 0, t->buckets[i].hist);
		for (uint32_t j = 1; j < TRACE_HIST_LE_N; j++)
			add_sat(&cum[j], cum[j - 1]);
	}
out:
	unlock_tag(t);
	return err;
}

void tra_agg_forget_expired(struct trace_agg *agg)
{
	agg->forget = 1;
}

/* Drop the remembered number of @t's name (create_lock held). */
static void forget_name(struct trace_agg *agg, const struct tag *t)
{
	struct name_key k = { t->type, t->name, t->len };
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(agg->memory, hash_name(t->type, t->name, t->len),
			match_remembered, &k, &iter);
	if ((node = cds_lfht_iter_get_node(&iter)) != NULL && cds_lfht_del(agg->memory, node) == 0)
		call_rcu(&caa_container_of(node, struct remembered, node)->rcu, free_remembered_rcu);
}

/*
 * The latest sub-interval a report of @t was accounted in (its lock held):
 * its newest slot's, a report being accounted in the slot of its own
 * sub-interval or, late, in an older one's that then holds a newer one.
 */
static uint64_t latest_seq(const struct tag *t)
{
	uint64_t latest = 0;

	for (unsigned i = 0; i < t->nslots; i++)
		if (t->buckets[i].seq != NO_SEQ && t->buckets[i].seq > latest)
			latest = t->buckets[i].seq;
	return latest;
}

int tra_agg_expire(struct trace_agg *agg, int type, uint64_t idle)
{
	uint64_t cur = tra_agg_seq(agg);
	struct cds_lfht_iter iter;
	struct tag *t;
	int n = 0;

	if (cur <= idle)
		return 0;
	pthread_mutex_lock(&agg->create_lock);
	rcu_read_lock();
	for (cds_lfht_first(agg->by_name, &iter); (t = tag_at(&iter)) != NULL;
	     cds_lfht_next(agg->by_name, &iter)) {
		int old;

		if (t->type != type)
			continue;
		pthread_spin_lock(&t->lock);
		if ((old = latest_seq(t) + idle < cur) != 0)
			t->dead = 1;
		pthread_spin_unlock(&t->lock);
		if (!old)
			continue;
		cds_lfht_del(agg->by_name, &t->by_name);
		cds_lfht_del(agg->by_inst, &t->by_inst);
		if (agg->forget)
			forget_name(agg, t);
		call_rcu(&t->rcu, free_tag_rcu);
		agg->ntags[type]--;
		n++;
	}
	read_unlock();
	if (n)
		__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&agg->create_lock);
	return n;
}

size_t tra_agg_ntags(struct trace_agg *agg, int type)
{
	size_t n;

	if (type < 1 || type > TRACE_NTYPES)
		return 0;
	pthread_mutex_lock(&agg->create_lock);
	n = agg->ntags[type];
	pthread_mutex_unlock(&agg->create_lock);
	return n;
}

int tra_agg_instances(struct trace_agg *agg, int type,
		void (*fn)(void *arg, int inst, const char *name), void *arg)
{
	struct cds_lfht_iter iter;
	struct tag *t;
	int n = 0;

	rcu_read_lock();
	for (cds_lfht_first(agg->by_name, &iter); (t = tag_at(&iter)) != NULL;
	     cds_lfht_next(agg->by_name, &iter)) {
		if (t->type != type)
			continue;
		fn(arg, t->inst, t->name);
		n++;
	}
	read_unlock();
	return n;
}

uint64_t tra_agg_generation(const struct trace_agg *agg)
{
	return __atomic_load_n(&agg->generation, __ATOMIC_ACQUIRE);
}

int tra_agg_lookup(struct trace_agg *agg, int type, const char *name)
{
	struct name_key k = { type, name, name ? strlen(name) : 0 };
	struct tag *t;
	int inst;

	if (name == NULL)
		return -ENOENT;
	rcu_read_lock();
	t = find_tag(agg, &k, hash_name(type, name, k.len));
	inst = t ? t->inst : -ENOENT;
	read_unlock();
	return inst;
}

static void drain(struct cds_lfht *ht, size_t node_offset, int is_tag)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	if (ht == NULL)
		return;
	cds_lfht_first(ht, &iter);
	while ((node = cds_lfht_iter_get_node(&iter)) != NULL) {
		cds_lfht_next(ht, &iter);
		cds_lfht_del(ht, node);
		if (is_tag == 1)
			free_tag((struct tag *)((char *)node - node_offset));
		else if (is_tag == 0)
			free((char *)node - node_offset);
	}
}

void tra_agg_free(struct trace_agg *agg)
{
	if (agg == NULL)
		return;
	rcu_barrier();	/* tags freed by resets */
	rcu_read_lock();
	drain(agg->by_inst, offsetof(struct tag, by_inst), -1);	/* same nodes as by_name */
	drain(agg->by_name, offsetof(struct tag, by_name), 1);
	drain(agg->memory, offsetof(struct remembered, node), 0);
	read_unlock();
	if (agg->by_name)
		cds_lfht_destroy(agg->by_name, NULL);
	if (agg->by_inst)
		cds_lfht_destroy(agg->by_inst, NULL);
	if (agg->memory)
		cds_lfht_destroy(agg->memory, NULL);
	pthread_mutex_destroy(&agg->create_lock);
	free(agg);
}
