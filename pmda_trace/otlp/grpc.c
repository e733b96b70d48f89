/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP/gRPC receiver: see grpc.h.
 */
#include <errno.h>
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
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <nghttp2/nghttp2.h>
#include <urcu.h>

#include "bind.h"
#include "grpc.h"
#include "guard.h"
#include "sink.h"
#include "tls.h"
#include "../core/access.h"

#define ANSWER_MAX	512	/* an Export*ServiceResponse */
#define DETAILS_MAX	128	/* a google.rpc.Status with a RetryInfo */
#define PREFIX		5	/* a message's compressed flag and length */
#define READ_MAX	16384	/* bytes read from a socket at once */
#define WINDOW		(1 << 20)	/* flow-control window of a stream and a connection */
#define EVENTS		64
#define LOOP_FAILS_MAX	50	/* event loop failures in a row before the receiver gives up */
#define RETRY_TYPE	"type.googleapis.com/google.rpc.RetryInfo"

/* One connection. */
struct conn {
	struct otlp_grpc *g;
	struct conn *prev, *next;
	int fd;
	nghttp2_session *s;
	struct call *calls;	/* the streams' calls */
	time_t heard;		/* when it last read or wrote a byte (monotonic s) */
	uint8_t *out;		/* output the socket did not take yet */
	size_t outlen, outcap;
	int events;		/* what epoll waits for */
	int slot;		/* the access list's entry charged, or -1 */
	enum access_verdict verdict;	/* not ACCESS_OK: every call refused, then GOAWAY */
	struct otlp_tls_conn *tls;	/* NULL: cleartext */
	int shaking;		/* its TLS handshake is not done */
};

/* One call (stream). */
struct call {
	struct conn *c;
	struct call *prev, *next;
	int32_t id;
	struct otlp_hold hold;
	size_t headers;		/* bytes of the header list so far */
	int post, gzip, ctype;	/* ctype: 0 none, 1 gRPC, -1 another */
	enum otlp_signal signal;	/* by :path; OTLP_SIGNAL_N: another method */
	int bad_encoding;	/* a grpc-encoding we do not take */
	int answered;		/* an answer is queued: the rest is discarded */
	int ended;		/* the client has ended its side */
	int admitted;		/* the message's length is reserved */
	enum otlp_auth auth;	/* its authorization metadata against the token */
	int auths;		/* how many it sent */
	uint8_t prefix[PREFIX];
	size_t plen;		/* prefix bytes in */
	uint8_t flag;		/* the message's compressed flag */
	size_t want, got;	/* the message's length, bytes in */
	uint8_t *msg;
	int extra;		/* bytes after the message: a second one */
	uint8_t out[PREFIX + ANSWER_MAX];	/* the answer message */
	size_t outlen, outoff;
};

struct otlp_grpc {
	pthread_t thread;
	int stopfd, ep;
	int lfd[OTLP_BIND_MAX];
	int nlfd;
	int accepting;		/* listeners in the epoll set */
	uint16_t port;
	struct otlp_sink *sink;
	unsigned max_conns, max_streams, idle_sec, stall_sec;
	void (*log)(int pri, const char *msg);
	struct access_list *access;	/* this receiver's copy of -A; NULL: everyone */
	const struct otlp_token *token;	/* NULL: none asked */
	const struct otlp_tls *tls;	/* NULL: cleartext */
	nghttp2_session_callbacks *cbs;
	nghttp2_option *opt;
	struct conn *conns;	/* the thread's alone from here */
	unsigned nconns;
};

static void say(const struct otlp_grpc_cfg *cfg, int pri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(const struct otlp_grpc_cfg *cfg, int pri, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (cfg->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg->log(pri, msg);
}

static time_t now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* A connection closed for a protocol error (or a limit): counted and logged. */
static void protocol_error(struct otlp_grpc *g, const char *why)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "OTLP/gRPC: a connection closed: %s", why);
	otlp_sink_event(g->sink, OTLP_LOG_LIB, LOG_WARNING, 1, msg);
}

/* A varint of @v at @p; returns the bytes written (at most 10). */
static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * A google.rpc.Status { code, details: [Any { RetryInfo { retry_delay:
 * Duration { seconds } } }] } for grpc-status-details-bin; its length.
 * The message is left out: grpc-message carries it.
 */
static size_t retry_status(int code, unsigned seconds, uint8_t *buf)
{
	uint8_t dur[12], info[16], any[64];
	size_t nd = 0, ni = 0, na = 0, n = 0;

	dur[nd++] = 0x08;	/* Duration.seconds */
	nd += put_varint(dur + nd, seconds);
	info[ni++] = 0x0a;	/* RetryInfo.retry_delay */
	info[ni++] = (uint8_t)nd;
	memcpy(info + ni, dur, nd);
	ni += nd;
	any[na++] = 0x0a;	/* Any.type_url */
	any[na++] = (uint8_t)(sizeof(RETRY_TYPE) - 1);
	memcpy(any + na, RETRY_TYPE, sizeof(RETRY_TYPE) - 1);
	na += sizeof(RETRY_TYPE) - 1;
	any[na++] = 0x12;	/* Any.value */
	any[na++] = (uint8_t)ni;
	memcpy(any + na, info, ni);
	na += ni;
	buf[n++] = 0x08;	/* Status.code */
	n += put_varint(buf + n, (uint64_t)code);
	buf[n++] = 0x1a;	/* Status.details */
	buf[n++] = (uint8_t)na;
	memcpy(buf + n, any, na);
	return n + na;
}

/* Base64 without padding (-bin metadata) of @len bytes into @out; its length. */
static size_t base64(const uint8_t *in, size_t len, char *out)
{
	static const char abc[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, n = 0;

	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];

		out[n++] = abc[v >> 18];
		out[n++] = abc[(v >> 12) & 63];
		out[n++] = abc[(v >> 6) & 63];
		out[n++] = abc[v & 63];
	}
	if (len - i == 1) {
		out[n++] = abc[in[i] >> 2];
		out[n++] = abc[(in[i] & 3) << 4];
	} else if (len - i == 2) {
		out[n++] = abc[in[i] >> 2];
		out[n++] = abc[((in[i] & 3) << 4) | (in[i + 1] >> 4)];
		out[n++] = abc[(in[i + 1] & 15) << 2];
	}
	out[n] = '\0';
	return n;
}

/* grpc-message: percent-encoded as gRPC's wire says (bytes outside 0x20-0x7e, and '%'). */
static void percent_encode(const char *s, char *out, size_t cap)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (; *s && n + 4 <= cap; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch < 0x20 || ch > 0x7e || ch == '%') {
			out[n++] = '%';
			out[n++] = hex[ch >> 4];
			out[n++] = hex[ch & 15];
		} else {
			out[n++] = (char)ch;
		}
	}
	out[n] = '\0';
}

#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), \
		   NGHTTP2_NV_FLAG_NO_COPY_NAME }

/*
 * Answer @k at once, counted as @http: Trailers-Only with gRPC status
 * @code and @why, or for 415 an HTTP 415 without one (the rest of the
 * body refused once it is sent: on_frame_send). UNAVAILABLE
 * carries a RetryInfo; an unknown grpc-encoding, the ones we take.
 */
static void answer_error(struct call *k, unsigned http, int code, const char *why)
{
	struct otlp_grpc *g = k->c->g;
	char status[8], msg[200], details[DETAILS_MAX * 2];
	uint8_t bin[DETAILS_MAX];
	nghttp2_nv nv[6] = {
		NV(":status", "200"),
		NV("content-type", "application/grpc"),
	};
	size_t n = 2;

	if (k->answered)
		return;
	k->answered = 1;
	otlp_sink_answered(g->sink, OTLP_VIA_GRPC, http, why);
	if (http == 415 && code < 0) {
		nghttp2_nv plain[] = { NV(":status", "415") };

		nghttp2_submit_response(k->c->s, k->id, plain, 1, NULL);
		return;
	}
	snprintf(status, sizeof(status), "%d", code);
	percent_encode(why, msg, sizeof(msg));
	nv[n++] = (nghttp2_nv)NV("grpc-status", status);
	nv[n++] = (nghttp2_nv)NV("grpc-message", msg);
	if (code == OTLP_GRPC_UNAVAILABLE) {
		size_t len = retry_status(code, otlp_sink_retry_after(g->sink), bin);

		base64(bin, len, details);
		nv[n++] = (nghttp2_nv)NV("grpc-status-details-bin", details);
	}
	if (k->bad_encoding)
		nv[n++] = (nghttp2_nv)NV("grpc-accept-encoding", "gzip,identity");
	nghttp2_submit_response(k->c->s, k->id, nv, n, NULL);
}

/* The answer message of a call, then its trailers. */
static ssize_t read_answer(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
		uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct call *k = src->ptr;
	size_t n = k->outlen - k->outoff;
	nghttp2_nv trailers[] = { NV("grpc-status", "0") };

	(void)user;
	if (n > length)
		n = length;
	memcpy(buf, k->out + k->outoff, n);
	k->outoff += n;
	if (k->outoff == k->outlen) {
		*flags |= NGHTTP2_DATA_FLAG_EOF | NGHTTP2_DATA_FLAG_NO_END_STREAM;
		if (nghttp2_submit_trailer(s, id, trailers, 1) != 0)
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	}
	return (ssize_t)n;
}

/* The body is whole: export its message and answer. */
static void finish(struct call *k)
{
	struct otlp_grpc *g = k->c->g;
	struct otlp_outcome o;
	nghttp2_nv nv[] = {
		NV(":status", "200"),
		NV("content-type", "application/grpc"),
	};
	nghttp2_data_provider dp = { .source.ptr = k, .read_callback = read_answer };
	int n;

	if (k->answered)
		return;
	if (k->plen == 0 || k->plen < PREFIX || k->got < k->want || k->extra) {
		answer_error(k, 400, OTLP_GRPC_INVALID_ARGUMENT, k->extra ?
			     "a unary call takes exactly one message; more came" :
			     k->plen == 0 ? "a unary call takes exactly one message; none came" :
			     "the message is truncated");
		return;
	}
	memset(&o, 0, sizeof(o));
	otlp_sink_export(g->sink, &k->hold, k->signal, OTLP_PROTOBUF, k->flag == 1,
			 k->msg ? k->msg : (const uint8_t *)"", k->got, &o);
	free(k->msg);
	k->msg = NULL;
	if (o.http != 200) {	/* 400 INVALID_ARGUMENT, 404 UNIMPLEMENTED, 413 RESOURCE_EXHAUSTED */
		answer_error(k, o.http, o.grpc, o.why ? o.why : "not a valid request");
		return;
	}
	n = otlp_outcome_body(&o, OTLP_PROTOBUF, k->out + PREFIX, sizeof(k->out) - PREFIX);
	if (n < 0)
		n = 0;
	k->out[0] = 0;
	k->out[1] = (uint8_t)((unsigned)n >> 24);
	k->out[2] = (uint8_t)((unsigned)n >> 16);
	k->out[3] = (uint8_t)((unsigned)n >> 8);
	k->out[4] = (uint8_t)n;
	k->outlen = PREFIX + (size_t)n;
	k->answered = 1;
	otlp_sink_answered(g->sink, OTLP_VIA_GRPC, 200, NULL);
	nghttp2_submit_response(k->c->s, k->id, nv, 2, &dp);
}

/*
 * A call on a connection the access list turned away: PERMISSION_DENIED
 * (403), or UNAVAILABLE with a retry hint (429) for a host at its
 * MAXCONN; then GOAWAY, so that the connection closes once it is sent.
 */
static void refuse_host(struct call *k)
{
	if (k->c->verdict == ACCESS_DENIED)
		answer_error(k, 403, OTLP_GRPC_PERMISSION_DENIED, "this host may not send here (-A)");
	else
		answer_error(k, 429, OTLP_GRPC_UNAVAILABLE,
			     "this host has its most connections open (-A); retry later");
	nghttp2_submit_goaway(k->c->s, NGHTTP2_FLAG_NONE, k->id, NGHTTP2_NO_ERROR, NULL, 0);
}

/* The bearer token: 0 when the call carries it, else 1 and UNAUTHENTICATED (401). */
static int unauthenticated(struct call *k)
{
	struct otlp_grpc *g = k->c->g;
	enum otlp_auth a = k->auths == 1 ? k->auth : k->auths ? OTLP_AUTH_WRONG : OTLP_AUTH_MISSING;

	if (a == OTLP_AUTH_OK)
		return 0;
	otlp_sink_denied(g->sink, a == OTLP_AUTH_MISSING ? OTLP_DENY_NO_TOKEN : OTLP_DENY_BAD_TOKEN);
	answer_error(k, 401, OTLP_GRPC_UNAUTHENTICATED, a == OTLP_AUTH_MISSING ?
		     "a bearer token is required (authorization: Bearer ...)" :
		     "the bearer token is not the one configured");
	return 1;
}

/* The headers are in: answer now what cannot be served. */
static void check_headers(struct call *k)
{
	if (k->c->verdict != ACCESS_OK)
		refuse_host(k);
	else if (k->c->g->token && unauthenticated(k))
		return;
	else if (k->ctype <= 0)
		answer_error(k, 415, -1, "unsupported content-type: application/grpc");
	else if (k->signal == OTLP_SIGNAL_N)
		answer_error(k, 404, OTLP_GRPC_UNIMPLEMENTED,
			     "unknown method: OTLP's are TraceService/Export and "
			     "MetricsService/Export");
	else if (!k->post)
		answer_error(k, 405, OTLP_GRPC_UNIMPLEMENTED, "method not allowed: POST only");
	else if (k->bad_encoding)
		answer_error(k, 415, OTLP_GRPC_UNIMPLEMENTED,
			     "unsupported grpc-encoding: gzip or identity");
}

/* The 5-byte prefix is in: admit its length, or refuse before the message travels. */
static void admit(struct call *k)
{
	struct otlp_grpc *g = k->c->g;
	struct otlp_outcome o;
	unsigned r;

	k->flag = k->prefix[0];
	k->want = (size_t)k->prefix[1] << 24 | (size_t)k->prefix[2] << 16 |
		  (size_t)k->prefix[3] << 8 | k->prefix[4];
	if (k->flag > 1 || (k->flag == 1 && !k->gzip)) {
		answer_error(k, 400, OTLP_GRPC_INVALID_ARGUMENT, k->flag > 1 ?
			     "bad compressed flag" : "a compressed message without grpc-encoding");
		return;
	}
	memset(&o, 0, sizeof(o));
	r = otlp_sink_admit(g->sink, k->want, &k->hold, &o);
	if (r == 413) {
		answer_error(k, 413, OTLP_GRPC_RESOURCE_EXHAUSTED, "message too large");
		return;
	}
	if (r != 0) {
		answer_error(k, r == 429 ? 429 : 503, OTLP_GRPC_UNAVAILABLE, r == 429 ?
			     "too many requests at once; retry later" :
			     "the receiver's buffers are full; retry later");
		return;
	}
	k->admitted = 1;
	if (k->want > 0 && (k->msg = malloc(k->want)) == NULL)
		answer_error(k, 503, OTLP_GRPC_UNAVAILABLE, "out of memory; retry later");
}

/* @len bytes of @k's body. */
static void take(struct call *k, const uint8_t *data, size_t len)
{
	while (len > 0 && !k->answered) {
		size_t n;

		if (k->plen < PREFIX) {
			n = PREFIX - k->plen < len ? PREFIX - k->plen : len;
			memcpy(k->prefix + k->plen, data, n);
			k->plen += n;
			if (k->plen == PREFIX)
				admit(k);
		} else if (k->got < k->want) {
			n = k->want - k->got < len ? k->want - k->got : len;
			memcpy(k->msg + k->got, data, n);
			k->got += n;
		} else {
			k->extra = 1;
			answer_error(k, 400, OTLP_GRPC_INVALID_ARGUMENT,
				     "a unary call takes exactly one message; more came");
			return;
		}
		data += n;
		len -= n;
	}
}

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct conn *c = user;
	struct call *k;

	if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	if ((k = calloc(1, sizeof(*k))) == NULL)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	k->c = c;
	k->id = f->hd.stream_id;
	k->signal = OTLP_SIGNAL_N;	/* until a :path names one */
	if (nghttp2_session_set_stream_user_data(s, f->hd.stream_id, k) != 0) {
		free(k);
		return 0;
	}
	k->next = c->calls;
	if (c->calls)
		c->calls->prev = k;
	c->calls = k;
	return 0;
}

/* A media type: application/grpc or application/grpc+proto, parameters aside. */
static int grpc_type(const uint8_t *v, size_t n)
{
	static const char base[] = "application/grpc";
	size_t b = sizeof(base) - 1;

	if (n < b || strncasecmp((const char *)v, base, b) != 0)
		return -1;
	v += b;
	n -= b;
	if (n >= 6 && strncasecmp((const char *)v, "+proto", 6) == 0) {
		v += 6;
		n -= 6;
	}
	return n == 0 || *v == ';' ? 1 : -1;
}

static int is(const uint8_t *v, size_t n, const char *want)
{
	return n == strlen(want) && memcmp(v, want, n) == 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
		size_t nlen, const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
	struct call *k = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);

	(void)flags;
	(void)user;
	if (k == NULL || f->hd.type != NGHTTP2_HEADERS)
		return 0;
	if (f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;	/* the client's trailers: nothing we read */
	k->headers += nlen + vlen + 32;
	if (k->headers > OTLP_GRPC_HEADERS_MAX) {
		otlp_sink_event(k->c->g->sink, OTLP_LOG_LIB, LOG_WARNING, 1,
				"OTLP/gRPC: a stream reset: its header list is over "
				"OTLP_GRPC_HEADERS_MAX bytes");
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;	/* RST_STREAM */
	}
	if (is(name, nlen, ":method"))
		k->post = is(value, vlen, "POST");
	else if (is(name, nlen, ":path"))
		k->signal = otlp_signal_of((const char *)value, vlen, 1);
	else if (is(name, nlen, "content-type"))
		k->ctype = grpc_type(value, vlen);
	else if (is(name, nlen, "authorization") && k->c->g->token) {
		k->auth = otlp_token_check(k->c->g->token, (const char *)value, vlen);
		k->auths++;
	} else if (is(name, nlen, "grpc-encoding")) {
		k->gzip = is(value, vlen, "gzip");
		k->bad_encoding = !k->gzip && !is(value, vlen, "identity");
	}
	return 0;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct call *k;

	(void)user;
	if (f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA)
		return 0;
	if ((k = nghttp2_session_get_stream_user_data(s, f->hd.stream_id)) == NULL)
		return 0;
	if (f->hd.flags & NGHTTP2_FLAG_END_STREAM)
		k->ended = 1;
	if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST)
		check_headers(k);
	if (f->hd.flags & NGHTTP2_FLAG_END_STREAM)
		finish(k);
	return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data,
		size_t len, void *user)
{
	struct conn *c = user;
	struct call *k = nghttp2_session_get_stream_user_data(s, id);

	(void)flags;
	otlp_sink_took(c->g->sink, len);
	if (k != NULL)
		take(k, data, len);
	return 0;
}

/* A call is over, however it ended: its share of the budget given back. */
static void call_free(struct call *k)
{
	struct conn *c = k->c;

	otlp_sink_done(c->g->sink, &k->hold);
	if (k->prev)
		k->prev->next = k->next;
	else
		c->calls = k->next;
	if (k->next)
		k->next->prev = k->prev;
	free(k->msg);
	free(k);
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t err, void *user)
{
	struct call *k = nghttp2_session_get_stream_user_data(s, id);

	(void)err;
	(void)user;
	if (k == NULL)
		return 0;
	nghttp2_session_set_stream_user_data(s, id, NULL);
	call_free(k);
	return 0;
}

/*
 * A GOAWAY of ours with an error: the connection is closing for a
 * protocol error. An answer sent while the client has not ended its
 * side: the rest of its body is not wanted, RST_STREAM NO_ERROR (gRPC's
 * way for a server that answered early), so its bytes stop coming.
 */
static int on_frame_send(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct conn *c = user;

	if (f->hd.type == NGHTTP2_HEADERS && (f->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
		struct call *k = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);

		if (k != NULL && !k->ended)
			nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, k->id, NGHTTP2_NO_ERROR);
	}
	if (f->hd.type == NGHTTP2_GOAWAY && f->goaway.error_code != NGHTTP2_NO_ERROR)
		protocol_error(c->g, nghttp2_http2_strerror(f->goaway.error_code));
	return 0;
}

/* nghttp2's callbacks and options, the same for every connection. */
static int session_setup(struct otlp_grpc *g)
{
	nghttp2_session_callbacks *cb;

	if (nghttp2_session_callbacks_new(&g->cbs) != 0 || nghttp2_option_new(&g->opt) != 0)
		return -1;
	cb = g->cbs;
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
	nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
	nghttp2_option_set_no_closed_streams(g->opt, 1);
	nghttp2_option_set_max_outbound_ack(g->opt, 100);
	nghttp2_option_set_max_settings(g->opt, 16);
	nghttp2_option_set_max_continuations(g->opt, 8);
	nghttp2_option_set_max_deflate_dynamic_table_size(g->opt, 4096);
	nghttp2_option_set_stream_reset_rate_limit(g->opt, OTLP_GRPC_RESET_BURST,
						   OTLP_GRPC_RESET_RATE);
	return 0;
}

static void conn_watch(struct conn *c)
{
	struct epoll_event ev = { .data.ptr = c };

	if (c->shaking)
		ev.events = otlp_tls_want_write(c->tls) ? EPOLLOUT : EPOLLIN;
	else {
		if (c->outlen < OTLP_GRPC_OUT_MAX)
			ev.events |= EPOLLIN;
		if (c->outlen > 0 || (c->tls && otlp_tls_want_write(c->tls)))
			ev.events |= EPOLLOUT;
	}
	if ((int)ev.events == c->events)
		return;
	c->events = (int)ev.events;
	epoll_ctl(c->g->ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void listen_watch(struct otlp_grpc *g, int on)
{
	if (g->accepting == on)
		return;
	g->accepting = on;
	for (int i = 0; i < g->nlfd; i++) {
		struct epoll_event ev = { .events = on ? EPOLLIN : 0, .data.ptr = &g->lfd[i] };

		epoll_ctl(g->ep, EPOLL_CTL_MOD, g->lfd[i], &ev);
	}
}

static void conn_close(struct conn *c)
{
	struct otlp_grpc *g = c->g;

	while (c->calls)	/* nghttp2_session_del frees streams without a word */
		call_free(c->calls);
	nghttp2_session_del(c->s);
	epoll_ctl(g->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	if (c->prev)
		c->prev->next = c->next;
	else
		g->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (g->access)
		tra_access_release(g->access, c->slot);
	otlp_tls_conn_free(c->tls);
	free(c->out);
	free(c);
	g->nconns--;
	listen_watch(g, 1);
}

/*
 * nghttp2's output into @c's buffer (at most OTLP_GRPC_OUT_MAX and a
 * frame), then as much of it as the socket takes. 0, or -1 when the
 * connection is to close.
 */
static int conn_flush(struct conn *c)
{
	while (c->outlen < OTLP_GRPC_OUT_MAX) {
		const uint8_t *data;
		ssize_t n = nghttp2_session_mem_send(c->s, &data);

		if (n < 0) {
			protocol_error(c->g, nghttp2_strerror((int)n));
			return -1;
		}
		if (n == 0)
			break;
		if (c->outlen + (size_t)n > c->outcap) {
			size_t cap = c->outlen + (size_t)n + 16384;
			uint8_t *p = realloc(c->out, cap);

			if (p == NULL)
				return -1;
			c->out = p;
			c->outcap = cap;
		}
		memcpy(c->out + c->outlen, data, (size_t)n);
		c->outlen += (size_t)n;
	}
	if (c->shaking)
		return 0;	/* the output waits for the handshake */
	while (c->outlen > 0) {
		const char *why = NULL;
		ssize_t n = c->tls ? otlp_tls_send(c->tls, c->out, c->outlen, &why) :
				     send(c->fd, c->out, c->outlen, MSG_NOSIGNAL);

		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if (n <= 0)
			break;
		memmove(c->out, c->out + n, c->outlen - (size_t)n);
		c->outlen -= (size_t)n;
		c->heard = now_sec();
	}
	if (c->outlen == 0 && !nghttp2_session_want_read(c->s) &&
	    !nghttp2_session_want_write(c->s))
		return -1;
	conn_watch(c);
	return 0;
}

/* Bytes from @c's socket into its session. 0, or -1 when the connection is to close. */
static int conn_read(struct conn *c)
{
	uint8_t buf[READ_MAX];
	ssize_t n, used;

	do {
		const char *why = NULL;

		n = c->tls ? otlp_tls_recv(c->tls, buf, sizeof(buf), &why) :
			     recv(c->fd, buf, sizeof(buf), 0);
		if (n < 0 && why != NULL)
			protocol_error(c->g, why);
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
		if (n == 0)
			return -1;
		c->heard = now_sec();
		if ((used = nghttp2_session_mem_recv(c->s, buf, (size_t)n)) < 0) {
			protocol_error(c->g, nghttp2_strerror((int)used));
			return -1;
		}
		/* records TLS decrypted but this call did not take: epoll does not see them */
	} while (c->tls && otlp_tls_pending(c->tls) > 0);
	return 0;
}

/*
 * The TLS handshake, as far as the socket allows. 0, or -1 when it
 * failed (counted, logged) and the connection is to close. It must end
 * within the stall time (sweep): a byte now and then does not keep it.
 */
static int conn_shake(struct conn *c)
{
	const char *why = NULL;
	char msg[200];
	int r = otlp_tls_handshake(c->tls, &why);

	if (r < 0) {
		otlp_sink_denied(c->g->sink, OTLP_DENY_TLS);
		snprintf(msg, sizeof(msg), "OTLP/gRPC: a TLS handshake failed: %s", why);
		otlp_sink_event(c->g->sink, OTLP_LOG_LIB, LOG_WARNING, 1, msg);
		return -1;
	}
	if (r == 0) {
		conn_watch(c);
		return 0;
	}
	c->shaking = 0;
	c->heard = now_sec();
	if (conn_read(c) < 0)	/* what came with the handshake's last flight */
		return -1;
	return conn_flush(c);
}

static void conn_accept(struct otlp_grpc *g, int lfd)
{
	nghttp2_settings_entry set[] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, g->max_streams },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, OTLP_GRPC_HEADERS_MAX },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, WINDOW },
		{ NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES, 1 },
	};
	struct conn *c;
	int fd, one = 1;

	while (g->nconns < g->max_conns) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct sockaddr_storage sa;
		socklen_t salen = sizeof(sa);
		enum access_verdict v = ACCESS_OK;
		int slot = -1;

		fd = accept4(lfd, (struct sockaddr *)&sa, &salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
			    errno != ECONNABORTED)
				otlp_sink_event(g->sink, OTLP_LOG_LOOP, LOG_ERR, 1,
						"OTLP/gRPC: accept failed");
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (g->access && (v = tra_access_admit_sa(g->access, (struct sockaddr *)&sa,
							  &slot)) != ACCESS_OK)
			otlp_sink_denied(g->sink, v == ACCESS_DENIED ? OTLP_DENY_HOST :
					 OTLP_DENY_HOST_LIMIT);
		if ((c = calloc(1, sizeof(*c))) == NULL) {
			if (g->access)
				tra_access_release(g->access, slot);
			close(fd);
			return;
		}
		c->g = g;
		c->fd = fd;
		c->slot = slot;
		c->verdict = v;
		c->heard = now_sec();
		c->events = EPOLLIN;
		ev.data.ptr = c;
		if (g->tls && (c->tls = otlp_tls_conn_new(g->tls, fd)) == NULL) {
			if (g->access)
				tra_access_release(g->access, slot);
			close(fd);
			free(c);
			otlp_sink_event(g->sink, OTLP_LOG_LOOP, LOG_ERR, 1,
					"OTLP/gRPC: cannot set up a TLS connection");
			return;
		}
		c->shaking = c->tls != NULL;
		if (nghttp2_session_server_new2(&c->s, g->cbs, c, g->opt) != 0 ||
		    nghttp2_submit_settings(c->s, NGHTTP2_FLAG_NONE, set,
					    sizeof(set) / sizeof(set[0])) != 0 ||
		    nghttp2_session_set_local_window_size(c->s, NGHTTP2_FLAG_NONE, 0,
							  WINDOW) != 0 ||
		    epoll_ctl(g->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			nghttp2_session_del(c->s);
			otlp_tls_conn_free(c->tls);
			close(fd);
			if (g->access)
				tra_access_release(g->access, slot);
			free(c);
			otlp_sink_event(g->sink, OTLP_LOG_LOOP, LOG_ERR, 1,
					"OTLP/gRPC: cannot set up a connection");
			return;
		}
		c->next = g->conns;
		if (g->conns)
			g->conns->prev = c;
		g->conns = c;
		g->nconns++;
		if ((c->shaking ? conn_shake(c) : conn_flush(c)) < 0)
			conn_close(c);
	}
	listen_watch(g, 0);
	otlp_sink_event(g->sink, OTLP_LOG_LIB, LOG_WARNING, 0,
			"OTLP/gRPC: at the connection limit; new ones wait");
}

/*
 * Connections past their time: with no call open and nothing to send,
 * idle_sec; with a call open or output waiting, stall_sec without a
 * byte either way (a slow or stuck client).
 */
static void sweep(struct otlp_grpc *g)
{
	time_t now = now_sec();
	struct conn *c, *next;

	for (c = g->conns; c != NULL; c = next) {
		int busy = c->calls != NULL || c->outlen > 0 || c->shaking;
		unsigned limit = busy ? g->stall_sec : g->idle_sec;

		next = c->next;
		if (c->verdict != ACCESS_OK && limit > OTLP_DENIED_SEC)
			limit = OTLP_DENIED_SEC;	/* a host turned away: its call, then gone */
		if (now - c->heard < (time_t)limit)
			continue;
		if (busy)
			otlp_sink_event(g->sink, OTLP_LOG_LIB, LOG_WARNING, 1,
					"OTLP/gRPC: a connection closed: a call stalled");
		conn_close(c);
	}
}

/* The receiver's thread. */
static void *serve(void *arg)
{
	struct otlp_grpc *g = arg;
	struct epoll_event ev[EVENTS];
	unsigned fails = 0;
	time_t swept = now_sec();

	rcu_register_thread();
	otlp_sink_listening(g->sink, 1);
	for (;;) {
		int n = epoll_wait(g->ep, ev, EVENTS, 1000);

		if (n < 0 && errno != EINTR) {
			otlp_sink_event(g->sink, OTLP_LOG_LOOP, LOG_ERR, 1,
					"OTLP/gRPC: epoll_wait failed");
			poll(NULL, 0, 100);
			if (++fails < LOOP_FAILS_MAX)
				continue;
			if (g->log)
				g->log(LOG_ERR, "OTLP/gRPC receiver off: its event loop keeps "
				       "failing; restart the agent to take spans again");
			break;
		}
		fails = 0;
		for (int i = 0; i < n; i++) {
			void *p = ev[i].data.ptr;
			struct conn *c = p;

			if (p == &g->stopfd)
				goto out;
			if (p >= (void *)g->lfd && p < (void *)(g->lfd + OTLP_BIND_MAX)) {
				conn_accept(g, *(int *)p);
				continue;
			}
			if (c->shaking) {
				if (conn_shake(c) < 0)
					conn_close(c);
				continue;
			}
			if ((ev[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) &&
			    conn_read(c) < 0) {
				conn_close(c);
				continue;
			}
			if (conn_flush(c) < 0)
				conn_close(c);
		}
		if (now_sec() != swept) {
			swept = now_sec();
			sweep(g);
		}
	}
out:
	otlp_sink_listening(g->sink, -1);
	rcu_unregister_thread();
	return NULL;
}

static void destroy(struct otlp_grpc *g)
{
	while (g->conns)
		conn_close(g->conns);
	for (int i = 0; i < g->nlfd; i++)
		close(g->lfd[i]);
	if (g->ep >= 0)
		close(g->ep);
	if (g->stopfd >= 0)
		close(g->stopfd);
	nghttp2_session_callbacks_del(g->cbs);
	nghttp2_option_del(g->opt);
	tra_access_free(g->access);
	free(g);
}

struct otlp_grpc *otlp_grpc_start(const struct otlp_grpc_cfg *cfg)
{
	struct otlp_grpc *g;
	char what[128];
	int err, n;

	if (cfg->sink == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((g = calloc(1, sizeof(*g))) == NULL)
		return NULL;
	g->stopfd = g->ep = -1;
	g->sink = cfg->sink;
	g->log = cfg->log;
	g->token = cfg->token;
	g->tls = cfg->tls;
	if (cfg->access && (g->access = tra_access_dup(cfg->access)) == NULL) {
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	g->max_conns = cfg->max_conns ? cfg->max_conns : OTLP_GRPC_CONNS;
	g->max_streams = cfg->max_streams ? cfg->max_streams : OTLP_GRPC_STREAMS;
	g->idle_sec = cfg->timeout_sec ? cfg->timeout_sec : OTLP_HTTP_IDLE_SEC;
	g->stall_sec = g->idle_sec < OTLP_GRPC_STALL_SEC ? g->idle_sec : OTLP_GRPC_STALL_SEC;
	if ((n = otlp_bind(cfg->host, cfg->port, 128, g->lfd, what, sizeof(what))) < 0) {
		say(cfg, LOG_ERR, "OTLP/gRPC receiver off: cannot listen on %s: %s", what,
		    strerror(-n));
		tra_access_free(g->access);
		free(g);
		errno = -n;
		return NULL;
	}
	g->nlfd = n;
	g->port = otlp_bound_port(g->lfd[0]);
	if (session_setup(g) < 0) {
		destroy(g);
		errno = ENOMEM;
		return NULL;
	}
	if ((g->ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (g->stopfd = eventfd(0, EFD_CLOEXEC)) < 0)
		goto fail;
	{
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &g->stopfd };

		if (epoll_ctl(g->ep, EPOLL_CTL_ADD, g->stopfd, &ev) < 0)
			goto fail;
	}
	for (int i = 0; i < g->nlfd; i++) {
		struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &g->lfd[i] };

		if (epoll_ctl(g->ep, EPOLL_CTL_ADD, g->lfd[i], &ev) < 0)
			goto fail;
	}
	g->accepting = 1;
	if ((err = pthread_create(&g->thread, NULL, serve, g)) != 0) {
		errno = err;
		goto fail;
	}
	say(cfg, LOG_INFO, "OTLP/gRPC receiver listening on %s (%u connections, %u streams each)",
	    what, g->max_conns, g->max_streams);
	return g;
fail:
	err = errno;
	say(cfg, LOG_ERR, "OTLP/gRPC receiver off: %s", strerror(err));
	destroy(g);
	errno = err;
	return NULL;
}

uint16_t otlp_grpc_port(const struct otlp_grpc *g)
{
	return g->port;
}

void otlp_grpc_stop(struct otlp_grpc *g)
{
	uint64_t one = 1;

	if (g == NULL)
		return;
	if (write(g->stopfd, &one, sizeof(one)) != sizeof(one))
		pthread_cancel(g->thread);	/* cannot happen with an eventfd */
	pthread_join(g->thread, NULL);
	destroy(g);
}
