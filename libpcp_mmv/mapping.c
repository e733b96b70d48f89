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

struct mmv__map_slot mmv__slots[MMV__MAX_MAPPINGS];
/* slots ever used: bounds the scan */
struct mmv__slots_count mmv__slots_used;
/* serialises adds and removes of slots and used; lookups take no lock */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int mmv__mapping_add(struct mmv_mapping *map)
{
	int err = ENFILE;

	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < MMV__MAX_MAPPINGS; i++) {
		if (__atomic_load_n(&mmv__slots[i].addr, __ATOMIC_RELAXED) != NULL)
			continue;
		__atomic_store_n(&mmv__slots[i].map, map, __ATOMIC_RELAXED);
		__atomic_store_n(&mmv__slots[i].types, map->types, __ATOMIC_RELAXED);
		__atomic_store_n(&mmv__slots[i].lo, map->off_values, __ATOMIC_RELAXED);
		__atomic_store_n(&mmv__slots[i].hi, map->off_values +
				 map->nvalues * sizeof(mmv_disk_value_t), __ATOMIC_RELAXED);
		__atomic_store_n(&mmv__slots[i].addr, map->addr, __ATOMIC_RELEASE);
		if (i + 1 > __atomic_load_n(&mmv__slots_used.n, __ATOMIC_RELAXED))
			__atomic_store_n(&mmv__slots_used.n, i + 1, __ATOMIC_RELEASE);
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
	struct mmv_mapping *map = NULL;

	pthread_mutex_lock(&lock);
	for (unsigned i = 0; i < MMV__MAX_MAPPINGS && map == NULL; i++) {
		if (__atomic_load_n(&mmv__slots[i].addr, __ATOMIC_RELAXED) != addr)
			continue;
		map = mmv__slots[i].map;
		__atomic_store_n(&mmv__slots[i].addr, NULL, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&lock);
	return map;
}
