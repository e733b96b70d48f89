/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_trace/otlp/cors.h, the OTLP receiver's CORS: the check of -C's
 * list, the origin matcher (exact, one '*' for zero or more characters,
 * '*' alone for any, without regard to case, as the OpenTelemetry
 * Collector's cors.allowed_origins), a list's verdict on an origin, and
 * the bounded echo of Access-Control-Request-Headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../../pmda_trace/otlp/cors.h"

static int match(const char *pattern, const char *origin)
{
	return otlp_cors_match(pattern, strlen(pattern), origin);
}

static int checked(const char *list)
{
	char why[128];

	return otlp_cors_check(list, why, sizeof(why));
}

static void exact(void **state)
{
	(void)state;
	assert_true(match("http://127.0.0.1:8080", "http://127.0.0.1:8080"));
	assert_true(match("http://127.0.0.1:8080", "HTTP://127.0.0.1:8080"));
	assert_false(match("http://127.0.0.1:8080", "http://127.0.0.1:808"));
	assert_false(match("http://127.0.0.1:8080", "http://127.0.0.1:80800"));
	assert_false(match("http://127.0.0.1:8080", "https://127.0.0.1:8080"));
	assert_false(match("http://127.0.0.1:8080", "http://127.0.0.1"));
	assert_false(match("http://127.0.0.1:8080", ""));
}

static void wildcard(void **state)
{
	(void)state;
	assert_true(match("*", "http://anything:1"));
	assert_true(match("*", "null"));
	assert_true(match("https://*.example.com", "https://shop.example.com"));
	assert_true(match("https://*.example.com", "https://a.b.example.com"));
	assert_true(match("https://*.example.com", "https://.example.com"));	/* zero characters */
	assert_true(match("https://*.example.com", "HTTPS://Shop.Example.COM"));
	assert_false(match("https://*.example.com", "https://example.com"));
	assert_false(match("https://*.example.com", "http://shop.example.com"));
	assert_false(match("https://*.example.com", "https://shop.example.com.evil.test"));
	assert_false(match("https://*.example.com", "https://shop.example.co"));
	/* prefix and suffix may not overlap */
	assert_false(match("ab*ba", "aba"));
	assert_true(match("ab*ba", "abba"));
	assert_true(match("http://127.0.0.1:*", "http://127.0.0.1:8080"));
	assert_false(match("http://127.0.0.1:*", "http://127.0.0.10"));
	/* a pattern's length bounds it: the rest of a list is not read */
	assert_true(otlp_cors_match("http://a,http://b", 8, "http://a"));
}

static void list(void **state)
{
	const char *l = "http://127.0.0.1:8080, https://*.example.com ,http://localhost:3000";

	(void)state;
	assert_true(otlp_cors_allowed(l, "http://127.0.0.1:8080"));
	assert_true(otlp_cors_allowed(l, "https://www.example.com"));
	assert_true(otlp_cors_allowed(l, "http://localhost:3000"));
	assert_false(otlp_cors_allowed(l, "http://localhost:3001"));
	assert_false(otlp_cors_allowed(l, "http://127.0.0.1:8080, https://x.example.com"));
	assert_false(otlp_cors_allowed(l, ""));
	assert_false(otlp_cors_allowed(l, NULL));
	assert_false(otlp_cors_allowed(NULL, "http://127.0.0.1:8080"));
	assert_false(otlp_cors_allowed("", "http://127.0.0.1:8080"));
	assert_true(otlp_cors_allowed("*", "http://127.0.0.1:1"));
	assert_true(otlp_cors_allowed("http://a, *", "http://b"));
	assert_false(otlp_cors_allowed("*", ""));
}

static void check_list(void **state)
{
	char why[128], longer[OTLP_CORS_ORIGIN_MAX + 2];

	(void)state;
	assert_int_equal(checked("*"), 0);
	assert_int_equal(checked("http://127.0.0.1:8080"), 0);
	assert_int_equal(checked(" http://a , https://*.b.example "), 0);
	assert_int_equal(checked(NULL), -1);
	assert_int_equal(checked(""), -1);
	assert_int_equal(checked(" "), -1);
	assert_int_equal(checked("http://a,,http://b"), -1);
	assert_int_equal(checked("http://a,"), -1);
	assert_int_equal(checked(",http://a"), -1);
	assert_int_equal(otlp_cors_check("http://a b", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "blank"));
	assert_int_equal(checked("http://a\x01"), -1);
	assert_int_equal(checked("http://\xc3\xa9"), -1);
	assert_int_equal(otlp_cors_check("https://*.*.example.com", why, sizeof(why)), -1);
	assert_non_null(strstr(why, "more than one '*'"));
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(checked(longer), -1);
	longer[OTLP_CORS_ORIGIN_MAX] = '\0';
	assert_int_equal(checked(longer), 0);
}

static void allow_headers(void **state)
{
	char out[OTLP_CORS_HEADERS_MAX + 32], big[OTLP_CORS_HEADERS_MAX + 2];

	(void)state;
	otlp_cors_allow_headers(NULL, out, sizeof(out));
	assert_string_equal(out, "Content-Type");
	otlp_cors_allow_headers("content-type", out, sizeof(out));
	assert_string_equal(out, "Content-Type, content-type");
	otlp_cors_allow_headers(" content-type,x-custom-header ", out, sizeof(out));
	assert_string_equal(out, "Content-Type, content-type,x-custom-header ");
	otlp_cors_allow_headers("", out, sizeof(out));
	assert_string_equal(out, "Content-Type");
	otlp_cors_allow_headers("x-a;b", out, sizeof(out));	/* not a header name */
	assert_string_equal(out, "Content-Type");
	otlp_cors_allow_headers("x-a\"", out, sizeof(out));
	assert_string_equal(out, "Content-Type");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	otlp_cors_allow_headers(big, out, sizeof(out));	/* over the bound */
	assert_string_equal(out, "Content-Type");
	big[OTLP_CORS_HEADERS_MAX] = '\0';
	otlp_cors_allow_headers(big, out, sizeof(out));
	assert_int_equal(strlen(out), strlen("Content-Type, ") + OTLP_CORS_HEADERS_MAX);
	otlp_cors_allow_headers(big, out, 20);	/* a short buffer: cut, still a string */
	assert_int_equal(strlen(out), 19);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exact),
		cmocka_unit_test(wildcard),
		cmocka_unit_test(list),
		cmocka_unit_test(check_list),
		cmocka_unit_test(allow_headers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
