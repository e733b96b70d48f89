/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mmv_lookup_value_desc and the by-name wrappers (docs/mmv-format.md §10.4). */
#include "mmv_test.h"

struct fix {
	mmv_registry_t *reg;
	void *addr;
};

/* Singular U64 "c", DOUBLE "d" and U64 "m" on indom 5 {one, two, three}. */
static void fix_start(struct fix *f, const char *file, int v2)
{
	f->reg = mmv_stats_registry(file, 0, 0);
	assert_int_equal(mmv_stats_add_indom(f->reg, 5, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(f->reg, 5, 1, "one"), 0);
	assert_int_equal(mmv_stats_add_instance(f->reg, 5, 2, "two"), 0);
	assert_int_equal(mmv_stats_add_instance(f->reg, 5, 3, "three"), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "c", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "d", 2, MMV_TYPE_DOUBLE,
			MMV_SEM_INSTANT, mt_none, MMV_INDOM_NULL, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "m", 3, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 5, NULL, NULL), 0);
	if (v2)
		assert_int_equal(mmv_stats_add_metric_label(f->reg, 3, "a", "1",
				MMV_NUMBER_TYPE, 0), 0);
	f->addr = mmv_stats_start(f->reg);
	assert_non_null(f->addr);
}

/* Expected value record offsets from docs/mmv-format.md §2.4 (v1: tocs 4, no strings). */
static void lookup_results(void **state)
{
	struct fix f;
	/* v1: indoms 104, insts 136 (3*80), metrics 376 (3*104), values 688 */
	const uint64_t vals = 688;

	(void)state;
	fix_start(&f, "look", 0);
	assert_int_equal(mt_off(f.addr, mmv_lookup_value_desc(f.addr, "c", NULL)), vals);
	/* singular: the instance is ignored */
	assert_int_equal(mt_off(f.addr, mmv_lookup_value_desc(f.addr, "c", "whatever")), vals);
	assert_int_equal(mt_off(f.addr, mmv_lookup_value_desc(f.addr, "d", "one")), vals + 32);
	assert_int_equal(mt_off(f.addr, mmv_lookup_value_desc(f.addr, "m", "one")), vals + 64);
	assert_int_equal(mt_off(f.addr, mmv_lookup_value_desc(f.addr, "m", "two")), vals + 96);
	assert_int_equal(mt_off(f.addr, mmv_lookup_value_desc(f.addr, "m", "three")), vals + 128);
	/* indom metric: NULL or unknown instance finds nothing */
	assert_null(mmv_lookup_value_desc(f.addr, "m", NULL));
	assert_null(mmv_lookup_value_desc(f.addr, "m", "four"));
	assert_null(mmv_lookup_value_desc(f.addr, "m", "on"));
	assert_null(mmv_lookup_value_desc(f.addr, "m", ""));
	assert_null(mmv_lookup_value_desc(f.addr, "x", NULL));
	assert_null(mmv_lookup_value_desc(f.addr, "", NULL));
	assert_null(mmv_lookup_value_desc(f.addr, "c.", NULL));
	assert_null(mmv_lookup_value_desc(f.addr, "M", "one"));
	assert_null(mmv_lookup_value_desc(f.addr, NULL, "one"));
	assert_null(mmv_lookup_value_desc(NULL, "c", NULL));
	mmv_stats_free(f.reg);
}

static void by_name_wrappers(void **state)
{
	struct fix f;
	pmAtomValue *one, *two, *three, *c, *d;

	(void)state;
	fix_start(&f, "wrap", 0);
	c = mmv_lookup_value_desc(f.addr, "c", NULL);
	d = mmv_lookup_value_desc(f.addr, "d", NULL);
	one = mmv_lookup_value_desc(f.addr, "m", "one");
	two = mmv_lookup_value_desc(f.addr, "m", "two");
	three = mmv_lookup_value_desc(f.addr, "m", "three");
	mmv_stats_inc(f.addr, "c", NULL);
	mmv_stats_add(f.addr, "c", "ignored", 10);
	assert_int_equal(c->ull, 11);
	mmv_stats_set(f.addr, "d", NULL, 2.5);
	mmv_stats_add(f.addr, "d", NULL, 0.25);
	assert_true(d->d == 2.75);
	mmv_stats_inc(f.addr, "m", "two");
	mmv_stats_add(f.addr, "m", "three", 3);
	mmv_stats_set(f.addr, "m", "one", 100);
	assert_int_equal(one->ull, 100);
	assert_int_equal(two->ull, 1);
	assert_int_equal(three->ull, 3);
	/* fallbacks: the first instance if present, else the second */
	mmv_stats_add_fallback(f.addr, "m", "two", "three", 5);
	assert_int_equal(two->ull, 6);
	mmv_stats_add_fallback(f.addr, "m", "none", "three", 5);
	assert_int_equal(three->ull, 8);
	mmv_stats_inc_fallback(f.addr, "m", "one", "two");
	mmv_stats_inc_fallback(f.addr, "m", NULL, "two");
	assert_int_equal(one->ull, 101);
	assert_int_equal(two->ull, 7);
	/* nothing found: nothing happens */
	mmv_stats_add_fallback(f.addr, "m", "none", "nada", 5);
	mmv_stats_inc_fallback(f.addr, "m", NULL, NULL);
	mmv_stats_inc(f.addr, "m", NULL);
	mmv_stats_inc(f.addr, "nope", "one");
	mmv_stats_set(f.addr, "m", "none", 1);
	mmv_stats_inc(NULL, "c", NULL);
	mmv_stats_add(f.addr, NULL, NULL, 1);
	assert_int_equal(one->ull, 101);
	assert_int_equal(two->ull, 7);
	assert_int_equal(three->ull, 8);
	assert_int_equal(c->ull, 11);
	mmv_stats_free(f.reg);
}

/*
 * A mapping the library did not create (here a heap copy of a file) is
 * searched as PCP does: v1 and v2/v3 records.
 */
static void foreign_mapping(void **state)
{
	for (int v2 = 0; v2 < 2; v2++) {
		const char *file = v2 ? "copy3" : "copy1";
		struct fix f;
		unsigned char *copy;
		pmAtomValue *v, *mine;
		size_t len;

		fix_start(&f, file, v2);
		copy = mt_read(state, file, &len);
		assert_int_equal(rdi32(copy, 4), v2 ? 3 : 1);
		mine = mmv_lookup_value_desc(f.addr, "m", "two");
		v = mmv_lookup_value_desc(copy, "m", "two");
		assert_non_null(v);
		assert_int_equal(mt_off(copy, v), mt_off(f.addr, mine));
		assert_int_equal(mt_off(copy, mmv_lookup_value_desc(copy, "c", "any")),
				 mt_off(f.addr, mmv_lookup_value_desc(f.addr, "c", NULL)));
		assert_null(mmv_lookup_value_desc(copy, "m", NULL));
		assert_null(mmv_lookup_value_desc(copy, "m", "four"));
		assert_null(mmv_lookup_value_desc(copy, "zz", NULL));
		mmv_stats_inc(copy, "m", "two");
		assert_int_equal(v->ull, 1);
		assert_int_equal(mine->ull, 0);
		free(copy);
		mmv_stats_free(f.reg);
	}
}

/*
 * 10,000 value records: items stop at 1023, so 1,000 metrics over an
 * indom of 10 instances. Every lookup finds its own record.
 */
static void ten_thousand_values(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("big", 0, 0);
	char name[32], inst[16];
	void *addr;
	uint64_t values;

	(void)state;
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	for (int k = 0; k < 10; k++) {
		snprintf(inst, sizeof(inst), "i%d", k);
		assert_int_equal(mmv_stats_add_instance(r, 1, k, inst), 0);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "group%d.metric%d", i % 7, i);
		assert_int_equal(mmv_stats_add_metric(r, name, i, MMV_TYPE_U64,
				MMV_SEM_COUNTER, mt_count, 1, NULL, NULL), 0);
	}
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	/* v1, tocs 4: indoms 104, insts 136, metrics 936, values 104936 */
	values = 136 + 10 * 80 + 1000 * 104;
	check_toc(addr, 3, MMV_TOC_VALUES, 10000, values);
	for (int i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "group%d.metric%d", i % 7, i);
		for (int k = 0; k < 10; k++) {
			pmAtomValue *v;

			snprintf(inst, sizeof(inst), "i%d", k);
			v = mmv_lookup_value_desc(addr, name, inst);
			assert_int_equal(mt_off(addr, v), values + 32 * (uint64_t)(10 * i + k));
		}
		assert_null(mmv_lookup_value_desc(addr, name, "i10"));
		assert_null(mmv_lookup_value_desc(addr, name, NULL));
	}
	mmv_stats_inc(addr, "group5.metric999", "i9");
	assert_int_equal(rd64(addr, values + 32 * 9999), 1);
	mmv_stats_free(r);
}

/* An indom without instances gives its metrics no values (docs/mmv-format.md §2.4). */
static void empty_indom(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("empty", 0, 0);
	void *addr;

	assert_int_equal(mmv_stats_add_indom(r, 4, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "e", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 4, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "s", 2, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 0, NULL, NULL), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	/* tocs 4: indoms 104, insts 136 (none), metrics 136, values 344 */
	check_toc(addr, 3, MMV_TOC_VALUES, 1, 344);
	assert_int_equal(mt_size(state, "empty"), 376);
	assert_null(mmv_lookup_value_desc(addr, "e", NULL));
	assert_null(mmv_lookup_value_desc(addr, "e", "x"));
	assert_int_equal(mt_off(addr, mmv_lookup_value_desc(addr, "s", NULL)), 344);
	mmv_stats_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(lookup_results),
		MT_TEST(by_name_wrappers),
		MT_TEST(foreign_mapping),
		MT_TEST(ten_thousand_values),
		MT_TEST(empty_indom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
