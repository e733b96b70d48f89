/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The oracle decoding of OTLP protobuf requests: protobuf-c's generated
 * unpack, kept as the oracle the walker (pbwalk.c) is tested against
 * (tests/unit/pmda_trace/test_otlp_pbwalk.c, tests/fuzz/fuzz_otlp_pb_diff.c)
 * and measured against (bench/bench_otlp_decode.c). The agent does not
 * use it.
 *
 * A wire-level pre-scan walks the bytes along the schema's message fields
 * with an explicit, bounded stack, rejecting bad framing (-EBADMSG) and
 * AnyValue nesting deeper than OTLP_DEPTH_MAX (-E2BIG) before protobuf-c,
 * which recurses once per nested message, sees them. protobuf-c then
 * unpacks into an arena: a ProtobufCAllocator that hands out zeroed memory
 * from chunks, counts what it takes against the request's budget (-ENOMEM
 * over it) and never frees anything but the whole arena at the end.
 * protobuf-c before 1.5.1 (Debian 12 has 1.4.1) frees what a failed unpack
 * left in a message without every pointer in it being set (protobuf-c
 * issue 690, fixed by pull request 703 in 1.5.1; older reports of frees
 * after failed unpacks: issues 16, 63, 81): with zeroed memory those
 * pointers read as NULL, and with a free that does nothing a stray one
 * cannot corrupt the heap, on every version.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "otlp_fields.h"
#include "otlp_priv.h"
#include "otlp_trace.pb-c.h"

typedef Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest otlp_pb_req;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans otlp_pb_rs;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans otlp_pb_ss;
typedef Opentelemetry__Proto__Trace__V1__Span otlp_pb_span;
typedef Opentelemetry__Proto__Trace__V1__KeyValue otlp_pb_kv;

/* ---- protobuf: the pre-scan ---- */

/* The message type of field @f of a @m, OTLP_M_LEAF if it is not one. */
static enum otlp_msg otlp_child(enum otlp_msg m, uint64_t f)
{
	enum otlp_field id = f > UINT32_MAX ? OTLP_F_N : otlp_field_find(m, (unsigned)f);

	return id == OTLP_F_N ? OTLP_M_LEAF : otlp_fields[id].child;
}

/*
 * The deepest a well-formed request nests messages: request, resource
 * spans, scope spans, span, event, key-value, then per AnyValue level at
 * most three (AnyValue, KeyValueList, KeyValue).
 */
#define OTLP_SCAN_FRAMES	(8 + 3 * OTLP_DEPTH_MAX)

/*
 * otlp_prescan - check the framing of a protobuf request and its nesting.
 * Stricter than protobuf-c where they differ (tags and lengths in at most
 * five bytes, as protobuf-c reads them; no groups), so whatever passes
 * here nests in protobuf-c as it did here. Returns 0, -EBADMSG or -E2BIG.
 */
static int otlp_prescan(const uint8_t *b, size_t len, char *why, size_t whylen)
{
	struct { enum otlp_msg m; size_t end; } st[OTLP_SCAN_FRAMES];
	int top = 0, anys = 0;
	size_t pos = 0;

	st[0].m = OTLP_M_REQ;
	st[0].end = len;
	while (top >= 0) {
		size_t end = st[top].end, at = pos;
		uint64_t key, n;
		enum otlp_msg child;

		if (pos == end) {
			if (st[top].m == OTLP_M_ANY)
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
			child = otlp_child(st[top].m, key >> 3);
			if (child == OTLP_M_LEAF) {
				pos += n;
				break;
			}
			if (child == OTLP_M_ANY && ++anys > OTLP_DEPTH_MAX) {
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

/* ---- protobuf: the arena ---- */

struct otlp_chunk {
	struct otlp_chunk *next;
	size_t size, off;
	_Alignas(16) unsigned char mem[];
};

struct otlp_arena {
	struct otlp_chunk *head;
	size_t used, max;	/* bytes taken from malloc, and the budget */
	bool over;		/* an allocation was refused for the budget */
};

#define OTLP_CHUNK	(64u << 10)

static void *otlp_arena_alloc(void *data, size_t size)
{
	struct otlp_arena *a = data;
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

static void otlp_arena_free(void *data, void *p)
{
	(void)data;
	(void)p;	/* everything goes with the arena */
}

static void otlp_arena_drop(struct otlp_arena *a)
{
	struct otlp_chunk *c, *next;

	for (c = a->head; c != NULL; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}

/* ---- protobuf: the request ---- */

/* The string of @rs's first resource attribute @key, or NULL. */
static const char *otlp_pb_resource_string(const otlp_pb_rs *rs, const char *key)
{
	for (size_t i = 0; rs->resource != NULL && i < rs->resource->n_attributes; i++) {
		const otlp_pb_kv *kv = rs->resource->attributes[i];

		if (kv->key == NULL || strcmp(kv->key, key) != 0)
			continue;
		if (kv->value != NULL && kv->value->value_case ==
		    OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE)
			return kv->value->string_value;
		return NULL;
	}
	return NULL;
}

static void otlp_pb_service(struct otlp_ctx *c, const otlp_pb_rs *rs)
{
	const char *s = otlp_pb_resource_string(rs, OTLP_SERVICE_KEY);
	const char *ns = otlp_pb_resource_string(rs, OTLP_NAMESPACE_KEY);

	otlp_clean_name(c->service, s ? s : "", s ? strlen(s) : 0, OTLP_NO_SERVICE);
	otlp_clean_name(c->ns, ns ? ns : "", ns ? strlen(ns) : 0, NULL);
}

int otlp_decode_pb_ref(const uint8_t *body, size_t len, size_t mem_max, struct otlp_ctx *c)
{
	struct otlp_arena a = { .max = mem_max };
	ProtobufCAllocator al = {
		.alloc = otlp_arena_alloc, .free = otlp_arena_free, .allocator_data = &a,
	};
	otlp_pb_req *req;
	int rc;

	if ((rc = otlp_prescan(body, len, c->res->message, sizeof(c->res->message))) < 0)
		return rc;
	req = opentelemetry__proto__trace__v1__export_trace_service_request__unpack(&al, len, body);
	if (req == NULL) {
		otlp_arena_drop(&a);
		snprintf(c->res->message, sizeof(c->res->message), "%s",
			 a.over ? "request over the decoder's memory budget" : "request does not decode");
		return a.over ? -ENOMEM : -EBADMSG;
	}
	for (size_t i = 0; i < req->n_resource_spans; i++) {
		const otlp_pb_rs *rs = req->resource_spans[i];

		otlp_pb_service(c, rs);
		for (size_t j = 0; j < rs->n_scope_spans; j++) {
			const otlp_pb_ss *ss = rs->scope_spans[j];

			for (size_t k = 0; k < ss->n_spans; k++) {
				const otlp_pb_span *s = ss->spans[k];
				int64_t status = s->status ? (int64_t)s->status->code : 0;

				otlp_span_out(c, s->name ? s->name : "", s->name ? strlen(s->name) : 0,
					      (int64_t)s->kind, status, s->start_time_unix_nano,
					      s->end_time_unix_nano);
			}
		}
	}
	otlp_arena_drop(&a);
	return 0;
}
