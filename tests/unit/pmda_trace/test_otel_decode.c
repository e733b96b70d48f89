/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP metrics decoder (pmda_trace/otel/decode.c, decode.h): every
 * metric kind from a request built with protobuf-c and the same request
 * in hand-written JSON (proto field names, enum names, int64 strings,
 * "NaN"/"Infinity") give the same points; the stock Node SDK's captures
 * (tests/fuzz/otel_metrics.js) give the same points in either encoding;
 * attribute values of every AnyValue type become the JSON text decode.h
 * promises; bodies that do not decode, nest too deep or need too much
 * memory report nothing; the callback's refusals are counted by reason;
 * the answers decode with protobuf-c and json-c.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../../pmda_trace/otel/decode.h"
#include "../../../pmda_trace/otlp/otlp_priv.h"
#include "otlp_metrics.pb-c.h"

typedef Opentelemetry__Proto__Trace__V1__ExportMetricsServiceRequest Req;
typedef Opentelemetry__Proto__Trace__V1__ResourceMetrics RM;
typedef Opentelemetry__Proto__Trace__V1__ScopeMetrics SM;
typedef Opentelemetry__Proto__Trace__V1__Metric Metric;
typedef Opentelemetry__Proto__Trace__V1__Gauge Gauge;
typedef Opentelemetry__Proto__Trace__V1__Sum Sum;
typedef Opentelemetry__Proto__Trace__V1__Histogram Hist;
typedef Opentelemetry__Proto__Trace__V1__ExponentialHistogram EHist;
typedef Opentelemetry__Proto__Trace__V1__Summary Summary;
typedef Opentelemetry__Proto__Trace__V1__NumberDataPoint NDP;
typedef Opentelemetry__Proto__Trace__V1__HistogramDataPoint HDP;
typedef Opentelemetry__Proto__Trace__V1__ExponentialHistogramDataPoint EDP;
typedef Opentelemetry__Proto__Trace__V1__ExponentialHistogramDataPoint__Buckets Buckets;
typedef Opentelemetry__Proto__Trace__V1__SummaryDataPoint SDP;
typedef Opentelemetry__Proto__Trace__V1__SummaryDataPoint__ValueAtQuantile VAQ;
typedef Opentelemetry__Proto__Trace__V1__Resource Resource;
typedef Opentelemetry__Proto__Trace__V1__InstrumentationScope Scope;
typedef Opentelemetry__Proto__Trace__V1__KeyValue KV;
typedef Opentelemetry__Proto__Trace__V1__AnyValue Any;
typedef Opentelemetry__Proto__Trace__V1__ArrayValue Arr;
typedef Opentelemetry__Proto__Trace__V1__KeyValueList KVL;

#define PB(x)	OPENTELEMETRY__PROTO__TRACE__V1__##x

/* ---- building requests: everything from one pool, freed at once ---- */

static char pool[1 << 20];
static size_t pool_used;

static void *pool_take(size_t n)
{
	void *p = pool + pool_used;

	pool_used += (n + 15) & ~(size_t)15;
	assert_true(pool_used <= sizeof(pool));
	memset(p, 0, n);
	return p;
}

#define NEW(type, init)	((type *)memcpy(pool_take(sizeof(type)), &(type)init, sizeof(type)))

/* A NULL-terminated list of pointers as a protobuf-c repeated field (*@n set). */
static void *list(size_t *n, ...)
{
	void **a, *p;
	va_list ap;

	*n = 0;
	va_start(ap, n);
	while (va_arg(ap, void *) != NULL)
		(*n)++;
	va_end(ap);
	a = pool_take((*n + 1) * sizeof(void *));
	*n = 0;
	va_start(ap, n);
	while ((p = va_arg(ap, void *)) != NULL)
		a[(*n)++] = p;
	va_end(ap);
	return a;
}

static Any *any_str(const char *s)
{
	Any *v = NEW(Any, PB(ANY_VALUE__INIT));

	v->value_case = PB(ANY_VALUE__VALUE_STRING_VALUE);
	v->string_value = (char *)s;
	return v;
}

static Any *any_int(int64_t i)
{
	Any *v = NEW(Any, PB(ANY_VALUE__INIT));

	v->value_case = PB(ANY_VALUE__VALUE_INT_VALUE);
	v->int_value = i;
	return v;
}

static Any *any_double(double d)
{
	Any *v = NEW(Any, PB(ANY_VALUE__INIT));

	v->value_case = PB(ANY_VALUE__VALUE_DOUBLE_VALUE);
	v->double_value = d;
	return v;
}

static Any *any_bool(int b)
{
	Any *v = NEW(Any, PB(ANY_VALUE__INIT));

	v->value_case = PB(ANY_VALUE__VALUE_BOOL_VALUE);
	v->bool_value = b;
	return v;
}

static KV *kv(const char *k, Any *v)
{
	KV *p = NEW(KV, PB(KEY_VALUE__INIT));

	p->key = (char *)k;
	p->value = v;
	return p;
}

static void *pack(const ProtobufCMessage *m, size_t *len)
{
	uint8_t *b;

	*len = protobuf_c_message_get_packed_size(m);
	b = malloc(*len + 1);
	assert_non_null(b);
	protobuf_c_message_pack(m, b);
	return b;
}

/* ---- what the callback saw, as text ---- */

struct dump {
	char *s;
	size_t n, cap;
	size_t points;
	const char *refuse_name;	/* refuse points of this metric with refuse_rc */
	int refuse_rc;
};

static void out(struct dump *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(d->s ? d->s + d->n : NULL, d->s ? d->cap - d->n : 0, fmt, ap);
		va_end(ap);
		assert_true(n >= 0);
		if (d->s != NULL && d->n + (size_t)n < d->cap)
			break;
		d->cap = 2 * (d->cap + (size_t)n) + 256;
		d->s = realloc(d->s, d->cap);
		assert_non_null(d->s);
	}
	d->n += (size_t)n;
}

/* @s (@n bytes) is valid UTF-8 with no control character (C0, DEL, C1). */
static void check_text(const char *s, size_t n)
{
	size_t i = 0, len;
	uint32_t cp;

	for (; i < n; i += len) {
		assert_true((len = sdk_utf8_len((const unsigned char *)s + i, n - i, &cp)) > 0);
		assert_false(cp < 0x20 || (cp >= 0x7f && cp < 0xa0));
	}
	assert_true(s[n] == '\0');
}

/* @s is one JSON value json-c takes in strict mode. */
static void check_json(const char *s, size_t n)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	check_text(s, n);
	json_tokener_set_flags(tok, otlp_json_flags());	/* strict where json-c can */
	o = json_tokener_parse_ex(tok, s, (int)n);
	if (o == NULL && json_tokener_get_error(tok) == json_tokener_continue)	/* a bare number */
		o = json_tokener_parse_ex(tok, "", 1);
	assert_int_equal(json_tokener_get_error(tok), json_tokener_success);
	json_object_put(o);
	json_tokener_free(tok);
}

static void out_attrs(struct dump *d, const struct otel_attr *a, size_t n)
{
	assert_true(n == 0 || a != NULL);
	out(d, "{");
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(strlen(a[i].key), a[i].key_len);
		check_text(a[i].key, a[i].key_len);
		check_json(a[i].json, a[i].json_len);
		out(d, "%s%s=%s", i ? ";" : "", a[i].key, a[i].json);
	}
	out(d, "}");
}

static void out_u64s(struct dump *d, const uint64_t *v, size_t n)
{
	out(d, "[");
	for (size_t i = 0; i < n; i++)
		out(d, "%s%llu", i ? "," : "", (unsigned long long)v[i]);
	out(d, "]");
}

static int record(void *arg, const struct otel_resource *r, const struct otel_metric *m,
		  const struct otel_point *p)
{
	struct dump *d = arg;

	check_text(r->service, strlen(r->service));
	check_text(m->name, strlen(m->name));
	check_text(m->description, strlen(m->description));
	check_text(m->unit, strlen(m->unit));
	assert_true(strlen(r->service) > 0);
	out(d, "R %s|%s|%s|%s|%s|", r->service, r->ns, r->instance_id, r->scope_name, r->scope_version);
	out_attrs(d, r->attrs, r->n_attrs);
	out(d, "\nM %s|%s|%s|%d|%d|%d\nP ", m->name, m->description, m->unit, m->kind, m->temporality,
	    m->monotonic);
	out_attrs(d, p->attrs, p->n_attrs);
	out(d, "|%llu|%llu|nv%d|", (unsigned long long)p->start_ns, (unsigned long long)p->time_ns,
	    p->no_value);
	switch (m->kind) {
	case OTEL_GAUGE:
	case OTEL_SUM:
		if (p->is_int)
			out(d, "i%lld", (long long)p->as_int);
		else
			out(d, "d%a", p->as_double);
		break;
	case OTEL_HISTOGRAM:
		out(d, "c%llu|s%d:%a|b", (unsigned long long)p->count, p->has_sum, p->sum);
		for (size_t i = 0; i < p->n_bounds; i++)
			out(d, "%s%a", i ? "," : "[", p->bounds[i]);
		out(d, "%s|", p->n_bounds ? "]" : "[]");
		out_u64s(d, p->counts, p->n_counts);
		break;
	case OTEL_EXPHIST:
		out(d, "c%llu|s%d:%a|sc%d|z%llu:%a|+%d", (unsigned long long)p->count, p->has_sum, p->sum,
		    p->scale, (unsigned long long)p->zero_count, p->zero_threshold, p->pos_offset);
		out_u64s(d, p->pos, p->n_pos);
		out(d, "|-%d", p->neg_offset);
		out_u64s(d, p->neg, p->n_neg);
		break;
	case OTEL_SUMMARY:
		out(d, "c%llu|s%d:%a|q", (unsigned long long)p->count, p->has_sum, p->sum);
		for (size_t i = 0; i < p->n_quantiles; i++)
			out(d, "(%a,%a)", p->quantiles[i].quantile, p->quantiles[i].value);
		break;
	}
	out(d, "\n");
	d->points++;
	if (d->refuse_name != NULL && strcmp(m->name, d->refuse_name) == 0)
		return d->refuse_rc;
	return 0;
}

static int count_only(void *arg, const struct otel_resource *r, const struct otel_metric *m,
		      const struct otel_point *p)
{
	(void)r;
	(void)m;
	(void)p;
	(*(size_t *)arg)++;
	return 0;
}

/* Decodes @body both ways it is given and wants the same dump; returns it. */
static char *decode_dump(enum otlp_encoding enc, const void *body, size_t len, size_t *points,
			 struct otel_result *res)
{
	struct dump d = { 0 };

	assert_int_equal(otel_decode(enc, body, len, 0, record, &d, res), 0);
	assert_true(res->accepted == d.points && res->rejected == 0);
	assert_string_equal(res->message, "");
	*points = d.points;
	if (d.s == NULL)
		d.s = strdup("");
	return d.s;
}

/* ---- one request of every kind, built with protobuf-c ---- */

static NDP *ndp(uint64_t start, uint64_t time, int as_int, int64_t i, double x, uint32_t flags)
{
	NDP *p = NEW(NDP, PB(NUMBER_DATA_POINT__INIT));

	p->start_time_unix_nano = start;
	p->time_unix_nano = time;
	p->flags = flags;
	if (as_int == 1) {
		p->value_case = PB(NUMBER_DATA_POINT__VALUE_AS_INT);
		p->as_int = i;
	} else if (as_int == 0) {
		p->value_case = PB(NUMBER_DATA_POINT__VALUE_AS_DOUBLE);
		p->as_double = x;
	}
	return p;
}

static Metric *metric(const char *name, const char *desc, const char *unit)
{
	Metric *m = NEW(Metric, PB(METRIC__INIT));

	m->name = (char *)name;
	m->description = (char *)desc;
	m->unit = (char *)unit;
	return m;
}

static uint8_t *every_kind_pb(size_t *len)
{
	Req req = PB(EXPORT_METRICS_SERVICE_REQUEST__INIT);
	RM *rm1 = NEW(RM, PB(RESOURCE_METRICS__INIT)), *rm2 = NEW(RM, PB(RESOURCE_METRICS__INIT));
	SM *sm1 = NEW(SM, PB(SCOPE_METRICS__INIT)), *sm2 = NEW(SM, PB(SCOPE_METRICS__INIT));
	SM *sm3 = NEW(SM, PB(SCOPE_METRICS__INIT));
	Resource *res = NEW(Resource, PB(RESOURCE__INIT));
	Scope *scope = NEW(Scope, PB(INSTRUMENTATION_SCOPE__INIT));
	Metric *g = metric("g.int", "int gauge", "1"), *s1 = metric("s.mono", "", "{req}");
	Metric *s2 = metric("s.delta", "", ""), *h1 = metric("h", "latency", "s");
	Metric *h2 = metric("h.nosum", "", ""), *e1 = metric("e", "", "By"), *e2 = metric("e.nosum", "", "");
	Metric *q = metric("sum.q", "quantiles", "ms"), *none = metric("nodata", "", "");
	Metric *empty = metric("empty.gauge", "", ""), *x = metric("x", "", ""), *y = metric("y", "", "");
	Gauge *gg = NEW(Gauge, PB(GAUGE__INIT)), *eg = NEW(Gauge, PB(GAUGE__INIT));
	Gauge *xg = NEW(Gauge, PB(GAUGE__INIT));
	Sum *ss1 = NEW(Sum, PB(SUM__INIT)), *ss2 = NEW(Sum, PB(SUM__INIT)), *ys = NEW(Sum, PB(SUM__INIT));
	Hist *hh1 = NEW(Hist, PB(HISTOGRAM__INIT)), *hh2 = NEW(Hist, PB(HISTOGRAM__INIT));
	EHist *ee1 = NEW(EHist, PB(EXPONENTIAL_HISTOGRAM__INIT));
	EHist *ee2 = NEW(EHist, PB(EXPONENTIAL_HISTOGRAM__INIT));
	Summary *qq = NEW(Summary, PB(SUMMARY__INIT));
	HDP *hp1 = NEW(HDP, PB(HISTOGRAM_DATA_POINT__INIT)), *hp2 = NEW(HDP, PB(HISTOGRAM_DATA_POINT__INIT));
	EDP *ep1 = NEW(EDP, PB(EXPONENTIAL_HISTOGRAM_DATA_POINT__INIT));
	EDP *ep2 = NEW(EDP, PB(EXPONENTIAL_HISTOGRAM_DATA_POINT__INIT));
	Buckets *pos = NEW(Buckets, PB(EXPONENTIAL_HISTOGRAM_DATA_POINT__BUCKETS__INIT));
	Buckets *neg = NEW(Buckets, PB(EXPONENTIAL_HISTOGRAM_DATA_POINT__BUCKETS__INIT));
	SDP *qp = NEW(SDP, PB(SUMMARY_DATA_POINT__INIT));
	VAQ *v[3];
	NDP *p;
	static double bounds[] = { 1, 2 };
	static uint64_t hcounts[] = { 1, 3, 1 }, hcounts2[] = { 2 }, pc[] = { 1, 2, 3 }, nc[] = { 2 };

	res->attributes = list(&res->n_attributes, kv("service.name", any_str("svc")),
			       kv("service.namespace", any_str("ns")),
			       kv("service.instance.id", any_str("i-1")), kv("host", any_str("h")), NULL);
	rm1->resource = res;
	scope->name = (char *)"lib";
	scope->version = (char *)"1.0";
	sm1->scope = scope;

	g->data_case = PB(METRIC__DATA_GAUGE);
	g->gauge = gg;
	p = ndp(10, 20, 1, -3, 0, 0);
	p->attributes = list(&p->n_attributes, kv("a", any_str("x")), NULL);
	gg->data_points = list(&gg->n_data_points, p, ndp(0, 21, 0, 0, 2.5, 0), ndp(0, 22, -1, 0, 0, 0),
			       ndp(0, 23, 1, 5, 0, 1), NULL);

	s1->data_case = PB(METRIC__DATA_SUM);
	s1->sum = ss1;
	ss1->aggregation_temporality = PB(AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE);
	ss1->is_monotonic = 1;
	p = ndp(5, 30, 1, 100, 0, 0);
	p->attributes = list(&p->n_attributes, kv("code", any_int(200)), NULL);
	ss1->data_points = list(&ss1->n_data_points, p, NULL);

	s2->data_case = PB(METRIC__DATA_SUM);
	s2->sum = ss2;
	ss2->aggregation_temporality = PB(AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_DELTA);
	ss2->data_points = list(&ss2->n_data_points, ndp(40, 41, 0, 0, -1.5, 0), NULL);

	h1->data_case = PB(METRIC__DATA_HISTOGRAM);
	h1->histogram = hh1;
	hh1->aggregation_temporality = PB(AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_DELTA);
	hp1->start_time_unix_nano = 50;
	hp1->time_unix_nano = 60;
	hp1->count = 5;
	hp1->_sum_case = PB(HISTOGRAM_DATA_POINT___SUM_SUM);
	hp1->sum = 12.5;
	hp1->_min_case = PB(HISTOGRAM_DATA_POINT___MIN_MIN);
	hp1->min = 0.5;
	hp1->_max_case = PB(HISTOGRAM_DATA_POINT___MAX_MAX);
	hp1->max = 4;
	hp1->explicit_bounds = bounds;
	hp1->n_explicit_bounds = 2;
	hp1->bucket_counts = hcounts;
	hp1->n_bucket_counts = 3;
	hp1->attributes = list(&hp1->n_attributes, kv("r", any_bool(1)), NULL);
	hh1->data_points = list(&hh1->n_data_points, hp1, NULL);

	h2->data_case = PB(METRIC__DATA_HISTOGRAM);
	h2->histogram = hh2;
	hh2->aggregation_temporality = PB(AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE);
	hp2->time_unix_nano = 61;
	hp2->count = 2;
	hp2->bucket_counts = hcounts2;
	hp2->n_bucket_counts = 1;
	hh2->data_points = list(&hh2->n_data_points, hp2, NULL);

	e1->data_case = PB(METRIC__DATA_EXPONENTIAL_HISTOGRAM);
	e1->exponential_histogram = ee1;
	ee1->aggregation_temporality = PB(AGGREGATION_TEMPORALITY__AGGREGATION_TEMPORALITY_CUMULATIVE);
	ep1->start_time_unix_nano = 1;
	ep1->time_unix_nano = 70;
	ep1->count = 9;
	ep1->_sum_case = PB(EXPONENTIAL_HISTOGRAM_DATA_POINT___SUM_SUM);
	ep1->sum = 7.5;
	ep1->scale = 3;
	ep1->zero_count = 1;
	ep1->zero_threshold = 1e-9;
	pos->offset = -2;
	pos->bucket_counts = pc;
	pos->n_bucket_counts = 3;
	neg->offset = 4;
	neg->bucket_counts = nc;
	neg->n_bucket_counts = 1;
	ep1->positive = pos;
	ep1->negative = neg;
	ee1->data_points = list(&ee1->n_data_points, ep1, NULL);

	e2->data_case = PB(METRIC__DATA_EXPONENTIAL_HISTOGRAM);
	e2->exponential_histogram = ee2;
	ep2->time_unix_nano = 71;
	ee2->data_points = list(&ee2->n_data_points, ep2, NULL);

	q->data_case = PB(METRIC__DATA_SUMMARY);
	q->summary = qq;
	qp->start_time_unix_nano = 2;
	qp->time_unix_nano = 80;
	qp->count = 10;
	qp->sum = 55;
	for (int i = 0; i < 3; i++) {
		v[i] = NEW(VAQ, PB(SUMMARY_DATA_POINT__VALUE_AT_QUANTILE__INIT));
		v[i]->quantile = i * 0.5;
		v[i]->value = 1 + i * 4.5;
	}
	qp->quantile_values = list(&qp->n_quantile_values, v[0], v[1], v[2], NULL);
	qq->data_points = list(&qq->n_data_points, qp, NULL);

	empty->data_case = PB(METRIC__DATA_GAUGE);
	empty->gauge = eg;
	sm1->metrics = list(&sm1->n_metrics, g, s1, s2, h1, h2, e1, e2, q, none, empty, NULL);

	x->data_case = PB(METRIC__DATA_GAUGE);
	x->gauge = xg;
	xg->data_points = list(&xg->n_data_points, ndp(0, 90, 0, 0, INFINITY, 0), ndp(0, 91, 0, 0, NAN, 0),
			       NULL);
	sm2->metrics = list(&sm2->n_metrics, x, NULL);
	rm1->scope_metrics = list(&rm1->n_scope_metrics, sm1, sm2, NULL);

	y->data_case = PB(METRIC__DATA_SUM);
	y->sum = ys;
	ys->aggregation_temporality = 7;	/* none OTLP defines */
	ys->data_points = list(&ys->n_data_points, ndp(0, 1, 1, 1, 0, 0), NULL);
	sm3->metrics = list(&sm3->n_metrics, y, NULL);
	rm2->scope_metrics = list(&rm2->n_scope_metrics, sm3, NULL);
	req.resource_metrics = list(&req.n_resource_metrics, rm1, rm2, NULL);
	return pack(&req.base, len);
}

/*
 * The same in JSON as a receiver may get it: proto field names here and
 * there, enums by name, 64-bit integers as strings and numbers, doubles
 * as strings, members of no field, null for a default.
 */
static const char every_kind_json[] =
	"{\"resource_metrics\":[{\"resource\":{\"attributes\":["
	"{\"key\":\"service.name\",\"value\":{\"stringValue\":\"svc\"}},"
	"{\"key\":\"service.namespace\",\"value\":{\"string_value\":\"ns\"}},"
	"{\"key\":\"service.instance.id\",\"value\":{\"stringValue\":\"i-1\"}},"
	"{\"key\":\"host\",\"value\":{\"stringValue\":\"h\"}}],\"droppedAttributesCount\":0},"
	"\"scopeMetrics\":[{\"scope\":{\"name\":\"lib\",\"version\":\"1.0\"},\"metrics\":["
	"{\"name\":\"g.int\",\"description\":\"int gauge\",\"unit\":\"1\",\"gauge\":{\"dataPoints\":["
	"{\"attributes\":[{\"key\":\"a\",\"value\":{\"stringValue\":\"x\"}}],\"startTimeUnixNano\":\"10\","
	"\"timeUnixNano\":20,\"asInt\":\"-3\"},"
	"{\"time_unix_nano\":\"21\",\"as_double\":2.5,\"flags\":0,\"exemplars\":[]},"
	"{\"timeUnixNano\":\"22\",\"asInt\":null},"
	"{\"timeUnixNano\":\"23\",\"asInt\":5,\"flags\":1}]}},"
	"{\"name\":\"s.mono\",\"unit\":\"{req}\",\"sum\":{\"aggregation_temporality\":"
	"\"AGGREGATION_TEMPORALITY_CUMULATIVE\",\"is_monotonic\":true,\"data_points\":["
	"{\"startTimeUnixNano\":5,\"timeUnixNano\":30,\"asInt\":100,"
	"\"attributes\":[{\"key\":\"code\",\"value\":{\"intValue\":\"200\"}}]}]}},"
	"{\"name\":\"s.delta\",\"sum\":{\"aggregationTemporality\":1,\"dataPoints\":["
	"{\"startTimeUnixNano\":\"40\",\"timeUnixNano\":\"41\",\"asDouble\":\"-1.5\"}]},\"futureField\":[1]},"
	"{\"name\":\"h\",\"description\":\"latency\",\"unit\":\"s\",\"histogram\":{"
	"\"aggregationTemporality\":\"AGGREGATION_TEMPORALITY_DELTA\",\"dataPoints\":[{"
	"\"startTimeUnixNano\":\"50\",\"timeUnixNano\":\"60\",\"count\":\"5\",\"sum\":12.5,\"min\":0.5,"
	"\"max\":4,\"explicitBounds\":[1,\"2\"],\"bucketCounts\":[\"1\",3,1],"
	"\"attributes\":[{\"key\":\"r\",\"value\":{\"boolValue\":true}}]}]}},"
	"{\"name\":\"h.nosum\",\"histogram\":{\"aggregationTemporality\":2,\"dataPoints\":[{"
	"\"timeUnixNano\":\"61\",\"count\":2,\"bucket_counts\":[2],\"explicit_bounds\":[]}]}},"
	"{\"name\":\"e\",\"unit\":\"By\",\"exponentialHistogram\":{\"aggregationTemporality\":2,"
	"\"dataPoints\":[{\"startTimeUnixNano\":\"1\",\"timeUnixNano\":\"70\",\"count\":\"9\",\"sum\":7.5,"
	"\"scale\":3,\"zeroCount\":\"1\",\"zeroThreshold\":1e-9,"
	"\"positive\":{\"offset\":-2,\"bucketCounts\":[\"1\",\"2\",\"3\"]},"
	"\"negative\":{\"offset\":4,\"bucket_counts\":[2]}}]}},"
	"{\"name\":\"e.nosum\",\"exponential_histogram\":{\"dataPoints\":[{\"timeUnixNano\":\"71\"}]}},"
	"{\"name\":\"sum.q\",\"description\":\"quantiles\",\"unit\":\"ms\",\"summary\":{\"dataPoints\":[{"
	"\"startTimeUnixNano\":\"2\",\"timeUnixNano\":\"80\",\"count\":\"10\",\"sum\":55,"
	"\"quantile_values\":[{\"quantile\":0,\"value\":1},{\"quantile\":0.5,\"value\":5.5},"
	"{\"quantile\":1,\"value\":10}]}]}},"
	"{\"name\":\"nodata\",\"metadata\":[{\"key\":\"m\",\"value\":{\"stringValue\":\"ignored\"}}]},"
	"{\"name\":\"empty.gauge\",\"gauge\":{}}]},"
	"{\"metrics\":[{\"name\":\"x\",\"gauge\":{\"dataPoints\":["
	"{\"timeUnixNano\":\"90\",\"asDouble\":\"Infinity\"},{\"timeUnixNano\":\"91\",\"asDouble\":\"NaN\"}]}}]}"
	"]},"
	"{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"y\",\"sum\":{\"aggregationTemporality\":7,"
	"\"dataPoints\":[{\"timeUnixNano\":\"1\",\"asInt\":1}]}}]}]}]}\n";

static void every_kind(void **state)
{
	struct otel_result res;
	size_t len, npb, njs;
	uint8_t *pb;
	char *a, *b;

	(void)state;
	pool_used = 0;
	pb = every_kind_pb(&len);
	a = decode_dump(OTLP_PROTOBUF, pb, len, &npb, &res);
	b = decode_dump(OTLP_JSON, every_kind_json, strlen(every_kind_json), &njs, &res);
	assert_string_equal(a, b);
	/* 4 gauge points, 2 sums, 2 histograms, 2 exponential, 1 summary, 2 in x, 1 in y */
	assert_int_equal(npb, 14);
	assert_int_equal(njs, 14);
	/* the resource and the scope */
	assert_non_null(strstr(a, "R svc|ns|i-1|lib|1.0|{service.name=\"svc\";service.namespace=\"ns\";"
			       "service.instance.id=\"i-1\";host=\"h\"}\n"));
	assert_non_null(strstr(a, "R unknown_service|||||{}\nM y|||1|0|0\n"));	/* temporality 7 */
	/* gauges: int, double, no value at all, flagged no recorded value */
	assert_non_null(strstr(a, "M g.int|int gauge|1|0|0|0\nP {a=\"x\"}|10|20|nv0|i-3\n"));
	assert_non_null(strstr(a, "P {}|0|21|nv0|d0x1.4p+1\n"));
	assert_non_null(strstr(a, "P {}|0|22|nv1|d0x0p+0\n"));
	assert_non_null(strstr(a, "P {}|0|23|nv1|i5\n"));
	assert_non_null(strstr(a, "M s.mono||{req}|1|2|1\nP {code=200}|5|30|nv0|i100\n"));
	assert_non_null(strstr(a, "M s.delta|||1|1|0\nP {}|40|41|nv0|d-0x1.8p+0\n"));
	assert_non_null(strstr(a, "M h|latency|s|2|1|0\nP {r=true}|50|60|nv0|c5|s1:0x1.9p+3|"
			       "b[0x1p+0,0x1p+1]|[1,3,1]\n"));
	assert_non_null(strstr(a, "M h.nosum|||2|2|0\nP {}|0|61|nv0|c2|s0:0x0p+0|b[]|[2]\n"));
	assert_non_null(strstr(a, "M e||By|3|2|0\nP {}|1|70|nv0|c9|s1:0x1.ep+2|sc3|z1:"));
	assert_non_null(strstr(a, "|+-2[1,2,3]|-4[2]\n"));
	assert_non_null(strstr(a, "M e.nosum|||3|0|0\nP {}|0|71|nv0|c0|s0:0x0p+0|sc0|z0:0x0p+0|+0[]|-0[]\n"));
	assert_non_null(strstr(a, "M sum.q|quantiles|ms|4|0|0\nP {}|2|80|nv0|c10|s1:0x1.b8p+5|"
			       "q(0x0p+0,0x1p+0)(0x1p-1,0x1.6p+2)(0x1p+0,0x1.4p+3)\n"));
	assert_non_null(strstr(a, "P {}|0|90|nv0|dinf\n"));
	assert_non_null(strstr(a, "P {}|0|91|nv0|dnan\n"));
	assert_null(strstr(a, "nodata"));
	assert_null(strstr(a, "empty.gauge"));
	free(a);
	free(b);
	free(pb);
}

/* ---- the stock Node SDK's requests, in both encodings ---- */

static uint8_t *read_seed(const char *name, size_t *len)
{
	char path[256];
	uint8_t *b = malloc(1 << 16);
	FILE *f;

	assert_non_null(b);
	snprintf(path, sizeof(path), "tests/fuzz/corpus/otel_decode/%s", name);
	assert_non_null(f = fopen(path, "rb"));
	*len = fread(b, 1, 1 << 16, f);
	fclose(f);
	assert_true(*len > 1 && *len < 1 << 16);
	return b;
}

static void sdk_requests(void **state)
{
	static const struct { const char *name; size_t points; } seeds[] = {
		/* 6 counter series, 1 up-down, 2 histogram, 1 exponential, 2 gauge */
		{ "cumulative-1", 12 }, { "cumulative-2", 12 }, { "delta-1", 12 }, { "delta-2", 12 },
		{ "values", 5 },
	};
	struct otel_result res;
	char name[64];

	(void)state;
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		size_t npb, njs, lpb, ljs;
		uint8_t *pb, *js;
		char *a, *b;

		snprintf(name, sizeof(name), "sdk-protobuf-%s", seeds[i].name);
		pb = read_seed(name, &lpb);
		snprintf(name, sizeof(name), "sdk-json-%s", seeds[i].name);
		js = read_seed(name, &ljs);
		assert_true(pb[0] == 0 && js[0] == 1);
		a = decode_dump(OTLP_PROTOBUF, pb + 1, lpb - 1, &npb, &res);
		b = decode_dump(OTLP_JSON, js + 1, ljs - 1, &njs, &res);
		assert_string_equal(a, b);
		assert_int_equal(npb, seeds[i].points);
		if (strncmp(seeds[i].name, "values", 6) != 0) {
			int delta = seeds[i].name[0] == 'd';

			assert_non_null(strstr(a, "R shop|acme|shop-1|pcp-fuzz-metrics|1.2.3|{service.name="
					       "\"shop\";service.namespace=\"acme\";service.instance.id="
					       "\"shop-1\";host.name=\"box\";process.pid=4242}\n"));
			assert_non_null(strstr(a, delta ? "M http.server.requests|Requests served|{request}|1|1|1\n" :
					       "M http.server.requests|Requests served|{request}|1|2|1\n"));
			assert_non_null(strstr(a, "{http.route=\"/cart\";http.response.status_code=300}"));
			assert_non_null(strstr(a, "M rpc.payload.size||By|3|"));
			assert_non_null(strstr(a, "M device.temperature||Cel|0|0|0\nP {device.id=\"a\"}"));
		}
		free(a);
		free(b);
		free(pb);
		free(js);
	}
}

/* The fuzzer's other seeds: every kind, in protobuf text format and the JSON above. */
static void every_kind_seeds(void **state)
{
	static const struct { const char *name; size_t points; } seeds[] = {
		{ "protobuf-every-kind", 6 }, { "json-every-kind", 14 },
	};
	struct otel_result res;

	(void)state;
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		size_t len, n;
		uint8_t *b = read_seed(seeds[i].name, &len);
		char *a = decode_dump(b[0] ? OTLP_JSON : OTLP_PROTOBUF, b + 1, len - 1, &n, &res);

		assert_int_equal(n, seeds[i].points);
		if (b[0] == 0)
			assert_non_null(strstr(a, "R svc|ns|i-1|lib|1.0|{service.name=\"svc\";service.namespace="
					       "\"ns\";service.instance.id=\"i-1\";bytes=\"AAH/\";"
					       "nested={\"a\":[-1,2.5,true]}}\nM q||ms|4|0|0\nP {}|0|80|nv0|c10|"
					       "s1:0x1.b8p+5|q(0x0p+0,0x1p+0)(0x1p-1,0x1.6p+2)(0x1p+0,0x1.4p+3)\n"));
		free(a);
		free(b);
	}
}

/* What the hand-made "values" request's attributes become. */
static void sdk_values(void **state)
{
	struct otel_result res;
	size_t len, n;
	uint8_t *pb = read_seed("sdk-protobuf-values", &len);
	char *a;

	(void)state;
	a = decode_dump(OTLP_PROTOBUF, pb + 1, len - 1, &n, &res);
	assert_non_null(strstr(a, "R vals|||pcp-fuzz-values|0.0.1|{service.name=\"vals\";"
			       "k8s.pod.labels={\"app\":\"x\"};list=[1,2,3]}\n"));
	assert_non_null(strstr(a, "M gauge.int|an int gauge|1|0|0|0\nP {s=\"plain\";"
			       "utf8=\"caf\xc3\xa9 \xe2\x98\x83 \xf0\x9f\x98\x80\";"
			       "ctl=\"tab\\there\\nnl\\u0001\\u007f\\u0085end\";"
			       "quote=\"say \\\"hi\\\" \\\\ back\";i=42;neg=-7;big=9007199254740991;d=3.25;"
			       "tiny=1e-300;bt=true;bf=false;bytes=\"AAH+/xA=\";"
			       "arr=[\"x\",2,2.5,true,[\"in\"]];kv={\"a\":1,\"b\":{\"c\":\"deep\",\"d\":[1,2]}};"
			       "empty=\"\"}|1699999990000000000|1700000000123456789|nv0|i-5\n"));
	assert_non_null(strstr(a, "M sum.double||ms|1|1|0\nP {k=\"v\"}|"));
	assert_non_null(strstr(a, "|d-0x1p-3\n"));
	assert_non_null(strstr(a, "M hist.nosum|no sum|s|2|2|0\nP {h=1}|"));
	assert_non_null(strstr(a, "|c6|s0:0x0p+0|b[0x1p+0,0x1.4p+1,0x1.4p+3]|[1,2,0,3]\n"));
	assert_non_null(strstr(a, "M exphist.signed|both signs|By|3|1|0\nP {e=\"x\"}|"));
	assert_non_null(strstr(a, "|c12|s1:-0x1.cp+1|sc-2|z1:0x0p+0|+-1[1,0,4]|-3[2,4]\n"));
	free(a);
	free(pb);
}

/* ---- attribute values, as JSON text ---- */

static void attribute_values(void **state)
{
	Req req = PB(EXPORT_METRICS_SERVICE_REQUEST__INIT);
	RM *rm = NEW(RM, PB(RESOURCE_METRICS__INIT));
	SM *sm = NEW(SM, PB(SCOPE_METRICS__INIT));
	Metric *m = metric("bad\xff\x01name", "d\x7f", "u\n");
	Gauge *g = NEW(Gauge, PB(GAUGE__INIT));
	NDP *p = ndp(0, 1, 1, 1, 0, 0);
	Any *bytes = NEW(Any, PB(ANY_VALUE__INIT)), *arr = NEW(Any, PB(ANY_VALUE__INIT));
	Any *kvl = NEW(Any, PB(ANY_VALUE__INIT)), *unset = NEW(Any, PB(ANY_VALUE__INIT));
	Arr *av = NEW(Arr, PB(ARRAY_VALUE__INIT));
	KVL *kv2 = NEW(KVL, PB(KEY_VALUE_LIST__INIT));
	static uint8_t raw[] = { 0xfb, 0xff, 0x00 };
	struct otel_result res;
	size_t len, n;
	uint8_t *pb;
	char *a;

	(void)state;
	pool_used = 0;
	bytes->value_case = PB(ANY_VALUE__VALUE_BYTES_VALUE);
	bytes->bytes_value.data = raw;
	bytes->bytes_value.len = 3;
	arr->value_case = PB(ANY_VALUE__VALUE_ARRAY_VALUE);
	arr->array_value = av;
	av->values = list(&av->n_values, any_double(NAN), any_double(-INFINITY), any_double(0.1),
			  any_double(-0.0), unset, any_int(INT64_MIN), NULL);
	kvl->value_case = PB(ANY_VALUE__VALUE_KVLIST_VALUE);
	kvl->kvlist_value = kv2;
	kv2->values = list(&kv2->n_values, kv("k\"\xc0", any_str("v")), kv("", NULL), NULL);
	p->attributes = list(&p->n_attributes, kv("str", any_str("a\xff" "b\xe2\x82" "c\x1b\xc2\x9f")),
			     kv("bytes", bytes), kv("arr", arr), kv("kvl", kvl), kv("none", NULL),
			     kv("unset", unset), kv("k\x01\xfe", any_double(1e300)), kv("", any_bool(0)), NULL);
	g->data_points = list(&g->n_data_points, p, NULL);
	m->data_case = PB(METRIC__DATA_GAUGE);
	m->gauge = g;
	sm->metrics = list(&sm->n_metrics, m, NULL);
	rm->scope_metrics = list(&rm->n_scope_metrics, sm, NULL);
	req.resource_metrics = list(&req.n_resource_metrics, rm, NULL);
	pb = pack(&req.base, &len);
	a = decode_dump(OTLP_PROTOBUF, pb, len, &n, &res);
	assert_int_equal(n, 1);
	assert_string_equal(a, "R unknown_service|||||{}\n"
			    "M bad\xef\xbf\xbd?name|d?|u?|0|0|0\n"
			    "P {str=\"a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd" "c\\u001b\\u009f\";"
			    "bytes=\"+/8A\";"
			    "arr=[\"NaN\",\"-Infinity\",0.1,-0,null,-9223372036854775808];"
			    "kvl={\"k\\\"\xef\xbf\xbd\":\"v\",\"\":null};none=null;unset=null;"
			    "k?\xef\xbf\xbd=1e+300;=false}|0|1|nv0|i1\n");
	free(a);
	free(pb);
}

/* ---- JSON: what the mapping allows, and what it does not ---- */

/* A request of one gauge named "m" whose one point is @point (JSON members). */
static char *gauge_json(const char *point)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\","
		 "\"gauge\":{\"dataPoints\":[{%s}]}}]}]}]}", point);
	return buf;
}

static void json_mapping(void **state)
{
	static const struct { const char *point, *want; } ok[] = {
		{ "\"timeUnixNano\":\"18446744073709551615\",\"asInt\":\"-9223372036854775808\"",
		  "|0|18446744073709551615|nv0|i-9223372036854775808\n" },
		{ "\"timeUnixNano\":18446744073709551615,\"asInt\":9223372036854775807",
		  "|0|18446744073709551615|nv0|i9223372036854775807\n" },
		{ "\"timeUnixNano\":1e3,\"asInt\":-2.0", "|0|1000|nv0|i-2\n" },
		{ "\"timeUnixNano\":\"5\",\"asDouble\":\"1e-2\"", "|0|5|nv0|d0x1.47ae147ae147bp-7\n" },
		{ "\"timeUnixNano\":\"5\",\"asDouble\":\"-Infinity\",\"flags\":\"1\"", "|0|5|nv1|d-inf\n" },
		/* the camelCase member wins over the proto name */
		{ "\"time_unix_nano\":\"7\",\"timeUnixNano\":\"8\",\"as_int\":3", "|0|8|nv0|i3\n" },
		{ "\"timeUnixNano\":null,\"asDouble\":null,\"attributes\":null", "|0|0|nv1|d0x0p+0\n" },
		{ "\"attributes\":[{\"key\":\"b\",\"value\":{\"bytesValue\":\"-_8\"}},"
		  "{\"key\":\"c\",\"value\":{\"bytes_value\":\"+/8=\"}},{\"key\":\"d\"}],\"asInt\":1",
		  "P {b=\"+/8=\";c=\"+/8=\";d=null}|0|0|nv0|i1\n" },
		{ "\"exemplars\":[{\"traceId\":\"5b8efff798038103d269b633813fc60c\",\"spanId\":\"not hex\","
		  "\"asInt\":\"4\",\"filteredAttributes\":[]}],\"asInt\":1", "|0|0|nv0|i1\n" },
	};
	static const char *const bad[] = {
		"\"timeUnixNano\":\"-1\"", "\"timeUnixNano\":-1", "\"timeUnixNano\":\"1.5\"",
		"\"timeUnixNano\":1.5", "\"timeUnixNano\":\"18446744073709551616\"", "\"timeUnixNano\":true",
		"\"timeUnixNano\":\"\"", "\"asInt\":\"9223372036854775808\"", "\"asInt\":1.5",
		"\"asDouble\":\"nan\"", "\"asDouble\":\"1e999\"", "\"asDouble\":\"0x10\"", "\"asDouble\":true",
		"\"asInt\":1,\"asDouble\":2", "\"flags\":4294967296", "\"attributes\":{}",
		"\"attributes\":[null]", "\"attributes\":[1]", "\"attributes\":[{\"key\":1}]",
		"\"attributes\":[{\"key\":\"k\",\"value\":{\"bytesValue\":\"abc*\"}}]",
		"\"attributes\":[{\"key\":\"k\",\"value\":{\"bytesValue\":\"a\"}}]",
		"\"attributes\":[{\"key\":\"k\",\"value\":{\"stringValue\":\"a\",\"intValue\":1}}]",
		"\"attributes\":[{\"key\":\"k\",\"value\":{\"boolValue\":\"true\"}}]",
		"\"exemplars\":[{\"spanId\":1}]", "\"exemplars\":{}",
	};
	struct otel_result res;
	char *js;
	size_t n;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char *a;

		js = gauge_json(ok[i].point);
		a = decode_dump(OTLP_JSON, js, strlen(js), &n, &res);
		if (strstr(a, ok[i].want) == NULL)
			fail_msg("%s: got %s", ok[i].point, a);
		free(a);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		n = 0;
		js = gauge_json(bad[i]);
		if (otel_decode(OTLP_JSON, js, strlen(js), 0, count_only, &n, &res) != -EBADMSG)
			fail_msg("%s: not refused", bad[i]);
		assert_int_equal(n, 0);
		assert_true(res.accepted == 0 && res.rejected == 0 && res.message[0] != '\0');
	}
	/* enums: names of the enum only, numbers in int32 */
	js = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\",\"sum\":"
	     "{\"aggregationTemporality\":\"CUMULATIVE\"}}]}]}]}";
	assert_int_equal(otel_decode(OTLP_JSON, js, strlen(js), 0, count_only, &n, &res), -EBADMSG);
	assert_non_null(strstr(res.message, "aggregation_temporality"));
	js = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\",\"sum\":"
	     "{\"aggregationTemporality\":2147483648}}]}]}]}";
	assert_int_equal(otel_decode(OTLP_JSON, js, strlen(js), 0, count_only, &n, &res), -EBADMSG);
	/* a sint32 out of its range */
	js = "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\",\"exponentialHistogram\":"
	     "{\"dataPoints\":[{\"scale\":-2147483649}]}}]}]}]}";
	assert_int_equal(otel_decode(OTLP_JSON, js, strlen(js), 0, count_only, &n, &res), -EBADMSG);
}

/* ---- bodies that are not requests ---- */

static void bad_bodies(void **state)
{
	static const struct { const char *b; size_t n; } pb[] = {
		{ "\x0a", 1 },			/* a length missing */
		{ "\x0a\x05\x12\x00", 4 },	/* a length past the end */
		{ "\x0f", 1 },			/* wire type 7 */
		{ "\x00", 1 },			/* field 0 */
		{ "\x08\x01", 2 },		/* resource_metrics as a varint: protobuf-c fails it */
		{ "\x0a\x02\x12\x01", 4 },	/* scope_metrics cut short inside */
		/* a Metric's name as a varint, deep inside */
		{ "\x0a\x06\x12\x04\x12\x02\x08\x01", 8 },
		/* a NumberDataPoint's time as a varint (fixed64 wanted) */
		{ "\x0a\x0a\x12\x08\x12\x06\x2a\x04\x0a\x02\x18\x01", 12 },
	};
	static const char *const js[] = {
		"", " ", "[]", "1", "null", "{", "{}x", "{\"resourceMetrics\":{}}",
		"{\"resourceMetrics\":[1]}", "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":1}]}]}]}",
		"{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"gauge\":[]}]}]}]}",
		"{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"gauge\":{},\"sum\":{}}]}]}]}",
		"{'resourceMetrics':[]}", "{\"resourceMetrics\":[],}", "{\"a\":1}/**/",
		"{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"\xff\"}]}}]}",
	};
	struct otel_result res;
	size_t n = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(pb) / sizeof(pb[0]); i++) {
		if (otel_decode(OTLP_PROTOBUF, pb[i].b, pb[i].n, 0, count_only, &n, &res) != -EBADMSG)
			fail_msg("protobuf body %zu not refused", i);
		assert_true(n == 0 && res.accepted == 0 && res.rejected == 0 && res.message[0] != '\0');
	}
	for (size_t i = 0; i < sizeof(js) / sizeof(js[0]); i++) {
		if (otel_decode(OTLP_JSON, js[i], strlen(js[i]), 0, count_only, &n, &res) != -EBADMSG)
			fail_msg("JSON body %zu (%s) not refused", i, js[i]);
		assert_true(n == 0 && res.accepted == 0 && res.rejected == 0 && res.message[0] != '\0');
	}
	assert_int_equal(otel_decode(7, "{}", 2, 0, count_only, &n, &res), -EBADMSG);
	/* empty requests are requests of no point */
	assert_int_equal(otel_decode(OTLP_PROTOBUF, "", 0, 0, count_only, &n, &res), 0);
	assert_int_equal(otel_decode(OTLP_JSON, "{}", 2, 0, count_only, &n, &res), 0);
	assert_int_equal(otel_decode(OTLP_JSON, "{\"resourceMetrics\":null}", 24, 0, count_only, &n, &res), 0);
	assert_int_equal(n, 0);
}

/* A bad point after good ones: nothing is reported, in either encoding. */
static void whole_request_first(void **state)
{
	static const char js[] =
		"{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":["
		"{\"name\":\"a\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\"1\",\"asInt\":1}]}},"
		"{\"name\":\"b\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\"x\",\"asInt\":1}]}}]}]}]}";
	/* the same: a request of a good point, then a resource whose point's time is a varint */
	static const uint8_t bad[] = { 0x0a, 0x0a, 0x12, 0x08, 0x12, 0x06, 0x2a, 0x04, 0x0a, 0x02, 0x18, 0x01 };
	Req req = PB(EXPORT_METRICS_SERVICE_REQUEST__INIT);
	RM *rm = NEW(RM, PB(RESOURCE_METRICS__INIT));
	SM *sm = NEW(SM, PB(SCOPE_METRICS__INIT));
	Metric *m = metric("a", "", "");
	Gauge *g = NEW(Gauge, PB(GAUGE__INIT));
	struct otel_result res;
	size_t n = 0, len;
	uint8_t *pb;

	(void)state;
	assert_int_equal(otel_decode(OTLP_JSON, js, strlen(js), 0, count_only, &n, &res), -EBADMSG);
	assert_non_null(strstr(res.message, "time_unix_nano"));
	pool_used = 0;
	g->data_points = list(&g->n_data_points, ndp(0, 1, 1, 1, 0, 0), NULL);
	m->data_case = PB(METRIC__DATA_GAUGE);
	m->gauge = g;
	sm->metrics = list(&sm->n_metrics, m, NULL);
	rm->scope_metrics = list(&rm->n_scope_metrics, sm, NULL);
	req.resource_metrics = list(&req.n_resource_metrics, rm, NULL);
	pb = pack(&req.base, &len);
	assert_int_equal(otel_decode(OTLP_PROTOBUF, pb, len, 0, count_only, &n, &res), 0);
	assert_int_equal(n, 1);
	pb = realloc(pb, len + sizeof(bad));
	assert_non_null(pb);
	memcpy(pb + len, bad, sizeof(bad));
	n = 0;
	assert_int_equal(otel_decode(OTLP_PROTOBUF, pb, len + sizeof(bad), 0, count_only, &n, &res), -EBADMSG);
	assert_int_equal(n, 0);
	assert_true(res.accepted == 0 && res.rejected == 0);
	free(pb);
}

/* ---- nesting ---- */

/* A gauge point with one attribute whose value nests @depth levels (arrays or key-value lists). */
static uint8_t *nested_pb(size_t depth, int kvl, size_t *len)
{
	Req req = PB(EXPORT_METRICS_SERVICE_REQUEST__INIT);
	RM *rm = NEW(RM, PB(RESOURCE_METRICS__INIT));
	SM *sm = NEW(SM, PB(SCOPE_METRICS__INIT));
	Metric *m = metric("deep", "", "");
	Gauge *g = NEW(Gauge, PB(GAUGE__INIT));
	NDP *p = ndp(0, 1, 1, 1, 0, 0);
	Any *v = any_str("leaf");

	for (size_t i = 1; i < depth; i++) {
		Any *up = NEW(Any, PB(ANY_VALUE__INIT));

		if (kvl) {
			KVL *l = NEW(KVL, PB(KEY_VALUE_LIST__INIT));

			l->values = list(&l->n_values, kv("k", v), NULL);
			up->value_case = PB(ANY_VALUE__VALUE_KVLIST_VALUE);
			up->kvlist_value = l;
		} else {
			Arr *a = NEW(Arr, PB(ARRAY_VALUE__INIT));

			a->values = list(&a->n_values, v, NULL);
			up->value_case = PB(ANY_VALUE__VALUE_ARRAY_VALUE);
			up->array_value = a;
		}
		v = up;
	}
	p->attributes = list(&p->n_attributes, kv("a", v), NULL);
	g->data_points = list(&g->n_data_points, p, NULL);
	m->data_case = PB(METRIC__DATA_GAUGE);
	m->gauge = g;
	sm->metrics = list(&sm->n_metrics, m, NULL);
	rm->scope_metrics = list(&rm->n_scope_metrics, sm, NULL);
	req.resource_metrics = list(&req.n_resource_metrics, rm, NULL);
	return pack(&req.base, len);
}

/* The same in JSON, the value in an exemplar's attribute (the deepest place) if @exemplar. */
static char *nested_json(size_t depth, int kvl, int exemplar, size_t *len)
{
	const char *open = kvl ? "{\"kvlistValue\":{\"values\":[{\"key\":\"k\",\"value\":" :
		"{\"arrayValue\":{\"values\":[";
	const char *close = kvl ? "}]}}" : "]}}";
	char *s = malloc(depth * 64 + 512), *p = s;

	assert_non_null(s);
	p += sprintf(p, "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"deep\","
		     "\"histogram\":{\"dataPoints\":[{%s\"%s\":[{\"key\":\"a\",\"value\":",
		     exemplar ? "\"exemplars\":[{" : "", exemplar ? "filteredAttributes" : "attributes");
	for (size_t i = 1; i < depth; i++)
		p += sprintf(p, "%s", open);
	p += sprintf(p, "{\"stringValue\":\"leaf\"}");
	for (size_t i = 1; i < depth; i++)
		p += sprintf(p, "%s", close);
	p += sprintf(p, "}]%s,\"timeUnixNano\":\"1\"}]}}]}]}]}", exemplar ? "}]" : "");
	*len = (size_t)(p - s);
	return s;
}

static void nesting(void **state)
{
	static const size_t depths[] = { OTLP_DEPTH_MAX, OTLP_DEPTH_MAX + 1, 5000 };
	struct otel_result res;
	size_t calls, len;

	(void)state;
	for (int kvl = 0; kvl < 2; kvl++) {
		for (size_t i = 0; i < 3; i++) {
			int want = i == 0 ? 0 : -E2BIG;
			uint8_t *pb;
			char *js;

			pool_used = 0;
			pb = nested_pb(depths[i], kvl, &len);
			calls = 0;
			assert_int_equal(otel_decode(OTLP_PROTOBUF, pb, len, 0, count_only, &calls, &res), want);
			assert_int_equal(calls, i == 0 ? 1 : 0);
			free(pb);
			for (int ex = 0; ex < 2; ex++) {
				js = nested_json(depths[i], kvl, ex, &len);
				calls = 0;
				if (otel_decode(OTLP_JSON, js, len, 0, count_only, &calls, &res) != want)
					fail_msg("JSON depth %zu kvl %d exemplar %d: %s", depths[i], kvl, ex,
						 res.message);
				assert_int_equal(calls, i == 0 ? 1 : 0);
				free(js);
			}
		}
	}
}

/* ---- memory ---- */

static void memory_budget(void **state)
{
	const size_t points = 100000;
	size_t len = 2 * points + 32, calls = 0, at = 0;
	uint8_t *b = malloc(len);
	struct otel_result res;
	char *big;

	(void)state;
	assert_non_null(b);
	/* one resource, scope, metric and gauge, 100000 empty points: 2 bytes each */
	b[at++] = 0x0a;	/* resource_metrics */
	at += 4;
	b[at++] = 0x12;	/* scope_metrics */
	at += 4;
	b[at++] = 0x12;	/* metrics */
	at += 4;
	b[at++] = 0x2a;	/* gauge */
	at += 4;
	for (size_t i = 0; i < points; i++) {
		b[at++] = 0x0a;	/* data_points */
		b[at++] = 0x00;
	}
	for (int k = 0; k < 4; k++) {
		size_t pos = 1 + 5 * (size_t)k, n = at - pos - 4;

		for (int j = 0; j < 4; j++, n >>= 7)
			b[pos + j] = (uint8_t)((n & 0x7f) | (j < 3 ? 0x80 : 0));
	}
	assert_int_equal(otel_decode(OTLP_PROTOBUF, b, at, 1u << 20, count_only, &calls, &res), -ENOMEM);
	assert_int_equal(calls, 0);
	assert_non_null(strstr(res.message, "memory"));
	assert_int_equal(otel_decode(OTLP_PROTOBUF, b, at, 0, count_only, &calls, &res), 0);
	assert_int_equal(calls, points);	/* points without values: each reported, no_value */
	free(b);

	/* JSON: json-c's bound alone over the budget, then the arena after it */
	big = nested_json(3, 0, 0, &len);
	calls = 0;
	assert_int_equal(otel_decode(OTLP_JSON, big, len, 2048, count_only, &calls, &res), -ENOMEM);
	assert_int_equal(calls, 0);
	assert_int_equal(otel_decode(OTLP_JSON, big, len, 0, count_only, &calls, &res), 0);
	assert_int_equal(calls, 1);
	free(big);

	/* a point whose attribute text (6 bytes a control character) needs more than the request */
	len = 300000;
	big = malloc(len + 256);
	assert_non_null(big);
	at = (size_t)sprintf(big, "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"m\","
			     "\"gauge\":{\"dataPoints\":[{\"attributes\":[{\"key\":\"k\",\"value\":"
			     "{\"stringValue\":\"");
	for (size_t i = 0; i < 40000; i++)
		at += (size_t)sprintf(big + at, "\\u0001");
	at += (size_t)sprintf(big + at, "\"}}],\"asInt\":1}]}}]}]}]}");
	calls = 0;
	assert_int_equal(otel_decode(OTLP_JSON, big, at, 400000, count_only, &calls, &res), -ENOMEM);
	assert_int_equal(calls, 0);
	assert_int_equal(otel_decode(OTLP_JSON, big, at, 0, count_only, &calls, &res), 0);
	assert_int_equal(calls, 1);
	free(big);
}

/* ---- refusals ---- */

static void refusals(void **state)
{
	static const char js[] =
		"{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":["
		"{\"name\":\"ok\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\"1\",\"asInt\":1}]}},"
		"{\"name\":\"unit.\xc3\xa9t\xc3\xa9\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\"1\",\"asInt\":1},"
		"{\"timeUnixNano\":\"2\",\"asInt\":2}]}},"
		"{\"name\":\"other\",\"gauge\":{\"dataPoints\":[{\"timeUnixNano\":\"1\",\"asInt\":1}]}}]}]}]}";
	struct dump d = { .refuse_name = "unit.\xc3\xa9t\xc3\xa9", .refuse_rc = -1 - OTEL_REJECT_UNIT };
	struct otel_result res;
	char *longname, want[256];
	size_t at;

	(void)state;
	assert_int_equal(otel_decode(OTLP_JSON, js, strlen(js), 0, record, &d, &res), 0);
	assert_int_equal(d.points, 4);
	assert_true(res.accepted == 2 && res.rejected == 2 && res.rejected_by[OTEL_REJECT_UNIT] == 2);
	assert_string_equal(res.message, "metric 'unit.\xc3\xa9t\xc3\xa9': unit differs from the metric's");
	free(d.s);
	/* a value the contract does not know: counted, by no reason */
	memset(&d, 0, sizeof(d));
	d.refuse_name = "other";
	d.refuse_rc = -1000;
	assert_int_equal(otel_decode(OTLP_JSON, js, strlen(js), 0, record, &d, &res), 0);
	assert_true(res.accepted == 3 && res.rejected == 1);
	for (int i = 0; i < OTEL_REJECT_N; i++)
		assert_int_equal(res.rejected_by[i], 0);
	assert_string_equal(res.message, "metric 'other': refused by the receiver");
	free(d.s);
	/* the message quotes 60 bytes of a name, cut between characters */
	longname = malloc(1024);
	assert_non_null(longname);
	memset(&d, 0, sizeof(d));
	strcpy(longname, "{\"resourceMetrics\":[{\"scopeMetrics\":[{\"metrics\":[{\"name\":\"");
	at = strlen(longname);
	strcat(longname, "a");
	for (int i = 0; i < 40; i++)
		strcat(longname, "\xc3\xa9");
	d.refuse_name = strndup(longname + at, 81);
	d.refuse_rc = -1 - OTEL_REJECT_SERIES;
	strcat(longname, "\",\"gauge\":{\"dataPoints\":[{\"asInt\":1}]}}]}]}]}");
	assert_int_equal(otel_decode(OTLP_JSON, longname, strlen(longname), 0, record, &d, &res), 0);
	assert_true(res.rejected == 1 && res.rejected_by[OTEL_REJECT_SERIES] == 1);
	strcpy(want, "metric 'a");
	for (int i = 0; i < 29; i++)
		strcat(want, "\xc3\xa9");
	strcat(want, "': too many series of the metric (-E)");
	assert_string_equal(res.message, want);
	free((char *)d.refuse_name);
	free(d.s);
	free(longname);
}

/* ---- names ---- */

static void names(void **state)
{
	char js[4096], want[512];
	struct otel_result res;
	size_t n, at;
	char *a;

	(void)state;
	/* a 300-byte name is cut at OTEL_NAME_MAX; description and unit at theirs */
	at = (size_t)sprintf(js, "{\"resourceMetrics\":[{\"resource\":{\"attributes\":["
			     "{\"key\":\"service.name\",\"value\":{\"intValue\":1}},"
			     "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"second\"}}]},"
			     "\"scopeMetrics\":[{\"metrics\":[{\"name\":\"");
	for (int i = 0; i < 300; i++)
		js[at++] = (char)('a' + i % 26);
	at += (size_t)sprintf(js + at, "\",\"unit\":\"");
	for (int i = 0; i < 100; i++)
		js[at++] = 'u';
	sprintf(js + at, "\",\"gauge\":{\"dataPoints\":[{\"asInt\":1}]}},"
		"{\"name\":\"\",\"gauge\":{\"dataPoints\":[{\"asInt\":2}]}}]}]}]}");
	a = decode_dump(OTLP_JSON, js, strlen(js), &n, &res);
	assert_int_equal(n, 2);
	/* the first service.name is not a string: no service */
	assert_non_null(strstr(a, "R unknown_service|"));
	at = 0;
	at += (size_t)sprintf(want, "\nM ");
	for (int i = 0; i < OTEL_NAME_MAX; i++)
		want[at++] = (char)('a' + i % 26);
	want[at++] = '|';
	want[at++] = '|';
	for (int i = 0; i < OTEL_UNIT_MAX; i++)
		want[at++] = 'u';
	sprintf(want + at, "|0|0|0\n");
	assert_non_null(strstr(a, want));
	assert_non_null(strstr(a, "\nM |||0|0|0\n"));	/* an empty name as it is: the store refuses it */
	free(a);
}

/* ---- answers ---- */

static void answers(void **state)
{
	struct otel_result res = { .accepted = 5, .rejected = 3 };
	Opentelemetry__Proto__Trace__V1__ExportMetricsServiceResponse *r;
	uint8_t buf[1024];
	json_object *o, *ps, *v;
	int n;

	(void)state;
	res.rejected_by[OTEL_REJECT_KIND] = 3;
	snprintf(res.message, sizeof(res.message), "metric 'x\xff\"': kind changed");
	n = otel_answer(OTLP_PROTOBUF, &res, buf, sizeof(buf));
	assert_true(n > 0);
	r = opentelemetry__proto__trace__v1__export_metrics_service_response__unpack(NULL, (size_t)n, buf);
	assert_non_null(r);
	assert_non_null(r->partial_success);
	assert_int_equal(r->partial_success->rejected_data_points, 3);
	assert_string_equal(r->partial_success->error_message, "metric 'x\xef\xbf\xbd\"': kind changed");
	opentelemetry__proto__trace__v1__export_metrics_service_response__free_unpacked(r, NULL);

	n = otel_answer(OTLP_JSON, &res, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_non_null(o = json_tokener_parse((char *)buf));
	assert_true(json_object_object_get_ex(o, "partialSuccess", &ps));
	assert_true(json_object_object_get_ex(ps, "rejectedDataPoints", &v));
	assert_string_equal(json_object_get_string(v), "3");
	assert_true(json_object_object_get_ex(ps, "errorMessage", &v));
	assert_string_equal(json_object_get_string(v), "metric 'x\xef\xbf\xbd\"': kind changed");
	json_object_put(o);

	/* nothing refused: empty answers */
	memset(&res, 0, sizeof(res));
	res.accepted = 2;
	assert_int_equal(otel_answer(OTLP_PROTOBUF, &res, buf, sizeof(buf)), 0);
	assert_int_equal(otel_answer(OTLP_JSON, &res, buf, sizeof(buf)), 2);
	assert_memory_equal(buf, "{}", 2);
	/* too small a buffer */
	res.rejected = 1;
	strcpy(res.message, "metric 'm': why");
	assert_int_equal(otel_answer(OTLP_PROTOBUF, &res, buf, 4), -ENOSPC);
	assert_int_equal(otel_answer(OTLP_JSON, &res, buf, 10), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_kind),
		cmocka_unit_test(sdk_requests),
		cmocka_unit_test(sdk_values),
		cmocka_unit_test(every_kind_seeds),
		cmocka_unit_test(attribute_values),
		cmocka_unit_test(json_mapping),
		cmocka_unit_test(bad_bodies),
		cmocka_unit_test(whole_request_first),
		cmocka_unit_test(nesting),
		cmocka_unit_test(memory_budget),
		cmocka_unit_test(refusals),
		cmocka_unit_test(names),
		cmocka_unit_test(answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
