/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP/HTTP trace ingest for the trace agent: the interface between the
 * decoder (decode.c, gunzip.c, answer.c: bytes in, spans out, answers
 * encoded) and the receiver (http.c: libmicrohttpd, the agent's span
 * table). Names start with otlp_.
 *
 * A request body, after Content-Encoding, is an ExportTraceServiceRequest
 * (common/otlp_trace.proto) in protobuf or in OTLP's JSON mapping. The
 * decoder checks it whole before it reports a span: a request that is not
 * well-formed reports none (400), one that is reports each span to the
 * caller's function in order, and a span the caller or the decoder rejects
 * is counted in the answer's partial_success.
 *
 * Threads: every function here is reentrant; nothing is shared between
 * calls but what the caller passes.
 */
#ifndef OTLP_H
#define OTLP_H

#include <stddef.h>
#include <stdint.h>

/* Caps for hostile input (defaults; the receiver may lower them). */
#define OTLP_BODY_MAX		(16u << 20)	/* bytes after decompression: 413 above */
#define OTLP_MEM_MAX		(64u << 20)	/* JSON decoder memory per request: 413 above */
#define OTLP_DEPTH_MAX		32		/* AnyValue nesting: 400 above */
#define OTLP_NAME_MAX		200		/* bytes of a service or span name after cleaning */

enum otlp_encoding {
	OTLP_PROTOBUF,		/* application/x-protobuf */
	OTLP_JSON,		/* application/json */
};

/* SpanKind and Status.code as OTLP numbers them. */
enum otlp_kind {
	OTLP_KIND_UNSPECIFIED, OTLP_KIND_INTERNAL, OTLP_KIND_SERVER,
	OTLP_KIND_CLIENT, OTLP_KIND_PRODUCER, OTLP_KIND_CONSUMER,
};
enum otlp_status { OTLP_STATUS_UNSET, OTLP_STATUS_OK, OTLP_STATUS_ERROR };

/*
 * One span as the decoder reports it. @service is the resource's
 * service.name ("unknown_service" without one), @ns its
 * service.namespace ("" without one), @name the span's; all made safe
 * for PCP labels and instance names (valid UTF-8, no control
 * characters, at most OTLP_NAME_MAX bytes, cut at a character boundary)
 * and NUL-terminated: bytes that are not UTF-8 become U+FFFD, control
 * characters '?', an empty span name "unnamed" (docs/trace-protocol.md
 * §11.3). Valid only during the callback.
 */
struct otlp_span {
	const char *service;
	const char *ns;
	const char *name;
	enum otlp_kind kind;
	enum otlp_status status;
	uint64_t start_ns, end_ns;	/* Unix epoch nanoseconds; 0 < start <= end */
};

/*
 * Why a span is refused, for partial_success and the receiver's
 * trace.otlp.spans.rejected instances: X(ID, instance name, message).
 */
#define OTLP_REJECT_REASONS(X) \
	X(KIND, "bad_kind", "kind out of range") \
	X(STATUS, "bad_status", "status code out of range") \
	X(NO_START, "no_start_time", "has no start time") \
	X(BACKWARDS, "ends_before_start", "ends before it starts") \
	X(REFUSED, "refused", "refused by the receiver")

enum otlp_reject {
#define OTLP_X(id, name, why) OTLP_REJECT_##id,
	OTLP_REJECT_REASONS(OTLP_X)
#undef OTLP_X
	OTLP_REJECT_N
};

/* Return 0 to accept the span, < 0 to reject it (counted, not an error). */
typedef int (*otlp_span_fn)(void *arg, const struct otlp_span *span);

struct otlp_result {
	uint64_t accepted;	/* spans the callback took */
	uint64_t rejected;	/* spans refused: by the callback or invalid */
	uint64_t rejected_by[OTLP_REJECT_N];	/* the same by reason */
	char message[160];	/* why the first refusal, for partial_success; "" if none */
};

/*
 * otlp_decode - decode @len bytes of @enc and report each span to @fn.
 * @mem_max caps the decoder's memory (0: OTLP_MEM_MAX): JSON's; protobuf
 * is walked in place and needs none.
 * Returns 0 (see @res), -EBADMSG (not a valid request: 400, nothing
 * reported; res->message says why), -E2BIG (deeper than OTLP_DEPTH_MAX:
 * 400) or -ENOMEM (over @mem_max, or out of memory: 413). On error,
 * res->accepted and res->rejected are 0 and the callback was not called.
 */
int otlp_decode(enum otlp_encoding enc, const void *body, size_t len,
		size_t mem_max, otlp_span_fn fn, void *arg,
		struct otlp_result *res);

/*
 * otlp_gunzip - inflate gzip @in into a malloc'd buffer (*@out, *@outlen),
 * at most @max bytes (0: OTLP_BODY_MAX). Returns 0, -EBADMSG (not gzip, or
 * truncated) or -EMSGSIZE (would exceed @max: 413); *@out is NULL on error.
 */
int otlp_gunzip(const void *in, size_t len, size_t max, void **out, size_t *outlen);

/*
 * otlp_answer - the body of a 200 answer: an ExportTraceServiceResponse in
 * @enc, with partial_success when res->rejected > 0. otlp_status_body -
 * a google.rpc.Status (@code, @message) for an error answer. Both write at
 * most @cap bytes into @buf and return the length, or -ENOSPC. A byte of
 * a message that is not UTF-8 goes out as U+FFFD in either encoding (a
 * protobuf Status message is also cut at 511 bytes).
 */
int otlp_answer(enum otlp_encoding enc, const struct otlp_result *res,
		void *buf, size_t cap);
int otlp_status_body(enum otlp_encoding enc, int code, const char *message,
		void *buf, size_t cap);

#endif
