/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for common/mmv_format.h: the PMID and indom encoders against
 * libpcp's pmID_build and pmInDom_build (which the writer and the reader
 * core do not link), record sizes and names per section and version, and
 * the name grammar, type and semantics checks of pmdammv(1) and docs/mmv-format.md §2, §9.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pcp/pmapi.h>
#include "mmv_format.h"

static void pmid_like_libpcp(void **state)
{
	static const unsigned int dom[] = { 0, 1, 70, 510 };
	static const unsigned int cl[] = { 0, 1, 321, 2048, 4095 };
	static const unsigned int it[] = { 0, 1, 8, 1023 };

	(void)state;
	for (size_t d = 0; d < 4; d++)
		for (size_t c = 0; c < 5; c++)
			for (size_t i = 0; i < 4; i++) {
				pmID p = mmv_pmid_build(dom[d], cl[c], it[i]);

				assert_int_equal(p, pmID_build(dom[d], cl[c], it[i]));
				assert_int_equal(mmv_pmid_domain(p), pmID_domain(p));
				assert_int_equal(mmv_pmid_cluster(p), pmID_cluster(p));
				assert_int_equal(mmv_pmid_item(p), pmID_item(p));
			}
}

/* docs/mmv-format.md §4.9: acme's indom serial 61 at cluster 321 is 70.657469. */
static void indom_like_libpcp(void **state)
{
	pmInDom in;

	(void)state;
	assert_int_equal(mmv_indom_serial(321, 61), 657469);
	in = mmv_indom_build(70, mmv_indom_serial(321, 61));
	assert_int_equal(in, pmInDom_build(70, 657469));
	assert_int_equal(mmv_indom_domain(in), pmInDom_domain(in));
	assert_int_equal(mmv_indom_file_serial(in), 61);
	assert_int_equal(mmv_indom_cluster(in), 321);
	/* 11 cluster bits: 2048 + 321 reads back as 321 */
	in = mmv_indom_build(70, mmv_indom_serial(2048 + 321, 61));
	assert_int_equal(in, pmInDom_build(70, 657469));
	assert_int_equal(pmInDom_serial(mmv_indom_build(70,
			mmv_indom_serial(4095, 2047))), (4095u << 11 | 2047) & 0x3fffff);
}

/* docs/mmv-format.md §2.3: record sizes per version; unknown kinds have none. */
static void record_sizes(void **state)
{
	(void)state;
	assert_int_equal(mmv_record_size(MMV_TOC_INDOMS, 1), 32);
	assert_int_equal(mmv_record_size(MMV_TOC_INSTANCES, 1), 80);
	assert_int_equal(mmv_record_size(MMV_TOC_INSTANCES, 2), 24);
	assert_int_equal(mmv_record_size(MMV_TOC_METRICS, 1), 104);
	assert_int_equal(mmv_record_size(MMV_TOC_METRICS, 3), 48);
	assert_int_equal(mmv_record_size(MMV_TOC_VALUES, 2), 32);
	assert_int_equal(mmv_record_size(MMV_TOC_STRINGS, 1), 256);
	assert_int_equal(mmv_record_size(MMV_TOC_LABELS, 3), 256);
	assert_int_equal(mmv_record_size(0, 1), 0);
	assert_int_equal(mmv_record_size(7, 2), 0);
	assert_false(mmv_section_known(0));
	assert_true(mmv_section_known(6));
	assert_false(mmv_section_known(7));
	assert_string_equal(mmv_section_name(MMV_TOC_LABELS), "labels");
	assert_string_equal(mmv_section_name(-1), "?");
	assert_int_equal(MMV_TOC_OFFSET, 40);
	assert_int_equal(mmv_name_max(1), 63);
	assert_int_equal(mmv_name_max(3), 255);
}

static bool valid(const char *s)
{
	return mmv_name_components_valid(s, strlen(s));
}

static void name_grammar(void **state)
{
	(void)state;
	assert_true(valid("a"));
	assert_true(valid("a.b_c.D9"));
	assert_true(valid("9x"));	/* a component may start with a digit */
	assert_false(valid(""));
	assert_false(valid(".a"));
	assert_false(valid("a."));
	assert_false(valid("a..b"));
	assert_false(valid("a-b"));
	assert_false(valid("a b"));
	assert_false(valid("\xc3\xa9"));
	/* only @len bytes count: a NUL inside them is refused */
	assert_false(mmv_name_components_valid("a\0b", 3));
	assert_true(mmv_name_components_valid("ab.", 2));
	assert_true(mmv_name_letter('Z'));
	assert_false(mmv_name_letter('_'));
}

/* pmdammv serves types -1..6 and 9 (ELAPSED); 7 and 8 have no record. */
static void types_and_semantics(void **state)
{
	(void)state;
	for (int t = -2; t <= 11; t++) {
		bool in_range = t >= -1 && t <= 9;

		assert_int_equal(mmv_type_in_pcp_range(t), in_range);
		assert_int_equal(mmv_type_known(t), in_range && t != 7 && t != 8);
	}
	assert_int_equal(MMV_TYPE_AGGREGATE, 7);
	assert_int_equal(MMV_TYPE_AGGREGATE_STATIC, 8);
	assert_true(mmv_sem_known(0));
	assert_true(mmv_sem_known(PM_SEM_COUNTER));
	assert_false(mmv_sem_known(2));
	assert_true(mmv_sem_known(PM_SEM_INSTANT));
	assert_true(mmv_sem_known(PM_SEM_DISCRETE));
	assert_false(mmv_sem_known(5));
	assert_true(mmv_generation_ready(5, 5));
	assert_false(mmv_generation_ready(0, 0));
	assert_false(mmv_generation_ready(5, 6));
	assert_int_equal(mmv_generation_make(1, 2), (1ull << 32) | 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pmid_like_libpcp),
		cmocka_unit_test(indom_like_libpcp),
		cmocka_unit_test(record_sizes),
		cmocka_unit_test(name_grammar),
		cmocka_unit_test(types_and_semantics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
