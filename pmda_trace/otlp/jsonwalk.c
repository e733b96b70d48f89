/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP JSON requests without a tree: a recursive-descent walker over the
 * body that knows the request's messages and fields from otlp_fields.h.
 *
 * Pass 1 checks the whole body: strict RFC 8259 (no comments, single
 * quotes, trailing commas, NaN or Infinity; UTF-8 that is well-formed;
 * no control character unescaped in a string) and, for the members the
 * decoder reads, their types (ids, names and keys strings; kind and
 * status.code a number or a name; times unsigned integers, as numbers or
 * decimal strings; messages objects, repeated ones arrays) and AnyValue
 * nesting (OTLP_DEPTH_MAX). Pass 2 reads each span's name, kind, times
 * and status.code and the resource's first service.name and
 * service.namespace strings, and reports the spans. Nothing is copied but
 * those strings, into fixed buffers; the walker allocates nothing, its
 * state lives on the stack (OTLP_JW_MEM, against the request's budget).
 *
 * It answers as json-c's path (ref_json.c) does: a duplicate key's last
 * value counts, a member under its JSON name hides one under its proto
 * name, and where a body is wrong in several ways the error is the one
 * json-c's path would give (its pre-scan, then the parse, then the
 * checks in field order). Where json-c takes what is not JSON (see
 * tests/fuzz/fuzz_otlp_json_diff.c) the walker refuses it.
 *
 * "resource" may follow "scopeSpans" in a ResourceSpans, or be there
 * twice; pass 1 notes it, and pass 2 then reads each ResourceSpans'
 * resource in a walk of its own before its spans. Likewise a member that
 * holds spans (resourceSpans, scopeSpans, spans) may be there twice: pass
 * 2 then finds the one that counts before it reports any of its spans.
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

#define OTLP_SERVICE_KEY	"service.name"
#define OTLP_NAMESPACE_KEY	"service.namespace"
#define OTLP_NO_SERVICE		"unknown_service"

/*
 * Bytes of a string kept: a name cleans to at most OTLP_NAME_MAX bytes,
 * and cleaning makes at least one byte of every two it reads, so what is
 * past this is never read.
 */
#define JW_KEEP			(3 * OTLP_NAME_MAX)

/* The walker's memory: its state and a bound on its stack per level. */
#define JW_FRAME		192
#define OTLP_JW_MEM		(sizeof(struct jw) + (OTLP_JSON_DEPTH + 4) * JW_FRAME)

/* What a value's check found: fine, not the type, AnyValue too deep. */
enum { JW_OK, JW_BAD, JW_BIG };

/* Where a value is, for what pass 2 takes of the resource. */
enum jw_role { JW_NONE, JW_RES, JW_RES_KV, JW_RES_ANY };

/* How a leaf member the decoder reads is checked. */
enum jw_check { JW_ANY, JW_STRING, JW_ENUM, JW_U64 };

/* A string's unescaped bytes, as far as they are kept. */
struct jw_str {
	char buf[JW_KEEP];
	size_t len;		/* bytes kept */
	bool cut;		/* there were more */
	bool skip0;		/* leading '0's dropped (a decimal string) */
	bool had0;		/* some were */
};

struct jw {
	const char *p, *end;
	int depth;		/* of objects and arrays at p */
	int err;		/* 0, or the syntax error: -EBADMSG, -E2BIG (depth) */
	bool check;		/* pass 1 */
	bool spans;		/* pass 2: report spans */
	bool res;		/* pass 2: read resources */
	bool late;		/* a resource after scope spans, or twice */
	bool dups;		/* a member that holds spans more than once in an object */
	struct otlp_ctx *c;
	/* the span being read */
	int64_t kind, code;
	uint64_t start, stop;
	struct jw_str name;
	/* the resource being read */
	bool got_service, got_ns;
	int kv_key;		/* its attribute's key: 0 another, 1 service, 2 namespace */
	bool kv_str;		/* its value is a string, in kv_val */
	struct jw_str kv_val;
	struct jw_str tmp;	/* keys with escapes, enum names, decimal strings */
};

static const bool jw_repeated[OTLP_F_N] = {
#define OTLP_X(m, name) [OTLP_F_##m##_##name] = true,
	OTLP_REPEATED(OTLP_X)
#undef OTLP_X
};

/* What pass 1 checks of a leaf: what json-c's path checks (ref_json.c). */
static const unsigned char jw_checks[OTLP_F_N] = {
	[OTLP_F_SPAN_NAME] = JW_STRING, [OTLP_F_SPAN_TRACE_ID] = JW_STRING,
	[OTLP_F_SPAN_SPAN_ID] = JW_STRING, [OTLP_F_SPAN_PARENT_SPAN_ID] = JW_STRING,
	[OTLP_F_STATUS_MESSAGE] = JW_STRING, [OTLP_F_KV_KEY] = JW_STRING,
	[OTLP_F_SPAN_KIND] = JW_ENUM, [OTLP_F_STATUS_CODE] = JW_ENUM,
	[OTLP_F_SPAN_START] = JW_U64, [OTLP_F_SPAN_END] = JW_U64,
};

_Static_assert(OTLP_F_N <= 64, "a message's fields are bits of a uint64_t");

/* A syntax error: returns -1, the first error kept. */
static int jw_fail(struct jw *w, int err)
{
	if (w->err == 0)
		w->err = err;
	return -1;
}

static void jw_ws(struct jw *w)
{
	const char *p = w->p;

	while (p < w->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	w->p = p;
}

/* ---- strings ---- */

static void jw_put(struct jw_str *s, const void *b, size_t n)
{
	const char *src = b;

	if (s->skip0 && s->len == 0) {
		while (n > 0 && *src == '0') {
			s->had0 = true;
			src++;
			n--;
		}
	}
	if (n > JW_KEEP - s->len) {
		n = JW_KEEP - s->len;
		s->cut = true;
	}
	memcpy(s->buf + s->len, src, n);
	s->len += n;
}

static int jw_hex4(const unsigned char *p, uint32_t *v)
{
	uint32_t x = 0;

	for (int i = 0; i < 4; i++) {
		unsigned char ch = p[i];

		x <<= 4;
		if (ch >= '0' && ch <= '9')
			x |= ch - '0';
		else if ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'f')
			x |= (ch | 0x20) - 'a' + 10;
		else
			return -1;
	}
	*v = x;
	return 0;
}

/* @cp as UTF-8 into @b; returns its length. */
static size_t jw_utf8(uint32_t cp, unsigned char *b)
{
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		return 1;
	}
	if (cp < 0x800) {
		b[0] = (unsigned char)(0xc0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		b[0] = (unsigned char)(0xe0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		b[2] = (unsigned char)(0x80 | (cp & 0x3f));
		return 3;
	}
	b[0] = (unsigned char)(0xf0 | cp >> 18);
	b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
	b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
	b[3] = (unsigned char)(0x80 | (cp & 0x3f));
	return 4;
}

/*
 * An escape at @p (its backslash), @end past the body: its bytes into @s
 * (NULL: not kept). A \u of half a surrogate pair without its other half
 * is U+FFFD, as json-c has it. Returns the bytes it took, or 0 if it is
 * not an escape.
 */
static size_t jw_escape(const unsigned char *p, const unsigned char *end, struct jw_str *s)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	unsigned char b[4];
	const char *e;
	uint32_t cp, lo;
	size_t took = 6;

	if (end - p < 2)
		return 0;
	if (p[1] != 'u') {
		if (p[1] == '\0' || (e = strchr(from, p[1])) == NULL)
			return 0;
		if (s != NULL)
			jw_put(s, &to[e - from], 1);
		return 2;
	}
	if (end - p < 6 || jw_hex4(p + 2, &cp) < 0)
		return 0;
	if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 12 && p[6] == '\\' && p[7] == 'u' &&
	    jw_hex4(p + 8, &lo) == 0 && lo >= 0xdc00 && lo <= 0xdfff) {
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		took = 12;
	} else if (cp >= 0xd800 && cp <= 0xdfff) {
		cp = 0xfffd;
	}
	if (s != NULL)
		jw_put(s, b, jw_utf8(cp, b));
	return took;
}

/*
 * jw_string - the string at w->p (its opening quote), checked in pass 1:
 * escapes, well-formed UTF-8, no control character. Its unescaped bytes
 * go to @s (NULL: not kept). Returns 0, or -1 (w->err set).
 */
static int jw_string(struct jw *w, struct jw_str *s)
{
	const unsigned char *p = (const unsigned char *)w->p + 1;
	const unsigned char *end = (const unsigned char *)w->end;

	if (s != NULL) {
		s->len = 0;
		s->cut = s->had0 = false;
	}
	for (;;) {
		const unsigned char *run = p;
		uint32_t cp;
		size_t n;

		while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
			p++;
		if (s != NULL && p > run)
			jw_put(s, run, (size_t)(p - run));
		if (p >= end)
			return jw_fail(w, -EBADMSG);
		if (*p == '"') {
			w->p = (const char *)p + 1;
			return 0;
		}
		if (*p == '\\') {
			if ((n = jw_escape(p, end, s)) == 0)
				return jw_fail(w, -EBADMSG);
		} else if (*p < 0x20 || (n = sdk_utf8_len(p, (size_t)(end - p), &cp)) == 0) {
			return jw_fail(w, -EBADMSG);
		} else if (s != NULL) {
			jw_put(s, p, n);
		}
		p += n;
	}
}

/* Pass 2: the string at w->p passed pass 1; only its end is looked for. */
static int jw_string_skip(struct jw *w)
{
	const char *p = w->p + 1;

	for (;;) {
		const char *q = memchr(p, '"', (size_t)(w->end - p));
		const char *b = q;

		if (q == NULL)
			return jw_fail(w, -EBADMSG);
		while (b > p && b[-1] == '\\')
			b--;
		if ((q - b) % 2 == 0) {
			w->p = q + 1;
			return 0;
		}
		p = q + 1;
	}
}

/* ---- numbers and literals ---- */

struct jw_num {
	bool neg, integer, over;	/* over: the magnitude is past UINT64_MAX */
	uint64_t mag;
};

/* The number at w->p, RFC 8259's grammar; returns 0 or -1. */
static int jw_number(struct jw *w, struct jw_num *n)
{
	const char *p = w->p, *end = w->end;

	n->neg = n->over = false;
	n->integer = true;
	n->mag = 0;
	if (p < end && *p == '-') {
		n->neg = true;
		p++;
	}
	if (p >= end || *p < '0' || *p > '9')
		return jw_fail(w, -EBADMSG);
	if (*p == '0') {
		p++;
	} else {
		for (; p < end && *p >= '0' && *p <= '9'; p++) {
			unsigned d = (unsigned)(*p - '0');

			if (n->mag > (UINT64_MAX - d) / 10)
				n->over = true;
			else
				n->mag = n->mag * 10 + d;
		}
	}
	if (p < end && *p == '.') {
		n->integer = false;
		if (++p >= end || *p < '0' || *p > '9')
			return jw_fail(w, -EBADMSG);
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		n->integer = false;
		if (++p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return jw_fail(w, -EBADMSG);
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	w->p = p;
	return 0;
}

/* true, false or null at w->p; returns 0 or -1. */
static int jw_literal(struct jw *w)
{
	static const char *const lit[] = { "true", "false", "null" };
	size_t left = (size_t)(w->end - w->p);

	for (int i = 0; i < 3; i++) {
		size_t n = strlen(lit[i]);

		if (left >= n && memcmp(w->p, lit[i], n) == 0) {
			w->p += n;
			return 0;
		}
	}
	return jw_fail(w, -EBADMSG);
}

/* ---- values the decoder does not read ---- */

static int jw_skip(struct jw *w);

/* A container at w->p, one deeper; returns 0 or -1. */
static int jw_enter(struct jw *w)
{
	if (++w->depth > OTLP_JSON_DEPTH)
		return jw_fail(w, -E2BIG);
	w->p++;
	jw_ws(w);
	return 0;
}

/*
 * Before a value in a container, at w->p (blanks skipped): json-c's
 * tokener counts values, not brackets, so a value in a container
 * OTLP_JSON_DEPTH deep is too deep for it even if it is a number; but a
 * byte above 0x7f there is a bad one first. Returns 0, or -1 (-E2BIG or
 * -EBADMSG) where json-c's path gives those.
 */
static int jw_value_at(struct jw *w)
{
	unsigned char ch;

	if (w->depth < OTLP_JSON_DEPTH || w->p >= w->end)
		return 0;
	ch = (unsigned char)*w->p;
	return jw_fail(w, ch >= 0x80 ? -EBADMSG : -E2BIG);
}

/* After a member or an element: a comma (1), the closing @close (0) or -1. */
static int jw_next(struct jw *w, char close)
{
	jw_ws(w);
	if (w->p < w->end && *w->p == ',') {
		w->p++;
		jw_ws(w);
		return 1;
	}
	if (w->p < w->end && *w->p == close) {
		w->p++;
		w->depth--;
		return 0;
	}
	return jw_fail(w, -EBADMSG);
}

static int jw_skip_string(struct jw *w)
{
	return w->check ? jw_string(w, NULL) : jw_string_skip(w);
}

/* Pass 2: the value at w->p passed pass 1; only its end is looked for. */
static int jw_skip_fast(struct jw *w)
{
	const char *p = w->p, *end = w->end;
	int depth = 0;

	while (p < end) {
		switch (*p) {
		case '"':
			w->p = p;
			if (jw_string_skip(w) < 0)
				return -1;
			p = w->p;
			if (depth == 0)
				return 0;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (depth == 0) {	/* the end of a scalar */
				w->p = p;
				return 0;
			}
			if (--depth == 0) {
				w->p = p + 1;
				return 0;
			}
			break;
		case ',':
		case ' ':
		case '\n':
		case '\r':
		case '\t':
			if (depth == 0) {
				w->p = p;
				return 0;
			}
			break;
		default:
			break;
		}
		p++;
	}
	w->p = p;
	return depth == 0 ? 0 : jw_fail(w, -EBADMSG);
}

/* Any value at w->p, checked for its syntax only; returns 0 or -1. */
static int jw_skip(struct jw *w)
{
	struct jw_num n;
	int more;

	if (!w->check)
		return jw_skip_fast(w);
	if (w->p >= w->end)
		return jw_fail(w, -EBADMSG);
	switch (*w->p) {
	case '"':
		return jw_skip_string(w);
	case '{':
		if (jw_enter(w) < 0)
			return -1;
		if (w->p < w->end && *w->p == '}') {
			w->p++;
			w->depth--;
			return 0;
		}
		do {
			if (w->p >= w->end || *w->p != '"' || jw_skip_string(w) < 0)
				return jw_fail(w, -EBADMSG);
			jw_ws(w);
			if (w->p >= w->end || *w->p != ':')
				return jw_fail(w, -EBADMSG);
			w->p++;
			jw_ws(w);
			if (jw_value_at(w) < 0 || jw_skip(w) < 0 || (more = jw_next(w, '}')) < 0)
				return -1;
		} while (more);
		return 0;
	case '[':
		if (jw_enter(w) < 0)
			return -1;
		if (w->p < w->end && *w->p == ']') {
			w->p++;
			w->depth--;
			return 0;
		}
		do {
			if (jw_value_at(w) < 0 || jw_skip(w) < 0 || (more = jw_next(w, ']')) < 0)
				return -1;
		} while (more);
		return 0;
	case 't':
	case 'f':
	case 'n':
		return jw_literal(w);
	default:
		return jw_number(w, &n);
	}
}

/* ---- the request's messages ---- */

static int jw_object(struct jw *w, enum otlp_msg m, int any, enum jw_role role);

/* 1 if w->p is at null, taken. */
static int jw_null(struct jw *w)
{
	if (w->end - w->p >= 4 && memcmp(w->p, "null", 4) == 0) {
		w->p += 4;
		return 1;
	}
	return 0;
}

/*
 * A value that should be message @m, an element of a repeated field if
 * @elem, within AnyValue nesting @any. null is an absent message, but an
 * element only of AnyValues; an AnyValue past OTLP_DEPTH_MAX is too deep
 * whatever it is. Returns JW_OK, JW_BAD, JW_BIG or -1 (syntax).
 */
static int jw_msg(struct jw *w, enum otlp_msg m, int any, enum jw_role role, bool elem)
{
	if (m == OTLP_M_ANY && ++any > OTLP_DEPTH_MAX)
		return jw_skip(w) < 0 ? -1 : JW_BIG;
	if (w->p < w->end && *w->p == '{')
		return jw_object(w, m, any, role);
	if (jw_null(w))
		return elem && m != OTLP_M_ANY ? JW_BAD : JW_OK;
	return jw_skip(w) < 0 ? -1 : JW_BAD;
}

/* A repeated field of @m's: an array or null. Returns as jw_msg. */
static int jw_array(struct jw *w, enum otlp_msg m, int any, enum jw_role role)
{
	int out = JW_OK, r, more;

	if (w->p >= w->end || *w->p != '[') {
		if (jw_null(w))
			return JW_OK;
		return jw_skip(w) < 0 ? -1 : JW_BAD;
	}
	if (jw_enter(w) < 0)
		return -1;
	if (w->p < w->end && *w->p == ']') {
		w->p++;
		w->depth--;
		return JW_OK;
	}
	do {
		if (jw_value_at(w) < 0 || (r = jw_msg(w, m, any, role, true)) < 0 ||
		    (more = jw_next(w, ']')) < 0)
			return -1;
		if (out == JW_OK)
			out = r;
	} while (more);
	return out;
}

/* Decimal digits (leading zeros dropped) as a uint64; -1 if not one. */
static int jw_decimal(const struct jw_str *s, uint64_t *v)
{
	uint64_t x = 0;

	if ((s->len == 0 && !s->had0) || s->cut)
		return -1;
	for (size_t i = 0; i < s->len; i++) {
		unsigned d = (unsigned)(s->buf[i] - '0');

		if (d > 9 || x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

/*
 * A leaf member @f at w->p: checked as jw_checks says, and what pass 2
 * reads of it kept. Returns JW_OK, JW_BAD or -1.
 */
static int jw_leaf(struct jw *w, enum otlp_field f, enum jw_role role)
{
	enum jw_check ck = (enum jw_check)jw_checks[f];
	bool span = w->spans && (f == OTLP_F_SPAN_NAME || f == OTLP_F_SPAN_KIND ||
				 f == OTLP_F_SPAN_START || f == OTLP_F_SPAN_END ||
				 f == OTLP_F_STATUS_CODE);
	bool key = role == JW_RES_KV && f == OTLP_F_KV_KEY;
	bool str = role == JW_RES_ANY && f == OTLP_F_ANY_STRING;
	struct jw_str *s = NULL;
	struct jw_num n;
	int64_t e = 0;
	uint64_t u = 0;

	if (str)
		w->kv_str = false;
	if (key)
		w->kv_key = 0;
	if (f == OTLP_F_SPAN_NAME)
		w->name.len = 0;
	if (ck == JW_ANY && !span && !key && !str)
		return jw_skip(w) < 0 ? -1 : JW_OK;
	if (w->p >= w->end)
		return jw_fail(w, -EBADMSG);
	switch (*w->p) {
	case '"':
		if (f == OTLP_F_SPAN_NAME)
			s = &w->name;
		else if (str)
			s = &w->kv_val;
		else if (key || ck == JW_ENUM || ck == JW_U64)
			s = &w->tmp;
		if (s != NULL)
			s->skip0 = ck == JW_U64;
		if (s == NULL ? jw_skip_string(w) < 0 : jw_string(w, s) < 0)
			return -1;
		if (str)
			w->kv_str = true;
		if (key)
			w->kv_key = s->len == strlen(OTLP_SERVICE_KEY) && !s->cut &&
				memcmp(s->buf, OTLP_SERVICE_KEY, s->len) == 0 ? 1 :
				s->len == strlen(OTLP_NAMESPACE_KEY) && !s->cut &&
				memcmp(s->buf, OTLP_NAMESPACE_KEY, s->len) == 0 ? 2 : 0;
		if (ck == JW_ENUM && (s->cut || otlp_enum_json(f, s->buf, s->len, &e) < 0))
			return JW_BAD;
		if (ck == JW_U64 && jw_decimal(s, &u) < 0)
			return JW_BAD;
		break;
	case 'n':
		if (!jw_null(w))
			return jw_fail(w, -EBADMSG);
		break;
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		if (jw_number(w, &n) < 0)
			return -1;
		if (ck == JW_STRING || ((ck == JW_ENUM || ck == JW_U64) && !n.integer))
			return JW_BAD;
		if (ck == JW_U64 && ((n.neg && n.mag != 0) || n.over))
			return JW_BAD;
		u = n.mag;
		/* an enum's number past int64 saturates, as json-c's does */
		e = n.neg ? (n.over || n.mag > (uint64_t)INT64_MAX + 1 ? INT64_MIN : (int64_t)(0 - n.mag)) :
			(n.over || n.mag > INT64_MAX ? INT64_MAX : (int64_t)n.mag);
		break;
	default:
		if (jw_skip(w) < 0)
			return -1;
		if (ck != JW_ANY)
			return JW_BAD;
		break;
	}
	if (!span)
		return JW_OK;
	switch (f) {
	case OTLP_F_SPAN_KIND:
		w->kind = e;
		break;
	case OTLP_F_STATUS_CODE:
		w->code = e;
		break;
	case OTLP_F_SPAN_START:
		w->start = u;
		break;
	case OTLP_F_SPAN_END:
		w->stop = u;
		break;
	default:
		break;
	}
	return JW_OK;
}

/* A member @f of a message at w->p (past its colon). Returns as jw_msg. */
static int jw_member(struct jw *w, enum otlp_field f, int any, enum jw_role role)
{
	const struct otlp_field_desc *d = &otlp_fields[f];
	enum jw_role sub = JW_NONE;

	if (d->child == OTLP_M_LEAF)
		return jw_leaf(w, f, role);
	if (f == OTLP_F_RS_RESOURCE && w->res)
		sub = JW_RES;
	else if (role == JW_RES && f == OTLP_F_RES_ATTRIBUTES)
		sub = JW_RES_KV;
	else if (role == JW_RES_KV && f == OTLP_F_KV_VALUE)
		sub = JW_RES_ANY;
	if (sub == JW_RES || sub == JW_RES_KV) {	/* the last one counts */
		w->got_service = w->got_ns = false;
		otlp_clean_name(w->c->service, "", 0, OTLP_NO_SERVICE);
		w->c->ns[0] = '\0';
	}
	if (sub == JW_RES_ANY)
		w->kv_str = false;
	if (f == OTLP_F_SPAN_STATUS)
		w->code = 0;
	if (jw_repeated[f])
		return jw_array(w, d->child, any, sub);
	return jw_msg(w, d->child, any, sub, false);
}

/* Whether pass 2 reads member @f of a message in @role (else skips it). */
static bool jw_read(enum otlp_field f, enum jw_role role)
{
	switch (f) {
	case OTLP_F_REQ_RESOURCE_SPANS:
	case OTLP_F_RS_RESOURCE:
	case OTLP_F_RS_SCOPE_SPANS:
	case OTLP_F_SS_SPANS:
	case OTLP_F_SPAN_NAME:
	case OTLP_F_SPAN_KIND:
	case OTLP_F_SPAN_START:
	case OTLP_F_SPAN_END:
	case OTLP_F_SPAN_STATUS:
	case OTLP_F_STATUS_CODE:
		return true;
	case OTLP_F_RES_ATTRIBUTES:
		return role == JW_RES;
	case OTLP_F_KV_KEY:
	case OTLP_F_KV_VALUE:
		return role == JW_RES_KV;
	case OTLP_F_ANY_STRING:
		return role == JW_RES_ANY;
	default:
		return false;
	}
}

/*
 * The key at w->p: in place if it has no escape, else unescaped into
 * w->tmp. Returns 0, 1 if it is too long to be a field's, or -1.
 */
static int jw_key(struct jw *w, const char **key, size_t *len)
{
	const char *p = w->p + 1, *q = p;

	while (q < w->end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20 &&
	       (unsigned char)*q < 0x80)
		q++;
	if (q < w->end && *q == '"') {
		*key = p;
		*len = (size_t)(q - p);
		w->p = q + 1;
		return 0;
	}
	w->tmp.skip0 = false;
	if (jw_string(w, &w->tmp) < 0)
		return -1;
	*key = w->tmp.buf;
	*len = w->tmp.len;
	return w->tmp.cut;
}

/* Pass 2, at the end of a resource attribute: the service or namespace, if it is the first. */
static void jw_res_kv_done(struct jw *w)
{
	const char *s = w->kv_str ? w->kv_val.buf : "";
	size_t n = w->kv_str ? w->kv_val.len : 0;

	if (w->kv_key == 1 && !w->got_service) {
		w->got_service = true;
		otlp_clean_name(w->c->service, s, n, OTLP_NO_SERVICE);
	} else if (w->kv_key == 2 && !w->got_ns) {
		w->got_ns = true;
		otlp_clean_name(w->c->ns, s, n, NULL);
	}
}

/* The field of @m that holds spans, OTLP_F_N if none. */
static enum otlp_field jw_holds(enum otlp_msg m)
{
	return m == OTLP_M_REQ ? OTLP_F_REQ_RESOURCE_SPANS : m == OTLP_M_RS ? OTLP_F_RS_SCOPE_SPANS :
		m == OTLP_M_SS ? OTLP_F_SS_SPANS : OTLP_F_N;
}

/*
 * Pass 2, where pass 1 saw a member that holds spans more than once in an
 * object: where the value of the object at w->p's member @f that counts
 * starts (its last under the JSON name, else its last under the proto
 * name), NULL if it has none. Only that one is reported, as json-c's path
 * reports only the one it keeps. w->p is left where it was.
 */
static const char *jw_counts(struct jw *w, enum otlp_msg m, enum otlp_field f)
{
	const char *at = w->p, *camel = NULL, *other = NULL;
	int depth = w->depth, alt, r;

	w->p++;
	jw_ws(w);
	while (w->p < w->end && *w->p == '"') {
		const char *key;
		size_t len;

		if ((r = jw_key(w, &key, &len)) < 0)
			break;
		jw_ws(w);
		w->p++;		/* the colon */
		jw_ws(w);
		if (r == 0 && otlp_field_json(m, key, len, &alt) == f)
			*(alt ? &other : &camel) = w->p;
		if (jw_skip_fast(w) < 0)
			break;
		jw_ws(w);
		if (w->p < w->end && *w->p == ',') {
			w->p++;
			jw_ws(w);
		}
	}
	w->p = at;
	w->depth = depth;
	return camel != NULL ? camel : other;
}

/*
 * jw_object - the object at w->p as message @m (AnyValue nesting @any):
 * each member the table knows read as its field, the others skipped. A
 * field's last member counts, and one under its JSON name hides those
 * under its proto name (json-c's path reads it so). Returns the first
 * failed field's check in the table's order (which is json-c's path's),
 * JW_OK, or -1 (syntax).
 */
static int jw_object(struct jw *w, enum otlp_msg m, int any, enum jw_role role)
{
	uint64_t seen = 0, camel = 0, bad = 0, big = 0, bit, any_of = 0;
	bool had_ss = false, had_res = false;
	int r, more, alt = 0;
	enum otlp_field holds = jw_holds(m);
	const char *counts = NULL;

	if (m == OTLP_M_RS && w->late && w->spans && w->res) {
		/* its resource first, in a walk of its own; then its spans */
		const char *at = w->p;
		int depth = w->depth;

		w->spans = false;
		r = jw_object(w, m, any, role);
		w->spans = true;
		if (r < 0)
			return r;
		w->p = at;
		w->depth = depth;
		w->res = false;
		r = jw_object(w, m, any, role);
		w->res = true;
		return r;
	}
	if (!w->check && w->dups && holds != OTLP_F_N)
		counts = jw_counts(w, m, holds);
	if (jw_enter(w) < 0)
		return -1;
	if (m == OTLP_M_SPAN && w->spans) {
		w->name.len = 0;
		w->kind = w->code = 0;
		w->start = w->stop = 0;
	} else if (m == OTLP_M_RS && w->res) {
		w->got_service = w->got_ns = false;
		otlp_clean_name(w->c->service, "", 0, OTLP_NO_SERVICE);
		w->c->ns[0] = '\0';
	} else if (role == JW_RES_KV) {
		w->kv_key = 0;
		w->kv_str = false;
	}
	if (w->p < w->end && *w->p == '}') {
		w->p++;
		w->depth--;
		goto done;
	}
	do {
		const char *key;
		size_t len;
		enum otlp_field f;

		if (w->p >= w->end || *w->p != '"')
			return jw_fail(w, -EBADMSG);
		if ((r = jw_key(w, &key, &len)) < 0)
			return -1;
		f = r == 1 ? OTLP_F_N : otlp_field_json(m, key, len, &alt);
		jw_ws(w);
		if (w->p >= w->end || *w->p != ':')
			return jw_fail(w, -EBADMSG);
		w->p++;
		jw_ws(w);
		if (jw_value_at(w) < 0)
			return -1;
		if (f == OTLP_F_RS_SCOPE_SPANS)
			had_ss = true;
		if (f == OTLP_F_RS_RESOURCE) {
			if (had_ss || had_res)
				w->late = true;
			had_res = true;
		}
		bit = f == OTLP_F_N ? 0 : (uint64_t)1 << f;
		if (f == holds && (any_of & bit))
			w->dups = true;
		any_of |= bit;
		if (f == OTLP_F_N || (alt && (camel & bit)) || (!w->check && !jw_read(f, role)) ||
		    (f == holds && counts != NULL && w->p != counts)) {
			if (jw_skip(w) < 0)
				return -1;
		} else {
			if (!alt)
				camel |= bit;
			seen |= bit;
			bad &= ~bit;
			big &= ~bit;
			if ((r = jw_member(w, f, any, role)) < 0)
				return -1;
			if (r == JW_BAD)
				bad |= bit;
			else if (r == JW_BIG)
				big |= bit;
		}
	} while ((more = jw_next(w, '}')) > 0);
	if (more < 0)
		return -1;
done:
	/* json-c's path checks an attribute's value's depth even when it has none */
	bit = (uint64_t)1 << OTLP_F_KV_VALUE;
	if (m == OTLP_M_KV && !(seen & bit) && any + 1 > OTLP_DEPTH_MAX)
		big |= bit;
	if (m == OTLP_M_SPAN && w->spans)
		otlp_span_out(w->c, w->name.buf, w->name.len, w->kind, w->code, w->start, w->stop);
	else if (role == JW_RES_KV)
		jw_res_kv_done(w);
	if ((bad | big) == 0)
		return JW_OK;
	bit = (bad | big) & (~(bad | big) + 1);	/* the lowest: the first in field order */
	return (big & bit) ? JW_BIG : JW_BAD;
}

/* ---- the request ---- */

/* One pass over the body: JW_OK, JW_BAD, JW_BIG or -1 (w->err). */
static int jw_request(struct jw *w, const char *body, size_t len)
{
	int r;

	w->p = body;
	w->end = body + len;
	w->depth = 0;
	jw_ws(w);
	if (w->p < w->end && *w->p == '{')
		r = jw_object(w, OTLP_M_REQ, 0, JW_NONE);
	else
		r = jw_skip(w) < 0 ? -1 : JW_BAD;
	if (r < 0)
		return r;
	jw_ws(w);
	if (w->p != w->end)
		return jw_fail(w, -EBADMSG);
	return r;
}

int otlp_json_walk(const char *body, size_t len, size_t mem_max, struct otlp_ctx *c)
{
	struct jw w = { .c = c, .check = true };
	char *msg = c->res->message;
	size_t msglen = sizeof(c->res->message), cost, depth;
	int r;

	if (OTLP_JW_MEM > mem_max) {
		snprintf(msg, msglen, "request over the decoder's memory budget");
		return -ENOMEM;
	}
	r = jw_request(&w, body, len);
	if (r < 0) {
		/* as json-c's path: its pre-scan's errors first, then its depth */
		if (otlp_json_scan(body, len, &cost, &depth) < 0)
			w.err = -EBADMSG;
		else if (depth > OTLP_JSON_DEPTH)
			w.err = -E2BIG;
		if (w.err == -E2BIG)
			snprintf(msg, msglen, "JSON nested deeper than %d", OTLP_JSON_DEPTH);
		else
			snprintf(msg, msglen, "JSON: not well-formed at byte %zu",
				 (size_t)(w.p - body));
		return w.err;
	}
	if (r == JW_BIG) {
		snprintf(msg, msglen, "values nested deeper than %d", OTLP_DEPTH_MAX);
		return -E2BIG;
	}
	if (r == JW_BAD) {
		snprintf(msg, msglen, "JSON: a member of the wrong type");
		return -EBADMSG;
	}
	w.check = false;
	w.spans = w.res = true;
	if (jw_request(&w, body, len) < 0) {	/* cannot happen: pass 1 passed it */
		snprintf(msg, msglen, "JSON: not well-formed");
		return -EBADMSG;
	}
	return 0;
}
