/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP trace request bodies to spans (otlp.h, docs/trace-protocol.md §11).
 *
 * Protobuf: pbwalk.c's walker over the wire format, which reads the few
 * fields a span needs and checks the rest as protobuf-c would, without
 * allocating (ref_pb.c keeps protobuf-c's decoding as its oracle).
 *
 * JSON: the streaming walker of jsonwalk.c checks and reads the body
 * without building a tree; json-c's path (ref_json.c) is kept as its
 * oracle for the tests and the differential fuzzer.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otlp.h"
#include "otlp_fields.h"
#include "otlp_priv.h"

/* ---- names ---- */

char *otlp_clean_text(char *dst, size_t max, const char *src, size_t len, const char *dflt)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t i = 0, o = 0;

	while (i < len) {
		char rep[4];
		size_t n, rn;
		uint32_t cp;

		n = sdk_utf8_len(s + i, len - i, &cp);
		if (n == 0) {
			memcpy(rep, "\xef\xbf\xbd", 3);	/* U+FFFD */
			rn = 3;
			n = 1;
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0)) {
			rep[0] = '?';
			rn = 1;
		} else {
			memcpy(rep, s + i, n);
			rn = n;
		}
		if (o + rn > max)
			break;
		memcpy(dst + o, rep, rn);
		o += rn;
		i += n;
	}
	if (o == 0 && dflt != NULL) {
		snprintf(dst, max + 1, "%s", dflt);
		return dst;
	}
	dst[o] = '\0';
	return dst;
}

char *otlp_clean_name(char *dst, const char *src, size_t len, const char *dflt)
{
	return otlp_clean_text(dst, OTLP_NAME_MAX, src, len, dflt);
}

/* ---- one span, from either encoding ---- */

static const char *const otlp_reject_why[] = {
#define OTLP_X(id, name, why) why,
	OTLP_REJECT_REASONS(OTLP_X)
#undef OTLP_X
};

void otlp_refuse(struct otlp_ctx *c, const char *name, enum otlp_reject why)
{
	c->res->rejected++;
	c->res->rejected_by[why]++;
	/* 60 bytes of the name, cut between characters: the message stays UTF-8 */
	if (c->res->message[0] == '\0')
		snprintf(c->res->message, sizeof(c->res->message), "span '%.*s': %s",
			 (int)sdk_utf8_cut(name, strlen(name), 60), name, otlp_reject_why[why]);
}

void otlp_span_out(struct otlp_ctx *c, const char *name, size_t namelen, int64_t kind,
		   int64_t status, uint64_t start, uint64_t end)
{
	char clean[OTLP_NAME_MAX + 1];
	struct otlp_span sp;

	otlp_clean_name(clean, name, namelen, OTLP_NO_NAME);
	if (kind < OTLP_KIND_UNSPECIFIED || kind > OTLP_KIND_CONSUMER) {
		otlp_refuse(c, clean, OTLP_REJECT_KIND);
		return;
	}
	if (status < OTLP_STATUS_UNSET || status > OTLP_STATUS_ERROR) {
		otlp_refuse(c, clean, OTLP_REJECT_STATUS);
		return;
	}
	if (start == 0) {	/* unset: (end - 0) would be a 56-year span */
		otlp_refuse(c, clean, OTLP_REJECT_NO_START);
		return;
	}
	if (end < start) {
		otlp_refuse(c, clean, OTLP_REJECT_BACKWARDS);
		return;
	}
	sp.service = c->service;
	sp.ns = c->ns;
	sp.name = clean;
	sp.kind = (enum otlp_kind)kind;
	sp.status = (enum otlp_status)status;
	sp.start_ns = start;
	sp.end_ns = end;
	if (c->fn(c->arg, &sp) < 0)
		otlp_refuse(c, clean, OTLP_REJECT_REFUSED);
	else
		c->res->accepted++;
}

int otlp_decode(enum otlp_encoding enc, const void *body, size_t len, size_t mem_max,
		otlp_span_fn fn, void *arg, struct otlp_result *res)
{
	struct otlp_ctx c = { .fn = fn, .arg = arg, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	if (mem_max == 0)
		mem_max = OTLP_MEM_MAX;
	if (enc == OTLP_PROTOBUF)
		rc = otlp_decode_pb(body, len, mem_max, &c);
	else if (enc == OTLP_JSON)
		rc = otlp_json_walk(body, len, mem_max, &c);
	else
		rc = (snprintf(res->message, sizeof(res->message), "unknown encoding"), -EBADMSG);
	if (rc < 0) {
		res->accepted = res->rejected = 0;
		if (res->message[0] == '\0')
			snprintf(res->message, sizeof(res->message), "request does not decode");
	}
	return rc;
}
