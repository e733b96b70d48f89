/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the OpenTelemetry metrics decoder
 * (pmda_trace/otel/decode.c): the first byte chooses what the rest is, a
 * protobuf request (even) or a JSON request (odd). Whatever it is, the
 * decoder either refuses it whole with a reason and no point, or reports
 * points within decode.h's promises (texts valid UTF-8 without control
 * characters, attribute values JSON that json-c takes strictly, kind and
 * temporality in range, arrays where their counts say) and counts the
 * refusals it was given right, by reason; the answer it makes decodes.
 * Seeds: tests/fuzz/otel_metrics.js (the stock Node SDK's requests,
 * sdk-*), tests/fuzz/otel_every_kind.txtpb (protobuf-every-kind) and the
 * unit test's every_kind_json (json-every-kind).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../pmda_trace/otel/decode.h"
#include "../../pmda_trace/otlp/otlp_priv.h"
#include "otlp_metrics.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MEM	(4u << 20)	/* a small budget keeps runs fast */

/* @n bytes of @s, NUL after them: valid UTF-8, no control character, at most @max bytes. */
static void check_text(const char *s, size_t n, size_t max)
{
	size_t i = 0, len;
	uint32_t cp;

	if (s == NULL || n > max || s[n] != '\0')
		abort();
	for (; i < n; i += len) {
		if ((len = sdk_utf8_len((const unsigned char *)s + i, n - i, &cp)) == 0)
			abort();
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			abort();
	}
}

/* One JSON value, strictly (a bare number needs its end told). */
static void check_json(const char *s, size_t n)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;

	check_text(s, n, SIZE_MAX);
	if (tok == NULL)
		abort();
	json_tokener_set_flags(tok, otlp_json_flags());	/* strict where json-c can */
	o = json_tokener_parse_ex(tok, s, (int)n);
	if (o == NULL && json_tokener_get_error(tok) == json_tokener_continue)
		o = json_tokener_parse_ex(tok, "", 1);
	if (json_tokener_get_error(tok) != json_tokener_success)
		abort();
	json_object_put(o);
	json_tokener_free(tok);
}

static void check_attrs(const struct otel_attr *a, size_t n)
{
	if (n > 0 && a == NULL)
		abort();
	for (size_t i = 0; i < n; i++) {
		check_text(a[i].key, a[i].key_len, OTLP_NAME_MAX);
		check_json(a[i].json, a[i].json_len);
	}
}

/* @n values at @v are readable. */
static void check_array(const void *v, size_t n, size_t size)
{
	volatile const unsigned char *b = v;
	unsigned char sum = 0;

	if (n > 0 && v == NULL)
		abort();
	for (size_t i = 0; i < n * size; i++)
		sum ^= b[i];
	(void)sum;
}

struct seen {
	uint64_t calls, refused, by[OTEL_REJECT_N];
};

static int point(void *arg, const struct otel_resource *r, const struct otel_metric *m,
		 const struct otel_point *p)
{
	struct seen *s = arg;
	size_t len = strlen(m->name);

	check_text(r->service, strlen(r->service), OTLP_NAME_MAX);
	if (r->service[0] == '\0')
		abort();
	check_text(r->ns, strlen(r->ns), OTLP_NAME_MAX);
	check_text(r->instance_id, strlen(r->instance_id), OTLP_NAME_MAX);
	check_text(r->scope_name, strlen(r->scope_name), OTLP_NAME_MAX);
	check_text(r->scope_version, strlen(r->scope_version), OTLP_NAME_MAX);
	check_attrs(r->attrs, r->n_attrs);
	check_text(m->name, len, OTEL_NAME_MAX);
	check_text(m->description, strlen(m->description), OTEL_DESC_MAX);
	check_text(m->unit, strlen(m->unit), OTEL_UNIT_MAX);
	if ((unsigned)m->kind > OTEL_SUMMARY || (unsigned)m->temporality > OTEL_TEMP_CUMULATIVE ||
	    (m->kind != OTEL_SUM && m->monotonic))
		abort();
	if ((m->kind == OTEL_GAUGE || m->kind == OTEL_SUMMARY) && m->temporality != OTEL_TEMP_UNSPECIFIED)
		abort();
	check_attrs(p->attrs, p->n_attrs);
	check_array(p->bounds, p->n_bounds, sizeof(double));
	check_array(p->counts, p->n_counts, sizeof(uint64_t));
	check_array(p->pos, p->n_pos, sizeof(uint64_t));
	check_array(p->neg, p->n_neg, sizeof(uint64_t));
	check_array(p->quantiles, p->n_quantiles, sizeof(struct otel_quantile));
	if (m->kind == OTEL_SUMMARY && !p->has_sum)
		abort();
	s->calls++;
	/* refuse metrics named x...: by a reason of the name's length, or none the contract has */
	if (len > 0 && m->name[0] == 'x') {
		int why = (int)(len % (OTEL_REJECT_N + 1));

		s->refused++;
		if (why < OTEL_REJECT_N)
			s->by[why]++;
		return -1 - why;
	}
	return 0;
}

static void decode(enum otlp_encoding enc, const uint8_t *data, size_t size)
{
	struct otel_result res;
	struct seen s = { 0 };
	uint8_t out[1024];
	int rc, n;

	rc = otel_decode(enc, data, size, FUZZ_MEM, point, &s, &res);
	if (rc < 0) {
		if ((rc != -EBADMSG && rc != -E2BIG && rc != -ENOMEM) || s.calls != 0 ||
		    res.message[0] == '\0' || res.accepted != 0 || res.rejected != 0)
			abort();
		for (int i = 0; i < OTEL_REJECT_N; i++)
			if (res.rejected_by[i] != 0)
				abort();
		n = otlp_status_body(enc, 3, res.message, out, sizeof(out));
	} else {
		if (res.accepted != s.calls - s.refused || res.rejected != s.refused ||
		    (res.rejected > 0) != (res.message[0] != '\0'))
			abort();
		check_text(res.message, strlen(res.message), sizeof(res.message) - 1);
		for (int i = 0; i < OTEL_REJECT_N; i++)
			if (res.rejected_by[i] != s.by[i])
				abort();
		n = otel_answer(enc, &res, out, sizeof(out) - 1);
	}
	if (n < 0)
		abort();
	if (enc == OTLP_PROTOBUF && rc == 0) {
		Opentelemetry__Proto__Trace__V1__ExportMetricsServiceResponse *r =
			opentelemetry__proto__trace__v1__export_metrics_service_response__unpack(NULL,
												   (size_t)n, out);

		if (r == NULL || (res.rejected > 0) != (r->partial_success != NULL) ||
		    (r->partial_success != NULL &&
		     (uint64_t)r->partial_success->rejected_data_points != res.rejected))
			abort();
		opentelemetry__proto__trace__v1__export_metrics_service_response__free_unpacked(r, NULL);
	} else if (enc == OTLP_JSON && rc == 0) {
		out[n] = '\0';
		check_json((const char *)out, (size_t)n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	decode(data[0] % 2 ? OTLP_JSON : OTLP_PROTOBUF, data + 1, size - 1);
	return 0;
}
