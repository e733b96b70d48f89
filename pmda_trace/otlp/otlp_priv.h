/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the OTLP decoder's files share and its tests may call: UTF-8
 * checking (common/utf8.h), the name cleaning of otlp.h and the report
 * of one span that every walker ends in.
 *
 * Threads: reentrant, no state.
 */
#ifndef OTLP_PRIV_H
#define OTLP_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otlp.h"
#include "utf8.h"

/* The resource attributes that name a span's service, and the defaults. */
#define OTLP_SERVICE_KEY	"service.name"
#define OTLP_NAMESPACE_KEY	"service.namespace"
#define OTLP_NO_SERVICE		"unknown_service"
#define OTLP_NO_NAME		"unnamed"

/*
 * otlp_clean_name - @len bytes of @src made safe as otlp.h says, into
 * @dst (OTLP_NAME_MAX + 1 bytes), NUL-terminated: a byte that does not
 * start a well-formed UTF-8 sequence becomes U+FFFD, a control character
 * (C0, DEL, C1, including NUL) '?'; the result is cut before the first
 * character that would take it over OTLP_NAME_MAX bytes. An empty
 * result is @dflt ("" for NULL). Returns @dst.
 */
char *otlp_clean_name(char *dst, const char *src, size_t len, const char *dflt);

/* otlp_clean_text - the same cut at @max bytes (@dst has @max + 1). */
char *otlp_clean_text(char *dst, size_t max, const char *src, size_t len, const char *dflt);

/*
 * otlp_varint - a protobuf varint of at most @max bytes at *@pos before
 * @end into *@v, *@pos moved past it; false if there is none (cut short,
 * longer than @max bytes, or over 64 bits).
 */
static inline bool otlp_varint(const uint8_t *b, size_t *pos, size_t end, unsigned max,
			       uint64_t *v)
{
	uint64_t x = 0;

	if (*pos < end && b[*pos] < 0x80) {
		*v = b[(*pos)++];
		return true;
	}
	for (unsigned i = 0; i < max && *pos < end; i++) {
		uint8_t c = b[(*pos)++];

		if (i == 9 && c > 1)
			return false;	/* over 64 bits */
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* One request's decoding: the caller's callback and result, the resource's names. */
struct otlp_ctx {
	otlp_span_fn fn;
	void *arg;
	struct otlp_result *res;
	char service[OTLP_NAME_MAX + 1];
	char ns[OTLP_NAME_MAX + 1];	/* "" without one */
};

/*
 * otlp_span_out - one span of either encoding, as read (@name not yet
 * cleaned, @kind and @status as sent): checked, cleaned and reported to
 * c->fn with c's service and namespace, or refused (otlp_refuse: counted
 * in c->res by reason, the first refusal's message kept).
 */
void otlp_span_out(struct otlp_ctx *c, const char *name, size_t namelen, int64_t kind,
		   int64_t status, uint64_t start, uint64_t end);
void otlp_refuse(struct otlp_ctx *c, const char *name, enum otlp_reject why);

/*
 * otlp_decode_pb - the protobuf request of @len bytes at @body, walked
 * (pbwalk.c): checked whole, then each span reported to otlp_span_out.
 * otlp_decode_pb_ref - the same through protobuf-c (ref_pb.c), the
 * walker's oracle in tests, fuzzing and benchmarks.
 * Both return 0, -EBADMSG (c->res->message says why, or is "" for "does
 * not decode"), -E2BIG (AnyValue nested deeper than OTLP_DEPTH_MAX);
 * otlp_decode_pb_ref also -ENOMEM (over @mem_max bytes of arena), which
 * the walker, allocating nothing, never returns (it ignores @mem_max).
 * On error no span was reported. c->res is zeroed by the caller.
 */
int otlp_decode_pb(const uint8_t *body, size_t len, size_t mem_max, struct otlp_ctx *c);
int otlp_decode_pb_ref(const uint8_t *body, size_t len, size_t mem_max, struct otlp_ctx *c);

/*
 * The JSON depth that holds OTLP_DEPTH_MAX AnyValue levels: ten levels to
 * an event's attribute value ({resourceSpans:[{scopeSpans:[{spans:[{events:
 * [{attributes:[{value:), then four a level (kvlistValue:{values:[{value:).
 * Deeper JSON is -E2BIG in either JSON decoder.
 */
#define OTLP_JSON_DEPTH		(12 + 4 * OTLP_DEPTH_MAX)

/*
 * otlp_json_walk - the JSON request of @len bytes at @body, checked and
 * its spans reported through @c (jsonwalk.c): the agent's JSON decoder.
 * Returns 0, -EBADMSG, -E2BIG or -ENOMEM (@mem_max below the walker's
 * fixed state, OTLP_JW_MEM), with c->res->message set on error.
 */
int otlp_json_walk(const char *body, size_t len, size_t mem_max, struct otlp_ctx *c);

/*
 * otlp_decode_json_ref - otlp_decode(OTLP_JSON, ...) through json-c
 * (ref_json.c), the walker's oracle for tests, fuzzers and benchmarks.
 */
int otlp_decode_json_ref(const void *body, size_t len, size_t mem_max, otlp_span_fn fn, void *arg,
			 struct otlp_result *res);

/*
 * otlp_json_scan - what can be told of @len bytes of JSON without parsing
 * them: a bound on what json-c allocates for them (*@cost) and their
 * deepest nesting of objects and arrays (*@depth). A quote ' or a /
 * outside a string, and a comma before a closing bracket, are refused
 * here (-EBADMSG): json-c takes the first for a key's quote even in its
 * strict mode, the others for a comment and a trailing comma outside it
 * (ref_json.c's otlp_json_flags); JSON has none of them. The walker asks
 * it which error a body has that fails both ways, to answer as json-c's
 * path does. Returns 0 or -EBADMSG.
 */
int otlp_json_scan(const char *s, size_t len, size_t *cost, size_t *depth);

/*
 * otlp_json_flags - json-c's tokener flags for strict JSON with its UTF-8
 * checked, where json-c's strict mode takes non-ASCII strings; without
 * JSON_TOKENER_STRICT where it does not (json-c 0.18, Debian 13 and
 * later: ref_json.c says why). Probed once; any thread.
 */
int otlp_json_flags(void);

/*
 * otlp_json_parse - @len bytes of JSON parsed by json-c (ref_json.c)
 * into *@root, as the json-c path parses a trace request: the scan's
 * refusals and bound first (-ENOMEM when *@cost, what json-c may
 * allocate, is over @mem_max), strict JSON nested at most @depth_max
 * deep (-E2BIG), one value and nothing after it but blanks. Returns 0
 * (the caller puts *@root), -EBADMSG, -E2BIG or -ENOMEM, @why saying why.
 */
struct json_object;
int otlp_json_parse(const char *body, size_t len, size_t mem_max, int depth_max,
		    struct json_object **root, size_t *cost, char *why, size_t whylen);

/*
 * The answers' parts (answer.c), for the metrics decoder's answer too:
 * otlp_answer_pack - protobuf-c message @m packed into @buf of @cap.
 * otlp_answer_json - an Export*ServiceResponse in OTLP JSON: "{}" when
 * @rejected is 0, else its partialSuccess with @count_name
 * ("rejectedSpans") as a decimal string and @message escaped.
 * Both return the length, or -ENOSPC.
 */
struct ProtobufCMessage;
int otlp_answer_pack(const struct ProtobufCMessage *m, void *buf, size_t cap);
int otlp_answer_json(const char *count_name, uint64_t rejected, const char *message, void *buf,
		     size_t cap);

#endif
