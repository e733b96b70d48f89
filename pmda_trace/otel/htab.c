/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * htab.c - the OpenTelemetry metrics store's hash tables and hashes
 * (otel_priv.h): open addressing with linear probing under the store's
 * mutex, every slot array counted in the store's bytes.
 *
 * The hashes are fixed (FNV-1a and a 64-bit finaliser, no seed), since
 * PMIDs and instance numbers are derived from them and must come out the
 * same after a restart.
 */
#include <stdlib.h>
#include <string.h>

#include "otel_priv.h"

#define HT_MIN	8u

uint64_t otel_mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

uint64_t otel_hash(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= 0x100000001b3ULL;
	}
	return otel_mix(h);
}

/* Where an entry of @key starts looking. */
static uint32_t home(const struct htab *t, uint64_t key)
{
	uint64_t h = t->by_int ? otel_mix((uint32_t)key) : key;

	return (uint32_t)(h ^ h >> 32) & t->mask;
}

/* @t's entries moved into @cap fresh slots (counted): 0 or -1. */
static int rehash(struct otel_store *s, struct htab *t, size_t cap)
{
	struct hslot *old = t->slot, *sl;
	size_t old_size = old ? ((size_t)t->mask + 1) * sizeof(*old) : 0;
	struct htab nt = { .mask = (uint32_t)(cap - 1), .by_int = t->by_int };

	if ((nt.slot = otel_alloc(s, cap * sizeof(*nt.slot), true)) == NULL)
		return -1;
	if (old != NULL) {
		otel_ht_for_each(t, sl)
			otel_ht_add(&nt, sl->key, sl->val);
		otel_free(s, old, old_size);
	}
	*t = nt;
	return 0;
}

int otel_ht_reserve(struct otel_store *s, struct htab *t, size_t more)
{
	size_t need = (size_t)t->n + more, cap = t->slot ? (size_t)t->mask + 1 : 0;

	if (need > UINT32_MAX / 2)
		return -1;
	if (cap != 0 && need * 4 <= cap * 3)
		return 0;
	if (cap < HT_MIN)
		cap = HT_MIN;
	while (need * 4 > cap * 3)
		cap *= 2;
	return rehash(s, t, cap);
}

struct hslot *otel_ht_find(const struct htab *t, uint64_t key, ht_eq_fn eq, const void *arg)
{
	uint32_t i;

	if (t->slot == NULL)
		return NULL;
	for (i = home(t, key);; i = (i + 1) & t->mask) {
		struct hslot *sl = &t->slot[i];

		if (sl->val == NULL)
			return NULL;
		if (t->by_int ? (uint32_t)sl->key == (uint32_t)key : sl->key == key) {
			if (eq == NULL || eq(sl, arg))
				return sl;
		}
	}
}

void otel_ht_add(struct htab *t, uint64_t key, void *val)
{
	uint32_t i = home(t, key);

	while (t->slot[i].val != NULL)
		i = (i + 1) & t->mask;
	t->slot[i].key = key;
	t->slot[i].val = val;
	t->n++;
}

/* Backward shift: each entry after the hole that may move into it does. */
void otel_ht_del(struct htab *t, struct hslot *slot)
{
	uint32_t hole = (uint32_t)(slot - t->slot), i = hole;

	for (;;) {
		uint32_t h;

		i = (i + 1) & t->mask;
		if (t->slot[i].val == NULL)
			break;
		h = home(t, t->slot[i].key);
		/* stays if its home is cyclically in (hole, i] */
		if (hole <= i ? (hole < h && h <= i) : (hole < h || h <= i))
			continue;
		t->slot[hole] = t->slot[i];
		hole = i;
	}
	t->slot[hole].val = NULL;
	t->slot[hole].key = 0;
	t->n--;
}

void otel_ht_shrink(struct otel_store *s, struct htab *t)
{
	size_t cap = t->slot ? (size_t)t->mask + 1 : 0, want = cap;

	if (cap == 0)
		return;
	if (t->n == 0) {
		otel_ht_free(s, t);
		return;
	}
	while (want > HT_MIN && (size_t)t->n * 8 < want)
		want /= 2;
	if (want < cap && (size_t)t->n * 4 <= want * 3)
		rehash(s, t, want);	/* over the budget: stays as it is */
}

void otel_ht_free(struct otel_store *s, struct htab *t)
{
	if (t->slot != NULL)
		otel_free(s, t->slot, ((size_t)t->mask + 1) * sizeof(*t->slot));
	t->slot = NULL;
	t->mask = 0;
	t->n = 0;
}
