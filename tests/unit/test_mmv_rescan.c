/*
 * Unit tests for the incremental rescan of the pmda_mmv reader: a rescan
 * given the served snapshot takes over the files that did not change
 * (same inode, size and generations) without reading them again, reads
 * the changed and new ones, drops the removed ones, keeps clusters, and
 * answers exactly as a first scan of the same files would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include "mmv_reader_test.h"

static char *dir;
static test_log_t logbuf;

static int setup(void **state)
{
	(void)state;
	dir = make_dir();
	return dir == NULL;
}

static int teardown(void **state)
{
	(void)state;
	rm_rf(dir);
	free(dir);
	return 0;
}

static mmv_snapshot_t *rescan(const mmv_snapshot_t *prev)
{
	mmv_reader_config_t cfg = { 0 };

	memset(&logbuf, 0, sizeof(logbuf));
	cfg.dir = dir;
	cfg.log = test_log_fn;
	cfg.log_arg = &logbuf;
	cfg.previous = prev;
	return mmv_snapshot_scan(&cfg);
}

/* The hand-built file with its m.a value, generation and flags. */
static void put(const char *name, uint64_t value, uint64_t gen, int flags)
{
	hb_t h;

	hb_build(&h, 0);
	hb_value(&h, 0)->value.ull = value;
	hb_header(&h)->g1 = hb_header(&h)->g2 = gen;
	hb_header(&h)->flags = flags;
	write_file(dir, name, &h, sizeof(h));
}

/* As writers do: a new file renamed over the old one. */
static void replace(const char *name, uint64_t value, uint64_t gen)
{
	char from[512];

	put(".new", value, gen, 0);
	snprintf(from, sizeof(from), "%s", file_path(dir, ".new"));
	assert_int_equal(rename(from, file_path(dir, name)), 0);
}

static const mmv_metric_info_t *metric(mmv_snapshot_t *s, const char *file)
{
	char name[64];

	snprintf(name, sizeof(name), "mmv.%s.m.a", file);
	return mmv_snapshot_lookup_name(s, name);
}

static long long value(mmv_snapshot_t *s, const char *file)
{
	char name[64];
	int sts;
	long long v;

	snprintf(name, sizeof(name), "mmv.%s.m.a", file);
	v = fetch_ll(s, name, PM_IN_NULL, &sts);
	return sts == 1 ? v : sts;
}

static unsigned int cluster(mmv_snapshot_t *s, const char *file)
{
	for (size_t i = 0; i < mmv_snapshot_nfiles(s); i++)
		if (strcmp(mmv_snapshot_file(s, i)->name, file) == 0)
			return mmv_snapshot_file(s, i)->cluster;
	return 0;
}

/* Unchanged files are taken over, not read: even an unreadable one. */
static void unchanged_files_shared(void **state)
{
	mmv_snapshot_t *s0, *s1;

	(void)state;
	put("a", 1, 11, 0);
	put("b", 2, 12, 0);
	put("c", 3, 13, 0);
	s0 = rescan(NULL);
	assert_int_equal(mmv_snapshot_reused(s0), 0);
	assert_int_equal(mmv_snapshot_nmetrics(s0), 6);
	/* Reading b again would fail now (unless we run as root). */
	assert_int_equal(chmod(file_path(dir, "b"), 0), 0);
	s1 = rescan(s0);
	assert_int_equal(mmv_snapshot_reused(s1), 3);
	assert_int_equal(mmv_snapshot_nfiles(s1), 3);
	assert_int_equal(mmv_snapshot_nmetrics(s1), 6);
	/* The same memory: parsed once. */
	assert_ptr_equal(metric(s1, "a"), metric(s0, "a"));
	assert_ptr_equal(metric(s1, "b"), metric(s0, "b"));
	assert_int_equal(cluster(s1, "b"), cluster(s0, "b"));
	assert_int_equal(logbuf.lines, 0);
	/* The old snapshot goes first; the new one still serves all. */
	mmv_snapshot_free(s0);
	assert_int_equal(value(s1, "a"), 1);
	assert_int_equal(value(s1, "b"), 2);
	assert_int_equal(value(s1, "c"), 3);
	assert_int_equal(mmv_snapshot_metric(s1, 2)->desc.pmid,
			metric(s1, "b")->desc.pmid);
	mmv_snapshot_free(s1);
}

/* Changed in place, replaced, removed, added: each read as it now is. */
static void changed_removed_added(void **state)
{
	mmv_snapshot_t *s0, *s1, *s2, *s3;

	(void)state;
	put("a", 1, 11, 0);
	put("b", 2, 12, 0);
	put("c", 3, 13, 0);
	s0 = rescan(NULL);
	put("b", 20, 22, 0);		/* same inode and size, new generation */
	replace("c", 30, 13);		/* new inode, same size and generation */
	s1 = rescan(s0);
	assert_int_equal(mmv_snapshot_reused(s1), 1);
	assert_ptr_equal(metric(s1, "a"), metric(s0, "a"));
	assert_ptr_not_equal(metric(s1, "b"), metric(s0, "b"));
	assert_int_equal(value(s1, "b"), 20);
	assert_int_equal(value(s1, "c"), 30);
	assert_int_equal(cluster(s1, "b"), cluster(s0, "b"));
	assert_int_equal(cluster(s1, "c"), cluster(s0, "c"));
	mmv_snapshot_free(s0);
	/* Removed: the first in name order; the others keep their clusters
	 * (a first scan would give b cluster 1). */
	assert_int_equal(unlink(file_path(dir, "a")), 0);
	s2 = rescan(s1);
	assert_int_equal(mmv_snapshot_reused(s2), 2);
	assert_null(metric(s2, "a"));
	assert_int_equal(mmv_snapshot_nmetrics(s2), 4);
	assert_int_equal(cluster(s2, "b"), cluster(s1, "b"));
	assert_int_equal(cluster(s2, "c"), cluster(s1, "c"));
	assert_int_equal(metric(s2, "c")->desc.pmid, metric(s1, "c")->desc.pmid);
	mmv_snapshot_free(s1);
	/* Added: the smallest free cluster, names merged in order. */
	put("aa", 4, 14, 0);
	s3 = rescan(s2);
	assert_int_equal(mmv_snapshot_reused(s3), 2);
	assert_int_equal(value(s3, "aa"), 4);
	assert_int_equal(cluster(s3, "aa"), 1);
	assert_int_equal(mmv_snapshot_nmetrics(s3), 6);
	assert_string_equal(mmv_snapshot_metric(s3, 0)->name, "mmv.aa.m.a");
	assert_string_equal(mmv_snapshot_metric(s3, 2)->name, "mmv.b.m.a");
	assert_string_equal(mmv_snapshot_metric(s3, 5)->name, "mmv.c.m.s");
	assert_ptr_equal(mmv_snapshot_lookup_pmid(s3, metric(s3, "aa")->desc.pmid),
			metric(s3, "aa"));
	assert_non_null(mmv_snapshot_lookup_indom(s3,
			(70u << 22) | (cluster(s3, "aa") << 11 | 5)));
	assert_int_equal(mmv_snapshot_nindoms(s3), 3);
	mmv_snapshot_free(s2);
	mmv_snapshot_free(s3);
}

/* A served file replaced by a hostile one: refused, the rest served. */
static void hostile_replacement(void **state)
{
	mmv_snapshot_t *s0, *s1;
	hb_t h;

	(void)state;
	put("a", 1, 11, 0);
	put("b", 2, 12, 0);
	put("c", 3, 13, 0);
	s0 = rescan(NULL);
	hb_build(&h, 0);
	hb_metric(&h, 1)->name = HB_SIZE - 2;	/* no NUL inside the file */
	hb_header(&h)->tocs = 1;		/* and too few TOC entries */
	write_file(dir, "b", &h, sizeof(h));
	s1 = rescan(s0);
	assert_int_equal(mmv_snapshot_nfiles(s1), 2);
	assert_null(metric(s1, "b"));
	assert_int_equal(logbuf.lines, 1);
	assert_non_null(strstr(logbuf.text, "/b: bad TOC count"));
	assert_ptr_equal(metric(s1, "a"), metric(s0, "a"));
	assert_ptr_equal(metric(s1, "c"), metric(s0, "c"));
	mmv_snapshot_free(s0);
	assert_int_equal(value(s1, "a"), 1);
	assert_int_equal(value(s1, "c"), 3);
	assert_int_equal(cluster(s1, "c"), 3);
	mmv_snapshot_free(s1);
}

/*
 * Names that clash across files settle as in a first scan (the first
 * file in name order wins), whichever file came or went: NOPREFIX files
 * all export mmv.m.a.
 */
static void name_clash_as_first_scan(void **state)
{
	mmv_snapshot_t *s0, *s1, *s2, *s3;
	const mmv_metric_info_t *m;

	(void)state;
	put("b", 2, 12, MMV_FLAG_NOPREFIX);
	s0 = rescan(NULL);
	put("c", 3, 13, MMV_FLAG_NOPREFIX);	/* loses to b */
	s1 = rescan(s0);
	m = mmv_snapshot_lookup_name(s1, "mmv.m.a");
	assert_non_null(m);
	assert_int_equal(m->desc.pmid, mmv_snapshot_lookup_name(s0,
			"mmv.m.a")->desc.pmid);
	assert_non_null(strstr(logbuf.text, "/c: metric name mmv.m.a already "
			"used by b"));
	put("a", 1, 11, MMV_FLAG_NOPREFIX);	/* wins over both */
	s2 = rescan(s1);
	assert_int_equal(fetch_ll(s2, "mmv.m.a", PM_IN_NULL, &(int){0}), 1);
	assert_int_equal(mmv_snapshot_nmetrics(s2), 2);
	assert_int_equal(unlink(file_path(dir, "a")), 0);
	assert_int_equal(unlink(file_path(dir, "b")), 0);
	s3 = rescan(s2);			/* c, the loser, now wins */
	assert_int_equal(fetch_ll(s3, "mmv.m.a", PM_IN_NULL, &(int){0}), 3);
	assert_int_equal(mmv_snapshot_nmetrics(s3), 2);
	mmv_snapshot_free(s0);
	mmv_snapshot_free(s1);
	mmv_snapshot_free(s2);
	mmv_snapshot_free(s3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(unchanged_files_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(changed_removed_added, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_replacement, setup, teardown),
		cmocka_unit_test_setup_teardown(name_clash_as_first_scan, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
