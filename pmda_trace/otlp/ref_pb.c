/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The oracle decoding of OTLP protobuf requests: protobuf-c's generated
 * unpack, kept as the oracle the walker (pbwalk.c) is tested against
 * (tests/unit/pmda_trace/test_otlp_pbwalk.c, tests/fuzz/fuzz_otlp_pb_diff.c)
 * and measured against (bench/bench_otlp_decode.c). The agent does not
 * use it.
 *
 * It is pbc.h's protobuf-c made safe for hostile input, the same the
 * metrics decoder uses: the pre-scan (bad framing -EBADMSG, AnyValue
 * nesting deeper than OTLP_DEPTH_MAX -E2BIG, before protobuf-c, which
 * recurses once per nested message, sees them) and the unpack into an
 * arena counted against the request's budget (-ENOMEM over it).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "otlp_priv.h"
#include "otlp_trace.pb-c.h"
#include "pbc.h"

typedef Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest otlp_pb_req;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans otlp_pb_rs;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans otlp_pb_ss;
typedef Opentelemetry__Proto__Trace__V1__Span otlp_pb_span;
typedef Opentelemetry__Proto__Trace__V1__KeyValue otlp_pb_kv;

/* ---- protobuf: the request ---- */

/* The string of @rs's first resource attribute @key, or NULL. */
static const char *otlp_pb_resource_string(const otlp_pb_rs *rs, const char *key)
{
	for (size_t i = 0; rs->resource != NULL && i < rs->resource->n_attributes; i++) {
		const otlp_pb_kv *kv = rs->resource->attributes[i];

		if (kv->key == NULL || strcmp(kv->key, key) != 0)
			continue;
		if (kv->value != NULL && kv->value->value_case ==
		    OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE)
			return kv->value->string_value;
		return NULL;
	}
	return NULL;
}

static void otlp_pb_service(struct otlp_ctx *c, const otlp_pb_rs *rs)
{
	const char *s = otlp_pb_resource_string(rs, OTLP_SERVICE_KEY);
	const char *ns = otlp_pb_resource_string(rs, OTLP_NAMESPACE_KEY);

	otlp_clean_name(c->service, s ? s : "", s ? strlen(s) : 0, OTLP_NO_SERVICE);
	otlp_clean_name(c->ns, ns ? ns : "", ns ? strlen(ns) : 0, NULL);
}

int otlp_decode_pb_ref(const uint8_t *body, size_t len, size_t mem_max, struct otlp_ctx *c)
{
	struct otlp_arena a;
	ProtobufCMessage *m;
	const otlp_pb_req *req;
	int rc;

	otlp_arena_init(&a, mem_max);
	rc = otlp_pbc_unpack(&opentelemetry__proto__trace__v1__export_trace_service_request__descriptor,
			     &opentelemetry__proto__trace__v1__any_value__descriptor, body, len, &a, &m,
			     c->res->message, sizeof(c->res->message));
	if (rc < 0)
		return rc;
	req = (const otlp_pb_req *)m;
	for (size_t i = 0; i < req->n_resource_spans; i++) {
		const otlp_pb_rs *rs = req->resource_spans[i];

		otlp_pb_service(c, rs);
		for (size_t j = 0; j < rs->n_scope_spans; j++) {
			const otlp_pb_ss *ss = rs->scope_spans[j];

			for (size_t k = 0; k < ss->n_spans; k++) {
				const otlp_pb_span *s = ss->spans[k];
				int64_t status = s->status ? (int64_t)s->status->code : 0;

				otlp_span_out(c, s->name ? s->name : "", s->name ? strlen(s->name) : 0,
					      (int64_t)s->kind, status, s->start_time_unix_nano,
					      s->end_time_unix_nano);
			}
		}
	}
	otlp_arena_drop(&a);
	return 0;
}
