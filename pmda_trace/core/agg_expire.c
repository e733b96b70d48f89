/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace aggregation's ends (see agg.h): expiry of idle tags, reset,
 * forgetting remembered names, and freeing, each freed byte uncounted.
 * Unlinked tags and names are freed after a grace period (call_rcu).
 */
#include "agg_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tra_agg_free_tag(struct tag *t)
{
	tra_agg_uncharge(t->agg, t->charged);
	pthread_spin_destroy(&t->lock);
	for (unsigned i = 0; i < t->nslots; i++)
		free(t->buckets[i].hist);
	free(t->buckets);
	free(t->le_c);
	free(t);
}

/*
 * A grace period after its unlinking. The release of &agg->bytes tells
 * TSan what rcu_barrier orders before tra_agg_free: the callback's last
 * touch of the aggregation (its byte total).
 */
static void free_tag_rcu(struct rcu_head *head)
{
	struct tag *t = caa_container_of(head, struct tag, rcu);
	struct trace_agg *agg;

	tsan_acquire(&tra_agg_grace);
	agg = t->agg;
	tra_agg_free_tag(t);
	tsan_release(&agg->bytes);
}

static void free_remembered(struct remembered *r)
{
	tra_agg_uncharge(r->agg, tra_agg_remembered_bytes(r->len));
	free(r);
}

/* Its readers held create_lock inside a read section, whose end orders this (tra_agg_grace). */
static void free_remembered_rcu(struct rcu_head *head)
{
	struct remembered *r = caa_container_of(head, struct remembered, rcu);
	struct trace_agg *agg;

	tsan_acquire(&tra_agg_grace);
	agg = r->agg;
	free_remembered(r);
	tsan_release(&agg->bytes);
}

/* Unlink @node of the remembered names, freed after a grace period (create_lock held). */
static void unremember(struct trace_agg *agg, struct cds_lfht_node *node)
{
	if (cds_lfht_del(agg->memory, node) != 0)
		return;
	agg->nremembered--;
	call_rcu(&caa_container_of(node, struct remembered, node)->rcu, free_remembered_rcu);
}

/* Unlink @t from both tables, freed after a grace period (create_lock held). */
static void unlink_tag(struct trace_agg *agg, struct tag *t)
{
	cds_lfht_del(agg->by_name, &t->by_name);
	cds_lfht_del(agg->by_inst, &t->by_inst);
	tra_agg_count_tag(agg, t, -1);
	call_rcu(&t->rcu, free_tag_rcu);
}

void tra_agg_reset(struct trace_agg *agg)
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;
	struct tag *t;

	pthread_mutex_lock(&agg->create_lock);
	__atomic_store_n(&agg->t0, agg->clock(agg->clock_arg), __ATOMIC_RELEASE);
	rcu_read_lock();
	for (cds_lfht_first(agg->by_name, &iter); (t = tra_agg_tag_at(&iter)) != NULL;
	     cds_lfht_next(agg->by_name, &iter))
		unlink_tag(agg, t);
	/* names that come and go without end: the numbers go on, the names not */
	if (agg->forget) {
		for (cds_lfht_first(agg->memory, &iter);
		     (node = cds_lfht_iter_get_node(&iter)) != NULL;
		     cds_lfht_next(agg->memory, &iter))
			unremember(agg, node);
	}
	read_unlock();
	__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&agg->create_lock);
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

	cds_lfht_lookup(agg->memory, tra_agg_hash_name(t->type, t->name, t->len),
			tra_agg_match_remembered, &k, &iter);
	if ((node = cds_lfht_iter_get_node(&iter)) != NULL)
		unremember(agg, node);
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
	for (cds_lfht_first(agg->by_name, &iter); (t = tra_agg_tag_at(&iter)) != NULL;
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
		if (agg->forget)
			forget_name(agg, t);
		unlink_tag(agg, t);
		n++;
	}
	read_unlock();
	if (n)
		__atomic_add_fetch(&agg->generation, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&agg->create_lock);
	return n;
}

/* Empty @ht, freeing what its nodes are in (@free_node NULL: only unlink them). */
static void drain(struct cds_lfht *ht, void (*free_node)(struct cds_lfht_node *node))
{
	struct cds_lfht_iter iter;
	struct cds_lfht_node *node;

	if (ht == NULL)
		return;
	cds_lfht_first(ht, &iter);
	while ((node = cds_lfht_iter_get_node(&iter)) != NULL) {
		cds_lfht_next(ht, &iter);
		cds_lfht_del(ht, node);
		if (free_node != NULL)
			free_node(node);
	}
}

static void free_tag_node(struct cds_lfht_node *node)
{
	tra_agg_free_tag(caa_container_of(node, struct tag, by_name));
}

static void free_remembered_node(struct cds_lfht_node *node)
{
	free_remembered(caa_container_of(node, struct remembered, node));
}

void tra_agg_free(struct trace_agg *agg)
{
	if (agg == NULL)
		return;
	rcu_barrier();	/* tags and names freed by resets and expiry */
	tsan_acquire(&agg->bytes);
	rcu_read_lock();
	drain(agg->by_inst, NULL);	/* the same tags as by_name */
	drain(agg->by_name, free_tag_node);
	drain(agg->memory, free_remembered_node);
	read_unlock();
	if (agg->by_name)
		cds_lfht_destroy(agg->by_name, NULL);
	if (agg->by_inst)
		cds_lfht_destroy(agg->by_inst, NULL);
	if (agg->memory)
		cds_lfht_destroy(agg->memory, NULL);
	pthread_mutex_destroy(&agg->create_lock);
	free(agg->exempt);
	free(agg);
}
