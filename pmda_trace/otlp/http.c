/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP/HTTP receiver: see http.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <urcu.h>

#include "otlp.h"
#include "cors.h"
#include "guard.h"
#include "http.h"
#include "bind.h"
#include "parse_number.h"
#include "tls.h"
#include "../core/access.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

#define ANSWER_MAX	512	/* an answer or Status body */
#define LOOP_FAILS_MAX	50	/* event loop failures in a row before the receiver gives up */
#define TEXT_(x)	#x
#define TEXT(x)		TEXT_(x)

struct otlp_http {
	struct MHD_Daemon *d[OTLP_BIND_MAX];	/* one a listening socket */
	int nd;
	pthread_t thread;
	int stopfd;		/* eventfd: the thread's stop signal */
	uint16_t port;
	struct otlp_sink *sink;
	size_t body_max;
	char *cors;		/* origins allowed (cors.h); NULL: no CORS */
	struct access_list *access;	/* this receiver's copy of -A; NULL: everyone */
	const struct otlp_token *token;	/* NULL: none asked */
	const struct otlp_tls *tls;	/* NULL: cleartext */
	void (*log)(int pri, const char *msg);
};

/*
 * A connection's verdict from the access list, kept as its socket
 * context (no allocation): 0 admitted uncharged, n > 0 admitted and
 * charged to entry n - 1, or one of these.
 */
#define HOST_DENIED	((intptr_t)-1)
#define HOST_LIMIT	((intptr_t)-2)

/* One request whose body is coming. */
struct req {
	enum otlp_signal signal;
	enum otlp_encoding enc;
	int gzip;
	int busy;		/* the byte budget refused its body: 503 */
	int too_big;		/* over body_max: 413 */
	char *buf;
	size_t len, cap;
	struct otlp_hold hold;	/* its share of the budget */
};

/* libmicrohttpd's own complaints (a connection limit hit...), at most one each 10 s. */
static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	struct otlp_http *h = cls;
	char msg[256];
	size_t n;

	n = (size_t)snprintf(msg, sizeof(msg), "OTLP receiver: ");
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	/*
	 * A failed TLS handshake (a cleartext client, an old protocol, no
	 * common cipher) closes the connection inside libmicrohttpd, which
	 * tells no one but its log: "Error: received handshake message out
	 * of context." in 0.9.75 to 1.0.
	 */
	if (h->tls && strstr(msg, "handshake") != NULL)
		otlp_sink_denied(h->sink, OTLP_DENY_TLS);
	if (h->log == NULL)
		return;
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	otlp_sink_event(h->sink, OTLP_LOG_LIB, LOG_WARNING, 0, msg);
}

int otlp_parse_addr(const char *s, char *host, size_t cap, uint16_t *port)
{
	const char *colon, *p = s, *hs = NULL;
	size_t hl = 0;
	long long v;

	if (s == NULL || cap == 0)
		return -EINVAL;
	if (*s == '[') {	/* [v6]:port */
		const char *close = strchr(s, ']');

		if (close == NULL || close[1] != ':')
			return -EINVAL;
		hs = s + 1;
		hl = (size_t)(close - hs);
		p = close + 2;
	} else if ((colon = strrchr(s, ':')) != NULL) {
		if (strchr(s, ':') != colon)
			return -EINVAL;	/* a bare v6 literal needs brackets */
		hs = s;
		hl = (size_t)(colon - s);
		p = colon + 1;
	}
	if (hs != NULL && (hl == 0 || hl >= cap))
		return -EINVAL;
	if (sdk_parse_integer(p, 0, 65535, &v) < 0)
		return -EINVAL;
	memcpy(host, hs ? hs : "", hl);
	host[hl] = '\0';
	*port = (uint16_t)v;
	return 0;
}

/* A media type without parameters, case-insensitive: is it @want? */
static int media_is(const char *have, const char *want)
{
	size_t n = strlen(want);

	while (*have == ' ' || *have == '\t')
		have++;
	if (strncasecmp(have, want, n) != 0)
		return 0;
	have += n;
	while (*have == ' ' || *have == '\t')
		have++;
	return *have == '\0' || *have == ';';
}

static const char *type_of(enum otlp_encoding enc)
{
	return enc == OTLP_JSON ? "application/json" : "application/x-protobuf";
}

static const char *header(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

/*
 * With CORS on, every answer varies by Origin, and one to an origin
 * allowed says so (the origin itself, never "*": the answer may be cached).
 */
static void cors_headers(struct otlp_http *h, struct MHD_Connection *c, struct MHD_Response *r)
{
	const char *origin;

	if (h->cors == NULL)
		return;
	MHD_add_response_header(r, "Vary", "Origin");
	origin = header(c, "Origin");
	if (otlp_cors_allowed(h->cors, origin))
		MHD_add_response_header(r, "Access-Control-Allow-Origin", origin);
}

/* The access list's verdict on @c's connection (see HOST_DENIED). */
static intptr_t verdict_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? (intptr_t)ci->socket_context : 0;
}

/* Queue an answer of @status with @body (@len bytes) of @ctype; MHD_YES or MHD_NO. */
static MHD_RESULT send_answer(struct otlp_http *h, struct MHD_Connection *c, unsigned status,
		const char *ctype, const void *body, size_t len, const char *why)
{
	struct MHD_Response *r;
	MHD_RESULT ret;
	char retry[16];

	otlp_sink_answered(h->sink, OTLP_VIA_HTTP, status, why);
	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	cors_headers(h, c, r);
	if (status == 429 || status == 503) {
		snprintf(retry, sizeof(retry), "%u", otlp_sink_retry_after(h->sink));
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
	}
	if (status == 405)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST");
	if (status == 401)
		MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
	if (verdict_of(c) < 0)	/* a host turned away keeps no connection */
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * An error answer: a google.rpc.Status (@grpc code, @msg) in @enc, or
 * plain text when @enc < 0 (a request of no encoding we know).
 */
static MHD_RESULT send_error(struct otlp_http *h, struct MHD_Connection *c, unsigned status,
		int enc, int grpc, const char *msg)
{
	char body[ANSWER_MAX];
	int n;

	if (enc < 0)
		return send_answer(h, c, status, "text/plain", msg, strlen(msg), msg);
	n = otlp_status_body((enum otlp_encoding)enc, grpc, msg, body, sizeof(body));
	return send_answer(h, c, status, type_of((enum otlp_encoding)enc), body,
			   n > 0 ? (size_t)n : 0, msg);
}

/* The outcome @o as an answer: 200 with the result, else its error. */
static MHD_RESULT send_outcome(struct otlp_http *h, struct MHD_Connection *c,
		enum otlp_encoding enc, const struct otlp_outcome *o)
{
	char answer[ANSWER_MAX];
	int n;

	if (o->http != 200)
		return send_error(h, c, o->http, (int)enc, o->grpc, o->why);
	n = otlp_outcome_body(o, enc, answer, sizeof(answer));
	return send_answer(h, c, 200, type_of(enc), answer, n > 0 ? (size_t)n : 0, NULL);
}

/* Give back @r's buffer and its share of the budget. */
static void release_body(struct otlp_http *h, struct req *r)
{
	otlp_sink_release(h->sink, &r->hold);
	free(r->buf);
	r->buf = NULL;
	r->cap = r->len = 0;
}

/*
 * The whole body is in: decode it and answer, its buffer given back
 * first, so the next bodies have the room while this one is answered.
 */
static MHD_RESULT finish(struct otlp_http *h, struct MHD_Connection *c, struct req *r)
{
	struct otlp_outcome o;

	if (r->busy)
		return send_error(h, c, 503, (int)r->enc, OTLP_GRPC_UNAVAILABLE,
				  "the receiver's buffers are full; retry later");
	if (r->too_big)
		return send_error(h, c, 413, (int)r->enc, OTLP_GRPC_RESOURCE_EXHAUSTED,
				  "request body too large");
	otlp_sink_export(h->sink, &r->hold, r->signal, r->enc, r->gzip, r->buf, r->len, &o);
	release_body(h, r);
	return send_outcome(h, c, r->enc, &o);
}

/* Take @n more body bytes into @r, within the caps. */
static void take_body(struct otlp_http *h, struct req *r, const char *data, size_t n)
{
	char *p;

	otlp_sink_took(h->sink, n);
	if (r->busy || r->too_big)
		return;
	if (n > h->body_max - r->len) {
		r->too_big = 1;
		release_body(h, r);
		return;
	}
	if (r->len + n > r->cap) {
		if (otlp_sink_grow(h->sink, &r->hold, r->len + n) < 0 ||
		    (p = realloc(r->buf, r->hold.reserved)) == NULL) {
			r->busy = 1;
			release_body(h, r);
			return;
		}
		r->buf = p;
		r->cap = r->hold.reserved;
	}
	memcpy(r->buf + r->len, data, n);
	r->len += n;
}

/*
 * A browser's CORS preflight (CORS on) for @method: for POST from an
 * origin allowed, 204 with what the POST may carry; else 403 without it
 * (the browser then sends nothing), counted and logged as refusals are.
 */
static MHD_RESULT preflight(struct otlp_http *h, struct MHD_Connection *c, const char *method)
{
	const char *origin = header(c, "Origin");
	char allow[OTLP_CORS_HEADERS_MAX + 32], why[200];
	struct MHD_Response *r;
	MHD_RESULT ret;

	if (!otlp_cors_allowed(h->cors, origin) || strcmp(method, MHD_HTTP_METHOD_POST) != 0) {
		snprintf(why, sizeof(why), "CORS preflight for %.16s from an origin not allowed "
			 "(-C): %.100s", method, origin ? origin : "none");
		return send_error(h, c, 403, -1, 0, why);
	}
	otlp_sink_answered(h->sink, OTLP_VIA_HTTP, 204, NULL);
	r = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
	if (r == NULL)
		return MHD_NO;
	cors_headers(h, c, r);
	MHD_add_response_header(r, "Access-Control-Allow-Methods", MHD_HTTP_METHOD_POST);
	otlp_cors_allow_headers(header(c, "Access-Control-Request-Headers"), allow, sizeof(allow));
	MHD_add_response_header(r, "Access-Control-Allow-Headers", allow);
	MHD_add_response_header(r, "Access-Control-Max-Age", TEXT(OTLP_CORS_MAX_AGE));
	ret = MHD_queue_response(c, 204, r);
	MHD_destroy_response(r);
	return ret;
}

/*
 * The bearer token: 0 when the request carries it; else 1, the 401
 * queued and *@ret what queuing it gave.
 */
static int unauthorized(struct otlp_http *h, struct MHD_Connection *c, int enc, MHD_RESULT *ret)
{
	const char *v = header(c, MHD_HTTP_HEADER_AUTHORIZATION);
	enum otlp_auth a = otlp_token_check(h->token, v, v ? strlen(v) : 0);

	if (a == OTLP_AUTH_OK)
		return 0;
	otlp_sink_denied(h->sink, a == OTLP_AUTH_MISSING ? OTLP_DENY_NO_TOKEN : OTLP_DENY_BAD_TOKEN);
	*ret = send_error(h, c, 401, enc, OTLP_GRPC_UNAUTHENTICATED, a == OTLP_AUTH_MISSING ?
			  "a bearer token is required (Authorization: Bearer ...)" :
			  "the bearer token is not the one configured");
	return 1;
}

/*
 * With a CA (-K), the client's certificate: libmicrohttpd asks for one in
 * the handshake but takes a connection without it. 1 when trusted (or
 * none is asked for); 0 counted.
 */
static int peer_trusted(struct otlp_http *h, struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci;

	if (otlp_tls_ca_pem(h->tls) == NULL)
		return 1;
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	if (ci != NULL && otlp_tls_peer_ok(h->tls, ci->tls_session))
		return 1;
	otlp_sink_denied(h->sink, OTLP_DENY_TLS);
	return 0;
}

/* The headers are in: check them, and admit the request or answer it now. */
static MHD_RESULT admit(struct otlp_http *h, struct MHD_Connection *c, const char *url,
		const char *method, void **con_cls)
{
	const char *ct, *ce, *cl, *acrm;
	unsigned long long length = 0;
	struct otlp_outcome o;
	enum otlp_signal signal = otlp_signal_of(url, strlen(url), 0);
	struct req *r;
	int enc = -1;
	MHD_RESULT ret;

	ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (ct && media_is(ct, "application/x-protobuf"))
		enc = OTLP_PROTOBUF;
	else if (ct && media_is(ct, "application/json"))
		enc = OTLP_JSON;
	if (verdict_of(c) == HOST_DENIED)
		return send_error(h, c, 403, enc, OTLP_GRPC_PERMISSION_DENIED,
				  "this host may not send here (-A)");
	if (verdict_of(c) == HOST_LIMIT)
		return send_error(h, c, 429, enc, OTLP_GRPC_UNAVAILABLE,
				  "this host has its most connections open (-A); retry later");
	acrm = header(c, "Access-Control-Request-Method");
	if (h->cors && acrm && strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0)
		return preflight(h, c, acrm);
	if (h->tls && !peer_trusted(h, c))
		return send_error(h, c, 403, enc, OTLP_GRPC_PERMISSION_DENIED,
				  "a client certificate signed by the agent's CA (-K) is required");
	if (h->token && unauthorized(h, c, enc, &ret))
		return ret;
	if (signal == OTLP_SIGNAL_N)
		return send_error(h, c, 404, enc, OTLP_GRPC_NOT_FOUND,
				  "not found: " OTLP_SIGNAL_PATHS);
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return send_error(h, c, 405, enc, OTLP_GRPC_UNIMPLEMENTED,
				  "method not allowed: POST only");
	if (enc < 0)
		return send_error(h, c, 415, -1, 0,
				  "unsupported media type: application/x-protobuf or application/json");
	ce = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_ENCODING);
	if (ce && !media_is(ce, "gzip") && !media_is(ce, "identity"))
		return send_error(h, c, 415, enc, OTLP_GRPC_INVALID_ARGUMENT,
				  "unsupported content encoding: gzip or identity");
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && (length = strtoull(cl, NULL, 10)) > h->body_max)
		length = h->body_max + 1;	/* the sink refuses it: 413 */
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return send_error(h, c, 503, enc, OTLP_GRPC_UNAVAILABLE, "out of memory; retry later");
	if (otlp_sink_admit(h->sink, (size_t)length, &r->hold, &o) != 0) {
		free(r);
		return send_error(h, c, o.http, enc, o.grpc, o.why);
	}
	r->signal = signal;
	r->enc = (enum otlp_encoding)enc;
	r->gzip = ce && media_is(ce, "gzip");
	*con_cls = r;
	return MHD_YES;
}

static MHD_RESULT on_request(void *cls, struct MHD_Connection *c, const char *url,
		const char *method, const char *version, const char *upload_data,
		size_t *upload_data_size, void **con_cls)
{
	struct otlp_http *h = cls;
	struct req *r = *con_cls;

	(void)version;
	if (r == NULL)
		return admit(h, c, url, method, con_cls);
	if (*upload_data_size) {
		take_body(h, r, upload_data, *upload_data_size);
		*upload_data_size = 0;
		return MHD_YES;
	}
	return finish(h, c, r);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
		enum MHD_RequestTerminationCode why)
{
	struct otlp_http *h = cls;
	struct req *r = *con_cls;

	(void)c;
	(void)why;
	if (r == NULL)
		return;
	release_body(h, r);
	otlp_sink_done(h->sink, &r->hold);
	free(r);
	*con_cls = NULL;
}

/*
 * A connection opens or closes: the access list's verdict on its host,
 * kept as its socket context and answered at its first request (403, or
 * 429 for a host at its connection limit); a host turned away has
 * OTLP_DENIED_SEC to send that request, not the idle timeout.
 */
static void on_connection(void *cls, struct MHD_Connection *c, void **ctx,
		enum MHD_ConnectionNotificationCode toe)
{
	struct otlp_http *h = cls;
	const union MHD_ConnectionInfo *ci;
	intptr_t v = (intptr_t)*ctx;
	int slot;

	if (h->access == NULL)
		return;
	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if (v > 0)
			tra_access_release(h->access, (int)(v - 1));
		*ctx = NULL;
		return;
	}
	ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	if (ci == NULL || ci->client_addr == NULL)
		return;
	switch (tra_access_admit_sa(h->access, ci->client_addr, &slot)) {
	case ACCESS_OK:
		*ctx = (void *)(intptr_t)(slot + 1);
		return;
	case ACCESS_DENIED:
		otlp_sink_denied(h->sink, OTLP_DENY_HOST);
		*ctx = (void *)HOST_DENIED;
		break;
	default:
		otlp_sink_denied(h->sink, OTLP_DENY_HOST_LIMIT);
		*ctx = (void *)HOST_LIMIT;
		break;
	}
	MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, (unsigned)OTLP_DENIED_SEC);
}

/* A failure of the event loop: counted, logged (rate-limited), and a pause. */
static void loop_failed(struct otlp_http *h, const char *what, int err)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "OTLP receiver: %s failed: %s", what, strerror(err));
	otlp_sink_event(h->sink, OTLP_LOG_LOOP, LOG_ERR, 1, msg);
	poll(NULL, 0, 100);
}

/*
 * The receiver's thread: one libmicrohttpd daemon a listening socket,
 * each polled by its epoll descriptor. A failing poll (which should not
 * happen) is counted, logged and tried again after a pause; after
 * LOOP_FAILS_MAX in a row the receiver says it is off and stops
 * (trace.otlp.listening goes down), rather than spin or vanish unseen.
 */
static void *serve(void *arg)
{
	struct otlp_http *h = arg;
	struct pollfd p[OTLP_BIND_MAX + 1];
	unsigned fails = 0;
	int i;

	for (i = 0; i < h->nd; i++) {
		const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d[i],
				MHD_DAEMON_INFO_EPOLL_FD);

		p[i].fd = info ? info->epoll_fd : -1;
		p[i].events = POLLIN;
	}
	p[h->nd].fd = h->stopfd;
	p[h->nd].events = POLLIN;
	rcu_register_thread();
	otlp_sink_listening(h->sink, 1);
	for (;;) {
		MHD_UNSIGNED_LONG_LONG to;
		int ms = 1000;

		for (i = 0; i < h->nd; i++)
			if (MHD_get_timeout(h->d[i], &to) == MHD_YES && to < (unsigned)ms)
				ms = (int)to;
		if (poll(p, (nfds_t)h->nd + 1, ms) < 0 && errno != EINTR) {
			loop_failed(h, "poll", errno);
			if (++fails < LOOP_FAILS_MAX)
				continue;
			otlp_sink_log(h->sink, LOG_ERR, "OTLP receiver off: its event loop keeps "
				      "failing; restart the agent to take spans again");
			break;
		}
		fails = 0;
		if (p[h->nd].revents)
			break;
		for (i = 0; i < h->nd; i++)
			if (MHD_run(h->d[i]) != MHD_YES)
				loop_failed(h, "libmicrohttpd's MHD_run", errno ? errno : EIO);
	}
	otlp_sink_listening(h->sink, -1);
	rcu_unregister_thread();
	return NULL;
}

static void stop_daemons(struct otlp_http *h)
{
	for (int i = 0; i < h->nd; i++)
		MHD_stop_daemon(h->d[i]);	/* completes (frees) the open requests */
	h->nd = 0;
}

/* libmicrohttpd's options for TLS (@o: five items), or none. */
static struct MHD_OptionItem *tls_options(const struct otlp_http *h, struct MHD_OptionItem *o)
{
	int n = 0;

	if (h->tls) {
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						  (void *)otlp_tls_cert_pem(h->tls) };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0,
						  (void *)otlp_tls_key_pem(h->tls) };
		o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						  (void *)OTLP_TLS_PRIORITIES };
		if (otlp_tls_ca_pem(h->tls))
			o[n++] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_TRUST, 0,
							  (void *)otlp_tls_ca_pem(h->tls) };
	}
	o[n] = (struct MHD_OptionItem){ MHD_OPTION_END, 0, NULL };
	return o;
}

struct otlp_http *otlp_http_start(const struct otlp_http_cfg *cfg)
{
	struct MHD_OptionItem tlsopt[5];
	int fds[OTLP_BIND_MAX], n, err = 0;
	char where[128];
	struct otlp_http *h;

	if (cfg->sink == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->sink = cfg->sink;
	h->log = cfg->log;
	h->body_max = otlp_sink_body_max(cfg->sink);
	h->stopfd = -1;
	h->token = cfg->token;
	h->tls = cfg->tls;
	if (cfg->cors && (h->cors = strdup(cfg->cors)) == NULL) {
		free(h);
		return NULL;
	}
	if (cfg->access && (h->access = tra_access_dup(cfg->access)) == NULL) {
		free(h->cors);
		free(h);
		return NULL;
	}
	if ((n = otlp_bind(cfg->host, cfg->port, SOMAXCONN, fds, where, sizeof(where))) < 0) {
		otlp_sink_log(h->sink, LOG_ERR, "OTLP/HTTP receiver off: cannot listen on %s: %s",
			      where, n == -EINVAL ? "no such address" : strerror(-n));
		tra_access_free(h->access);
		free(h->cors);
		free(h);
		errno = -n;
		return NULL;
	}
	h->port = otlp_bound_port(fds[0]);
	for (int i = 0; i < n; i++) {
		errno = 0;
		h->d[h->nd] = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_ERROR_LOG |
				(h->tls ? MHD_USE_TLS : 0), 0, NULL, NULL,
				on_request, h,
				/* first, or libmicrohttpd logs to stderr that it is not */
				MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, h,
				MHD_OPTION_LISTEN_SOCKET, fds[i],
				MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)(cfg->max_conns ? cfg->max_conns : 256),
				MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned)(cfg->timeout_sec ? cfg->timeout_sec : OTLP_HTTP_IDLE_SEC),
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
				MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
				MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
				MHD_OPTION_ARRAY, tls_options(h, tlsopt),
				MHD_OPTION_END);
		if (h->d[h->nd] == NULL) {
			err = errno ? errno : EIO;
			for (int j = i; j < n; j++)
				close(fds[j]);
			stop_daemons(h);
			otlp_sink_log(h->sink, LOG_ERR, "OTLP/HTTP receiver off: libmicrohttpd "
				      "refused the socket of %s: %s", where, strerror(err));
			tra_access_free(h->access);
			free(h->cors);
			free(h);
			errno = err;
			return NULL;
		}
		h->nd++;
	}
	if ((h->stopfd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    (err = pthread_create(&h->thread, NULL, serve, h)) != 0) {
		err = h->stopfd < 0 ? errno : err;
		if (h->stopfd >= 0)
			close(h->stopfd);
		stop_daemons(h);
		tra_access_free(h->access);
		free(h->cors);
		free(h);
		errno = err;
		return NULL;
	}
	otlp_sink_log(h->sink, LOG_INFO, "OTLP/HTTP receiver listening on %s", where);
	if (h->cors)
		otlp_sink_log(h->sink, LOG_INFO, "OTLP/HTTP receiver: CORS for browsers from %.200s",
			      h->cors);
	return h;
}

uint16_t otlp_http_port(const struct otlp_http *h)
{
	return h->port;
}

void otlp_http_stop(struct otlp_http *h)
{
	uint64_t one = 1;

	if (h == NULL)
		return;
	if (write(h->stopfd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(h->thread);	/* cannot happen with an eventfd */
	pthread_join(h->thread, NULL);
	stop_daemons(h);
	close(h->stopfd);
	tra_access_free(h->access);
	free(h->cors);
	free(h);
}
