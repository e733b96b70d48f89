/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TLS for the OTLP listeners, on GnuTLS (the library libmicrohttpd
 * already uses). Names start with otlp_tls_.
 *
 * Credentials: a certificate chain and its key (PEM files), and
 * optionally a CA file: with one, every client must present a
 * certificate that chains to it (mutual TLS), or the connection is
 * refused (gRPC: in the handshake; HTTP: libmicrohttpd only asks, so
 * each request checks, otlp_tls_peer_ok). Protocols: TLS 1.3 and 1.2
 * only, OTLP_TLS_PRIORITIES. A file that does not load fails
 * otlp_tls_load with a message naming the file and GnuTLS's reason; the
 * agent then does not start that listener (never a plaintext fallback).
 *
 * A server connection (gRPC's event loop): otlp_tls_conn_new on an
 * accepted non-blocking socket; otlp_tls_handshake until it returns 1
 * (0: call again when the socket is ready in the direction
 * otlp_tls_want_write says); then otlp_tls_recv and otlp_tls_send in
 * place of recv and send. ALPN: the client must offer "h2" (gRPC's).
 *
 * Threads: a struct otlp_tls is read-only once loaded and may serve any
 * number of threads; a connection belongs to one thread.
 */
#ifndef OTLP_TLS_H
#define OTLP_TLS_H

#include <stddef.h>
#include <sys/types.h>

/* TLS 1.3 and 1.2, GnuTLS's default suites for those, the server's order. */
#define OTLP_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:%SERVER_PRECEDENCE"
#define OTLP_TLS_FILE_MAX   (1 << 20)	/* bytes of a PEM file we read */

struct otlp_tls;
struct otlp_tls_conn;

/*
 * otlp_tls_load - the credentials in @cert, @key and @ca (NULL: no
 * client certificates asked for). 0 and *@out, or -1 with @why (@cap
 * bytes) saying which file and what is wrong.
 */
int otlp_tls_load(const char *cert, const char *key, const char *ca,
		  struct otlp_tls **out, char *why, size_t cap);
void otlp_tls_free(struct otlp_tls *t);

/* The PEM texts, for libmicrohttpd's options (ca: NULL when none). */
const char *otlp_tls_cert_pem(const struct otlp_tls *t);
const char *otlp_tls_key_pem(const struct otlp_tls *t);
const char *otlp_tls_ca_pem(const struct otlp_tls *t);

/*
 * otlp_tls_peer_ok - for a session libmicrohttpd set up (its
 * gnutls_session_t, passed as void *): 1 when @t asks for no client
 * certificate, or the client presented one that verified against the CA;
 * 0 otherwise.
 */
int otlp_tls_peer_ok(const struct otlp_tls *t, void *session);

/* A server connection on @fd (ALPN h2 required). NULL: no memory. */
struct otlp_tls_conn *otlp_tls_conn_new(const struct otlp_tls *t, int fd);
void otlp_tls_conn_free(struct otlp_tls_conn *c);

/*
 * otlp_tls_handshake - advance the handshake: 1 done, 0 not yet (wait
 * for the socket, otlp_tls_want_write), -1 failed (@why: GnuTLS's
 * reason, e.g. no certificate, an untrusted one, no common protocol).
 */
int otlp_tls_handshake(struct otlp_tls_conn *c, const char **why);

/* 1 when the connection waits to write (handshake or a send), else 0. */
int otlp_tls_want_write(const struct otlp_tls_conn *c);

/*
 * otlp_tls_recv - as recv(2) on a non-blocking socket: bytes read, 0 at
 * the peer's close, -1 with errno EAGAIN (nothing yet) or EPROTO (a TLS
 * error; @why). Call again while otlp_tls_pending says bytes are
 * buffered: epoll does not see them.
 */
ssize_t otlp_tls_recv(struct otlp_tls_conn *c, void *buf, size_t len, const char **why);
size_t otlp_tls_pending(struct otlp_tls_conn *c);

/*
 * otlp_tls_send - as send(2): bytes of @buf taken (at most one record),
 * or -1 with errno EAGAIN or EPROTO. After EAGAIN, the next call must
 * offer at least the bytes it offered before, from the same start (the
 * record is already sealed and goes first).
 */
ssize_t otlp_tls_send(struct otlp_tls_conn *c, const void *buf, size_t len, const char **why);

#endif
