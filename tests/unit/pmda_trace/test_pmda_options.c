/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * common/pmda_options.h, the one reader of the agents' numbers: decimal
 * only ("010" is ten; hex, exponents, trailing text refused), whole,
 * in range, with overflow caught; byte sizes with their powers of 1024
 * and the shortest text of one.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "pmda_options.h"

static void integers(void **state)
{
	long long v = 42;

	(void)state;
	assert_int_equal(sdk_parse_integer("010", 0, 65535, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(sdk_parse_integer(" +7", 0, 9, &v), 0);	/* as strtol reads */
	assert_int_equal(v, 7);
	assert_int_equal(sdk_parse_integer("-8", -8, 7, &v), 0);
	assert_int_equal(v, -8);
	assert_int_equal(sdk_parse_integer("-0", 0, 1, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(sdk_parse_integer("-9223372036854775808", LLONG_MIN, 0, &v), 0);
	assert_true(v == LLONG_MIN);
	v = 42;
	assert_int_equal(sdk_parse_integer("0x10", 0, 65535, &v), -EINVAL);
	assert_int_equal(sdk_parse_integer("1e3", 0, 65535, &v), -EINVAL);
	assert_int_equal(sdk_parse_integer("12abc", 0, 65535, &v), -EINVAL);
	assert_int_equal(sdk_parse_integer("1 ", 0, 65535, &v), -EINVAL);
	assert_int_equal(sdk_parse_integer("", 0, 65535, &v), -EINVAL);
	assert_int_equal(sdk_parse_integer("-", 0, 65535, &v), -EINVAL);
	assert_int_equal(sdk_parse_integer("65536", 0, 65535, &v), -ERANGE);
	assert_int_equal(sdk_parse_integer("-1", 0, 65535, &v), -ERANGE);
	assert_int_equal(sdk_parse_integer("9223372036854775808", 0, LLONG_MAX, &v), -ERANGE);
	assert_int_equal(sdk_parse_integer("99999999999999999999", 0, LLONG_MAX, &v), -ERANGE);
	assert_int_equal(v, 42);	/* untouched on error */
}

static void decimals(void **state)
{
	double v = 42;

	(void)state;
	assert_int_equal(sdk_parse_decimal("0.25", 0.001, 3600, &v), 0);
	assert_true(v == 0.25);
	assert_int_equal(sdk_parse_decimal("5", 0.001, 3600, &v), 0);
	assert_true(v == 5);
	assert_int_equal(sdk_parse_decimal(".5", 0.001, 3600, &v), 0);
	assert_true(v == 0.5);
	assert_int_equal(sdk_parse_decimal("010.50", 0.001, 3600, &v), 0);
	assert_true(v == 10.5);
	assert_int_equal(sdk_parse_decimal("1e3", 0.001, 3600, &v), -EINVAL);
	assert_int_equal(sdk_parse_decimal("0x1p3", 0.001, 3600, &v), -EINVAL);
	assert_int_equal(sdk_parse_decimal("inf", 0.001, 3600, &v), -EINVAL);
	assert_int_equal(sdk_parse_decimal("nan", 0.001, 3600, &v), -EINVAL);
	assert_int_equal(sdk_parse_decimal(".", 0.001, 3600, &v), -EINVAL);
	assert_int_equal(sdk_parse_decimal("1.2.3", 0.001, 3600, &v), -EINVAL);
	assert_int_equal(sdk_parse_decimal("0", 0.001, 3600, &v), -ERANGE);
	assert_int_equal(sdk_parse_decimal("3600.5", 0.001, 3600, &v), -ERANGE);
}

static void bytes(void **state)
{
	static const struct { const char *s; uint64_t v; } ok[] = {
		{ "65536", 65536 }, { "64k", 65536 }, { "64K", 65536 }, { "64KiB", 65536 },
		{ "64kib", 65536 }, { "64M", 64 << 20 }, { "64MiB", 64 << 20 }, { "64m", 64 << 20 },
		{ "1G", UINT64_C(1) << 30 }, { "1GiB", UINT64_C(1) << 30 }, { "010k", 10240 },
		{ "0", 0 },
	};
	static const char *const bad[] = {
		"", "k", "64KB", "64MB", "1GB", "64 k", "64kk", "1.5M", "-1", "+1k", "64T", "0x10",
		"64KiBs",
	};
	uint64_t v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 1;
		if (sdk_parse_bytes(ok[i].s, 0, UINT64_MAX, &v) != 0 || v != ok[i].v)
			fail_msg("'%s': %llu", ok[i].s, (unsigned long long)v);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sdk_parse_bytes(bad[i], 0, UINT64_MAX, &v) != -EINVAL)
			fail_msg("'%s' taken", bad[i]);
	assert_int_equal(sdk_parse_bytes("64k", 1 << 20, 1 << 30, &v), -ERANGE);
	assert_int_equal(sdk_parse_bytes("2G", 1 << 20, 1 << 30, &v), -ERANGE);
	assert_int_equal(sdk_parse_bytes("17179869184G", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(sdk_parse_bytes("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
}

static void bytes_text(void **state)
{
	char buf[24];

	(void)state;
	assert_string_equal(sdk_bytes_text(64 << 20, buf, sizeof(buf)), "64M");
	assert_string_equal(sdk_bytes_text(1536, buf, sizeof(buf)), "1536");
	assert_string_equal(sdk_bytes_text(2048, buf, sizeof(buf)), "2k");
	assert_string_equal(sdk_bytes_text(UINT64_C(1) << 40, buf, sizeof(buf)), "1024G");
	assert_string_equal(sdk_bytes_text(0, buf, sizeof(buf)), "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(integers),
		cmocka_unit_test(decimals),
		cmocka_unit_test(bytes),
		cmocka_unit_test(bytes_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
