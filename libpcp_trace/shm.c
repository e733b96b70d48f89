/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The client's shared aggregate segment (docs/trace-protocol.md §10): a
 * sealed memfd laid out by common/trace_shm.h, in which each thread
 * accumulates per tag, in a row of its own, the numbers our agent would
 * have computed from its PDUs; the agent samples and merges them.
 *
 * Hot path (trace__shm_fast, trace__shm_handle*, trace__shm_txn_*): the
 * thread's cache maps (tag pointer, type) to its slot, confirmed by
 * comparing the string inline (not for a handle's own copy); then the
 * thread updates its own slot (one cache line, one writer) under the
 * slot's sequence counter. No lock, no system call; a transaction's entry
 * is cached beside its slot, so a begin or an end is one compare, one
 * clock read and one locked atomic on the tag's word. A miss there does
 * nothing and returns TRACE_SHM_PDU: the caller takes its slow path.
 *
 * Cold path (trace__shm_record, the slow path's one lookup), under
 * shm.lock: a tag's first report in this segment takes the next tag
 * entry; a thread's first report takes a free row, given back by its key
 * destructor when the thread exits. A row keeps its cumulative numbers
 * when it passes to another thread, so the agent's totals never go
 * backwards and nothing is folded. Full tag table or no free row: the
 * caller falls back to the PDU path.
 *
 * A segment is installed (trace__shm_install) once the agent took it, and
 * dropped (trace__shm_drop) when the agent goes away or after fork(): the
 * generation then changes, so every thread's cache and row are stale.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "trace_priv.h"
#include "trace_shm.h"

#define CACHE_SIZE	64	/* per-thread (tag pointer, type) entries */
#define NAME_BUCKETS	(2 * TRACE_SHM_TAGS)

/* One installed segment and the process's index of its tags. */
struct shm_state {
	struct trace_shm_seg seg;
	uint32_t gen;
	uint32_t ntags;
	char *names[TRACE_SHM_TAGS];	/* private copies: the agent can write the segment */
	uint8_t types[TRACE_SHM_TAGS];
	int32_t bucket[NAME_BUCKETS];	/* tag index + 1, 0: empty */
	uint8_t row_used[TRACE_SHM_ROWS];
	struct shm_state *retired;	/* older states, kept for late readers */
};

struct cache_ent {
	const char *ptr;	/* the caller's tag pointer */
	const char *name;	/* its private copy, to confirm the string */
	int type;
	uint32_t gen;
	uint32_t taglen;	/* NUL counted */
	uint32_t hid;		/* the tag handle's id (handle.c), 0: a tag by name */
	struct trace_shm_slot *slot;
	uint32_t *hist;
	int32_t *status;
	struct trace_txn *txn;	/* a transaction's entry in txn.c, else NULL */
};

struct shm_thread {
	uint32_t gen;		/* of the row and the cache */
	int row;		/* -1: none */
	struct cache_ent cache[CACHE_SIZE];
};

static struct {
	pthread_mutex_t lock;	/* everything but the hot path's reads */
	struct shm_state *cur;	/* atomic; NULL: no segment */
	struct shm_state *retired;
	uint32_t gen;		/* atomic: changes at install, drop, fork */
	pthread_key_t key;
	int key_ok;
} shm = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.gen = 1,
};

/* The thread's state, allocated on its first report; freed at its exit. */
static __thread struct shm_thread *self __attribute__((tls_model("initial-exec")));

int trace__shm_seg_create(struct trace_shm_seg *seg, uint32_t tags, uint32_t rows)
{
	size_t size = trace_shm_size(tags, rows);
	struct trace_shm_hdr *h;
	int fd, err;

	if (size == 0)
		return -EINVAL;
	fd = memfd_create("pcp-trace", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (h == MAP_FAILED)
		goto fail;
	memcpy(h->magic, TRACE_SHM_MAGIC, sizeof(h->magic));
	h->version = TRACE_SHM_VERSION;
	h->hdr_size = TRACE_SHM_HDR_SIZE;
	h->size = size;
	h->tags = tags;
	h->rows = rows;
	h->pid = (int32_t)getpid();
	seg->fd = fd;
	seg->base = h;
	seg->size = size;
	seg->tags = tags;
	seg->rows = rows;
	return 0;
fail:
	err = -errno;
	close(fd);
	return err;
}

void trace__shm_seg_destroy(struct trace_shm_seg *seg)
{
	if (seg->base != NULL)
		munmap(seg->base, seg->size);
	if (seg->fd >= 0)
		close(seg->fd);
	seg->base = NULL;
	seg->fd = -1;
}

static void state_free(struct shm_state *st)
{
	for (uint32_t i = 0; i < st->ntags; i++)
		free(st->names[i]);
	trace__shm_seg_destroy(&st->seg);
	free(st);
}

/* A thread exits: its row passes, numbers and all, to the next thread. */
static void row_release(void *v)
{
	struct shm_thread *me = v;
	struct shm_state *st;

	pthread_mutex_lock(&shm.lock);
	st = shm.cur;
	if (st != NULL && st->gen == me->gen && me->row >= 0 && me->row < (int)TRACE_SHM_ROWS)
		st->row_used[me->row] = 0;
	pthread_mutex_unlock(&shm.lock);
	self = NULL;
	free(me);
}

/* lock held: retire the current state; @child: free it (nobody else runs) */
static void retire(int child)
{
	struct shm_state *st = shm.cur;

	__atomic_store_n(&shm.cur, NULL, __ATOMIC_RELEASE);
	__atomic_store_n(&shm.gen, shm.gen + 1, __ATOMIC_RELAXED);	/* read unlocked */
	if (st == NULL)
		return;
	if (child) {
		state_free(st);
		return;
	}
	/*
	 * Another thread may still be between its load of cur and its last
	 * store: the mapping and names stay until exit (the descriptor goes).
	 */
	if (st->seg.fd >= 0)
		close(st->seg.fd);
	st->seg.fd = -1;
	st->retired = shm.retired;
	shm.retired = st;
}

int trace__shm_install(const struct trace_shm_seg *seg)
{
	struct shm_state *st = calloc(1, sizeof(*st));

	if (st == NULL)
		return -ENOMEM;
	pthread_mutex_lock(&shm.lock);
	if (!shm.key_ok)
		shm.key_ok = pthread_key_create(&shm.key, row_release) == 0;
	retire(0);
	st->seg = *seg;
	st->gen = shm.gen;
	__atomic_store_n(&shm.cur, st, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&shm.lock);
	return 0;
}

/*
 * Stop using the segment: the agent went away, or this is a child of
 * fork() (@child: the parent keeps writing its segment, so the child
 * only unmaps its copy). The numbers stay in the segment for its holder.
 */
void trace__shm_drop(int child)
{
	struct shm_state *old;

	if (child) {
		pthread_mutex_init(&shm.lock, NULL);
		while ((old = shm.retired) != NULL) {
			shm.retired = old->retired;
			state_free(old);
		}
	}
	pthread_mutex_lock(&shm.lock);
	retire(child);
	pthread_mutex_unlock(&shm.lock);
}

int trace__shm_on(void)
{
	return __atomic_load_n(&shm.cur, __ATOMIC_ACQUIRE) != NULL;
}

/* Rows ever taken in the current segment (for tests), 0 without one. */
uint32_t trace__shm_nrows(void)
{
	struct shm_state *st;
	uint32_t n = 0;

	pthread_mutex_lock(&shm.lock);
	st = shm.cur;
	if (st != NULL)
		n = ((struct trace_shm_hdr *)st->seg.base)->nrows;
	pthread_mutex_unlock(&shm.lock);
	return n;
}

static uint32_t name_hash(int type, const char *tag)
{
	uint32_t h = 2166136261u ^ (uint32_t)type;

	for (; *tag; tag++)
		h = (h ^ (unsigned char)*tag) * 16777619u;
	return h;
}

/* lock held: the tag's index in the segment, made if new; -1: table full */
static int tag_index(struct shm_state *st, int type, const char *tag, size_t taglen)
{
	struct trace_shm_tag *e;
	uint32_t b = name_hash(type, tag) % NAME_BUCKETS;
	uint32_t i;
	char *copy;

	for (;; b = (b + 1) % NAME_BUCKETS) {
		int32_t v = st->bucket[b];

		if (v == 0)
			break;
		if (st->types[v - 1] == type && strcmp(st->names[v - 1], tag) == 0)
			return v - 1;
	}
	if (st->ntags >= st->seg.tags || st->ntags >= TRACE_SHM_TAGS ||
	    (copy = strdup(tag)) == NULL)
		return -1;
	i = st->ntags;
	e = trace_shm_tag_at(st->seg.base, i);
	e->type = (uint8_t)type;
	e->len = (uint8_t)(taglen - 1);
	memcpy(e->name, tag, taglen);
	st->types[i] = (uint8_t)type;
	st->bucket[b] = (int32_t)i + 1;
	/* the name is complete before a reader on another thread can see i */
	__atomic_store_n(&st->names[i], copy, __ATOMIC_RELEASE);
	st->ntags = i + 1;
	__atomic_store_n(&((struct trace_shm_hdr *)st->seg.base)->ntags, st->ntags,
			 __ATOMIC_RELEASE);
	return (int)i;
}

/* lock held: a free row for the calling thread, or -1 */
static int row_take(struct shm_state *st)
{
	struct trace_shm_hdr *h = st->seg.base;

	for (uint32_t r = 0; r < st->seg.rows && r < TRACE_SHM_ROWS; r++) {
		if (st->row_used[r])
			continue;
		st->row_used[r] = 1;
		if (r + 1 > h->nrows)
			__atomic_store_n(&h->nrows, r + 1, __ATOMIC_RELEASE);
		return (int)r;
	}
	return -1;
}

/* The calling thread's state, made on its first report; NULL: no memory. */
static struct shm_thread *thread_state(void)
{
	struct shm_thread *me = self;

	if (me != NULL)
		return me;
	if ((me = calloc(1, sizeof(*me))) == NULL)
		return NULL;
	me->row = -1;
	if (shm.key_ok)
		pthread_setspecific(shm.key, me);
	self = me;
	return me;
}

/*
 * Fill the calling thread's cache entry for (tag, type), with @txn (a
 * transaction's entry in txn.c) beside the slot: the slow path.
 */
static int slow_lookup(struct shm_state *st, int type, const char *tag, size_t taglen,
		uint32_t hid, struct trace_txn *txn, struct cache_ent **cep)
{
	struct shm_thread *me;
	struct cache_ent *ce;
	int idx, rc = -1;

	pthread_mutex_lock(&shm.lock);
	if (shm.cur != st || (me = thread_state()) == NULL)
		goto out;	/* dropped meanwhile, or no memory */
	if (me->gen != st->gen) {
		memset(me->cache, 0, sizeof(me->cache));
		me->gen = st->gen;
		me->row = row_take(st);
	}
	if (me->row < 0 || (idx = tag_index(st, type, tag, taglen)) < 0)
		goto out;
	ce = &me->cache[((uintptr_t)tag >> 3 ^ (uintptr_t)type) % CACHE_SIZE];
	ce->ptr = tag;
	ce->name = st->names[idx];
	ce->type = type;
	ce->taglen = (uint32_t)taglen;
	ce->hid = hid;
	ce->slot = trace_shm_slot_at(st->seg.base, st->seg.tags, (uint32_t)me->row, (uint32_t)idx);
	ce->hist = trace_shm_has_hist(type) ? trace_shm_hist_at(st->seg.base, st->seg.tags,
			st->seg.rows, (uint32_t)me->row, (uint32_t)idx) : NULL;
	ce->status = &trace_shm_tag_at(st->seg.base, (uint32_t)idx)->status;
	ce->txn = txn;	/* txn.c's entries live until fork, which empties this cache */
	ce->gen = st->gen;
	*cep = ce;
	rc = 0;
out:
	pthread_mutex_unlock(&shm.lock);
	return rc;
}

static inline double load_d(const double *p)
{
	double v;

	__atomic_load(p, &v, __ATOMIC_RELAXED);
	return v;
}

static inline void store_d(double *p, double v)
{
	__atomic_store(p, &v, __ATOMIC_RELAXED);
}

/* The one writer of @s: cumulative numbers under the sequence counter. */
__attribute__((always_inline)) static inline void slot_record(struct trace_shm_slot *s, uint32_t *hist,
		uint32_t epoch, int type, double v)
{
	uint32_t stamp = epoch + 1;	/* 0 is a slot's first state */
	uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);

	__atomic_store_n(&s->seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&s->count, __atomic_load_n(&s->count, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
	if (type != TRACE_TYPE_POINT) {
		store_d(&s->sum, load_d(&s->sum) + v);
		store_d(&s->last, v);
		if (__atomic_load_n(&s->epoch, __ATOMIC_RELAXED) != stamp) {
			store_d(&s->min, v);
			store_d(&s->max, v);
			__atomic_store_n(&s->epoch, stamp, __ATOMIC_RELAXED);
		} else {
			if (v < load_d(&s->min))
				store_d(&s->min, v);
			if (v > load_d(&s->max))
				store_d(&s->max, v);
		}
		if (hist != NULL) {
			uint32_t *b = hist + trace_hist_index(v);

			__atomic_store_n(b, __atomic_load_n(b, __ATOMIC_RELAXED) + 1,
					 __ATOMIC_RELAXED);
		}
	}
	__atomic_store_n(&s->seq, seq + 2, __ATOMIC_RELEASE);
}

/*
 * The calling thread's cache entry for (@tag, @type) if it was made for
 * @gen and that pointer, else NULL. An entry of the current generation
 * also means the thread's row is (slow_lookup sets both), so me->gen
 * needs no check of its own.
 */
static inline struct cache_ent *cached_ptr(uint32_t gen, int type, const char *tag)
{
	struct shm_thread *me = self;
	struct cache_ent *ce;

	if (me == NULL)
		return NULL;
	ce = &me->cache[((uintptr_t)tag >> 3 ^ (uintptr_t)type) % CACHE_SIZE];
	return ce->gen == gen && ce->ptr == tag && ce->type == type ? ce : NULL;
}

/*
 * The calling thread's cache entry for (@tag, @type) if it is there and
 * @tag is the same string as when it was made, else NULL. The compare is
 * also the tag's check: a string equal to a tag the slow path took is valid.
 */
static inline struct cache_ent *cached(struct shm_state *st, int type, const char *tag)
{
	struct cache_ent *ce = cached_ptr(st->gen, type, tag);

	if (ce == NULL)
		return NULL;
	for (const char *a = ce->name, *b = tag; *a == *b; a++, b++)
		if (*a == '\0')
			return ce;
	return NULL;
}

__attribute__((always_inline)) static inline int record_at(struct shm_state *st, struct cache_ent *ce, double value)
{
	slot_record(ce->slot, ce->hist,
		    __atomic_load_n(&((struct trace_shm_hdr *)st->seg.base)->epoch, __ATOMIC_RELAXED),
		    ce->type, value);
	return __atomic_load_n(ce->status, __ATOMIC_RELAXED);
}

int trace__shm_fast(int type, const char *tag, double value, size_t *taglen)
{
	struct shm_state *st = __atomic_load_n(&shm.cur, __ATOMIC_ACQUIRE);
	struct cache_ent *ce;

	if (st == NULL || (ce = cached(st, type, tag)) == NULL)
		return TRACE_SHM_PDU;
	*taglen = ce->taglen;
	return record_at(st, ce, value);
}

/*
 * A report the thread's cache did not take, or that was not offered to
 * it (PMTRACE_STATE_API): the tag (@hid: a handle's id, 0: by name) found
 * or made in the segment's tables, the thread's cache filled (with @txn,
 * a transaction's entry in txn.c), the report recorded. The tag's status,
 * or TRACE_SHM_PDU: no segment, or no room in it.
 */
int trace__shm_record(int type, const char *tag, size_t taglen, uint32_t hid,
		struct trace_txn *txn, double value)
{
	struct shm_state *st = __atomic_load_n(&shm.cur, __ATOMIC_ACQUIRE);
	struct cache_ent *ce;

	if (st == NULL || slow_lookup(st, type, tag, taglen, hid, txn, &ce) < 0)
		return TRACE_SHM_PDU;
	return record_at(st, ce, value);
}

/*
 * pmtracebegin of a tag whose transaction this thread reported through
 * the current segment: 0, PMTRACE_ERR_INPROGRESS, or TRACE_SHM_PDU (not
 * cached: take the full path). The CAS is txn.c's (trace_txn_start).
 */
int trace__shm_txn_begin(const char *tag)
{
	struct shm_state *st = __atomic_load_n(&shm.cur, __ATOMIC_ACQUIRE);
	struct cache_ent *ce;

	if (st == NULL || (ce = cached(st, TRACE_TYPE_TRANSACT, tag)) == NULL || ce->txn == NULL)
		return TRACE_SHM_PDU;
	return trace_txn_start(ce->txn, trace_now_ns());
}

/*
 * pmtraceend of such a tag under trace state @state: the transaction
 * stopped (another thread may have begun it) and its time recorded, with
 * one lookup; what pmtraceend returns, or TRACE_SHM_PDU (not cached,
 * nothing done: take the full path).
 */
int trace__shm_txn_end(int state, const char *tag)
{
	uint64_t now = trace_now_ns();
	struct shm_state *st = __atomic_load_n(&shm.cur, __ATOMIC_ACQUIRE);
	struct cache_ent *ce;
	double elapsed;
	int rc;

	if (st == NULL || (ce = cached(st, TRACE_TYPE_TRANSACT, tag)) == NULL || ce->txn == NULL)
		return TRACE_SHM_PDU;
	rc = trace_txn_stop(ce->txn, now, &elapsed);
	if (rc < 0)
		return rc;
	return trace_shm_result(state, record_at(st, ce, elapsed), ce->taglen);
}

/*
 * A report through a tag handle (handle.c): @tag is the handle's own copy,
 * which never changes while the handle lives, so the thread's cache entry
 * for its pointer needs no string compare, only the handle's id @hid (a
 * later handle may get a freed one's address). TRACE_SHM_PDU: not cached.
 */
int trace__shm_handle(int type, const char *tag, uint32_t hid, double value)
{
	struct shm_state *st = __atomic_load_n(&shm.cur, __ATOMIC_ACQUIRE);
	struct cache_ent *ce;

	if (st == NULL || (ce = cached_ptr(st->gen, type, tag)) == NULL || ce->hid != hid)
		return TRACE_SHM_PDU;
	return record_at(st, ce, value);
}

/*
 * trace__shm_handle of a point: the entry checked against shm.gen, which
 * equals the current state's gen while it is installed (retire changes
 * it), so no state is loaded; a point has no epoch.
 */
int trace__shm_handle_point(const char *tag, uint32_t hid)
{
	struct cache_ent *ce = cached_ptr(__atomic_load_n(&shm.gen, __ATOMIC_RELAXED),
					  TRACE_TYPE_POINT, tag);

	if (ce == NULL || ce->hid != hid)
		return TRACE_SHM_PDU;
	slot_record(ce->slot, NULL, 0, TRACE_TYPE_POINT, -1.0);
	return __atomic_load_n(ce->status, __ATOMIC_RELAXED);
}
