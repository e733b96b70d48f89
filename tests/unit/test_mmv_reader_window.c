/*
 * The reader's per-request read window (pmda_mmv/fetch.c): within one
 * request values come from one read, across requests they are fresh, and
 * a file truncated since the scan still gives PM_ERR_VALUE; a file whose
 * generation changed in place gives PM_ERR_AGAIN and asks for a rescan.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pcp/mmv_stats.h>

#include "mmv_reader_test.h"

struct fix {
	char *dir;
	char path[256];
	mmv_registry_t *reg;
	void *addr;
	mmv_snapshot_t *snap;
	test_log_t log;
};

static void start(struct fix *f)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);

	f->dir = make_dir();
	assert_non_null(f->dir);
	snprintf(f->path, sizeof(f->path), "%s/w", f->dir);
	f->reg = mmv_stats_registry(f->path, 0, 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "c0", 0, MMV_TYPE_U64,
			MMV_SEM_COUNTER, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(f->reg, "c1", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, none, 0, NULL, NULL), 0);
	assert_non_null(f->addr = mmv_stats_start(f->reg));
	mmv_stats_set(f->addr, "c0", NULL, 10);
	mmv_stats_set(f->addr, "c1", NULL, 11);
	assert_non_null(f->snap = scan_dir(f->dir, &f->log));
}

static void finish(struct fix *f)
{
	mmv_snapshot_free(f->snap);
	mmv_stats_free(f->reg);
	rm_rf(f->dir);
	free(f->dir);
}

static void fresh_across_requests(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	mmv_snapshot_fetch_begin();
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 10);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts), 11);
	mmv_snapshot_fetch_end();
	mmv_stats_set(f.addr, "c0", NULL, 20);
	mmv_stats_set(f.addr, "c1", NULL, 21);
	mmv_snapshot_fetch_begin();
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts), 21);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 20);
	mmv_snapshot_fetch_end();
	/* outside a request every value is read on its own */
	mmv_stats_set(f.addr, "c0", NULL, 30);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 30);
	finish(&f);
}

static void truncated_file(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	assert_int_equal(truncate(f.path, 40), 0);
	mmv_snapshot_fetch_begin();
	fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_VALUE);
	fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_VALUE);
	mmv_snapshot_fetch_end();
	finish(&f);
}

/* A new generation written into the served file's header, as a writer
 * re-initialising in place would. */
static void set_generation(struct fix *f, uint64_t gen)
{
	memcpy((char *)f->addr + 8, &gen, sizeof(gen));
	memcpy((char *)f->addr + 16, &gen, sizeof(gen));
}

static void changed_in_place(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	assert_int_equal(mmv_snapshot_needs_rescan_quick(f.snap), MMV_RESCAN_NONE);
	set_generation(&f, 12345);
	/* the quick check does not read files: the change is not seen yet */
	assert_int_equal(mmv_snapshot_needs_rescan_quick(f.snap), MMV_RESCAN_NONE);
	assert_int_equal(mmv_snapshot_needs_rescan(f.snap), MMV_RESCAN_CHANGED);
	/* a request that reads the file sees it, serves nothing stale from it,
	 * and leaves the change for the quick check */
	mmv_snapshot_fetch_begin();
	fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_AGAIN);
	fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_AGAIN);
	mmv_snapshot_fetch_end();
	assert_int_equal(mmv_snapshot_needs_rescan_quick(f.snap), MMV_RESCAN_CHANGED);
	finish(&f);
}

/* Once verified in a request, a file is not re-read for it; the next
 * request verifies again. */
static void verified_per_request(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	mmv_snapshot_fetch_begin();
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 10);
	set_generation(&f, 777);
	fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts);
	assert_int_equal(sts, 1);
	mmv_snapshot_fetch_end();
	mmv_snapshot_fetch_begin();
	fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_AGAIN);
	mmv_snapshot_fetch_end();
	finish(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_across_requests),
		cmocka_unit_test(truncated_file),
		cmocka_unit_test(changed_in_place),
		cmocka_unit_test(verified_per_request),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
