/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's OTLP/HTTP transport (docs/trace-protocol.md §12):
 * libmicrohttpd on its own thread beside the agent's PDU loop, taking
 * POST /v1/traces in protobuf or JSON, gzip or identity, and handing
 * each body to the sink (sink.h), which admits it against the byte
 * budget, decodes it and puts its spans into the span table. Names start
 * with otlp_.
 *
 * Answers: 200 with an ExportTraceServiceResponse (partial_success when
 * a span was refused); 400 for a body that is not a valid request (or
 * bad gzip); 404 for other paths; 405 for other methods (Allow: POST);
 * with CORS on (cfg->cors, cors.h), 204 for a browser's preflight
 * (OPTIONS with Access-Control-Request-Method) from an origin allowed,
 * 403 for one from another, and every answer varies by Origin (Vary),
 * one to an origin allowed carrying Access-Control-Allow-Origin;
 * 413 for a body over the sink's body_max, before or after
 * decompression, or over the decoder's memory; 415 for another
 * Content-Type or Content-Encoding; 429 when the sink's count cap is
 * reached (off by default); 503 when the bytes of the bodies being
 * received would pass the sink's byte budget. 429 and 503 carry a
 * Retry-After drawn by the sink, so that refused exporters do not come
 * back together. Error bodies are a google.rpc.Status in the request's
 * encoding (text/plain when it has none we know). Every answer is
 * counted by the sink, every refusal also logged there.
 *
 * Listening: by default on both loopbacks (bind.h), one libmicrohttpd
 * daemon a socket, all served by the one thread.
 *
 * Memory: the sink's budget for bodies (a body with a Content-Length
 * reserves it whole before its first byte is taken; a chunked one as it
 * grows), and libmicrohttpd's 32 KiB a connection.
 *
 * Limits against slow, half-open and flooding clients (libmicrohttpd):
 * at most max_conns connections a listening socket (beyond,
 * libmicrohttpd accepts no more: new ones wait in the kernel's accept
 * queue until one closes), idle connections closed after timeout_sec,
 * 32 KiB for a connection's request line and headers. Per address, the
 * agent's access list (cfg->access, core/access.h) when one is given:
 * its verdict is taken as a connection opens, and the connection's first
 * request is answered 403 (PERMISSION_DENIED) for a host it refuses, 429
 * with a Retry-After for one at its MAXCONN, and closed; such a
 * connection has OTLP_DENIED_SEC to send that request.
 *
 * Authentication: with cfg->token, every request but a CORS preflight
 * must carry "Authorization: Bearer TOKEN" (guard.h), else 401
 * (UNAUTHENTICATED) with "WWW-Authenticate: Bearer". Each turned away
 * is counted by reason (otlp_sink_denied).
 *
 * Threads: one thread, started by otlp_http_start, serves every
 * connection (epoll); it is registered with liburcu. otlp_http_start
 * and otlp_http_stop are called by one controlling thread.
 */
#ifndef OTLP_HTTP_H
#define OTLP_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "otlp.h"
#include "sink.h"

#define OTLP_HTTP_PORT		4318

struct access_list;
struct otlp_token;
struct otlp_tls;
struct otlp_http_cfg {
	const char *host;	/* address to bind (name or literal); NULL or "": both loopbacks */
	uint16_t port;		/* 0: any free port (tests; see otlp_http_port) */
	struct otlp_sink *sink;	/* where bodies go; required */
	unsigned max_conns;	/* a listening socket's; 0: 256 */
	unsigned timeout_sec;	/* 0: OTLP_HTTP_IDLE_SEC */
	const char *cors;	/* origins allowed, checked (cors.h); NULL: no CORS (OPTIONS 405) */
	const struct access_list *access;	/* -A (copied: the receiver's counts are its own); NULL: everyone */
	const struct otlp_token *token;	/* every request must carry it (guard.h); NULL: none asked */
	const struct otlp_tls *tls;	/* HTTPS (tls.h); NULL: cleartext */
	void (*log)(int pri, const char *msg);	/* libmicrohttpd's lines; may be NULL */
};

struct otlp_http;

/*
 * otlp_http_start - bind @cfg's address and start the receiver's thread.
 * Returns the receiver, or NULL with errno (EADDRINUSE for a port taken,
 * EINVAL for no sink or an address that does not resolve, ENOMEM, or
 * what libmicrohttpd gave); the reason is also logged once through the
 * sink.
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
