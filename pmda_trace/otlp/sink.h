/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What every OTLP transport of the trace agent feeds: admission of a
 * request's body against one byte budget, its decoding into the span
 * table, and the counters and log lines of what was answered
 * (docs/trace-protocol.md §12). OTLP/HTTP (http.c) and OTLP/gRPC
 * (grpc.c) each receive bytes their own way and hand them here, so a
 * span costs, counts and is refused alike whichever way it came. Names
 * start with otlp_sink_.
 *
 * A request's life: otlp_sink_admit when its headers are in (reserving
 * its announced length, or refusing it now), otlp_sink_grow as a body
 * of no announced length grows, otlp_sink_export when it is whole
 * (inflate, decode, record the spans, give the budget back), then
 * otlp_sink_answered with the answer the transport gave, and
 * otlp_sink_done however it ended (a client gone mid-body included).
 *
 * Memory: at most buf_max bytes of bodies being received by all
 * transports together (a reservation is taken whole before the first
 * byte of the body is read), released once the body is inflated or
 * decoded; each export then takes at most body_max (the inflated body)
 * and OTLP_MEM_MAX (the decoder) more, one export at a time per
 * transport thread. Worst case with both transports: buf_max +
 * 2 x (body_max + OTLP_MEM_MAX), 64 + 2 x (16 + 64) MiB by default.
 *
 * Threads: every function may be called from any thread (each transport
 * runs its own); the budget and the counts are atomic, the log gates
 * under a mutex. The stats are written with relaxed atomics, so any
 * thread may read them (each field on its own exact; two fields read
 * together may be a request apart). Threads calling otlp_sink_export
 * must be registered with liburcu (the span table's rule).
 */
#ifndef OTLP_SINK_H
#define OTLP_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "../core/spans.h"
#include "../otel/decode.h"
#include "otlp.h"

#define OTLP_HTTP_BUF_MIB	64	/* the byte budget of bodies being received, MiB */
#define OTLP_HTTP_BUF_MAX	((size_t)OTLP_HTTP_BUF_MIB << 20)
/*
 * Retry hints are whole seconds. The Node SDK gives up at once when the
 * hint is longer than what is left of its 10 s export timeout, so hints
 * stay short; three one-second slots spread refused exporters apart.
 */
#define OTLP_HTTP_RETRY_MIN	1
#define OTLP_HTTP_RETRY_MAX	3
/*
 * Idle connections, for every transport: exporters keep one open between
 * exports (5 s for spans, 60 s for metrics by the SDKs' defaults) and
 * reuse it; a server that closes one at the moment a client reuses it
 * makes that export fail (ECONNRESET). Longer than those intervals, a
 * close races nothing.
 */
#define OTLP_HTTP_IDLE_SEC	65
/* A connection from a host the access list turns away: this long to send its request. */
#define OTLP_DENIED_SEC		5

/*
 * The answers a transport gives, by HTTP code, in the order of the
 * stats' counts. OTLP/gRPC answers count under the code that names
 * the same case for OTLP/HTTP (docs/trace-protocol.md §12.7): OK 200,
 * INVALID_ARGUMENT 400, UNIMPLEMENTED 404 (path), 405 (method) or 415
 * (grpc-encoding), RESOURCE_EXHAUSTED 413 (too large), UNAVAILABLE 429
 * (the count cap) or 503 (the byte budget), both with a retry hint;
 * UNAUTHENTICATED 401 (the bearer token), PERMISSION_DENIED 403 (the
 * host access list), UNAVAILABLE 429 also for a host's connection limit.
 */
#define OTLP_HTTP_ANSWERS(X) X(200) X(204) X(400) X(401) X(403) X(404) X(405) X(413) X(415) \
	X(429) X(503)

enum otlp_answer_ix {
#define OTLP_X(code) OTLP_ANSWER_##code,
	OTLP_HTTP_ANSWERS(OTLP_X)
#undef OTLP_X
	OTLP_ANSWER_N
};

/*
 * The signals a transport takes, each at its OTLP/HTTP path and its
 * gRPC method: X(ID, HTTP path, gRPC :path). Spans go to the span
 * table, metrics to the OpenTelemetry metrics store (otel/otel.h).
 */
#define OTLP_SIGNALS(X) \
	X(TRACES, "/v1/traces", "/opentelemetry.proto.collector.trace.v1.TraceService/Export") \
	X(METRICS, "/v1/metrics", "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export")

enum otlp_signal {
#define OTLP_X(id, http, grpc) OTLP_SIGNAL_##id,
	OTLP_SIGNALS(OTLP_X)
#undef OTLP_X
	OTLP_SIGNAL_N
};

/*
 * otlp_signal_of - the signal served at OTLP/HTTP path @path (@grpc 0)
 * or gRPC :path @path (@grpc 1), @len bytes; OTLP_SIGNAL_N for none.
 * OTLP_SIGNAL_PATHS is the message of a 404 for another path.
 */
enum otlp_signal otlp_signal_of(const char *path, size_t len, int grpc);
#define OTLP_SIGNAL_PATHS	"OTLP traces go to /v1/traces, metrics to /v1/metrics"

/* The transports, for the count of requests by the way they came. */
#define OTLP_TRANSPORTS(X) X(HTTP, "http") X(GRPC, "grpc")

enum otlp_via {
#define OTLP_X(id, name) OTLP_VIA_##id,
	OTLP_TRANSPORTS(OTLP_X)
#undef OTLP_X
	OTLP_VIA_N
};

/*
 * Why a client was turned away before its request was read
 * (docs/trace-protocol.md §12.9): X(ID, instance name). HOST and
 * HOST_LIMIT count connections (the access list's verdict, once a
 * connection, whatever it then sends), NO_TOKEN and BAD_TOKEN requests,
 * TLS connections whose handshake failed (a cleartext client, no common
 * protocol, no or an untrusted client certificate, no ALPN h2 on gRPC)
 * and, on OTLP/HTTP, whose requests came without a trusted client
 * certificate (libmicrohttpd asks for one but does not require it).
 */
#define OTLP_DENY_REASONS(X) \
	X(HOST, "host") X(HOST_LIMIT, "host_limit") X(NO_TOKEN, "no_token") \
	X(BAD_TOKEN, "bad_token") X(TLS, "tls")

enum otlp_deny {
#define OTLP_X(id, name) OTLP_DENY_##id,
	OTLP_DENY_REASONS(OTLP_X)
#undef OTLP_X
	OTLP_DENY_N
};

/* What the receiver has done, for trace.otlp.* (docs/trace-protocol.md §12.4). */
struct otlp_stats {
	uint64_t answers[OTLP_ANSWER_N];	/* requests answered, by code */
	uint64_t via[OTLP_VIA_N];		/* requests answered, by transport */
	uint64_t spans_accepted;		/* spans the span table counted */
	uint64_t spans_rejected[OTLP_REJECT_N];	/* spans refused in partial_success */
	uint64_t points_accepted;		/* metric data points the store took */
	uint64_t points_rejected[OTEL_REJECT_N];	/* points refused in partial_success */
	uint64_t bytes;		/* request body bytes received, as sent (before gunzip) */
	uint64_t inflight;	/* requests admitted whose bodies are not decoded yet */
	uint64_t buffered;	/* bytes reserved for their bodies */
	uint64_t buf_max;	/* the budget of those */
	uint64_t errors;	/* event loop failures and protocol errors (otlp_sink_event) */
	uint64_t listening;	/* transports serving */
	uint64_t denied[OTLP_DENY_N];	/* clients turned away, by reason */
};

/* otlp_answer_code - the HTTP code of answer index @ix (OTLP_ANSWER_N: 0). */
unsigned otlp_answer_code(unsigned ix);

/* gRPC status codes (the google.rpc.Status bodies of HTTP errors too). */
#define OTLP_GRPC_OK			0
#define OTLP_GRPC_INVALID_ARGUMENT	3
#define OTLP_GRPC_NOT_FOUND		5
#define OTLP_GRPC_RESOURCE_EXHAUSTED	8
#define OTLP_GRPC_PERMISSION_DENIED	7
#define OTLP_GRPC_UNIMPLEMENTED		12
#define OTLP_GRPC_UNAVAILABLE		14
#define OTLP_GRPC_UNAUTHENTICATED	16

struct otlp_sink_cfg {
	struct tra_spans *spans;
	struct otel_store *metrics;	/* NULL: /v1/metrics is answered 404 */
	size_t body_max;	/* 0: OTLP_BODY_MAX */
	size_t buf_max;		/* bytes of bodies being received; 0: OTLP_HTTP_BUF_MAX */
	unsigned max_inflight;	/* requests receiving bodies at once; 0: no count cap */
	unsigned retry_min, retry_max;	/* retry hint range, s; 0: OTLP_HTTP_RETRY_MIN/MAX */
	struct otlp_stats *stats;	/* the caller's, zeroed; NULL: the sink's own */
	void (*log)(int pri, const char *msg);	/* syslog priority; may be NULL */
};

struct otlp_sink;

/* One request's share of the budget; zeroed before otlp_sink_admit. */
struct otlp_hold {
	size_t reserved;	/* bytes of the budget it holds */
	int admitted;		/* counted in inflight */
};

/*
 * What to answer: @http the code (200 or an error), @grpc the matching
 * gRPC status, @why a message for an error (static or in the result's
 * message), and for 200 the decoder's result of the request's @signal:
 * @res for spans, @mres for metrics.
 */
struct otlp_outcome {
	unsigned http;
	int grpc;
	const char *why;
	enum otlp_signal signal;
	struct otlp_result res;
	struct otel_result mres;
};

/*
 * otlp_outcome_body - the body of a 200 answer to @o in @enc (an
 * ExportTraceServiceResponse or ExportMetricsServiceResponse, with its
 * partial_success), at most @cap bytes into @buf: the length, or -ENOSPC.
 */
int otlp_outcome_body(const struct otlp_outcome *o, enum otlp_encoding enc, void *buf, size_t cap);

/* otlp_sink_new - a sink over cfg->spans; NULL with errno (EINVAL, ENOMEM). */
struct otlp_sink *otlp_sink_new(const struct otlp_sink_cfg *cfg);
void otlp_sink_free(struct otlp_sink *s);

/* otlp_sink_body_max - the sink's cap on a body, inflated or not, bytes. */
size_t otlp_sink_body_max(const struct otlp_sink *s);

/*
 * otlp_sink_admit - a request whose body is @length bytes (0: not
 * announced, or empty). Returns 0 and counts it in flight, with @length
 * reserved in @h; or the refusal to answer now: 413 (over body_max), 429
 * (max_inflight requests already in flight), 503 (the budget has no room
 * for @length, or out of memory), with @o filled for the answer.
 */
unsigned otlp_sink_admit(struct otlp_sink *s, size_t length, struct otlp_hold *h,
			 struct otlp_outcome *o);

/*
 * otlp_sink_grow - room for @need bytes of a body in @h (whose length
 * was not announced): the reservation doubles from 16 KiB up to @need,
 * capped at body_max. Returns 0, or -1 when the budget has no room
 * (@h keeps what it had). otlp_sink_took - count @n body bytes received.
 */
int otlp_sink_grow(struct otlp_sink *s, struct otlp_hold *h, size_t need);
void otlp_sink_took(struct otlp_sink *s, size_t n);

/*
 * otlp_sink_export - a whole body of @signal (@len bytes, gzip if
 * @gzip) in @enc: inflated (at most body_max), @h's reservation given
 * back, decoded, its spans put in the span table or its data points in
 * the metrics store, and counted. Fills @o: 200 with the result, or
 * 400 (not a request, bad gzip), 404 (metrics without a store), 413
 * (too large inflated, or over the decoder's memory). The caller still
 * owns @body.
 */
void otlp_sink_export(struct otlp_sink *s, struct otlp_hold *h, enum otlp_signal signal,
		      enum otlp_encoding enc, int gzip, const void *body, size_t len,
		      struct otlp_outcome *o);

/*
 * otlp_sink_answered - count an answer of @http by transport @via and,
 * for a refusal, log it at most once per 10 s per code, with the count
 * since and @why. otlp_sink_retry_after - a retry hint, seconds, drawn
 * uniformly from the configured range (for 429, 503 and UNAVAILABLE).
 */
void otlp_sink_answered(struct otlp_sink *s, enum otlp_via via, unsigned http, const char *why);

/* otlp_sink_denied - count a client turned away for @why (trace.otlp.denied). */
void otlp_sink_denied(struct otlp_sink *s, enum otlp_deny why);
unsigned otlp_sink_retry_after(struct otlp_sink *s);

/*
 * otlp_sink_release - give @h's reservation back (a body refused midway
 * keeps its request in flight). otlp_sink_done - the request is over:
 * its reservation and its place in flight given back; idempotent.
 */
void otlp_sink_release(struct otlp_sink *s, struct otlp_hold *h);
void otlp_sink_done(struct otlp_sink *s, struct otlp_hold *h);

/*
 * otlp_sink_event - an event of a transport worth a log line, logged
 * at most once per 10 s per @kind with the count since: with @count 1
 * also counted in stats.errors (a failure of its event loop, or a
 * protocol error that closed a connection), with 0 only logged
 * (libmicrohttpd's own complaints). otlp_sink_log - a line now, through
 * cfg->log. otlp_sink_listening - a transport's thread starts (@delta
 * 1) or stops (-1) serving: stats.listening counts transports.
 */
enum otlp_log_kind { OTLP_LOG_LOOP, OTLP_LOG_LIB, OTLP_LOG_N };
void otlp_sink_event(struct otlp_sink *s, enum otlp_log_kind kind, int pri, int count,
		     const char *msg);
void otlp_sink_log(struct otlp_sink *s, int pri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void otlp_sink_listening(struct otlp_sink *s, int delta);

#endif
