/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target: the OTLP protobuf walker (pmda_trace/otlp/pbwalk.c)
 * against protobuf-c (ref_pb.c) on the same bytes. Both must give the
 * same return code and message, and for 0 the same spans in the same
 * order (service, namespace, name, kind, status, start, end) and the same
 * counts; a span whose name starts with 'x' is refused by the callback,
 * so refusals are compared too. The one difference allowed: protobuf-c
 * over its memory budget (-ENOMEM), which the walker, allocating nothing,
 * does not have; such an input is not compared. Seeds: the protobuf seeds
 * of corpus/otlp_decode without their first byte, and real SDK spans with
 * 20 attributes, 3 events and 2 links (tests/fuzz/otlp_rich.js).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pmda_trace/otlp/otlp.h"
#include "../../pmda_trace/otlp/otlp_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What one decoder reported: a line a span, and its result. */
struct run {
	char *log;
	size_t len, cap;
	size_t calls;
	struct otlp_result res;
	int rc;
};

static int record(void *arg, const struct otlp_span *sp)
{
	struct run *r = arg;
	char line[3 * (OTLP_NAME_MAX + 1) + 128];
	int n = snprintf(line, sizeof(line), "%s|%s|%s|%d|%d|%" PRIu64 "|%" PRIu64 "\n",
			 sp->service, sp->ns, sp->name, (int)sp->kind, (int)sp->status,
			 sp->start_ns, sp->end_ns);

	if (r->len + (size_t)n + 1 > r->cap) {
		r->cap = (r->len + (size_t)n + 1) * 2;
		if ((r->log = realloc(r->log, r->cap)) == NULL)
			abort();
	}
	memcpy(r->log + r->len, line, (size_t)n + 1);
	r->len += (size_t)n;
	r->calls++;
	return sp->name[0] == 'x' ? -1 : 0;
}

/* One decoder over the bytes, as otlp_decode() runs it. */
static void run(struct run *r, int (*dec)(const uint8_t *, size_t, size_t, struct otlp_ctx *),
		const uint8_t *data, size_t size)
{
	struct otlp_ctx c = { .fn = record, .arg = r, .res = &r->res };

	memset(&r->res, 0, sizeof(r->res));
	r->rc = dec(data, size, OTLP_MEM_MAX, &c);
	if (r->rc < 0) {
		r->res.accepted = r->res.rejected = 0;
		if (r->res.message[0] == '\0')
			snprintf(r->res.message, sizeof(r->res.message), "request does not decode");
	}
}

static void differ(const char *what, const struct run *w, const struct run *p)
{
	fprintf(stderr, "fuzz_otlp_pb_diff: the walker and protobuf-c differ in %s\n"
		"  walker:     rc %d, accepted %" PRIu64 ", rejected %" PRIu64 ", message '%s'\n"
		"  protobuf-c: rc %d, accepted %" PRIu64 ", rejected %" PRIu64 ", message '%s'\n",
		what, w->rc, w->res.accepted, w->res.rejected, w->res.message,
		p->rc, p->res.accepted, p->res.rejected, p->res.message);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run w = { 0 }, p = { 0 };
	size_t i = 0;

	run(&p, otlp_decode_pb_ref, data, size);
	run(&w, otlp_decode_pb, data, size);
	if (p.rc == -ENOMEM)
		goto out;	/* protobuf-c's budget: the walker has none */
	if (w.rc != p.rc)
		differ("the return code", &w, &p);
	if (strcmp(w.res.message, p.res.message) != 0)
		differ("the message", &w, &p);
	if (w.rc < 0 && (w.calls != 0 || p.calls != 0))
		differ("spans reported before an error", &w, &p);
	if (w.res.accepted != p.res.accepted || w.res.rejected != p.res.rejected ||
	    memcmp(w.res.rejected_by, p.res.rejected_by, sizeof(w.res.rejected_by)) != 0)
		differ("the counts", &w, &p);
	if (w.len != p.len || (w.len > 0 && memcmp(w.log, p.log, w.len) != 0)) {
		while (i < w.len && i < p.len && w.log[i] == p.log[i])
			i++;
		while (i > 0 && w.log[i - 1] != '\n')
			i--;
		fprintf(stderr, "first differing span:\n  walker:     %.*s\n  protobuf-c: %.*s\n",
			(int)strcspn(w.log ? w.log + i : "", "\n"), w.log ? w.log + i : "",
			(int)strcspn(p.log ? p.log + i : "", "\n"), p.log ? p.log + i : "");
		differ("the spans", &w, &p);
	}
out:
	free(w.log);
	free(p.log);
	return 0;
}
