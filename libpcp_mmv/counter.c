/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Contention-free counters (<pcp/mmv_counter.h>): per-thread slots folded
 * into the file's values by one thread of the library.
 *
 * Each counter has a small id. Each thread that updates a counter owns a
 * struct mmv__tslots: v[id] is the thread's running sum for counter id,
 * written only by the owner (a relaxed load and store: no other thread
 * writes the line, so no read-modify-write is needed); mark[id] is how
 * much of v[id] has been added to the file, written only under lock.
 * A fold adds v[id] - mark[id] of every thread to counter id's value
 * (one atomic add a counter) and moves mark[id] up. The owner's store
 * and the folder's load race only in time: an update the folder misses
 * is in the next fold's difference.
 *
 * Threads: lock serialises the thread list, the id table, every mark[],
 * the growth of a thread's arrays (by their owner) and the folder's
 * state. The fast path takes no lock: it reads only its own thread's
 * arrays and the counter's id, which no one writes after open.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcp/mmv_counter.h>
#include "mmv_priv.h"

#define SLOT_LINE	64
#define INTERVAL_MAX	60000u

struct mmv_counter {
	uint32_t id;
	uint32_t width;			/* 4 or 8 bytes */
	pmAtomValue *av;		/* NULL once its file stopped (lock) */
	void *addr;
} __attribute__((aligned(SLOT_LINE)));	/* alone on its line */

struct mmv__tslots {
	uint64_t *v;			/* owner stores, folder loads */
	uint64_t *mark;			/* lock */
	uint32_t n;			/* slots in v and mark (owner, lock) */
	struct mmv__tslots *next, **pprev;	/* lock */
} __attribute__((aligned(SLOT_LINE)));	/* off other threads' lines */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
static int key_ok;

/* under lock */
static struct mmv_counter **counters;	/* by id; NULL: free */
static uint64_t *acc;			/* a fold's sum for each id */
static uint32_t ncap;			/* entries in counters and acc */
static struct mmv__tslots *threads;
static int folder_running;
static unsigned int interval_ms = 10;

static uint64_t fallbacks;		/* atomic */
static int ever_opened;			/* atomic: any counter ever opened */

/*
 * The calling thread's slots (NULL: take the slow path). Initial-exec:
 * one load from the thread pointer, no call; glibc keeps room in the
 * static TLS block for a few such words of libraries loaded by dlopen.
 */
static __thread struct mmv__tslots *mine __attribute__((tls_model("initial-exec")));

static void tslots_free(struct mmv__tslots *t)
{
	free(t->v);
	free(t->mark);
	free(t);
}

static void unlink_thread(struct mmv__tslots *t)
{
	*t->pprev = t->next;
	if (t->next)
		t->next->pprev = t->pprev;
}

/* Add thread @t's changes since the last fold to acc[] (lock held). */
static void fold_thread(struct mmv__tslots *t)
{
	uint32_t n = t->n < ncap ? t->n : ncap;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t cur = __atomic_load_n(&t->v[i], __ATOMIC_RELAXED);

		if (cur != t->mark[i]) {
			acc[i] += cur - t->mark[i];
			t->mark[i] = cur;
		}
	}
}

/* Add acc[] to the files' values and clear it (lock held). */
static void fold_apply(void)
{
	for (uint32_t i = 0; i < ncap; i++) {
		struct mmv_counter *c = counters[i];
		uint64_t d = acc[i];

		if (d == 0)
			continue;
		acc[i] = 0;
		if (c == NULL || c->av == NULL)
			continue;	/* closed or detached: folded before */
		if (c->width == 4)
			__atomic_fetch_add(&c->av->ul, (uint32_t)d, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&c->av->ull, d, __ATOMIC_RELAXED);
	}
}

static void fold_all(void)
{
	for (struct mmv__tslots *t = threads; t != NULL; t = t->next)
		fold_thread(t);
	fold_apply();
}

/* A thread's exit: its slots go into the files, then away. */
static void thread_gone(void *p)
{
	struct mmv__tslots *t = p;

	pthread_mutex_lock(&lock);
	fold_thread(t);
	fold_apply();
	unlink_thread(t);
	pthread_mutex_unlock(&lock);
	if (mine == t)
		mine = NULL;
	tslots_free(t);
}

static void *folder_main(void *arg)
{
	struct timespec ts;

	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += interval_ms / 1000;
		ts.tv_nsec += (long)(interval_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		/* a wake-up early (a new interval) only folds early */
		(void)pthread_cond_timedwait(&wake, &lock, &ts);
		fold_all();
	}
	return NULL;
}

/* The folding thread, unless this process has it (lock held). 0 or -1. */
static int folder_start(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t tid;
	int err;

	if (folder_running)
		return 0;
	if (pthread_attr_init(&attr) != 0)
		return -1;
	(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	(void)pthread_attr_setstacksize(&attr, 64 * 1024);
	/* the application's signals are not delivered to it */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&tid, &attr, folder_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (err != 0)
		return -1;
	folder_running = 1;
	return 0;
}

/* The folder's wake-up, timed on the monotonic clock. */
static void wake_init(void)
{
	pthread_condattr_t ca;

	if (pthread_condattr_init(&ca) == 0) {
		if (pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0)
			pthread_cond_init(&wake, &ca);
		pthread_condattr_destroy(&ca);
	}
}

static void at_fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void at_fork_parent(void)
{
	pthread_mutex_unlock(&lock);
}

/*
 * The child: the other threads and the folder are gone. Their slots'
 * unfolded changes belong to the parent, which folds them into the file
 * both share; so do this thread's. Keep this thread's slots from zero
 * and start a folder at its next update. The parent's folder may have
 * been waiting on wake: the child's copy would count that waiter for
 * ever, and a signal (mmv_counter_set_interval) would wait for it to
 * wake, holding lock; the child takes a fresh one.
 */
static void at_fork_child(void)
{
	struct mmv__tslots *self = key_ok ? pthread_getspecific(key) : NULL;
	struct mmv__tslots *t, *next;

	for (t = threads; t != NULL; t = next) {
		next = t->next;
		if (t == self) {
			for (uint32_t i = 0; i < t->n; i++)
				t->mark[i] = t->v[i];
			continue;
		}
		unlink_thread(t);
		tslots_free(t);
	}
	memset(acc, 0, ncap * sizeof(*acc));
	wake_init();
	folder_running = 0;
	mine = NULL;
	pthread_mutex_unlock(&lock);
}

/* At exit (or unload), what the threads still running have added. */
__attribute__((destructor)) static void at_exit_fold(void)
{
	if (!__atomic_load_n(&ever_opened, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&lock);
	fold_all();
	pthread_mutex_unlock(&lock);
}

static void init_once(void)
{
	wake_init();
	key_ok = pthread_key_create(&key, thread_gone) == 0;
	(void)pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
}

/* Zeroed, cache-line aligned arrays of @n slots (at least one line). */
static uint64_t *slots_alloc(uint32_t n)
{
	size_t bytes = ((size_t)n * sizeof(uint64_t) + SLOT_LINE - 1) & ~(size_t)(SLOT_LINE - 1);
	uint64_t *p = aligned_alloc(SLOT_LINE, bytes);

	if (p != NULL)
		memset(p, 0, bytes);
	return p;
}

/* The calling thread's slots, covering every id (lock held). */
static struct mmv__tslots *thread_slots(void)
{
	struct mmv__tslots *t;
	uint64_t *v, *mark;

	if (!key_ok)
		return NULL;
	t = pthread_getspecific(key);
	if (t == NULL) {
		if ((t = aligned_alloc(SLOT_LINE, sizeof(*t))) == NULL)
			return NULL;
		memset(t, 0, sizeof(*t));
		if (pthread_setspecific(key, t) != 0) {
			free(t);
			return NULL;
		}
		t->next = threads;
		t->pprev = &threads;
		if (threads)
			threads->pprev = &t->next;
		threads = t;
	}
	if (t->n >= ncap)
		return t;
	v = slots_alloc(ncap);
	mark = slots_alloc(ncap);
	if (v == NULL || mark == NULL) {
		free(v);
		free(mark);
		return t->n ? t : NULL;	/* the old ids still work */
	}
	for (uint32_t i = 0; i < t->n; i++) {
		v[i] = t->v[i];
		mark[i] = t->mark[i];
	}
	free(t->v);
	free(t->mark);
	t->v = v;
	t->mark = mark;
	t->n = ncap;
	return t;
}

/* A slot for counter @c or the shared atomic add, once a thread misses. */
__attribute__((noinline)) static void add_slow(mmv_counter_t *c, uint64_t n)
{
	struct mmv__tslots *t;
	pmAtomValue *av;

	pthread_mutex_lock(&lock);
	t = thread_slots();
	if (t != NULL && c->id < t->n && folder_start() == 0) {
		pthread_mutex_unlock(&lock);
		mine = t;
		__atomic_store_n(&t->v[c->id], t->v[c->id] + n, __ATOMIC_RELAXED);
		return;
	}
	av = c->av;
	if (av != NULL) {
		if (c->width == 4)
			__atomic_fetch_add(&av->ul, (uint32_t)n, __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&av->ull, n, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&lock);
	__atomic_fetch_add(&fallbacks, 1, __ATOMIC_RELAXED);
}

void mmv_counter_add(mmv_counter_t *c, uint64_t n)
{
	struct mmv__tslots *t = mine;

	if (c == NULL)
		return;
	if (__builtin_expect(t != NULL && c->id < t->n, 1)) {
		uint64_t *s = &t->v[c->id];

		__atomic_store_n(s, __atomic_load_n(s, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
		return;
	}
	add_slow(c, n);
}

void mmv_counter_inc(mmv_counter_t *c)
{
	mmv_counter_add(c, 1);
}

/* A free id, the tables grown to hold it (lock held). -1: no memory. */
static int64_t id_take(void)
{
	struct mmv_counter **nc;
	uint64_t *na;
	uint32_t cap;

	for (uint32_t i = 0; i < ncap; i++)
		if (counters[i] == NULL)
			return i;
	cap = ncap ? ncap * 2 : 8;
	if ((nc = realloc(counters, cap * sizeof(*nc))) == NULL)
		return -1;
	counters = nc;
	if ((na = realloc(acc, cap * sizeof(*na))) == NULL)
		return -1;
	acc = na;
	memset(counters + ncap, 0, (cap - ncap) * sizeof(*nc));
	memset(acc + ncap, 0, (cap - ncap) * sizeof(*na));
	cap = ncap;		/* the first new id */
	ncap = cap ? cap * 2 : 8;
	return cap;
}

mmv_counter_t *mmv_counter_open(void *addr, pmAtomValue *value)
{
	struct mmv_counter *c;
	int64_t id;
	int type;

	if (addr == NULL || value == NULL) {
		errno = EINVAL;
		return NULL;
	}
	type = mmv__record_type(addr, value);
	if (type != MMV_TYPE_U32 && type != MMV_TYPE_I32 &&
	    type != MMV_TYPE_U64 && type != MMV_TYPE_I64) {
		errno = EINVAL;
		return NULL;
	}
	if (pthread_once(&once, init_once) != 0 || !key_ok) {
		errno = EAGAIN;
		return NULL;
	}
	if ((c = aligned_alloc(SLOT_LINE, sizeof(*c))) == NULL)
		return NULL;
	c->width = (type == MMV_TYPE_U32 || type == MMV_TYPE_I32) ? 4 : 8;
	c->av = value;
	c->addr = addr;
	pthread_mutex_lock(&lock);
	if ((id = id_take()) < 0) {
		pthread_mutex_unlock(&lock);
		free(c);
		errno = ENOMEM;
		return NULL;
	}
	c->id = (uint32_t)id;
	counters[id] = c;
	/* a folder now, so that a failure shows in fallbacks from the start */
	(void)folder_start();
	pthread_mutex_unlock(&lock);
	__atomic_store_n(&ever_opened, 1, __ATOMIC_RELAXED);
	return c;
}

void mmv_counter_flush(void)
{
	if (!__atomic_load_n(&ever_opened, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&lock);
	fold_all();
	pthread_mutex_unlock(&lock);
}

void mmv_counter_close(mmv_counter_t *c)
{
	if (c == NULL)
		return;
	pthread_mutex_lock(&lock);
	fold_all();
	counters[c->id] = NULL;
	pthread_mutex_unlock(&lock);
	free(c);
}

int mmv_counter_set_interval(unsigned int msec)
{
	if (msec < 1 || msec > INTERVAL_MAX) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&lock);
	interval_ms = msec;
	pthread_cond_signal(&wake);
	pthread_mutex_unlock(&lock);
	return 0;
}

uint64_t mmv_counter_fallbacks(void)
{
	return __atomic_load_n(&fallbacks, __ATOMIC_RELAXED);
}

void mmv__counters_detach(const void *addr)
{
	if (!__atomic_load_n(&ever_opened, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&lock);
	fold_all();
	for (uint32_t i = 0; i < ncap; i++)
		if (counters[i] != NULL && counters[i]->addr == addr)
			counters[i]->av = NULL;
	pthread_mutex_unlock(&lock);
}
