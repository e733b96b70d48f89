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
 * for every input, as tests/fuzz/fuzz_otlp_pb_diff.c checks:
 *
 * The check, first and whole: the pre-scan's framing and nesting (the
 * same walk, the same errors and messages), and, as protobuf-c 1.4.1
 * fails an unpack for it, a known field of a wire type not its type's
 * (but a bool, which protobuf-c reads from any wire type); anywhere in
 * the request, since protobuf-c unpacks every known message field.
 * Unknown fields are skipped, unread, as protobuf-c keeps them.
 *
 * Then the reading, as protobuf-c leaves its structs:
 *  - a scalar or string given twice: the last; a string is a C string
 *    there, so a name or key stops at its first NUL;
 *  - an enum: the varint's low 32 bits, as an int32;
 *  - a singular message given twice is merged: two resources of one
 *    ResourceSpans have their attributes one list, in order; two statuses
 *    give the last one's code, 0 if it has none (protobuf-c merges a
 *    proto3 scalar by keeping the later message's, set or not);
 *  - AnyValue's members are its oneof: in one message the last one given
 *    is the value; a key-value's values given twice leave the last one's
 *    when it has a member, and when it has none protobuf-c keeps no
 *    string (it keeps the earlier member for other types, which are not
 *    read here): a key's value is a string if its last value's last
 *    member is string_value;
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

/* One known field as the walker needs it; field 0: none (unknown). */
struct otlp_pw_slot {
	unsigned char field;	/* enum otlp_field + 1 */
	unsigned char wire;	/* its wire type */
	unsigned char child;	/* enum otlp_msg of a message field, else OTLP_M_LEAF */
	unsigned char any_wire;	/* protobuf-c takes it from any wire type (bool) */
};

/* Field numbers below this are looked up (a field past it will not compile). */
#define OTLP_PW_NUMBERS	32

static const struct otlp_pw_slot otlp_pw_slots[OTLP_M_N][OTLP_PW_NUMBERS] = {
#define OTLP_X(m, name, num, t, c, j, alt) \
	[OTLP_M_##m][num] = { OTLP_F_##m##_##name + 1, OTLP_PW_WIRE_##t, OTLP_M_##c, \
			      OTLP_T_##t == OTLP_T_BOOL },
	OTLP_FIELDS(OTLP_X)
#undef OTLP_X
};

_Static_assert(OTLP_F_N < 255, "a slot holds a field + 1 in a byte");

/* Field @num of @m, or NULL if @m has none. */
static inline const struct otlp_pw_slot *otlp_pw_slot(enum otlp_msg m, uint64_t num)
{
	const struct otlp_pw_slot *s;

	if (num >= OTLP_PW_NUMBERS)
		return NULL;
	s = &otlp_pw_slots[m][num];
	return s->field ? s : NULL;
}

/* ---- varints ---- */

/* A varint of at most @max bytes at *@pos before @end into *@v; false if none. */
static inline bool otlp_pw_varint(const uint8_t *b, size_t *pos, size_t end, unsigned max,
				  uint64_t *v)
{
	uint64_t x = 0;

	if (*pos < end && b[*pos] < 0x80) {
		*v = b[(*pos)++];
		return true;
	}
	for (unsigned i = 0; i < max && *pos < end; i++) {
		uint8_t c = b[(*pos)++];

		if (i == 9 && c > 1)
			return false;	/* over 64 bits */
		x |= (uint64_t)(c & 0x7f) << (7 * i);
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

/* ---- the check ---- */

/*
 * The deepest a well-formed request nests messages: request, resource
 * spans, scope spans, span, event, key-value, then per AnyValue level at
 * most three (AnyValue, KeyValueList, KeyValue).
 */
#define OTLP_PW_FRAMES	(8 + 3 * OTLP_DEPTH_MAX)

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
static bool otlp_pw_merge_value(struct otlp_pw_frame *kv, const struct otlp_pw_frame *v)
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
	size_t pos = 0;

	st[0].m = OTLP_M_REQ;
	st[0].end = len;
	while (top >= 0) {
		struct otlp_pw_frame *fr = &st[top];
		size_t end = fr->end, at = pos;
		const struct otlp_pw_slot *f;
		uint64_t key, n;

		if (pos == end) {
			if (fr->m == OTLP_M_ANY) {
				anys--;
				if (fr[-1].m == OTLP_M_KV && !otlp_pw_merge_value(&fr[-1], fr))
					wrong = true;
			}
			top--;
			continue;
		}
		if (!otlp_pw_varint(b, &pos, end, 5, &key) || key >> 3 == 0 || key >> 3 > 0x1fffffff) {
			snprintf(why, whylen, "bad field tag at byte %zu", at);
			return -EBADMSG;
		}
		f = otlp_pw_slot((enum otlp_msg)fr->m, key >> 3);
		if (f != NULL) {
			if (f->wire != (key & 7) && !f->any_wire)
				wrong = true;
			if (fr->m == OTLP_M_ANY) {	/* each field of AnyValue is its oneof's */
				fr->member = f->field;
				fr->empty = false;
			}
		}
		switch (key & 7) {
		case 0:
			if (!otlp_pw_varint(b, &pos, end, 10, &n))
				goto bad;
			break;
		case 1:
			if (end - pos < 8)
				goto bad;
			pos += 8;
			break;
		case 5:
			if (end - pos < 4)
				goto bad;
			pos += 4;
			break;
		case 2:
			if (!otlp_pw_varint(b, &pos, end, 5, &n) || n > end - pos)
				goto bad;
			if (f == NULL || f->child == OTLP_M_LEAF) {
				if (f != NULL && fr->m == OTLP_M_ANY)
					fr->empty = n == 0;
				pos += n;
				break;
			}
			if (f->child == OTLP_M_ANY && ++anys > OTLP_DEPTH_MAX) {
				snprintf(why, whylen, "values nested deeper than %d", OTLP_DEPTH_MAX);
				return -E2BIG;
			}
			if (top + 1 >= OTLP_PW_FRAMES) {	/* cannot happen: see OTLP_PW_FRAMES */
				snprintf(why, whylen, "messages nested too deep");
				return -E2BIG;
			}
			top++;
			st[top].m = f->child;
			st[top].end = pos + n;
			st[top].member = f->child == OTLP_M_KV ? OTLP_PW_NOVALUE : 0;
			st[top].empty = false;
			break;
		default:
			goto bad;
		}
		continue;
bad:
		snprintf(why, whylen, "bad field at byte %zu", at);
		return -EBADMSG;
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

/* The next field of @r into @it; false at the end (or on bytes the check refused). */
static inline bool otlp_pw_next(struct otlp_pw_msg *r, struct otlp_pw_item *it)
{
	const struct otlp_pw_slot *f;
	uint64_t key, n;

	if (r->pos >= r->end || !otlp_pw_varint(r->b, &r->pos, r->end, 5, &key))
		return false;
	f = otlp_pw_slot(r->m, key >> 3);
	it->id = f != NULL ? (enum otlp_field)(f->field - 1) : OTLP_F_N;
	switch (key & 7) {
	case 0:
		return otlp_pw_varint(r->b, &r->pos, r->end, 10, &it->v);
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
		if (!otlp_pw_varint(r->b, &r->pos, r->end, 5, &n) || n > r->end - r->pos)
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
	struct otlp_pw_item it;
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
	struct otlp_pw_item it;
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
	struct otlp_pw_item it, at;
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
	struct otlp_pw_item it, sf;
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
	struct otlp_pw_item a, b, d;
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
