/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Value updates by handle (docs/mmv-format.md §4.5, §10.4; mmv_stats.h; docs/compatibility.md). */
#include <math.h>

#include "mmv_test.h"

enum { I32, U32, I64, U64, FLT, DBL, STR, EL, NS, NTYPES };

static const char *names[NTYPES] = { "i32", "u32", "i64", "u64", "flt",
				     "dbl", "str", "el", "ns" };
static const int types[NTYPES] = { MMV_TYPE_I32, MMV_TYPE_U32, MMV_TYPE_I64,
				   MMV_TYPE_U64, MMV_TYPE_FLOAT, MMV_TYPE_DOUBLE,
				   MMV_TYPE_STRING, MMV_TYPE_ELAPSED,
				   MMV_TYPE_NOSUPPORT };

struct fix {
	mmv_registry_t *reg;
	void *addr;
	pmAtomValue *v[NTYPES];
};

/* One metric of each type; v1 or (long name, v2) layouts. */
static void fix_start(struct fix *f, int v2)
{
	f->reg = mmv_stats_registry("upd", 0, 0);
	assert_non_null(f->reg);
	for (int i = 0; i < NTYPES; i++)
		assert_int_equal(mmv_stats_add_metric(f->reg, names[i], i,
				(mmv_metric_type_t)types[i], MMV_SEM_INSTANT,
				mt_none, 0, NULL, NULL), 0);
	if (v2) {
		char *n = mt_str(100, 'x');

		assert_int_equal(mmv_stats_add_metric(f->reg, n, 99, MMV_TYPE_U64,
				MMV_SEM_INSTANT, mt_none, 0, NULL, NULL), 0);
		free(n);
	}
	f->addr = mmv_stats_start(f->reg);
	assert_non_null(f->addr);
	assert_int_equal(((mmv_disk_header_t *)f->addr)->version, v2 ? 2 : 1);
	for (int i = 0; i < NTYPES; i++) {
		f->v[i] = mmv_lookup_value_desc(f->addr, names[i], NULL);
		assert_non_null(f->v[i]);
	}
}

static void fix_stop(struct fix *f)
{
	mmv_stats_free(f->reg);
}

static mmv_disk_value_t *rec(pmAtomValue *v)
{
	return (mmv_disk_value_t *)v;
}

static void inc_each_type(struct fix *f)
{
	for (int i = 0; i < NTYPES; i++)
		mmv_inc(f->addr, f->v[i]);
	assert_int_equal(f->v[I32]->l, 1);
	assert_int_equal(f->v[U32]->ul, 1);
	assert_int_equal(f->v[I64]->ll, 1);
	assert_int_equal(f->v[U64]->ull, 1);
	assert_true(f->v[FLT]->f == 1.0f);
	assert_true(f->v[DBL]->d == 1.0);
	assert_int_equal(f->v[EL]->ll, 1);
	/* untouched: value and extra */
	assert_int_equal(f->v[NS]->ull, 0);
	assert_int_equal(f->v[STR]->ull, 0);
	for (int i = 0; i < NTYPES; i++)
		if (i != STR)
			assert_int_equal(rec(f->v[i])->extra, 0);
}

static void inc_all_types_v1(void **state)
{
	struct fix f;

	(void)state;
	fix_start(&f, 0);
	inc_each_type(&f);
	fix_stop(&f);
}

/* The type is read through the v2 metric record too. */
static void inc_all_types_v2(void **state)
{
	struct fix f;

	(void)state;
	fix_start(&f, 1);
	inc_each_type(&f);
	fix_stop(&f);
}

static void inc_value_per_type(void **state)
{
	struct fix f;

	(void)state;
	fix_start(&f, 0);
	for (int i = 0; i < NTYPES; i++)
		mmv_set_value(f.addr, f.v[i], 3);
	for (int i = 0; i < NTYPES; i++)
		mmv_inc_value(f.addr, f.v[i], -1.5);
	/* truncation towards zero: 3 + (-1) */
	assert_int_equal(f.v[I32]->l, 2);
	assert_int_equal(f.v[U32]->ul, 2);	/* adds 0xffffffff, wraps */
	assert_int_equal(f.v[I64]->ll, 2);
	assert_int_equal(f.v[U64]->ull, 2);	/* adds (uint64_t)-1 */
	assert_true(f.v[FLT]->f == 1.5f);
	assert_true(f.v[DBL]->d == 1.5);
	mmv_inc_value(f.addr, f.v[U64], 2.9);
	assert_int_equal(f.v[U64]->ull, 4);
	mmv_inc_value(f.addr, f.v[DBL], 0.25);
	assert_true(f.v[DBL]->d == 1.75);
	mmv_inc_value(f.addr, f.v[FLT], 0.1);
	assert_true(f.v[FLT]->f == 1.5f + (float)0.1);
	assert_int_equal(f.v[STR]->ull, 0);
	assert_int_equal(f.v[NS]->ull, 0);
	/* integers wrap */
	mmv_set_value(f.addr, f.v[U32], 4294967295.0);
	mmv_inc_value(f.addr, f.v[U32], 2);
	assert_int_equal(f.v[U32]->ul, 1);
	mmv_set_value(f.addr, f.v[I32], 2147483647.0);
	mmv_inc_value(f.addr, f.v[I32], 1);
	assert_int_equal(f.v[I32]->l, INT32_MIN);
	fix_stop(&f);
}

static void inc_atomvalue_and_add(void **state)
{
	struct fix f;
	pmAtomValue a;

	(void)state;
	fix_start(&f, 0);
	a.l = -7;
	mmv_inc_atomvalue(f.addr, f.v[I32], &a);
	assert_int_equal(f.v[I32]->l, -7);
	a.ul = 0xfffffff0u;
	mmv_add(f.addr, f.v[U32], &a);
	assert_int_equal(f.v[U32]->ul, 0xfffffff0u);
	a.ll = -(1LL << 62);
	mmv_inc_atomvalue(f.addr, f.v[I64], &a);
	mmv_add(f.addr, f.v[I64], &a);
	assert_int_equal(f.v[I64]->ll, INT64_MIN);
	/* 64-bit adds never go through double (docs/compatibility.md) */
	a.ull = (1ULL << 60) + 1;
	mmv_inc_atomvalue(f.addr, f.v[U64], &a);
	mmv_add(f.addr, f.v[U64], &a);
	assert_int_equal(f.v[U64]->ull, (1ULL << 61) + 2);
	a.f = 0.5f;
	mmv_inc_atomvalue(f.addr, f.v[FLT], &a);
	mmv_add(f.addr, f.v[FLT], &a);
	assert_true(f.v[FLT]->f == 1.0f);
	a.d = 0.125;
	mmv_add(f.addr, f.v[DBL], &a);
	assert_true(f.v[DBL]->d == 0.125);
	a.ull = 12345;
	mmv_inc_atomvalue(f.addr, f.v[STR], &a);
	mmv_add(f.addr, f.v[NS], &a);
	assert_int_equal(f.v[STR]->ull, 0);
	assert_int_equal(f.v[NS]->ull, 0);
	/* NULL increment pointer: nothing */
	mmv_inc_atomvalue(f.addr, f.v[U64], NULL);
	assert_int_equal(f.v[U64]->ull, (1ULL << 61) + 2);
	fix_stop(&f);
}

/* Out-of-range conversions as PCP's library makes them on x86-64 (docs/mmv-format.md §4.5). */
static void set_value_conversions(void **state)
{
	static const struct {
		double x;
		uint32_t i32, u32;
		uint64_t i64, u64;
	} want[] = {
		{ 1e20, 0x80000000u, 0, 0x8000000000000000ull, 0 },
		{ -1, 0xffffffffu, 0xffffffffu, ~0ull, ~0ull },
		{ 4294967301.0, 0x80000000u, 5, 4294967301ull, 4294967301ull },
		{ 12.9, 12, 12, 12, 12 },
	};
	struct fix f;

	(void)state;
	fix_start(&f, 0);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		mmv_set_value(f.addr, f.v[I32], want[k].x);
		mmv_set_value(f.addr, f.v[U32], want[k].x);
		mmv_set_value(f.addr, f.v[I64], want[k].x);
		mmv_set_value(f.addr, f.v[U64], want[k].x);
		assert_int_equal(f.v[I32]->ul, want[k].i32);
		assert_int_equal(f.v[U32]->ul, want[k].u32);
		assert_int_equal(f.v[I64]->ull, want[k].i64);
		assert_int_equal(f.v[U64]->ull, want[k].u64);
		/* 32-bit sets touch only bytes 0-3: still 0 from creation */
		assert_int_equal(rd32(f.v[I32], 4), 0);
		assert_int_equal(rd32(f.v[U32], 4), 0);
	}
	mmv_set_value(f.addr, f.v[EL], 1e20);
	assert_int_equal(f.v[EL]->ll, INT64_MIN);
	mmv_set_value(f.addr, f.v[FLT], 0.1);
	assert_true(f.v[FLT]->f == (float)0.1);
	mmv_set_value(f.addr, f.v[DBL], 0.1);
	assert_true(f.v[DBL]->d == 0.1);
	mmv_set_value(f.addr, f.v[STR], 5);
	mmv_set_value(f.addr, f.v[NS], 5);
	assert_int_equal(f.v[STR]->ull, 0);
	assert_int_equal(f.v[NS]->ull, 0);
	fix_stop(&f);
}

/* docs/mmv-format.md §4.5: 32-bit updates leave bytes 4-7 as a whole-union set left them. */
static void high_bytes_kept(void **state)
{
	const uint64_t pattern = 0xa5a5a5a5deadbeefull;
	int small[3] = { I32, U32, FLT };
	struct fix f;
	pmAtomValue a, one;

	(void)state;
	fix_start(&f, 0);
	one.ul = 1;
	for (int k = 0; k < 3; k++) {
		pmAtomValue *v = f.v[small[k]];

		a.ull = pattern;
		mmv_set_atomvalue(f.addr, v, &a);
		assert_int_equal(v->ull, pattern);	/* all 8 bytes copied */
		mmv_set_value(f.addr, v, 5);
		mmv_inc(f.addr, v);
		mmv_inc_value(f.addr, v, 2);
		if (small[k] == FLT)
			one.f = 1.0f;
		mmv_inc_atomvalue(f.addr, v, &one);
		mmv_add(f.addr, v, &one);
		assert_int_equal(rd32(v, 4), 0xa5a5a5a5u);
		if (small[k] == FLT)
			assert_true(v->f == 10.0f);
		else
			assert_int_equal(v->ul, 10);
	}
	fix_stop(&f);
}

static void set_atomvalue_and_set(void **state)
{
	struct fix f;
	pmAtomValue a;

	(void)state;
	fix_start(&f, 0);
	a.ull = 0x0123456789abcdefull;
	for (int i = 0; i < NTYPES; i++)
		if (i != STR)
			mmv_set_atomvalue(f.addr, f.v[i], &a);
	/* every type but STRING takes the 8 bytes, NOSUPPORT too (docs/mmv-format.md §10.4) */
	for (int i = 0; i < NTYPES; i++)
		if (i != STR)
			assert_int_equal(f.v[i]->ull, 0x0123456789abcdefull);
	a.d = -2.5;
	mmv_set(f.addr, f.v[DBL], &a);
	assert_true(f.v[DBL]->d == -2.5);
	a.ll = -9;
	mmv_set(f.addr, f.v[I64], &a);
	assert_int_equal(f.v[I64]->ll, -9);
	mmv_set_atomvalue(f.addr, f.v[I64], NULL);
	assert_int_equal(f.v[I64]->ll, -9);
	fix_stop(&f);
}

/* NULL addr or handle: nothing happens, nothing crashes. */
static void null_arguments(void **state)
{
	struct fix f;
	pmAtomValue a = { .ull = 7 };
	unsigned char before[32];

	(void)state;
	fix_start(&f, 0);
	mmv_set_value(f.addr, f.v[U64], 3);
	memcpy(before, f.v[U64], 32);
	mmv_inc(NULL, f.v[U64]);
	mmv_inc_value(NULL, f.v[U64], 1);
	mmv_inc_atomvalue(NULL, f.v[U64], &a);
	mmv_add(NULL, f.v[U64], &a);
	mmv_set_value(NULL, f.v[U64], 1);
	mmv_set_atomvalue(NULL, f.v[U64], &a);
	mmv_set(NULL, f.v[U64], &a);
	mmv_set_string(NULL, f.v[STR], "x", 1);
	mmv_inc(f.addr, NULL);
	mmv_inc_value(f.addr, NULL, 1);
	mmv_inc_atomvalue(f.addr, NULL, &a);
	mmv_add(f.addr, NULL, &a);
	mmv_set_value(f.addr, NULL, 1);
	mmv_set_atomvalue(f.addr, NULL, &a);
	mmv_set(f.addr, NULL, &a);
	mmv_set_string(f.addr, NULL, "x", 1);
	assert_memory_equal(before, f.v[U64], 32);
	assert_int_equal(f.v[STR]->ull, 0);
	fix_stop(&f);
}

/* STRING and NOSUPPORT records are not touched by numeric calls. */
static void string_and_nosupport_untouched(void **state)
{
	struct fix f;
	unsigned char s[32], n[32], slot[256];
	pmAtomValue a = { .ull = 1 };

	(void)state;
	fix_start(&f, 0);
	mmv_set_string(f.addr, f.v[STR], "abc", 3);
	memcpy(s, f.v[STR], 32);
	memcpy(n, f.v[NS], 32);
	memcpy(slot, (char *)f.addr + rec(f.v[STR])->extra, 256);
	for (int k = 0; k < 2; k++) {
		pmAtomValue *v = f.v[k ? NS : STR];

		mmv_inc(f.addr, v);
		mmv_inc_value(f.addr, v, 5);
		mmv_inc_atomvalue(f.addr, v, &a);
		mmv_add(f.addr, v, &a);
		mmv_set_value(f.addr, v, 5);
		mmv_set_string(f.addr, f.v[NS], "zzz", 3);
	}
	assert_memory_equal(s, f.v[STR], 32);
	assert_memory_equal(n, f.v[NS], 32);
	assert_memory_equal(slot, (char *)f.addr + rec(f.v[STR])->extra, 256);
	fix_stop(&f);
}

/* The handle may be written through directly (docs/mmv-format.md §4.4, acme does it). */
static void direct_writes(void **state)
{
	struct fix f;

	(void)state;
	fix_start(&f, 0);
	f.v[U64]->ull += 41;
	mmv_inc(f.addr, f.v[U64]);
	assert_int_equal(f.v[U64]->ull, 42);
	fix_stop(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(inc_all_types_v1),
		MT_TEST(inc_all_types_v2),
		MT_TEST(inc_value_per_type),
		MT_TEST(inc_atomvalue_and_add),
		MT_TEST(set_value_conversions),
		MT_TEST(high_bytes_kept),
		MT_TEST(set_atomvalue_and_set),
		MT_TEST(null_arguments),
		MT_TEST(string_and_nosupport_untouched),
		MT_TEST(direct_writes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
