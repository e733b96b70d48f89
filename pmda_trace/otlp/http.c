/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP/HTTP receiver: see http.h.
 */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <urcu.h>

#include "otlp.h"
#include "http.h"

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

#define ANSWER_MAX	512	/* an answer or Status body */
#define PATH		"/v1/traces"

struct otlp_http {
	struct MHD_Daemon *d;
	pthread_t thread;
	int stopfd;		/* eventfd: the thread's stop signal */
	uint16_t port;
	struct tra_spans *spans;
	size_t body_max, buf_max;
	unsigned max_inflight;
	void (*log)(const char *msg);
	/* the thread's alone */
	unsigned inflight;	/* requests receiving their bodies */
	size_t buffered;	/* bytes they hold */
	time_t last_log;
};

/* One request whose body is coming. */
struct req {
	enum otlp_encoding enc;
	int gzip;
	int busy;		/* the receiver's buffers were full: 503 */
	int too_big;		/* over body_max: 413 */
	char *buf;
	size_t len, cap;
};

static void say(const struct otlp_http_cfg *cfg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct otlp_http_cfg *cfg, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (cfg->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cfg->log(msg);
}

/* libmicrohttpd's own complaints (a connection limit hit...), at most one each 10 s. */
static void mhd_logger(void *cls, const char *fmt, va_list ap)
{
	struct otlp_http *h = cls;
	char msg[256];
	time_t now = time(NULL);
	size_t n;

	if (h->log == NULL || now - h->last_log < 10)
		return;
	h->last_log = now;
	n = (size_t)snprintf(msg, sizeof(msg), "OTLP receiver: ");
	vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
		msg[--n] = '\0';
	h->log(msg);
}

int otlp_parse_addr(const char *s, char *host, size_t cap, uint16_t *port)
{
	const char *colon, *p = s, *hs = NULL;
	size_t hl = 0;
	char *end;
	long v;

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
	errno = 0;
	v = strtol(p, &end, 10);
	if (*p == '\0' || *end != '\0' || errno || v < 0 || v > 65535)
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

/* Queue an answer of @status with @body (@len bytes) of @ctype; MHD_YES or MHD_NO. */
static MHD_RESULT send_answer(struct MHD_Connection *c, unsigned status,
		const char *ctype, const void *body, size_t len, int retry)
{
	struct MHD_Response *r;
	MHD_RESULT ret;

	r = MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
	if (r == NULL)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (retry)
		MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
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
static MHD_RESULT send_error(struct MHD_Connection *c, unsigned status, int enc,
		int grpc, const char *msg)
{
	char body[ANSWER_MAX];
	int n;

	if (enc < 0)
		return send_answer(c, status, "text/plain", msg, strlen(msg), status == 503);
	n = otlp_status_body((enum otlp_encoding)enc, grpc, msg, body, sizeof(body));
	return send_answer(c, status, type_of((enum otlp_encoding)enc), body,
			   n > 0 ? (size_t)n : 0, status == 503);
}

/* gRPC codes for the Status bodies */
#define GRPC_INVALID_ARGUMENT	3
#define GRPC_NOT_FOUND		5
#define GRPC_RESOURCE_EXHAUSTED	8
#define GRPC_UNIMPLEMENTED	12
#define GRPC_UNAVAILABLE	14

static int take_span(void *arg, const struct otlp_span *sp)
{
	struct tra_span_id id = { sp->service, NULL, sp->name, (int)sp->kind };
	int inst = tra_spans_record(arg, &id, sp->status == OTLP_STATUS_ERROR,
				    sp->start_ns, sp->end_ns);

	return inst > 0 ? 0 : -1;
}

/* The whole body is in: decode it, count its spans, answer. */
static MHD_RESULT finish(struct otlp_http *h, struct MHD_Connection *c, struct req *r)
{
	struct otlp_result res;
	void *plain = NULL;
	const void *body = r->buf;
	size_t len = r->len;
	char answer[ANSWER_MAX];
	MHD_RESULT ret;
	int err, n;

	if (r->busy)
		return send_error(c, 503, (int)r->enc, GRPC_UNAVAILABLE,
				  "the receiver is saturated; retry later");
	if (r->too_big)
		return send_error(c, 413, (int)r->enc, GRPC_RESOURCE_EXHAUSTED,
				  "request body too large");
	if (r->gzip) {
		err = otlp_gunzip(r->buf, r->len, h->body_max, &plain, &len);
		if (err == -EMSGSIZE)
			return send_error(c, 413, (int)r->enc, GRPC_RESOURCE_EXHAUSTED,
					  "request body too large after decompression");
		if (err < 0)
			return send_error(c, 400, (int)r->enc, GRPC_INVALID_ARGUMENT,
					  "bad gzip body");
		body = plain;
	}
	memset(&res, 0, sizeof(res));
	err = otlp_decode(r->enc, body, len, 0, take_span, h->spans, &res);
	free(plain);
	if (err == -ENOMEM)
		return send_error(c, 413, (int)r->enc, GRPC_RESOURCE_EXHAUSTED,
				  "request needs too much memory to decode");
	if (err < 0)
		return send_error(c, 400, (int)r->enc, GRPC_INVALID_ARGUMENT,
				  res.message[0] ? res.message : "not a valid ExportTraceServiceRequest");
	n = otlp_answer(r->enc, &res, answer, sizeof(answer));
	ret = send_answer(c, 200, type_of(r->enc), answer, n > 0 ? (size_t)n : 0, 0);
	return ret;
}

/* Take @n more body bytes into @r, within the caps. */
static void take_body(struct otlp_http *h, struct req *r, const char *data, size_t n)
{
	size_t need, cap;
	char *p;

	if (r->busy || r->too_big)
		return;
	if (n > h->body_max - r->len) {
		r->too_big = 1;
		goto drop;
	}
	need = r->len + n;
	if (need > r->cap) {
		cap = r->cap ? r->cap : 16384;
		while (cap < need)
			cap *= 2;
		if (cap > h->body_max)
			cap = h->body_max;
		if (h->buffered + (cap - r->cap) > h->buf_max ||
		    (p = realloc(r->buf, cap)) == NULL) {
			r->busy = 1;
			goto drop;
		}
		h->buffered += cap - r->cap;
		r->buf = p;
		r->cap = cap;
	}
	memcpy(r->buf + r->len, data, n);
	r->len += n;
	return;
drop:
	h->buffered -= r->cap;
	free(r->buf);
	r->buf = NULL;
	r->cap = r->len = 0;
}

static MHD_RESULT on_request(void *cls, struct MHD_Connection *c, const char *url,
		const char *method, const char *version, const char *upload_data,
		size_t *upload_data_size, void **con_cls)
{
	struct otlp_http *h = cls;
	struct req *r = *con_cls;
	const char *ct, *ce, *cl;
	int enc = -1;

	(void)version;
	if (r != NULL) {
		if (*upload_data_size) {
			take_body(h, r, upload_data, *upload_data_size);
			*upload_data_size = 0;
			return MHD_YES;
		}
		return finish(h, c, r);
	}
	/* the headers are in: check them before taking a body */
	ct = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
	if (ct && media_is(ct, "application/x-protobuf"))
		enc = OTLP_PROTOBUF;
	else if (ct && media_is(ct, "application/json"))
		enc = OTLP_JSON;
	if (strcmp(url, PATH) != 0)
		return send_error(c, 404, enc, GRPC_NOT_FOUND, "not found: OTLP traces go to " PATH);
	if (strcmp(method, MHD_HTTP_METHOD_POST) != 0)
		return send_error(c, 405, enc, GRPC_UNIMPLEMENTED, "method not allowed: POST only");
	if (enc < 0)
		return send_error(c, 415, -1, 0,
				  "unsupported media type: application/x-protobuf or application/json");
	ce = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_ENCODING);
	if (ce && !media_is(ce, "gzip") && !media_is(ce, "identity"))
		return send_error(c, 415, enc, GRPC_INVALID_ARGUMENT,
				  "unsupported content encoding: gzip or identity");
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && strtoull(cl, NULL, 10) > h->body_max)
		return send_error(c, 413, enc, GRPC_RESOURCE_EXHAUSTED, "request body too large");
	if (h->inflight >= h->max_inflight)
		return send_error(c, 503, enc, GRPC_UNAVAILABLE,
				  "the receiver is saturated; retry later");
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return send_error(c, 503, enc, GRPC_UNAVAILABLE, "out of memory; retry later");
	r->enc = (enum otlp_encoding)enc;
	r->gzip = ce && media_is(ce, "gzip");
	h->inflight++;
	*con_cls = r;
	return MHD_YES;
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
	h->buffered -= r->cap;
	h->inflight--;
	free(r->buf);
	free(r);
	*con_cls = NULL;
}

static void *serve(void *arg)
{
	struct otlp_http *h = arg;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	struct pollfd p[2] = {
		{ .fd = info ? info->epoll_fd : -1, .events = POLLIN },
		{ .fd = h->stopfd, .events = POLLIN },
	};

	rcu_register_thread();
	for (;;) {
		MHD_UNSIGNED_LONG_LONG to;
		int ms = 1000;

		if (MHD_get_timeout(h->d, &to) == MHD_YES && to < 1000)
			ms = (int)to;
		if (poll(p, 2, ms) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		MHD_run(h->d);
	}
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
		say(cfg, "OTLP receiver off: cannot resolve %s: %s", host, gai_strerror(err));
		errno = EINVAL;
		return NULL;
	}
	if ((h = calloc(1, sizeof(*h))) == NULL) {
		freeaddrinfo(ai);
		return NULL;
	}
	h->spans = cfg->spans;
	h->log = cfg->log;
	h->body_max = cfg->body_max ? cfg->body_max : OTLP_BODY_MAX;
	h->buf_max = cfg->buf_max ? cfg->buf_max : 4 * h->body_max;
	h->max_inflight = cfg->max_inflight ? cfg->max_inflight : 16;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	errno = 0;
	h->d = MHD_start_daemon(flags, cfg->port, NULL, NULL, on_request, h,
			/* first, or libmicrohttpd logs to stderr that it is not */
			MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, h,
			MHD_OPTION_SOCK_ADDR, ai->ai_addr,
			MHD_OPTION_CONNECTION_LIMIT, (unsigned)(cfg->max_conns ? cfg->max_conns : 256),
			MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(cfg->timeout_sec ? cfg->timeout_sec : 15),
			MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
			MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
			MHD_OPTION_END);
	freeaddrinfo(ai);
	if (h->d == NULL) {
		err = errno ? errno : EADDRINUSE;
		say(cfg, "OTLP receiver off: cannot listen on %s:%u: %s", host, cfg->port,
		    strerror(err));
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
		free(h);
		errno = err;
		return NULL;
	}
	say(cfg, "OTLP receiver listening on %s:%u", host, h->port);
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
	free(h);
}
