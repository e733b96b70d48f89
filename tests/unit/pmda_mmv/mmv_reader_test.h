/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmv_reader_test.h - helpers shared by the reader core's unit tests:
 * scratch directories, a capturing log, and a hand-built version 2 file
 * whose every offset is known, so tests can corrupt one field at a time.
 */
#ifndef MMV_READER_TEST_H
#define MMV_READER_TEST_H

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
#include <pcp/mmv_dev.h>
#include <pcp/mmv_stats.h>
#include "mmv_format.h"
#include "../../../pmda_mmv/reader/reader.h"

typedef struct test_log {
	int lines;
	char text[8192];
} test_log_t;

static inline void test_log_fn(void *arg, int level, const char *msg)
{
	test_log_t *l = arg;
	size_t n = strlen(l->text);

	(void)level;
	l->lines++;
	snprintf(l->text + n, sizeof(l->text) - n, "%s\n", msg);
}

static inline int rm_entry(const char *path, const struct stat *st, int flag,
		struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static inline void rm_rf(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static inline char *make_dir(void)
{
	char tmpl[] = "/tmp/mmvr.XXXXXX";
	char *d = mkdtemp(tmpl);

	return d ? strdup(d) : NULL;
}

/*
 * A scratch $PCP_TMP_DIR for an agent: make_dir() with an "mmv"
 * directory in it, named in @mmvdir, and PCP_TMP_DIR set to it (both
 * pmGetConfig and libpcp_mmv take it from the environment). NULL on
 * failure.
 */
static inline char *make_tmp_dir(char *mmvdir, size_t len)
{
	char *d = make_dir();

	if (d == NULL)
		return NULL;
	snprintf(mmvdir, len, "%s/mmv", d);
	if (mkdir(mmvdir, 0755) < 0) {
		free(d);
		return NULL;
	}
	setenv("PCP_TMP_DIR", d, 1);
	return d;
}

/*
 * Date the directory's last change a second back: a scan right after a
 * change (within the kernel's timestamp tick) counts as changed until
 * rescanned, which tests of change detection must step over.
 */
static inline void age_dir(const char *dir)
{
	struct timespec t[2];

	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= 1;
	t[1] = t[0];
	utimensat(AT_FDCWD, dir, t, 0);	/* a missing one: nothing to age */
}

/* A scan of @dir given the snapshot served (NULL: a first scan). */
static inline mmvr_snapshot_t *scan_after(const char *dir, test_log_t *log,
		const mmvr_snapshot_t *prev)
{
	mmvr_config_t cfg = { 0 };

	age_dir(dir);
	memset(log, 0, sizeof(*log));
	cfg.dir = dir;
	cfg.log = test_log_fn;
	cfg.log_arg = log;
	cfg.previous = prev;
	return mmvr_snapshot_scan(&cfg);
}

static inline mmvr_snapshot_t *scan_dir(const char *dir, test_log_t *log)
{
	return scan_after(dir, log, NULL);
}

static inline void write_file(const char *dir, const char *name,
		const void *buf, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
}

static inline char *file_path(const char *dir, const char *name)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/*
 * The hand-built file (version 2, no padding, docs/mmv-format.md §2.4):
 *   indom 5 with instances (1,"one") and (2,"two");
 *   metric "m.a" item 1 U64 COUNTER, no indom, short help "short a";
 *   metric "m.s" item 2 U32 INSTANT on indom 5;
 *   values: m.a = 42; m.s[one] = 11; m.s[two] = 22.
 */
enum {
	HB_TOCS = 5,
	HB_INDOMS = MMV_TOC_OFFSET + MMV_TOC_ENTRY_SIZE * HB_TOCS,	/* 120 */
	HB_INSTS = HB_INDOMS + MMV_INDOMS_SIZE_V2,		/* 152 */
	HB_METRICS = HB_INSTS + 2 * MMV_INSTANCES_SIZE_V2,	/* 200 */
	HB_VALUES = HB_METRICS + 2 * MMV_METRICS_SIZE_V2,	/* 296 */
	HB_STRINGS = HB_VALUES + 3 * MMV_VALUES_SIZE_V2,	/* 392 */
	HB_NSTRINGS = 5,
	HB_SIZE = HB_STRINGS + HB_NSTRINGS * MMV_STRINGMAX,	/* 1672 */
	HB_S_ONE = HB_STRINGS, HB_S_TWO = HB_STRINGS + MMV_STRINGMAX,
	HB_S_MA = HB_STRINGS + 2 * MMV_STRINGMAX,
	HB_S_MS = HB_STRINGS + 3 * MMV_STRINGMAX,
	HB_S_HELP = HB_STRINGS + 4 * MMV_STRINGMAX,
};
/* The offsets the comments give, from docs/mmv-format.md §2.3's sizes. */
static_assert(HB_SIZE == 1672, "hand-built file is 1672 bytes");

typedef struct hb {
	unsigned char b[HB_SIZE];
} hb_t;

static inline mmv_disk_header_t *hb_header(hb_t *h)
{
	return (mmv_disk_header_t *)h->b;
}

static inline mmv_disk_toc_t *hb_toc(hb_t *h, int i)
{
	return (mmv_disk_toc_t *)(h->b + MMV_TOC_OFFSET + MMV_TOC_ENTRY_SIZE * i);
}

static inline mmv_disk_indom_t *hb_indom(hb_t *h)
{
	return (mmv_disk_indom_t *)(h->b + HB_INDOMS);
}

static inline mmv_disk_instance2_t *hb_inst(hb_t *h, int i)
{
	return (mmv_disk_instance2_t *)(h->b + HB_INSTS + MMV_INSTANCES_SIZE_V2 * i);
}

static inline mmv_disk_metric2_t *hb_metric(hb_t *h, int i)
{
	return (mmv_disk_metric2_t *)(h->b + HB_METRICS + MMV_METRICS_SIZE_V2 * i);
}

static inline mmv_disk_value_t *hb_value(hb_t *h, int i)
{
	return (mmv_disk_value_t *)(h->b + HB_VALUES + MMV_VALUES_SIZE_V2 * i);
}

static inline void hb_toc_set(hb_t *h, int i, int type, int count,
		uint64_t off)
{
	mmv_disk_toc_t *t = hb_toc(h, i);

	t->type = type;
	t->count = count;
	t->offset = off;
}

static inline void hb_build(hb_t *h, int cluster)
{
	mmv_disk_header_t *hd = hb_header(h);
	mmv_disk_metric2_t *m;
	mmv_disk_value_t *v;

	memset(h, 0, sizeof(*h));
	memcpy(hd->magic, "MMV", 4);
	hd->version = MMV_VERSION2;
	hd->g1 = hd->g2 = 0x123456789ULL;
	hd->tocs = HB_TOCS;
	hd->cluster = cluster;
	hb_toc_set(h, 0, MMV_TOC_INDOMS, 1, HB_INDOMS);
	hb_toc_set(h, 1, MMV_TOC_INSTANCES, 2, HB_INSTS);
	hb_toc_set(h, 2, MMV_TOC_METRICS, 2, HB_METRICS);
	hb_toc_set(h, 3, MMV_TOC_VALUES, 3, HB_VALUES);
	hb_toc_set(h, 4, MMV_TOC_STRINGS, HB_NSTRINGS, HB_STRINGS);
	hb_indom(h)->serial = 5;
	hb_indom(h)->count = 2;
	hb_indom(h)->offset = HB_INSTS;
	hb_inst(h, 0)->indom = HB_INDOMS;
	hb_inst(h, 0)->internal = 1;
	hb_inst(h, 0)->external = HB_S_ONE;
	hb_inst(h, 1)->indom = HB_INDOMS;
	hb_inst(h, 1)->internal = 2;
	hb_inst(h, 1)->external = HB_S_TWO;
	strcpy((char *)h->b + HB_S_ONE, "one");
	strcpy((char *)h->b + HB_S_TWO, "two");
	strcpy((char *)h->b + HB_S_MA, "m.a");
	strcpy((char *)h->b + HB_S_MS, "m.s");
	strcpy((char *)h->b + HB_S_HELP, "short a");
	m = hb_metric(h, 0);
	m->name = HB_S_MA;
	m->item = 1;
	m->type = MMV_TYPE_U64;
	m->semantics = MMV_SEM_COUNTER;
	m->indom = -1;
	m->shorttext = HB_S_HELP;
	m = hb_metric(h, 1);
	m->name = HB_S_MS;
	m->item = 2;
	m->type = MMV_TYPE_U32;
	m->semantics = MMV_SEM_INSTANT;
	m->indom = 5;
	v = hb_value(h, 0);
	v->value.ull = 42;
	v->metric = HB_METRICS;
	v = hb_value(h, 1);
	v->value.ul = 11;
	v->metric = HB_METRICS + 48;
	v->instance = HB_INSTS;
	v = hb_value(h, 2);
	v->value.ul = 22;
	v->metric = HB_METRICS + 48;
	v->instance = HB_INSTS + 24;
}

/* One quick fetch of @pmid, armed or not; a jump reads PM_ERR_VALUE, as
 * the agent's reply filled again with the guard per value would. */
static inline int fetch_quick(mmvr_snapshot_t *s, pmID pmid,
		const mmvr_quick_t *q, mmvr_value_t *v, bool armed)
{
	static mmvr_guard_t g;
	volatile int sts = PM_ERR_VALUE;

	if (!armed)
		return mmvr_snapshot_fetch_quick(s, pmid, q, v, false);
	if (sigsetjmp(g.env, 0) == 0) {
		mmvr_guard_arm(&g);
		sts = mmvr_snapshot_fetch_quick(s, pmid, q, v, true);
		mmvr_guard_disarm();
	}
	return sts;
}

/* One value of each number type, into metrics named i32, u32, i64, u64,
 * flt and dbl of the file at @a: -5, 4e9, -6e12, 7e12, 1.5 and 2.25. */
static inline void set_each_number(void *a)
{
	mmv_stats_set(a, "i32", NULL, -5);
	mmv_stats_set(a, "u32", NULL, 4000000000.0);
	mmv_stats_set(a, "i64", NULL, -6e12);
	mmv_stats_set(a, "u64", NULL, 7e12);
	mmv_stats_set(a, "flt", NULL, 1.5);
	mmv_stats_set(a, "dbl", NULL, 2.25);
}

/* mmvr_snapshot_read_quick under a guard, as the agent's reply calls it;
 * a jump reads PM_ERR_VALUE, as in fetch_quick. */
static inline int read_quick(mmvr_snapshot_t *s, pmID pmid,
		const mmvr_quick_t *q, pmAtomValue *atom)
{
	static mmvr_guard_t g;
	volatile int sts = PM_ERR_VALUE;

	if (sigsetjmp(g.env, 0) == 0) {
		mmvr_guard_arm(&g);
		sts = mmvr_snapshot_read_quick(s, pmid, q, atom);
		mmvr_guard_disarm();
	}
	return sts;
}

/*
 * mmvr_snapshot_fetch, and for a singular number the quick path too,
 * armed and not, and its raw read: each must give the same status and
 * value bytes (the raw read leaves an elapsed time, 2, to the others).
 */
static inline int fetch_checked(mmvr_snapshot_t *s, pmID pmid, int inst,
		mmvr_value_t *v)
{
	const mmvr_quick_t *q = mmvr_snapshot_lookup_quick(s, pmid);
	int sts = mmvr_snapshot_fetch(s, pmid, inst, v), raw;
	mmvr_value_t w;

	if (inst != (int)PM_IN_NULL || q == NULL)
		return sts;
	assert_int_equal(mmvr_quick_type(q), v->type);
	for (int armed = 0; armed < 2; armed++) {
		memset(&w, 0x5a, sizeof(w));
		assert_int_equal(fetch_quick(s, pmid, q, &w, armed), sts);
		assert_int_equal(w.type, v->type);
		if (sts == 1)
			assert_memory_equal(&w.atom, &v->atom, sizeof(w.atom));
	}
	memset(&w, 0x5a, sizeof(w));
	raw = read_quick(s, pmid, q, &w.atom);
	if (raw == 2 || (sts == 1 && q->mtype == MMV_TYPE_ELAPSED)) {
		assert_int_equal(q->mtype, MMV_TYPE_ELAPSED);
		assert_int_equal(raw, 2);
		return sts;
	}
	assert_int_equal(raw, sts);
	if (sts == 1)
		assert_memory_equal(&w.atom, &v->atom, sizeof(w.atom));
	return sts;
}

/* Fetch a numeric value, or the status when there is none. */
static inline long long fetch_ll(mmvr_snapshot_t *s, const char *name,
		int inst, int *sts)
{
	const mmvr_metric_info_t *m = mmvr_snapshot_lookup_name(s, name);
	mmvr_value_t v;

	if (m == NULL) {
		*sts = PM_ERR_NAME;
		return -1;
	}
	*sts = fetch_checked(s, m->desc.pmid, inst, &v);
	return *sts == 1 ? v.atom.ll : -1;
}

#endif
