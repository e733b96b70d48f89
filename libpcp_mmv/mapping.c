/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The files this process has mapped, keyed by their base address (the
 * "addr" handle of the API). Lookups read the table without a lock: a slot
 * publishes its mapping before its address (release) and readers load the
 * address first (acquire). Adding and removing, which happen at start and
 * stop only, take a mutex.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>

#include "mmv_priv.h"

#define MMV_MAX_MAPPINGS 256

struct map_slot {
	void *addr;
	struct mmv_mapping *map;
};

static struct map_slot slots[MMV_MAX_MAPPINGS];
static unsigned used;	/* slots ever used: bounds the scan */
/* serialises adds and removes of slots and used; lookups take no lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int mmv__mapping_add(struct mmv_mapping *map)
{
	int err = ENFILE;

	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < MMV_MAX_MAPPINGS; i++) {
		if (__atomic_load_n(&slots[i].addr, __ATOMIC_RELAXED) != NULL)
			continue;
		__atomic_store_n(&slots[i].map, map, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].addr, map->addr, __ATOMIC_RELEASE);
		if (i + 1 > __atomic_load_n(&used, __ATOMIC_RELAXED))
			__atomic_store_n(&used, i + 1, __ATOMIC_RELEASE);
		err = 0;
		break;
	}
	pthread_mutex_unlock(&lock);
	return err;
}

struct mmv_mapping *mmv__mapping_find(const void *addr)
{
	unsigned n = __atomic_load_n(&used, __ATOMIC_ACQUIRE);

	if (addr == NULL)
		return NULL;	/* empty slots hold NULL */
	for (unsigned i = 0; i < n; i++)
		if (__atomic_load_n(&slots[i].addr, __ATOMIC_ACQUIRE) == addr)
			return __atomic_load_n(&slots[i].map, __ATOMIC_RELAXED);
	return NULL;
}

struct mmv_mapping *mmv__mapping_remove(const void *addr)
{
	struct mmv_mapping *map = NULL;

	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < MMV_MAX_MAPPINGS && map == NULL; i++) {
		if (__atomic_load_n(&slots[i].addr, __ATOMIC_RELAXED) != addr)
			continue;
		map = slots[i].map;
		__atomic_store_n(&slots[i].addr, NULL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return map;
}
