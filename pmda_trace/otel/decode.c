/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP metrics request bodies to data points (decode.h,
 * docs/otlp-metrics.md "Decoding").
 *
 * Both encodings end in the same protobuf-c structs, so one walk reports
 * the points of either:
 *  - protobuf: pbc.h's pre-scan (framing, AnyValue nesting) and
 *    protobuf-c's unpack into an arena counted against the request's
 *    memory budget, as the trace decoder's oracle does (ref_pb.c);
 *  - JSON: json-c parses the body after otlp_json_scan bounds what it
 *    will allocate (ref_json.c, otlp_json_parse), and pbc_json.c makes
 *    the tree into the message protobuf-c would have unpacked, led by
 *    the same descriptors, in the same arena.
 * Either checks the request whole (a body that is not a request fails
 * before the walk); the walk itself cannot fail. It runs twice: first to
 * measure the most memory one point's texts take (the resource's and the
 * point's attributes as JSON, a summary's quantiles), which is then
 * taken from the arena at once (-ENOMEM over the budget, nothing
 * reported yet), then to report each point with its texts written there.
 *
 * The schema (common/otlp_metrics.proto) is not restated here: the
 * pre-scan and the JSON conversion read protobuf-c's descriptors, and
 * the walk the generated structs. otlp_fields.h, the span walkers'
 * table, is left alone.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "decode.h"
#include "../otlp/otlp_priv.h"
#include "../otlp/pbc.h"
#include "otlp_metrics.pb-c.h"

typedef Opentelemetry__Proto__Trace__V1__ExportMetricsServiceRequest otel_pb_req;
typedef Opentelemetry__Proto__Trace__V1__ResourceMetrics otel_pb_rm;
typedef Opentelemetry__Proto__Trace__V1__ScopeMetrics otel_pb_sm;
typedef Opentelemetry__Proto__Trace__V1__Metric otel_pb_metric;
typedef Opentelemetry__Proto__Trace__V1__NumberDataPoint otel_pb_ndp;
typedef Opentelemetry__Proto__Trace__V1__HistogramDataPoint otel_pb_hdp;
typedef Opentelemetry__Proto__Trace__V1__ExponentialHistogramDataPoint otel_pb_edp;
typedef Opentelemetry__Proto__Trace__V1__ExponentialHistogramDataPoint__Buckets otel_pb_buckets;
typedef Opentelemetry__Proto__Trace__V1__SummaryDataPoint otel_pb_sdp;
typedef Opentelemetry__Proto__Trace__V1__KeyValue otel_pb_kv;
typedef Opentelemetry__Proto__Trace__V1__AnyValue otel_pb_any;

#define OTEL_PB(x)	OPENTELEMETRY__PROTO__TRACE__V1__##x

/*
 * The JSON depth that holds OTLP_DEPTH_MAX AnyValue levels where they are
 * deepest, an exemplar's attribute: {resourceMetrics:[{scopeMetrics:[{
 * metrics:[{histogram:{dataPoints:[{exemplars:[{filteredAttributes:[{
 * value:{ is 15, then four a level (kvlistValue:{values:[{value:{).
 */
#define OTEL_JSON_DEPTH		(15 + 4 * OTLP_DEPTH_MAX)

/* ---- the scratch: one point's texts ---- */

/*
 * Memory for the texts of one resource and one point. Measuring (@base
 * NULL), takes only count; reporting, they are laid out in @base, in the
 * same order, so the measured peak always fits (@over stays false).
 */
struct otel_scratch {
	char *base;
	size_t cap, used, peak;
	bool over;
};

/* @n bytes aligned to @align (a power of two), NULL while measuring. */
static void *otel_take(struct otel_scratch *s, size_t n, size_t align)
{
	void *p = NULL;

	s->used = (s->used + align - 1) & ~(align - 1);
	if (s->base != NULL) {
		if (s->used > s->cap || n > s->cap - s->used)
			s->over = true;
		else
			p = s->base + s->used;
	}
	s->used += n;
	if (s->used > s->peak)
		s->peak = s->used;
	return p;
}

static void otel_put(struct otel_scratch *s, const void *b, size_t n)
{
	char *d = otel_take(s, n, 1);

	if (d != NULL)
		memcpy(d, b, n);
}

static void otel_puts(struct otel_scratch *s, const char *str)
{
	otel_put(s, str, strlen(str));
}

/* ---- values as JSON text ---- */

/*
 * @n bytes of @str as a JSON string: '"' and '\' escaped, control
 * characters (C0, DEL, C1) as \uXXXX (\n, \t, ... short), a byte that
 * does not start a well-formed UTF-8 sequence as U+FFFD.
 */
static void otel_json_string(struct otel_scratch *s, const char *str, size_t n)
{
	const unsigned char *u = (const unsigned char *)str;
	size_t i = 0, run = 0, len;
	uint32_t cp;
	char esc[8];

	otel_put(s, "\"", 1);
	while (i < n) {
		len = sdk_utf8_len(u + i, n - i, &cp);
		if (len > 0 && cp != '"' && cp != '\\' && cp >= 0x20 && (cp < 0x7f || cp >= 0xa0)) {
			i += len;
			continue;
		}
		otel_put(s, str + run, i - run);
		if (len == 0) {
			otel_put(s, SDK_UTF8_REPLACEMENT, 3);
			len = 1;
		} else if (cp == '"' || cp == '\\') {
			esc[0] = '\\';
			esc[1] = (char)cp;
			otel_put(s, esc, 2);
		} else if (cp == '\n' || cp == '\t' || cp == '\r' || cp == '\b' || cp == '\f') {
			esc[0] = '\\';
			esc[1] = cp == '\n' ? 'n' : cp == '\t' ? 't' : cp == '\r' ? 'r' : cp == '\b' ? 'b' : 'f';
			otel_put(s, esc, 2);
		} else {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
			otel_put(s, esc, 6);
		}
		i += len;
		run = i;
	}
	otel_put(s, str + run, i - run);
	otel_put(s, "\"", 1);
}

/* A double as JSON: the shortest of %.15g..%.17g that reads back the same; non-finite as strings. */
static void otel_json_double(struct otel_scratch *s, double d)
{
	char buf[40];

	if (isnan(d)) {
		otel_puts(s, "\"NaN\"");
		return;
	}
	if (isinf(d)) {
		otel_puts(s, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	otel_puts(s, buf);
}

/* Bytes as a base64 JSON string (RFC 4648, padded: protobuf's JSON mapping of bytes). */
static void otel_json_base64(struct otel_scratch *s, const uint8_t *b, size_t n)
{
	static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char q[4];

	otel_put(s, "\"", 1);
	for (size_t i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)b[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)b[i + 1] << 8;
		if (i + 2 < n)
			v |= b[i + 2];
		q[0] = digits[v >> 18 & 63];
		q[1] = digits[v >> 12 & 63];
		q[2] = i + 1 < n ? digits[v >> 6 & 63] : '=';
		q[3] = i + 2 < n ? digits[v & 63] : '=';
		otel_put(s, q, 4);
	}
	otel_put(s, "\"", 1);
}

/* An AnyValue as JSON (NULL or unset: null); nested at most OTLP_DEPTH_MAX, as checked before. */
static void otel_json_any(struct otel_scratch *s, const otel_pb_any *v)
{
	char num[32];

	switch (v != NULL ? v->value_case : OTEL_PB(ANY_VALUE__VALUE__NOT_SET)) {
	case OTEL_PB(ANY_VALUE__VALUE_STRING_VALUE):
		otel_json_string(s, v->string_value, v->string_value ? strlen(v->string_value) : 0);
		break;
	case OTEL_PB(ANY_VALUE__VALUE_BOOL_VALUE):
		otel_puts(s, v->bool_value ? "true" : "false");
		break;
	case OTEL_PB(ANY_VALUE__VALUE_INT_VALUE):
		snprintf(num, sizeof(num), "%" PRId64, v->int_value);
		otel_puts(s, num);
		break;
	case OTEL_PB(ANY_VALUE__VALUE_DOUBLE_VALUE):
		otel_json_double(s, v->double_value);
		break;
	case OTEL_PB(ANY_VALUE__VALUE_BYTES_VALUE):
		otel_json_base64(s, v->bytes_value.data, v->bytes_value.len);
		break;
	case OTEL_PB(ANY_VALUE__VALUE_ARRAY_VALUE):
		otel_put(s, "[", 1);
		for (size_t i = 0; v->array_value != NULL && i < v->array_value->n_values; i++) {
			if (i > 0)
				otel_put(s, ",", 1);
			otel_json_any(s, v->array_value->values[i]);
		}
		otel_put(s, "]", 1);
		break;
	case OTEL_PB(ANY_VALUE__VALUE_KVLIST_VALUE):
		otel_put(s, "{", 1);
		for (size_t i = 0; v->kvlist_value != NULL && i < v->kvlist_value->n_values; i++) {
			const otel_pb_kv *kv = v->kvlist_value->values[i];

			if (i > 0)
				otel_put(s, ",", 1);
			otel_json_string(s, kv->key ? kv->key : "", kv->key ? strlen(kv->key) : 0);
			otel_put(s, ":", 1);
			otel_json_any(s, kv->value);
		}
		otel_put(s, "}", 1);
		break;
	default:
		otel_puts(s, "null");
		break;
	}
}

/* @n key-values as struct otel_attr, in the scratch; NULL while measuring. */
static const struct otel_attr *otel_attrs(struct otel_scratch *s, otel_pb_kv *const *kvs, size_t n)
{
	struct otel_attr *a = otel_take(s, n * sizeof(*a), _Alignof(struct otel_attr));
	char key[OTLP_NAME_MAX + 1];

	for (size_t i = 0; i < n; i++) {
		const char *k = kvs[i]->key ? kvs[i]->key : "";
		size_t klen = strlen(otlp_clean_name(key, k, strlen(k), NULL)), at;
		char *kd = otel_take(s, klen + 1, 1), *jd;

		if (kd != NULL)
			memcpy(kd, key, klen + 1);
		at = s->used;
		jd = s->base != NULL ? s->base + at : NULL;
		otel_json_any(s, kvs[i]->value);
		otel_put(s, "", 1);	/* a NUL after the text too */
		if (a != NULL)
			a[i] = (struct otel_attr){ .key = kd, .key_len = klen, .json = jd,
						   .json_len = s->used - at - 1 };
	}
	return a;
}

/* ---- the walk ---- */

struct otel_walk {
	otel_point_fn fn;
	void *arg;
	struct otel_result *res;
	struct otel_scratch s;
	struct otel_resource r;
	struct otel_metric m;
	char service[OTLP_NAME_MAX + 1], ns[OTLP_NAME_MAX + 1], instance[OTLP_NAME_MAX + 1];
	char scope[OTLP_NAME_MAX + 1], version[OTLP_NAME_MAX + 1];
	char name[OTEL_NAME_MAX + 1], desc[OTEL_DESC_MAX + 1], unit[OTEL_UNIT_MAX + 1];
};

static const char *const otel_why[] = {
#define OTEL_X(id, name, why) why,
	OTEL_REJECT_REASONS(OTEL_X)
#undef OTEL_X
};

/* A refusal of the current metric's point: counted, the first one's message kept. */
static void otel_refuse(struct otel_walk *w, int reason)
{
	struct otel_result *res = w->res;
	bool known = reason >= 0 && reason < OTEL_REJECT_N;

	res->rejected++;
	if (known)
		res->rejected_by[reason]++;
	/* 60 bytes of the name, cut between characters: the message stays UTF-8 */
	if (res->message[0] == '\0')
		snprintf(res->message, sizeof(res->message), "metric '%.*s': %s",
			 (int)sdk_utf8_cut(w->name, strlen(w->name), 60), w->name,
			 known ? otel_why[reason] : "refused by the receiver");
}

/* One point, built: reported (not while measuring) and counted. */
static void otel_point_out(struct otel_walk *w, const struct otel_point *p)
{
	int rc;

	if (w->s.base == NULL)
		return;
	if (w->s.over) {	/* cannot happen: the scratch holds the measured peak */
		otel_refuse(w, OTEL_REJECT_MEMORY);
		return;
	}
	rc = w->fn(w->arg, &w->r, &w->m, p);
	if (rc < 0)
		otel_refuse(w, -1 - rc);
	else
		w->res->accepted++;
}

/* The string of the first resource attribute @key into @dst, cleaned; @dflt without one. */
static void otel_resource_string(const otel_pb_rm *rm, const char *key, char *dst, const char *dflt)
{
	const char *v = NULL;

	for (size_t i = 0; rm->resource != NULL && i < rm->resource->n_attributes; i++) {
		const otel_pb_kv *kv = rm->resource->attributes[i];

		if (kv->key == NULL || strcmp(kv->key, key) != 0)
			continue;
		if (kv->value != NULL && kv->value->value_case == OTEL_PB(ANY_VALUE__VALUE_STRING_VALUE))
			v = kv->value->string_value;
		break;
	}
	otlp_clean_name(dst, v ? v : "", v ? strlen(v) : 0, dflt);
}

static void otel_resource_set(struct otel_walk *w, const otel_pb_rm *rm)
{
	w->s.used = 0;
	otel_resource_string(rm, OTLP_SERVICE_KEY, w->service, OTLP_NO_SERVICE);
	otel_resource_string(rm, OTLP_NAMESPACE_KEY, w->ns, NULL);
	otel_resource_string(rm, "service.instance.id", w->instance, NULL);
	w->r.service = w->service;
	w->r.ns = w->ns;
	w->r.instance_id = w->instance;
	w->r.n_attrs = rm->resource != NULL ? rm->resource->n_attributes : 0;
	w->r.attrs = otel_attrs(&w->s, rm->resource != NULL ? rm->resource->attributes : NULL,
				w->r.n_attrs);
}

static void otel_scope_set(struct otel_walk *w, const otel_pb_sm *sm)
{
	const char *name = sm->scope && sm->scope->name ? sm->scope->name : "";
	const char *version = sm->scope && sm->scope->version ? sm->scope->version : "";

	w->r.scope_name = otlp_clean_name(w->scope, name, strlen(name), NULL);
	w->r.scope_version = otlp_clean_name(w->version, version, strlen(version), NULL);
}

/* A temporality as OTLP numbers it; one it does not define is unspecified. */
static enum otel_temporality otel_temporality(int t)
{
	return t == OTEL_TEMP_DELTA || t == OTEL_TEMP_CUMULATIVE ? (enum otel_temporality)t :
		OTEL_TEMP_UNSPECIFIED;
}

static void otel_metric_set(struct otel_walk *w, const otel_pb_metric *pm, enum otel_kind kind)
{
	const char *name = pm->name ? pm->name : "", *desc = pm->description ? pm->description : "";
	const char *unit = pm->unit ? pm->unit : "";

	memset(&w->m, 0, sizeof(w->m));
	w->m.name = otlp_clean_text(w->name, OTEL_NAME_MAX, name, strlen(name), NULL);
	w->m.description = otlp_clean_text(w->desc, OTEL_DESC_MAX, desc, strlen(desc), NULL);
	w->m.unit = otlp_clean_text(w->unit, OTEL_UNIT_MAX, unit, strlen(unit), NULL);
	w->m.kind = kind;
	w->m.temporality = OTEL_TEMP_UNSPECIFIED;
	if (kind == OTEL_SUM) {
		w->m.temporality = otel_temporality((int)pm->sum->aggregation_temporality);
		w->m.monotonic = pm->sum->is_monotonic != 0;
	} else if (kind == OTEL_HISTOGRAM) {
		w->m.temporality = otel_temporality((int)pm->histogram->aggregation_temporality);
	} else if (kind == OTEL_EXPHIST) {
		w->m.temporality = otel_temporality((int)pm->exponential_histogram->aggregation_temporality);
	}
}

/* What every point has: attributes, times, flags. */
static void otel_point_common(struct otel_walk *w, struct otel_point *p, otel_pb_kv *const *attrs,
			      size_t n_attrs, uint64_t start, uint64_t time, uint32_t flags)
{
	p->attrs = otel_attrs(&w->s, attrs, n_attrs);
	p->n_attrs = n_attrs;
	p->start_ns = start;
	p->time_ns = time;
	p->no_value = (flags & OTEL_PB(DATA_POINT_FLAGS__DATA_POINT_FLAGS_NO_RECORDED_VALUE_MASK)) != 0;
}

static void otel_number(struct otel_walk *w, const otel_pb_ndp *dp)
{
	struct otel_point p = { 0 };

	otel_point_common(w, &p, dp->attributes, dp->n_attributes, dp->start_time_unix_nano,
			  dp->time_unix_nano, dp->flags);
	switch (dp->value_case) {
	case OTEL_PB(NUMBER_DATA_POINT__VALUE_AS_INT):
		p.is_int = true;
		p.as_int = dp->as_int;
		p.as_double = (double)dp->as_int;
		break;
	case OTEL_PB(NUMBER_DATA_POINT__VALUE_AS_DOUBLE):
		p.as_double = dp->as_double;
		break;
	default:
		p.no_value = true;	/* no value: nothing to record */
		break;
	}
	otel_point_out(w, &p);
}

static void otel_histogram(struct otel_walk *w, const otel_pb_hdp *dp)
{
	struct otel_point p = { 0 };

	otel_point_common(w, &p, dp->attributes, dp->n_attributes, dp->start_time_unix_nano,
			  dp->time_unix_nano, dp->flags);
	p.count = dp->count;
	p.has_sum = dp->_sum_case == OTEL_PB(HISTOGRAM_DATA_POINT___SUM_SUM);
	p.sum = p.has_sum ? dp->sum : 0;
	p.bounds = dp->explicit_bounds;
	p.n_bounds = dp->n_explicit_bounds;
	p.counts = dp->bucket_counts;
	p.n_counts = dp->n_bucket_counts;
	otel_point_out(w, &p);
}

static void otel_exphist(struct otel_walk *w, const otel_pb_edp *dp)
{
	struct otel_point p = { 0 };
	const otel_pb_buckets *pos = dp->positive, *neg = dp->negative;

	otel_point_common(w, &p, dp->attributes, dp->n_attributes, dp->start_time_unix_nano,
			  dp->time_unix_nano, dp->flags);
	p.count = dp->count;
	p.has_sum = dp->_sum_case == OTEL_PB(EXPONENTIAL_HISTOGRAM_DATA_POINT___SUM_SUM);
	p.sum = p.has_sum ? dp->sum : 0;
	p.scale = dp->scale;
	p.zero_count = dp->zero_count;
	p.zero_threshold = dp->zero_threshold;
	if (pos != NULL) {
		p.pos_offset = pos->offset;
		p.pos = pos->bucket_counts;
		p.n_pos = pos->n_bucket_counts;
	}
	if (neg != NULL) {
		p.neg_offset = neg->offset;
		p.neg = neg->bucket_counts;
		p.n_neg = neg->n_bucket_counts;
	}
	otel_point_out(w, &p);
}

static void otel_summary(struct otel_walk *w, const otel_pb_sdp *dp)
{
	struct otel_point p = { 0 };
	struct otel_quantile *q;

	otel_point_common(w, &p, dp->attributes, dp->n_attributes, dp->start_time_unix_nano,
			  dp->time_unix_nano, dp->flags);
	p.count = dp->count;
	p.has_sum = true;	/* a Summary's sum is not optional */
	p.sum = dp->sum;
	q = otel_take(&w->s, dp->n_quantile_values * sizeof(*q), _Alignof(struct otel_quantile));
	for (size_t i = 0; q != NULL && i < dp->n_quantile_values; i++) {
		q[i].quantile = dp->quantile_values[i]->quantile;
		q[i].value = dp->quantile_values[i]->value;
	}
	p.quantiles = q;
	p.n_quantiles = dp->n_quantile_values;
	otel_point_out(w, &p);
}

/* Each point of @pm (its resource and scope set), scratch rewound to @mark for each. */
static void otel_metric(struct otel_walk *w, const otel_pb_metric *pm, size_t mark)
{
	switch (pm->data_case) {
	case OTEL_PB(METRIC__DATA_GAUGE):
		otel_metric_set(w, pm, OTEL_GAUGE);
		for (size_t i = 0; i < pm->gauge->n_data_points; i++, w->s.used = mark)
			otel_number(w, pm->gauge->data_points[i]);
		break;
	case OTEL_PB(METRIC__DATA_SUM):
		otel_metric_set(w, pm, OTEL_SUM);
		for (size_t i = 0; i < pm->sum->n_data_points; i++, w->s.used = mark)
			otel_number(w, pm->sum->data_points[i]);
		break;
	case OTEL_PB(METRIC__DATA_HISTOGRAM):
		otel_metric_set(w, pm, OTEL_HISTOGRAM);
		for (size_t i = 0; i < pm->histogram->n_data_points; i++, w->s.used = mark)
			otel_histogram(w, pm->histogram->data_points[i]);
		break;
	case OTEL_PB(METRIC__DATA_EXPONENTIAL_HISTOGRAM):
		otel_metric_set(w, pm, OTEL_EXPHIST);
		for (size_t i = 0; i < pm->exponential_histogram->n_data_points; i++, w->s.used = mark)
			otel_exphist(w, pm->exponential_histogram->data_points[i]);
		break;
	case OTEL_PB(METRIC__DATA_SUMMARY):
		otel_metric_set(w, pm, OTEL_SUMMARY);
		for (size_t i = 0; i < pm->summary->n_data_points; i++, w->s.used = mark)
			otel_summary(w, pm->summary->data_points[i]);
		break;
	default:
		break;	/* no data: nothing to report */
	}
}

static void otel_walk(struct otel_walk *w, const otel_pb_req *req)
{
	for (size_t i = 0; i < req->n_resource_metrics; i++) {
		const otel_pb_rm *rm = req->resource_metrics[i];
		size_t mark;

		otel_resource_set(w, rm);
		mark = w->s.used;
		for (size_t j = 0; j < rm->n_scope_metrics; j++) {
			const otel_pb_sm *sm = rm->scope_metrics[j];

			otel_scope_set(w, sm);
			for (size_t k = 0; k < sm->n_metrics; k++)
				otel_metric(w, sm->metrics[k], mark);
		}
	}
}

/* The request's points: measured, the scratch taken from @a, reported. */
static int otel_report(const otel_pb_req *req, struct otlp_arena *a, otel_point_fn fn, void *arg,
		       struct otel_result *res)
{
	struct otel_walk *w = calloc(1, sizeof(*w));	/* 2.5 KiB of names: not on a transport's stack */

	if (w == NULL)
		return -ENOMEM;
	w->fn = fn;
	w->arg = arg;
	w->res = res;
	otel_walk(w, req);
	w->s = (struct otel_scratch){ .cap = w->s.peak };
	if ((w->s.base = otlp_arena_take(a, w->s.cap)) == NULL) {
		free(w);
		snprintf(res->message, sizeof(res->message), "request over the decoder's memory budget");
		return -ENOMEM;
	}
	otel_walk(w, req);
	free(w);
	return 0;
}

int otel_decode(enum otlp_encoding enc, const void *body, size_t len, size_t mem_max,
		otel_point_fn fn, void *arg, struct otel_result *res)
{
	const ProtobufCMessageDescriptor *rd =
		&opentelemetry__proto__trace__v1__export_metrics_service_request__descriptor;
	const ProtobufCMessageDescriptor *any = &opentelemetry__proto__trace__v1__any_value__descriptor;
	ProtobufCMessage *m = NULL;
	struct json_object *root;
	struct otlp_arena a;
	size_t cost;
	int rc;

	memset(res, 0, sizeof(*res));
	if (mem_max == 0)
		mem_max = OTLP_MEM_MAX;
	otlp_arena_init(&a, mem_max);
	if (enc == OTLP_PROTOBUF) {
		rc = otlp_pbc_unpack(rd, any, body, len, &a, &m, res->message, sizeof(res->message));
	} else if (enc == OTLP_JSON) {
		rc = otlp_json_parse(body, len, mem_max, OTEL_JSON_DEPTH, &root, &cost, res->message,
				     sizeof(res->message));
		if (rc == 0) {
			a.max = mem_max - cost;	/* json-c's tree and the arena share the budget */
			rc = otlp_pbc_from_json(root, rd, any, &a, &m, res->message, sizeof(res->message));
			json_object_put(root);
		}
	} else {
		rc = (snprintf(res->message, sizeof(res->message), "unknown encoding"), -EBADMSG);
	}
	if (rc == 0)
		rc = otel_report((const otel_pb_req *)m, &a, fn, arg, res);
	otlp_arena_drop(&a);
	if (rc < 0) {
		res->accepted = res->rejected = 0;
		memset(res->rejected_by, 0, sizeof(res->rejected_by));
		if (res->message[0] == '\0')
			snprintf(res->message, sizeof(res->message), "request does not decode");
	}
	return rc;
}

int otel_answer(enum otlp_encoding enc, const struct otel_result *res, void *buf, size_t cap)
{
	if (enc == OTLP_PROTOBUF) {
		Opentelemetry__Proto__Trace__V1__ExportMetricsServiceResponse m =
			OTEL_PB(EXPORT_METRICS_SERVICE_RESPONSE__INIT);
		Opentelemetry__Proto__Trace__V1__ExportMetricsPartialSuccess ps =
			OTEL_PB(EXPORT_METRICS_PARTIAL_SUCCESS__INIT);
		char msg[3 * sizeof(res->message) + 1];

		if (res->rejected > 0) {
			ps.rejected_data_points = res->rejected > INT64_MAX ? INT64_MAX : (int64_t)res->rejected;
			sdk_utf8_clean(msg, sizeof(msg), res->message);
			ps.error_message = msg;
			m.partial_success = &ps;
		}
		return otlp_answer_pack(&m.base, buf, cap);
	}
	return otlp_answer_json("rejectedDataPoints", res->rejected, res->message, buf, cap);
}
