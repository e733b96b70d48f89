/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protobuf-c's unpack made safe for request bodies (pbc.h): the arena it
 * allocates from and the pre-scan that runs before it, for any request
 * message, its message fields found in protobuf-c's descriptors.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "otlp_priv.h"
#include "pbc.h"

/* ---- the arena ---- */

struct otlp_chunk {
	struct otlp_chunk *next;
	size_t size, off;
	_Alignas(16) unsigned char mem[];
};

#define OTLP_CHUNK	(64u << 10)

void *otlp_arena_take(struct otlp_arena *a, size_t size)
{
	struct otlp_chunk *c = a->head;
	size_t need = (size + 15) & ~(size_t)15, csize;

	if (need < size) {
		a->over = true;
		return NULL;
	}
	if (need == 0)
		need = 16;
	if (c == NULL || c->size - c->off < need) {
		csize = need > OTLP_CHUNK ? need : OTLP_CHUNK;
		if (csize > a->max || a->used > a->max - csize - sizeof(*c)) {
			a->over = true;
			return NULL;
		}
		if ((c = calloc(1, sizeof(*c) + csize)) == NULL) {
			a->over = true;	/* out of memory is -ENOMEM too */
			return NULL;
		}
		a->used += sizeof(*c) + csize;
		c->size = csize;
		c->next = a->head;
		a->head = c;
	}
	c->off += need;
	return c->mem + c->off - need;
}

static void *otlp_arena_alloc(void *data, size_t size)
{
	return otlp_arena_take(data, size);
}

static void otlp_arena_free(void *data, void *p)
{
	(void)data;
	(void)p;	/* everything goes with the arena */
}

void otlp_arena_init(struct otlp_arena *a, size_t max)
{
	memset(a, 0, sizeof(*a));
	a->max = max;
	a->al.alloc = otlp_arena_alloc;
	a->al.free = otlp_arena_free;
	a->al.allocator_data = a;
}

void otlp_arena_drop(struct otlp_arena *a)
{
	struct otlp_chunk *c, *next;

	for (c = a->head; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
	a->used = 0;
}

/* ---- the pre-scan ---- */

/* The message type field @f of a @m holds, NULL if it holds none (or @m has no such field). */
static const ProtobufCMessageDescriptor *otlp_pbc_child(const ProtobufCMessageDescriptor *m,
							uint64_t f)
{
	const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(m, (unsigned)f);

	return fd != NULL && fd->type == PROTOBUF_C_TYPE_MESSAGE ? fd->descriptor : NULL;
}

int otlp_pbc_prescan(const uint8_t *b, size_t len, const ProtobufCMessageDescriptor *root,
		     const ProtobufCMessageDescriptor *any, char *why, size_t whylen)
{
	struct { const ProtobufCMessageDescriptor *m; size_t end; } st[OTLP_SCAN_FRAMES];
	int top = 0, anys = 0;
	size_t pos = 0;

	st[0].m = root;
	st[0].end = len;
	while (top >= 0) {
		size_t end = st[top].end, at = pos;
		const ProtobufCMessageDescriptor *child;
		uint64_t key, n;

		if (pos == end) {
			if (st[top].m == any)
				anys--;
			top--;
			continue;
		}
		if (!otlp_varint(b, &pos, end, 5, &key) || key >> 3 == 0 || key >> 3 > 0x1fffffff) {
			snprintf(why, whylen, "bad field tag at byte %zu", at);
			return -EBADMSG;
		}
		switch (key & 7) {
		case 0:
			if (!otlp_varint(b, &pos, end, 10, &n))
				goto bad;
			break;
		case 1:
			if (end - pos < 8)
				goto bad;
			pos += 8;
			break;
		case 5:
			if (end - pos < 4)
				goto bad;
			pos += 4;
			break;
		case 2:
			if (!otlp_varint(b, &pos, end, 5, &n) || n > end - pos)
				goto bad;
			if ((child = otlp_pbc_child(st[top].m, key >> 3)) == NULL) {
				pos += n;
				break;
			}
			if (child == any && ++anys > OTLP_DEPTH_MAX) {
				snprintf(why, whylen, "values nested deeper than %d", OTLP_DEPTH_MAX);
				return -E2BIG;
			}
			if (top + 1 >= OTLP_SCAN_FRAMES) {	/* cannot happen: see OTLP_SCAN_FRAMES */
				snprintf(why, whylen, "messages nested too deep");
				return -E2BIG;
			}
			top++;
			st[top].m = child;
			st[top].end = pos + n;
			break;
		default:
			goto bad;
		}
		continue;
bad:
		snprintf(why, whylen, "bad field at byte %zu", at);
		return -EBADMSG;
	}
	return 0;
}

/* ---- both ---- */

int otlp_pbc_unpack(const ProtobufCMessageDescriptor *root, const ProtobufCMessageDescriptor *any,
		    const uint8_t *b, size_t len, struct otlp_arena *a, ProtobufCMessage **out,
		    char *why, size_t whylen)
{
	int rc;

	*out = NULL;
	if ((rc = otlp_pbc_prescan(b, len, root, any, why, whylen)) < 0)
		return rc;
	*out = protobuf_c_message_unpack(root, &a->al, len, b);
	if (*out == NULL) {
		otlp_arena_drop(a);
		snprintf(why, whylen, "%s", a->over ? "request over the decoder's memory budget" :
			 "request does not decode");
		return a->over ? -ENOMEM : -EBADMSG;
	}
	return 0;
}
