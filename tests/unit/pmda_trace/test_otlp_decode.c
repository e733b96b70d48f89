/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's OTLP decoder (pmda_trace/otlp: decode.c, gunzip.c,
 * answer.c): a request in protobuf (built with the generated structs) and
 * the same in JSON report exactly their spans in order; names are made
 * safe; invalid spans are refused one by one; bodies that do not decode,
 * nest too deep or need too much memory report nothing; gzip bodies
 * inflate within their cap; answers decode with protobuf-c and json-c.
 * (The protobuf walker against protobuf-c: test_otlp_pbwalk.c.)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <zlib.h>

#include "../../../pmda_trace/otlp/otlp.h"
#include "../../../pmda_trace/otlp/otlp_priv.h"
#include "otlp_trace.pb-c.h"

typedef Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest Req;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans RS;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans SS;
typedef Opentelemetry__Proto__Trace__V1__Span Span;
typedef Opentelemetry__Proto__Trace__V1__Status Status;
typedef Opentelemetry__Proto__Trace__V1__Resource Resource;
typedef Opentelemetry__Proto__Trace__V1__KeyValue KV;
typedef Opentelemetry__Proto__Trace__V1__AnyValue Any;
typedef Opentelemetry__Proto__Trace__V1__InstrumentationScope Scope;

/* 1 if @s is well-formed UTF-8 throughout. */
static int valid_utf8(const char *s)
{
	size_t n = strlen(s), i = 0, len;
	uint32_t cp;

	for (; i < n; i += len)
		if ((len = sdk_utf8_len((const unsigned char *)s + i, n - i, &cp)) == 0)
			return 0;
	return 1;
}

/* ---- what the callback saw ---- */

struct got {
	size_t n;
	int refuse_name;	/* refuse spans named "refuse-me" */
	struct { char service[OTLP_NAME_MAX + 1], ns[OTLP_NAME_MAX + 1], name[OTLP_NAME_MAX + 1];
		 int kind, status; uint64_t start, end; } s[16];
};

static int collect(void *arg, const struct otlp_span *sp)
{
	struct got *g = arg;

	assert_true(strlen(sp->service) <= OTLP_NAME_MAX && strlen(sp->name) <= OTLP_NAME_MAX);
	if (g->refuse_name && strcmp(sp->name, "refuse-me") == 0)
		return -1;
	if (g->n < 16) {
		strcpy(g->s[g->n].service, sp->service);
		strcpy(g->s[g->n].ns, sp->ns);
		strcpy(g->s[g->n].name, sp->name);
		g->s[g->n].kind = sp->kind;
		g->s[g->n].status = sp->status;
		g->s[g->n].start = sp->start_ns;
		g->s[g->n].end = sp->end_ns;
	}
	g->n++;
	return 0;
}

static int count_only(void *arg, const struct otlp_span *sp)
{
	(void)sp;
	(*(size_t *)arg)++;
	return 0;
}

/* ---- the sample request ---- */

/* @sent: the name as sent, if it is not @name */
struct want { const char *service, *name; int kind, status; uint64_t start, end; const char *sent; };

static const struct want expected[] = {
	{ "checkout", "GET /cart", OTLP_KIND_SERVER, OTLP_STATUS_OK, 1000, 2000, NULL },
	{ "checkout", "db query", OTLP_KIND_CLIENT, OTLP_STATUS_ERROR, 1100, 1900, NULL },
	{ "checkout", "render", OTLP_KIND_INTERNAL, OTLP_STATUS_UNSET, 1200, 1200, NULL },
	{ "checkout", "enqueue", OTLP_KIND_PRODUCER, OTLP_STATUS_UNSET, 1300, 1400, NULL },
	{ "unknown_service", "dequeue", OTLP_KIND_CONSUMER, OTLP_STATUS_OK,
	  1700000000000000000ull, 1700000000000000001ull, NULL },
	{ "unknown_service", "unnamed", OTLP_KIND_UNSPECIFIED, OTLP_STATUS_UNSET, 5,
	  18446744073709551615ull, NULL },
};

static void check_spans(const struct got *g)
{
	size_t n = sizeof(expected) / sizeof(expected[0]);

	assert_int_equal(g->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(g->s[i].service, expected[i].service);
		assert_string_equal(g->s[i].name, expected[i].name);
		assert_int_equal(g->s[i].kind, expected[i].kind);
		assert_int_equal(g->s[i].status, expected[i].status);
		assert_true(g->s[i].start == expected[i].start);
		assert_true(g->s[i].end == expected[i].end);
	}
}

static void set_span(Span *s, Status *st, const struct want *w)
{
	opentelemetry__proto__trace__v1__span__init(s);
	s->name = (char *)(w->sent ? w->sent : strcmp(w->name, "unnamed") == 0 ? "" : w->name);
	s->kind = w->kind;
	s->start_time_unix_nano = w->start;
	s->end_time_unix_nano = w->end;
	if (w->status != OTLP_STATUS_UNSET || w->kind == OTLP_KIND_INTERNAL) {
		opentelemetry__proto__trace__v1__status__init(st);
		st->code = w->status;
		st->message = (char *)"why";
		s->status = st;
	}
}

/* Packs the sample request (malloc'd, *@len bytes). */
static uint8_t *sample_pb(size_t *len)
{
	static Span sp[6];
	static Status st[6];
	static Span *a[2] = { &sp[0], &sp[1] }, *b[2] = { &sp[2], &sp[3] }, *c[2] = { &sp[4], &sp[5] };
	static SS ss[3];
	static SS *ss1[2] = { &ss[0], &ss[1] }, *ss2[1] = { &ss[2] };
	static Scope scope;
	static RS rs[2];
	static RS *rsv[2] = { &rs[0], &rs[1] };
	static Resource res[2];
	static KV kv[4];
	static KV *attrs1[3] = { &kv[0], &kv[1], &kv[2] }, *attrs2[1] = { &kv[3] };
	static Any v[4];
	Req req = OPENTELEMETRY__PROTO__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	uint8_t *buf;

	for (int i = 0; i < 6; i++)
		set_span(&sp[i], &st[i], &expected[i]);
	for (int i = 0; i < 4; i++) {
		opentelemetry__proto__trace__v1__key_value__init(&kv[i]);
		opentelemetry__proto__trace__v1__any_value__init(&v[i]);
		kv[i].value = &v[i];
		v[i].value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE;
	}
	kv[0].key = (char *)"host.name";
	v[0].string_value = (char *)"box";
	kv[1].key = (char *)"service.name";
	v[1].string_value = (char *)"checkout";
	kv[2].key = (char *)"service.name";	/* the first one counts */
	v[2].string_value = (char *)"other";
	kv[3].key = (char *)"service.name";	/* not a string: no service */
	v[3].value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_INT_VALUE;
	v[3].int_value = 7;
	sp[0].attributes = attrs2;		/* a span attribute is not a service */
	sp[0].n_attributes = 1;
	for (int i = 0; i < 2; i++) {
		opentelemetry__proto__trace__v1__resource__init(&res[i]);
		opentelemetry__proto__trace__v1__resource_spans__init(&rs[i]);
		rs[i].resource = &res[i];
	}
	res[0].attributes = attrs1;
	res[0].n_attributes = 3;
	res[1].attributes = attrs2;
	res[1].n_attributes = 1;
	for (int i = 0; i < 3; i++)
		opentelemetry__proto__trace__v1__scope_spans__init(&ss[i]);
	opentelemetry__proto__trace__v1__instrumentation_scope__init(&scope);
	scope.name = (char *)"lib";
	ss[0].scope = &scope;
	ss[0].spans = a;
	ss[0].n_spans = 2;
	ss[1].spans = b;
	ss[1].n_spans = 2;
	ss[2].spans = c;
	ss[2].n_spans = 2;
	rs[0].scope_spans = ss1;
	rs[0].n_scope_spans = 2;
	rs[1].scope_spans = ss2;
	rs[1].n_scope_spans = 1;
	req.resource_spans = rsv;
	req.n_resource_spans = 2;
	*len = opentelemetry__proto__trace__v1__export_trace_service_request__get_packed_size(&req);
	buf = malloc(*len);
	assert_non_null(buf);
	opentelemetry__proto__trace__v1__export_trace_service_request__pack(&req, buf);
	return buf;
}

static const char sample_json[] =
	"{\"resourceSpans\":[{\"resource\":{\"attributes\":["
	"{\"key\":\"host.name\",\"value\":{\"stringValue\":\"box\"}},"
	"{\"key\":\"service.name\",\"value\":{\"stringValue\":\"checkout\"}},"
	"{\"key\":\"service.name\",\"value\":{\"stringValue\":\"other\"}}]},"
	"\"scopeSpans\":[{\"scope\":{\"name\":\"lib\"},\"spans\":["
	"{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"eee19b7ec3c1b174\","
	"\"name\":\"GET /cart\",\"kind\":2,\"startTimeUnixNano\":\"1000\",\"endTimeUnixNano\":\"2000\","
	"\"attributes\":[{\"key\":\"service.name\",\"value\":{\"intValue\":\"7\"}}],"
	"\"status\":{\"code\":1},\"unknownField\":{\"ignored\":[1,2]}},"
	"{\"name\":\"db query\",\"kind\":\"SPAN_KIND_CLIENT\",\"startTimeUnixNano\":1100,"
	"\"endTimeUnixNano\":\"1900\",\"status\":{\"code\":2,\"message\":\"why\"},"
	"\"events\":[{\"timeUnixNano\":\"1500\",\"name\":\"e\",\"attributes\":[]}],"
	"\"links\":[{\"traceId\":\"00\",\"spanId\":\"00\",\"attributes\":[]}]}]},"
	"{\"spans\":[{\"name\":\"render\",\"kind\":1,\"startTimeUnixNano\":\"1200\","
	"\"endTimeUnixNano\":\"1200\",\"status\":{}},"
	"{\"name\":\"enqueue\",\"kind\":4,\"startTimeUnixNano\":\"1300\",\"endTimeUnixNano\":\"1400\"}]}]},"
	"{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"intValue\":7}}]},"
	"\"scopeSpans\":[{\"spans\":[{\"name\":\"dequeue\",\"kind\":5,"
	"\"startTimeUnixNano\":\"1700000000000000000\",\"endTimeUnixNano\":\"1700000000000000001\","
	"\"status\":{\"code\":\"STATUS_CODE_OK\"}},"
	"{\"startTimeUnixNano\":\"5\",\"endTimeUnixNano\":\"18446744073709551615\"}]}]}]}\n";

static void decode_protobuf(void **state)
{
	struct otlp_result res;
	struct got g = { 0 };
	size_t len;
	uint8_t *buf = sample_pb(&len);

	(void)state;
	assert_int_equal(otlp_decode(OTLP_PROTOBUF, buf, len, 0, collect, &g, &res), 0);
	check_spans(&g);
	assert_true(res.accepted == 6 && res.rejected == 0);
	assert_string_equal(res.message, "");
	free(buf);
}

static void decode_json(void **state)
{
	struct otlp_result res;
	struct got g = { 0 };

	(void)state;
	assert_int_equal(otlp_decode(OTLP_JSON, sample_json, strlen(sample_json), 0, collect, &g,
				     &res), 0);
	check_spans(&g);
	assert_true(res.accepted == 6 && res.rejected == 0);
	/* an empty request, and an empty protobuf body, are requests of no span */
	g.n = 0;
	assert_int_equal(otlp_decode(OTLP_JSON, "{}", 2, 0, collect, &g, &res), 0);
	assert_int_equal(otlp_decode(OTLP_PROTOBUF, "", 0, 0, collect, &g, &res), 0);
	assert_int_equal(g.n, 0);
}

/* ---- names ---- */

static void clean(const char *in, size_t len, const char *want)
{
	char out[OTLP_NAME_MAX + 1];

	otlp_clean_name(out, in, len, "dflt");
	assert_string_equal(out, want);
}

static void names_cleaned(void **state)
{
	char big[1024], want[OTLP_NAME_MAX + 1];
	struct otlp_result res;
	struct got g = { 0 };
	char json[4096];
	size_t n;

	(void)state;
	clean("a/b", 3, "a/b");	/* kept: the span table maps what instance names need */
	clean("tab\there\n", 9, "tab?here?");
	clean("nul\0x", 5, "nul?x");
	clean("del\x7f", 4, "del?");
	clean("c1\xc2\x85", 4, "c1?");
	clean("caf\xc3\xa9 \xe2\x82\xac", 9, "caf\xc3\xa9 \xe2\x82\xac");
	clean("bad\xff", 4, "bad\xef\xbf\xbd");
	clean("\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd");	/* overlong '/' */
	clean("\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");	/* a surrogate */
	clean("\xe2\x82", 2, "\xef\xbf\xbd\xef\xbf\xbd");	/* cut short */
	clean("", 0, "dflt");
	/* cut at a character boundary: 300 x U+00E9 -> 100 of them */
	for (n = 0; n < 300; n++)
		memcpy(big + 2 * n, "\xc3\xa9", 2);
	for (n = 0; n < 100; n++)
		memcpy(want + 2 * n, "\xc3\xa9", 2);
	want[200] = '\0';
	clean(big, 600, want);
	/* "a" and 99 x U+20AC: 1 + 66 x 3 = 199 bytes, the 67th would pass 200 */
	big[0] = 'a';
	for (n = 0; n < 99; n++)
		memcpy(big + 1 + 3 * n, "\xe2\x82\xac", 3);
	memcpy(want, big, 199);
	want[199] = '\0';
	clean(big, 298, want);

	/* through the decoder, service and span names alike, in JSON */
	snprintf(json, sizeof(json), "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":"
		 "\"service.name\",\"value\":{\"stringValue\":\"svc/x\\n\"}}]},\"scopeSpans\":[{\"spans\":"
		 "[{\"name\":\"a\\u0000b/\\u0085c\\ud83d\\ude00\",\"startTimeUnixNano\":\"1\","
		 "\"endTimeUnixNano\":\"2\"},{\"name\":\"\",\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}");
	assert_int_equal(otlp_decode(OTLP_JSON, json, strlen(json), 0, collect, &g, &res), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.s[0].service, "svc/x?");
	assert_string_equal(g.s[0].name, "a?b/?c\xf0\x9f\x98\x80");
	assert_string_equal(g.s[1].name, "unnamed");
}

/* service.namespace, in both encodings: the span's ns, "" without one. */
static void namespaces(void **state)
{
	static const char json[] =
		"{\"resourceSpans\":[{\"resource\":{\"attributes\":["
		"{\"key\":\"service.namespace\",\"value\":{\"stringValue\":\"team/a\"}},"
		"{\"key\":\"service.name\",\"value\":{\"stringValue\":\"api\"}}]},"
		"\"scopeSpans\":[{\"spans\":[{\"name\":\"x\",\"startTimeUnixNano\":\"1\","
		"\"endTimeUnixNano\":\"2\"}]}]},"
		"{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
		"{\"stringValue\":\"api\"}}]},\"scopeSpans\":[{\"spans\":[{\"name\":\"y\","
		"\"startTimeUnixNano\":\"1\",\"endTimeUnixNano\":\"2\"}]}]}]}";
	KV kns = OPENTELEMETRY__PROTO__TRACE__V1__KEY_VALUE__INIT, ksvc = kns;
	Any vns = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__INIT, vsvc = vns;
	KV *kvs[] = { &ksvc, &kns };
	Resource res = OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE__INIT;
	Span sp = OPENTELEMETRY__PROTO__TRACE__V1__SPAN__INIT, *sps[] = { &sp };
	Opentelemetry__Proto__Trace__V1__ScopeSpans ss =
		OPENTELEMETRY__PROTO__TRACE__V1__SCOPE_SPANS__INIT, *sss[] = { &ss };
	Opentelemetry__Proto__Trace__V1__ResourceSpans rs =
		OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE_SPANS__INIT, *rss[] = { &rs };
	Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest req =
		OPENTELEMETRY__PROTO__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	struct otlp_result r;
	struct got g = { 0 };
	uint8_t buf[512];
	size_t len;

	(void)state;
	assert_int_equal(otlp_decode(OTLP_JSON, json, strlen(json), 0, collect, &g, &r), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.s[0].ns, "team/a");	/* as sent: the span table maps it */
	assert_string_equal(g.s[0].service, "api");
	assert_string_equal(g.s[1].ns, "");
	/* the same first resource in protobuf */
	vns.value_case = vsvc.value_case =
		OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE;
	vns.string_value = "ns\x01";
	vsvc.string_value = "api";
	kns.key = "service.namespace";
	kns.value = &vns;
	ksvc.key = "service.name";
	ksvc.value = &vsvc;
	res.n_attributes = 2;
	res.attributes = kvs;
	sp.name = "z";
	sp.start_time_unix_nano = 5;
	sp.end_time_unix_nano = 6;
	ss.n_spans = 1;
	ss.spans = sps;
	rs.resource = &res;
	rs.n_scope_spans = 1;
	rs.scope_spans = sss;
	req.n_resource_spans = 1;
	req.resource_spans = rss;
	len = opentelemetry__proto__trace__v1__export_trace_service_request__pack(&req, buf);
	g.n = 0;
	assert_int_equal(otlp_decode(OTLP_PROTOBUF, buf, len, 0, collect, &g, &r), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.s[0].ns, "ns?");	/* cleaned as names are */
	assert_string_equal(g.s[0].service, "api");
}

/* ---- refusals of single spans ---- */

static void spans_refused(void **state)
{
	static const char json[] =
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
		"{\"name\":\"ok1\",\"startTimeUnixNano\":\"10\",\"endTimeUnixNano\":\"20\"},"
		"{\"name\":\"backwards\",\"startTimeUnixNano\":\"20\",\"endTimeUnixNano\":\"10\"},"
		"{\"name\":\"kind9\",\"kind\":9},"
		"{\"name\":\"kind-1\",\"kind\":-1},"
		"{\"name\":\"status7\",\"status\":{\"code\":7}},"
		"{\"name\":\"refuse-me\"},"
		"{\"name\":\"ok2\",\"startTimeUnixNano\":\"30\",\"endTimeUnixNano\":\"30\"}]}]}]}";
	struct otlp_result res;
	struct got g = { .refuse_name = 1 };
	Span sp[3], *spans[3] = { &sp[0], &sp[1], &sp[2] };
	SS ss = OPENTELEMETRY__PROTO__TRACE__V1__SCOPE_SPANS__INIT, *ssv[1] = { &ss };
	RS rs = OPENTELEMETRY__PROTO__TRACE__V1__RESOURCE_SPANS__INIT, *rsv[1] = { &rs };
	Req req = OPENTELEMETRY__PROTO__TRACE__V1__EXPORT_TRACE_SERVICE_REQUEST__INIT;
	uint8_t buf[256];
	size_t len;

	(void)state;
	assert_int_equal(otlp_decode(OTLP_JSON, json, strlen(json), 0, collect, &g, &res), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.s[0].name, "ok1");
	assert_string_equal(g.s[1].name, "ok2");
	assert_true(res.accepted == 2 && res.rejected == 5);
	assert_non_null(strstr(res.message, "backwards"));
	assert_non_null(strstr(res.message, "ends before it starts"));

	for (int i = 0; i < 3; i++) {
		opentelemetry__proto__trace__v1__span__init(&sp[i]);
		sp[i].start_time_unix_nano = 100;
		sp[i].end_time_unix_nano = 200;
	}
	sp[0].name = (char *)"first";
	sp[1].name = (char *)"late";
	sp[1].end_time_unix_nano = 99;
	sp[2].name = (char *)"last";
	sp[2].kind = 6;
	ss.spans = spans;
	ss.n_spans = 3;
	rs.scope_spans = ssv;
	rs.n_scope_spans = 1;
	req.resource_spans = rsv;
	req.n_resource_spans = 1;
	len = opentelemetry__proto__trace__v1__export_trace_service_request__pack(&req, buf);
	memset(&g, 0, sizeof(g));
	assert_int_equal(otlp_decode(OTLP_PROTOBUF, buf, len, 0, collect, &g, &res), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.s[0].name, "first");
	assert_true(res.accepted == 1 && res.rejected == 2);
	assert_string_equal(res.message, "span 'late': ends before it starts");
}

/* A refusal quotes 60 bytes of the name, never half a character. */
static void refusal_message_utf8(void **state)
{
	char json[512], name[64], want[128];
	Opentelemetry__Proto__Trace__V1__ExportTraceServiceResponse *r;
	struct otlp_result res;
	struct got g = { 0 };
	char buf[512];
	int n;

	(void)state;
	memset(name, 'a', 59);
	memcpy(name + 59, "\xc3\xa9", 3);	/* 59 + 2 bytes, and the NUL */
	snprintf(json, sizeof(json), "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":["
		 "{\"name\":\"%s\",\"startTimeUnixNano\":\"20\",\"endTimeUnixNano\":\"10\"}"
		 "]}]}]}", name);
	assert_int_equal(otlp_decode(OTLP_JSON, json, strlen(json), 0, collect, &g, &res), 0);
	assert_true(res.accepted == 0 && res.rejected == 1);
	assert_true(valid_utf8(res.message));
	snprintf(want, sizeof(want), "span '%.59s': ends before it starts", name);
	assert_string_equal(res.message, want);
	n = otlp_answer(OTLP_PROTOBUF, &res, buf, sizeof(buf));
	assert_true(n > 0);
	r = opentelemetry__proto__trace__v1__export_trace_service_response__unpack(NULL, (size_t)n,
										      (uint8_t *)buf);
	assert_non_null(r);
	assert_true(valid_utf8(r->partial_success->error_message));
	opentelemetry__proto__trace__v1__export_trace_service_response__free_unpacked(r, NULL);
}

/* ---- bodies that are not requests ---- */

static void refused(enum otlp_encoding enc, const void *body, size_t len, int want)
{
	struct otlp_result res;
	size_t calls = 0;
	int rc = otlp_decode(enc, body, len, 0, count_only, &calls, &res);

	if (rc != want)
		fail_msg("%s body of %zu bytes: %d, not %d (%s)", enc == OTLP_JSON ? "JSON" : "protobuf",
			 len, rc, want, res.message);
	assert_int_equal(calls, 0);
	assert_true(res.accepted == 0 && res.rejected == 0);
	assert_true(res.message[0] != '\0');
}

static void bad_bodies(void **state)
{
	static const char *const bad_json[] = {
		"{\"resourceSpans\":[", "{\"resourceSpans\":5}", "{} x", "[]", "\"x\"", "nul",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":\"x\"}]}]}",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"kind\":\"FOO\"}]}]}]}",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"startTimeUnixNano\":\"-1\"}]}]}]}",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"startTimeUnixNano\":\"12a\"}]}]}]}",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"endTimeUnixNano\":\"18446744073709551616\"}]}]}]}",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"endTimeUnixNano\":1.5}]}]}]}",
		"{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":7}]}]}]}",
		("{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"k\",\"value\":"
		 "{\"arrayValue\":{\"values\":5}}}]}}]}"),
		"{'resourceSpans':[]}", "{\"a\":1,}", "null", "{\"resourceSpans\":[null]}", "{\"name\":\"\xff\"}",
		/* what json-c outside strict mode takes (otlp_json_flags) */
		"{\"a\":[1 , ]}", "{/**/}", "{} // c",
	};
	/* field 1 as a varint, a group, a length past the end, a 6-byte tag */
	static const uint8_t bad_pb[][8] = {
		{ 0x08, 0x01 }, { 0x0b, 0x0c }, { 0x0a, 0x05, 0x00 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 },
		{ 0x00 }, { 0x0a, 0x02, 0x12, 0x07 }, { 0x0a, 0x02, 0x0a, 0x80 },
	};
	static const size_t bad_pb_len[] = { 2, 2, 3, 6, 1, 4, 4 };
	/* a span's name (5) as a varint: framing is right, protobuf-c refuses it */
	static const uint8_t wrong_type[] = { 0x0a, 0x06, 0x12, 0x04, 0x12, 0x02, 0x28, 0x01 };
	uint8_t *buf;
	size_t len;

	(void)state;
	for (size_t i = 0; i < sizeof(bad_json) / sizeof(bad_json[0]); i++)
		refused(OTLP_JSON, bad_json[i], strlen(bad_json[i]), -EBADMSG);
	refused(OTLP_JSON, "{}\0", 3, -EBADMSG);
	refused(OTLP_JSON, "", 0, -EBADMSG);
	for (size_t i = 0; i < sizeof(bad_pb_len) / sizeof(bad_pb_len[0]); i++)
		refused(OTLP_PROTOBUF, bad_pb[i], bad_pb_len[i], -EBADMSG);
	refused(OTLP_PROTOBUF, wrong_type, sizeof(wrong_type), -EBADMSG);
	refused(OTLP_PROTOBUF, "garbage!", 8, -EBADMSG);
	/* the sample request cut anywhere inside its first resource */
	buf = sample_pb(&len);
	for (size_t cut = 1, first = 0; cut < len; cut++) {
		if (first == 0) {	/* where the first resource ends */
			size_t i = 1, n = 0;

			for (int sh = 0; buf[i] & 0x80; sh += 7)
				n |= (size_t)(buf[i++] & 0x7f) << sh;
			n |= (size_t)buf[i] << (7 * (i - 1));
			first = i + 1 + n;
		}
		if (cut == first)	/* a whole resource is a request */
			continue;
		refused(OTLP_PROTOBUF, buf, cut, -EBADMSG);
	}
	free(buf);
	for (size_t cut = 1; cut < strlen(sample_json) - 1; cut += 7)
		refused(OTLP_JSON, sample_json, cut, -EBADMSG);
}

/* ---- nesting ---- */

/* Prepends @tag and the length of what is at *@at to the end of @b. */
static void wrap(uint8_t *b, size_t cap, size_t *at, uint8_t tag)
{
	size_t n = cap - *at;
	uint8_t v[10];
	int k = 0;

	do {
		v[k++] = (uint8_t)((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
		n >>= 7;
	} while (n);
	while (k)
		b[--*at] = v[--k];
	b[--*at] = tag;
}

/* A request whose span attribute's value nests @depth AnyValues (arrays,
 * or key-value lists when @kvlist), built backwards into a malloc'd buffer. */
static uint8_t *nested_pb(size_t depth, int kvlist, size_t *len)
{
	size_t cap = 16 * depth + 64, at = cap;
	uint8_t *b = malloc(cap);

	assert_non_null(b);
	for (size_t i = 1; i < depth; i++) {
		if (kvlist) {
			wrap(b, cap, &at, 0x12);	/* KeyValue.value */
			b[--at] = 0x00;			/* key "" */
			b[--at] = 0x0a;
			wrap(b, cap, &at, 0x0a);	/* KeyValueList.values */
			wrap(b, cap, &at, 0x32);	/* AnyValue.kvlist_value */
		} else {
			wrap(b, cap, &at, 0x0a);	/* ArrayValue.values */
			wrap(b, cap, &at, 0x2a);	/* AnyValue.array_value */
		}
	}
	wrap(b, cap, &at, 0x12);	/* KeyValue.value: the outermost AnyValue */
	wrap(b, cap, &at, 0x4a);	/* Span.attributes */
	wrap(b, cap, &at, 0x12);	/* ScopeSpans.spans */
	wrap(b, cap, &at, 0x12);	/* ResourceSpans.scope_spans */
	wrap(b, cap, &at, 0x0a);	/* request.resource_spans */
	*len = cap - at;
	memmove(b, b + at, *len);
	return b;
}

/* The same in JSON. */
static char *nested_json(size_t depth, int kvlist, size_t *len)
{
	static const char head[] = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":"
		"[{\"key\":\"k\",\"value\":";
	static const char tail[] = "}]}]}]}]}";
	const char *open = kvlist ? "{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":" :
		"{\"arrayValue\":{\"values\":[";
	const char *close = kvlist ? "}]}}" : "]}}";
	size_t n = strlen(head) + strlen(tail) + depth * (strlen(open) + strlen(close)) + 8;
	char *s = malloc(n), *p = s;

	assert_non_null(s);
	p += sprintf(p, "%s", head);
	for (size_t i = 1; i < depth; i++)
		p += sprintf(p, "%s", open);
	p += sprintf(p, "{}");
	for (size_t i = 1; i < depth; i++)
		p += sprintf(p, "%s", close);
	p += sprintf(p, "%s", tail);
	*len = (size_t)(p - s);
	return s;
}

static void nesting(void **state)
{
	static const size_t depths[] = { OTLP_DEPTH_MAX, OTLP_DEPTH_MAX + 1, 100000 };
	struct otlp_result res;
	size_t calls, len;

	(void)state;
	for (int kv = 0; kv < 2; kv++) {
		for (size_t i = 0; i < 3; i++) {
			uint8_t *pb = nested_pb(depths[i], kv, &len);
			int want = i == 0 ? 0 : -E2BIG;
			char *js;

			calls = 0;
			assert_int_equal(otlp_decode(OTLP_PROTOBUF, pb, len, 0, count_only, &calls, &res), want);
			/* its one span has no start time: reported, and refused for that */
			assert_int_equal(res.rejected_by[OTLP_REJECT_NO_START], i == 0 ? 1 : 0);
			free(pb);
			js = nested_json(depths[i], kv, &len);
			calls = 0;
			assert_int_equal(otlp_decode(OTLP_JSON, js, len, 0, count_only, &calls, &res), want);
			assert_int_equal(res.rejected_by[OTLP_REJECT_NO_START], i == 0 ? 1 : 0);
			free(js);
		}
	}
}

/* ---- memory ---- */

static void memory_budget(void **state)
{
	const size_t spans = 100000;
	size_t len = 2 * spans + 16, calls = 0, at = 0;
	uint8_t *b = malloc(len);
	struct otlp_result res;
	char *js;

	(void)state;
	assert_non_null(b);
	/* one resource, one scope, 100000 empty spans: 2 bytes each */
	b[at++] = 0x0a;
	at += 4;		/* 4-byte varint length, filled in below */
	b[at++] = 0x12;
	at += 4;
	for (size_t i = 0; i < spans; i++) {
		b[at++] = 0x12;
		b[at++] = 0x00;
	}
	for (int k = 0; k < 2; k++) {
		size_t pos = k == 0 ? 1 : 6, n = at - pos - 4;

		for (int j = 0; j < 4; j++, n >>= 7)
			b[pos + j] = (uint8_t)((n & 0x7f) | (j < 3 ? 0x80 : 0));
	}
	/* protobuf is walked in place (pbwalk.c): nothing allocated, no budget
	 * to be over, where protobuf-c (ref_pb.c) unpacking it needs more */
	for (int budget = 0; budget < 2; budget++) {
		assert_int_equal(otlp_decode(OTLP_PROTOBUF, b, at, budget ? 1u << 20 : 0, count_only,
					     &calls, &res), 0);
		/* empty spans have no start time: each refused, for that reason */
		assert_int_equal(calls, 0);
		assert_true(res.rejected == spans && res.rejected_by[OTLP_REJECT_NO_START] == spans);
	}
	{
		struct otlp_ctx c = { .fn = count_only, .arg = &calls, .res = &res };

		memset(&res, 0, sizeof(res));
		assert_int_equal(otlp_decode_pb_ref(b, at, 1u << 20, &c), -ENOMEM);
		assert_int_equal(calls, 0);
		assert_non_null(strstr(res.message, "memory"));
	}
	free(b);

	/* JSON: a budget below the walker's fixed state (OTLP_JW_MEM) */
	js = nested_json(3, 0, &len);
	calls = 0;
	assert_int_equal(otlp_decode(OTLP_JSON, js, len, 2048, count_only, &calls, &res), -ENOMEM);
	assert_int_equal(calls, 0);
	assert_int_equal(otlp_decode(OTLP_JSON, js, len, 0, count_only, &calls, &res), 0);
	assert_int_equal(res.rejected_by[OTLP_REJECT_NO_START], 1);	/* its span has no times */
	free(js);
}

/* ---- gzip ---- */

/* gzip @len bytes of @in (or @len zeros if @in is NULL) into a malloc'd buffer. */
static uint8_t *gzip(const void *in, size_t len, size_t *outlen)
{
	static const uint8_t zeros[1 << 16];
	z_stream z = { 0 };
	size_t cap = len / 100 + 4096;
	uint8_t *out = malloc(cap);
	size_t left = len;

	assert_non_null(out);
	assert_int_equal(deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 9, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_out = out;
	z.avail_out = (unsigned)cap;
	do {
		size_t n = in ? left : (left < sizeof(zeros) ? left : sizeof(zeros));

		z.next_in = (uint8_t *)(in ? (const uint8_t *)in + (len - left) : zeros);
		z.avail_in = (unsigned)n;
		left -= n;
		assert_int_not_equal(deflate(&z, left ? Z_NO_FLUSH : Z_FINISH), Z_STREAM_ERROR);
		assert_int_equal(z.avail_in, 0);
	} while (left);
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

static void gunzip(void **state)
{
	size_t zlen, outlen;
	uint8_t *z, *bad;
	void *out;
	struct timespec t0, t1;

	(void)state;
	z = gzip(sample_json, strlen(sample_json), &zlen);
	assert_int_equal(otlp_gunzip(z, zlen, 0, &out, &outlen), 0);
	assert_int_equal(outlen, strlen(sample_json));
	assert_memory_equal(out, sample_json, outlen);
	free(out);
	/* exactly at the cap, and one byte over */
	assert_int_equal(otlp_gunzip(z, zlen, strlen(sample_json), &out, &outlen), 0);
	free(out);
	assert_int_equal(otlp_gunzip(z, zlen, strlen(sample_json) - 1, &out, &outlen), -EMSGSIZE);
	assert_null(out);
	/* cut short anywhere, and with bytes after it */
	for (size_t cut = 0; cut < zlen; cut++) {
		assert_int_equal(otlp_gunzip(z, cut, 0, &out, &outlen), -EBADMSG);
		assert_null(out);
	}
	bad = malloc(zlen + 1);
	assert_non_null(bad);
	memcpy(bad, z, zlen);
	bad[zlen] = 0;
	assert_int_equal(otlp_gunzip(bad, zlen + 1, 0, &out, &outlen), -EBADMSG);
	bad[zlen / 2] ^= 0x55;	/* corrupt: the CRC or the data says so */
	assert_int_equal(otlp_gunzip(bad, zlen, 0, &out, &outlen), -EBADMSG);
	free(bad);
	assert_int_equal(otlp_gunzip(sample_json, 100, 0, &out, &outlen), -EBADMSG);
	free(z);

	/* 1 GiB of zeros: refused after the cap, quickly */
	z = gzip(NULL, (size_t)1 << 30, &zlen);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(otlp_gunzip(z, zlen, 0, &out, &outlen), -EMSGSIZE);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_null(out);
	assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 < 2000);
	free(z);
}

/* ---- answers ---- */

static void answers(void **state)
{
	struct otlp_result res = { .accepted = 3, .rejected = 2 };
	Opentelemetry__Proto__Trace__V1__ExportTraceServiceResponse *r;
	Opentelemetry__Proto__Trace__V1__RpcStatus *st;
	json_object *j, *ps, *v;
	char buf[512];
	int n;

	(void)state;
	snprintf(res.message, sizeof(res.message), "span 'a\"b\\c\n\xff': ends before it starts");
	n = otlp_answer(OTLP_PROTOBUF, &res, buf, sizeof(buf));
	assert_true(n > 0);
	r = opentelemetry__proto__trace__v1__export_trace_service_response__unpack(NULL, (size_t)n,
										      (uint8_t *)buf);
	assert_non_null(r);
	assert_non_null(r->partial_success);
	assert_int_equal(r->partial_success->rejected_spans, 2);
	/* a proto3 string: the byte that is not UTF-8 goes out as U+FFFD */
	assert_true(valid_utf8(r->partial_success->error_message));
	assert_string_equal(r->partial_success->error_message,
			    "span 'a\"b\\c\n\xef\xbf\xbd': ends before it starts");
	opentelemetry__proto__trace__v1__export_trace_service_response__free_unpacked(r, NULL);

	n = otlp_answer(OTLP_JSON, &res, buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(j = json_tokener_parse(buf));
	assert_true(json_object_object_get_ex(j, "partialSuccess", &ps));
	assert_true(json_object_object_get_ex(ps, "rejectedSpans", &v));
	assert_true(json_object_is_type(v, json_type_string));
	assert_string_equal(json_object_get_string(v), "2");
	assert_true(json_object_object_get_ex(ps, "errorMessage", &v));
	assert_string_equal(json_object_get_string(v), "span 'a\"b\\c\n\xef\xbf\xbd': ends before it starts");
	json_object_put(j);
	assert_int_equal(otlp_answer(OTLP_JSON, &res, buf, 20), -ENOSPC);
	assert_int_equal(otlp_answer(OTLP_PROTOBUF, &res, buf, 10), -ENOSPC);

	/* nothing refused: an empty response */
	res.rejected = 0;
	res.message[0] = '\0';
	assert_int_equal(otlp_answer(OTLP_PROTOBUF, &res, buf, sizeof(buf)), 0);
	assert_int_equal(otlp_answer(OTLP_JSON, &res, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "{}", 2);

	n = otlp_status_body(OTLP_PROTOBUF, 3, "values nested deeper than 32", buf, sizeof(buf));
	assert_true(n > 0);
	st = opentelemetry__proto__trace__v1__rpc_status__unpack(NULL, (size_t)n, (uint8_t *)buf);
	assert_non_null(st);
	assert_int_equal(st->code, 3);
	assert_string_equal(st->message, "values nested deeper than 32");
	assert_int_equal(st->n_details, 0);
	opentelemetry__proto__trace__v1__rpc_status__free_unpacked(st, NULL);
	n = otlp_status_body(OTLP_JSON, 8, "too \"big\"\t", buf, sizeof(buf));
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(j = json_tokener_parse(buf));
	assert_true(json_object_object_get_ex(j, "code", &v));
	assert_int_equal(json_object_get_int(v), 8);
	assert_true(json_object_object_get_ex(j, "message", &v));
	assert_string_equal(json_object_get_string(v), "too \"big\"\t");
	json_object_put(j);
	assert_int_equal(otlp_status_body(OTLP_JSON, 8, "x", buf, 5), -ENOSPC);
}

/* ---- the fuzzer's seeds (tests/fuzz/otlp_corpus.py) are requests ---- */

#define ANY_SPANS UINT64_MAX

static void seeds(void **state)
{
	static const struct { const char *name; uint64_t accepted, rejected; } seed[] = {
		{ "protobuf", 4, 1 }, { "json", 2, 1 }, { "gzip-protobuf", 4, 1 }, { "gzip-json", 2, 1 },
		/* from the stock Node SDK (tests/fuzz/otlp_capture.py): its plan's spans */
		{ "sdk-protobuf-shop", 5, 0 }, { "sdk-protobuf-billing", 1, 0 },
		{ "sdk-gzip-protobuf-shop", 5, 0 }, { "sdk-gzip-protobuf-billing", 1, 0 },
		{ "sdk-json-shop", 5, 0 }, { "sdk-json-billing", 1, 0 },
		{ "sdk-gzip-json-shop", 5, 0 }, { "sdk-gzip-json-billing", 1, 0 },
		{ "sdk-demo-protobuf", ANY_SPANS, 0 },	/* the demo's random batch: some */
	};
	struct otlp_result res;
	char path[128];
	uint8_t buf[4096];
	size_t calls, n;
	void *body;
	FILE *f;

	(void)state;
	for (size_t i = 0; i < sizeof(seed) / sizeof(seed[0]); i++) {
		snprintf(path, sizeof(path), "tests/fuzz/corpus/otlp_decode/%s", seed[i].name);
		assert_non_null(f = fopen(path, "rb"));
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		assert_true(n > 1 && n < sizeof(buf));
		body = buf + 1;
		n--;
		if (buf[0] == 2)
			assert_int_equal(otlp_gunzip(buf + 1, n, 0, &body, &n), 0);
		calls = 0;
		assert_int_equal(otlp_decode(strstr(seed[i].name, "json") ? OTLP_JSON : OTLP_PROTOBUF, body, n,
					     0, count_only, &calls, &res), 0);
		/* the fuzzer refuses "x..." itself; here every valid span is taken */
		assert_int_equal(res.rejected, seed[i].rejected);
		if (seed[i].accepted == ANY_SPANS)
			assert_true(res.accepted > 0 && res.accepted == calls);
		else
			assert_int_equal(res.accepted, seed[i].accepted);
		if (body != buf + 1)
			free(body);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(decode_protobuf),
		cmocka_unit_test(decode_json),
		cmocka_unit_test(names_cleaned),
		cmocka_unit_test(namespaces),
		cmocka_unit_test(spans_refused),
		cmocka_unit_test(refusal_message_utf8),
		cmocka_unit_test(bad_bodies),
		cmocka_unit_test(nesting),
		cmocka_unit_test(memory_budget),
		cmocka_unit_test(gunzip),
		cmocka_unit_test(answers),
		cmocka_unit_test(seeds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
