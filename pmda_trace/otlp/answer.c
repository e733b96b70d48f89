/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Answer bodies: ExportTraceServiceResponse and google.rpc.Status, packed
 * by protobuf-c or written as OTLP's JSON (int64 as a decimal string, as
 * protobuf's JSON mapping writes it; the message escaped, bytes that are
 * not UTF-8 as U+FFFD). A protobuf string must be valid UTF-8 (proto3:
 * opentelemetry-go's exporter fails the whole export on one that is not),
 * so messages are cleaned the same way before packing. See otlp.h. The
 * packing and the JSON partialSuccess serve the metrics answer too
 * (otlp_answer_pack, otlp_answer_json: pmda_trace/otel/decode.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "otlp.h"
#include "otlp_priv.h"
#include "otlp_trace.pb-c.h"

/* A Status message, cleaned: longer ones are cut (answers are short). */
#define ANSWER_MSG_MAX	512

/* Appends to a fixed buffer; remembers running out. */
struct otlp_out {
	char *p;
	size_t n, cap;
	int full;
};

static void otlp_put(struct otlp_out *o, const char *s, size_t n)
{
	if (o->n + n > o->cap) {
		o->full = 1;
		return;
	}
	memcpy(o->p + o->n, s, n);
	o->n += n;
}

static void otlp_puts(struct otlp_out *o, const char *s)
{
	otlp_put(o, s, strlen(s));
}

/* @s as a JSON string, quotes included (utf8.h's escaper, in place). */
static void otlp_put_jstring(struct otlp_out *o, const char *s)
{
	int n;

	if (o->full || (n = sdk_json_string(o->p + o->n, o->cap - o->n, s)) < 0) {
		o->full = 1;
		return;
	}
	o->n += (size_t)n;
}

int otlp_answer_pack(const ProtobufCMessage *m, void *buf, size_t cap)
{
	size_t n = protobuf_c_message_get_packed_size(m);

	if (n > cap || n > INT32_MAX)
		return -ENOSPC;
	return (int)protobuf_c_message_pack(m, buf);
}

static int otlp_done(struct otlp_out *o)
{
	if (o->full || o->n > INT32_MAX)
		return -ENOSPC;
	return (int)o->n;
}

int otlp_answer_json(const char *count_name, uint64_t rejected, const char *message, void *buf,
		     size_t cap)
{
	struct otlp_out o = { .p = buf, .cap = cap };
	char num[32];

	if (rejected == 0) {
		otlp_puts(&o, "{}");
		return otlp_done(&o);
	}
	snprintf(num, sizeof(num), "%" PRIu64, rejected > INT64_MAX ? (uint64_t)INT64_MAX : rejected);
	otlp_puts(&o, "{\"partialSuccess\":{\"");
	otlp_puts(&o, count_name);
	otlp_puts(&o, "\":\"");
	otlp_puts(&o, num);
	otlp_puts(&o, "\",\"errorMessage\":");
	otlp_put_jstring(&o, message);
	otlp_puts(&o, "}}");
	return otlp_done(&o);
}

int otlp_answer(enum otlp_encoding enc, const struct otlp_result *res, void *buf, size_t cap)
{
	if (enc == OTLP_PROTOBUF) {
		Opentelemetry__Proto__Trace__V1__ExportTraceServiceResponse m =
			OPENTELEMETRY__PROTO__TRACE__V1__EXPORT_TRACE_SERVICE_RESPONSE__INIT;
		Opentelemetry__Proto__Trace__V1__ExportTracePartialSuccess ps =
			OPENTELEMETRY__PROTO__TRACE__V1__EXPORT_TRACE_PARTIAL_SUCCESS__INIT;

		char msg[3 * sizeof(res->message) + 1];

		if (res->rejected > 0) {
			ps.rejected_spans = res->rejected > INT64_MAX ? INT64_MAX : (int64_t)res->rejected;
			sdk_utf8_clean(msg, sizeof(msg), res->message);
			ps.error_message = msg;
			m.partial_success = &ps;
		}
		return otlp_answer_pack(&m.base, buf, cap);
	}
	return otlp_answer_json("rejectedSpans", res->rejected, res->message, buf, cap);
}

int otlp_status_body(enum otlp_encoding enc, int code, const char *message, void *buf, size_t cap)
{
	struct otlp_out o = { .p = buf, .cap = cap };
	char num[16];

	if (message == NULL)
		message = "";
	if (enc == OTLP_PROTOBUF) {
		Opentelemetry__Proto__Trace__V1__RpcStatus m = OPENTELEMETRY__PROTO__TRACE__V1__RPC_STATUS__INIT;
		char msg[ANSWER_MSG_MAX];

		m.code = code;
		sdk_utf8_clean(msg, sizeof(msg), message);
		m.message = msg;
		return otlp_answer_pack(&m.base, buf, cap);
	}
	snprintf(num, sizeof(num), "%d", code);
	otlp_puts(&o, "{\"code\":");
	otlp_puts(&o, num);
	otlp_puts(&o, ",\"message\":");
	otlp_put_jstring(&o, message);
	otlp_puts(&o, "}");
	return otlp_done(&o);
}
