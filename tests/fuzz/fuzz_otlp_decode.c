/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the trace agent's OTLP decoder (pmda_trace/otlp):
 * the first byte chooses what the rest is, a protobuf request (0), a JSON
 * request (1) or a gzip body (2), inflated and then decoded both ways.
 * Whatever it is, the decoder either refuses it whole with a reason and
 * no span, or reports spans within otlp.h's promises (clean names, kind
 * and status in range, end >= start) and counts them right; the answer
 * it makes decodes. Seeds: tests/fuzz/otlp_corpus.py.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../pmda_trace/otlp/otlp.h"
#include "../../pmda_trace/otlp/otlp_priv.h"
#include "otlp_trace.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MEM	(4u << 20)	/* a small budget keeps runs fast */

/* A name as otlp.h promises it: valid UTF-8, no control character, at
 * most OTLP_NAME_MAX bytes, not empty unless @may_be_empty. */
static void check_name(const char *s, int may_be_empty)
{
	size_t len = strlen(s), i = 0, n;
	uint32_t cp;

	if ((len == 0 && !may_be_empty) || len > OTLP_NAME_MAX)
		abort();
	for (; i < len; i += n) {
		if ((n = sdk_utf8_len((const unsigned char *)s + i, len - i, &cp)) == 0)
			abort();
		if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0))
			abort();
	}
}

struct seen {
	uint64_t calls, refused;
};

static int span(void *arg, const struct otlp_span *sp)
{
	struct seen *s = arg;

	check_name(sp->service, 0);
	check_name(sp->ns, 1);
	check_name(sp->name, 0);
	if ((unsigned)sp->kind > OTLP_KIND_CONSUMER || (unsigned)sp->status > OTLP_STATUS_ERROR ||
	    sp->start_ns == 0 || sp->end_ns < sp->start_ns)
		abort();
	s->calls++;
	if (sp->name[0] == 'x') {
		s->refused++;
		return -1;
	}
	return 0;
}

static void decode(enum otlp_encoding enc, const uint8_t *data, size_t size)
{
	struct otlp_result res;
	struct seen s = { 0 };
	uint8_t out[512];
	int rc, n;

	rc = otlp_decode(enc, data, size, FUZZ_MEM, span, &s, &res);
	if (rc < 0) {
		if ((rc != -EBADMSG && rc != -E2BIG && rc != -ENOMEM) || s.calls != 0 ||
		    res.message[0] == '\0' || res.accepted != 0 || res.rejected != 0)
			abort();
		n = otlp_status_body(enc, 3, res.message, out, sizeof(out));
	} else {
		if (res.accepted != s.calls - s.refused || res.rejected < s.refused ||
		    (res.rejected > 0) != (res.message[0] != '\0'))
			abort();
		n = otlp_answer(enc, &res, out, sizeof(out));
	}
	if (n < 0)
		abort();
	if (enc == OTLP_PROTOBUF && rc == 0) {
		Opentelemetry__Proto__Trace__V1__ExportTraceServiceResponse *r =
			opentelemetry__proto__trace__v1__export_trace_service_response__unpack(NULL, (size_t)n,
												  out);

		if (r == NULL || (res.rejected > 0) != (r->partial_success != NULL))
			abort();
		opentelemetry__proto__trace__v1__export_trace_service_response__free_unpacked(r, NULL);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	void *body;
	size_t len;
	int rc;

	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0:
		decode(OTLP_PROTOBUF, data + 1, size - 1);
		break;
	case 1:
		decode(OTLP_JSON, data + 1, size - 1);
		break;
	default:
		rc = otlp_gunzip(data + 1, size - 1, 1u << 20, &body, &len);
		if (rc < 0) {
			if ((rc != -EBADMSG && rc != -EMSGSIZE) || body != NULL)
				abort();
			break;
		}
		if (len > 1u << 20)
			abort();
		decode(OTLP_PROTOBUF, body, len);
		decode(OTLP_JSON, body, len);
		free(body);
		break;
	}
	return 0;
}
