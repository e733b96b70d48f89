/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protobuf-c for request bodies from the network, whatever the message:
 * what the trace decoder's oracle (ref_pb.c) and the metrics decoder
 * (pmda_trace/otel/decode.c) share. Names start with otlp_pbc_ (the
 * arena: otlp_arena_).
 *
 * Three parts, one file each job:
 *  - the arena (pbc.c): a ProtobufCAllocator that hands out zeroed
 *    memory from chunks, counts what it takes from malloc against a
 *    budget and frees nothing but the whole arena. protobuf-c before
 *    1.5.1 (Debian 12 has 1.4.1) frees what a failed unpack left in a
 *    message without every pointer in it being set (protobuf-c issue 690,
 *    fixed by pull request 703 in 1.5.1; older reports of frees after
 *    failed unpacks: issues 16, 63, 81): with zeroed memory those
 *    pointers read as NULL, and with a free that does nothing a stray
 *    one cannot corrupt the heap, on every version.
 *  - the pre-scan (pbc.c): the wire format walked along the schema's
 *    message fields with an explicit, bounded stack, refusing bad framing
 *    (-EBADMSG) and AnyValue nesting deeper than OTLP_DEPTH_MAX (-E2BIG)
 *    before protobuf-c, which recurses once per nested message, sees
 *    them. Which field holds which message is read from protobuf-c's own
 *    descriptors (the generated tables: the schema is stated once, in
 *    the .proto), so one pre-scan serves every request type; the walkers
 *    (pbwalk.c, jsonwalk.c) keep their own table, otlp_fields.h, for the
 *    fields they read.
 *  - JSON to protobuf-c (pbc_json.c): a json-c tree in OTLP's JSON
 *    mapping made into the message protobuf-c would have unpacked from
 *    the protobuf encoding, led by the same descriptors, so that one walk
 *    over the structs serves both encodings.
 *
 * Threads: reentrant; an arena belongs to one request.
 */
#ifndef OTLP_PBC_H
#define OTLP_PBC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "otlp.h"

struct json_object;

struct otlp_chunk;

/* One request's memory. @al is what protobuf-c takes (otlp_arena_init). */
struct otlp_arena {
	struct otlp_chunk *head;
	size_t used, max;	/* bytes taken from malloc (chunk headers in), and the budget */
	bool over;		/* an allocation was refused: budget, or out of memory */
	ProtobufCAllocator al;
};

/*
 * otlp_arena_init - an empty arena of budget @max bytes; a->al then
 * allocates from it (so @a must stay where it is while in use).
 * otlp_arena_take - @size bytes, zeroed, 16-aligned; NULL (and a->over)
 * when that would take the arena over its budget or malloc fails.
 * otlp_arena_drop - everything taken, freed; the arena is empty again.
 */
void otlp_arena_init(struct otlp_arena *a, size_t max);
void *otlp_arena_take(struct otlp_arena *a, size_t size);
void otlp_arena_drop(struct otlp_arena *a);

/*
 * The deepest well-formed requests nest messages: eight to the first
 * attribute value in a metrics request (request, resource metrics, scope
 * metrics, metric, histogram, data point, exemplar, key-value; a trace
 * request needs six: request, resource spans, scope spans, span, event,
 * key-value), then per AnyValue level at most three (AnyValue,
 * KeyValueList, KeyValue).
 */
#define OTLP_SCAN_FRAMES	(8 + 3 * OTLP_DEPTH_MAX)

/*
 * otlp_pbc_prescan - check the framing of @len bytes of protobuf, a
 * @root message, and its nesting: a message of type @any may hold
 * itself at most OTLP_DEPTH_MAX deep. Stricter than protobuf-c where
 * they differ (tags and lengths in at most five bytes, as protobuf-c
 * reads them; no groups), so whatever passes here nests in protobuf-c
 * as it did here. Returns 0, -EBADMSG or -E2BIG, with why.
 */
int otlp_pbc_prescan(const uint8_t *b, size_t len, const ProtobufCMessageDescriptor *root,
		     const ProtobufCMessageDescriptor *any, char *why, size_t whylen);

/*
 * otlp_pbc_unpack - the pre-scan, then protobuf-c's unpack of @len bytes
 * at @b as a @root into @a: 0 and the message in *@out (in the arena,
 * until otlp_arena_drop), or -EBADMSG, -E2BIG, -ENOMEM (over the arena's
 * budget, or out of memory), *@out NULL and @why saying which ("request
 * does not decode", "request over the decoder's memory budget", or the
 * pre-scan's reason).
 */
int otlp_pbc_unpack(const ProtobufCMessageDescriptor *root, const ProtobufCMessageDescriptor *any,
		    const uint8_t *b, size_t len, struct otlp_arena *a, ProtobufCMessage **out,
		    char *why, size_t whylen);

/*
 * otlp_pbc_from_json - the json-c tree @o as a @root message in OTLP's
 * JSON mapping (OTLP, "JSON Protobuf Encoding"; proto3's JSON mapping),
 * built in @a as protobuf-c's unpack would build it:
 *  - members by their lowerCamelCase name or their proto field name (the
 *    camelCase one wins when an object has both); members of no field
 *    are skipped, as OTLP asks; null is the field's default;
 *  - a message is an object, a repeated field an array (no null in it);
 *  - integers are JSON integers, integral numbers or decimal strings, in
 *    the field type's range; enums numbers or their value's name;
 *    doubles numbers or decimal strings, "NaN", "Infinity", "-Infinity";
 *    bools true or false;
 *  - bytes are base64 (standard or URL-safe, padding optional), but for
 *    fields named *_id (trace and span ids), which OTLP writes in hex: a
 *    string, taken if it is hex, else left empty (their value is not
 *    read; the trace decoder only checks their type, too);
 *  - two members of one oneof in an object are refused, as protobuf's
 *    JSON parsers do; an AnyValue (@any) nested deeper than
 *    OTLP_DEPTH_MAX is -E2BIG.
 * Returns 0 and the message in *@out, -EBADMSG (@why says where and
 * what), -E2BIG, or -ENOMEM (over the arena's budget).
 */
int otlp_pbc_from_json(struct json_object *o, const ProtobufCMessageDescriptor *root,
		       const ProtobufCMessageDescriptor *any, struct otlp_arena *a,
		       ProtobufCMessage **out, char *why, size_t whylen);

#endif
