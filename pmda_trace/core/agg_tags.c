/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace aggregation's tag table (see agg.h): the hashes of names and
 * instance numbers, finding and making tags, the names remembered across
 * resets, lookups and listings, a tag's note, and the byte budget every
 * allocation of the aggregation is counted in.
 */
#include "agg_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock_usec.h"
#include "heap_cost.h"

/*
 * What the byte total counts beyond the bytes asked of malloc:
 * heap_cost.h's TRA_MALLOC_OVERHEAD for each heap block; and
 * TRA_AGG_HT_NODE_BYTES for each node of liburcu's hash tables (the node
 * itself is inside our structs), its bucket array: 16 bytes a bucket, and
 * with CDS_LFHT_AUTO_RESIZE up to twice as many buckets as nodes (the
 * table grows to the power of two at or above its node count).
 */
#define TRA_AGG_HT_NODE_BYTES	(2 * sizeof(struct cds_lfht_node))

/*
 * What liburcu orders, told to TSan (liburcu is not instrumented): a tag
 * is released by tra_agg_create_tag before it is published and acquired
 * by whoever finds it (match_tag_*, tra_agg_tag_at); every read section
 * ends in read_unlock, releasing tra_agg_grace, which the frees after a
 * grace period acquire, since the grace period put them after every
 * reader that could hold the tag. Remembered names need neither: only
 * create_lock's holder reads them.
 */
char tra_agg_grace;

struct inst_key {
	int type, inst;
};

size_t tra_agg_block(size_t size)
{
	return tra_heap_block(size);
}

size_t tra_agg_hist_bytes(unsigned rows)
{
	return sizeof(struct hist) + rows * sizeof(((struct hist *)0)->counts[0]);
}

/* A tag's own block and its two hash nodes; @text_len: its name's and note's bytes. */
static size_t tag_bytes(size_t text_len)
{
	return tra_agg_block(sizeof(struct tag) + text_len + 2) + 2 * TRA_AGG_HT_NODE_BYTES;
}

size_t tra_agg_remembered_bytes(size_t len)
{
	return tra_agg_block(sizeof(struct remembered) + len + 1) + TRA_AGG_HT_NODE_BYTES;
}

size_t tra_agg_tag_worst(unsigned nbuckets, size_t name_len)
{
	size_t nslots = (size_t)nbuckets + 1;

	return tag_bytes(name_len) +
	       tra_agg_block(nslots * sizeof(struct bucket)) +
	       nslots * tra_agg_block(tra_agg_hist_bytes(HCHUNKS)) +
	       /* the widest coarse span, and the one before it while it widens */
	       tra_agg_block(TRACE_HIST_LE_N * sizeof(uint64_t)) +
	       tra_agg_block((TRACE_HIST_LE_N - 1) * sizeof(uint64_t)) +
	       tra_agg_remembered_bytes(name_len);
}

int tra_agg_charge(struct trace_agg *agg, size_t n, int exempt)
{
	size_t cur = __atomic_load_n(&agg->bytes, __ATOMIC_RELAXED);

	if (exempt || agg->max_bytes == 0) {
		__atomic_add_fetch(&agg->bytes, n, __ATOMIC_RELAXED);
		return 0;
	}
	do {
		if (cur > agg->max_bytes || n > agg->max_bytes - cur)
			return ERR_BUDGET;
	} while (!__atomic_compare_exchange_n(&agg->bytes, &cur, cur + n, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	return 0;
}

void tra_agg_uncharge(struct trace_agg *agg, size_t n)
{
	__atomic_sub_fetch(&agg->bytes, n, __ATOMIC_RELAXED);
}

void tra_agg_set_budget(struct trace_agg *agg, size_t max_bytes, const char *exempt,
		size_t exempt_len)
{
	agg->max_bytes = max_bytes;
	free(agg->exempt);
	agg->exempt = NULL;
	agg->exempt_len = 0;
	if (exempt != NULL && exempt_len > 0 && (agg->exempt = malloc(exempt_len)) != NULL) {
		memcpy(agg->exempt, exempt, exempt_len);
		agg->exempt_len = exempt_len;
	}
}

void tra_agg_usage(struct trace_agg *agg, struct trace_agg_usage *u)
{
	memset(u, 0, sizeof(*u));
	u->bytes = __atomic_load_n(&agg->bytes, __ATOMIC_RELAXED);
	u->max_bytes = agg->max_bytes;
	pthread_mutex_lock(&agg->create_lock);
	for (int t = 1; t <= TRACE_NTYPES; t++)
		u->tags[t] = agg->ntags[t];
	u->remembered = agg->nremembered;
	pthread_mutex_unlock(&agg->create_lock);
	u->refused_cap = __atomic_load_n(&agg->refused_cap, __ATOMIC_RELAXED);
	u->refused_bytes = __atomic_load_n(&agg->refused_bytes, __ATOMIC_RELAXED);
}

static int64_t monotonic_usec(void *arg)
{
	(void)arg;
	return clock_usec(CLOCK_MONOTONIC);
}

unsigned long tra_agg_hash_name(int type, const char *name, size_t len)
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
 * liburcu's cds_lfht_for_each_entry converts the NULL end node with
 * container_of, which is undefined; check the node first.
 */
struct tag *tra_agg_tag_at(struct cds_lfht_iter *iter)
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

int tra_agg_match_remembered(struct cds_lfht_node *node, const void *key)
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

/*
 * Instance number for (type, name): remembered, or the next new one,
 * remembered now (its bytes counted, as @exempt's are). Returns it, or
 * ERR_BUDGET or -ENOMEM (no number taken). create_lock held.
 */
static int instance_number(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash, int exempt)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct remembered *r;
	size_t bytes = tra_agg_remembered_bytes(k->len);

	cds_lfht_lookup(agg->memory, hash, tra_agg_match_remembered, k, &iter);
	if ((node = cds_lfht_iter_get_node(&iter)) != NULL)
		return caa_container_of(node, struct remembered, node)->inst;
	if (tra_agg_charge(agg, bytes, exempt) < 0)
		return ERR_BUDGET;
	if ((r = malloc(sizeof(*r) + k->len + 1)) == NULL) {
		tra_agg_uncharge(agg, bytes);
		return -ENOMEM;
	}
	r->agg = agg;
	r->type = k->type;
	r->inst = agg->next_inst[k->type]++;
	r->len = k->len;
	memcpy(r->name, k->name, k->len);
	r->name[k->len] = '\0';
	cds_lfht_add(agg->memory, hash, &r->node);
	agg->nremembered++;
	return r->inst;
}

struct tag *tra_agg_find_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	cds_lfht_lookup(agg->by_name, hash, match_tag_name, k, &iter);
	node = cds_lfht_iter_get_node(&iter);
	return node ? caa_container_of(node, struct tag, by_name) : NULL;
}

static int is_exempt(const struct trace_agg *agg, const struct name_key *k)
{
	return agg->exempt != NULL && k->len == agg->exempt_len &&
	       memcmp(k->name, agg->exempt, k->len) == 0;
}

/* A tag's block for @k and @note, its bytes counted in t->charged; NULL: -errno in *@err. */
static struct tag *alloc_tag(struct trace_agg *agg, const struct name_key *k,
		const char *note, size_t note_len, int exempt, int *err)
{
	size_t nslots = agg->nbuckets + 1u;
	size_t bytes = tag_bytes(k->len + note_len) +
		       tra_agg_block(nslots * sizeof(struct bucket));
	struct tag *t;

	if (tra_agg_charge(agg, bytes, exempt) < 0) {
		*err = ERR_BUDGET;
		return NULL;
	}
	if ((t = calloc(1, sizeof(*t) + k->len + note_len + 2)) == NULL ||
	    (t->buckets = calloc(nslots, sizeof(*t->buckets))) == NULL) {
		free(t);
		tra_agg_uncharge(agg, bytes);
		*err = -ENOMEM;
		return NULL;
	}
	pthread_spin_init(&t->lock, PTHREAD_PROCESS_PRIVATE);
	t->agg = agg;
	t->charged = bytes;
	t->exempt = exempt;
	t->type = k->type;
	t->len = k->len;
	t->nslots = (unsigned)nslots;
	memcpy(t->name, k->name, k->len);
	t->note = t->name + k->len + 1;
	t->note_len = note_len;
	if (note_len)
		memcpy(t->name + k->len + 1, note, note_len);
	for (unsigned i = 0; i < t->nslots; i++)
		t->buckets[i].seq = NO_SEQ;
	return t;
}

/*
 * Called inside an RCU read-side section; creation is serialised.
 * A new tag's count, total and value start at zero, so its first report
 * sets them as every later one adds to them (docs/trace-protocol.md §8.3).
 * The name is remembered last: every refusal before it frees the tag.
 */
struct tag *tra_agg_create_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash, uint64_t seq, const struct trace_batch *b, uint32_t idx,
		const struct trace_extra *x, int *made, int *err)
{
	const char *note = x != NULL ? x->note : NULL;
	int exempt = is_exempt(agg, k);
	struct tag *t;
	int inst;

	*made = 0;
	pthread_mutex_lock(&agg->create_lock);
	if ((t = tra_agg_find_tag(agg, k, hash)) != NULL)
		goto out;	/* another thread won the race */
	if (!exempt && agg->max_tags && agg->ntags[k->type] >= agg->max_tags) {
		*err = -ENOSPC;
		goto out;
	}
	if ((t = alloc_tag(agg, k, note, note ? x->note_len : 0, exempt, err)) == NULL)
		goto out;
	if ((inst = tra_agg_account(agg, t, seq, b, idx, x)) < 0 ||
	    (inst = instance_number(agg, k, hash, exempt)) < 0) {
		tra_agg_free_tag(t);
		t = NULL;
		*err = inst;
		goto out;
	}
	t->inst = inst;
	*made = 1;
	tsan_release(t);
	cds_lfht_add(agg->by_inst, hash_inst(t->type, t->inst), &t->by_inst);
	cds_lfht_add(agg->by_name, hash, &t->by_name);
	tra_agg_count_tag(agg, t, 1);
	__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&agg->create_lock);
	return t;
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

struct tag *tra_agg_lock_tag(struct trace_agg *agg, int type, int inst)
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

void tra_agg_unlock_tag(struct tag *t)
{
	pthread_spin_unlock(&t->lock);
	read_unlock();
}

int tra_agg_note(struct trace_agg *agg, int type, int inst, char *buf, size_t cap)
{
	struct tag *t;
	int n;

	if ((t = tra_agg_lock_tag(agg, type, inst)) == NULL)
		return -ENOENT;
	if (t->note_len >= cap) {
		n = -ENOSPC;
	} else {
		memcpy(buf, t->note, t->note_len);
		buf[t->note_len] = '\0';
		n = (int)t->note_len;
	}
	tra_agg_unlock_tag(t);
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
	for (cds_lfht_first(agg->by_name, &iter); (t = tra_agg_tag_at(&iter)) != NULL;
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
	t = tra_agg_find_tag(agg, &k, tra_agg_hash_name(type, name, k.len));
	inst = t ? t->inst : -ENOENT;
	read_unlock();
	return inst;
}
