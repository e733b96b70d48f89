/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's OTLP/HTTP receiver (docs/trace-protocol.md §12):
 * libmicrohttpd on its own thread beside the agent's PDU loop, taking
 * POST /v1/traces in protobuf or JSON, gzip or identity, and putting each
 * span into the span table (core/spans.h). Names start with otlp_.
 *
 * Answers: 200 with an ExportTraceServiceResponse (partial_success when
 * a span was refused); 400 for a body that is not a valid request (or
 * bad gzip); 404 for other paths; 405 for other methods (Allow: POST);
 * with CORS on (cfg->cors, cors.h), 204 for a browser's preflight
 * (OPTIONS with Access-Control-Request-Method) from an origin allowed,
 * 403 for one from another, and every answer to an origin allowed
 * carries Access-Control-Allow-Origin (its origin) and Vary: Origin;
 * 413 for a body over body_max, before or after decompression, or over
 * the decoder's memory; 415 for another Content-Type or Content-Encoding;
 * 429 when max_inflight requests are already receiving their bodies
 * (a count cap, off by default); 503 when the bytes of the bodies being
 * received would pass buf_max (the byte budget). 429 and 503 carry a
 * Retry-After drawn uniformly from retry_min..retry_max seconds, so that
 * refused exporters do not come back together. Error bodies are a
 * google.rpc.Status in the request's encoding (text/plain when it has
 * none we know). Every answer is counted by code in the stats, every
 * refusal also logged, at most once per 10 s per code with the count.
 *
 * Memory: at most buf_max bytes of bodies being received (a body with a
 * Content-Length reserves it whole before the first byte is taken; a
 * chunked one as it grows), released as soon as the body is decoded;
 * decoding is one request at a time on the receiver's thread, taking at
 * most body_max (the inflated body) and OTLP_MEM_MAX (the decoder) more.
 * Worst case: buf_max + body_max + OTLP_MEM_MAX (64 + 16 + 64 MiB by
 * default) besides libmicrohttpd's 32 KiB a connection.
 *
 * Limits against slow, half-open and flooding clients (libmicrohttpd):
 * at most max_conns connections (beyond, libmicrohttpd accepts no more:
 * new ones wait in the kernel's accept queue until one closes), idle
 * connections closed after timeout_sec, 32 KiB for a connection's request
 * line and headers. No limit per address: on the default loopback
 * address every local exporter has the same one.
 *
 * Threads: one thread, started by otlp_http_start, serves every
 * connection (epoll) and is the only one calling tra_spans_record; it is
 * registered with liburcu. It writes the stats with relaxed atomic
 * stores, so any thread may read them (each field on its own is exact;
 * two fields read together may be a request apart). otlp_http_start and
 * otlp_http_stop are called by one controlling thread.
 */
#ifndef OTLP_HTTP_H
#define OTLP_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/spans.h"
#include "otlp.h"

#define OTLP_HTTP_PORT		4318
#define OTLP_HTTP_HOST		"127.0.0.1"
#define OTLP_HTTP_BUF_MIB	64	/* the byte budget of bodies being received, MiB */
#define OTLP_HTTP_BUF_MAX	((size_t)OTLP_HTTP_BUF_MIB << 20)
/*
 * Retry-After is whole seconds. The Node SDK gives up at once when the
 * hint is longer than what is left of its 10 s export timeout, so hints
 * stay short; three one-second slots spread refused exporters apart.
 */
#define OTLP_HTTP_RETRY_MIN	1
#define OTLP_HTTP_RETRY_MAX	3
/*
 * Idle connections: exporters keep one open between exports (5 s for
 * spans, 60 s for metrics by the SDKs' defaults) and reuse it; a server
 * that closes one at the moment a client reuses it makes that export
 * fail (ECONNRESET). Longer than those intervals, a close races nothing.
 */
#define OTLP_HTTP_IDLE_SEC	65

/* The answers the receiver gives, in the order of the stats' counts. */
#define OTLP_HTTP_ANSWERS(X) X(200) X(204) X(400) X(403) X(404) X(405) X(413) X(415) X(429) \
	X(503)

enum otlp_answer_ix {
#define OTLP_X(code) OTLP_ANSWER_##code,
	OTLP_HTTP_ANSWERS(OTLP_X)
#undef OTLP_X
	OTLP_ANSWER_N
};

/* What the receiver has done, for trace.otlp.* (docs/trace-protocol.md §12.4). */
struct otlp_http_stats {
	uint64_t answers[OTLP_ANSWER_N];	/* requests answered, by code */
	uint64_t spans_accepted;		/* spans the span table counted */
	uint64_t spans_rejected[OTLP_REJECT_N];	/* spans refused in partial_success */
	uint64_t bytes;		/* request body bytes received, as sent (before gunzip) */
	uint64_t inflight;	/* requests admitted whose bodies are not decoded yet */
	uint64_t buffered;	/* bytes reserved for their bodies */
	uint64_t buf_max;	/* the budget of those */
	uint64_t errors;	/* failures of the receiver's event loop */
	uint64_t listening;	/* 1 while the receiver serves, else 0 */
};

/* otlp_answer_code - the HTTP code of answer index @ix (OTLP_ANSWER_N: 0). */
unsigned otlp_answer_code(unsigned ix);

struct otlp_http_cfg {
	const char *host;	/* address to bind (name or literal); NULL: OTLP_HTTP_HOST */
	uint16_t port;		/* 0: any free port (tests; see otlp_http_port) */
	struct tra_spans *spans;
	size_t body_max;	/* 0: OTLP_BODY_MAX */
	size_t buf_max;		/* bytes of bodies being received; 0: OTLP_HTTP_BUF_MAX */
	unsigned max_conns;	/* 0: 256 */
	unsigned max_inflight;	/* requests receiving bodies at once; 0: no count cap */
	unsigned retry_min, retry_max;	/* Retry-After range, s; 0: OTLP_HTTP_RETRY_MIN/MAX */
	unsigned timeout_sec;	/* 0: OTLP_HTTP_IDLE_SEC */
	const char *cors;	/* origins allowed, checked (cors.h); NULL: no CORS (OPTIONS 405) */
	struct otlp_http_stats *stats;	/* the caller's, zeroed; NULL: the receiver's own */
	void (*log)(int pri, const char *msg);	/* syslog priority; may be NULL */
};

struct otlp_http;

/*
 * otlp_http_start - bind @cfg's address and start the receiver's thread.
 * Returns the receiver, or NULL with errno (EADDRINUSE for a port taken,
 * EINVAL, ENOMEM, or what name resolution or libmicrohttpd gave); the
 * reason is also logged once through cfg->log.
 */
struct otlp_http *otlp_http_start(const struct otlp_http_cfg *cfg);

/* otlp_http_port - the port @h listens on (the one bound, for port 0). */
uint16_t otlp_http_port(const struct otlp_http *h);

/* otlp_http_stop - close every connection, stop the thread, free @h (NULL: no-op). */
void otlp_http_stop(struct otlp_http *h);

/*
 * otlp_parse_addr - "[HOST:]PORT" (HOST a name, an IPv4 literal or a
 * bracketed IPv6 one) into @host (@cap bytes; "" when absent) and *@port.
 * Returns 0 or -EINVAL.
 */
int otlp_parse_addr(const char *s, char *host, size_t cap, uint16_t *port);

#endif
