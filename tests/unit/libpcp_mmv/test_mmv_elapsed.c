/* SPDX-License-Identifier: GPL-2.0-or-later */
/* MMV_TYPE_ELAPSED (docs/mmv-format.md §4.5, §10.4; docs/compatibility.md: end without start adds nothing). */
#include <sys/time.h>
#include <time.h>

#include "mmv_test.h"

struct fix {
	mmv_registry_t *reg;
	void *addr;
	pmAtomValue *el, *e2, *u64;
};

static void fix_start(struct fix *f)
{
	f->reg = mmv_stats_registry("el", 0, 0);
	assert_int_equal(mmv_stats_add_indom(f->reg, 5, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(f->reg, 5, 1, "a"), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "el", 1, MMV_TYPE_ELAPSED,
			MMV_SEM_COUNTER, mt_usec, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "e2", 2, MMV_TYPE_ELAPSED,
			MMV_SEM_COUNTER, mt_usec, 5, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "u", 3, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_usec, 0, NULL, NULL), 0);
	f->addr = mmv_stats_start(f->reg);
	assert_non_null(f->addr);
	f->el = mmv_lookup_value_desc(f->addr, "el", NULL);
	f->e2 = mmv_lookup_value_desc(f->addr, "e2", "a");
	f->u64 = mmv_lookup_value_desc(f->addr, "u", NULL);
	assert_non_null(f->el);
	assert_non_null(f->e2);
	assert_non_null(f->u64);
}

static int64_t extra(pmAtomValue *v)
{
	return ((mmv_disk_value_t *)v)->extra;
}

static int64_t now_usec(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static void intervals_accumulate(void **state)
{
	struct fix f;
	int64_t t0, t1, first;

	(void)state;
	fix_start(&f);
	t0 = now_usec();
	assert_ptr_equal(mmv_stats_interval_start(f.addr, f.el, NULL, NULL), f.el);
	t1 = now_usec();
	/* extra = -(start time in us) */
	assert_uint_in_range(-extra(f.el), t0, t1);
	assert_int_equal(f.el->ll, 0);
	sleep_ms(3);
	mmv_stats_interval_end(f.addr, f.el);
	assert_int_equal(extra(f.el), 0);
	first = f.el->ll;
	assert_uint_in_range(first, 3000, 10 * 1000000);
	/* a second interval adds to the total */
	mmv_stats_interval_start(f.addr, f.el, NULL, NULL);
	sleep_ms(2);
	mmv_stats_interval_end(f.addr, f.el);
	assert_uint_in_range(f.el->ll, first + 2000, first + 10 * 1000000);
	assert_int_equal(extra(f.el), 0);
	mmv_stats_free(f.reg);
}

static void start_by_name(void **state)
{
	struct fix f;
	pmAtomValue *v;

	(void)state;
	fix_start(&f);
	v = mmv_stats_interval_start(f.addr, NULL, "e2", "a");
	assert_ptr_equal(v, f.e2);
	assert_true(extra(f.e2) < 0);
	sleep_ms(2);
	mmv_stats_interval_end(f.addr, v);
	assert_uint_in_range(f.e2->ll, 2000, 10 * 1000000);
	v = mmv_stats_interval_start(f.addr, NULL, "el", "ignored");
	assert_ptr_equal(v, f.el);
	mmv_stats_interval_end(f.addr, v);
	/* lookups that fail return NULL; addr NULL returns the handle given */
	assert_null(mmv_stats_interval_start(f.addr, NULL, "e2", NULL));
	assert_null(mmv_stats_interval_start(f.addr, NULL, "e2", "b"));
	assert_null(mmv_stats_interval_start(f.addr, NULL, "nope", NULL));
	assert_ptr_equal(mmv_stats_interval_start(NULL, f.el, NULL, NULL), f.el);
	assert_null(mmv_stats_interval_start(NULL, NULL, "el", NULL));
	mmv_stats_interval_end(NULL, f.el);
	mmv_stats_interval_end(f.addr, NULL);
	assert_int_equal(extra(f.el), 0);
	mmv_stats_free(f.reg);
}

/* docs/compatibility.md: mmv_stats_interval_end without a start adds nothing. */
static void end_without_start(void **state)
{
	struct fix f;

	(void)state;
	fix_start(&f);
	mmv_set_value(f.addr, f.el, 100);
	mmv_stats_interval_end(f.addr, f.el);
	assert_int_equal(f.el->ll, 100);
	assert_int_equal(extra(f.el), 0);
	/* a second end after a complete interval adds nothing either */
	mmv_stats_interval_start(f.addr, f.el, NULL, NULL);
	mmv_stats_interval_end(f.addr, f.el);
	int64_t total = f.el->ll;
	mmv_stats_interval_end(f.addr, f.el);
	assert_int_equal(f.el->ll, total);
	mmv_stats_free(f.reg);
}

/* set_value and set_atomvalue store the total and clear extra. */
static void set_clears_extra(void **state)
{
	struct fix f;
	pmAtomValue a = { .ll = 77 };

	(void)state;
	fix_start(&f);
	mmv_stats_interval_start(f.addr, f.el, NULL, NULL);
	assert_true(extra(f.el) < 0);
	mmv_set_value(f.addr, f.el, 5);
	assert_int_equal(f.el->ll, 5);
	assert_int_equal(extra(f.el), 0);
	mmv_stats_interval_end(f.addr, f.el);
	assert_int_equal(f.el->ll, 5);
	mmv_stats_interval_start(f.addr, f.el, NULL, NULL);
	mmv_set_atomvalue(f.addr, f.el, &a);
	assert_int_equal(f.el->ll, 77);
	assert_int_equal(extra(f.el), 0);
	mmv_stats_set(f.addr, "el", NULL, 9);
	assert_int_equal(f.el->ll, 9);
	mmv_stats_free(f.reg);
}

/* docs/mmv-format.md §4.5: the ELAPSED column of the increment calls. */
static void increments(void **state)
{
	struct fix f;
	pmAtomValue a;

	(void)state;
	fix_start(&f);
	/* x < 0: E = x; x >= 0: V += E + x, E = 0 */
	mmv_inc_value(f.addr, f.el, -100);
	assert_int_equal(extra(f.el), -100);
	assert_int_equal(f.el->ll, 0);
	mmv_inc_value(f.addr, f.el, 250);
	assert_int_equal(f.el->ll, 150);
	assert_int_equal(extra(f.el), 0);
	/* no interval open: E is 0, so x itself is added */
	mmv_inc_value(f.addr, f.el, 7);
	assert_int_equal(f.el->ll, 157);
	mmv_stats_add(f.addr, "el", NULL, 3);
	assert_int_equal(f.el->ll, 160);
	a.ll = -40;
	mmv_inc_atomvalue(f.addr, f.el, &a);
	assert_int_equal(extra(f.el), -40);
	a.ll = 50;
	mmv_add(f.addr, f.el, &a);
	assert_int_equal(f.el->ll, 170);
	assert_int_equal(extra(f.el), 0);
	mmv_add(f.addr, f.el, &a);
	assert_int_equal(f.el->ll, 220);
	/* mmv_inc tests the sign of V: V >= 0 gives V += E + 1, E = 0 */
	mmv_inc_value(f.addr, f.el, -20);
	mmv_inc(f.addr, f.el);
	assert_int_equal(f.el->ll, 201);
	assert_int_equal(extra(f.el), 0);
	/* the sign test is on the double: -0.5 sets E = (int64)-0.5 = 0 */
	mmv_inc_value(f.addr, f.el, -100);
	mmv_inc_value(f.addr, f.el, -0.5);
	assert_int_equal(extra(f.el), 0);
	assert_int_equal(f.el->ll, 201);
	/* V < 0 gives E += 1 */
	mmv_set_value(f.addr, f.el, -5);
	mmv_inc(f.addr, f.el);
	assert_int_equal(f.el->ll, -5);
	assert_int_equal(extra(f.el), 1);
	mmv_stats_free(f.reg);
}

/* On other types interval calls add plain numbers (PCP does the same). */
static void interval_on_counter(void **state)
{
	struct fix f;
	int64_t t0, t1;

	(void)state;
	fix_start(&f);
	t0 = now_usec();
	mmv_stats_interval_start(f.addr, f.u64, NULL, NULL);
	mmv_stats_interval_end(f.addr, f.u64);
	t1 = now_usec();
	/* -start + end, in uint64 arithmetic */
	assert_uint_in_range(f.u64->ull, 0, (uint64_t)(t1 - t0));
	assert_int_equal(extra(f.u64), 0);
	mmv_stats_free(f.reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(intervals_accumulate),
		MT_TEST(start_by_name),
		MT_TEST(end_without_start),
		MT_TEST(set_clears_extra),
		MT_TEST(increments),
		MT_TEST(interval_on_counter),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
