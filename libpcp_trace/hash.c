/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * PCP's small chained hash table, kept only because Debian's pmdatrace
 * links against it (layout and visiting order are ABI). The library
 * itself does not use it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trace_priv.h"

#define HASH_ROWS	31	/* PCP's always walks 31 rows */

/* Only the first five characters pick the row, as in PCP's library. */
static unsigned int hash_key(const char *key)
{
	unsigned int h = 0;
	int i;

	for (i = 0; i < 5 && key[i] != '\0'; i++)
		h = h * 31 + (unsigned int)(int)(char)key[i];
	return h;
}

static size_t row_of(const __pmHashTable *t, const char *key)
{
	return hash_key(key) % t->tsize;
}

int __pmhashinit(__pmHashTable *t, size_t tsize, size_t esize,
		int (*cmp)(void *, void *), void (*del)(void *))
{
	if (tsize == 0)
		tsize = HASH_ROWS;
	t->rows = calloc(tsize, sizeof(*t->rows));
	if (t->rows == NULL)
		return -errno;
	t->tsize = tsize;
	t->esize = esize;
	t->entries = 0;
	t->cmp = cmp;
	t->del = del;
	return 0;
}

int __pmhashinsert(__pmHashTable *t, char *key, void *entry)
{
	__pmHashEnt *node, **row;

	node = malloc(sizeof(*node));
	if (node == NULL)
		return -errno;
	node->ent = malloc(t->esize ? t->esize : 1);
	if (node->ent == NULL) {
		int err = -errno;

		free(node);
		return err;
	}
	memcpy(node->ent, entry, t->esize);
	row = &t->rows[row_of(t, key)];
	if (*row == NULL) {
		node->next = NULL;
		*row = node;
	} else {
		/* after the head, as PCP's library does */
		node->next = (*row)->next;
		(*row)->next = node;
	}
	t->entries++;
	return 0;
}

void *__pmhashlookup(__pmHashTable *t, char *key, void *probe)
{
	__pmHashEnt *node;

	if (t == NULL || t->entries == 0 || t->rows == NULL)
		return NULL;
	for (node = t->rows[row_of(t, key)]; node != NULL; node = node->next)
		if (t->cmp(node->ent, probe))
			return node->ent;
	return NULL;
}

void __pmhashtraverse(__pmHashTable *t, void (*func)(__pmHashTable *, void *))
{
	unsigned int seen = 0;
	size_t r;
	__pmHashEnt *node;

	if (t == NULL || t->rows == NULL)
		return;
	for (r = 0; r < t->tsize && seen < t->entries; r++)
		for (node = t->rows[r]; node != NULL; node = node->next) {
			func(t, node->ent);
			seen++;
		}
}

/* del() owns the element; the table frees only its nodes. */
void __pmhashtrunc(__pmHashTable *t)
{
	size_t r;
	__pmHashEnt *node, *next;

	if (t == NULL || t->rows == NULL || t->entries == 0)
		return;
	for (r = 0; r < t->tsize; r++) {
		for (node = t->rows[r]; node != NULL; node = next) {
			next = node->next;
			if (node->ent != NULL) {
				if (t->del != NULL)
					t->del(node->ent);
				else
					free(node->ent);
			}
			free(node);
		}
		t->rows[r] = NULL;
	}
	t->entries = 0;
}
