/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's OTLP/gRPC receiver (docs/trace-protocol.md §12.7):
 * opentelemetry.proto.collector.trace.v1.TraceService/Export, a unary
 * call over cleartext HTTP/2 with prior knowledge (h2c), as the SDKs
 * that default to OTLP/gRPC send it (Python, .NET, Java). libnghttp2
 * speaks HTTP/2; the bodies go to the sink (sink.h), which admits,
 * decodes and counts them as it does OTLP/HTTP's. Names start with
 * otlp_grpc_.
 *
 * The call: POST to the Export path, content-type application/grpc (or
 * application/grpc+proto), grpc-encoding identity or gzip; its body one
 * length-prefixed message (a compressed flag, a 4-byte big-endian
 * length, an ExportTraceServiceRequest). Answers, with the HTTP code
 * each counts under in trace.otlp.requests:
 *   OK, an ExportTraceServiceResponse (partial_success when a span was
 *	refused) then the trailers grpc-status 0: 200;
 *   HTTP 415 for another content-type (no grpc-status): 415;
 *   UNIMPLEMENTED (12) for another path: 404; for another method: 405;
 *	for another grpc-encoding, with grpc-accept-encoding: 415;
 *   INVALID_ARGUMENT (3) for a body of no message, of more than one, a
 *	truncated one, a bad compressed flag, or one that is not a valid
 *	request or not gzip: 400;
 *   RESOURCE_EXHAUSTED (8) for a message longer than body_max, as
 *	announced or once inflated, or over the decoder's memory: 413;
 *   UNAVAILABLE (14), with a google.rpc.RetryInfo in
 *	grpc-status-details-bin (the sink's retry hint), when the sink
 *	refuses the announced length for its byte budget: 503; for its
 *	count cap: 429.
 *   PERMISSION_DENIED (7) on a connection from a host the access list
 *	(cfg->access) refuses: 403; UNAVAILABLE with a retry hint from a
 *	host at its MAXCONN: 429; either followed by GOAWAY, and such a
 *	connection closed after OTLP_DENIED_SEC if it sends nothing;
 *   UNAUTHENTICATED (16) with cfg->token, for a call without the
 *	metadata "authorization: Bearer TOKEN" (guard.h), or with another,
 *	or with two: 401.
 * Errors found before the body is whole are answered at once, Trailers-
 * Only, and the rest of the body refused (RST_STREAM NO_ERROR).
 *
 * Memory: a message's announced length is reserved from the sink's
 * budget whole, before its first byte is read, and given back when the
 * stream closes however it closes (a reset stream holds nothing). Per
 * connection besides that: nghttp2's session (its HPACK tables and at
 * most max_streams streams), 16 KiB for a header list, and at most
 * OTLP_GRPC_OUT_MAX bytes of output waiting for the socket (beyond, the
 * connection is not read until the client reads).
 *
 * Limits: at most max_conns connections (beyond, new ones wait in the
 * kernel's accept queue); max_streams concurrent streams a connection
 * (SETTINGS_MAX_CONCURRENT_STREAMS; more are refused by nghttp2); a
 * header list of at most OTLP_GRPC_HEADERS_MAX bytes; stream resets at
 * most OTLP_GRPC_RESET_BURST at once and OTLP_GRPC_RESET_RATE a second
 * (nghttp2's Rapid Reset limit); a connection with nothing going on
 * closed after timeout_sec, one with a call open that sends nothing (or
 * reads nothing it is sent) for min(timeout_sec, OTLP_GRPC_STALL_SEC).
 * A protocol error closes that connection only (GOAWAY) and is counted
 * in trace.otlp.errors and logged (rate-limited).
 *
 * Threads: one thread, started by otlp_grpc_start, serves every
 * connection (epoll) and calls otlp_sink_export; it is registered with
 * liburcu. otlp_grpc_start, otlp_grpc_port and otlp_grpc_stop are
 * called by one controlling thread.
 */
#ifndef OTLP_GRPC_H
#define OTLP_GRPC_H

#include <stdint.h>

#include "sink.h"

#define OTLP_GRPC_PORT		4317
#define OTLP_GRPC_CONNS		256	/* connections at most, by default */
#define OTLP_GRPC_STREAMS	100	/* concurrent streams a connection, by default */
#define OTLP_GRPC_HEADERS_MAX	16384	/* bytes of a header list (RFC 9113's count) */
#define OTLP_GRPC_STALL_SEC	15	/* a call's connection silent this long is closed */
#define OTLP_GRPC_OUT_MAX	65536	/* output bytes queued before reading stops */
#define OTLP_GRPC_RESET_BURST	200	/* stream resets a connection may send at once */
#define OTLP_GRPC_RESET_RATE	50	/* and a second after that */

struct access_list;
struct otlp_token;
struct otlp_tls;

struct otlp_grpc_cfg {
	const char *host;	/* address to bind (otlp_bind); NULL or "": both loopbacks */
	uint16_t port;		/* 0: any free port (tests; see otlp_grpc_port) */
	struct otlp_sink *sink;	/* admission, decoding, counts and log lines */
	unsigned max_conns;	/* 0: OTLP_GRPC_CONNS */
	unsigned max_streams;	/* 0: OTLP_GRPC_STREAMS */
	unsigned timeout_sec;	/* idle connections; 0: OTLP_HTTP_IDLE_SEC */
	const struct access_list *access;	/* -A (copied: the receiver's counts are its own); NULL: everyone */
	const struct otlp_token *token;	/* every call must carry it (guard.h); NULL: none asked */
	const struct otlp_tls *tls;	/* TLS with ALPN h2 (tls.h); NULL: cleartext h2c */
	void (*log)(int pri, const char *msg);	/* syslog priority; may be NULL */
};

struct otlp_grpc;

/*
 * otlp_grpc_start - bind @cfg's address (otlp_bind) and start the
 * receiver's thread. Returns the receiver, or NULL with errno
 * (EADDRINUSE for a port taken, EINVAL for no sink or a host that does
 * not resolve, ENOMEM, or what socket, epoll or pthread_create gave);
 * the reason is also logged once through cfg->log, and the caller runs
 * on without gRPC.
 */
struct otlp_grpc *otlp_grpc_start(const struct otlp_grpc_cfg *cfg);

/* otlp_grpc_port - the port @g listens on (the one bound, for port 0). */
uint16_t otlp_grpc_port(const struct otlp_grpc *g);

/*
 * otlp_grpc_stop - stop the thread, close every connection (their calls
 * given back to the sink) and the listening sockets, free @g (NULL:
 * no-op).
 */
void otlp_grpc_stop(struct otlp_grpc *g);

#endif
