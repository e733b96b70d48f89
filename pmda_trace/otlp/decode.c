/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP trace request bodies to spans (otlp.h, docs/trace-protocol.md §11).
 *
 * Protobuf: pbwalk.c's walker over the wire format, which reads the few
 * fields a span needs and checks the rest as protobuf-c would, without
 * allocating (ref_pb.c keeps protobuf-c's decoding as its oracle).
 *
 * JSON: json-c parses the body with its depth limit (OTLP_JSON_DEPTH, deep
 * enough for OTLP_DEPTH_MAX AnyValue levels in any field; -E2BIG above).
 * json-c has no allocator hook, so before parsing a scan of the text (not
 * a parser: it only tells strings from the rest and counts brackets and
 * separators) bounds what json-c will allocate for it and refuses a body
 * whose bound is over the budget with -ENOMEM. The tree is then checked
 * whole (types of what is read, AnyValue depth) before the first span is
 * reported, as for protobuf.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "otlp.h"
#include "otlp_fields.h"
#include "otlp_priv.h"

/* ---- names ---- */

char *otlp_clean_name(char *dst, const char *src, size_t len, const char *dflt)
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
		if (o + rn > OTLP_NAME_MAX)
			break;
		memcpy(dst + o, rep, rn);
		o += rn;
		i += n;
	}
	if (o == 0 && dflt != NULL) {
		snprintf(dst, OTLP_NAME_MAX + 1, "%s", dflt);
		return dst;
	}
	dst[o] = '\0';
	return dst;
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

/* ---- JSON ---- */

/*
 * The JSON depth that holds OTLP_DEPTH_MAX AnyValue levels: ten levels to
 * an event's attribute value ({resourceSpans:[{scopeSpans:[{spans:[{events:
 * [{attributes:[{value:), then four a level (kvlistValue:{values:[{value:).
 */
#define OTLP_JSON_DEPTH		(12 + 4 * OTLP_DEPTH_MAX)

/*
 * What json-c 0.16 allocates at most for a value, on a 64-bit glibc
 * (measured with mallinfo2 and rounded up, malloc's overhead in): an
 * object with its hash table (16 entries), an array with its list (32
 * slots), a scalar or a member (entry, key copy, value); strings and keys
 * are counted again at their length. The worst body, "[{},{},...", costs
 * about (OTLP_JSON_OBJECT + OTLP_JSON_VALUE) / 3 times its size.
 */
#define OTLP_JSON_OBJECT	1024
#define OTLP_JSON_ARRAY		512
#define OTLP_JSON_VALUE		128

/*
 * otlp_json_scan - what can be told of @len bytes of JSON without parsing
 * them: a bound on what json-c allocates for them (*@cost) and their
 * deepest nesting of objects and arrays (*@depth). A quote ' or a /
 * outside a string, and a comma before a closing bracket, are refused
 * here (-EBADMSG): json-c takes the first for a key's quote even in its
 * strict mode, the others for a comment and a trailing comma outside it
 * (otlp_json_flags); JSON has none of them.
 */
static int otlp_json_scan(const char *s, size_t len, size_t *cost, size_t *depth)
{
	size_t d = 0;
	bool str = false;
	char prev = 0;		/* the last character outside strings but blanks */

	*cost = len + OTLP_JSON_VALUE;
	*depth = 0;
	for (size_t i = 0; i < len; i++) {
		char ch = s[i];

		if (str) {
			if (ch == '\\')
				i++;
			else if (ch == '"')
				str = false;
			continue;
		}
		if ((ch == '}' || ch == ']') && prev == ',')
			return -EBADMSG;	/* a trailing comma, taken outside strict mode */
		if (ch != ' ' && ch != '\t' && ch != '\r' && ch != '\n')
			prev = ch;
		switch (ch) {
		case '"':
			str = true;
			break;
		case '{':
		case '[':
			*cost += ch == '{' ? OTLP_JSON_OBJECT : OTLP_JSON_ARRAY;
			if (++d > *depth)
				*depth = d;
			break;
		case '}':
		case ']':
			d -= d > 0;
			break;
		case ',':
		case ':':
			*cost += OTLP_JSON_VALUE;
			break;
		case '\'':
		case '/':	/* a comment, which json-c outside strict mode takes */
			return -EBADMSG;
		default:
			break;
		}
	}
	return 0;
}

struct otlp_jwalk {
	struct otlp_ctx *c;
	bool report;		/* second pass: report spans */
};

#define OTLP_JBAD(c, ...) \
	(snprintf((c)->res->message, sizeof((c)->res->message), __VA_ARGS__), -EBADMSG)

/* Member @camel (or its proto name @snake) of @o, NULL if absent or null. */
static json_object *otlp_jget(json_object *o, const char *camel, const char *snake)
{
	json_object *v = NULL;

	if (!json_object_object_get_ex(o, camel, &v) && snake != NULL)
		json_object_object_get_ex(o, snake, &v);
	return v;
}

/* *@out = the array member (NULL if absent); -EBADMSG if not an array. */
static int otlp_jarray(struct otlp_ctx *c, json_object *o, const char *camel, const char *snake,
		       json_object **out)
{
	*out = otlp_jget(o, camel, snake);
	if (*out != NULL && !json_object_is_type(*out, json_type_array))
		return OTLP_JBAD(c, "%s is not an array", camel);
	return 0;
}

static int otlp_jobject(struct otlp_ctx *c, json_object *v, const char *what)
{
	if (!json_object_is_type(v, json_type_object))
		return OTLP_JBAD(c, "%s is not an object", what);
	return 0;
}

/* A uint64 member, a number or a decimal string (absent: 0). */
static int otlp_ju64(struct otlp_ctx *c, json_object *o, const char *camel, const char *snake,
		     uint64_t *out)
{
	json_object *v = otlp_jget(o, camel, snake);
	const char *s;
	uint64_t x = 0;

	*out = 0;
	if (v == NULL)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return OTLP_JBAD(c, "%s is negative", camel);
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (!json_object_is_type(v, json_type_string) || *(s = json_object_get_string(v)) == '\0')
		return OTLP_JBAD(c, "%s is not an integer", camel);
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return OTLP_JBAD(c, "%s is not a 64-bit unsigned integer", camel);
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*out = x;
	return 0;
}

/* An enum member: a number, or one of @names (absent: 0). */
static int otlp_jenum(struct otlp_ctx *c, json_object *o, const char *key, const char *const *names,
		      int n, int64_t *out)
{
	json_object *v = otlp_jget(o, key, NULL);

	*out = 0;
	if (v == NULL)
		return 0;
	if (json_object_is_type(v, json_type_int)) {
		*out = json_object_get_int64(v);
		return 0;
	}
	if (json_object_is_type(v, json_type_string)) {
		for (int i = 0; i < n; i++) {
			if (strcmp(json_object_get_string(v), names[i]) == 0) {
				*out = i;
				return 0;
			}
		}
	}
	return OTLP_JBAD(c, "%s is not a known enum value", key);
}

/* A string member, or absent (NULL); -EBADMSG if another type. */
static int otlp_jstring(struct otlp_ctx *c, json_object *o, const char *key, json_object **out)
{
	*out = otlp_jget(o, key, NULL);
	if (*out != NULL && !json_object_is_type(*out, json_type_string))
		return OTLP_JBAD(c, "%s is not a string", key);
	return 0;
}

static int otlp_jattrs(struct otlp_ctx *c, json_object *arr, int depth);

/* An AnyValue at nesting @depth (an attribute's value is 1). */
static int otlp_jany(struct otlp_ctx *c, json_object *v, int depth)
{
	json_object *a, *vals;
	int rc;

	if (depth > OTLP_DEPTH_MAX) {
		snprintf(c->res->message, sizeof(c->res->message), "values nested deeper than %d",
			 OTLP_DEPTH_MAX);
		return -E2BIG;
	}
	if (v == NULL)
		return 0;
	if ((rc = otlp_jobject(c, v, "value")) < 0)
		return rc;
	if ((a = otlp_jget(v, "arrayValue", "array_value")) != NULL) {
		if ((rc = otlp_jobject(c, a, "arrayValue")) < 0 ||
		    (rc = otlp_jarray(c, a, "values", NULL, &vals)) < 0)
			return rc;
		for (size_t i = 0; vals != NULL && i < json_object_array_length(vals); i++)
			if ((rc = otlp_jany(c, json_object_array_get_idx(vals, i), depth + 1)) < 0)
				return rc;
	}
	if ((a = otlp_jget(v, "kvlistValue", "kvlist_value")) != NULL) {
		if ((rc = otlp_jobject(c, a, "kvlistValue")) < 0 ||
		    (rc = otlp_jarray(c, a, "values", NULL, &vals)) < 0 ||
		    (rc = otlp_jattrs(c, vals, depth + 1)) < 0)
			return rc;
	}
	return 0;
}

/* A list of KeyValue (NULL: none) whose values are at @depth. */
static int otlp_jattrs(struct otlp_ctx *c, json_object *arr, int depth)
{
	json_object *key;
	int rc;

	for (size_t i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		json_object *kv = json_object_array_get_idx(arr, i);

		if ((rc = otlp_jobject(c, kv, "attribute")) < 0 ||
		    (rc = otlp_jstring(c, kv, "key", &key)) < 0 ||
		    (rc = otlp_jany(c, otlp_jget(kv, "value", NULL), depth)) < 0)
			return rc;
	}
	return 0;
}

/* The attributes member of @o, checked. */
static int otlp_jattrs_of(struct otlp_ctx *c, json_object *o)
{
	json_object *arr;
	int rc;

	if ((rc = otlp_jarray(c, o, "attributes", NULL, &arr)) < 0)
		return rc;
	return otlp_jattrs(c, arr, 1);
}

/* The events or links of a span: objects with attributes. */
static int otlp_jsublist(struct otlp_ctx *c, json_object *span, const char *key)
{
	json_object *arr;
	int rc;

	if ((rc = otlp_jarray(c, span, key, NULL, &arr)) < 0)
		return rc;
	for (size_t i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		if ((rc = otlp_jobject(c, o, key)) < 0 || (rc = otlp_jattrs_of(c, o)) < 0)
			return rc;
	}
	return 0;
}

static const char *const otlp_kind_names[] = {
	"SPAN_KIND_UNSPECIFIED", "SPAN_KIND_INTERNAL", "SPAN_KIND_SERVER",
	"SPAN_KIND_CLIENT", "SPAN_KIND_PRODUCER", "SPAN_KIND_CONSUMER",
};
static const char *const otlp_status_names[] = {
	"STATUS_CODE_UNSET", "STATUS_CODE_OK", "STATUS_CODE_ERROR",
};

static int otlp_jspan(struct otlp_jwalk *w, json_object *s)
{
	struct otlp_ctx *c = w->c;
	json_object *name, *st, *id;
	uint64_t start, end;
	int64_t kind, code = 0;
	int rc;

	if ((rc = otlp_jobject(c, s, "span")) < 0 ||
	    (rc = otlp_jstring(c, s, "name", &name)) < 0 ||
	    (rc = otlp_jstring(c, s, "traceId", &id)) < 0 ||
	    (rc = otlp_jstring(c, s, "spanId", &id)) < 0 ||
	    (rc = otlp_jstring(c, s, "parentSpanId", &id)) < 0 ||
	    (rc = otlp_jenum(c, s, "kind", otlp_kind_names, 6, &kind)) < 0 ||
	    (rc = otlp_ju64(c, s, "startTimeUnixNano", "start_time_unix_nano", &start)) < 0 ||
	    (rc = otlp_ju64(c, s, "endTimeUnixNano", "end_time_unix_nano", &end)) < 0 ||
	    (rc = otlp_jattrs_of(c, s)) < 0 ||
	    (rc = otlp_jsublist(c, s, "events")) < 0 ||
	    (rc = otlp_jsublist(c, s, "links")) < 0)
		return rc;
	if ((st = otlp_jget(s, "status", NULL)) != NULL &&
	    ((rc = otlp_jobject(c, st, "status")) < 0 ||
	     (rc = otlp_jenum(c, st, "code", otlp_status_names, 3, &code)) < 0 ||
	     (rc = otlp_jstring(c, st, "message", &id)) < 0))
		return rc;
	if (w->report)
		otlp_span_out(c, name ? json_object_get_string(name) : "",
			      name ? (size_t)json_object_get_string_len(name) : 0, kind, code, start, end);
	return 0;
}

/* Resource attribute @key's string (its first; "" if none) into @dst, cleaned. */
static void otlp_jresource_string(json_object *res, const char *key, char *dst, const char *dflt)
{
	json_object *arr = res ? otlp_jget(res, "attributes", NULL) : NULL;
	const char *s = "";
	size_t n = 0;

	for (size_t i = 0; arr != NULL && i < json_object_array_length(arr); i++) {
		json_object *kv = json_object_array_get_idx(arr, i), *k, *v, *str;

		k = otlp_jget(kv, "key", NULL);
		if (k == NULL || strcmp(json_object_get_string(k), key) != 0)
			continue;
		v = otlp_jget(kv, "value", NULL);
		str = v ? otlp_jget(v, "stringValue", "string_value") : NULL;
		if (str != NULL && json_object_is_type(str, json_type_string)) {
			s = json_object_get_string(str);
			n = (size_t)json_object_get_string_len(str);
		}
		break;
	}
	otlp_clean_name(dst, s, n, dflt);
}

/* The service of a resource: its first service.name and service.namespace strings. */
static void otlp_jservice(struct otlp_ctx *c, json_object *res)
{
	otlp_jresource_string(res, OTLP_SERVICE_KEY, c->service, OTLP_NO_SERVICE);
	otlp_jresource_string(res, OTLP_NAMESPACE_KEY, c->ns, NULL);
}

static int otlp_jrequest(struct otlp_jwalk *w, json_object *root)
{
	struct otlp_ctx *c = w->c;
	json_object *rss, *sss, *spans;
	int rc;

	if ((rc = otlp_jobject(c, root, "request")) < 0 ||
	    (rc = otlp_jarray(c, root, "resourceSpans", "resource_spans", &rss)) < 0)
		return rc;
	for (size_t i = 0; rss != NULL && i < json_object_array_length(rss); i++) {
		json_object *rs = json_object_array_get_idx(rss, i), *res;

		if ((rc = otlp_jobject(c, rs, "resourceSpans")) < 0)
			return rc;
		if ((res = otlp_jget(rs, "resource", NULL)) != NULL &&
		    ((rc = otlp_jobject(c, res, "resource")) < 0 || (rc = otlp_jattrs_of(c, res)) < 0))
			return rc;
		if (w->report)
			otlp_jservice(c, res);
		if ((rc = otlp_jarray(c, rs, "scopeSpans", "scope_spans", &sss)) < 0)
			return rc;
		for (size_t j = 0; sss != NULL && j < json_object_array_length(sss); j++) {
			json_object *ss = json_object_array_get_idx(sss, j), *scope;

			if ((rc = otlp_jobject(c, ss, "scopeSpans")) < 0)
				return rc;
			if ((scope = otlp_jget(ss, "scope", NULL)) != NULL &&
			    ((rc = otlp_jobject(c, scope, "scope")) < 0 ||
			     (rc = otlp_jattrs_of(c, scope)) < 0))
				return rc;
			if ((rc = otlp_jarray(c, ss, "spans", NULL, &spans)) < 0)
				return rc;
			for (size_t k = 0; spans != NULL && k < json_object_array_length(spans); k++)
				if ((rc = otlp_jspan(w, json_object_array_get_idx(spans, k))) < 0)
					return rc;
		}
	}
	return 0;
}

/*
 * The tokener's flags: strict JSON with its UTF-8 checked, where json-c's
 * strict mode works. json-c 0.18 as Debian 13 ships it refuses
 * every byte above 0x7f in a string in strict mode (json-c issue 875), so
 * a span named "café" would make its whole request a 400; there, probed
 * once, the tokener runs without JSON_TOKENER_STRICT, still checking
 * UTF-8. What it then also takes that JSON does not: comments, single
 * quotes and trailing commas, which otlp_json_scan refuses first, and NaN
 * and Infinity, which the type checks after the parse refuse where a
 * request has a number or a string.
 */
static int otlp_json_flags(void)
{
	static int flags;	/* 0: not probed yet; a race probes twice, alike */
	int f = __atomic_load_n(&flags, __ATOMIC_RELAXED);
	struct json_tokener *tok;
	json_object *o;

	if (f != 0)
		return f;
	f = JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8;
	if ((tok = json_tokener_new()) == NULL)
		return f;
	json_tokener_set_flags(tok, f);
	o = json_tokener_parse_ex(tok, "\"\xc3\xa9\"", 4);
	if (o == NULL)
		f = JSON_TOKENER_VALIDATE_UTF8;
	json_object_put(o);
	json_tokener_free(tok);
	__atomic_store_n(&flags, f, __ATOMIC_RELAXED);
	return f;
}

static int otlp_decode_json(const char *body, size_t len, size_t mem_max, struct otlp_ctx *c)
{
	struct json_tokener *tok;
	enum json_tokener_error err;
	json_object *root;
	struct otlp_jwalk w = { .c = c };
	size_t end, cost, depth;
	int rc;

	if (otlp_json_scan(body, len, &cost, &depth) < 0)
		return OTLP_JBAD(c, "JSON: a quote ' outside a string");
	if (depth > OTLP_JSON_DEPTH) {
		snprintf(c->res->message, sizeof(c->res->message), "JSON nested deeper than %d",
			 OTLP_JSON_DEPTH);
		return -E2BIG;
	}
	if (cost > mem_max) {
		snprintf(c->res->message, sizeof(c->res->message),
			 "request over the decoder's memory budget");
		return -ENOMEM;
	}
	if (len > INT32_MAX)
		return OTLP_JBAD(c, "request too long");
	if ((tok = json_tokener_new_ex(OTLP_JSON_DEPTH)) == NULL)
		return -ENOMEM;
	json_tokener_set_flags(tok, otlp_json_flags());
	root = json_tokener_parse_ex(tok, body, (int)len);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (root == NULL || err != json_tokener_success) {
		json_object_put(root);
		if (err == json_tokener_error_depth) {
			snprintf(c->res->message, sizeof(c->res->message),
				 "JSON nested deeper than %d", OTLP_JSON_DEPTH);
			return -E2BIG;
		}
		/* json-c 0.16 has no error of its own for a failed allocation */
		return OTLP_JBAD(c, "JSON: %s", err == json_tokener_continue ? "cut short" :
				 err == json_tokener_success ? "null, not a request" :
				 json_tokener_error_desc(err));
	}
	for (; end < len; end++) {
		if (!strchr(" \t\r\n", body[end]) || body[end] == '\0') {
			json_object_put(root);
			return OTLP_JBAD(c, "JSON: bytes after the request");
		}
	}
	if ((rc = otlp_jrequest(&w, root)) == 0) {
		w.report = true;
		rc = otlp_jrequest(&w, root);
	}
	json_object_put(root);
	return rc;
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
		rc = otlp_decode_json(body, len, mem_max, &c);
	else
		rc = OTLP_JBAD(&c, "unknown encoding");
	if (rc < 0) {
		res->accepted = res->rejected = 0;
		if (res->message[0] == '\0')
			snprintf(res->message, sizeof(res->message), "request does not decode");
	}
	return rc;
}
