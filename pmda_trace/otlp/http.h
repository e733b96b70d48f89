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
 * 413 for a body over body_max, before or after decompression, or over
 * the decoder's memory; 415 for another Content-Type or Content-Encoding;
 * 503 with Retry-After: 1 when the receiver is saturated: more than
 * max_inflight requests receiving their bodies at once, or the bodies
 * buffered by all of them over buf_max bytes. Error bodies are a
 * google.rpc.Status in the request's encoding (text/plain when it has
 * none we know).
 *
 * Limits against slow, half-open and flooding clients (libmicrohttpd):
 * at most max_conns connections (beyond, libmicrohttpd accepts no more:
 * new ones wait in the kernel's accept queue until one closes), idle connections (slow or half-open) closed after
 * timeout_sec, 32 KiB for a connection's request line and headers. No
 * limit per address: on the default loopback address every local exporter
 * has the same one, so max_conns is that limit.
 *
 * Threads: one thread, started by otlp_http_start, serves every
 * connection (epoll) and is the only one calling tra_spans_record; it is
 * registered with liburcu. otlp_http_start and otlp_http_stop are called
 * by one controlling thread. The thread never touches anything of the PDU
 * loop's but the span table, whose lock is held for microseconds a span.
 */
#ifndef OTLP_HTTP_H
#define OTLP_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "../core/spans.h"

#define OTLP_HTTP_PORT		4318
#define OTLP_HTTP_HOST		"127.0.0.1"

struct otlp_http_cfg {
	const char *host;	/* address to bind (name or literal); NULL: OTLP_HTTP_HOST */
	uint16_t port;		/* 0: any free port (tests; see otlp_http_port) */
	struct tra_spans *spans;
	size_t body_max;	/* 0: OTLP_BODY_MAX */
	size_t buf_max;		/* bytes buffered for all requests; 0: 4 x body_max */
	unsigned max_conns;	/* 0: 256 */
	unsigned max_inflight;	/* requests receiving bodies at once; 0: no count cap */
	unsigned timeout_sec;	/* 0: 15 */
	/* a refusal's Retry-After, seconds drawn uniformly from [retry_min,
	 * retry_max] so refused clients do not come back in lockstep */
	unsigned retry_min, retry_max;
	/* a line for the log at a syslog priority: LOG_INFO for "listening",
	 * LOG_WARNING or LOG_ERR for problems; may be NULL */
	void (*log)(int pri, const char *msg);
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
