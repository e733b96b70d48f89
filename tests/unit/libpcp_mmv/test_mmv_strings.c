/* SPDX-License-Identifier: GPL-2.0-or-later */
/* STRING values (docs/mmv-format.md §4.5; docs/compatibility.md: 255+ chars truncated, set_strlen stops at NUL). */
#include <pthread.h>

#include "mmv_test.h"

struct fix {
	mmv_registry_t *reg;
	void *addr;
	pmAtomValue *one, *two, *u64;
};

static void fix_start(struct fix *f)
{
	f->reg = mmv_stats_registry("str", 0, 0);
	assert_int_equal(mmv_stats_add_indom(f->reg, 5, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(f->reg, 5, 1, "one"), 0);
	assert_int_equal(mmv_stats_add_instance(f->reg, 5, 2, "two"), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "s", 1, MMV_TYPE_STRING,
			MMV_SEM_INSTANT, mt_none, 5, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "u", 2, MMV_TYPE_U64,
			MMV_SEM_INSTANT, mt_none, 0, NULL, NULL), 0);
	f->addr = mmv_stats_start(f->reg);
	assert_non_null(f->addr);
	f->one = mmv_lookup_value_desc(f->addr, "s", "one");
	f->two = mmv_lookup_value_desc(f->addr, "s", "two");
	f->u64 = mmv_lookup_value_desc(f->addr, "u", NULL);
	assert_non_null(f->one);
	assert_non_null(f->two);
	assert_non_null(f->u64);
}

static const char *slot(struct fix *f, pmAtomValue *v)
{
	return (const char *)f->addr + ((mmv_disk_value_t *)v)->extra;
}

/* The slot holds exactly @s and zero after its NUL. */
static void check_slot(struct fix *f, pmAtomValue *v, const char *s)
{
	static const char zero[MMV_STRINGMAX];
	size_t n = strlen(s);

	assert_string_equal(slot(f, v), s);
	assert_memory_equal(slot(f, v) + n, zero, MMV_STRINGMAX - n);
}

static void set_string_basics(void **state)
{
	struct fix f;
	pmAtomValue a;

	(void)state;
	fix_start(&f);
	check_slot(&f, f.one, "");
	mmv_set_string(f.addr, f.one, "hello", 5);
	check_slot(&f, f.one, "hello");
	assert_int_equal(f.one->l, 5);	/* docs/mmv-format.md §4.5: value.l = len */
	check_slot(&f, f.two, "");
	mmv_set_string(f.addr, f.one, "hello", 3);
	check_slot(&f, f.one, "hel");
	/* len beyond the string stops at its NUL (docs/compatibility.md) */
	mmv_set_string(f.addr, f.two, "hi", 100);
	assert_int_equal(f.two->l, 100);	/* the caller's len, as PCP 6 */
	check_slot(&f, f.two, "hi");
	/* len < 0 and NULL are ignored */
	mmv_set_string(f.addr, f.two, "xyz", -1);
	mmv_set_string(f.addr, f.two, NULL, 3);
	check_slot(&f, f.two, "hi");
	mmv_stats_set_string(f.addr, "s", "two", "by name");
	check_slot(&f, f.two, "by name");
	mmv_stats_set_string(f.addr, "s", "two", NULL);
	check_slot(&f, f.two, "by name");
	mmv_stats_set_string(f.addr, "s", NULL, "no instance");
	mmv_stats_set_string(f.addr, "nope", "two", "no metric");
	check_slot(&f, f.two, "by name");
	mmv_stats_set_strlen(f.addr, "s", "one", "abcdef", 4);
	check_slot(&f, f.one, "abcd");
	mmv_stats_set_strlen(f.addr, "s", "one", "ab", 1000);
	check_slot(&f, f.one, "ab");
	mmv_stats_set_strlen(f.addr, "s", "one", NULL, 3);
	check_slot(&f, f.one, "ab");
	a.cp = "atom";
	mmv_set_atomvalue(f.addr, f.one, &a);
	check_slot(&f, f.one, "atom");
	a.cp = "set";
	mmv_set(f.addr, f.one, &a);
	check_slot(&f, f.one, "set");
	a.cp = NULL;
	mmv_set(f.addr, f.one, &a);
	check_slot(&f, f.one, "set");
	/* empty is allowed and empties the slot */
	mmv_set_string(f.addr, f.one, "", 0);
	check_slot(&f, f.one, "");
	mmv_stats_free(f.reg);
}

/* 254 and 255 chars are stored; longer is cut to 255 (PCP ignores the call). */
static void long_strings(void **state)
{
	char *s254 = mt_str(254, 'a'), *s255 = mt_str(255, 'b');
	char *s256 = mt_str(256, 'c'), *s300 = mt_str(300, 'd');
	struct fix f;
	pmAtomValue a;

	(void)state;
	fix_start(&f);
	mmv_set_string(f.addr, f.one, s254, 254);
	check_slot(&f, f.one, s254);
	mmv_set_string(f.addr, f.one, s255, 255);
	check_slot(&f, f.one, s255);
	mmv_set_string(f.addr, f.one, s256, 256);
	s256[255] = '\0';
	check_slot(&f, f.one, s256);
	mmv_stats_set_string(f.addr, "s", "two", s300);
	s300[255] = '\0';
	check_slot(&f, f.two, s300);
	s300[255] = 'd';
	mmv_stats_set_string(f.addr, "s", "two", "x");
	mmv_stats_set_strlen(f.addr, "s", "two", s300, 300);
	s300[255] = '\0';
	check_slot(&f, f.two, s300);
	mmv_set_string(f.addr, f.two, "x", 1);
	s300[255] = 'd';
	mmv_stats_set_strlen(f.addr, "s", "two", s300, (size_t)1 << 40);
	s300[255] = '\0';
	check_slot(&f, f.two, s300);
	s300[255] = 'd';
	a.cp = s300;
	mmv_set_atomvalue(f.addr, f.one, &a);
	s300[255] = '\0';
	check_slot(&f, f.one, s300);
	mmv_stats_free(f.reg);
	free(s254);
	free(s255);
	free(s256);
	free(s300);
}

/* Shorter after longer: no stale tail. */
static void shorter_after_longer(void **state)
{
	char *s200 = mt_str(200, 'q');
	struct fix f;

	(void)state;
	fix_start(&f);
	mmv_set_string(f.addr, f.one, s200, 200);
	check_slot(&f, f.one, s200);
	mmv_set_string(f.addr, f.one, "xy", 2);
	check_slot(&f, f.one, "xy");
	mmv_set_string(f.addr, f.one, "xyz123", 6);
	check_slot(&f, f.one, "xyz123");
	mmv_set_string(f.addr, f.one, "abc123", 6);
	check_slot(&f, f.one, "abc123");
	mmv_stats_set_string(f.addr, "s", "one", "Z");
	check_slot(&f, f.one, "Z");
	check_slot(&f, f.two, "");
	mmv_stats_free(f.reg);
	free(s200);
}

/* Strings only go to STRING metrics. */
static void non_string_metric_ignored(void **state)
{
	struct fix f;
	unsigned char before[32];

	(void)state;
	fix_start(&f);
	mmv_set_value(f.addr, f.u64, 77);
	memcpy(before, f.u64, 32);
	mmv_set_string(f.addr, f.u64, "abc", 3);
	mmv_stats_set_string(f.addr, "u", NULL, "abc");
	mmv_stats_set_strlen(f.addr, "u", NULL, "abc", 3);
	assert_memory_equal(before, f.u64, 32);
	mmv_stats_free(f.reg);
}

struct race {
	const volatile char *slot;
	volatile int stop;
	long reads, bad;
};

static void *reader(void *arg)
{
	struct race *r = arg;
	char copy[MMV_STRINGMAX];

	while (!r->stop) {
		for (int i = 0; i < MMV_STRINGMAX; i++)
			copy[i] = r->slot[i];
		/* always terminated, never empty (docs/compatibility.md: string updates) */
		if (copy[0] == '\0' || memchr(copy, '\0', sizeof(copy)) == NULL)
			r->bad++;
		r->reads++;
	}
	return NULL;
}

/* A concurrent reader never sees an empty or unterminated string. */
static void concurrent_reader(void **state)
{
	char *s255 = mt_str(255, 'L'), *s100 = mt_str(100, 'm');
	struct race r = { 0 };
	pthread_t t;
	struct fix f;

	(void)state;
	fix_start(&f);
	mmv_set_string(f.addr, f.one, "start", 5);
	r.slot = slot(&f, f.one);
	assert_int_equal(pthread_create(&t, NULL, reader, &r), 0);
	/* whole rounds of four: the last write is always "medium string" */
	for (int i = 0; i < 20000 || r.reads < 1000 || i % 4 != 0; i++) {
		switch (i % 4) {
		case 0:
			mmv_set_string(f.addr, f.one, s255, 255);
			break;
		case 1:
			mmv_set_string(f.addr, f.one, "s", 1);
			break;
		case 2:
			mmv_set_string(f.addr, f.one, s100, 100);
			break;
		default:
			mmv_stats_set_string(f.addr, "s", "one", "medium string");
			break;
		}
	}
	r.stop = 1;
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(r.bad, 0);
	check_slot(&f, f.one, "medium string");
	mmv_stats_free(f.reg);
	free(s255);
	free(s100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(set_string_basics),
		MT_TEST(long_strings),
		MT_TEST(shorter_after_longer),
		MT_TEST(non_string_metric_ignored),
		MT_TEST(concurrent_reader),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
