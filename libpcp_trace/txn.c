/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Per-tag transaction state. A tag is either in progress (its start time
 * in its one atomic word) or idle (0); entries are never removed, as in
 * PCP's library (a child of fork() starts with none). The table is a
 * glibc binary tree under one mutex, taken only to find or add a tag;
 * each thread keeps a small cache (tag pointer -> entry, confirmed by
 * comparing the string), so a repeated begin or end is a compare, a
 * clock read and one atomic operation. With the shared segment in use the
 * segment's per-thread cache also holds the entry (trace__txn_end hands it
 * to the report), so a begin+end there skips this cache (shm.c). Times come from
 * CLOCK_MONOTONIC so clock steps cannot produce wrong or negative durations.
 */
#include <errno.h>
#include <pthread.h>
#include <search.h>
#include <stdlib.h>
#include <string.h>
#include "trace_priv.h"

#define TXN_CACHE	16

struct txn_thread {
	uint32_t gen;
	struct {
		const char *ptr;
		struct trace_txn *t;
	} cache[TXN_CACHE];
};

/* txn_root (the table of tags), txn_gen's changes and thread-cache fills */
static pthread_mutex_t txn_lock = PTHREAD_MUTEX_INITIALIZER;
static void *txn_root;
static uint32_t txn_gen = 1;	/* atomic: changes when the table is emptied (fork) */
static pthread_key_t txn_key;
static int txn_key_ok;
static __thread struct txn_thread *txn_self __attribute__((tls_model("initial-exec")));

static int txn_cmp(const void *a, const void *b)
{
	return strcmp(((const struct trace_txn *)a)->tag, ((const struct trace_txn *)b)->tag);
}

static void thread_free(void *p)
{
	txn_self = NULL;
	free(p);
}

/* lock held: the entry of @tag, made if @add; NULL: none (or no memory) */
static struct trace_txn *txn_find(const char *tag, int add)
{
	struct trace_txn probe = { .tag = (char *)tag };
	struct trace_txn **found = tfind(&probe, &txn_root, txn_cmp);
	struct trace_txn *t;

	if (found != NULL)
		return *found;
	if (!add || (t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->tag = strdup(tag);
	if (t->tag == NULL || tsearch(t, &txn_root, txn_cmp) == NULL) {
		free(t->tag);
		free(t);
		return NULL;
	}
	return t;
}

static inline unsigned slot_of(const char *tag)
{
	return (unsigned)((uintptr_t)tag >> 3) % TXN_CACHE;
}

/* The cached entry of @tag, if this thread has one and the string is the same. */
static inline struct trace_txn *txn_cached(const char *tag)
{
	struct txn_thread *me = txn_self;
	struct trace_txn *t;

	if (me == NULL || me->gen != __atomic_load_n(&txn_gen, __ATOMIC_ACQUIRE))
		return NULL;
	t = me->cache[slot_of(tag)].t;
	if (t == NULL || me->cache[slot_of(tag)].ptr != tag)
		return NULL;
	for (const char *a = t->tag, *b = tag; *a == *b; a++, b++)
		if (*a == '\0')
			return t;
	return NULL;
}

/* Look @tag up (making it if @add) and remember it in this thread's cache. */
static struct trace_txn *txn_lookup(const char *tag, int add)
{
	struct txn_thread *me;
	struct trace_txn *t = txn_cached(tag);

	if (t != NULL)
		return t;
	pthread_mutex_lock(&txn_lock);
	t = txn_find(tag, add);
	me = txn_self;
	if (me == NULL && (me = calloc(1, sizeof(*me))) != NULL) {
		if (!txn_key_ok)
			txn_key_ok = pthread_key_create(&txn_key, thread_free) == 0;
		if (txn_key_ok)
			pthread_setspecific(txn_key, me);
		txn_self = me;
	}
	if (me != NULL && t != NULL) {
		if (me->gen != txn_gen) {
			memset(me->cache, 0, sizeof(me->cache));
			me->gen = txn_gen;
		}
		me->cache[slot_of(tag)].ptr = tag;
		me->cache[slot_of(tag)].t = t;
	}
	pthread_mutex_unlock(&txn_lock);
	return t;
}

int trace__txn_begin(const char *tag)
{
	struct trace_txn *t = txn_lookup(tag, 1);

	return t == NULL ? -ENOMEM : trace_txn_start(t, trace_now_ns());
}

static int txn_stop(struct trace_txn *t, uint64_t now, double *elapsed)
{
	return t == NULL ? PMTRACE_ERR_NOSUCHTAG : trace_txn_stop(t, now, elapsed);
}

/* @tag's transaction ended: its seconds, and its entry for the segment's cache. */
int trace__txn_end(const char *tag, double *elapsed, struct trace_txn **t)
{
	uint64_t now = trace_now_ns();

	*t = txn_lookup(tag, 0);
	return txn_stop(*t, now, elapsed);
}

int trace__txn_abort(const char *tag)
{
	return txn_stop(txn_lookup(tag, 0), 0, NULL);
}

static void txn_free(void *p)
{
	struct trace_txn *t = p;

	free(t->tag);
	free(t);
}

/* A forked child starts with no transactions, as with PCP's pid key. */
void trace__txn_atfork_child(void)
{
	pthread_mutex_init(&txn_lock, NULL);
	tdestroy(txn_root, txn_free);
	txn_root = NULL;
	__atomic_add_fetch(&txn_gen, 1, __ATOMIC_RELEASE);
}
