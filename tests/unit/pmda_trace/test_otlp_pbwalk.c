/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP protobuf walker (pmda_trace/otlp/pbwalk.c) against protobuf-c
 * (ref_pb.c) on the edge cases of the wire format: every case runs both
 * and checks that they agree (return code, message, spans in order and
 * counts), then what they agree on. Requests are written here byte by
 * byte, so that they can say what protobuf-c's own encoder never would
 * (a field twice, a wrong wire type, a NUL in a string). Each difference
 * the differential fuzzer (tests/fuzz/fuzz_otlp_pb_diff.c) found is a
 * case here.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../../pmda_trace/otlp/otlp.h"
#include "../../../pmda_trace/otlp/otlp_priv.h"

/* ---- writing protobuf ---- */

struct pb {
	uint8_t b[4096];
	size_t n;
};

static void put_byte(struct pb *p, uint8_t c)
{
	assert_true(p->n < sizeof(p->b));
	p->b[p->n++] = c;
}

static void put_varint(struct pb *p, uint64_t v)
{
	for (; v >= 0x80; v >>= 7)
		put_byte(p, (uint8_t)(v | 0x80));
	put_byte(p, (uint8_t)v);
}

static void put_tag(struct pb *p, unsigned field, unsigned wire)
{
	put_varint(p, (uint64_t)field << 3 | wire);
}

static void put_bytes(struct pb *p, unsigned field, const void *s, size_t n)
{
	put_tag(p, field, 2);
	put_varint(p, n);
	for (size_t i = 0; i < n; i++)
		put_byte(p, ((const uint8_t *)s)[i]);
}

static void put_str(struct pb *p, unsigned field, const char *s)
{
	put_bytes(p, field, s, strlen(s));
}

static void put_msg(struct pb *p, unsigned field, const struct pb *m)
{
	put_bytes(p, field, m->b, m->n);
}

static void put_uint(struct pb *p, unsigned field, uint64_t v)
{
	put_tag(p, field, 0);
	put_varint(p, v);
}

static void put_fixed64(struct pb *p, unsigned field, uint64_t v)
{
	put_tag(p, field, 1);
	for (int i = 0; i < 8; i++)
		put_byte(p, (uint8_t)(v >> (8 * i)));
}

/* A key-value of @key and a string value. */
static void kv_str(struct pb *kv, const char *key, const char *val)
{
	struct pb any = { .n = 0 };

	kv->n = 0;
	put_str(kv, 1, key);
	put_str(&any, 1, val);
	put_msg(kv, 2, &any);
}

/* A span named @name, kind 2, from 100 to 200, plus @extra's bytes. */
static void span_with(struct pb *s, const char *name, const struct pb *extra)
{
	s->n = 0;
	put_str(s, 5, name);
	put_uint(s, 6, 2);
	put_fixed64(s, 7, 100);
	put_fixed64(s, 8, 200);
	if (extra != NULL) {
		memcpy(s->b + s->n, extra->b, extra->n);
		s->n += extra->n;
	}
}

/* A request of one ResourceSpans: @rs_head's bytes, then one scope of @span. */
static void request(struct pb *req, const struct pb *rs_head, const struct pb *span)
{
	struct pb ss = { .n = 0 }, rs = { .n = 0 };

	put_msg(&ss, 2, span);
	if (rs_head != NULL) {
		memcpy(rs.b, rs_head->b, rs_head->n);
		rs.n = rs_head->n;
	}
	put_msg(&rs, 2, &ss);
	req->n = 0;
	put_msg(req, 1, &rs);
}

/* A resource (field 1 of ResourceSpans) of one attribute, appended to @rs. */
static void add_resource(struct pb *rs, const struct pb *kv)
{
	struct pb res = { .n = 0 };

	put_msg(&res, 1, kv);
	put_msg(rs, 1, &res);
}

/* ---- both decoders ---- */

struct run {
	char log[8192];
	size_t len, calls;
	struct otlp_result res;
	int rc;
};

static int record(void *arg, const struct otlp_span *sp)
{
	struct run *r = arg;
	int n = snprintf(r->log + r->len, sizeof(r->log) - r->len, "%s|%s|%s|%d|%d|%" PRIu64 "|%"
			 PRIu64 "\n", sp->service, sp->ns, sp->name, (int)sp->kind, (int)sp->status,
			 sp->start_ns, sp->end_ns);

	assert_true(n > 0 && (size_t)n < sizeof(r->log) - r->len);
	r->len += (size_t)n;
	r->calls++;
	return sp->name[0] == 'x' ? -1 : 0;
}

static void run(struct run *r, int (*dec)(const uint8_t *, size_t, size_t, struct otlp_ctx *),
		const uint8_t *b, size_t n)
{
	struct otlp_ctx c = { .fn = record, .arg = r, .res = &r->res };

	memset(r, 0, sizeof(*r));
	r->rc = dec(b, n, 0 + OTLP_MEM_MAX, &c);
	if (r->rc < 0) {
		r->res.accepted = r->res.rejected = 0;
		if (r->res.message[0] == '\0')
			snprintf(r->res.message, sizeof(r->res.message), "request does not decode");
	}
}

/*
 * The walker and protobuf-c on @n bytes at @b: they must agree. Returns
 * the return code; *@out (if not NULL) gets the walker's run.
 */
static int both_raw(const uint8_t *b, size_t n, struct run *out)
{
	static struct run w, p;

	run(&w, otlp_decode_pb, b, n);
	run(&p, otlp_decode_pb_ref, b, n);
	assert_int_equal(w.rc, p.rc);
	assert_string_equal(w.res.message, p.res.message);
	assert_int_equal(w.res.accepted, p.res.accepted);
	assert_int_equal(w.res.rejected, p.res.rejected);
	assert_memory_equal(w.res.rejected_by, p.res.rejected_by, sizeof(w.res.rejected_by));
	assert_string_equal(w.log, p.log);
	if (w.rc < 0)
		assert_int_equal(w.calls + p.calls, 0);
	if (out != NULL)
		*out = w;
	return w.rc;
}

static int both(const struct pb *req, struct run *out)
{
	return both_raw(req->b, req->n, out);
}

/* The one span of @req, as both decoders report it, is @line. */
static void one_span(const struct pb *req, const char *line)
{
	struct run r;

	assert_int_equal(both(req, &r), 0);
	assert_string_equal(r.log, line);
}

/* ---- the cases ---- */

/* Two resources in one ResourceSpans merge: their attributes are one list. */
static void merged_resource(void **state)
{
	struct pb rs = { .n = 0 }, kv, span, req;

	(void)state;
	span_with(&span, "op", NULL);
	kv_str(&kv, "service.namespace", "ns1");
	add_resource(&rs, &kv);
	kv_str(&kv, "service.name", "svc");
	add_resource(&rs, &kv);
	request(&req, &rs, &span);
	one_span(&req, "svc|ns1|op|2|0|100|200\n");

	/* the first service.name of the merged list counts */
	kv_str(&kv, "service.name", "second");
	add_resource(&rs, &kv);
	request(&req, &rs, &span);
	one_span(&req, "svc|ns1|op|2|0|100|200\n");

	/* a resource after the spans still names them */
	rs.n = 0;
	request(&req, NULL, &span);
	kv_str(&kv, "service.name", "late");
	req.n = 0;
	{
		struct pb ss = { .n = 0 }, r2 = { .n = 0 };

		put_msg(&ss, 2, &span);
		put_msg(&r2, 2, &ss);
		add_resource(&r2, &kv);
		put_msg(&req, 1, &r2);
	}
	one_span(&req, "late||op|2|0|100|200\n");
}

/* Two statuses merge: protobuf-c keeps the later one's code, given or not. */
static void status_twice(void **state)
{
	struct pb extra = { .n = 0 }, st = { .n = 0 }, span, req;

	(void)state;
	put_uint(&st, 3, 2);
	put_msg(&extra, 15, &st);
	st.n = 0;
	put_uint(&st, 3, 1);
	put_msg(&extra, 15, &st);
	span_with(&span, "op", &extra);
	request(&req, NULL, &span);
	one_span(&req, "unknown_service||op|2|1|100|200\n");

	/* the later status has only a message: code 0, not the earlier 2 */
	extra.n = 0;
	st.n = 0;
	put_uint(&st, 3, 2);
	put_msg(&extra, 15, &st);
	st.n = 0;
	put_str(&st, 2, "later");
	put_msg(&extra, 15, &st);
	span_with(&span, "op", &extra);
	request(&req, NULL, &span);
	one_span(&req, "unknown_service||op|2|0|100|200\n");

	/* one status, its code twice: the last */
	extra.n = 0;
	st.n = 0;
	put_uint(&st, 3, 2);
	put_uint(&st, 3, 1);
	put_msg(&extra, 15, &st);
	span_with(&span, "op", &extra);
	request(&req, NULL, &span);
	one_span(&req, "unknown_service||op|2|1|100|200\n");
}

/* service.name's value with @any's bytes as its AnyValues (one field 2 each). */
static void service_values(struct pb *req, const struct pb *anys, size_t n)
{
	struct pb kv = { .n = 0 }, rs = { .n = 0 }, span;

	put_str(&kv, 1, "service.name");
	for (size_t i = 0; i < n; i++)
		put_msg(&kv, 2, &anys[i]);
	add_resource(&rs, &kv);
	span_with(&span, "op", NULL);
	request(req, &rs, &span);
}

/* AnyValue's oneof: the last member wins; values given twice merge (or not). */
static void oneof_last_wins(void **state)
{
	struct pb any[3], req;

	(void)state;
	memset(any, 0, sizeof(any));
	/* string then int: not a string */
	put_str(&any[0], 1, "str");
	put_uint(&any[0], 3, 7);
	service_values(&req, any, 1);
	one_span(&req, "unknown_service||op|2|0|100|200\n");

	/* int then string: the string */
	any[0].n = 0;
	put_uint(&any[0], 3, 7);
	put_str(&any[0], 1, "svc");
	service_values(&req, any, 1);
	one_span(&req, "svc||op|2|0|100|200\n");

	/* a string twice: the last */
	any[0].n = 0;
	put_str(&any[0], 1, "one");
	put_str(&any[0], 1, "two");
	service_values(&req, any, 1);
	one_span(&req, "two||op|2|0|100|200\n");

	/* two values: the later's member */
	any[0].n = 0;
	put_str(&any[0], 1, "one");
	any[1].n = 0;
	put_str(&any[1], 1, "two");
	service_values(&req, any, 2);
	one_span(&req, "two||op|2|0|100|200\n");

	/* a string, then a value without a member: protobuf-c loses the string */
	any[1].n = 0;
	service_values(&req, any, 2);
	one_span(&req, "unknown_service||op|2|0|100|200\n");

	/* a bool, then a string value */
	any[0].n = 0;
	put_uint(&any[0], 2, 1);
	put_str(&any[1], 1, "svc");
	service_values(&req, any, 2);
	one_span(&req, "svc||op|2|0|100|200\n");

	/* two values without a member do not merge: protobuf-c fails */
	any[0].n = any[1].n = 0;
	service_values(&req, any, 2);
	assert_int_equal(both(&req, NULL), -EBADMSG);

	/* nor a string's remains and a third value without one */
	put_str(&any[0], 1, "str");
	any[2].n = 0;
	service_values(&req, any, 3);
	assert_int_equal(both(&req, NULL), -EBADMSG);

	/* empty bytes are lost like a string; bytes with some are kept */
	any[0].n = 0;
	put_bytes(&any[0], 7, "", 0);
	service_values(&req, any, 3);
	assert_int_equal(both(&req, NULL), -EBADMSG);
	any[0].n = 0;
	put_bytes(&any[0], 7, "b", 1);
	service_values(&req, any, 3);
	one_span(&req, "unknown_service||op|2|0|100|200\n");

	/* bytes followed by an unknown empty field are still bytes with some
	 * (found reading the walker: it took the unknown field's length) */
	any[0].n = 0;
	put_bytes(&any[0], 7, "b", 1);
	put_bytes(&any[0], 9, "", 0);
	service_values(&req, any, 3);
	one_span(&req, "unknown_service||op|2|0|100|200\n");
	any[0].n = 0;
	put_bytes(&any[0], 7, "", 0);
	put_bytes(&any[0], 9, "x", 1);
	service_values(&req, any, 3);
	assert_int_equal(both(&req, NULL), -EBADMSG);
	/* the same in a value that also holds a list: walked with frames */
	any[0].n = 0;
	put_bytes(&any[0], 6, "", 0);
	put_bytes(&any[0], 7, "b", 1);
	put_bytes(&any[0], 9, "", 0);
	service_values(&req, any, 3);
	one_span(&req, "unknown_service||op|2|0|100|200\n");

	/* a bool kept through values without a member, then a string */
	any[0].n = 0;
	put_uint(&any[0], 2, 1);
	put_str(&any[2], 1, "svc");
	service_values(&req, any, 3);
	one_span(&req, "svc||op|2|0|100|200\n");
}

/* Strings are C strings to protobuf-c: cut at their first NUL. */
static void nul_in_strings(void **state)
{
	struct pb kv = { .n = 0 }, any = { .n = 0 }, rs = { .n = 0 }, span = { .n = 0 }, req;

	(void)state;
	put_bytes(&kv, 1, "service.name\0tail", 17);
	put_bytes(&any, 1, "svc\0tail", 8);
	put_msg(&kv, 2, &any);
	add_resource(&rs, &kv);
	put_bytes(&span, 5, "na\0me", 5);
	put_fixed64(&span, 7, 100);
	put_fixed64(&span, 8, 200);
	request(&req, &rs, &span);
	one_span(&req, "svc||na|0|0|100|200\n");

	/* a name that is all NUL is empty */
	span.n = 0;
	put_bytes(&span, 5, "\0x", 2);
	put_fixed64(&span, 7, 100);
	put_fixed64(&span, 8, 200);
	request(&req, &rs, &span);
	one_span(&req, "svc||unnamed|0|0|100|200\n");

	/* a key cut to another: "service.nam" is not service.name */
	kv.n = 0;
	put_bytes(&kv, 1, "service.nam\0e", 13);
	put_msg(&kv, 2, &any);
	rs.n = 0;
	add_resource(&rs, &kv);
	request(&req, &rs, &span);
	one_span(&req, "unknown_service||unnamed|0|0|100|200\n");
}

/* Enums are int32: a varint's low 32 bits, negative ones as 10 bytes. */
static void kind_varints(void **state)
{
	static const struct { uint64_t v; const char *line; int refused; } k[] = {
		{ UINT64_MAX, NULL, 1 },			/* -1 in 10 bytes */
		{ (uint64_t)-6, NULL, 1 },
		{ 0x100000003ull, "unknown_service||op|3|0|100|200\n", 0 },
		{ 0xffffffff00000001ull, "unknown_service||op|1|0|100|200\n", 0 },
		{ 0x80000000ull, NULL, 1 },			/* INT32_MIN */
		{ 6, NULL, 1 },
	};
	struct pb extra, span, req;
	struct run r;

	(void)state;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		extra.n = 0;
		put_uint(&extra, 6, k[i].v);	/* after span_with's kind 2: the last wins */
		span_with(&span, "op", &extra);
		request(&req, NULL, &span);
		assert_int_equal(both(&req, &r), 0);
		if (k[i].refused) {
			assert_int_equal(r.res.rejected_by[OTLP_REJECT_KIND], 1);
			assert_int_equal(r.calls, 0);
		} else {
			assert_string_equal(r.log, k[i].line);
		}
	}
	/* a status code likewise */
	extra.n = 0;
	{
		struct pb st = { .n = 0 };

		put_uint(&st, 3, 0x100000002ull);
		put_msg(&extra, 15, &st);
	}
	span_with(&span, "op", &extra);
	request(&req, NULL, &span);
	one_span(&req, "unknown_service||op|2|2|100|200\n");
}

/* A known field of the wrong wire type fails protobuf-c's unpack, however deep. */
static void wrong_wire_types(void **state)
{
	struct pb any = { .n = 0 }, arr = { .n = 0 }, outer = { .n = 0 }, kv = { .n = 0 };
	struct pb extra = { .n = 0 }, span, req;

	(void)state;
	/* an attribute's value: array of one AnyValue whose int_value is fixed64 */
	put_fixed64(&any, 3, 5);
	put_msg(&arr, 1, &any);
	put_msg(&outer, 5, &arr);
	put_str(&kv, 1, "k");
	put_msg(&kv, 2, &outer);
	put_msg(&extra, 9, &kv);
	span_with(&span, "op", &extra);
	request(&req, NULL, &span);
	assert_int_equal(both(&req, NULL), -EBADMSG);

	/* the same as a varint is fine */
	any.n = arr.n = outer.n = kv.n = extra.n = 0;
	put_uint(&any, 3, 5);
	put_msg(&arr, 1, &any);
	put_msg(&outer, 5, &arr);
	put_str(&kv, 1, "k");
	put_msg(&kv, 2, &outer);
	put_msg(&extra, 9, &kv);
	span_with(&span, "op", &extra);
	request(&req, NULL, &span);
	one_span(&req, "unknown_service||op|2|0|100|200\n");

	/* a bool, which protobuf-c takes from any wire type */
	static const unsigned wires[] = { 0, 1, 2, 5 };
	for (size_t i = 0; i < 4; i++) {
		any.n = kv.n = extra.n = 0;
		if (wires[i] == 0)
			put_uint(&any, 2, 1);
		else if (wires[i] == 1)
			put_fixed64(&any, 2, 1);
		else if (wires[i] == 2)
			put_bytes(&any, 2, "\x01", 1);
		else {
			put_tag(&any, 2, 5);
			for (int j = 0; j < 4; j++)
				put_byte(&any, 1);
		}
		put_str(&kv, 1, "k");
		put_msg(&kv, 2, &any);
		put_msg(&extra, 9, &kv);
		span_with(&span, "op", &extra);
		request(&req, NULL, &span);
		one_span(&req, "unknown_service||op|2|0|100|200\n");
	}

	/* fields of the span itself: kind length-delimited, start a varint,
	 * flags fixed64, a dropped count fixed32, the status a varint */
	for (int i = 0; i < 5; i++) {
		extra.n = 0;
		if (i == 0)
			put_bytes(&extra, 6, "\x02", 1);
		else if (i == 1)
			put_uint(&extra, 7, 100);
		else if (i == 2)
			put_fixed64(&extra, 16, 1);
		else if (i == 3) {
			put_tag(&extra, 10, 5);
			for (int j = 0; j < 4; j++)
				put_byte(&extra, 0);
		} else
			put_uint(&extra, 15, 1);
		span_with(&span, "op", &extra);
		request(&req, NULL, &span);
		assert_int_equal(both(&req, NULL), -EBADMSG);
	}

	/* the request's resource_spans as a varint */
	req.n = 0;
	put_uint(&req, 1, 3);
	assert_int_equal(both(&req, NULL), -EBADMSG);
}

/* Unknown fields of every wire type are skipped; groups and 6, 7 are not wire types here. */
static void unknown_fields(void **state)
{
	struct pb extra, span, req;

	(void)state;
	for (unsigned wire = 0; wire < 8; wire++) {
		extra.n = 0;
		switch (wire) {
		case 0:
			put_uint(&extra, 99, UINT64_MAX);
			break;
		case 1:
			put_fixed64(&extra, 17, 1);
			break;
		case 2:
			put_str(&extra, 1000000, "skipped");
			break;
		case 5:
			put_tag(&extra, 31, 5);
			for (int j = 0; j < 4; j++)
				put_byte(&extra, 0xff);
			break;
		default:
			put_tag(&extra, 99, wire);
			break;
		}
		span_with(&span, "op", &extra);
		request(&req, NULL, &span);
		if (wire == 0 || wire == 1 || wire == 2 || wire == 5)
			one_span(&req, "unknown_service||op|2|0|100|200\n");
		else
			assert_int_equal(both(&req, NULL), -EBADMSG);
	}
	/* at the request's top, and field numbers at the limits */
	req.n = 0;
	put_uint(&req, 2, 1);
	put_str(&req, 0x1fffffff, "x");
	assert_int_equal(both(&req, NULL), 0);
	req.n = 0;
	put_uint(&req, 0x20000000, 1);		/* over 29 bits: refused by the pre-scan */
	assert_int_equal(both(&req, NULL), -EBADMSG);
	req.n = 0;
	put_byte(&req, 0x80);			/* field 0, in two bytes */
	put_byte(&req, 0x00);
	put_byte(&req, 0x00);
	assert_int_equal(both(&req, NULL), -EBADMSG);
}

/* An attribute value nested @depth deep (array of array ...) on a span. */
static void nested(struct pb *req, int depth)
{
	static struct pb a, b;
	struct pb kv = { .n = 0 }, extra = { .n = 0 }, span;

	a.n = 0;
	put_str(&a, 1, "leaf");
	for (int i = 1; i < depth; i++) {
		b.n = 0;
		put_msg(&b, 1, &a);		/* ArrayValue.values */
		a.n = 0;
		put_msg(&a, 5, &b);		/* AnyValue.array_value */
	}
	put_str(&kv, 1, "k");
	put_msg(&kv, 2, &a);
	put_msg(&extra, 9, &kv);
	span_with(&span, "op", &extra);
	request(req, NULL, &span);
}

static void depth(void **state)
{
	struct pb req;
	struct run r;

	(void)state;
	nested(&req, OTLP_DEPTH_MAX);
	one_span(&req, "unknown_service||op|2|0|100|200\n");
	nested(&req, OTLP_DEPTH_MAX + 1);
	assert_int_equal(both(&req, &r), -E2BIG);
	assert_non_null(strstr(r.res.message, "nested deeper"));
}

/* A real SDK request (20 attributes, 3 events, 2 links), cut at every length
 * and with every byte changed: the two agree on each. */
static void truncations(void **state)
{
	static uint8_t buf[2048];
	FILE *f = fopen("tests/fuzz/corpus/otlp_pb_diff/sdk-rich-1", "rb");
	size_t n, ok = 0;
	struct run r;

	(void)state;
	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 800 && n < sizeof(buf));
	assert_int_equal(both_raw(buf, n, &r), 0);
	assert_int_equal(r.res.accepted, 1);
	assert_non_null(strstr(r.log, "rich|fuzz|GET /api/items/0|2|2|"));
	for (size_t len = 0; len < n; len++)
		ok += both_raw(buf, len, NULL) == 0;
	assert_true(ok >= 1);	/* the empty request */
	for (size_t i = 0; i < n; i++) {
		uint8_t was = buf[i];

		for (unsigned x = 1; x < 256; x <<= 1) {
			buf[i] = was ^ (uint8_t)x;
			both_raw(buf, n, NULL);
		}
		buf[i] = was;
	}
}

/* The walker allocates nothing: no budget to be over (protobuf-c's -ENOMEM). */
static void no_budget(void **state)
{
	static uint8_t b[2 * 20000 + 16];
	struct otlp_result res;
	struct otlp_ctx c = { .fn = record, .res = &res };
	struct run r;
	size_t at = 0;

	(void)state;
	/* one resource, one scope, 20000 empty spans */
	b[at++] = 0x0a;
	at += 4;
	b[at++] = 0x12;
	at += 4;
	for (int i = 0; i < 20000; i++) {
		b[at++] = 0x12;
		b[at++] = 0x00;
	}
	for (int k = 0; k < 2; k++) {
		size_t pos = k == 0 ? 1 : 6, n = at - pos - 4;

		for (int j = 0; j < 4; j++, n >>= 7)
			b[pos + j] = (uint8_t)((n & 0x7f) | (j < 3 ? 0x80 : 0));
	}
	c.arg = &r;
	memset(&r, 0, sizeof(r));
	memset(&res, 0, sizeof(res));
	assert_int_equal(otlp_decode_pb_ref(b, at, 64u << 10, &c), -ENOMEM);
	memset(&res, 0, sizeof(res));
	assert_int_equal(otlp_decode_pb(b, at, 64u << 10, &c), 0);
	assert_int_equal(res.rejected_by[OTLP_REJECT_NO_START], 20000);
	assert_int_equal(both_raw(b, at, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(merged_resource),
		cmocka_unit_test(status_twice),
		cmocka_unit_test(oneof_last_wins),
		cmocka_unit_test(nul_in_strings),
		cmocka_unit_test(kind_varints),
		cmocka_unit_test(wrong_wire_types),
		cmocka_unit_test(unknown_fields),
		cmocka_unit_test(depth),
		cmocka_unit_test(truncations),
		cmocka_unit_test(no_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
