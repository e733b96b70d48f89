/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * arena.c - per-snapshot memory: a chain of chunks freed as a whole, so a
 * snapshot is released in one call and a failed scan leaks nothing.
 *
 * Released chunks (and file copies, mmvr_block_*) are kept for the next
 * scan, which asks for blocks of the same sizes: given back to malloc,
 * the big ones are unmapped and the heap's top is trimmed, and on a
 * virtual machine the page faults of the fresh memory were most of a
 * rescan inside pmcd (300 faults, 6 of its 8 ms, for one of 100 files).
 * At most SPARE_MAX blocks and SPARE_BYTES are kept; one mutex.
 *
 * Block sizes are rounded up to classes an eighth of a power of two
 * apart, so a list that grew by a few entries since the last scan still
 * fits the block of the one before; and a first scan can reserve the
 * memory of the next one (mmvr_arena_reserve), faulted in beforehand,
 * or the first rescans after a start still pay for fresh pages.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "reader_priv.h"

/* Under ASan a kept block stays poisoned: a use after release is caught. */
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#define keep_poison(p, n)	ASAN_POISON_MEMORY_REGION(p, n)
#define keep_unpoison(p, n)	ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define keep_poison(p, n)	((void)(p), (void)(n))
#define keep_unpoison(p, n)	((void)(p), (void)(n))
#endif

#define CHUNK_SIZE	(64 * 1024)
#define ALIGN		16
#define SPARE_MAX	256
#define SPARE_BYTES	((size_t)32 << 20)

struct arena_chunk {
	arena_chunk_t *next;
	size_t used;
	size_t size;
	_Alignas(ALIGN) unsigned char data[];
};

/* A block: what it can hold, then what it holds. */
struct block {
	size_t size;
	_Alignas(ALIGN) unsigned char data[];
};

static struct {
	pthread_mutex_t lock;		/* every field below */
	struct block *kept[SPARE_MAX];
	unsigned int n;
	size_t bytes;
	size_t fresh;			/* blocks taken from malloc so far */
} spares = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* @size rounded up to its class: at most an eighth more. */
static size_t block_class(size_t size)
{
	size_t step;

	if (size < 4096)
		return size;
	step = ((size_t)1 << (63 - __builtin_clzll((unsigned long long)size))) / 8;
	return (size + step - 1) & ~(step - 1);
}

/* A block from malloc holding @size (already a class). */
static struct block *block_new(size_t size)
{
	struct block *b = malloc(sizeof(*b) + size);

	if (b != NULL)
		b->size = size;
	return b;
}

void *mmvr_block_take(size_t size, size_t *got)
{
	struct block *b = NULL;
	unsigned int i, best = SPARE_MAX;

	if (size > SIZE_MAX / 4) {
		errno = ENOMEM;
		return NULL;
	}
	size = block_class(size);
	pthread_mutex_lock(&spares.lock);
	/* the smallest kept block that fits and is not twice the size */
	for (i = 0; i < spares.n; i++) {
		struct block *k = spares.kept[i];

		if (k->size >= size && k->size / 2 <= size &&
		    (best == SPARE_MAX || k->size < spares.kept[best]->size))
			best = i;
	}
	if (best != SPARE_MAX) {
		b = spares.kept[best];
		spares.kept[best] = spares.kept[--spares.n];
		spares.bytes -= b->size;
		keep_unpoison(b->data, b->size);
	} else {
		spares.fresh++;
	}
	pthread_mutex_unlock(&spares.lock);
	if (b == NULL && (b = block_new(size)) == NULL)
		return NULL;
	*got = b->size;
	return b->data;
}

void mmvr_block_give(void *p)
{
	struct block *b;

	if (p == NULL)
		return;
	b = (struct block *)(void *)((unsigned char *)p - offsetof(struct block, data));
	pthread_mutex_lock(&spares.lock);
	if (spares.n < SPARE_MAX && spares.bytes + b->size <= SPARE_BYTES) {
		keep_poison(b->data, b->size);
		spares.kept[spares.n++] = b;
		spares.bytes += b->size;
		b = NULL;
	}
	pthread_mutex_unlock(&spares.lock);
	free(b);
}

/*
 * Keep a block of @size (and its class) with its pages faulted in: for
 * memory a later scan will ask for while this one's is still in use.
 */
void mmvr_block_reserve(size_t size)
{
	struct block *b;

	if (size > SIZE_MAX / 4 || (b = block_new(block_class(size))) == NULL)
		return;
	memset(b->data, 0, b->size);
	mmvr_block_give(b->data);
}

size_t mmvr_block_fresh(void)
{
	size_t n;

	pthread_mutex_lock(&spares.lock);
	n = spares.fresh;
	pthread_mutex_unlock(&spares.lock);
	return n;
}

void mmvr_block_trim(void)
{
	pthread_mutex_lock(&spares.lock);
	while (spares.n > 0) {
		struct block *b = spares.kept[--spares.n];

		keep_unpoison(b->data, b->size);
		free(b);
	}
	spares.bytes = 0;
	pthread_mutex_unlock(&spares.lock);
}

static arena_chunk_t *chunk_new(arena_t *a, size_t size)
{
	size_t got;
	arena_chunk_t *c = mmvr_block_take(sizeof(*c) + size, &got);

	if (c == NULL)
		return NULL;
	c->used = 0;
	c->size = got - sizeof(*c);
	c->next = a->head;
	a->head = c;
	return c;
}

/* @size bytes, not cleared: the caller writes every byte it reads. */
static void *arena_take(arena_t *a, size_t size)
{
	arena_chunk_t *c = a->head;
	size_t need;
	void *p;

	if (size > SIZE_MAX / 2) {
		errno = ENOMEM;
		return NULL;
	}
	need = (size + ALIGN - 1) & ~(size_t)(ALIGN - 1);
	if (need == 0)
		need = ALIGN;
	if (c == NULL || c->size - c->used < need) {
		/* Big requests get their own chunk; small ones share. */
		c = chunk_new(a, need > CHUNK_SIZE / 4 ? need : CHUNK_SIZE);
		if (c == NULL)
			return NULL;
	}
	p = c->data + c->used;
	c->used += need;
	return p;
}

void *mmvr_arena_alloc(arena_t *a, size_t size)
{
	void *p = arena_take(a, size);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

static bool array_bytes(size_t n, size_t size, size_t *bytes)
{
	if (__builtin_mul_overflow(n, size, bytes)) {
		errno = ENOMEM;
		return false;
	}
	return true;
}

void *mmvr_arena_array(arena_t *a, size_t n, size_t size)
{
	size_t bytes;

	return array_bytes(n, size, &bytes) ? mmvr_arena_alloc(a, bytes) : NULL;
}

void *mmvr_arena_array_raw(arena_t *a, size_t n, size_t size)
{
	size_t bytes;

	return array_bytes(n, size, &bytes) ? arena_take(a, bytes) : NULL;
}

char *mmvr_arena_strndup(arena_t *a, const char *s, size_t n)
{
	char *p = mmvr_arena_alloc(a, n + 1);

	if (p != NULL)
		memcpy(p, s, n);
	return p;
}

char *mmvr_arena_strdup(arena_t *a, const char *s)
{
	return mmvr_arena_strndup(a, s, strlen(s));
}

void mmvr_arena_reserve(const arena_t *a)
{
	const arena_chunk_t *c;

	for (c = a->head; c != NULL; c = c->next)
		mmvr_block_reserve(sizeof(*c) + c->size);
}

void mmvr_arena_free(arena_t *a)
{
	arena_chunk_t *c = a->head;

	while (c != NULL) {
		arena_chunk_t *next = c->next;

		mmvr_block_give(c);
		c = next;
	}
	a->head = NULL;
}
