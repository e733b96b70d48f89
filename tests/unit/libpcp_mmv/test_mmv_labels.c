/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Label validation and label records (docs/mmv-format.md §4.8, §10.3; mmv_stats.h; docs/compatibility.md). */
#include "mmv_test.h"

static mmv_registry_t *reg(void)
{
	mmv_registry_t *r = mmv_stats_registry("labels", 7, 0);

	assert_non_null(r);
	return r;
}

static void expect_ok(mmv_registry_t *r, const char *name, const char *value,
		int type)
{
	assert_int_equal(mmv_stats_add_registry_label(r, name, value,
			(mmv_value_type_t)type, 0), 0);
}

static void expect_err(mmv_registry_t *r, const char *name, const char *value,
		int type, int err)
{
	errno = 0;
	assert_int_equal(mmv_stats_add_registry_label(r, name, value,
			(mmv_value_type_t)type, 0), -1);
	assert_int_equal(errno, err);
}

static void label_names(void **state)
{
	mmv_registry_t *r = reg();

	(void)state;
	expect_err(r, NULL, "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "a", NULL, MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "_a", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "1a", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "a-b", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "a b", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "a.b", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_err(r, "a\"b", "1", MMV_NUMBER_TYPE, EINVAL);
	expect_ok(r, "a", "1", MMV_NUMBER_TYPE);
	expect_ok(r, "Z9_x", "1", MMV_NUMBER_TYPE);
	mmv_stats_free(r);
}

static void number_values(void **state)
{
	static const char *good[] = { "1e5", "-3.5", "0", "42", "1.25E-3", "-0" };
	static const char *bad[] = { "abc", "0x10", "", "1.", "inf", "nan",
				     "5 ", "1e", "--1", "01", ".5", "+1" };
	mmv_registry_t *r = reg();
	char name[8];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(name, sizeof(name), "g%zu", i);
		expect_ok(r, name, good[i], MMV_NUMBER_TYPE);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(name, sizeof(name), "b%zu", i);
		expect_err(r, name, bad[i], MMV_NUMBER_TYPE, EINVAL);
	}
	mmv_stats_free(r);
}

static void boolean_null_string_values(void **state)
{
	mmv_registry_t *r = reg();

	(void)state;
	expect_ok(r, "t", "true", MMV_BOOLEAN_TYPE);
	expect_ok(r, "f", "false", MMV_BOOLEAN_TYPE);
	expect_err(r, "b1", "True", MMV_BOOLEAN_TYPE, EINVAL);
	expect_err(r, "b2", "1", MMV_BOOLEAN_TYPE, EINVAL);
	expect_err(r, "b3", "", MMV_BOOLEAN_TYPE, EINVAL);
	expect_err(r, "b4", "truex", MMV_BOOLEAN_TYPE, EINVAL);
	/* NULL_TYPE ignores the value */
	expect_ok(r, "n1", "anything at all", MMV_NULL_TYPE);
	expect_ok(r, "n2", "", MMV_NULL_TYPE);
	expect_ok(r, "s1", "\"acme\"", MMV_STRING_TYPE);
	expect_ok(r, "s2", "\"\"", MMV_STRING_TYPE);
	expect_ok(r, "s3", "\"a\\\"b\"", MMV_STRING_TYPE);
	expect_err(r, "s4", "acme", MMV_STRING_TYPE, EINVAL);
	expect_err(r, "s5", "\"", MMV_STRING_TYPE, EINVAL);
	expect_err(r, "s6", "\"a", MMV_STRING_TYPE, EINVAL);
	expect_err(r, "s7", "\"a\"b\"", MMV_STRING_TYPE, EINVAL);
	expect_err(r, "s8", "\"a\\x\"", MMV_STRING_TYPE, EINVAL);
	expect_err(r, "u0", "1", 0, EINVAL);
	expect_err(r, "u7", "1", 7, EINVAL);
	mmv_stats_free(r);
}

static void map_and_array_values(void **state)
{
	mmv_registry_t *r = reg();

	(void)state;
	expect_ok(r, "m1", "{\"k\":1}", MMV_MAP_TYPE);
	expect_ok(r, "m2", "{ \"k\" : 1 }", MMV_MAP_TYPE);
	expect_ok(r, "m3", "{}", MMV_MAP_TYPE);
	expect_ok(r, "m4", "{\"a\":[1,{\"b\":null}],\"c\":\"d\"}", MMV_MAP_TYPE);
	expect_err(r, "m5", "{abc}", MMV_MAP_TYPE, EINVAL);
	expect_err(r, "m6", "{\"k\":}", MMV_MAP_TYPE, EINVAL);
	expect_err(r, "m7", "{\"k\":1,}", MMV_MAP_TYPE, EINVAL);
	expect_err(r, "m8", "{", MMV_MAP_TYPE, EINVAL);
	expect_err(r, "m9", "[1]", MMV_MAP_TYPE, EINVAL);
	expect_err(r, "m10", "{\"k\" 1}", MMV_MAP_TYPE, EINVAL);
	expect_err(r, "m11", "{\"k\":1}{}", MMV_MAP_TYPE, EINVAL);
	expect_ok(r, "a1", "[1,2]", MMV_ARRAY_TYPE);
	expect_ok(r, "a2", "[]", MMV_ARRAY_TYPE);
	expect_ok(r, "a3", "[ \"x\" , true ]", MMV_ARRAY_TYPE);
	expect_err(r, "a4", "[1,]", MMV_ARRAY_TYPE, EINVAL);
	expect_err(r, "a5", "{}", MMV_ARRAY_TYPE, EINVAL);
	expect_err(r, "a6", "[", MMV_ARRAY_TYPE, EINVAL);
	expect_err(r, "a7", "[x]", MMV_ARRAY_TYPE, EINVAL);
	mmv_stats_free(r);
}

/* A string value of total length @n (quotes included). */
static char *quoted(size_t n)
{
	char *s = mt_str(n, 'v');

	s[0] = s[n - 1] = '"';
	return s;
}

static void size_limits(void **state)
{
	mmv_registry_t *r = reg();
	char *v237 = quoted(237), *v238 = quoted(238), *v239 = quoted(239);
	char *n234 = mt_str(234, 'n'), *n235 = mt_str(235, 'n');
	char *n236 = mt_str(236, 'n'), *v300 = mt_str(300, 'x');
	unsigned char *b;
	size_t len;

	(void)state;
	/* name + value = 238: stored whole */
	expect_ok(r, "a", v237, MMV_STRING_TYPE);
	/* 239: PCP drops the closing brace, we refuse (docs/compatibility.md) */
	expect_err(r, "b", v238, MMV_STRING_TYPE, E2BIG);
	expect_err(r, "c", v239, MMV_STRING_TYPE, E2BIG);
	expect_err(r, "xx", v237, MMV_STRING_TYPE, E2BIG);
	/* E2BIG is checked before the name's syntax (docs/mmv-format.md §10.3) */
	expect_err(r, "_", v238, MMV_STRING_TYPE, E2BIG);
	/* NULL_TYPE: {"name":null} must fit too */
	expect_err(r, "z", v300, MMV_NULL_TYPE, E2BIG);
	expect_ok(r, n234, "", MMV_NULL_TYPE);
	expect_err(r, n235, "", MMV_NULL_TYPE, E2BIG);
	expect_err(r, n236, "", MMV_NULL_TYPE, E2BIG);
	expect_err(r, n236, "x", MMV_NULL_TYPE, E2BIG);
	assert_non_null(mmv_stats_start(r));

	b = mt_read(state, "labels", &len);
	/* v3, no metrics: tocs 3 (metrics, values, labels), labels at 88 */
	assert_int_equal(rdi32(b, 4), 3);
	assert_int_equal(rdi32(b, 24), 3);
	check_toc(b, 2, MMV_TOC_LABELS, 2, 88);
	assert_int_equal(len, 88 + 2 * 256);
	assert_int_equal(strlen((char *)b + 88 + 12), 243);
	assert_int_equal(b[88 + 12 + 242], '}');
	assert_memory_equal(b + 88 + 12, "{\"a\":\"vvv", 9);
	assert_int_equal(strlen((char *)b + 344 + 12), 243);
	assert_memory_equal(b + 344 + 12 + 236, "\":null}", 8);
	free(b);
	mmv_stats_free(r);
	free(v237);
	free(v238);
	free(v239);
	free(n234);
	free(n235);
	free(n236);
	free(v300);
}

static void duplicates(void **state)
{
	mmv_registry_t *r = reg();

	(void)state;
	assert_int_equal(mmv_stats_add_registry_label(r, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_registry_label(r, "a", "2", MMV_NUMBER_TYPE, 1), -1);
	assert_int_equal(errno, EEXIST);
	/* a different name, or the same name on other subjects, is fine */
	assert_int_equal(mmv_stats_add_registry_label(r, "ab", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_metric_label(r, 1, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_metric_label(r, 2, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_metric_label(r, 1, "a", "true", MMV_BOOLEAN_TYPE, 0), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(mmv_stats_add_indom_label(r, 1, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_indom_label(r, 2, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom_label(r, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(mmv_stats_add_instance_label(r, 1, 1, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, 1, 2, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, 2, 1, "a", "1", MMV_NUMBER_TYPE, 0), 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_instance_label(r, 1, 1, "a", "null", MMV_NULL_TYPE, 1), -1);
	assert_int_equal(errno, EEXIST);
	mmv_stats_free(r);
}

/* Records, flags, identity, internal and zeroed tails (docs/mmv-format.md §2.4, §4.8). */
static void records_in_file(void **state)
{
	mmv_registry_t *r = reg();
	unsigned char *b, zero[MMV_LABELMAX] = { 0 };
	size_t len;
	static const struct {
		uint32_t flags, identity;
		int32_t internal;
		const char *payload;
	} want[] = {
		{ 0x08, 7, -1, "{\"app\":\"acme\"}" },
		{ 0x88, 7, -1, "{\"opt\":1e5}" },
		{ 0x84, 5, -1, "{\"indom_l\":42}" },
		{ 0x10, 2, -1, "{\"metric_l\":true}" },
		{ 0x20, 5, 2, "{\"inst_l\":null}" },
		{ 0xa0, 5, 3, "{\"m\":{ \"k\" : [1] }}" },
	};

	/* no subject needs to exist */
	assert_int_equal(mmv_stats_add_registry_label(r, "app", "\"acme\"", MMV_STRING_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_registry_label(r, "opt", "1e5", MMV_NUMBER_TYPE, 1), 0);
	assert_int_equal(mmv_stats_add_indom_label(r, 5, "indom_l", "42", MMV_NUMBER_TYPE, 1), 0);
	assert_int_equal(mmv_stats_add_metric_label(r, 2, "metric_l", "true", MMV_BOOLEAN_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, 5, 2, "inst_l", "whatever", MMV_NULL_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, 5, 3, "m", "{ \"k\" : [1] }", MMV_MAP_TYPE, 42), 0);
	assert_non_null(mmv_stats_start(r));
	b = mt_read(state, "labels", &len);
	check_toc(b, 2, MMV_TOC_LABELS, 6, 88);
	assert_int_equal(len, 88 + 6 * 256);
	for (size_t i = 0; i < 6; i++) {
		size_t o = 88 + 256 * i, n = strlen(want[i].payload);

		assert_int_equal(rd32(b, o), want[i].flags);
		assert_int_equal(rd32(b, o + 4), want[i].identity);
		assert_int_equal(rdi32(b, o + 8), want[i].internal);
		assert_string_equal((char *)b + o + 12, want[i].payload);
		/* docs/compatibility.md: bytes after the NUL are zero (PCP: heap garbage) */
		assert_memory_equal(b + o + 12 + n, zero, MMV_LABELMAX - n);
	}
	free(b);
	mmv_stats_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(label_names),
		MT_TEST(number_values),
		MT_TEST(boolean_null_string_values),
		MT_TEST(map_and_array_values),
		MT_TEST(size_limits),
		MT_TEST(duplicates),
		MT_TEST(records_in_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
