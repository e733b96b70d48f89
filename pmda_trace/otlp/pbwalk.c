/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP protobuf requests to spans by walking the wire format (otlp_priv.h:
 * otlp_decode_pb). What a span needs is a handful of fields: the
 * resource's service.name and service.namespace strings, and each span's
 * name, kind, start and end times and status code. Unpacking the whole
 * request (ref_pb.c, protobuf-c) costs an allocation for every attribute,
 * event and link; the walker reads those few fields in place and skips the
 * rest by its length, allocating nothing but a bounded stack.
 *
 * It gives what protobuf-c's unpack gave (ref_pb.c, with its pre-scan),
 * for every input, as tests/fuzz/fuzz_otlp_pb_diff.c checks, in two
 * passes over the bytes:
 *
 * The check, whole, before any span is reported: the pre-scan's framing
 * and nesting (the same walk with an explicit stack, the same errors and
 * messages), then what protobuf-c 1.4.1 fails an unpack for in a
 * well-framed request, anywhere in it since protobuf-c unpacks every
 * known message field: a known field of a wire type not its type's (but
 * a bool, which protobuf-c reads from any wire type), and a key-value
 * whose values do not merge (below). Unknown fields are skipped unread,
 * as protobuf-c keeps them. An AnyValue that holds no message, the usual
 * one, is checked in place without a frame.
 *
 * Then the reading, skipping what is not read by its length, with the
 * meaning protobuf-c's structs give:
 *  - a scalar or string given twice: the last; a string is a C string
 *    there, so a name, key or value stops at its first NUL;
 *  - an enum: the varint's low 32 bits, as an int32;
 *  - a singular message given twice is merged: two resources of one
 *    ResourceSpans have their attributes in one list, in order; two
 *    statuses give the later one's code, 0 if it has none (protobuf-c
 *    merges a proto3 scalar by keeping the later message's, set or not);
 *  - AnyValue's fields are its oneof: in one message the last one given
 *    is its value. A key-value's values given twice merge: a member of
 *    the later one wins; without one, protobuf-c keeps the earlier's,
 *    but for a string or empty bytes, which it loses, and two values
 *    without a member fail the unpack. So a key's value is a string if
 *    its last value's last member is string_value;
 *  - a resource's service is its first attribute with that key, the
 *    value of which is a string or nothing.
 *
 * The field numbers, wire types and nesting come from otlp_fields.h.
 * -ENOMEM, which ref_pb.c returns for a request whose unpacked form is
 * over its memory budget, cannot happen here: @mem_max is not used.
 *
 * Threads: reentrant, no state.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "otlp.h"
#include "otlp_fields.h"
#include "otlp_priv.h"

/* ---- the field table, by message and number ---- */

enum {
#define OTLP_X(type, wire) OTLP_PW_WIRE_##type = wire,
	OTLP_TYPES(OTLP_X)
#undef OTLP_X
};

/*
 * What a field's tag (its key: number << 3 | wire type) means in a
 * message, for keys below OTLP_PW_KEYS: the field (0: unknown), the
 * message to enter (a message field sent length-delimited), and whether
 * protobuf-c refuses it (a known field of another wire type than its
 * type's, but a bool, which protobuf-c reads from any). Wire types 3, 4,
 * 6 and 7 are refused by the framing whatever the field.
 */
struct otlp_pw_key {
	unsigned char field;	/* enum otlp_field + 1 */
	unsigned char child;	/* enum otlp_msg, or OTLP_M_LEAF */
	unsigned char wrong;
};

/* Field numbers up to 31 are looked up (a field past it will not compile). */
#define OTLP_PW_KEYS	(32 << 3)

#define OTLP_PW_KEY(m, name, num, t, c, w) \
	[OTLP_M_##m][(num) << 3 | (w)] = { OTLP_F_##m##_##name + 1, \
		(w) == 2 ? OTLP_M_##c : OTLP_M_LEAF, \
		(w) != OTLP_PW_WIRE_##t && OTLP_T_##t != OTLP_T_BOOL },

static const struct otlp_pw_key otlp_pw_keys[OTLP_M_N][OTLP_PW_KEYS] = {
#define OTLP_X(m, name, num, t, c, j, alt) \
	OTLP_PW_KEY(m, name, num, t, c, 0) OTLP_PW_KEY(m, name, num, t, c, 1) \
	OTLP_PW_KEY(m, name, num, t, c, 2) OTLP_PW_KEY(m, name, num, t, c, 5)
	OTLP_FIELDS(OTLP_X)
#undef OTLP_X
};

#undef OTLP_PW_KEY

_Static_assert(OTLP_F_N < 255, "a key holds a field + 1 in a byte");

static const struct otlp_pw_key otlp_pw_unknown;

/* What @key means in @m. */
static inline const struct otlp_pw_key *otlp_pw_key(enum otlp_msg m, uint64_t key)
{
	return key < OTLP_PW_KEYS ? &otlp_pw_keys[m][key] : &otlp_pw_unknown;
}

/* ---- the check ---- */

/*
 * The deepest a well-formed request nests messages: request, resource
 * spans, scope spans, span, event, key-value, then per AnyValue level at
 * most three (AnyValue, KeyValueList, KeyValue).
 */
#define OTLP_PW_FRAMES	(8 + 3 * OTLP_DEPTH_MAX)

/*
 * A field's tag at *@pos before @end: its key into *@key (*@pos past it);
 * false if it is not one (over five bytes, field 0 or over 29 bits).
 */
static inline bool otlp_pw_tag(const uint8_t *b, size_t *pos, size_t end, uint64_t *key)
{
	return otlp_varint(b, pos, end, 5, key) && *key >= 8 && *key >> 3 <= 0x1fffffff;
}

/*
 * The value of a field of wire type @wire at *@pos before @end: a varint
 * or fixed value skipped, or for wire type 2 its length into *@n and
 * *@pos at its start. False if it is not well framed (or a group or wire
 * type 6 or 7).
 */
static inline bool otlp_pw_value(const uint8_t *b, size_t *pos, size_t end, unsigned wire,
				 uint64_t *n)
{
	switch (wire) {
	case 0:
		return otlp_varint(b, pos, end, 10, n);
	case 1:
	case 5:
		*n = wire == 1 ? 8 : 4;
		if (end - *pos < *n)
			return false;
		*pos += *n;
		return true;
	case 2:
		return otlp_varint(b, pos, end, 5, n) && *n <= end - *pos;
	default:
		return false;
	}
}

/* A message being checked: where it ends, and for a value what it holds. */
struct otlp_pw_frame {
	size_t end;
	unsigned char m;	/* enum otlp_msg */
	unsigned char member;	/* ANY: its oneof's member (field + 1), 0 if none;
				   KV: its values' so far, merged (OTLP_PW_NOVALUE if none) */
	bool empty;		/* member is bytes, empty */
};

#define OTLP_PW_NOVALUE	0xff

/*
 * A key-value's value given again (@v after @kv's), merged as protobuf-c
 * merges an AnyValue: a member in @v wins; without one, @kv's member
 * stays but for a string or empty bytes, which protobuf-c loses (its
 * empty value is not the one a member-less AnyValue holds). Two values
 * without a member do not merge: protobuf-c fails the unpack (false).
 */
static inline bool otlp_pw_merge_value(struct otlp_pw_frame *kv, const struct otlp_pw_frame *v)
{
	enum otlp_type t;

	if (kv->member == OTLP_PW_NOVALUE || v->member != 0) {
		kv->member = v->member;
		kv->empty = v->empty;
		return true;
	}
	if (kv->member == 0)
		return false;
	t = otlp_fields[kv->member - 1].type;
	if (t == OTLP_T_STRING || (t == OTLP_T_BYTES && kv->empty))
		kv->member = 0;
	return true;
}

/*
 * otlp_pw_any_leaves - the usual AnyValue, one that holds no message (a
 * string, a number, a bool, bytes), checked in place without a frame:
 * the one in [@pos, @end) of @b, its member into @v, a known field of the
 * wrong wire type into *@wrong. Returns false, having changed nothing,
 * for a value that holds an array or a list or is not well framed: the
 * caller walks it as any message, with its frames and its errors.
 */
static inline bool otlp_pw_any_leaves(const uint8_t *b, size_t pos, size_t end,
				      struct otlp_pw_frame *v, bool *wrong)
{
	struct otlp_pw_frame r = { .member = 0, .empty = false };
	bool bad = false;

	while (pos < end) {
		const struct otlp_pw_key *k;
		uint64_t key, n;

		if (!otlp_pw_tag(b, &pos, end, &key) || !otlp_pw_value(b, &pos, end, key & 7, &n))
			return false;
		k = otlp_pw_key(OTLP_M_ANY, key);
		bad |= k->wrong;
		if (k->field) {		/* each field of AnyValue is its oneof's */
			r.member = k->field;
			r.empty = false;
		}
		if ((key & 7) == 2) {
			if (k->child != OTLP_M_LEAF)
				return false;
			if (k->field)
				r.empty = n == 0;	/* a member's; not an unknown field's */
			pos += n;
		}
	}
	v->member = r.member;
	v->empty = r.empty;
	*wrong |= bad;
	return true;
}

/*
 * otlp_pw_check - check @len bytes of request at @b whole: framing (tags
 * and lengths in at most five bytes, varints in ten and 64 bits, wire
 * types 0, 1, 2 and 5), AnyValue nesting, then what protobuf-c refuses
 * in a well-framed request: a known field of the wrong wire type, a
 * key-value's values that do not merge. Returns 0, -EBADMSG or -E2BIG,
 * with why in @why.
 */
static int otlp_pw_check(const uint8_t *b, size_t len, char *why, size_t whylen)
{
	struct otlp_pw_frame st[OTLP_PW_FRAMES];
	int top = 0, anys = 0;
	bool wrong = false;	/* protobuf-c would fail the unpack */
	enum otlp_msg m = OTLP_M_REQ;	/* st[top]'s, as end */
	size_t pos = 0, end = len;

	st[0].m = OTLP_M_REQ;
	st[0].end = len;
	for (;;) {
		const struct otlp_pw_key *k;
		size_t at = pos;
		uint64_t key, n;

		if (pos == end) {
			if (m == OTLP_M_ANY) {
				anys--;
				if (st[top - 1].m == OTLP_M_KV && !otlp_pw_merge_value(&st[top - 1], &st[top]))
					wrong = true;
			}
			if (--top < 0)
				break;
			m = (enum otlp_msg)st[top].m;
			end = st[top].end;
			continue;
		}
		if (!otlp_pw_tag(b, &pos, end, &key)) {
			snprintf(why, whylen, "bad field tag at byte %zu", at);
			return -EBADMSG;
		}
		k = otlp_pw_key(m, key);
		wrong |= k->wrong;
		if (m == OTLP_M_ANY && k->field) {	/* each field of AnyValue is its oneof's */
			st[top].member = k->field;
			st[top].empty = false;
		}
		if (!otlp_pw_value(b, &pos, end, key & 7, &n)) {
			snprintf(why, whylen, "bad field at byte %zu", at);
			return -EBADMSG;
		}
		if ((key & 7) != 2)
			continue;
		if (k->child == OTLP_M_LEAF) {
			if (m == OTLP_M_ANY && k->field)
				st[top].empty = n == 0;	/* a member's; not an unknown field's */
			pos += n;
			continue;
		}
		if (k->child == OTLP_M_ANY) {
			struct otlp_pw_frame v;

			if (anys + 1 > OTLP_DEPTH_MAX) {
				snprintf(why, whylen, "values nested deeper than %d", OTLP_DEPTH_MAX);
				return -E2BIG;
			}
			if (otlp_pw_any_leaves(b, pos, pos + n, &v, &wrong)) {
				if (m == OTLP_M_KV && !otlp_pw_merge_value(&st[top], &v))
					wrong = true;
				pos += n;
				continue;
			}
			anys++;
		}
		if (top + 1 >= OTLP_PW_FRAMES) {	/* cannot happen: see OTLP_PW_FRAMES */
			snprintf(why, whylen, "messages nested too deep");
			return -E2BIG;
		}
		m = (enum otlp_msg)k->child;
		end = pos + n;
		top++;
		st[top].m = m;
		st[top].end = end;
		st[top].member = m == OTLP_M_KV ? OTLP_PW_NOVALUE : 0;
		st[top].empty = false;
	}
	if (wrong) {
		snprintf(why, whylen, "request does not decode");
		return -EBADMSG;
	}
	return 0;
}

/* ---- the reading, of a checked request ---- */

/* A message's bytes, read field by field. */
struct otlp_pw_msg {
	const uint8_t *b;
	size_t pos, end;
	enum otlp_msg m;
};

/* One field: which (OTLP_F_N if unknown), and its value or bytes. */
struct otlp_pw_item {
	enum otlp_field id;
	uint64_t v;		/* a varint or a fixed value */
	const uint8_t *p;	/* length-delimited: the bytes */
	size_t n;
};

static inline struct otlp_pw_msg otlp_pw_open(const uint8_t *p, size_t n, enum otlp_msg m)
{
	struct otlp_pw_msg r = { .b = p, .pos = 0, .end = n, .m = m };

	return r;
}

/* The next field of @r into @it; false at the end (or on bytes the check refused).
 * Inlined into each loop over fields: as a call it was a fifth of the time. */
static inline __attribute__((always_inline)) bool otlp_pw_next(struct otlp_pw_msg *r,
								struct otlp_pw_item *it)
{
	const struct otlp_pw_key *k;
	uint64_t key, n;

	if (r->pos >= r->end || !otlp_varint(r->b, &r->pos, r->end, 5, &key))
		return false;
	k = otlp_pw_key(r->m, key);
	it->id = k->field ? (enum otlp_field)(k->field - 1) : OTLP_F_N;
	switch (key & 7) {
	case 0:
		return otlp_varint(r->b, &r->pos, r->end, 10, &it->v);
	case 1:
	case 5:
		n = (key & 7) == 1 ? 8 : 4;
		if (r->end - r->pos < n)
			return false;
		it->v = 0;
		for (unsigned i = 0; i < n; i++)
			it->v |= (uint64_t)r->b[r->pos + i] << (8 * i);
		r->pos += n;
		return true;
	case 2:
		if (!otlp_varint(r->b, &r->pos, r->end, 5, &n) || n > r->end - r->pos)
			return false;
		it->p = r->b + r->pos;
		it->n = n;
		r->pos += n;
		return true;
	default:
		return false;
	}
}

/* @n bytes at @p as protobuf-c's C string holds them: up to the first NUL. */
static inline size_t otlp_pw_cstr(const uint8_t *p, size_t n)
{
	const uint8_t *z = memchr(p, 0, n);

	return z != NULL ? (size_t)(z - p) : n;
}

/* An AnyValue's string (*@s, *@n) if its last member is string_value; false if not. */
static bool otlp_pw_any_string(const uint8_t *p, size_t n, const uint8_t **s, size_t *sn)
{
	struct otlp_pw_msg r = otlp_pw_open(p, n, OTLP_M_ANY);
	struct otlp_pw_item it = { .id = OTLP_F_N };
	enum otlp_field last = OTLP_F_N;

	while (otlp_pw_next(&r, &it)) {
		if (it.id == OTLP_F_N)
			continue;
		last = it.id;	/* every field of AnyValue is a member of its oneof */
		if (it.id == OTLP_F_ANY_STRING) {
			*s = it.p;
			*sn = it.n;
		}
	}
	if (last != OTLP_F_ANY_STRING)
		return false;
	*sn = otlp_pw_cstr(*s, *sn);
	return true;
}

/* What a resource gives its spans: its first service.name and service.namespace. */
struct otlp_pw_svc {
	bool seen[2];		/* the key came: its value or nothing is final */
	const uint8_t *s[2];	/* the value's string, NULL if not one */
	size_t n[2];
};

static const char *const otlp_pw_svc_keys[2] = { OTLP_SERVICE_KEY, OTLP_NAMESPACE_KEY };

/* A resource attribute (a KeyValue): kept if the first of its key. */
static void otlp_pw_attr(struct otlp_pw_svc *sv, const uint8_t *p, size_t n)
{
	struct otlp_pw_msg r = otlp_pw_open(p, n, OTLP_M_KV);
	struct otlp_pw_item it = { .id = OTLP_F_N };
	const uint8_t *key = NULL, *val = NULL;
	size_t keylen = 0, vallen = 0;

	while (otlp_pw_next(&r, &it)) {
		if (it.id == OTLP_F_KV_KEY) {
			key = it.p;
			keylen = it.n;
		} else if (it.id == OTLP_F_KV_VALUE) {
			val = it.p;	/* merged with earlier ones: see the top */
			vallen = it.n;
		}
	}
	if (key == NULL)
		return;		/* "", neither key */
	keylen = otlp_pw_cstr(key, keylen);
	for (int k = 0; k < 2; k++) {
		if (sv->seen[k] || keylen != strlen(otlp_pw_svc_keys[k]) ||
		    memcmp(key, otlp_pw_svc_keys[k], keylen) != 0)
			continue;
		sv->seen[k] = true;
		if (val == NULL || !otlp_pw_any_string(val, vallen, &sv->s[k], &sv->n[k]))
			sv->s[k] = NULL;
	}
}

/* The service and namespace of a ResourceSpans (@p, @n) into @c. */
static void otlp_pw_service(struct otlp_ctx *c, const uint8_t *p, size_t n)
{
	struct otlp_pw_msg rs = otlp_pw_open(p, n, OTLP_M_RS), res;
	struct otlp_pw_item it = { .id = OTLP_F_N }, at = { .id = OTLP_F_N };
	struct otlp_pw_svc sv = { { false, false }, { NULL, NULL }, { 0, 0 } };

	while (otlp_pw_next(&rs, &it) && !(sv.seen[0] && sv.seen[1])) {
		if (it.id != OTLP_F_RS_RESOURCE)
			continue;
		/* resources given twice merge: their attributes in order */
		res = otlp_pw_open(it.p, it.n, OTLP_M_RES);
		while (otlp_pw_next(&res, &at))
			if (at.id == OTLP_F_RES_ATTRIBUTES)
				otlp_pw_attr(&sv, at.p, at.n);
	}
	otlp_clean_name(c->service, sv.s[0] ? (const char *)sv.s[0] : "", sv.s[0] ? sv.n[0] : 0,
			OTLP_NO_SERVICE);
	otlp_clean_name(c->ns, sv.s[1] ? (const char *)sv.s[1] : "", sv.s[1] ? sv.n[1] : 0, NULL);
}

/* One span (@p, @n), reported. */
static void otlp_pw_span(struct otlp_ctx *c, const uint8_t *p, size_t n)
{
	struct otlp_pw_msg r = otlp_pw_open(p, n, OTLP_M_SPAN), st;
	struct otlp_pw_item it = { .id = OTLP_F_N }, sf = { .id = OTLP_F_N };
	const uint8_t *name = (const uint8_t *)"";
	size_t namelen = 0;
	int32_t kind = 0, status = 0;
	uint64_t start = 0, end = 0;

	while (otlp_pw_next(&r, &it)) {
		switch (it.id) {
		case OTLP_F_SPAN_NAME:
			name = it.p;
			namelen = it.n;
			break;
		case OTLP_F_SPAN_KIND:
			kind = (int32_t)(uint32_t)it.v;
			break;
		case OTLP_F_SPAN_START:
			start = it.v;
			break;
		case OTLP_F_SPAN_END:
			end = it.v;
			break;
		case OTLP_F_SPAN_STATUS:
			/* statuses merged: the later one's code, given or not */
			status = 0;
			st = otlp_pw_open(it.p, it.n, OTLP_M_STATUS);
			while (otlp_pw_next(&st, &sf))
				if (sf.id == OTLP_F_STATUS_CODE)
					status = (int32_t)(uint32_t)sf.v;
			break;
		default:
			break;
		}
	}
	otlp_span_out(c, (const char *)name, otlp_pw_cstr(name, namelen), kind, status, start, end);
}

int otlp_decode_pb(const uint8_t *body, size_t len, size_t mem_max, struct otlp_ctx *c)
{
	struct otlp_pw_msg req = otlp_pw_open(body, len, OTLP_M_REQ), rs, ss;
	struct otlp_pw_item a = { .id = OTLP_F_N }, b = a, d = a;
	int rc;

	(void)mem_max;		/* nothing allocated */
	if ((rc = otlp_pw_check(body, len, c->res->message, sizeof(c->res->message))) < 0)
		return rc;
	while (otlp_pw_next(&req, &a)) {
		if (a.id != OTLP_F_REQ_RESOURCE_SPANS)
			continue;
		otlp_pw_service(c, a.p, a.n);
		rs = otlp_pw_open(a.p, a.n, OTLP_M_RS);
		while (otlp_pw_next(&rs, &b)) {
			if (b.id != OTLP_F_RS_SCOPE_SPANS)
				continue;
			ss = otlp_pw_open(b.p, b.n, OTLP_M_SS);
			while (otlp_pw_next(&ss, &d))
				if (d.id == OTLP_F_SS_SPANS)
					otlp_pw_span(c, d.p, d.n);
		}
	}
	return 0;
}
