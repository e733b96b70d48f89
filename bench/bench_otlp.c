/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_otlp: an OTLP/HTTP and OTLP/gRPC load generator for the trace
 * agent's receiver (docs/trace-protocol.md §12; bench/run-otlp.sh runs it).
 *
 *   bench_otlp load PORT AGENTPID ENC CONNS SECONDS [SHAPE]
 *       ENC: proto | json | gzip (protobuf, gzip'd) | grpc. Pre-encodes 64
 *       distinct ExportTraceServiceRequests of 512 spans each (the SDK's
 *       batch: one resource, 2 services x 50 span names over the set,
 *       16-byte trace and 8-byte span IDs, durations log-uniform from
 *       10 us to 10 s, 1 % errors), then sends them for SECONDS over CONNS
 *       connections (one thread each), each waiting for the answer before
 *       its next request: keep-alive HTTP/1.1 with Content-Length bodies
 *       (POST /v1/traces), or for grpc h2c with prior knowledge
 *       (libnghttp2), one unary TraceService/Export call at a time on a
 *       connection, the same protobuf bodies 5-byte length-prefixed, the
 *       grpc-status trailer read (non-0 counted with the non-200s).
 *       SHAPE: plain (default; 4 attributes, no events, no links, a
 *       5-attribute resource) or real (real_span: 20 attributes of every
 *       type, 3 events, 2 links, a trace_state on an eighth, a status
 *       message on errors, a 13-attribute resource; 850-950 bytes a span
 *       in protobuf). JSON is written as @opentelemetry/exporter-trace-
 *       otlp-http writes it (to_json). Body 0 of a protobuf run is decoded
 *       by protobuf-c and checked (check_proto) before the load.
 *   bench_otlp names PORT AGENTPID N ROUNDS
 *       ROUNDS spans for each of N distinct SERVICE/SPAN names (100
 *       services), 512 spans a request over one connection: the agent's
 *       memory at N instances.
 *   bench_otlp metrics PORT AGENTPID proto|grpc SERIES SECONDS [sum|hist|metrics]
 *       OpenTelemetry metrics (docs/otlp-metrics.md): pre-encodes 64
 *       ExportMetricsServiceRequests of SERIES data points each, as one
 *       service's SDK exports them (the real shape's resource of 13
 *       attributes; SERIES
 *       series of one cumulative monotonic Sum, http.route x
 *       http.request.method, values growing from body to body; or of a
 *       Histogram with the SDK's 15 default bounds; or, with "metrics",
 *       SERIES different metrics of one series each), and sends them as
 *       load does (POST /v1/metrics, or MetricsService/Export). SERIES 1
 *       is the request's cost, 1000 a large service's export.
 *   bench_otlp dump proto|json plain|real
 *       Writes one request's body to standard output.
 *
 * Prints "key value" lines: the shape, its bytes a span (bytes_per_span,
 * in ENC), spans/s (points for metrics: every "span" key says "point"), request times (p50, p99, max, ms), non-200 answers,
 * answers with partial_success, the agent's CPU (utime + stime from
 * /proc/AGENTPID/stat, before and after) per span in ns, its VmRSS and
 * VmHWM (KiB) before and after.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <zlib.h>
#include <nghttp2/nghttp2.h>

#include "otlp_trace.pb-c.h"
#include "otlp_metrics.pb-c.h"

#define BATCH		512	/* spans a request: the SDK's default batch */
#define NBODIES		64	/* distinct bodies, sent round robin */
#define NSERVICES	2
#define NNAMES		50
#define MAXLAT		(1 << 22)	/* request times kept per connection */

typedef Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest Req;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans RSpans;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans SSpans;
typedef Opentelemetry__Proto__Trace__V1__Span Span;
typedef Opentelemetry__Proto__Trace__V1__KeyValue KV;
typedef Opentelemetry__Proto__Trace__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Trace__V1__Resource Resource;
typedef Opentelemetry__Proto__Trace__V1__InstrumentationScope Scope;
typedef Opentelemetry__Proto__Trace__V1__Status Status;
typedef Opentelemetry__Proto__Trace__V1__Span__Event Span__Event;
typedef Opentelemetry__Proto__Trace__V1__Span__Link Span__Link;

struct body {
	char *data;
	size_t len;
};

typedef Opentelemetry__Proto__Trace__V1__ExportMetricsServiceRequest MReq;
typedef Opentelemetry__Proto__Trace__V1__ResourceMetrics RMetrics;
typedef Opentelemetry__Proto__Trace__V1__ScopeMetrics SMetrics;
typedef Opentelemetry__Proto__Trace__V1__Metric Metric;
typedef Opentelemetry__Proto__Trace__V1__Sum MSum;
typedef Opentelemetry__Proto__Trace__V1__Histogram MHist;
typedef Opentelemetry__Proto__Trace__V1__NumberDataPoint NPoint;
typedef Opentelemetry__Proto__Trace__V1__HistogramDataPoint HPoint;

static const char *const services[NSERVICES] = { "frontend", "checkout-service" };
static const char *const verbs[] = { "GET", "POST", "PUT", "DELETE", "PATCH" };
static const char *const things[] = { "cart", "product", "user", "order", "payment",
	"inventory", "session", "review", "shipment", "coupon" };

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL) {
		perror("bench_otlp: calloc");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static KV *kv_str(const char *key, const char *val)
{
	KV *kv = xmalloc(sizeof(*kv));
	AnyValue *v = xmalloc(sizeof(*v));

	opentelemetry__proto__trace__v1__key_value__init(kv);
	opentelemetry__proto__trace__v1__any_value__init(v);
	kv->key = xstrdup(key);
	v->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE;
	v->string_value = xstrdup(val);
	kv->value = v;
	return kv;
}

static KV *kv_int(const char *key, int64_t val)
{
	KV *kv = kv_str(key, "");

	free(kv->value->string_value);
	kv->value->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_INT_VALUE;
	kv->value->int_value = val;
	return kv;
}

static KV *kv_dbl(const char *key, double val)
{
	KV *kv = kv_int(key, 0);

	kv->value->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_DOUBLE_VALUE;
	kv->value->double_value = val;
	return kv;
}

static KV *kv_bool(const char *key, int val)
{
	KV *kv = kv_int(key, 0);

	kv->value->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_BOOL_VALUE;
	kv->value->bool_value = val != 0;
	return kv;
}

static KV *kv_strs(const char *key, const char *const *vals, size_t n)
{
	KV *kv = kv_int(key, 0);
	Opentelemetry__Proto__Trace__V1__ArrayValue *a = xmalloc(sizeof(*a));

	opentelemetry__proto__trace__v1__array_value__init(a);
	a->n_values = n;
	a->values = xmalloc(n * sizeof(AnyValue *));
	for (size_t i = 0; i < n; i++) {
		a->values[i] = xmalloc(sizeof(AnyValue));
		opentelemetry__proto__trace__v1__any_value__init(a->values[i]);
		a->values[i]->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE;
		a->values[i]->string_value = xstrdup(vals[i]);
	}
	kv->value->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_ARRAY_VALUE;
	kv->value->array_value = a;
	return kv;
}

static void rand_bytes(ProtobufCBinaryData *b, size_t n)
{
	b->len = n;
	b->data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		b->data[i] = (uint8_t)rnd();
}

static const char *const flags_seen[] = { "beta", "v2" };

static KV **kvs(size_t n)
{
	return xmalloc(n * sizeof(KV *));
}

static Span__Event *event(const char *name, uint64_t t, KV *a, KV *b)
{
	Span__Event *ev = xmalloc(sizeof(*ev));

	opentelemetry__proto__trace__v1__span__event__init(ev);
	ev->name = xstrdup(name);
	ev->time_unix_nano = t;
	ev->n_attributes = 2;
	ev->attributes = kvs(2);
	ev->attributes[0] = a;
	ev->attributes[1] = b;
	return ev;
}

/*
 * The real shape's attributes, events and links on @sp (name index @k,
 * HTTP @status): what the Node SDK's HTTP instrumentation and an
 * application's own calls set, 850-950 bytes a span in protobuf.
 */
static void real_span(Span *sp, unsigned k, int status)
{
	const char *thing = things[k / 5 % 10];
	unsigned id = (unsigned)(rnd() % 10000);
	char buf[160];
	KV **at;

	if (rnd() % 8 == 0)
		sp->trace_state = xstrdup("congo=t61rcWkgMzE,rojo=00f067aa0ba902b7");
	/* W3C flags, and "has is_remote" (0x100), remote (0x200) with a parent */
	sp->flags = 0x101 | (sp->parent_span_id.len ? 0x200 : 0);
	sp->n_attributes = 20;
	sp->attributes = at = kvs(20);
	at[0] = kv_str("http.request.method", verbs[k % 5]);
	snprintf(buf, sizeof(buf), "http://api/v1/%s/%04u", thing, id);
	at[1] = kv_str("url.full", buf);
	at[2] = kv_str("url.path", buf + 10);
	at[3] = kv_str("url.scheme", "http");
	snprintf(buf, sizeof(buf), "/v1/%s/{id}", thing);
	at[4] = kv_str("http.route", buf);
	at[5] = kv_str("server.address", "api");
	at[6] = kv_int("server.port", 80);
	at[7] = kv_int("http.response.status_code", status);
	at[8] = kv_str("user_agent.original", "okhttp/4.12");
	at[9] = kv_str("network.protocol.version", "1.1");
	snprintf(buf, sizeof(buf), "10.0.%u.%u", (unsigned)(rnd() % 8), (unsigned)(rnd() % 254 + 1));
	at[10] = kv_str("client.address", buf);
	at[11] = kv_int("network.peer.port", 32768 + (int64_t)(rnd() % 28000));
	at[12] = kv_int("app.attempt", 1 + (int64_t)(rnd() % 3));
	snprintf(buf, sizeof(buf), "u%06x", (unsigned)(rnd() & 0xffffff));
	at[13] = kv_str("app.user.id", buf);
	at[14] = kv_int("app.items", (int64_t)(rnd() % 12));
	/* never integral: the SDK sends integral numbers as intValue */
	at[15] = kv_dbl("app.total", (double)(rnd() % 50000) + 0.25);
	at[16] = kv_bool("app.cached", (int)(rnd() % 2));
	at[17] = kv_strs("app.flags", flags_seen, 1 + rnd() % 2);
	at[18] = kv_bool("app.canary", rnd() % 10 == 0);
	at[19] = kv_str("app.tier", "web");
	sp->n_events = 3;
	sp->events = xmalloc(3 * sizeof(Span__Event *));
	sp->events[0] = event("message", sp->start_time_unix_nano + 1000,
			      kv_str("message.type", "SENT"), kv_int("message.id", 1));
	sp->events[1] = event("retry", sp->start_time_unix_nano + 2000,
			      kv_int("retry.count", 1), kv_int("retry.delay_ms", 100));
	sp->events[2] = event("exception", sp->end_time_unix_nano - 1000,
			      kv_str("exception.type", "Error"), kv_str("exception.message", "ETIMEDOUT"));
	sp->n_links = 2;
	sp->links = xmalloc(2 * sizeof(Span__Link *));
	for (size_t j = 0; j < 2; j++) {
		Span__Link *l = xmalloc(sizeof(*l));

		opentelemetry__proto__trace__v1__span__link__init(l);
		rand_bytes(&l->trace_id, 16);
		rand_bytes(&l->span_id, 8);
		l->flags = 0x301;
		l->n_attributes = 1;
		l->attributes = kvs(1);
		l->attributes[0] = kv_str("link.kind", j ? "batch" : "cause");
		sp->links[j] = l;
	}
}

/* The real shape's resource: ~10 attributes, as the Node SDK's detectors set them */
static void real_resource(Resource *res, const char *service)
{
	KV **at;

	res->n_attributes = 13;
	res->attributes = at = kvs(13);
	at[0] = kv_str("service.name", service);
	at[1] = kv_str("service.namespace", "shop");
	at[2] = kv_str("service.version", "1.14.2");
	at[3] = kv_str("service.instance.id", "4f1c2a7e-93b6-4d0e-a8c5-2b9d61e0f7a3");
	at[4] = kv_str("telemetry.sdk.language", "nodejs");
	at[5] = kv_str("telemetry.sdk.name", "opentelemetry");
	at[6] = kv_str("telemetry.sdk.version", "2.12.1");
	at[7] = kv_int("process.pid", 4242);
	at[8] = kv_str("process.executable.name", "node");
	at[9] = kv_str("process.runtime.name", "nodejs");
	at[10] = kv_str("process.runtime.version", "20.20.2");
	at[11] = kv_str("host.name", "bench-host");
	at[12] = kv_str("host.arch", "amd64");
}

/*
 * One request: BATCH spans of @service, named @names[i % @nnames] in turn,
 * or at random among the benchmark's 50 when @names is NULL; the plain
 * shape (4 attributes) or, with @real, the real one (real_span).
 */
static Req *build_req(const char *service, const char *const *names, size_t nnames,
		uint64_t base_ns, int real)
{
	Req *req = xmalloc(sizeof(*req));
	RSpans *rs = xmalloc(sizeof(*rs));
	SSpans *ss = xmalloc(sizeof(*ss));
	Resource *res = xmalloc(sizeof(*res));
	Scope *scope = xmalloc(sizeof(*scope));
	char name[128];

	opentelemetry__proto__trace__v1__export_trace_service_request__init(req);
	opentelemetry__proto__trace__v1__resource_spans__init(rs);
	opentelemetry__proto__trace__v1__scope_spans__init(ss);
	opentelemetry__proto__trace__v1__resource__init(res);
	opentelemetry__proto__trace__v1__instrumentation_scope__init(scope);
	if (real) {
		real_resource(res, service);
	} else {
		/* the resource the Node SDK sends */
		res->n_attributes = 5;
		res->attributes = kvs(5);
		res->attributes[0] = kv_str("service.name", service);
		res->attributes[1] = kv_str("telemetry.sdk.language", "nodejs");
		res->attributes[2] = kv_str("telemetry.sdk.name", "opentelemetry");
		res->attributes[3] = kv_str("telemetry.sdk.version", "2.12.1");
		res->attributes[4] = kv_str("host.name", "bench-host");
	}
	rs->resource = res;
	scope->name = xstrdup(real ? "@opentelemetry/instrumentation-http" : "bench-otlp");
	scope->version = xstrdup(real ? "0.57.0" : "1.0.0");
	ss->scope = scope;
	ss->n_spans = BATCH;
	ss->spans = xmalloc(BATCH * sizeof(Span *));
	for (size_t i = 0; i < BATCH; i++) {
		Span *sp = xmalloc(sizeof(*sp));
		Status *st = xmalloc(sizeof(*st));
		unsigned k = names ? (unsigned)(i % nnames) : (unsigned)(rnd() % NNAMES);
		double secs = 1e-5 * pow(1e6, rnd01());	/* 10 us .. 10 s, log-uniform */
		uint64_t start = base_ns + (uint64_t)(rnd01() * 1e9);
		int status = rnd() % 100 ? 200 : 500;

		opentelemetry__proto__trace__v1__span__init(sp);
		opentelemetry__proto__trace__v1__status__init(st);
		rand_bytes(&sp->trace_id, 16);
		rand_bytes(&sp->span_id, 8);
		if (rnd() % 2)
			rand_bytes(&sp->parent_span_id, 8);
		sp->flags = 1;
		if (names) {
			snprintf(name, sizeof(name), "%s", names[k]);
		} else {
			snprintf(name, sizeof(name), "%s %s", verbs[k % 5], things[k / 5]);
		}
		sp->name = xstrdup(name);
		sp->kind = (Opentelemetry__Proto__Trace__V1__Span__SpanKind)(1 + k % 3);
		sp->start_time_unix_nano = start;
		sp->end_time_unix_nano = start + (uint64_t)(secs * 1e9);
		if (real) {
			real_span(sp, k, status);
		} else {
			sp->n_attributes = 4;
			sp->attributes = kvs(4);
			sp->attributes[0] = kv_str("http.request.method", verbs[k % 5]);
			snprintf(name, sizeof(name), "/api/v1/%s/{id}", things[k / 5 % 10]);
			sp->attributes[1] = kv_str("http.route", name);
			sp->attributes[2] = kv_str("server.address", "shop.example.com");
			sp->attributes[3] = kv_int("http.response.status_code", status);
		}
		if (status != 200) {
			st->code = OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_ERROR;
			if (real)
				st->message = xstrdup("Error: ETIMEDOUT");
		}
		sp->status = st;
		ss->spans[i] = sp;
	}
	rs->n_scope_spans = 1;
	rs->scope_spans = xmalloc(sizeof(SSpans *));
	rs->scope_spans[0] = ss;
	req->n_resource_spans = 1;
	req->resource_spans = xmalloc(sizeof(RSpans *));
	req->resource_spans[0] = rs;
	return req;
}

/* A growing text buffer for the JSON encoding. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap ? 2 * b->cap + (size_t)n : 65536;
		if ((b->p = realloc(b->p, b->cap)) == NULL) {
			perror("bench_otlp: realloc");
			exit(1);
		}
	}
	b->len += (size_t)n;
}

static void sb_hex(struct sbuf *b, const ProtobufCBinaryData *d)
{
	sb_add(b, "\"");
	for (size_t i = 0; i < d->len; i++)
		sb_add(b, "%02x", d->data[i]);
	sb_add(b, "\"");
}

static void sb_value(struct sbuf *b, const AnyValue *v)
{
	switch (v->value_case) {
	case OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_INT_VALUE:
		/* a JSON number, as the SDK's toAnyValue leaves it */
		sb_add(b, "{\"intValue\":%lld}", (long long)v->int_value);
		break;
	case OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_DOUBLE_VALUE:
		sb_add(b, "{\"doubleValue\":%.17g}", v->double_value);
		break;
	case OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_BOOL_VALUE:
		sb_add(b, "{\"boolValue\":%s}", v->bool_value ? "true" : "false");
		break;
	case OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_ARRAY_VALUE:
		sb_add(b, "{\"arrayValue\":{\"values\":[");
		for (size_t i = 0; i < v->array_value->n_values; i++) {
			sb_add(b, "%s", i ? "," : "");
			sb_value(b, v->array_value->values[i]);
		}
		sb_add(b, "]}}");
		break;
	default:
		sb_add(b, "{\"stringValue\":\"%s\"}", v->string_value);
		break;
	}
}

/* names here carry no character JSON must escape */
static void sb_kvs(struct sbuf *b, KV **kv, size_t n)
{
	sb_add(b, "\"attributes\":[");
	for (size_t i = 0; i < n; i++) {
		sb_add(b, "%s{\"key\":\"%s\",\"value\":", i ? "," : "", kv[i]->key);
		sb_value(b, kv[i]->value);
		sb_add(b, "}");
	}
	sb_add(b, "]");
}

/*
 * OTLP's JSON mapping of @req as @opentelemetry/exporter-trace-otlp-http
 * writes it (otlp-transformer's JsonTraceSerializer: its field order, hex
 * IDs, times as decimal strings, kind and status code as numbers, integer
 * attributes as JSON numbers, absent optional fields left out)
 */
static struct body to_json(const Req *req)
{
	struct sbuf b = { 0 };
	const RSpans *rs = req->resource_spans[0];
	const SSpans *ss = rs->scope_spans[0];

	sb_add(&b, "{\"resourceSpans\":[{\"resource\":{");
	sb_kvs(&b, rs->resource->attributes, rs->resource->n_attributes);
	sb_add(&b, ",\"droppedAttributesCount\":0},\"scopeSpans\":[{\"scope\":{\"name\":\"%s\","
	       "\"version\":\"%s\"},\"spans\":[", ss->scope->name, ss->scope->version);
	for (size_t i = 0; i < ss->n_spans; i++) {
		const Span *sp = ss->spans[i];

		sb_add(&b, "%s{\"traceId\":", i ? "," : "");
		sb_hex(&b, &sp->trace_id);
		sb_add(&b, ",\"spanId\":");
		sb_hex(&b, &sp->span_id);
		if (sp->parent_span_id.len) {
			sb_add(&b, ",\"parentSpanId\":");
			sb_hex(&b, &sp->parent_span_id);
		}
		if (sp->trace_state && *sp->trace_state)
			sb_add(&b, ",\"traceState\":\"%s\"", sp->trace_state);
		sb_add(&b, ",\"name\":\"%s\",\"kind\":%d,\"startTimeUnixNano\":\"%llu\","
		       "\"endTimeUnixNano\":\"%llu\",", sp->name, (int)sp->kind,
		       (unsigned long long)sp->start_time_unix_nano,
		       (unsigned long long)sp->end_time_unix_nano);
		sb_kvs(&b, sp->attributes, sp->n_attributes);
		sb_add(&b, ",\"droppedAttributesCount\":0,\"events\":[");
		for (size_t j = 0; j < sp->n_events; j++) {
			const Span__Event *ev = sp->events[j];

			sb_add(&b, "%s{", j ? "," : "");
			sb_kvs(&b, ev->attributes, ev->n_attributes);
			sb_add(&b, ",\"name\":\"%s\",\"timeUnixNano\":\"%llu\",\"droppedAttributesCount\":0}",
			       ev->name, (unsigned long long)ev->time_unix_nano);
		}
		sb_add(&b, "],\"droppedEventsCount\":0,\"status\":{\"code\":%d", (int)sp->status->code);
		if (sp->status->message && *sp->status->message)
			sb_add(&b, ",\"message\":\"%s\"", sp->status->message);
		sb_add(&b, "},\"links\":[");
		for (size_t j = 0; j < sp->n_links; j++) {
			const Span__Link *l = sp->links[j];

			sb_add(&b, "%s{", j ? "," : "");
			sb_kvs(&b, l->attributes, l->n_attributes);
			sb_add(&b, ",\"spanId\":");
			sb_hex(&b, &l->span_id);
			sb_add(&b, ",\"traceId\":");
			sb_hex(&b, &l->trace_id);
			sb_add(&b, ",\"droppedAttributesCount\":0,\"flags\":%u}", (unsigned)l->flags);
		}
		sb_add(&b, "],\"droppedLinksCount\":0,\"flags\":%u}", (unsigned)sp->flags);
	}
	sb_add(&b, "]}]}]}");
	return (struct body){ b.p, b.len };
}

static struct body to_proto(const Req *req)
{
	struct body b;

	b.len = opentelemetry__proto__trace__v1__export_trace_service_request__get_packed_size(req);
	b.data = xmalloc(b.len);
	opentelemetry__proto__trace__v1__export_trace_service_request__pack(req, (uint8_t *)b.data);
	return b;
}

static struct body gzipped(struct body in)
{
	z_stream z = { 0 };
	struct body out;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(1);
	out.len = deflateBound(&z, in.len) + 32;
	out.data = xmalloc(out.len);
	z.next_in = (Bytef *)in.data;
	z.avail_in = (uInt)in.len;
	z.next_out = (Bytef *)out.data;
	z.avail_out = (uInt)out.len;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		exit(1);
	out.len = z.total_out;
	deflateEnd(&z);
	free(in.data);
	return out;
}

/* ---- the agent's CPU and memory ---- */

static double agent_cpu_sec(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* after the command's ')': state is field 3, utime 14, stime 15 */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static long agent_kib(int pid, const char *key)
{
	char path[64], line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* ---- HTTP ---- */

static int port;
static const char *http_path = "/v1/traces";
static const char *grpc_path = "/opentelemetry.proto.collector.trace.v1.TraceService/Export";
static const char *item = "span";	/* what a body holds per_body of */
static size_t per_body = BATCH;
static const char *ctype = "application/x-protobuf";
static const char *cenc = "";
static struct body *bodies;
static size_t nbodies;
static double deadline;
static int once;		/* send each body once, in order (names) */

struct conn {
	pthread_t t;
	unsigned id;
	size_t requests, non200, partial, errors;
	size_t nlat;
	double *lat;
};

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bench_otlp: connect");
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Reads one answer; returns its status (-1: the connection failed), *@partial its body's size. */
static int read_answer(int fd, char *buf, size_t cap, size_t *blen)
{
	size_t have = 0, need;
	char *end, *cl;
	int status;

	for (;;) {
		ssize_t r = read(fd, buf + have, cap - 1 - have);

		if (r <= 0)
			return -1;
		have += (size_t)r;
		buf[have] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL)
			break;
		if (have == cap - 1)
			return -1;
	}
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	*blen = 0;
	if ((cl = strcasestr(buf, "\r\nContent-Length:")) != NULL && cl < end)
		*blen = strtoul(cl + 17, NULL, 10);
	need = (size_t)(end + 4 - buf) + *blen;
	if (need >= cap)
		return -1;
	while (have < need) {
		ssize_t r = read(fd, buf + have, cap - 1 - have);

		if (r <= 0)
			return -1;
		have += (size_t)r;
	}
	return status;
}

static void *run_conn(void *arg)
{
	struct conn *c = arg;
	char head[512], ans[8192];
	size_t i = once ? 0 : c->id * 7;
	int fd = dial();

	while (once ? i < nbodies : now_sec() < deadline) {
		const struct body *b = &bodies[i++ % nbodies];
		struct iovec iov[2];
		size_t blen;
		double t0;
		int st, n;

		n = snprintf(head, sizeof(head), "POST %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
			     "User-Agent: bench_otlp\r\nContent-Type: %s\r\n%sContent-Length: %zu\r\n\r\n",
			     http_path, port, ctype, cenc, b->len);
		iov[0] = (struct iovec){ head, (size_t)n };
		iov[1] = (struct iovec){ b->data, b->len };
		t0 = now_sec();
		if (write_all(fd, iov, 2) < 0 || (st = read_answer(fd, ans, sizeof(ans), &blen)) < 0) {
			c->errors++;
			close(fd);
			fd = dial();
			continue;
		}
		if (c->nlat < MAXLAT)
			c->lat[c->nlat++] = now_sec() - t0;
		c->requests++;
		if (st != 200)
			c->non200++;
		else if (blen > 2)	/* neither empty nor "{}": a partial_success */
			c->partial++;
	}
	close(fd);
	return NULL;
}

/* ---- OTLP/gRPC (h2c, prior knowledge) ---- */

/* A connection's session and its one stream in flight. */
struct h2 {
	int fd;
	const struct body *b;
	size_t off;		/* of the 5-byte prefix and the body, sent */
	uint8_t prefix[5];
	int done, http_status, grpc_status;
	size_t resp_len;	/* the response message's bytes (after its prefix) */
	size_t resp_seen;
};

static ssize_t h2_send(nghttp2_session *s, const uint8_t *data, size_t len, int flags,
		void *user)
{
	struct h2 *h = user;
	size_t done = 0;

	(void)s;
	(void)flags;
	while (done < len) {
		ssize_t w = send(h->fd, data + done, len - done, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		}
		done += (size_t)w;
	}
	return (ssize_t)len;
}

static ssize_t h2_read(nghttp2_session *s, int32_t sid, uint8_t *buf, size_t len,
		uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct h2 *h = user;
	size_t n = 0, total = 5 + h->b->len;

	(void)s;
	(void)sid;
	(void)src;
	while (n < len && h->off < total) {
		size_t k;

		if (h->off < 5) {
			k = 5 - h->off < len - n ? 5 - h->off : len - n;
			memcpy(buf + n, h->prefix + h->off, k);
		} else {
			k = total - h->off < len - n ? total - h->off : len - n;
			memcpy(buf + n, h->b->data + (h->off - 5), k);
		}
		n += k;
		h->off += k;
	}
	if (h->off == total)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static int h2_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
		const uint8_t *val, size_t vlen, uint8_t flags, void *user)
{
	struct h2 *h = user;
	char v[16];

	(void)s;
	(void)f;
	(void)flags;
	if (vlen >= sizeof(v))
		vlen = sizeof(v) - 1;
	memcpy(v, val, vlen);
	v[vlen] = '\0';
	if (nlen == 7 && memcmp(name, ":status", 7) == 0)
		h->http_status = atoi(v);
	else if (nlen == 11 && memcmp(name, "grpc-status", 11) == 0)
		h->grpc_status = atoi(v);
	return 0;
}

static int h2_data(nghttp2_session *s, uint8_t flags, int32_t sid, const uint8_t *data, size_t len,
		void *user)
{
	struct h2 *h = user;

	(void)s;
	(void)flags;
	(void)sid;
	/* the message's length is the prefix's bytes 1-4 */
	for (size_t i = 0; i < len; i++, h->resp_seen++)
		if (h->resp_seen >= 1 && h->resp_seen < 5)
			h->resp_len = h->resp_len << 8 | data[i];
	return 0;
}

static int h2_close(nghttp2_session *s, int32_t sid, uint32_t err, void *user)
{
	struct h2 *h = user;

	(void)s;
	(void)sid;
	(void)err;
	h->done = 1;
	return 0;
}

static nghttp2_session *h2_open(struct h2 *h)
{
	nghttp2_session_callbacks *cb;
	nghttp2_session *s;

	h->fd = dial();
	if (nghttp2_session_callbacks_new(&cb) != 0)
		exit(1);
	nghttp2_session_callbacks_set_send_callback(cb, h2_send);
	nghttp2_session_callbacks_set_on_header_callback(cb, h2_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, h2_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, h2_close);
	if (nghttp2_session_client_new(&s, cb, h) != 0 ||
	    nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0) != 0)
		exit(1);
	nghttp2_session_callbacks_del(cb);
	return s;
}

/* One Export call; returns its grpc-status (-1: the connection failed, -2: none) */
static int h2_call(nghttp2_session *s, struct h2 *h, const struct body *b)
{
	char auth[32];
	uint8_t buf[16384];
	nghttp2_data_provider prd = { .read_callback = h2_read };
	nghttp2_nv nv[] = {
#define NV(n, v, vl) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, (vl), NGHTTP2_NV_FLAG_NONE }
		NV(":method", "POST", 4),
		NV(":scheme", "http", 4),
		NV(":path", grpc_path, 0),
		NV(":authority", auth, 0),
		NV("content-type", "application/grpc", 16),
		NV("te", "trailers", 8),
		NV("user-agent", "bench_otlp", 10),
#undef NV
	};

	nv[2].valuelen = strlen(grpc_path);
	nv[3].valuelen = (size_t)snprintf(auth, sizeof(auth), "127.0.0.1:%d", port);
	h->b = b;
	h->off = 0;
	h->prefix[0] = 0;
	h->prefix[1] = (uint8_t)(b->len >> 24);
	h->prefix[2] = (uint8_t)(b->len >> 16);
	h->prefix[3] = (uint8_t)(b->len >> 8);
	h->prefix[4] = (uint8_t)b->len;
	h->done = h->http_status = 0;
	h->grpc_status = -2;
	h->resp_len = h->resp_seen = 0;
	if (nghttp2_submit_request(s, NULL, nv, sizeof(nv) / sizeof(nv[0]), &prd, NULL) < 0)
		return -1;
	for (;;) {
		ssize_t r;

		if (nghttp2_session_send(s) != 0)
			return -1;
		if (h->done)
			break;
		if ((r = read(h->fd, buf, sizeof(buf))) <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		if (nghttp2_session_mem_recv(s, buf, (size_t)r) < 0)
			return -1;
	}
	return h->http_status == 200 ? h->grpc_status : -2;
}

/*
 * A connection's gRPC unary calls, one stream at a time: like run_conn,
 * the next call starts when the last one's trailers came.
 */
static void *run_grpc(void *arg)
{
	struct conn *c = arg;
	size_t i = c->id * 7;
	struct h2 h = { 0 };
	nghttp2_session *s = h2_open(&h);

	while (now_sec() < deadline) {
		double t0 = now_sec();
		int st = h2_call(s, &h, &bodies[i++ % nbodies]);

		if (st == -1) {
			c->errors++;
			nghttp2_session_del(s);
			close(h.fd);
			s = h2_open(&h);
			continue;
		}
		if (c->nlat < MAXLAT)
			c->lat[c->nlat++] = now_sec() - t0;
		c->requests++;
		if (st != 0)
			c->non200++;
		else if (h.resp_len > 0)	/* an ExportTraceServiceResponse with partial_success */
			c->partial++;
	}
	nghttp2_session_del(s);
	close(h.fd);
	return NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(struct conn *cs, unsigned nc, double secs, int pid, double cpu0,
		long rss0, long hwm0)
{
	size_t req = 0, non200 = 0, partial = 0, errors = 0, nlat = 0, k = 0;
	double cpu1 = agent_cpu_sec(pid), *lat;

	for (unsigned i = 0; i < nc; i++) {
		req += cs[i].requests;
		non200 += cs[i].non200;
		partial += cs[i].partial;
		errors += cs[i].errors;
		nlat += cs[i].nlat;
	}
	lat = xmalloc((nlat + 1) * sizeof(double));
	for (unsigned i = 0; i < nc; i++)
		for (size_t j = 0; j < cs[i].nlat; j++)
			lat[k++] = cs[i].lat[j];
	qsort(lat, nlat, sizeof(double), cmp_dbl);
	printf("connections %u\n", nc);
	printf("seconds %.3f\n", secs);
	printf("requests %zu\n", req);
	printf("%ss %zu\n", item, (req - non200) * per_body);
	printf("%ss_per_sec %.0f\n", item, (double)(req - non200) * per_body / secs);
	printf("body_bytes %zu\n", bodies[0].len);
	if (nlat) {
		printf("p50_ms %.3f\n", 1e3 * lat[(nlat - 1) / 2]);
		printf("p99_ms %.3f\n", 1e3 * lat[(size_t)((double)(nlat - 1) * 0.99)]);
		printf("max_ms %.3f\n", 1e3 * lat[nlat - 1]);
	}
	printf("non200 %zu\n", non200);
	printf("partial %zu\n", partial);
	printf("conn_errors %zu\n", errors);
	if (cpu0 >= 0 && cpu1 >= 0 && req > non200) {
		printf("agent_cpu_sec %.2f\n", cpu1 - cpu0);
		printf("agent_cpu_ns_per_%s %.0f\n", item,
		       (cpu1 - cpu0) * 1e9 / ((double)(req - non200) * per_body));
		printf("agent_cpu_util %.2f\n", (cpu1 - cpu0) / secs);
	}
	printf("rss_kib_before %ld\n", rss0);
	printf("rss_kib_after %ld\n", agent_kib(pid, "VmRSS"));
	printf("hwm_kib_before %ld\n", hwm0);
	printf("hwm_kib_after %ld\n", agent_kib(pid, "VmHWM"));
	free(lat);
}

/* ---- OpenTelemetry metrics ---- */

/* The SDK's default histogram bounds (the OpenTelemetry specification's). */
static double sdk_bounds[] = { 0, 5, 10, 25, 50, 75, 100, 250, 500, 750, 1000, 2500, 5000, 7500,
			       10000 };
#define NBOUNDS		(sizeof(sdk_bounds) / sizeof(sdk_bounds[0]))

/* Point @k's attributes: a route of SERIES / 4 and a method, as HTTP servers' are. */
static KV **series_attrs(size_t k)
{
	KV **a = kvs(2);
	char route[48];	/* "/api/v1/item-" and 20 digits */

	snprintf(route, sizeof(route), "/api/v1/item-%zu", k / 4);
	a[0] = kv_str("http.route", route);
	a[1] = kv_str("http.request.method", verbs[k % 4]);
	return a;
}

/*
 * Body @b of @series points: a cumulative monotonic Sum, or a Histogram
 * (@hist), one point a series, values growing with @b so that every
 * body is news to the store.
 */
static MReq *build_metrics(size_t b, size_t series, int hist, uint64_t base_ns)
{
	MReq *r = xmalloc(sizeof(*r));
	RMetrics *rm = xmalloc(sizeof(*rm));
	SMetrics *sm = xmalloc(sizeof(*sm));
	Metric *m = xmalloc(sizeof(*m));
	Scope *scope = xmalloc(sizeof(*scope));

	opentelemetry__proto__trace__v1__export_metrics_service_request__init(r);
	opentelemetry__proto__trace__v1__resource_metrics__init(rm);
	opentelemetry__proto__trace__v1__scope_metrics__init(sm);
	opentelemetry__proto__trace__v1__metric__init(m);
	opentelemetry__proto__trace__v1__instrumentation_scope__init(scope);
	rm->resource = xmalloc(sizeof(Resource));
	opentelemetry__proto__trace__v1__resource__init(rm->resource);
	real_resource(rm->resource, services[0]);
	scope->name = xstrdup("bench");
	sm->scope = scope;
	m->name = xstrdup(hist ? "http.server.request.duration" : "http.server.requests");
	m->unit = xstrdup(hist ? "ms" : "{request}");
	m->description = xstrdup("requests served");
	if (hist) {
		MHist *h = xmalloc(sizeof(*h));

		opentelemetry__proto__trace__v1__histogram__init(h);
		h->aggregation_temporality =
			OPENTELEMETRY__PROTO__TRACE__V1__AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE;
		h->n_data_points = series;
		h->data_points = xmalloc(series * sizeof(HPoint *));
		for (size_t k = 0; k < series; k++) {
			HPoint *p = xmalloc(sizeof(*p));

			opentelemetry__proto__trace__v1__histogram_data_point__init(p);
			p->attributes = series_attrs(k);
			p->n_attributes = 2;
			p->start_time_unix_nano = base_ns;
			p->time_unix_nano = base_ns + (b + 1) * 1000000000ull;
			p->n_explicit_bounds = NBOUNDS;
			p->explicit_bounds = sdk_bounds;
			p->n_bucket_counts = NBOUNDS + 1;
			p->bucket_counts = xmalloc((NBOUNDS + 1) * sizeof(uint64_t));
			p->count = 0;
			for (size_t j = 0; j <= NBOUNDS; j++)
				p->count += p->bucket_counts[j] = (b + 1) * (j % 3 + 1);
			p->_sum_case = OPENTELEMETRY__PROTO__TRACE__V1__HISTOGRAM_DATA_POINT___SUM_SUM;
			p->sum = 40.0 * (double)p->count;
			h->data_points[k] = p;
		}
		m->data_case = OPENTELEMETRY__PROTO__TRACE__V1__METRIC__DATA_HISTOGRAM;
		m->histogram = h;
	} else {
		MSum *sum = xmalloc(sizeof(*sum));

		opentelemetry__proto__trace__v1__sum__init(sum);
		sum->aggregation_temporality =
			OPENTELEMETRY__PROTO__TRACE__V1__AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE;
		sum->is_monotonic = 1;
		sum->n_data_points = series;
		sum->data_points = xmalloc(series * sizeof(NPoint *));
		for (size_t k = 0; k < series; k++) {
			NPoint *p = xmalloc(sizeof(*p));

			opentelemetry__proto__trace__v1__number_data_point__init(p);
			p->attributes = series_attrs(k);
			p->n_attributes = 2;
			p->start_time_unix_nano = base_ns;
			p->time_unix_nano = base_ns + (b + 1) * 1000000000ull;
			p->value_case = OPENTELEMETRY__PROTO__TRACE__V1__NUMBER_DATA_POINT__VALUE_AS_INT;
			p->as_int = (int64_t)((b + 1) * (k + 1));
			sum->data_points[k] = p;
		}
		m->data_case = OPENTELEMETRY__PROTO__TRACE__V1__METRIC__DATA_SUM;
		m->sum = sum;
	}
	sm->n_metrics = 1;
	sm->metrics = xmalloc(sizeof(Metric *));
	sm->metrics[0] = m;
	rm->n_scope_metrics = 1;
	rm->scope_metrics = xmalloc(sizeof(SMetrics *));
	rm->scope_metrics[0] = sm;
	r->n_resource_metrics = 1;
	r->resource_metrics = xmalloc(sizeof(RMetrics *));
	r->resource_metrics[0] = rm;
	return r;
}

/*
 * Body @b of @n different metrics (cumulative Sums, 1,000 names as an
 * application with many has them), one series each: what the store
 * pays for a metric rather than for a series.
 */
static MReq *build_many(size_t b, size_t n, uint64_t base_ns)
{
	MReq *r = build_metrics(b, 1, 0, base_ns);
	SMetrics *sm = r->resource_metrics[0]->scope_metrics[0];
	char name[48];

	sm->n_metrics = n;
	sm->metrics = xmalloc(n * sizeof(Metric *));
	for (size_t k = 0; k < n; k++) {
		Metric *m = build_metrics(b, 1, 0, base_ns)->resource_metrics[0]->
			scope_metrics[0]->metrics[0];

		snprintf(name, sizeof(name), "app.component%zu.operations", k);
		m->name = xstrdup(name);
		sm->metrics[k] = m;
	}
	return r;
}

static struct body metrics_proto(const MReq *r)
{
	struct body b;

	b.len = opentelemetry__proto__trace__v1__export_metrics_service_request__get_packed_size(r);
	b.data = xmalloc(b.len + 1);
	opentelemetry__proto__trace__v1__export_metrics_service_request__pack(r, (uint8_t *)b.data);
	return b;
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_otlp load PORT AGENTPID proto|json|gzip|grpc CONNS SECONDS [plain|real]\n"
		"       bench_otlp names PORT AGENTPID N ROUNDS\n"
		"       bench_otlp metrics PORT AGENTPID proto|grpc SERIES SECONDS [sum|hist|metrics]\n"
		"       bench_otlp dump proto|json plain|real\n");
	exit(2);
}

/*
 * The protobuf body @b decoded by protobuf-c: BATCH spans of @real's shape,
 * and packed again to the same bytes; exits on a difference.
 */
static void check_proto(const struct body *b, int real)
{
	Req *r = opentelemetry__proto__trace__v1__export_trace_service_request__unpack(NULL, b->len,
			(const uint8_t *)b->data);
	const Span *sp;
	uint8_t *again;

	if (r == NULL || r->n_resource_spans != 1 || r->resource_spans[0]->n_scope_spans != 1 ||
	    r->resource_spans[0]->scope_spans[0]->n_spans != BATCH) {
		fprintf(stderr, "bench_otlp: a body protobuf-c does not decode to %d spans\n", BATCH);
		exit(1);
	}
	sp = r->resource_spans[0]->scope_spans[0]->spans[0];
	if (sp->n_attributes != (real ? 20u : 4u) || sp->n_events != (real ? 3u : 0u) ||
	    sp->n_links != (real ? 2u : 0u)) {
		fprintf(stderr, "bench_otlp: a decoded span is not of its shape\n");
		exit(1);
	}
	again = xmalloc(b->len);
	if (opentelemetry__proto__trace__v1__export_trace_service_request__pack(r, again) != b->len ||
	    memcmp(again, b->data, b->len) != 0) {
		fprintf(stderr, "bench_otlp: a body packs again to other bytes\n");
		exit(1);
	}
	free(again);
	opentelemetry__proto__trace__v1__export_trace_service_request__free_unpacked(r, NULL);
}

static int shape_of(const char *s)
{
	if (strcmp(s, "plain") == 0)
		return 0;
	if (strcmp(s, "real") != 0)
		usage();
	return 1;
}

int main(int argc, char **argv)
{
	struct timespec wall;
	uint64_t base_ns;
	unsigned nc = 1;	/* names: one connection */
	double secs = 5, t0, cpu0;
	long rss0, hwm0;
	struct conn *cs;
	int pid, grpc = 0;
	size_t bytes = 0;

	/* a refusal may close the connection under a body being written */
	signal(SIGPIPE, SIG_IGN);
	clock_gettime(CLOCK_REALTIME, &wall);
	base_ns = (uint64_t)wall.tv_sec * 1000000000ull - 2000000000ull;
	if (argc == 4 && strcmp(argv[1], "dump") == 0) {
		int json = strcmp(argv[2], "json") == 0;
		Req *r = build_req(services[0], NULL, 0, base_ns, shape_of(argv[3]));
		struct body b = json ? to_json(r) : to_proto(r);

		if (!json)
			check_proto(&b, shape_of(argv[3]));
		return fwrite(b.data, 1, b.len, stdout) == b.len ? 0 : 1;
	}
	if (argc < 6)
		usage();
	port = atoi(argv[2]);
	pid = atoi(argv[3]);
	if (strcmp(argv[1], "load") == 0 && (argc == 7 || argc == 8)) {
		const char *enc = argv[4];
		int real = argc == 8 ? shape_of(argv[7]) : 0;

		nc = (unsigned)atoi(argv[5]);
		secs = atof(argv[6]);
		if (nc == 0 || secs <= 0)
			usage();
		nbodies = NBODIES;
		bodies = xmalloc(nbodies * sizeof(*bodies));
		for (size_t i = 0; i < nbodies; i++) {
			Req *r = build_req(services[i % NSERVICES], NULL, 0, base_ns, real);

			if (strcmp(enc, "json") == 0)
				bodies[i] = to_json(r);
			else if (strcmp(enc, "gzip") == 0)
				bodies[i] = gzipped(to_proto(r));
			else if (strcmp(enc, "proto") == 0 || strcmp(enc, "grpc") == 0)
				bodies[i] = to_proto(r);
			else
				usage();
			if (i == 0 && strcmp(enc, "json") != 0 && strcmp(enc, "gzip") != 0)
				check_proto(&bodies[0], real);
			bytes += bodies[i].len;
			/* the request's strings stay: a benchmark's process ends soon */
		}
		if (strcmp(enc, "json") == 0)
			ctype = "application/json";
		if (strcmp(enc, "gzip") == 0)
			cenc = "Content-Encoding: gzip\r\n";
		grpc = strcmp(enc, "grpc") == 0;
		printf("shape %s\n", real ? "real" : "plain");
		printf("bytes_per_span %.0f\n", (double)bytes / (double)(nbodies * BATCH));
	} else if (strcmp(argv[1], "metrics") == 0 && (argc == 7 || argc == 8)) {
		size_t series = strtoul(argv[5], NULL, 10);
		int hist = argc == 8 && strcmp(argv[7], "hist") == 0;
		int many = argc == 8 && strcmp(argv[7], "metrics") == 0;

		secs = atof(argv[6]);
		if (series == 0 || secs <= 0 ||
		    (argc == 8 && !hist && !many && strcmp(argv[7], "sum") != 0) ||
		    (strcmp(argv[4], "proto") != 0 && strcmp(argv[4], "grpc") != 0))
			usage();
		grpc = strcmp(argv[4], "grpc") == 0;
		http_path = "/v1/metrics";
		grpc_path = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export";
		item = "point";
		per_body = series;
		nbodies = NBODIES;
		bodies = xmalloc(nbodies * sizeof(*bodies));
		for (size_t i = 0; i < nbodies; i++) {
			bodies[i] = metrics_proto(many ? build_many(i, series, base_ns) :
						  build_metrics(i, series, hist, base_ns));
			bytes += bodies[i].len;
		}
		printf("shape %s\n", hist ? "hist" : many ? "metrics" : "sum");
		printf("series %zu\n", series);
		printf("bytes_per_point %.0f\n", (double)bytes / (double)(nbodies * series));
	} else if (strcmp(argv[1], "names") == 0 && argc == 6) {
		size_t n = strtoul(argv[4], NULL, 10), rounds = strtoul(argv[5], NULL, 10);
		size_t per = (n + 99) / 100, nsvc;
		char **names, svc[64];

		if (n == 0 || rounds == 0 || per > BATCH)
			usage();
		nsvc = (n + per - 1) / per;
		names = xmalloc(per * sizeof(char *));
		for (size_t j = 0; j < per; j++) {
			names[j] = xmalloc(32);
			snprintf(names[j], 32, "operation-%05zu", j);
		}
		/*
		 * 100 services (fewer when N < 100) of N / 100 span names; each
		 * request one service's BATCH spans, its names in turn; ROUNDS
		 * requests a service.
		 */
		once = 1;
		nbodies = nsvc * rounds;
		bodies = xmalloc(nbodies * sizeof(*bodies));
		for (size_t i = 0; i < nbodies; i++) {
			Req *r;

			snprintf(svc, sizeof(svc), "service-%03zu", i % nsvc);
			r = build_req(svc, (const char *const *)names, per, base_ns, 0);
			bodies[i] = to_proto(r);
		}
	} else {
		usage();
	}
	cs = xmalloc(nc * sizeof(*cs));
	rss0 = agent_kib(pid, "VmRSS");
	hwm0 = agent_kib(pid, "VmHWM");
	cpu0 = agent_cpu_sec(pid);
	t0 = now_sec();
	deadline = t0 + secs;
	for (unsigned i = 0; i < nc; i++) {
		cs[i].id = i;
		cs[i].lat = xmalloc(MAXLAT * sizeof(double));
		if (pthread_create(&cs[i].t, NULL, grpc ? run_grpc : run_conn, &cs[i]) != 0) {
			perror("bench_otlp: pthread_create");
			return 1;
		}
	}
	for (unsigned i = 0; i < nc; i++)
		pthread_join(cs[i].t, NULL);
	report(cs, nc, now_sec() - t0, pid, cpu0, rss0, hwm0);
	return 0;
}
