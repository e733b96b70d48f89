/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader's live values (pmda_mmv/reader/fetch.c, guard.c): read from the
 * file's mapping, fresh at every fetch; a file truncated under the
 * mapping gives PM_ERR_VALUE through the SIGBUS guard instead of killing
 * the process, and a SIGBUS that is not the guard's goes where it went
 * before; a file
 * whose generation changed in place gives PM_ERR_AGAIN and asks for a
 * rescan. And the directory checks that decide a rescan.
 */
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pcp/mmv_stats.h>

#include "mmv_reader_test.h"

/* Enough metrics that the last values lie pages past the header. */
#define NMETRICS	400

struct fix {
	char *dir;
	char path[256];
	mmv_registry_t *reg;
	void *addr;
	mmvr_snapshot_t *snap;
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
	for (int i = 2; i < NMETRICS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "m%d", i);
		assert_int_equal(mmv_stats_add_metric(f->reg, name, (uint32_t)i,
				MMV_TYPE_U64, MMV_SEM_COUNTER, none, 0, NULL,
				NULL), 0);
	}
	assert_non_null(f->addr = mmv_stats_start(f->reg));
	mmv_stats_set(f->addr, "m399", NULL, 399);
	mmv_stats_set(f->addr, "c0", NULL, 10);
	mmv_stats_set(f->addr, "c1", NULL, 11);
	assert_non_null(f->snap = scan_dir(f->dir, &f->log));
}

static void finish(struct fix *f)
{
	mmvr_snapshot_free(f->snap);
	mmv_stats_free(f->reg);
	rm_rf(f->dir);
	free(f->dir);
}

static void fresh_at_every_fetch(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 10);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts), 11);
	mmv_stats_set(f.addr, "c0", NULL, 20);
	mmv_stats_set(f.addr, "m399", NULL, 400);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 20);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.m399", PM_IN_NULL, &sts), 400);
	finish(&f);
}

/* Shrunk to its header: the last values' pages are gone from the
 * mapping, so reading them raises SIGBUS, which the guard turns into
 * PM_ERR_VALUE; the next full check sees the size. */
static void truncated_file(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.m399", PM_IN_NULL, &sts), 399);
	assert_int_equal(truncate(f.path, 40), 0);
	fetch_ll(f.snap, "mmv.w.m399", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_VALUE);
	fetch_ll(f.snap, "mmv.w.m399", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_VALUE);	/* and again: still armed */
	/* the next request's quick check rescans: no second to wait */
	assert_true(mmvr_snapshot_fetch_saw_change(f.snap));
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap),
			MMVR_RESCAN_CHANGED);
	assert_int_equal(mmvr_snapshot_needs_rescan(f.snap), MMVR_RESCAN_CHANGED);
	finish(&f);
}

static void other_handler(int sig)
{
	(void)sig;
	_exit(42);
}

/* The guard takes only its own faults: any other SIGBUS goes to the
 * handler it found there, here one installed before the scan. */
static void other_sigbus_passed_on(void **state)
{
	struct sigaction sa;
	struct fix f;
	pid_t pid;
	int status;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = other_handler;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGBUS, &sa, NULL), 0);
	start(&f);	/* the scan puts the guard in front of it */
	assert_int_equal(sigaction(SIGBUS, NULL, &sa), 0);
	assert_true(sa.sa_flags & SA_SIGINFO);
	if ((pid = fork()) == 0) {
		raise(SIGBUS);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 42);
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
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_NONE);
	set_generation(&f, 12345);
	/* the quick check does not read files: the change is not seen yet */
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_NONE);
	assert_int_equal(mmvr_snapshot_needs_rescan(f.snap), MMVR_RESCAN_CHANGED);
	/* a fetch from the file sees it, serves nothing stale from it,
	 * and leaves the change for the quick check */
	assert_false(mmvr_snapshot_fetch_saw_change(f.snap));
	fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_AGAIN);
	fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_AGAIN);
	assert_true(mmvr_snapshot_fetch_saw_change(f.snap));
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_CHANGED);
	finish(&f);
}

/* The generation is read again before every value, not once per file:
 * a change between two fetches is seen at the second. */
static void verified_per_value(void **state)
{
	struct fix f;
	int sts;

	(void)state;
	start(&f);
	assert_int_equal(fetch_ll(f.snap, "mmv.w.c0", PM_IN_NULL, &sts), 10);
	set_generation(&f, 777);
	fetch_ll(f.snap, "mmv.w.c1", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_AGAIN);
	finish(&f);
}

/* The per-request check fstats the directory the scan read: a file added
 * or the directory renamed is seen there; another directory put at the
 * path only by the full check, which looks the path up again. */
static void directory_checks(void **state)
{
	char moved[300];
	struct fix f;

	(void)state;
	start(&f);
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_NONE);
	usleep(20000);	/* past the scan's clock tick */
	mmvr_snapshot_free(f.snap);
	assert_non_null(f.snap = scan_dir(f.dir, &f.log));
	usleep(20000);
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_NONE);
	snprintf(moved, sizeof(moved), "%s.moved", f.dir);
	assert_int_equal(rename(f.dir, moved), 0);
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_DIR);
	assert_int_equal(mkdir(f.dir, 0755), 0);
	assert_int_equal(mmvr_snapshot_needs_rescan(f.snap), MMVR_RESCAN_DIR);
	assert_int_equal(rmdir(f.dir), 0);
	assert_int_equal(rename(moved, f.dir), 0);
	finish(&f);
}

/* A directory stamped in the future (a clock set back) is not "changed
 * in the scan's tick" for ever: no rescan at every request. */
static void future_mtime(void **state)
{
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 0, 0 } };
	mmvr_config_t cfg = { 0 };
	struct fix f;

	(void)state;
	start(&f);
	t[1].tv_sec = time(NULL) + 3600;
	assert_int_equal(utimensat(AT_FDCWD, f.dir, t, 0), 0);
	mmvr_snapshot_free(f.snap);
	cfg.dir = f.dir;	/* not scan_dir: it ages the directory */
	cfg.log = test_log_fn;
	cfg.log_arg = &f.log;
	assert_non_null(f.snap = mmvr_snapshot_scan(&cfg));
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(f.snap), MMVR_RESCAN_NONE);
	assert_int_equal(mmvr_snapshot_needs_rescan(f.snap), MMVR_RESCAN_NONE);
	finish(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_at_every_fetch),
		cmocka_unit_test(truncated_file),
		cmocka_unit_test(other_sigbus_passed_on),
		cmocka_unit_test(changed_in_place),
		cmocka_unit_test(verified_per_value),
		cmocka_unit_test(directory_checks),
		cmocka_unit_test(future_mtime),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
