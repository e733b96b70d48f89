/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/utf8.h, the UTF-8 helpers the agents and libraries share: one
 * sequence's length and code point (well-formed forms only), a cut at a
 * character boundary (4-byte characters, bytes that are not UTF-8), the
 * cleaning copy, and the JSON string escaper (escapes, U+FFFD, the exact
 * room it needs), with label_text.h's label set over it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "utf8.h"
#include "label_text.h"

#define GRIN	"\xf0\x9f\x98\x80"	/* U+1F600, 4 bytes */
#define FFFD	SDK_UTF8_REPLACEMENT

static size_t len_of(const char *s, size_t n, uint32_t *cp)
{
	return sdk_utf8_len((const unsigned char *)s, n, cp);
}

static void sequence_length(void **state)
{
	uint32_t cp;

	(void)state;
	assert_int_equal(len_of("A", 1, &cp), 1);
	assert_int_equal(cp, 'A');
	assert_int_equal(len_of("\xc3\xa9", 2, &cp), 2);
	assert_int_equal(cp, 0xe9);
	assert_int_equal(len_of("\xe2\x82\xac", 3, &cp), 3);
	assert_int_equal(cp, 0x20ac);
	assert_int_equal(len_of(GRIN, 4, &cp), 4);
	assert_int_equal(cp, 0x1f600);
	assert_int_equal(len_of("\xf4\x8f\xbf\xbf", 4, &cp), 4);	/* U+10FFFF */
	assert_int_equal(cp, 0x10ffff);
	/* not well-formed */
	assert_int_equal(len_of("\x80", 1, &cp), 0);		/* a lone continuation */
	assert_int_equal(len_of("\xc0\x80", 2, &cp), 0);	/* overlong NUL */
	assert_int_equal(len_of("\xc1\xbf", 2, &cp), 0);
	assert_int_equal(len_of("\xe0\x80\x80", 3, &cp), 0);	/* overlong */
	assert_int_equal(len_of("\xed\xa0\x80", 3, &cp), 0);	/* a surrogate */
	assert_int_equal(len_of("\xf0\x80\x80\x80", 4, &cp), 0);
	assert_int_equal(len_of("\xf4\x90\x80\x80", 4, &cp), 0);	/* over U+10FFFF */
	assert_int_equal(len_of("\xf5\x80\x80\x80", 4, &cp), 0);
	assert_int_equal(len_of("\xff", 1, &cp), 0);
	assert_int_equal(len_of(GRIN, 3, &cp), 0);		/* cut short */
	assert_int_equal(len_of("\xc3" "A", 2, &cp), 0);
}

static void cut(void **state)
{
	static const char e[] = "a\xc3\xa9z";			/* a, é, z: 4 bytes */
	static const char g[] = "a" GRIN "b";			/* 6 bytes */
	char name[64];

	(void)state;
	/* whole when it fits, whatever the bytes */
	assert_int_equal(sdk_utf8_cut(e, 4, 4), 4);
	assert_int_equal(sdk_utf8_cut("a\xc3", 2, 8), 2);
	assert_int_equal(sdk_utf8_cut(e, 4, 0), 0);
	/* never inside a character */
	assert_int_equal(sdk_utf8_cut(e, 4, 1), 1);
	assert_int_equal(sdk_utf8_cut(e, 4, 2), 1);
	assert_int_equal(sdk_utf8_cut(e, 4, 3), 3);
	for (size_t max = 1; max <= 4; max++)
		assert_int_equal(sdk_utf8_cut(g, 6, max), 1);
	assert_int_equal(sdk_utf8_cut(g, 6, 5), 5);
	assert_int_equal(sdk_utf8_cut(GRIN GRIN, 8, 7), 4);
	assert_int_equal(sdk_utf8_cut(GRIN, 4, 3), 0);		/* first character too long */
	/* bytes that are not UTF-8 count as one each, and are kept */
	assert_int_equal(sdk_utf8_cut("\xff\xfe\xfd", 3, 2), 2);
	assert_int_equal(sdk_utf8_cut("\x80\x80\x80", 3, 1), 1);
	assert_int_equal(sdk_utf8_cut("ab\xc3" "c", 4, 3), 3);	/* a lead cut short is one byte */
	assert_int_equal(sdk_utf8_cut("a\xed\xa0\x80z", 5, 3), 3);	/* a surrogate: one a byte */
	/* decode.c's case: 59 x 'a' and 'é' cut to 60 bytes */
	memset(name, 'a', 59);
	memcpy(name + 59, "\xc3\xa9", 2);
	assert_int_equal(sdk_utf8_cut(name, 61, 60), 59);
}

static void clean(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(sdk_utf8_clean(out, sizeof(out), "caf\xc3\xa9"), 5);
	assert_string_equal(out, "caf\xc3\xa9");
	assert_int_equal(sdk_utf8_clean(out, sizeof(out), "a\xff" "b\xc0\x80"), 11);
	assert_string_equal(out, "a" FFFD "b" FFFD FFFD);
	/* full: cut between characters, NUL-terminated */
	assert_int_equal(sdk_utf8_clean(out, 4, "ab" GRIN), 2);
	assert_string_equal(out, "ab");
	assert_int_equal(sdk_utf8_clean(out, 4, "\xff"), 3);
	assert_int_equal(sdk_utf8_clean(out, 3, "\xff"), 0);
	assert_string_equal(out, "");
	assert_int_equal(sdk_utf8_clean(out, 1, "abc"), 0);
}

static void json_escaper(void **state)
{
	char buf[128], ctl[9];

	(void)state;
	assert_int_equal(sdk_json_string(buf, sizeof(buf), "a\"b\\c"), 9);
	assert_string_equal(buf, "\"a\\\"b\\\\c\"");
	assert_int_equal(sdk_json_string(buf, sizeof(buf), "\n\t\x01\x1f\x7f"), 27);
	assert_string_equal(buf, "\"\\u000a\\u0009\\u0001\\u001f\x7f\"");
	/* characters of every length as they are */
	assert_true(sdk_json_string(buf, sizeof(buf), "\xc3\xa9\xe2\x82\xac" GRIN) > 0);
	assert_string_equal(buf, "\"\xc3\xa9\xe2\x82\xac" GRIN "\"");
	/* bytes that are not UTF-8: one U+FFFD each */
	assert_true(sdk_json_string(buf, sizeof(buf), "x\xff\xc0\x80\xed\xa0\x80" "y") > 0);
	assert_string_equal(buf, "\"x" FFFD FFFD FFFD FFFD FFFD FFFD "y\"");
	assert_true(sdk_json_string(buf, sizeof(buf), "\xf0\x9f\x98") > 0);	/* cut short */
	assert_string_equal(buf, "\"" FFFD FFFD FFFD "\"");
	assert_int_equal(sdk_json_string(buf, sizeof(buf), ""), 2);
	assert_string_equal(buf, "\"\"");
	/* room: quotes, text, NUL exactly; 6 a byte and 3 always */
	assert_int_equal(sdk_json_string(buf, 5, "ab"), 4);
	assert_int_equal(sdk_json_string(buf, 4, "ab"), -1);
	assert_int_equal(sdk_json_string(buf, 2, ""), -1);
	assert_int_equal(sdk_json_string(buf, 6, GRIN), -1);
	assert_int_equal(sdk_json_string(buf, 7, GRIN), 6);
	memset(ctl, 0x01, 8);
	ctl[8] = '\0';
	assert_int_equal(sdk_json_string(buf, 6 * 8 + 3, ctl), 6 * 8 + 2);
	assert_int_equal(sdk_json_string(buf, 6 * 8 + 2, ctl), -1);
}

static void json_label(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(sdk_json_label(buf, sizeof(buf), "le", "0.5"), 12);
	assert_string_equal(buf, "{\"le\":\"0.5\"}");
	assert_true(sdk_json_label(buf, sizeof(buf), "tag", "a\xff") > 0);
	assert_string_equal(buf, "{\"tag\":\"a" FFFD "\"}");
	assert_int_equal(sdk_json_label(buf, 12, "le", "0.5"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sequence_length),
		cmocka_unit_test(cut),
		cmocka_unit_test(clean),
		cmocka_unit_test(json_escaper),
		cmocka_unit_test(json_label),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
