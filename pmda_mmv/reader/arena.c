/*
 * arena.c - per-snapshot memory: a chain of chunks freed as a whole, so a
 * snapshot is released in one call and a failed scan leaks nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "reader_priv.h"

#define CHUNK_SIZE	(64 * 1024)
#define ALIGN		16

struct arena_chunk {
	arena_chunk_t *next;
	size_t used;
	size_t size;
	_Alignas(ALIGN) unsigned char data[];
};

static arena_chunk_t *chunk_new(arena_t *a, size_t size)
{
	arena_chunk_t *c = malloc(sizeof(*c) + size);

	if (c == NULL)
		return NULL;
	c->used = 0;
	c->size = size;
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

void mmvr_arena_free(arena_t *a)
{
	arena_chunk_t *c = a->head;

	while (c != NULL) {
		arena_chunk_t *next = c->next;
		free(c);
		c = next;
	}
	a->head = NULL;
}
