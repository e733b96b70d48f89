/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_otlp_decode: the OTLP protobuf decoder alone, the walker
 * (pmda_trace/otlp/pbwalk.c, what the agent runs) against protobuf-c
 * (ref_pb.c), on two requests of 512 spans each (make bench-otlp-decode;
 * bench/RESULTS.md, issue 36):
 *   plain: spans as bench/bench_otlp.c makes them (16-byte trace and
 *          8-byte span IDs, a parent half the time, 4 attributes, a
 *          status; the Node SDK's resource of 5 attributes);
 *   real:  the spans of a capture of the stock Node SDK
 *          (tests/fuzz/corpus/otlp_pb_diff/sdk-rich-10: 20 attributes of
 *          mixed types, 3 events of 2 attributes, 2 links, about 880 bytes
 *          a span), repeated to 512 in one request.
 *
 *   bench_otlp_decode [SECONDS] [SEED]
 * Each of the four cases decodes its request over and over, spans to a
 * callback that counts them, for SECONDS of this process's CPU time
 * (CLOCK_PROCESS_CPUTIME_ID; default 2) in all, in SLICES slices taken in
 * turn with the other cases' (so that a busy machine slows them alike);
 * a case's figure is its fastest slice and, in brackets, its median.
 * Prints a Markdown table: bytes a span, ns of CPU a span, spans per
 * CPU-second, and the real/plain ratio of each decoder.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "otlp.h"
#include "otlp_priv.h"
#include "otlp_trace.pb-c.h"

typedef Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest Req;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans RSpans;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans SSpans;
typedef Opentelemetry__Proto__Trace__V1__Span Span;
typedef Opentelemetry__Proto__Trace__V1__Status Status;
typedef Opentelemetry__Proto__Trace__V1__Resource Resource;
typedef Opentelemetry__Proto__Trace__V1__KeyValue KV;
typedef Opentelemetry__Proto__Trace__V1__AnyValue AnyValue;

#define SPANS	512
#define SLICES	10
#define RICH	"tests/fuzz/corpus/otlp_pb_diff/sdk-rich-10"

static uint64_t seed = 88172645463325252ull;

static uint32_t rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (uint32_t)seed;
}

static void *xcalloc(size_t n)
{
	void *p = calloc(1, n);

	if (p == NULL) {
		perror("bench_otlp_decode");
		exit(1);
	}
	return p;
}

static KV *kv_str(const char *key, const char *val)
{
	KV *kv = xcalloc(sizeof(*kv));
	AnyValue *v = xcalloc(sizeof(*v));

	opentelemetry__proto__trace__v1__key_value__init(kv);
	opentelemetry__proto__trace__v1__any_value__init(v);
	kv->key = (char *)key;
	v->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE;
	v->string_value = (char *)val;
	kv->value = v;
	return kv;
}

static KV *kv_int(const char *key, int64_t val)
{
	KV *kv = kv_str(key, "");

	kv->value->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_INT_VALUE;
	kv->value->int_value = val;
	return kv;
}

static void rand_bytes(ProtobufCBinaryData *b, size_t n)
{
	b->len = n;
	b->data = xcalloc(n);
	for (size_t i = 0; i < n; i++)
		b->data[i] = (uint8_t)rnd();
}

/* One ResourceSpans of @spans, with the Node SDK's resource, packed into *@len bytes. */
static uint8_t *pack(Span **spans, size_t n, size_t *len)
{
	static const char *const keys[] = { "telemetry.sdk.language", "telemetry.sdk.name",
		"telemetry.sdk.version", "host.name" };
	static const char *const vals[] = { "nodejs", "opentelemetry", "2.12.1", "bench-host" };
	Req req = OPENTELEMETRY__PROTO__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	RSpans rs = OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE_SPANS__INIT, *rsp = &rs;
	SSpans ss = OPENTELEMETRY__PROTO__TRACE__V1__SCOPE_SPANS__INIT, *ssp = &ss;
	Resource res = OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE__INIT;
	KV *attrs[5];
	uint8_t *b;

	attrs[0] = kv_str("service.name", "shop");
	for (int i = 0; i < 4; i++)
		attrs[i + 1] = kv_str(keys[i], vals[i]);
	res.n_attributes = 5;
	res.attributes = attrs;
	rs.resource = &res;
	ss.n_spans = n;
	ss.spans = spans;
	rs.n_scope_spans = 1;
	rs.scope_spans = &ssp;
	req.n_resource_spans = 1;
	req.resource_spans = &rsp;
	*len = opentelemetry__proto__trace__v1__export_trace_service_request__get_packed_size(&req);
	b = xcalloc(*len);
	opentelemetry__proto__trace__v1__export_trace_service_request__pack(&req, b);
	for (int i = 0; i < 5; i++) {
		free(attrs[i]->value);
		free(attrs[i]);
	}
	return b;
}

/* bench_otlp.c's spans: 50 names, 4 attributes, durations 10 us to 10 s. */
static uint8_t *plain_request(size_t *len)
{
	static const char *const verbs[] = { "GET", "POST", "PUT", "DELETE", "PATCH" };
	static char names[SPANS][64], routes[SPANS][64];
	Span **spans = xcalloc(SPANS * sizeof(*spans));
	uint64_t base = 1700000000000000000ull;
	uint8_t *b;

	for (size_t i = 0; i < SPANS; i++) {
		Span *sp = xcalloc(sizeof(*sp));
		Status *st = xcalloc(sizeof(*st));
		unsigned k = rnd() % 50;

		opentelemetry__proto__trace__v1__span__init(sp);
		opentelemetry__proto__trace__v1__status__init(st);
		rand_bytes(&sp->trace_id, 16);
		rand_bytes(&sp->span_id, 8);
		if (rnd() % 2)
			rand_bytes(&sp->parent_span_id, 8);
		sp->flags = 1;
		snprintf(names[i], sizeof(names[i]), "%s /api/thing%u", verbs[k % 5], k / 5);
		snprintf(routes[i], sizeof(routes[i]), "/api/v1/thing%u/{id}", k / 5);
		sp->name = names[i];
		sp->kind = (Opentelemetry__Proto__Trace__V1__Span__SpanKind)(1 + k % 3);
		sp->start_time_unix_nano = base + rnd() % 1000000000u;
		sp->end_time_unix_nano = sp->start_time_unix_nano + 10000 + rnd() % 1000000000u;
		sp->n_attributes = 4;
		sp->attributes = xcalloc(4 * sizeof(KV *));
		sp->attributes[0] = kv_str("http.request.method", verbs[k % 5]);
		sp->attributes[1] = kv_str("http.route", routes[i]);
		sp->attributes[2] = kv_str("server.address", "shop.example.com");
		sp->attributes[3] = kv_int("http.response.status_code", rnd() % 100 ? 200 : 500);
		st->code = rnd() % 100 ? 0 : 2;
		sp->status = st;
		spans[i] = sp;
	}
	b = pack(spans, SPANS, len);
	return b;	/* the spans stay: a benchmark's lifetime */
}

/* The SDK capture's spans, over and over to SPANS, in one request. */
static uint8_t *real_request(size_t *len)
{
	static uint8_t file[1 << 16];
	FILE *f = fopen(RICH, "rb");
	Span **spans = xcalloc(SPANS * sizeof(*spans));
	Req *cap;
	size_t n, have = 0;

	if (f == NULL) {
		perror(RICH);
		exit(1);
	}
	n = fread(file, 1, sizeof(file), f);
	fclose(f);
	cap = opentelemetry__proto__trace__v1__export_trace_service_request__unpack(NULL, n, file);
	if (cap == NULL) {
		fprintf(stderr, "bench_otlp_decode: %s does not decode\n", RICH);
		exit(1);
	}
	for (size_t i = 0; i < cap->n_resource_spans; i++)
		for (size_t j = 0; j < cap->resource_spans[i]->n_scope_spans; j++)
			for (size_t k = 0; k < cap->resource_spans[i]->scope_spans[j]->n_spans &&
			     have < SPANS; k++)
				spans[have++] = cap->resource_spans[i]->scope_spans[j]->spans[k];
	for (size_t i = have; i < SPANS; i++)
		spans[i] = spans[i % have];
	return pack(spans, SPANS, len);
}

static int count(void *arg, const struct otlp_span *sp)
{
	(void)sp;
	(*(uint64_t *)arg)++;
	return 0;
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ns of CPU a span for @dec over @b for @secs of CPU. */
static double measure(int (*dec)(const uint8_t *, size_t, size_t, struct otlp_ctx *),
		      const uint8_t *b, size_t len, double secs)
{
	struct otlp_result res;
	uint64_t spans = 0;
	struct otlp_ctx c = { .fn = count, .arg = &spans, .res = &res };
	double t0 = cpu_now(), t;
	unsigned rounds = 0;

	do {
		for (int i = 0; i < 8; i++) {
			memset(&res, 0, sizeof(res));
			if (dec(b, len, 0 + OTLP_MEM_MAX, &c) != 0 || res.accepted != SPANS) {
				fprintf(stderr, "bench_otlp_decode: the request did not decode\n");
				exit(1);
			}
		}
		rounds += 8;
		t = cpu_now() - t0;
	} while (t < secs);
	return t * 1e9 / ((double)rounds * SPANS);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0, ns[2][2][SLICES];
	static const char *const what[2] = { "plain", "real" };
	static const char *const who[2] = { "walker (pbwalk.c)", "protobuf-c (ref_pb.c)" };
	int (*const dec[2])(const uint8_t *, size_t, size_t, struct otlp_ctx *) = {
		otlp_decode_pb, otlp_decode_pb_ref,
	};
	uint8_t *req[2];
	size_t len[2];

	if (argc > 2)
		seed = strtoull(argv[2], NULL, 0) | 1;
	req[0] = plain_request(&len[0]);
	req[1] = real_request(&len[1]);
	for (int i = 0; i < SLICES; i++)
		for (int d = 0; d < 2; d++)
			for (int r = 0; r < 2; r++)
				ns[d][r][i] = measure(dec[d], req[r], len[r], secs / (4 * SLICES));
	printf("| decoder | spans | bytes/span | ns/span (CPU), fastest [median] | "
	       "spans per CPU-second (fastest) |\n");
	printf("|---|---|---:|---:|---:|\n");
	for (int d = 0; d < 2; d++) {
		for (int r = 0; r < 2; r++) {
			qsort(ns[d][r], SLICES, sizeof(double), cmp_double);
			printf("| %s | %s | %.0f | %.0f [%.0f] | %.2f M |\n", who[d], what[r],
			       (double)len[r] / SPANS, ns[d][r][0], ns[d][r][SLICES / 2],
			       1e3 / ns[d][r][0]);
		}
	}
	printf("\nreal/plain: walker %.1fx, protobuf-c %.1fx; protobuf-c/walker: plain %.1fx, "
	       "real %.1fx\n", ns[0][1][0] / ns[0][0][0], ns[1][1][0] / ns[1][0][0],
	       ns[1][0][0] / ns[0][0][0], ns[1][1][0] / ns[0][1][0]);
	return 0;
}
