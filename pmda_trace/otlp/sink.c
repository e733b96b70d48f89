/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP transports' sink: see sink.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "sink.h"
#include "../core/vlog.h"

#define LOG_EVERY	10	/* seconds between two log lines of one kind */
#define GROW_FIRST	16384	/* the first reservation of a body of no announced length */

/* Rate-limited log lines of one kind: when the last went, how many since. */
struct log_gate {
	time_t last;
	uint64_t held;
};

struct otlp_sink {
	struct tra_spans *spans;
	struct otel_store *metrics;
	size_t body_max, buf_max;
	unsigned max_inflight;
	unsigned retry_min, retry_span;	/* a hint: min + a draw below span */
	struct otlp_stats *st;
	struct otlp_stats own;	/* st when the caller gave none */
	void (*log)(int pri, const char *msg);
	size_t buffered;	/* atomic: bytes reserved for bodies */
	unsigned inflight;	/* atomic: requests admitted, not done */
	pthread_mutex_t lock;	/* the log gates and the draw */
	unsigned rand_state;
	struct log_gate gate_answer[OTLP_ANSWER_N], gate_event[OTLP_LOG_N];
};

static const unsigned answer_codes[] = {
#define OTLP_X(code) code,
	OTLP_HTTP_ANSWERS(OTLP_X)
#undef OTLP_X
};

static const struct { const char *http, *grpc; } signal_paths[OTLP_SIGNAL_N] = {
#define OTLP_X(id, http, grpc) [OTLP_SIGNAL_##id] = { http, grpc },
	OTLP_SIGNALS(OTLP_X)
#undef OTLP_X
};

enum otlp_signal otlp_signal_of(const char *path, size_t len, int grpc)
{
	unsigned i;

	for (i = 0; i < OTLP_SIGNAL_N; i++) {
		const char *p = grpc ? signal_paths[i].grpc : signal_paths[i].http;

		if (strlen(p) == len && memcmp(p, path, len) == 0)
			break;
	}
	return (enum otlp_signal)i;
}

int otlp_outcome_body(const struct otlp_outcome *o, enum otlp_encoding enc, void *buf, size_t cap)
{
	if (o->signal == OTLP_SIGNAL_METRICS)
		return otel_answer(enc, &o->mres, buf, cap);
	return otlp_answer(enc, &o->res, buf, cap);
}

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

/* The stats are read by the PMDA's thread: relaxed atomics. */
static void stat_add(uint64_t *field, uint64_t n)
{
	__atomic_fetch_add(field, n, __ATOMIC_RELAXED);
}

static void stat_set(uint64_t *field, uint64_t v)
{
	__atomic_store_n(field, v, __ATOMIC_RELAXED);
}

struct otlp_sink *otlp_sink_new(const struct otlp_sink_cfg *cfg)
{
	struct otlp_sink *s;

	if (cfg->spans == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->spans = cfg->spans;
	s->metrics = cfg->metrics;
	s->log = cfg->log;
	s->st = cfg->stats ? cfg->stats : &s->own;
	s->body_max = cfg->body_max ? cfg->body_max : OTLP_BODY_MAX;
	s->buf_max = cfg->buf_max ? cfg->buf_max : OTLP_HTTP_BUF_MAX;
	s->max_inflight = cfg->max_inflight;
	s->retry_min = cfg->retry_min ? cfg->retry_min : OTLP_HTTP_RETRY_MIN;
	s->retry_span = (cfg->retry_max ? cfg->retry_max : OTLP_HTTP_RETRY_MAX) + 1 - s->retry_min;
	if (cfg->retry_max && cfg->retry_max < s->retry_min)
		s->retry_span = 1;
	s->rand_state = (unsigned)time(NULL) ^ (unsigned)getpid();
	pthread_mutex_init(&s->lock, NULL);
	stat_set(&s->st->buf_max, s->buf_max);
	return s;
}

void otlp_sink_free(struct otlp_sink *s)
{
	if (s == NULL)
		return;
	pthread_mutex_destroy(&s->lock);
	free(s);
}

size_t otlp_sink_body_max(const struct otlp_sink *s)
{
	return s->body_max;
}

void otlp_sink_log(struct otlp_sink *s, int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tra_vlog(s->log, pri, fmt, ap);
	va_end(ap);
}

/*
 * One more event of @g's kind (@n of them): 1 when it may be logged now,
 * with *@held the events since the last line (these included), else 0.
 * Under s->lock.
 */
static int gate_pass(struct log_gate *g, uint64_t n, uint64_t *held)
{
	time_t now = time(NULL);

	g->held += n;
	if (g->last != 0 && now - g->last < LOG_EVERY)
		return 0;
	*held = g->held;
	g->held = 0;
	g->last = now;
	return 1;
}

void otlp_sink_event(struct otlp_sink *s, enum otlp_log_kind kind, int pri, int count,
		     const char *msg)
{
	uint64_t held = 0;
	int pass;

	if (count)
		stat_add(&s->st->errors, 1);
	if (s->log == NULL || (unsigned)kind >= OTLP_LOG_N)
		return;
	pthread_mutex_lock(&s->lock);
	pass = gate_pass(&s->gate_event[kind], 1, &held);
	pthread_mutex_unlock(&s->lock);
	if (pass)
		otlp_sink_log(s, pri, "%s (%" PRIu64 " time%s since the last such line)", msg, held,
			      held == 1 ? "" : "s");
}

void otlp_sink_listening(struct otlp_sink *s, int delta)
{
	__atomic_fetch_add(&s->st->listening, (uint64_t)(int64_t)delta, __ATOMIC_RELAXED);
}

void otlp_sink_denied(struct otlp_sink *s, enum otlp_deny why)
{
	if ((unsigned)why < OTLP_DENY_N)
		stat_add(&s->st->denied[why], 1);
}

unsigned otlp_sink_retry_after(struct otlp_sink *s)
{
	unsigned r = 0;

	if (s->retry_span > 1) {
		pthread_mutex_lock(&s->lock);
		r = (unsigned)rand_r(&s->rand_state) % s->retry_span;
		pthread_mutex_unlock(&s->lock);
	}
	return s->retry_min + r;
}

void otlp_sink_answered(struct otlp_sink *s, enum otlp_via via, unsigned http, const char *why)
{
	unsigned ix = answer_ix(http);
	uint64_t held = 0;
	int pass;

	if (ix < OTLP_ANSWER_N)
		stat_add(&s->st->answers[ix], 1);
	if ((unsigned)via < OTLP_VIA_N)
		stat_add(&s->st->via[via], 1);
	if (http < 400 || s->log == NULL || ix == OTLP_ANSWER_N)
		return;
	pthread_mutex_lock(&s->lock);
	pass = gate_pass(&s->gate_answer[ix], 1, &held);
	pthread_mutex_unlock(&s->lock);
	if (pass)
		otlp_sink_log(s, http >= 500 || http == 429 ? LOG_WARNING : LOG_INFO,
			      "OTLP receiver: %" PRIu64 " request%s answered %u since the last "
			      "such line: %s", held, held == 1 ? "" : "s", http, why ? why : "");
}

/* Take @want more bytes of the budget: 0, or -1 when it has no room. */
static int budget_take(struct otlp_sink *s, size_t want)
{
	size_t cur = __atomic_load_n(&s->buffered, __ATOMIC_RELAXED);

	do {
		if (want > s->buf_max - cur)
			return -1;
	} while (!__atomic_compare_exchange_n(&s->buffered, &cur, cur + want, 1,
					      __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	stat_set(&s->st->buffered, cur + want);
	return 0;
}

static void budget_give(struct otlp_sink *s, size_t n)
{
	size_t now = __atomic_sub_fetch(&s->buffered, n, __ATOMIC_RELAXED);

	stat_set(&s->st->buffered, now);
}

static unsigned refuse(struct otlp_outcome *o, unsigned http, int grpc, const char *why)
{
	memset(o, 0, sizeof(*o));
	o->http = http;
	o->grpc = grpc;
	o->why = why;
	return http;
}

unsigned otlp_sink_admit(struct otlp_sink *s, size_t length, struct otlp_hold *h,
			 struct otlp_outcome *o)
{
	unsigned n;

	if (length > s->body_max)
		return refuse(o, 413, OTLP_GRPC_RESOURCE_EXHAUSTED, "request body too large");
	n = __atomic_add_fetch(&s->inflight, 1, __ATOMIC_RELAXED);
	if (s->max_inflight && n > s->max_inflight) {
		__atomic_sub_fetch(&s->inflight, 1, __ATOMIC_RELAXED);
		return refuse(o, 429, OTLP_GRPC_RESOURCE_EXHAUSTED,
			      "too many requests at once; retry later");
	}
	/* a known length is reserved whole: refused now, before its bytes travel */
	if (length > 0 && budget_take(s, length) < 0) {
		__atomic_sub_fetch(&s->inflight, 1, __ATOMIC_RELAXED);
		return refuse(o, 503, OTLP_GRPC_UNAVAILABLE,
			      "the receiver's buffers are full; retry later");
	}
	h->reserved = length;
	h->admitted = 1;
	stat_set(&s->st->inflight, n);
	return 0;
}

int otlp_sink_grow(struct otlp_sink *s, struct otlp_hold *h, size_t need)
{
	size_t want = h->reserved ? h->reserved : GROW_FIRST;

	if (need <= h->reserved)
		return 0;
	while (want < need)
		want *= 2;
	if (want > s->body_max)
		want = need;
	if (budget_take(s, want - h->reserved) < 0)
		return -1;
	h->reserved = want;
	return 0;
}

void otlp_sink_took(struct otlp_sink *s, size_t n)
{
	stat_add(&s->st->bytes, n);
}

void otlp_sink_release(struct otlp_sink *s, struct otlp_hold *h)
{
	if (h->reserved) {
		budget_give(s, h->reserved);
		h->reserved = 0;
	}
}

void otlp_sink_done(struct otlp_sink *s, struct otlp_hold *h)
{
	otlp_sink_release(s, h);
	if (h->admitted) {
		h->admitted = 0;
		stat_set(&s->st->inflight, __atomic_sub_fetch(&s->inflight, 1, __ATOMIC_RELAXED));
	}
}

static int take_span(void *arg, const struct otlp_span *sp)
{
	struct otlp_sink *s = arg;
	struct tra_span_id id = { sp->service, sp->ns, sp->name, (int)sp->kind };
	int inst = tra_spans_record(s->spans, &id, sp->status == OTLP_STATUS_ERROR,
				    sp->start_ns, sp->end_ns);

	return inst > 0 ? 0 : -1;
}

static int take_point(void *arg, const struct otel_resource *r, const struct otel_metric *m,
		      const struct otel_point *p)
{
	return otel_record(arg, r, m, p);
}

/* Decode @len bytes of @o's signal into the span table or the metrics store. */
static int decode(struct otlp_sink *s, enum otlp_encoding enc, const void *body, size_t len,
		  struct otlp_outcome *o)
{
	if (o->signal == OTLP_SIGNAL_METRICS)
		return otel_decode(enc, body, len, 0, take_point, s->metrics, &o->mres);
	return otlp_decode(enc, body, len, 0, take_span, s, &o->res);
}

/* Count what a 200 took and refused. */
static void count(struct otlp_sink *s, const struct otlp_outcome *o)
{
	if (o->signal == OTLP_SIGNAL_METRICS) {
		stat_add(&s->st->points_accepted, o->mres.accepted);
		for (unsigned i = 0; i < OTEL_REJECT_N; i++)
			if (o->mres.rejected_by[i])
				stat_add(&s->st->points_rejected[i], o->mres.rejected_by[i]);
		return;
	}
	stat_add(&s->st->spans_accepted, o->res.accepted);
	for (unsigned i = 0; i < OTLP_REJECT_N; i++)
		if (o->res.rejected_by[i])
			stat_add(&s->st->spans_rejected[i], o->res.rejected_by[i]);
}

void otlp_sink_export(struct otlp_sink *s, struct otlp_hold *h, enum otlp_signal signal,
		      enum otlp_encoding enc, int gzip, const void *body, size_t len,
		      struct otlp_outcome *o)
{
	void *plain = NULL;
	const char *msg;
	int err;

	memset(o, 0, sizeof(*o));
	o->signal = signal;
	if (signal == OTLP_SIGNAL_METRICS && s->metrics == NULL) {
		otlp_sink_release(s, h);
		refuse(o, 404, OTLP_GRPC_UNIMPLEMENTED, "this receiver takes no metrics");
		return;
	}
	if (gzip) {
		err = otlp_gunzip(body, len, s->body_max, &plain, &len);
		/* the body as sent is no longer needed: its room goes to the next */
		otlp_sink_release(s, h);
		if (err == -EMSGSIZE) {
			refuse(o, 413, OTLP_GRPC_RESOURCE_EXHAUSTED,
			       "request body too large after decompression");
			return;
		}
		if (err < 0) {
			refuse(o, 400, OTLP_GRPC_INVALID_ARGUMENT, "bad gzip body");
			return;
		}
		body = plain;
	}
	err = decode(s, enc, body, len, o);
	free(plain);
	otlp_sink_release(s, h);
	if (err == -ENOMEM) {
		o->http = 413;
		o->grpc = OTLP_GRPC_RESOURCE_EXHAUSTED;
		o->why = "request needs too much memory to decode";
		return;
	}
	if (err < 0) {
		o->http = 400;
		o->grpc = OTLP_GRPC_INVALID_ARGUMENT;
		msg = signal == OTLP_SIGNAL_METRICS ? o->mres.message : o->res.message;
		o->why = msg[0] ? msg : signal == OTLP_SIGNAL_METRICS ?
			"not a valid ExportMetricsServiceRequest" :
			"not a valid ExportTraceServiceRequest";
		return;
	}
	o->http = 200;
	o->grpc = OTLP_GRPC_OK;
	count(s, o);
}
