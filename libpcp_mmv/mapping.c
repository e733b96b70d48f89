/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files this process has mapped, keyed by their base address (the
 * "addr" handle of the API), in an open-addressed table: a mapping's slot
 * is the first free one from the hash of its address on (mmv_priv.h,
 * mmv__slot_find). Lookups read the table without a lock: a slot
 * publishes its mapping before its address (release) and readers load the
 * address first (acquire). A removed slot keeps MMV__SLOT_GONE, so that a
 * probe for another address goes on past it. Adding and removing, which
 * happen at start and stop only, take a mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "mmv_priv.h"

struct mmv__map_slot mmv__slots[MMV__MAX_MAPPINGS];
/* serialises adds and removes; lookups take no lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* A fork while another thread adds or removes: the child's lock is free. */
static void fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void fork_after(void)
{
	pthread_mutex_unlock(&lock);
}

static void init_once(void)
{
	(void)pthread_atfork(fork_prepare, fork_after, fork_after);
}

int mmv__mapping_add(struct mmv_mapping *map)
{
	unsigned h = mmv__slot_hash(map->addr);
	int err = ENFILE;

	(void)pthread_once(&once, init_once);
	pthread_mutex_lock(&lock);
	for (unsigned n = 0; n < MMV__MAX_MAPPINGS; n++) {
		struct mmv__map_slot *s = &mmv__slots[(h + n) % MMV__MAX_MAPPINGS];
		void *a = __atomic_load_n(&s->addr, __ATOMIC_RELAXED);

		if (a != NULL && a != MMV__SLOT_GONE)
			continue;
		__atomic_store_n(&s->map, map, __ATOMIC_RELAXED);
		__atomic_store_n(&s->types, map->types, __ATOMIC_RELAXED);
		__atomic_store_n(&s->lo, map->off_values, __ATOMIC_RELAXED);
		__atomic_store_n(&s->hi, map->off_values +
				 map->nvalues * sizeof(mmv_disk_value_t), __ATOMIC_RELAXED);
		__atomic_store_n(&s->addr, map->addr, __ATOMIC_RELEASE);
		err = 0;
		break;
	}
	pthread_mutex_unlock(&lock);
	return err;
}

struct mmv_mapping *mmv__mapping_find(const void *addr)
{
	const struct mmv__map_slot *s = mmv__slot_find(addr);

	return s ? __atomic_load_n(&s->map, __ATOMIC_RELAXED) : NULL;
}

struct mmv_mapping *mmv__mapping_remove(const void *addr)
{
	struct mmv__map_slot *s;
	struct mmv_mapping *map = NULL;

	pthread_mutex_lock(&lock);
	s = (struct mmv__map_slot *)mmv__slot_find(addr);
	if (s != NULL) {
		map = s->map;
		__atomic_store_n(&s->addr, MMV__SLOT_GONE, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return map;
}
