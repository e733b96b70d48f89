/*
 * Trace aggregation over a rolling window: see agg.h for the model.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu.h>
#include <urcu/rculfhash.h>

#include "agg.h"
#include "clock_usec.h"

#define NO_SEQ UINT64_MAX

struct bucket {
	uint64_t seq;		/* sub-interval it holds, NO_SEQ: never used */
	uint32_t count;
	double min, max, sum;
};

struct tag {
	struct cds_lfht_node by_name, by_inst;
	struct rcu_head rcu;
	int type, inst;
	pthread_spinlock_t lock;	/* guards the numbers below; held for a few stores */
	uint64_t count;
	double total, value;
	struct bucket *buckets;	/* nbuckets + 1, indexed by seq % that */
	size_t len;
	char name[];		/* len bytes and a NUL */
};

/* (type, name) -> instance number, kept across resets (docs/trace-protocol.md §8.2). */
struct remembered {
	struct cds_lfht_node node;
	int type, inst;
	size_t len;
	char name[];
};

struct trace_agg {
	uint64_t period_usec;
	unsigned nbuckets;
	size_t max_tags;
	trace_clock_fn clock;
	void *clock_arg;
	int64_t t0;		/* start of sub-interval 0, atomic */
	struct cds_lfht *by_name, *by_inst, *memory;
	pthread_mutex_t create_lock;	/* creation, reset, the fields below */
	int next_inst[TRACE_NTYPES + 1];
	size_t ntags[TRACE_NTYPES + 1];
	uint64_t generation;	/* atomic: bumped on create and reset */
};

struct name_key {
	int type;
	const char *name;
	size_t len;
};

struct inst_key {
	int type, inst;
};

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

	return node ? caa_container_of(node, struct tag, by_name) : NULL;
}

static int match_tag_name(struct cds_lfht_node *node, const void *key)
{
	const struct tag *t = caa_container_of(node, struct tag, by_name);
	const struct name_key *k = key;

	return t->type == k->type && t->len == k->len && memcmp(t->name, k->name, k->len) == 0;
}

static int match_tag_inst(struct cds_lfht_node *node, const void *key)
{
	const struct tag *t = caa_container_of(node, struct tag, by_inst);
	const struct inst_key *k = key;

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
	free(t->buckets);
	free(t);
}

static void free_tag_rcu(struct rcu_head *head)
{
	free_tag(caa_container_of(head, struct tag, rcu));
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
 * *@created says whether this call made the tag (its first report) or
 * another thread won the race to it.
 */
static struct tag *create_tag(struct trace_agg *agg, const struct name_key *k,
		unsigned long hash, double value, int *err, int *created)
{
	struct tag *t;
	int inst;

	*created = 0;
	pthread_mutex_lock(&agg->create_lock);
	if ((t = find_tag(agg, k, hash)) != NULL)
		goto out;	/* another thread won the race */
	if (agg->max_tags && agg->ntags[k->type] >= agg->max_tags) {
		*err = -ENOSPC;
		goto out;
	}
	if ((t = calloc(1, sizeof(*t) + k->len + 1)) == NULL ||
	    (t->buckets = malloc((agg->nbuckets + 1) * sizeof(*t->buckets))) == NULL ||
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
	memcpy(t->name, k->name, k->len);
	for (unsigned i = 0; i <= agg->nbuckets; i++)
		t->buckets[i].seq = NO_SEQ;
	/* docs/trace-protocol.md §8.3: a new summary starts with the first report's value */
	t->total = value;
	t->value = value;
	cds_lfht_add(agg->by_inst, hash_inst(t->type, t->inst), &t->by_inst);
	cds_lfht_add(agg->by_name, hash, &t->by_name);
	agg->ntags[k->type]++;
	__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	*created = 1;
out:
	pthread_mutex_unlock(&agg->create_lock);
	return t;
}

static void account(struct trace_agg *agg, struct tag *t, uint64_t seq,
		double value, int fresh)
{
	struct bucket *b = &t->buckets[seq % (agg->nbuckets + 1)];

	pthread_spin_lock(&t->lock);
	t->count++;
	if (!fresh) {
		if (t->type == TRACE_TRANSACT)
			t->total += value;
		else if (t->type == TRACE_OBSERVE || t->type == TRACE_COUNTER)
			t->value = value;
	}
	if (b->seq != seq) {
		b->seq = seq;
		b->count = 1;
		b->min = b->max = b->sum = value;
	} else {
		b->count++;
		if (t->type == TRACE_TRANSACT) {
			if (value < b->min)
				b->min = value;
			if (value > b->max)
				b->max = value;
			b->sum += value;
		}
	}
	pthread_spin_unlock(&t->lock);
}

int tra_agg_record(struct trace_agg *agg, int type, const char *tag,
		size_t len, double value)
{
	return tra_agg_record_in(agg, tra_agg_seq(agg), type, tag, len, value);
}

int tra_agg_record_in(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value)
{
	struct name_key k = { type, tag, len };
	unsigned long hash;
	struct tag *t;
	int fresh = 0, err = 0, inst;

	if (type < 1 || type > TRACE_NTYPES || tag == NULL || len == 0 ||
	    len > TRACE_TAG_MAX)
		return -EINVAL;
	hash = hash_name(type, tag, len);
	rcu_read_lock();
	if ((t = find_tag(agg, &k, hash)) == NULL &&
	    (t = create_tag(agg, &k, hash, value, &err, &fresh)) == NULL) {
		rcu_read_unlock();
		return err;
	}
	account(agg, t, seq, value, fresh);
	inst = t->inst;
	rcu_read_unlock();
	return inst;
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
	rcu_read_unlock();
	memset(agg->ntags, 0, sizeof(agg->ntags));
	__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&agg->create_lock);
}

/* Sum the buckets of the last N completed sub-intervals (docs/trace-protocol.md §8.3). */
static void window(const struct trace_agg *agg, const struct tag *t,
		uint64_t cur, struct trace_stats *out)
{
	for (unsigned i = 0; i <= agg->nbuckets; i++) {
		const struct bucket *b = &t->buckets[i];

		if (b->seq == NO_SEQ || b->seq >= cur || b->seq + agg->nbuckets < cur)
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
	struct inst_key k = { type, inst };
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	uint64_t cur = tra_agg_seq(agg);
	struct tag *t;

	memset(out, 0, sizeof(*out));
	rcu_read_lock();
	cds_lfht_lookup(agg->by_inst, hash_inst(type, inst), match_tag_inst, &k, &iter);
	if ((node = cds_lfht_iter_get_node(&iter)) == NULL) {
		rcu_read_unlock();
		return -ENOENT;
	}
	t = caa_container_of(node, struct tag, by_inst);
	pthread_spin_lock(&t->lock);
	out->inst = t->inst;
	out->count = t->count;
	out->total = t->total;
	out->value = t->value;
	window(agg, t, cur, out);
	pthread_spin_unlock(&t->lock);
	rcu_read_unlock();
	return 0;
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
	rcu_read_unlock();
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
	rcu_read_unlock();
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
	rcu_read_unlock();
	if (agg->by_name)
		cds_lfht_destroy(agg->by_name, NULL);
	if (agg->by_inst)
		cds_lfht_destroy(agg->by_inst, NULL);
	if (agg->memory)
		cds_lfht_destroy(agg->memory, NULL);
	pthread_mutex_destroy(&agg->create_lock);
	free(agg);
}
