/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Registry API: arguments, validation errno, start/reset/free (mmv_stats.h, docs/mmv-format.md §10.2). */
#include "mmv_test.h"

static void registry_bad_arguments(void **state)
{
	mmv_registry_t *r;

	(void)state;
	errno = 0;
	assert_null(mmv_stats_registry(NULL, 0, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmv_stats_registry("", 0, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmv_stats_registry("x", -1, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmv_stats_registry("x", 4096, 0));
	assert_int_equal(errno, EINVAL);
	r = mmv_stats_registry("x", 4095, 0);
	assert_non_null(r);
	mmv_stats_free(r);
	r = mmv_stats_registry("x", 0, 0);
	assert_non_null(r);
	mmv_stats_free(r);
}

static void null_registry_is_efault(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(NULL, 1, NULL, NULL), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(mmv_stats_add_instance(NULL, 1, 1, "a"), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(mmv_stats_add_metric(NULL, "m", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 0, NULL, NULL), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(mmv_stats_add_registry_label(NULL, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom_label(NULL, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(mmv_stats_add_metric_label(NULL, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_int_equal(mmv_stats_add_instance_label(NULL, 1, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EFAULT);
	errno = 0;
	assert_null(mmv_stats_start(NULL));
	assert_int_equal(errno, EFAULT);
	mmv_stats_reset(NULL);
	mmv_stats_free(NULL);
}

static int add_metric(mmv_registry_t *r, const char *name, int item,
		int type, int sem, int serial)
{
	return mmv_stats_add_metric(r, name, item, (mmv_metric_type_t)type,
			(mmv_metric_sem_t)sem, mt_count, serial, NULL, NULL);
}

/* Start @r and expect failure with @err. */
static void expect_start_err(mmv_registry_t *r, int err)
{
	errno = 0;
	assert_null(mmv_stats_start(r));
	assert_int_equal(errno, err);
}

static void expect_metric_err(mmv_registry_t *r, const char *name, int item,
		int type, int sem, int err)
{
	errno = 0;
	assert_int_equal(add_metric(r, name, item, type, sem, 0), -1);
	assert_int_equal(errno, err);
}

static void metric_names(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("names", 0, 0);
	char *n255 = mt_str(255, 'a'), *n256 = mt_str(256, 'a');

	(void)state;
	assert_non_null(r);
	expect_metric_err(r, NULL, 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "a-b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "a b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "a/b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "a..b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "..", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, ".", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, ".a", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "a.", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, n256, 1, MMV_TYPE_U64, MMV_SEM_COUNTER, E2BIG);
	/* PCP checks empty names at start: so does ours, with PCP's errno */
	expect_start_err(r, EINVAL);
	mmv_stats_free(r);
	r = mmv_stats_registry("names", 0, 0);
	expect_metric_err(r, "a-b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "a..b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	assert_int_equal(add_metric(r, n255, 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_int_equal(add_metric(r, "a.b_c.D9", 2, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_int_equal(add_metric(r, "x", 3, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_non_null(mmv_stats_start(r));
	mmv_stats_free(r);
	free(n255);
	free(n256);
}

static void metric_types_semantics_items(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("types", 0, 0);

	(void)state;
	assert_non_null(r);
	expect_metric_err(r, "t7", 1, 7, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "t8", 1, 8, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "t10", 1, 10, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "tm2", 1, -2, MMV_SEM_COUNTER, EINVAL);
	/* types outside -1..9 fail PCP's start too; 7, 8 and the rest do not */
	expect_start_err(r, EINVAL);
	mmv_stats_free(r);
	r = mmv_stats_registry("types", 0, 0);
	expect_metric_err(r, "t7", 1, 7, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "s2", 1, MMV_TYPE_U64, 2, EINVAL);
	expect_metric_err(r, "s5", 1, MMV_TYPE_U64, 5, EINVAL);
	expect_metric_err(r, "i1024", 1024, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	expect_metric_err(r, "ineg", -1, MMV_TYPE_U64, MMV_SEM_COUNTER, EINVAL);
	assert_int_equal(add_metric(r, "i1023", 1023, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_int_equal(add_metric(r, "i0", 0, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	for (int t = -1; t <= 9; t++) {
		char name[16];

		if (t == 7 || t == 8)
			continue;
		snprintf(name, sizeof(name), "t%d", t + 1);
		assert_int_equal(add_metric(r, name, 10 + t, t, MMV_SEM_INSTANT, 0), 0);
	}
	assert_int_equal(add_metric(r, "sd", 30, MMV_TYPE_U32, MMV_SEM_DISCRETE, 0), 0);
	assert_non_null(mmv_stats_start(r));
	mmv_stats_free(r);
}

static void indom_validation(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("indoms", 0, 0);
	char *h255 = mt_str(255, 'h'), *h256 = mt_str(256, 'h');

	(void)state;
	assert_non_null(r);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(r, 0, NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(r, -1, NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(r, 3, h256, NULL), -1);
	assert_int_equal(errno, E2BIG);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(r, 3, NULL, h256), -1);
	assert_int_equal(errno, E2BIG);
	/* PCP refuses serial 0 at start with ESRCH: the first such error wins */
	expect_start_err(r, ESRCH);
	mmv_stats_free(r);
	r = mmv_stats_registry("indoms", 0, 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(r, 2048, NULL, NULL), -1);
	assert_int_equal(errno, EINVAL);	/* ours only: start still works */
	assert_int_equal(mmv_stats_add_indom(r, 3, h255, h255), 0);
	assert_int_equal(mmv_stats_add_indom(r, 2047, "", NULL), 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	/* a repeat is kept, as PCP keeps it */
	assert_int_equal(mmv_stats_add_indom(r, 1, "again", NULL), 0);
	assert_non_null(mmv_stats_start(r));
	mmv_stats_free(r);
	free(h255);
	free(h256);
}

static void instance_validation(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("insts", 0, 0);
	char *n255 = mt_str(255, 'i'), *n256 = mt_str(256, 'i');

	(void)state;
	assert_non_null(r);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_indom(r, 2, NULL, NULL), 0);
	/* PCP 6 returns -1/EINVAL on success; we return 0 */
	errno = 0;
	assert_int_equal(mmv_stats_add_instance(r, 1, 0, "zero"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 1, n255), 0);
	/* the same name and id in another indom is fine */
	assert_int_equal(mmv_stats_add_instance(r, 2, 0, "zero"), 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_instance(r, 9, 0, "nope"), -1);
	assert_int_equal(errno, EINVAL);
	{
		/* bad names: PCP fails the start; ours fails the add and the start */
		mmv_registry_t *bad = mmv_stats_registry("insts_bad", 0, 0);

		assert_int_equal(mmv_stats_add_indom(bad, 1, NULL, NULL), 0);
		errno = 0;
		assert_int_equal(mmv_stats_add_instance(bad, 1, 5, NULL), -1);
		assert_int_equal(errno, EINVAL);
		errno = 0;
		assert_int_equal(mmv_stats_add_instance(bad, 1, 5, ""), -1);
		assert_int_equal(errno, EINVAL);
		errno = 0;
		assert_int_equal(mmv_stats_add_instance(bad, 1, 5, n256), -1);
		assert_int_equal(errno, E2BIG);
		expect_start_err(bad, EINVAL);
		mmv_stats_free(bad);
	}
	assert_int_equal(mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 1, NULL, NULL), 0);
	void *addr = mmv_stats_start(r);
	assert_non_null(addr);
	/* what failed was not added: two instances, two values */
	assert_non_null(mmv_lookup_value_desc(addr, "m", "zero"));
	assert_non_null(mmv_lookup_value_desc(addr, "m", n255));
	assert_null(mmv_lookup_value_desc(addr, "m", ""));
	mmv_stats_free(r);
	free(n255);
	free(n256);
}

static void start_unknown_indom(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("srch", 0, 0);

	(void)state;
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 2), 0);
	expect_start_err(r, ESRCH);
	assert_int_equal(mt_size(state, "srch"), -1);
	mmv_stats_free(r);
}

/* start_dup - start @r, which must work as PCP's; the handle. */
static void *start_dup(mmv_registry_t *r)
{
	void *addr = mmv_stats_start(r);

	if (addr == NULL)
		fail_msg("mmv_stats_start: %s", strerror(errno));
	return addr;
}

/* Repeats are written as PCP writes them; lookups find the first. */
static void start_duplicates(void **state)
{
	mmv_registry_t *r;
	mmv_disk_value_t *v;
	void *addr;

	(void)state;
	/* metric names: the first of them is the one updated */
	r = mmv_stats_registry("dup", 0, 0);
	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_int_equal(add_metric(r, "m", 2, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	addr = start_dup(r);
	mmv_stats_set(addr, "m", NULL, 5);
	v = (mmv_disk_value_t *)mmv_lookup_value_desc(addr, "m", NULL);
	assert_int_equal(v->value.ull, 5);
	assert_int_equal(v[1].value.ull, 0);	/* the second m's record */
	mmv_stats_free(r);
	/* items */
	r = mmv_stats_registry("dup", 0, 0);
	assert_int_equal(add_metric(r, "a", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_int_equal(add_metric(r, "b", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	start_dup(r);
	mmv_stats_free(r);
	/* instance ids */
	r = mmv_stats_registry("dup", 0, 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 7, "x"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 7, "y"), 0);
	start_dup(r);
	mmv_stats_free(r);
	/* instance names: the first is the one found */
	r = mmv_stats_registry("dup", 0, 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 7, "x"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 8, "x"), 0);
	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 1), 0);
	addr = start_dup(r);
	mmv_stats_set(addr, "m", "x", 3);
	v = (mmv_disk_value_t *)mmv_lookup_value_desc(addr, "m", "x");
	assert_int_equal(v->value.ull, 3);
	assert_int_equal(v[1].value.ull, 0);
	mmv_stats_free(r);
	/* indom serials: the instance goes to both (PCP 6) or the first (PCP 7) */
	r = mmv_stats_registry("dup", 0, 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 7, "x"), 0);
	addr = start_dup(r);
#ifdef SDK_PCP7
	assert_int_equal(((mmv_disk_toc_t *)((char *)addr + 40))[1].count, 1);
#else
	assert_int_equal(((mmv_disk_toc_t *)((char *)addr + 40))[1].count, 2);
#endif
	mmv_stats_free(r);
	/* one name on two indoms: the one that has the instance */
	r = mmv_stats_registry("dup", 0, 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_indom(r, 2, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 7, "x"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 2, 8, "y"), 0);
	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 1), 0);
	assert_int_equal(add_metric(r, "m", 2, MMV_TYPE_U64, MMV_SEM_COUNTER, 2), 0);
	addr = start_dup(r);
	mmv_stats_set(addr, "m", "y", 9);
	v = (mmv_disk_value_t *)mmv_lookup_value_desc(addr, "m", "x");
	assert_int_equal(v->value.ull, 0);
	assert_int_equal(v[1].value.ull, 9);	/* the second m's only record */
	mmv_stats_free(r);
}

static void start_twice_and_add_after_start(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("busy", 0, 0);
	pmAtomValue *v;
	void *addr;

	(void)state;
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 1, "a"), 0);
	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	expect_start_err(r, EBUSY);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom(r, 2, NULL, NULL), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(mmv_stats_add_instance(r, 1, 2, "b"), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(add_metric(r, "n", 2, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(mmv_stats_add_registry_label(r, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(mmv_stats_add_indom_label(r, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(mmv_stats_add_metric_label(r, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EBUSY);
	errno = 0;
	assert_int_equal(mmv_stats_add_instance_label(r, 1, 1, "a", "1", MMV_NUMBER_TYPE, 0), -1);
	assert_int_equal(errno, EBUSY);
	/* the first mapping is still the live one */
	v = mmv_lookup_value_desc(addr, "m", NULL);
	assert_non_null(v);
	mmv_inc(addr, v);
	assert_int_equal(v->ull, 1);
	mmv_stats_free(r);
}

/* Metrics may name an indom declared after them (mmv_stats.h). */
static void metric_before_indom(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("order", 0, 0);
	void *addr;

	(void)state;
	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 5), 0);
	assert_int_equal(mmv_stats_add_indom(r, 5, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 5, 1, "one"), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	assert_non_null(mmv_lookup_value_desc(addr, "m", "one"));
	mmv_stats_free(r);
}

/* The registry copies every string (docs/compatibility.md: registry strings copied). */
static void strings_are_copied(void **state)
{
	char file[16], mname[16], iname[16], help[16], ihelp[16];
	mmv_registry_t *r;
	unsigned char *b;
	size_t len;
	void *addr;

	strcpy(file, "copied");
	strcpy(mname, "metric");
	strcpy(iname, "inst");
	strcpy(help, "help");
	strcpy(ihelp, "ihelp");
	r = mmv_stats_registry(file, 0, 0);
	assert_int_equal(mmv_stats_add_indom(r, 1, ihelp, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 1, 1, iname), 0);
	assert_int_equal(mmv_stats_add_metric(r, mname, 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, mt_count, 1, help, NULL), 0);
	memset(file, 'Z', sizeof(file) - 1);
	memset(mname, 'Z', sizeof(mname) - 1);
	memset(iname, 'Z', sizeof(iname) - 1);
	memset(help, 'Z', sizeof(help) - 1);
	memset(ihelp, 'Z', sizeof(ihelp) - 1);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	assert_non_null(mmv_lookup_value_desc(addr, "metric", "inst"));
	b = mt_read(state, "copied", &len);
	/* v1: indom@72+... tocs 5: indom 120, instance 152, metric 232 */
	assert_string_equal((char *)b + 152 + 16, "inst");
	assert_string_equal((char *)b + 232, "metric");
	assert_string_equal((char *)b + rd64(b, 232 + 88), "help");
	assert_string_equal((char *)b + rd64(b, 120 + 16), "ihelp");
	free(b);
	mmv_stats_free(r);
}

static void reset_allows_refill(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("again", 0, 0);
	void *addr;

	assert_int_equal(add_metric(r, "first", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	mmv_stats_reset(r);
	/* without MMV_FLAG_PROCESS the file stays after the stop */
	assert_int_equal(mt_size(state, "again"), 72 + 104 + 32);
	assert_int_equal(add_metric(r, "second", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	assert_int_equal(add_metric(r, "third", 2, MMV_TYPE_U64, MMV_SEM_COUNTER, 0), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	assert_null(mmv_lookup_value_desc(addr, "first", NULL));
	assert_non_null(mmv_lookup_value_desc(addr, "second", NULL));
	assert_non_null(mmv_lookup_value_desc(addr, "third", NULL));
	/* 40 + 2*16 + 2*104 + 2*32 */
	assert_int_equal(mt_size(state, "again"), 344);
	mmv_stats_free(r);
}

static void free_removes_process_file(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("proc", 0, MMV_FLAG_PROCESS);
	mmv_registry_t *k = mmv_stats_registry("keep", 0, 0);
	mmv_registry_t *n = mmv_stats_registry("never", 0, MMV_FLAG_PROCESS);

	assert_non_null(mmv_stats_start(r));
	assert_non_null(mmv_stats_start(k));
	assert_int_equal(mt_size(state, "proc"), 72);
	mmv_stats_free(r);
	assert_int_equal(mt_size(state, "proc"), -1);
	mmv_stats_free(k);
	assert_int_equal(mt_size(state, "keep"), 72);
	/* never started: nothing happens to a file of that name */
	char path[PATH_MAX];
	int fd = open(mt_path(state, "never", path), O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	close(fd);
	mmv_stats_free(n);
	assert_int_equal(mt_size(state, "never"), 0);
}

/* A failed start leaves the registry usable (ESRCH, then ENOENT). */
static void start_after_failure(void **state)
{
	const struct mt *t = *state;
	mmv_registry_t *r = mmv_stats_registry("retry", 0, 0);

	assert_int_equal(add_metric(r, "m", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, 3), 0);
	expect_start_err(r, ESRCH);
	assert_int_equal(mmv_stats_add_indom(r, 3, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, 3, 0, "i"), 0);
	assert_int_equal(rmdir(t->mmvdir), 0);
	expect_start_err(r, ENOENT);
	assert_int_equal(mkdir(t->mmvdir, 0755), 0);
	assert_non_null(mmv_stats_start(r));
	assert_true(mt_size(state, "retry") > 0);
	mmv_stats_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(registry_bad_arguments),
		MT_TEST(null_registry_is_efault),
		MT_TEST(metric_names),
		MT_TEST(metric_types_semantics_items),
		MT_TEST(indom_validation),
		MT_TEST(instance_validation),
		MT_TEST(start_unknown_indom),
		MT_TEST(start_duplicates),
		MT_TEST(start_twice_and_add_after_start),
		MT_TEST(metric_before_indom),
		MT_TEST(strings_are_copied),
		MT_TEST(reset_allows_refill),
		MT_TEST(free_removes_process_file),
		MT_TEST(start_after_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
