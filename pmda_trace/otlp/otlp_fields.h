/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP trace request's messages and fields, once: the protobuf
 * walker, the JSON walker and their differential tests expand these
 * lists, so the schema (common/otlp_trace.proto, field numbers from
 * opentelemetry-proto's trace.proto, common.proto and resource.proto)
 * is restated nowhere else. OTLP metrics add their messages here.
 *
 * OTLP_MESSAGES(X): X(ID) for each message that holds fields we walk.
 * OTLP_FIELDS(X): X(MSG, NAME, NUMBER, TYPE, CHILD, JSON, JSON_ALT):
 *   MSG	 the message holding the field (an OTLP_MESSAGES ID)
 *   NAME	 the field's ID within the request (OTLP_F_<MSG>_<NAME>)
 *   NUMBER	 its protobuf field number
 *   TYPE	 OTLP_T_*: its protobuf type, which gives its wire type
 *   CHILD	 for TYPE MESSAGE, the message it holds; else LEAF
 *   JSON	 its name in OTLP's JSON mapping (lowerCamelCase)
 *   JSON_ALT the proto field name, which OTLP JSON receivers also take
 *		 (NULL where it is the same)
 * Repeated or not makes no difference to a walker (protobuf merges a
 * singular message seen twice, and a singular scalar's last value wins),
 * so the lists do not say.
 *
 * Threads: constants only.
 */
#ifndef OTLP_FIELDS_H
#define OTLP_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#define OTLP_MESSAGES(X) \
	X(REQ) X(RS) X(SS) X(SPAN) X(EVENT) X(LINK) X(STATUS) X(RES) X(SCOPE) \
	X(KV) X(ANY) X(ARR) X(KVL)

#define OTLP_FIELDS(X) \
	X(REQ, RESOURCE_SPANS, 1, MESSAGE, RS, "resourceSpans", "resource_spans") \
	X(RS, RESOURCE, 1, MESSAGE, RES, "resource", NULL) \
	X(RS, SCOPE_SPANS, 2, MESSAGE, SS, "scopeSpans", "scope_spans") \
	X(RS, SCHEMA_URL, 3, STRING, LEAF, "schemaUrl", "schema_url") \
	X(SS, SCOPE, 1, MESSAGE, SCOPE, "scope", NULL) \
	X(SS, SPANS, 2, MESSAGE, SPAN, "spans", NULL) \
	X(SS, SCHEMA_URL, 3, STRING, LEAF, "schemaUrl", "schema_url") \
	X(SPAN, TRACE_ID, 1, BYTES, LEAF, "traceId", "trace_id") \
	X(SPAN, SPAN_ID, 2, BYTES, LEAF, "spanId", "span_id") \
	X(SPAN, TRACE_STATE, 3, STRING, LEAF, "traceState", "trace_state") \
	X(SPAN, PARENT_SPAN_ID, 4, BYTES, LEAF, "parentSpanId", "parent_span_id") \
	X(SPAN, FLAGS, 16, FIXED32, LEAF, "flags", NULL) \
	X(SPAN, NAME, 5, STRING, LEAF, "name", NULL) \
	X(SPAN, KIND, 6, ENUM, LEAF, "kind", NULL) \
	X(SPAN, START, 7, FIXED64, LEAF, "startTimeUnixNano", "start_time_unix_nano") \
	X(SPAN, END, 8, FIXED64, LEAF, "endTimeUnixNano", "end_time_unix_nano") \
	X(SPAN, ATTRIBUTES, 9, MESSAGE, KV, "attributes", NULL) \
	X(SPAN, DROPPED_ATTRIBUTES, 10, UINT32, LEAF, "droppedAttributesCount", \
	  "dropped_attributes_count") \
	X(SPAN, EVENTS, 11, MESSAGE, EVENT, "events", NULL) \
	X(SPAN, DROPPED_EVENTS, 12, UINT32, LEAF, "droppedEventsCount", "dropped_events_count") \
	X(SPAN, LINKS, 13, MESSAGE, LINK, "links", NULL) \
	X(SPAN, DROPPED_LINKS, 14, UINT32, LEAF, "droppedLinksCount", "dropped_links_count") \
	X(SPAN, STATUS, 15, MESSAGE, STATUS, "status", NULL) \
	X(EVENT, TIME, 1, FIXED64, LEAF, "timeUnixNano", "time_unix_nano") \
	X(EVENT, NAME, 2, STRING, LEAF, "name", NULL) \
	X(EVENT, ATTRIBUTES, 3, MESSAGE, KV, "attributes", NULL) \
	X(EVENT, DROPPED_ATTRIBUTES, 4, UINT32, LEAF, "droppedAttributesCount", \
	  "dropped_attributes_count") \
	X(LINK, TRACE_ID, 1, BYTES, LEAF, "traceId", "trace_id") \
	X(LINK, SPAN_ID, 2, BYTES, LEAF, "spanId", "span_id") \
	X(LINK, TRACE_STATE, 3, STRING, LEAF, "traceState", "trace_state") \
	X(LINK, ATTRIBUTES, 4, MESSAGE, KV, "attributes", NULL) \
	X(LINK, DROPPED_ATTRIBUTES, 5, UINT32, LEAF, "droppedAttributesCount", \
	  "dropped_attributes_count") \
	X(LINK, FLAGS, 6, FIXED32, LEAF, "flags", NULL) \
	X(STATUS, MESSAGE, 2, STRING, LEAF, "message", NULL) \
	X(STATUS, CODE, 3, ENUM, LEAF, "code", NULL) \
	X(RES, ATTRIBUTES, 1, MESSAGE, KV, "attributes", NULL) \
	X(RES, DROPPED_ATTRIBUTES, 2, UINT32, LEAF, "droppedAttributesCount", \
	  "dropped_attributes_count") \
	X(SCOPE, NAME, 1, STRING, LEAF, "name", NULL) \
	X(SCOPE, VERSION, 2, STRING, LEAF, "version", NULL) \
	X(SCOPE, ATTRIBUTES, 3, MESSAGE, KV, "attributes", NULL) \
	X(SCOPE, DROPPED_ATTRIBUTES, 4, UINT32, LEAF, "droppedAttributesCount", \
	  "dropped_attributes_count") \
	X(KV, KEY, 1, STRING, LEAF, "key", NULL) \
	X(KV, VALUE, 2, MESSAGE, ANY, "value", NULL) \
	X(ANY, STRING, 1, STRING, LEAF, "stringValue", "string_value") \
	X(ANY, BOOL, 2, BOOL, LEAF, "boolValue", "bool_value") \
	X(ANY, INT, 3, INT64, LEAF, "intValue", "int_value") \
	X(ANY, DOUBLE, 4, DOUBLE, LEAF, "doubleValue", "double_value") \
	X(ANY, ARRAY, 5, MESSAGE, ARR, "arrayValue", "array_value") \
	X(ANY, KVLIST, 6, MESSAGE, KVL, "kvlistValue", "kvlist_value") \
	X(ANY, BYTES, 7, BYTES, LEAF, "bytesValue", "bytes_value") \
	X(ARR, VALUES, 1, MESSAGE, ANY, "values", NULL) \
	X(KVL, VALUES, 1, MESSAGE, KV, "values", NULL)

/*
 * OTLP_REPEATED(X): X(MSG, NAME) for each repeated message field (a JSON
 * array of objects); the others of type MESSAGE are singular (an object).
 * Protobuf walkers need not read it.
 */
#define OTLP_REPEATED(X) \
	X(REQ, RESOURCE_SPANS) X(RS, SCOPE_SPANS) X(SS, SPANS) X(SPAN, ATTRIBUTES) \
	X(SPAN, EVENTS) X(SPAN, LINKS) X(EVENT, ATTRIBUTES) X(LINK, ATTRIBUTES) \
	X(RES, ATTRIBUTES) X(SCOPE, ATTRIBUTES) X(ARR, VALUES) X(KVL, VALUES)

/*
 * OTLP_ENUMS(X): X(MSG, NAME, NUMBER, JSON) for each value of the enum
 * fields, as OTLP's JSON mapping may name them instead of numbering.
 */
#define OTLP_ENUMS(X) \
	X(SPAN, KIND, 0, "SPAN_KIND_UNSPECIFIED") X(SPAN, KIND, 1, "SPAN_KIND_INTERNAL") \
	X(SPAN, KIND, 2, "SPAN_KIND_SERVER") X(SPAN, KIND, 3, "SPAN_KIND_CLIENT") \
	X(SPAN, KIND, 4, "SPAN_KIND_PRODUCER") X(SPAN, KIND, 5, "SPAN_KIND_CONSUMER") \
	X(STATUS, CODE, 0, "STATUS_CODE_UNSET") X(STATUS, CODE, 1, "STATUS_CODE_OK") \
	X(STATUS, CODE, 2, "STATUS_CODE_ERROR")

/* The protobuf types the lists use, with their wire types: X(TYPE, WIRE). */
#define OTLP_TYPES(X) \
	X(MESSAGE, 2) X(STRING, 2) X(BYTES, 2) X(ENUM, 0) X(UINT32, 0) X(INT64, 0) \
	X(BOOL, 0) X(DOUBLE, 1) X(FIXED32, 5) X(FIXED64, 1)

enum otlp_msg {
	OTLP_M_LEAF,		/* not a message */
#define OTLP_X(id) OTLP_M_##id,
	OTLP_MESSAGES(OTLP_X)
#undef OTLP_X
	OTLP_M_N
};

enum otlp_type {
#define OTLP_X(type, wire) OTLP_T_##type,
	OTLP_TYPES(OTLP_X)
#undef OTLP_X
	OTLP_T_N
};

enum otlp_field {
#define OTLP_X(msg, name, num, type, child, json, alt) OTLP_F_##msg##_##name,
	OTLP_FIELDS(OTLP_X)
#undef OTLP_X
	OTLP_F_N
};

/* One field, as the lists give it. */
struct otlp_field_desc {
	enum otlp_msg msg, child;
	unsigned number;
	enum otlp_type type;
	unsigned wire;		/* the protobuf wire type of its type */
	const char *json, *json_alt;
};

/* The table, indexed by enum otlp_field (otlp_fields.c). */
extern const struct otlp_field_desc otlp_fields[OTLP_F_N];

/*
 * otlp_field_find - the field of @msg with protobuf @number, or OTLP_F_N
 * if @msg has none (an unknown field, which protobuf skips); a table,
 * O(1).
 */
enum otlp_field otlp_field_find(enum otlp_msg msg, unsigned number);

/*
 * otlp_field_json - the field of @msg named @name (@len bytes; either
 * JSON name), or OTLP_F_N, and whether @name is the field's alternative
 * (proto) name in *@alt; hashed, O(1).
 * otlp_enum_json - the number of the value of enum field @f named @name
 * (@len bytes) into *@v. Returns 0, or -1 if it has none of that name.
 */
enum otlp_field otlp_field_json(enum otlp_msg msg, const char *name, size_t len, int *alt);
int otlp_enum_json(enum otlp_field f, const char *name, size_t len, int64_t *v);

#endif
