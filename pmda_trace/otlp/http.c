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
#include "http.h"
#include "parse_number.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

#define ANSWER_MAX	512	/* an answer or Status body */
#define PATH		"/v1/traces"
#define LOG_EVERY	10	/* seconds between two log lines of one kind */
#define LOOP_FAILS_MAX	50	/* event loop failures in a row before the receiver gives up */
#define TEXT_(x)	#x
#define TEXT(x)		TEXT_(x)

/* Rate-limited log lines of one kind: when the last went, how many since. */
struct log_gate {
	time_t last;
	uint64_t held;
};

struct otlp_http {
	struct MHD_Daemon *d;
	pthread_t thread;
	int stopfd;		/* eventfd: the thread's stop signal */
	uint16_t port;
	struct tra_spans *spans;
	size_t body_max, buf_max;
	unsigned max_inflight;
	unsigned retry_min, retry_span;	/* Retry-After: min + a draw below span */
	char *cors;		/* origins allowed (cors.h); NULL: no CORS */
	struct otlp_http_stats *st;
	struct otlp_http_stats own;	/* st when the caller gave none */
	void (*log)(int pri, const char *msg);
	/* the thread's alone */
	unsigned inflight;	/* requests admitted, bodies not decoded yet */
	size_t buffered;	/* bytes reserved for them */
	unsigned rand_state;
	struct log_gate gate_mhd, gate_loop, gate_answer[OTLP_ANSWER_N];
};

/* One request whose body is coming. */
struct req {
	enum otlp_encoding enc;
	int gzip;
	int busy;		/* the byte budget refused its body: 503 */
	int too_big;		/* over body_max: 413 */
	char *buf;
	size_t len, cap;
	size_t reserved;	/* bytes of the budget it holds */
};

static const unsigned answer_codes[] = {
#define OTLP_X(code) code,
	OTLP_HTTP_ANSWERS(OTLP_X)
#undef OTLP_X
};

unsigned otlp_answer_code(unsigned ix)
{
	return ix < OTLP_ANSWER_N ? answer_codes[ix] : 0;
}

static unsigned answer_ix(unsigned code)
{
	unsigned i;

	for (i = 0; i < OTLP_ANSWER_N && answer_codes[i] != code; i++)
		;
	return i;
}

/* The stats are read by the PMDA's thread: relaxed stores of the receiver's values. */
static void stat_add(uint64_t *field, uint64_t n)
{
	__atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

static void stat_set(uint64_t *field, uint64_t v)
{
	__atomic_store_n(field, v, __ATOMIC_RELAXED);
}

static void say(const struct otlp_http_cfg *cfg, int pri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void say(const struct otlp_http_cfg *cfg, int pri, const char *fmt, ...)
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

/*
 * One more event of @g's kind: 1 when it may be logged now, with
 * *@held the events since the last line (this one included), else 0.
 */
static int gate_pass(struct log_gate *g, uint64_t *held)
{
	time_t now = time(NULL);

	g->held++;
	if (g->last != 0 && now - g->last < LOG_EVERY)
		return 0;
	*held = g->held;
	g->held = 0;
	g->last = now;
	return 1;
}

/* libmicrohttpd's own complaints (a connection limit hit...), at most one each 10 s. */
static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	struct otlp_http *h = cls;
	char msg[256];
	uint64_t held;
	size_t n;

	if (h->log == NULL || !gate_pass(&h->gate_mhd, &held))
		return;
	n = (size_t)snprintf(msg, sizeof(msg), "OTLP receiver: ");
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	h->log(LOG_WARNING, msg);
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

/* Retry-After for a refusal: retry_min plus a uniform draw below retry_span. */
static unsigned retry_after(struct otlp_http *h)
{
	return h->retry_min + (h->retry_span > 1 ? (unsigned)rand_r(&h->rand_state) % h->retry_span : 0);
}

/*
 * Count an answer of @status and, for a refusal, log it at most once per
 * LOG_EVERY seconds per code, with how many there were since and @why.
 */
static void count_answer(struct otlp_http *h, unsigned status, const char *why)
{
	unsigned ix = answer_ix(status);
	uint64_t held;

	if (ix < OTLP_ANSWER_N)
		stat_add(&h->st->answers[ix], 1);
	if (status < 400 || h->log == NULL || ix == OTLP_ANSWER_N ||
	    !gate_pass(&h->gate_answer[ix], &held))
		return;
	{
		char msg[256];

		snprintf(msg, sizeof(msg), "OTLP receiver: %" PRIu64 " request%s answered %u "
			 "since the last such line: %s", held, held == 1 ? "" : "s", status, why);
		h->log(status >= 500 || status == 429 ? LOG_WARNING : LOG_INFO, msg);
	}
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

/* Queue an answer of @status with @body (@len bytes) of @ctype; MHD_YES or MHD_NO. */
static MHD_RESULT send_answer(struct otlp_http *h, struct MHD_Connection *c, unsigned status,
		const char *ctype, const void *body, size_t len, const char *why)
{
	struct MHD_Response *r;
	MHD_RESULT ret;
	char retry[16];

	count_answer(h, status, why);
	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	cors_headers(h, c, r);
	if (status == 429 || status == 503) {
		snprintf(retry, sizeof(retry), "%u", retry_after(h));
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
	}
	if (status == 405)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "POST");
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

/* gRPC codes for the Status bodies */
#define GRPC_INVALID_ARGUMENT	3
#define GRPC_NOT_FOUND		5
#define GRPC_RESOURCE_EXHAUSTED	8
#define GRPC_UNIMPLEMENTED	12
#define GRPC_UNAVAILABLE	14

static int take_span(void *arg, const struct otlp_span *sp)
{
	struct otlp_http *h = arg;
	struct tra_span_id id = { sp->service, sp->ns, sp->name, (int)sp->kind };
	int inst = tra_spans_record(h->spans, &id, sp->status == OTLP_STATUS_ERROR,
				    sp->start_ns, sp->end_ns);

	return inst > 0 ? 0 : -1;
}

/* Give back @r's buffer and its share of the budget. */
static void release_body(struct otlp_http *h, struct req *r)
{
	h->buffered -= r->reserved;
	stat_set(&h->st->buffered, h->buffered);
	free(r->buf);
	r->buf = NULL;
	r->cap = r->len = r->reserved = 0;
}

/* Decode @len bytes of @r's body (inflated if need be) and answer. */
static MHD_RESULT decode_answer(struct otlp_http *h, struct MHD_Connection *c,
		struct req *r, const void *body, size_t len)
{
	struct otlp_result res;
	char answer[ANSWER_MAX];
	int err, n;

	memset(&res, 0, sizeof(res));
	err = otlp_decode(r->enc, body, len, 0, take_span, h, &res);
	if (err == -ENOMEM)
		return send_error(h, c, 413, (int)r->enc, GRPC_RESOURCE_EXHAUSTED,
				  "request needs too much memory to decode");
	if (err < 0)
		return send_error(h, c, 400, (int)r->enc, GRPC_INVALID_ARGUMENT,
				  res.message[0] ? res.message : "not a valid ExportTraceServiceRequest");
	stat_add(&h->st->spans_accepted, res.accepted);
	for (unsigned i = 0; i < OTLP_REJECT_N; i++)
		if (res.rejected_by[i])
			stat_add(&h->st->spans_rejected[i], res.rejected_by[i]);
	n = otlp_answer(r->enc, &res, answer, sizeof(answer));
	return send_answer(h, c, 200, type_of(r->enc), answer, n > 0 ? (size_t)n : 0, NULL);
}

/*
 * The whole body is in: decode it and answer, its buffer given back
 * first, so the next bodies have the room while this one is answered.
 */
static MHD_RESULT finish(struct otlp_http *h, struct MHD_Connection *c, struct req *r)
{
	void *plain = NULL;
	size_t len = r->len;
	MHD_RESULT ret;
	int err;

	if (r->busy)
		return send_error(h, c, 503, (int)r->enc, GRPC_UNAVAILABLE,
				  "the receiver's buffers are full; retry later");
	if (r->too_big)
		return send_error(h, c, 413, (int)r->enc, GRPC_RESOURCE_EXHAUSTED,
				  "request body too large");
	if (r->gzip) {
		err = otlp_gunzip(r->buf, r->len, h->body_max, &plain, &len);
		release_body(h, r);
		if (err == -EMSGSIZE)
			return send_error(h, c, 413, (int)r->enc, GRPC_RESOURCE_EXHAUSTED,
					  "request body too large after decompression");
		if (err < 0)
			return send_error(h, c, 400, (int)r->enc, GRPC_INVALID_ARGUMENT,
					  "bad gzip body");
		ret = decode_answer(h, c, r, plain, len);
		free(plain);
		return ret;
	}
	ret = decode_answer(h, c, r, r->buf, r->len);
	release_body(h, r);
	return ret;
}

/*
 * Reserve room for @need bytes of @r's body from the budget: exactly
 * that for a length the headers gave (@exact), else doubling from 16 KiB
 * for a body still growing. 0, or -1 when the budget refuses (@r keeps
 * what it had).
 */
static int reserve_body(struct otlp_http *h, struct req *r, size_t need, int exact)
{
	size_t want = r->reserved ? r->reserved : 16384;

	if (need <= r->reserved)
		return 0;
	while (want < need)
		want *= 2;
	if (exact || want > h->body_max)
		want = need;
	if (want - r->reserved > h->buf_max - h->buffered)
		return -1;
	h->buffered += want - r->reserved;
	r->reserved = want;
	stat_set(&h->st->buffered, h->buffered);
	return 0;
}

/* Take @n more body bytes into @r, within the caps. */
static void take_body(struct otlp_http *h, struct req *r, const char *data, size_t n)
{
	char *p;

	stat_add(&h->st->bytes, n);
	if (r->busy || r->too_big)
		return;
	if (n > h->body_max - r->len) {
		r->too_big = 1;
		release_body(h, r);
		return;
	}
	if (r->len + n > r->cap) {
		if (reserve_body(h, r, r->len + n, 0) < 0 ||
		    (p = realloc(r->buf, r->reserved)) == NULL) {
			r->busy = 1;
			release_body(h, r);
			return;
		}
		r->buf = p;
		r->cap = r->reserved;
	}
	memcpy(r->buf + r->len, data, n);
	r->len += n;
}

/*
 * A browser's CORS preflight (CORS on): for POST from an origin allowed,
 * 204 with what the POST may carry; else 403 without it (the browser
 * then sends nothing), counted and logged as refusals are.
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
	count_answer(h, 204, NULL);
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

/* The headers are in: check them, and admit the request or answer it now. */
static MHD_RESULT admit(struct otlp_http *h, struct MHD_Connection *c, const char *url,
		const char *method, void **con_cls)
{
	const char *ct, *ce, *cl, *acrm;
	unsigned long long length = 0;
	struct req *r;
	int enc = -1;

	ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (ct && media_is(ct, "application/x-protobuf"))
		enc = OTLP_PROTOBUF;
	else if (ct && media_is(ct, "application/json"))
		enc = OTLP_JSON;
	if (strcmp(url, PATH) != 0)
		return send_error(h, c, 404, enc, GRPC_NOT_FOUND, "not found: OTLP traces go to " PATH);
	acrm = header(c, "Access-Control-Request-Method");
	if (h->cors && acrm && strcmp(method, MHD_HTTP_METHOD_OPTIONS) == 0)
		return preflight(h, c, acrm);
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return send_error(h, c, 405, enc, GRPC_UNIMPLEMENTED, "method not allowed: POST only");
	if (enc < 0)
		return send_error(h, c, 415, -1, 0,
				  "unsupported media type: application/x-protobuf or application/json");
	ce = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_ENCODING);
	if (ce && !media_is(ce, "gzip") && !media_is(ce, "identity"))
		return send_error(h, c, 415, enc, GRPC_INVALID_ARGUMENT,
				  "unsupported content encoding: gzip or identity");
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && (length = strtoull(cl, NULL, 10)) > h->body_max)
		return send_error(h, c, 413, enc, GRPC_RESOURCE_EXHAUSTED, "request body too large");
	if (h->max_inflight && h->inflight >= h->max_inflight)
		return send_error(h, c, 429, enc, GRPC_RESOURCE_EXHAUSTED,
				  "too many requests at once; retry later");
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return send_error(h, c, 503, enc, GRPC_UNAVAILABLE, "out of memory; retry later");
	r->enc = (enum otlp_encoding)enc;
	r->gzip = ce && media_is(ce, "gzip");
	/* a known length is reserved whole: refused now, before its bytes travel */
	if (length > 0 && reserve_body(h, r, (size_t)length, 1) < 0) {
		free(r);
		return send_error(h, c, 503, enc, GRPC_UNAVAILABLE,
				  "the receiver's buffers are full; retry later");
	}
	h->inflight++;
	stat_set(&h->st->inflight, h->inflight);
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
	h->inflight--;
	stat_set(&h->st->inflight, h->inflight);
	free(r);
	*con_cls = NULL;
}

/* A failure of the event loop: counted, logged (rate-limited), and a pause. */
static void loop_failed(struct otlp_http *h, const char *what, int err)
{
	uint64_t held;

	stat_add(&h->st->errors, 1);
	if (h->log != NULL && gate_pass(&h->gate_loop, &held)) {
		char msg[256];

		snprintf(msg, sizeof(msg), "OTLP receiver: %s failed (%" PRIu64 " time%s since "
			 "the last such line): %s", what, held, held == 1 ? "" : "s", strerror(err));
		h->log(LOG_ERR, msg);
	}
	poll(NULL, 0, 100);
}

/*
 * The receiver's thread. A failing poll (which should not happen) is
 * counted, logged and tried again after a pause; after LOOP_FAILS_MAX
 * in a row the receiver says it is off and stops (trace.otlp.listening
 * 0), rather than spin or vanish unseen.
 */
static void *serve(void *arg)
{
	struct otlp_http *h = arg;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd p[2] = {
		{ .fd = info ? info->epoll_fd : -1, .events = POLLIN },
		{ .fd = h->stopfd, .events = POLLIN },
	};
	unsigned fails = 0;

	rcu_register_thread();
	stat_set(&h->st->listening, 1);
	for (;;) {
		MHD_UNSIGNED_LONG_LONG to;
		int ms = 1000;

		if (MHD_get_timeout(h->d, &to) == MHD_YES && to < 1000)
			ms = (int)to;
		if (poll(p, 2, ms) < 0 && errno != EINTR) {
			loop_failed(h, "poll", errno);
			if (++fails < LOOP_FAILS_MAX)
				continue;
			if (h->log)
				h->log(LOG_ERR, "OTLP receiver off: its event loop keeps failing; "
				       "restart the agent to take spans again");
			break;
		}
		fails = 0;
		if (p[1].revents)
			break;
		if (MHD_run(h->d) != MHD_YES)
			loop_failed(h, "libmicrohttpd's MHD_run", errno ? errno : EIO);
	}
	stat_set(&h->st->listening, 0);
	rcu_unregister_thread();
	return NULL;
}

struct otlp_http *otlp_http_start(const struct otlp_http_cfg *cfg)
{
	const char *host = cfg->host && *cfg->host ? cfg->host : OTLP_HTTP_HOST;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	struct otlp_http *h;
	char port[8];
	unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
	int err;

	if (cfg->spans == NULL) {
		errno = EINVAL;
		return NULL;
	}
	snprintf(port, sizeof(port), "%u", cfg->port);
	if ((err = getaddrinfo(host, port, &hints, &ai)) != 0) {
		say(cfg, LOG_ERR, "OTLP receiver off: cannot resolve %s: %s", host, gai_strerror(err));
		errno = EINVAL;
		return NULL;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		freeaddrinfo(ai);
		return NULL;
	}
	h->spans = cfg->spans;
	h->log = cfg->log;
	if (cfg->cors && (h->cors = strdup(cfg->cors)) == NULL) {
		freeaddrinfo(ai);
		free(h);
		return NULL;
	}
	h->st = cfg->stats ? cfg->stats : &h->own;
	h->body_max = cfg->body_max ? cfg->body_max : OTLP_BODY_MAX;
	h->buf_max = cfg->buf_max ? cfg->buf_max : OTLP_HTTP_BUF_MAX;
	h->max_inflight = cfg->max_inflight;
	h->retry_min = cfg->retry_min ? cfg->retry_min : OTLP_HTTP_RETRY_MIN;
	h->retry_span = (cfg->retry_max ? cfg->retry_max : OTLP_HTTP_RETRY_MAX) + 1 - h->retry_min;
	if (cfg->retry_max && cfg->retry_max < h->retry_min)
		h->retry_span = 1;
	h->rand_state = (unsigned)time(NULL) ^ (unsigned)getpid();
	stat_set(&h->st->buf_max, h->buf_max);
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_request, h,
			/* first, or libmicrohttpd logs to stderr that it is not */
			MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, h,
			MHD_OPTION_SOCK_ADDR, ai->ai_addr,
			MHD_OPTION_CONNECTION_LIMIT, (unsigned)(cfg->max_conns ? cfg->max_conns : 256),
			MHD_OPTION_CONNECTION_TIMEOUT,
			(unsigned)(cfg->timeout_sec ? cfg->timeout_sec : OTLP_HTTP_IDLE_SEC),
			MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
			MHD_OPTION_END);
	freeaddrinfo(ai);
	if (h->d == NULL) {
		err = errno ? errno : EADDRINUSE;
		say(cfg, LOG_ERR, "OTLP receiver off: cannot listen on %s:%u: %s", host, cfg->port,
		    strerror(err));
		free(h->cors);
		free(h);
		errno = err;
		return NULL;
	}
	{
		const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d,
				MHD_DAEMON_INFO_BIND_PORT);

		h->port = info ? info->port : cfg->port;
	}
	if ((h->stopfd = eventfd(0, EFD_CLOEXEC)) < 0 ||
	    (err = pthread_create(&h->thread, NULL, serve, h)) != 0) {
		err = h->stopfd < 0 ? errno : err;
		if (h->stopfd >= 0)
			close(h->stopfd);
		MHD_stop_daemon(h->d);
		free(h->cors);
		free(h);
		errno = err;
		return NULL;
	}
	say(cfg, LOG_INFO, "OTLP receiver listening on %s:%u (buffers %zu MiB, Retry-After %u-%u s)",
	    host, h->port, h->buf_max >> 20, h->retry_min, h->retry_min + h->retry_span - 1);
	if (h->cors)
		say(cfg, LOG_INFO, "OTLP receiver: CORS for browsers from %.200s", h->cors);
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
	MHD_stop_daemon(h->d);	/* completes (frees) the open requests */
	close(h->stopfd);
	free(h->cors);
	free(h);
}
