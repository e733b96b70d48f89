/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP JSON requests through json-c: the decoder the agent had before
 * jsonwalk.c, kept as the walker's oracle (tests/unit test_otlp_jsonwalk,
 * tests/fuzz/fuzz_otlp_json_diff.c).
 *
 * json-c parses the body with its depth limit (OTLP_JSON_DEPTH, deep
 * enough for OTLP_DEPTH_MAX AnyValue levels in any field; -E2BIG above).
 * json-c has no allocator hook, so before parsing a scan of the text (not
 * a parser: it only tells strings from the rest and counts brackets and
 * separators) bounds what json-c will allocate for it and refuses a body
 * whose bound is over the budget with -ENOMEM. The tree is then checked
 * whole (types of what is read, AnyValue depth) before the first span is
 * reported. The ids are checked under their proto names (trace_id, ...)
 * too, as the walker does: OTLP's JSON mapping takes either name.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "otlp.h"
#include "otlp_priv.h"

#define OTLP_SERVICE_KEY	"service.name"
#define OTLP_NAMESPACE_KEY	"service.namespace"
#define OTLP_NO_SERVICE		"unknown_service"

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

int otlp_json_scan(const char *s, size_t len, size_t *cost, size_t *depth)
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

/* A string member @key (or its proto name @snake), or absent (NULL); -EBADMSG if another type. */
static int otlp_jstring(struct otlp_ctx *c, json_object *o, const char *key, const char *snake,
			json_object **out)
{
	*out = otlp_jget(o, key, snake);
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
		    (rc = otlp_jstring(c, kv, "key", NULL, &key)) < 0 ||
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
	    (rc = otlp_jstring(c, s, "name", NULL, &name)) < 0 ||
	    (rc = otlp_jstring(c, s, "traceId", "trace_id", &id)) < 0 ||
	    (rc = otlp_jstring(c, s, "spanId", "span_id", &id)) < 0 ||
	    (rc = otlp_jstring(c, s, "parentSpanId", "parent_span_id", &id)) < 0 ||
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
	     (rc = otlp_jstring(c, st, "message", NULL, &id)) < 0))
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
int otlp_json_flags(void)
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

int otlp_json_parse(const char *body, size_t len, size_t mem_max, int depth_max,
		    struct json_object **root, size_t *cost, char *why, size_t whylen)
{
	struct json_tokener *tok;
	enum json_tokener_error err;
	json_object *o;
	size_t end, depth;

	*root = NULL;
	if (otlp_json_scan(body, len, cost, &depth) < 0)
		return (snprintf(why, whylen, "JSON: a quote ' outside a string"), -EBADMSG);
	if (depth > (size_t)depth_max) {
		snprintf(why, whylen, "JSON nested deeper than %d", depth_max);
		return -E2BIG;
	}
	if (*cost > mem_max) {
		snprintf(why, whylen, "request over the decoder's memory budget");
		return -ENOMEM;
	}
	if (len > INT32_MAX)
		return (snprintf(why, whylen, "request too long"), -EBADMSG);
	if ((tok = json_tokener_new_ex(depth_max)) == NULL)
		return -ENOMEM;
	json_tokener_set_flags(tok, otlp_json_flags());
	o = json_tokener_parse_ex(tok, body, (int)len);
	err = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (o == NULL || err != json_tokener_success) {
		json_object_put(o);
		if (err == json_tokener_error_depth) {
			snprintf(why, whylen, "JSON nested deeper than %d", depth_max);
			return -E2BIG;
		}
		/* json-c 0.16 has no error of its own for a failed allocation */
		snprintf(why, whylen, "JSON: %s", err == json_tokener_continue ? "cut short" :
			 err == json_tokener_success ? "null, not a request" : json_tokener_error_desc(err));
		return -EBADMSG;
	}
	for (; end < len; end++) {
		if (!strchr(" \t\r\n", body[end]) || body[end] == '\0') {
			json_object_put(o);
			return (snprintf(why, whylen, "JSON: bytes after the request"), -EBADMSG);
		}
	}
	*root = o;
	return 0;
}

static int otlp_json_ref(const char *body, size_t len, size_t mem_max, struct otlp_ctx *c)
{
	json_object *root;
	struct otlp_jwalk w = { .c = c };
	size_t cost;
	int rc;

	rc = otlp_json_parse(body, len, mem_max, OTLP_JSON_DEPTH, &root, &cost, c->res->message,
			     sizeof(c->res->message));
	if (rc < 0)
		return rc;
	if ((rc = otlp_jrequest(&w, root)) == 0) {
		w.report = true;
		rc = otlp_jrequest(&w, root);
	}
	json_object_put(root);
	return rc;
}

int otlp_decode_json_ref(const void *body, size_t len, size_t mem_max, otlp_span_fn fn, void *arg,
			 struct otlp_result *res)
{
	struct otlp_ctx c = { .fn = fn, .arg = arg, .res = res };
	int rc;

	memset(res, 0, sizeof(*res));
	rc = otlp_json_ref(body, len, mem_max == 0 ? OTLP_MEM_MAX : mem_max, &c);
	if (rc < 0) {
		res->accepted = res->rejected = 0;
		if (res->message[0] == '\0')
			snprintf(res->message, sizeof(res->message), "request does not decode");
	}
	return rc;
}
