/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP JSON walker (pmda_trace/otlp/jsonwalk.c, through otlp_decode)
 * against json-c's path (ref_json.c, otlp_decode_json_ref): each body
 * goes to both, and both answers are checked, the return code and the
 * spans reported. Where they differ on purpose (see
 * tests/fuzz/fuzz_otlp_json_diff.c) each answer is checked apart.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../../pmda_trace/otlp/otlp.h"
#include "../../../pmda_trace/otlp/otlp_priv.h"

/* The spans a decoder reported, as "service|ns|name|kind|status|start|end;" each. */
struct got {
	char s[2048];
};

static int collect(void *arg, const struct otlp_span *sp)
{
	struct got *g = arg;
	size_t n = strlen(g->s);

	snprintf(g->s + n, sizeof(g->s) - n, "%s|%s|%s|%d|%d|%llu|%llu;", sp->service, sp->ns,
		 sp->name, (int)sp->kind, (int)sp->status, (unsigned long long)sp->start_ns,
		 (unsigned long long)sp->end_ns);
	return 0;
}

/*
 * json-c's answer where it depends on json-c's version: 0.16 (Debian 12)
 * takes what 0.18 (Debian 13, unstable) refuses, such as a raw control
 * character in a string or an integer past 64 bits.
 */
#define REF_ANY	INT_MIN

/*
 * @body (@len bytes; 0: strlen) to the walker, which must return @want_w,
 * and to json-c's path, @want_ref (REF_ANY: 0 or -EBADMSG); where both
 * return 0 they report @spans (NULL: not checked) and the same result.
 */
static void both_len(const char *body, size_t len, int want_w, int want_ref, const char *spans)
{
	struct otlp_result rw, rr;
	struct got gw = { "" }, gr = { "" };
	int w, r;

	if (len == 0)
		len = strlen(body);
	w = otlp_decode(OTLP_JSON, body, len, 0, collect, &gw, &rw);
	r = otlp_decode_json_ref(body, len, 0, collect, &gr, &rr);
	if (w != want_w || (want_ref == REF_ANY ? r != 0 && r != -EBADMSG : r != want_ref))
		fail_msg("%.*s: walker %d ('%s'), json-c %d ('%s'); want %d, %d", (int)len, body, w,
			 rw.message, r, rr.message, want_w, want_ref);
	if (w == 0 && spans != NULL && strcmp(gw.s, spans) != 0)
		fail_msg("%s: walker reported %s, not %s", body, gw.s, spans);
	if (r == 0 && spans != NULL && strcmp(gr.s, spans) != 0)
		fail_msg("%s: json-c reported %s, not %s", body, gr.s, spans);
	if (w == 0 && r == 0) {
		assert_string_equal(gw.s, gr.s);
		assert_memory_equal(&rw, &rr, sizeof(rw));
	}
	if (w < 0)
		assert_true(gw.s[0] == '\0' && rw.accepted == 0 && rw.message[0] != '\0');
}

static void both(const char *body, int want, const char *spans)
{
	both_len(body, 0, want, want, spans);
}

/* A request of one resource (its members @res) and one span (its members @span). */
static const char *req(const char *res, const char *span)
{
	static char buf[8192];

	snprintf(buf, sizeof(buf), "{\"resourceSpans\":[{%s%s\"scopeSpans\":[{\"spans\":[{%s}]}]}]}",
		 res, res[0] ? "," : "", span);
	return buf;
}

#define T	"\"startTimeUnixNano\":\"10\",\"endTimeUnixNano\":\"20\""
#define SVC(s)	"\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"" s "\"}}]}"

static void resource_after_spans(void **state)
{
	(void)state;
	both("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T "}]}],"
	     SVC("late") "}]}", 0, "late||a|0|0|10|20;");
	/* one late, one early, one without: each its own */
	both("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T "}]}]," SVC("one") "},"
	     "{" SVC("two") ",\"scopeSpans\":[{\"spans\":[{\"name\":\"b\"," T "}]}]},"
	     "{\"scopeSpans\":[{\"spans\":[{\"name\":\"c\"," T "}]}]}]}", 0,
	     "one||a|0|0|10|20;two||b|0|0|10|20;unknown_service||c|0|0|10|20;");
	/* the namespace after the name, a non-string service.name first */
	both("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T "}]}],"
	     "\"resource\":{\"attributes\":[{\"value\":{\"stringValue\":\"ns\"},\"key\":\"service.namespace\"},"
	     "{\"key\":\"service.name\",\"value\":{\"intValue\":5}},"
	     "{\"key\":\"service.name\",\"value\":{\"stringValue\":\"no\"}}]}}]}", 0,
	     "unknown_service|ns|a|0|0|10|20;");
}

static void duplicate_keys(void **state)
{
	(void)state;
	/* the last counts */
	both(req("", "\"name\":\"a\",\"name\":\"b\"," T), 0, "unknown_service||b|0|0|10|20;");
	both(req("", "\"name\":\"a\",\"name\":null," T), 0, "unknown_service||unnamed|0|0|10|20;");
	both(req(SVC("first") "," SVC("second"), "\"name\":\"a\"," T), 0, "second||a|0|0|10|20;");
	both(req("\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"stringValue\":\"x\"},"
		 "\"value\":{\"stringValue\":\"y\"}}],\"attributes\":[]}", "\"name\":\"a\"," T), 0,
	     "unknown_service||a|0|0|10|20;");
	both(req("", "\"status\":{\"code\":2},\"status\":{}," T), 0, "unknown_service||unnamed|0|0|10|20;");
	both(req("", "\"kind\":3,\"kind\":\"SPAN_KIND_SERVER\"," T), 0, "unknown_service||unnamed|2|0|10|20;");
	/* only the spans of the member that counts are reported */
	both("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T "}],"
	     "\"spans\":[{\"name\":\"b\"," T "}]}]}]}", 0, "unknown_service||b|0|0|10|20;");
	both("{\"resourceSpans\":[{\"scope_spans\":[{\"spans\":[{\"name\":\"a\"," T "}]}],"
	     "\"scopeSpans\":[{\"spans\":[{\"name\":\"b\"," T "}]}],"
	     "\"scope_spans\":[{\"spans\":[{\"name\":\"c\"," T "}]}]}]}", 0, "unknown_service||b|0|0|10|20;");
	both("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T "}]}]}],"
	     "\"resource_spans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"b\"," T "}]}]}],"
	     "\"resourceSpans\":[{" SVC("s") ",\"scopeSpans\":[{\"spans\":[{\"name\":\"c\"," T "}]}]}]}",
	     0, "s||c|0|0|10|20;");
	both("{\"resource_spans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T "}]}]}],"
	     "\"resource_spans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"b\"," T "}]}]}]}",
	     0, "unknown_service||b|0|0|10|20;");
	/* an earlier value of the wrong type is no error, a later one is */
	both("{\"resourceSpans\":5,\"resourceSpans\":[]}", 0, "");
	both("{\"resourceSpans\":[],\"resourceSpans\":5}", -EBADMSG, NULL);
	both(req("", "\"name\":7,\"name\":\"a\"," T), 0, "unknown_service||a|0|0|10|20;");
	/* the JSON name hides the proto name, wherever it is */
	both(req("", "\"startTimeUnixNano\":\"5\",\"start_time_unix_nano\":\"x\",\"endTimeUnixNano\":\"6\""),
	     0, "unknown_service||unnamed|0|0|5|6;");
	both(req("", "\"start_time_unix_nano\":\"x\",\"startTimeUnixNano\":\"5\",\"endTimeUnixNano\":\"6\""),
	     0, "unknown_service||unnamed|0|0|5|6;");
	both(req("", "\"start_time_unix_nano\":\"7\",\"end_time_unix_nano\":8"), 0,
	     "unknown_service||unnamed|0|0|7|8;");
	both(req("\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":{\"string_value\":\"s\","
		 "\"stringValue\":\"c\"}}]}", T), 0, "c||unnamed|0|0|10|20;");
}

static void escapes(void **state)
{
	(void)state;
	both(req("", "\"name\":\"a\\u00e9\\ud83d\\ude00\\u0041\\/\\\"\"," T), 0,
	     "unknown_service||a\xc3\xa9\xf0\x9f\x98\x80" "A/\"|0|0|10|20;");
	/* half a surrogate pair is U+FFFD; a control character '?' */
	both(req("", "\"name\":\"\\ud800x\\udc00\\ud800\\ud800\\n\"," T), 0,
	     "unknown_service||\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd?|0|0|10|20;");
	/* keys are unescaped too */
	both(req("", "\"n\\u0061me\":\"k\",\"\\u006bind\":1," T), 0, "unknown_service||k|1|0|10|20;");
	both(req("", "\"name\":\"\\x41\"," T), -EBADMSG, NULL);
	both(req("", "\"name\":\"\\u12\"," T), -EBADMSG, NULL);
}

static void snake_case(void **state)
{
	(void)state;
	both("{\"resource_spans\":[{\"scope_spans\":[{\"spans\":[{\"name\":\"s\","
	     "\"start_time_unix_nano\":1,\"end_time_unix_nano\":2}]}],\"resource\":{\"attributes\":"
	     "[{\"key\":\"service.name\",\"value\":{\"string_value\":\"snake\"}}]}}]}", 0, "snake||s|0|0|1|2;");
	both(req("", "\"trace_id\":5," T), -EBADMSG, NULL);
	both(req("", "\"attributes\":[{\"key\":\"k\",\"value\":{\"kvlist_value\":{\"values\":5}}}]," T),
	     -EBADMSG, NULL);
}

static void enums(void **state)
{
	(void)state;
	both(req("", "\"kind\":\"SPAN_KIND_CLIENT\",\"status\":{\"code\":\"STATUS_CODE_ERROR\"}," T), 0,
	     "unknown_service||unnamed|3|2|10|20;");
	both(req("", "\"kind\":5,\"status\":{\"code\":1}," T), 0, "unknown_service||unnamed|5|1|10|20;");
	both(req("", "\"kind\":\"SPAN_KIND_FOO\"," T), -EBADMSG, NULL);
	both(req("", "\"kind\":\"span_kind_client\"," T), -EBADMSG, NULL);
	both(req("", "\"kind\":true," T), -EBADMSG, NULL);
	both(req("", "\"status\":{\"code\":\"2\"}," T), -EBADMSG, NULL);
	/* out of range: the span is refused, not the request */
	both(req("", "\"kind\":9," T), 0, "");
	both(req("", "\"kind\":-1," T), 0, "");
	both_len(req("", "\"kind\":99999999999999999999," T), 0, 0, REF_ANY, "");
	both_len(req("", "\"status\":{\"code\":-99999999999999999999}," T), 0, 0, REF_ANY, "");
}

static void times(void **state)
{
	(void)state;
	both(req("", "\"startTimeUnixNano\":1700000000000000000,\"endTimeUnixNano\":\"1700000000000000001\""),
	     0, "unknown_service||unnamed|0|0|1700000000000000000|1700000000000000001;");
	both(req("", "\"startTimeUnixNano\":\"0001\",\"endTimeUnixNano\":\"18446744073709551615\""), 0,
	     "unknown_service||unnamed|0|0|1|18446744073709551615;");
	both(req("", "\"startTimeUnixNano\":1,\"endTimeUnixNano\":18446744073709551615"), 0,
	     "unknown_service||unnamed|0|0|1|18446744073709551615;");
	both(req("", "\"startTimeUnixNano\":\"\\u0031\",\"endTimeUnixNano\":\"2\""), 0,
	     "unknown_service||unnamed|0|0|1|2;");
	both(req("", "\"startTimeUnixNano\":\"18446744073709551616\",\"endTimeUnixNano\":\"2\""), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":\"\",\"endTimeUnixNano\":\"2\""), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":\"+1\",\"endTimeUnixNano\":\"2\""), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":\" 1\",\"endTimeUnixNano\":\"2\""), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":-1,\"endTimeUnixNano\":\"2\""), -EBADMSG, NULL);
	/* -0 is 0: no start time, the span refused */
	both(req("", "\"startTimeUnixNano\":-0,\"endTimeUnixNano\":2"), 0, "");
	/* a number past UINT64_MAX: json-c clamps it, the walker refuses it as it does the string */
	both_len(req("", "\"startTimeUnixNano\":1,\"endTimeUnixNano\":18446744073709551616"), 0,
		 -EBADMSG, REF_ANY, NULL);
}

static void not_integers(void **state)
{
	(void)state;
	both(req("", "\"startTimeUnixNano\":1.5,\"endTimeUnixNano\":2"), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":1.0,\"endTimeUnixNano\":2"), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":1e3,\"endTimeUnixNano\":2"), -EBADMSG, NULL);
	both(req("", "\"startTimeUnixNano\":\"1e3\",\"endTimeUnixNano\":2"), -EBADMSG, NULL);
	both(req("", "\"kind\":1.0," T), -EBADMSG, NULL);
	/* where the decoder does not read, any JSON number will do */
	both(req("", "\"attributes\":[{\"key\":\"k\",\"value\":{\"doubleValue\":-1.5E-3}}]," T), 0,
	     "unknown_service||unnamed|0|0|10|20;");
}

/* @n arrays deep under an unknown key, then @tail. */
static char *deep(size_t n, const char *tail)
{
	char *s = malloc(2 * n + strlen(tail) + 16), *p = s;

	assert_non_null(s);
	p += sprintf(p, "{\"x\":");
	memset(p, '[', n - 1);
	p += n - 1;
	memset(p, ']', n - 1);
	p += n - 1;
	sprintf(p, "}%s", tail);
	return s;
}

static void depth(void **state)
{
	char *s;

	(void)state;
	s = deep(OTLP_JSON_DEPTH, "");
	both(s, 0, "");
	free(s);
	s = deep(OTLP_JSON_DEPTH + 1, "");
	both(s, -E2BIG, NULL);
	free(s);
	/* too deep and not JSON: json-c's path says too deep first, as the walker does */
	s = deep(OTLP_JSON_DEPTH + 2, " x");
	s[0] = 'x';	/* one level less */
	both(s, -E2BIG, NULL);
	free(s);
	/* but a quote ' anywhere before that */
	s = deep(OTLP_JSON_DEPTH + 1, " 'x'");
	both(s, -EBADMSG, NULL);
	free(s);
	/* json-c counts values: even a number in a container that deep is too deep
	 * (found by fuzz_otlp_json_diff), and that before a later syntax error */
	s = deep(OTLP_JSON_DEPTH, "");
	memmove(s + 5 + OTLP_JSON_DEPTH, s + 4 + OTLP_JSON_DEPTH, strlen(s + 4 + OTLP_JSON_DEPTH) + 1);
	s[4 + OTLP_JSON_DEPTH] = '1';
	both(s, -E2BIG, NULL);
	s[5 + OTLP_JSON_DEPTH] = '\xff';
	both(s, -E2BIG, NULL);
	/* but a byte above 0x7f there is bad first (found by fuzz_otlp_json_diff) */
	s[4 + OTLP_JSON_DEPTH] = '\x86';
	both(s, -EBADMSG, NULL);
	s[4 + OTLP_JSON_DEPTH] = '\xc3';
	s[5 + OTLP_JSON_DEPTH] = '\xa9';
	both(s, -EBADMSG, NULL);
	memcpy(s + 4 + OTLP_JSON_DEPTH, " ]", 2);
	both(s, 0, "");
	free(s);
	/* an attribute with no value counts at its depth */
	both("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"attributes\":[{\"key\":\"k\",\"value\":"
	     "{\"kvlistValue\":{\"values\":[{\"key\":\"k\"}]}}}]}]}]}]}", 0, "");
	/* a type error before a deep value is the error; one after it is not */
	{
		char buf[4096], *p = buf;

		p += sprintf(p, "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":%s,"
			     "\"attributes\":[{\"key\":\"k\",\"value\":", "5");
		for (int i = 0; i < OTLP_DEPTH_MAX + 1; i++)
			p += sprintf(p, "{\"arrayValue\":{\"values\":[");
		p += sprintf(p, "null");
		for (int i = 0; i < OTLP_DEPTH_MAX + 1; i++)
			p += sprintf(p, "]}}");
		sprintf(p, "}],\"status\":{\"code\":\"x\"}}]}]}]}");
		both(buf, -EBADMSG, NULL);
		memcpy(buf + strlen("{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\""), "nome", 4);
		both(buf, -E2BIG, NULL);
	}
}

/*
 * Whether json-c's path runs its tokener outside strict mode, as it does
 * where strict mode refuses non-ASCII strings (json-c 0.18, Debian 13:
 * ref_json.c's otlp_json_flags): there json-c takes words in any case
 * ("True"), a difference the walker does not share.
 */
static int json_c_lax(void)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *o;
	int lax;

	assert_non_null(tok);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, "\"\xc3\xa9\"", 4);
	lax = o == NULL;
	json_object_put(o);
	json_tokener_free(tok);
	return lax;
}

static void trailing(void **state)
{
	(void)state;
	both("{} x", -EBADMSG, NULL);
	both(" \t\r\n{}\n ", 0, "");
	both("{}{}", -EBADMSG, NULL);
	both("{}]", -EBADMSG, NULL);
	both_len("{}\0", 3, -EBADMSG, -EBADMSG, NULL);
	both("\f{}", -EBADMSG, NULL);
	both("\xef\xbb\xbf{}", -EBADMSG, NULL);	/* RFC 8259: no byte order mark */
	both("{\"a\":1,}", -EBADMSG, NULL);
	both("{\"a\":[1,]}", -EBADMSG, NULL);
	both("{/* c */}", -EBADMSG, NULL);
	both("{'a':1}", -EBADMSG, NULL);
	both("{\"a\":tru}", -EBADMSG, NULL);
	both_len("{\"a\":True}", 0, -EBADMSG, json_c_lax() ? 0 : -EBADMSG, NULL);
	both("{\"a\" 1}", -EBADMSG, NULL);
	both("", -EBADMSG, NULL);
	both("null", -EBADMSG, NULL);
	both("[]", -EBADMSG, NULL);
}

static void invalid_utf8(void **state)
{
	(void)state;
	both(req("", "\"name\":\"\xff\"," T), -EBADMSG, NULL);
	both(req("", "\"name\":\"\xe2\x82\"," T), -EBADMSG, NULL);
	both(req("", "\"name\":\"caf\xc3\xa9\"," T), 0, "unknown_service||caf\xc3\xa9|0|0|10|20;");
	/* json-c's check lets these through: overlong, a surrogate, past U+10FFFF */
	both_len(req("", "\"name\":\"\xc0\x80\"," T), 0, -EBADMSG, 0, NULL);
	both_len(req("", "\"name\":\"\xed\xa0\x80\"," T), 0, -EBADMSG, 0, NULL);
	both_len(req("", "\"name\":\"\xf4\x90\x80\x80\"," T), 0, -EBADMSG, 0, NULL);
}

/* What json-c takes that is not JSON, or reads otherwise: the walker is right. */
static void json_c_quirks(void **state)
{
	const char *w = "{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"a\"," T
		",\"attributes\":[{\"key\":\"k\",\"value\":{\"doubleValue\":%s}}]}]}]}]}";
	static const char *const nums[] = { "NaN", "Infinity", "-Infinity", "-01", "1.", "1.e5", "019.5", "-.0" };
	char buf[512];

	(void)state;
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		snprintf(buf, sizeof(buf), w, nums[i]);
		both_len(buf, 0, -EBADMSG, 0, NULL);
	}
	/* a control character unescaped in a string */
	both_len(req("", "\"name\":\"a\tb\"," T), 0, -EBADMSG, REF_ANY, NULL);
	both_len(req("", "\"traceId\":\"\x01\"," T), 0, -EBADMSG, REF_ANY, NULL);
	/* a \u0000: json-c cuts the key there, and compares values as C strings */
	both_len(req("", "\"name\\u0000x\":5," T), 0, 0, -EBADMSG, NULL);
	both_len(req("", "\"kind\":\"SPAN_KIND_SERVER\\u0000\"," T), 0, -EBADMSG, 0, NULL);
	both_len(req("", "\"startTimeUnixNano\":\"1\\u00002\",\"endTimeUnixNano\":\"3\""), 0, -EBADMSG, 0,
		 NULL);
}

/* The walker's memory is fixed; json-c's path bounds json-c's by the body. */
static void memory(void **state)
{
	char *s = malloc(64 * 1024), *p = s;
	struct otlp_result res;
	struct got g = { "" };

	(void)state;
	assert_non_null(s);
	p += sprintf(p, "{\"x\":[");
	for (int i = 0; i < 10000; i++)
		p += sprintf(p, "%s{}", i ? "," : "");
	sprintf(p, "]}");
	assert_int_equal(otlp_decode(OTLP_JSON, s, strlen(s), 1u << 20, collect, &g, &res), 0);
	assert_int_equal(otlp_decode_json_ref(s, strlen(s), 1u << 20, collect, &g, &res), -ENOMEM);
	assert_int_equal(otlp_decode(OTLP_JSON, "{}", 2, 2048, collect, &g, &res), -ENOMEM);
	assert_non_null(strstr(res.message, "memory"));
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(resource_after_spans),
		cmocka_unit_test(duplicate_keys),
		cmocka_unit_test(escapes),
		cmocka_unit_test(snake_case),
		cmocka_unit_test(enums),
		cmocka_unit_test(times),
		cmocka_unit_test(not_integers),
		cmocka_unit_test(depth),
		cmocka_unit_test(trailing),
		cmocka_unit_test(invalid_utf8),
		cmocka_unit_test(json_c_quirks),
		cmocka_unit_test(memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
