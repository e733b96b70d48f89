/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Hostile corpus for the pmda_mmv reader core: hand-built files corrupted
 * one field at a time, special files and files changed under the reader.
 * Each bad file must be refused (or its bad part skipped) with a log line,
 * and the good file beside it, written by our library, must still be
 * served with the right value.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <time.h>
#include <cmocka.h>
#include <pcp/mmv_stats.h>
#include "mmv_reader_test.h"
#include "../../lib/label_payloads.h"

#define GOOD_VALUE	1234

static char *dir;
static mmv_registry_t *good;
static test_log_t logbuf;

static int setup(void **state)
{
	pmUnits u = MMV_UNITS(0, 0, 1, 0, 0, 0);
	void *addr;

	(void)state;
	if ((dir = make_dir()) == NULL)
		return -1;
	good = mmv_stats_registry(file_path(dir, "good"), 0, 0);
	if (good == NULL || mmv_stats_add_metric(good, "x", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, u, 0, NULL, NULL) != 0 ||
	    (addr = mmv_stats_start(good)) == NULL)
		return -1;
	mmv_stats_set(addr, "x", NULL, GOOD_VALUE);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mmv_stats_free(good);
	rm_rf(dir);
	free(dir);
	return 0;
}

/* Metrics of file "bad", each fetched for every instance: must not crash. */
static int bad_metrics(mmvr_snapshot_t *s)
{
	size_t i, n = 0;

	for (i = 0; i < mmvr_snapshot_nmetrics(s); i++) {
		const mmvr_metric_info_t *m = mmvr_snapshot_metric(s, i);
		const mmvr_indom_info_t *d;
		mmvr_value_t v;

		if (strncmp(m->name, "mmv.bad.", 8) != 0)
			continue;
		n++;
		fetch_checked(s, m->desc.pmid, PM_IN_NULL, &v);
		d = mmvr_snapshot_lookup_indom(s, m->desc.indom);
		for (unsigned int k = 0; d != NULL && k < d->ninstances; k++)
			mmvr_snapshot_fetch(s, m->desc.pmid, d->instances[k].inst,
					&v);
	}
	return (int)n;
}

static void assert_good(mmvr_snapshot_t *s)
{
	int sts;

	assert_non_null(s);
	assert_int_equal(fetch_ll(s, "mmv.good.x", PM_IN_NULL, &sts),
			GOOD_VALUE);
}

/* Write @len bytes of @buf as "bad", scan, check the good file. */
static mmvr_snapshot_t *scan_bad(const void *buf, size_t len)
{
	mmvr_snapshot_t *s;

	unlink(file_path(dir, "bad"));
	write_file(dir, "bad", buf, len);
	s = scan_dir(dir, &logbuf);
	assert_good(s);
	bad_metrics(s);
	return s;
}

/* The file is refused as a whole, with a log line saying @why. */
static void expect_refused(const hb_t *h, const char *why)
{
	mmvr_snapshot_t *s = scan_bad(h, sizeof(*h));

	assert_int_equal(bad_metrics(s), 0);
	assert_int_equal(mmvr_snapshot_nfiles(s), 1);
	assert_non_null(strstr(logbuf.text, "/bad: "));
	if (strstr(logbuf.text, why) == NULL)
		fail_msg("log lacks \"%s\":\n%s", why, logbuf.text);
	mmvr_snapshot_free(s);
}

static void expect_log(const char *why)
{
	if (strstr(logbuf.text, why) == NULL)
		fail_msg("log lacks \"%s\":\n%s", why, logbuf.text);
}

static void truncated_at_every_boundary(void **state)
{
	static const size_t cut[] = {
		0, 1, 8, 39, 40, 56, 119, HB_INDOMS, HB_INDOMS + 31, HB_INSTS,
		HB_INSTS + 30, HB_METRICS, HB_METRICS + 50, HB_VALUES,
		HB_VALUES + 40, HB_STRINGS, HB_S_ONE + 2, HB_S_MA + 2,
		HB_S_MS + 2, HB_S_HELP + 3, HB_SIZE - 1,
	};
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	for (size_t i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		mmvr_snapshot_t *s = scan_bad(&h, cut[i]);

		assert_int_equal(mmvr_snapshot_not_ready(s), cut[i] < 40);
		/* Metric names live at the end: nothing before them. */
		if (cut[i] < HB_S_MA + 4)
			assert_int_equal(bad_metrics(s), 0);
		if (cut[i] == HB_SIZE - 1) {
			/* Only the STRINGS section is short; it is not needed. */
			assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL,
					&sts), 42);
			expect_log("strings section");
		}
		mmvr_snapshot_free(s);
	}
}

static void header_checks(void **state)
{
	hb_t h;

	(void)state;
	hb_build(&h, 0);
	memcpy(hb_header(&h)->magic, "MMW", 4);
	expect_refused(&h, "bad magic");
	hb_build(&h, 0);
	hb_header(&h)->version = 4;
	expect_refused(&h, "version 4 unsupported");
	hb_build(&h, 0);
	hb_header(&h)->tocs = 1;
	expect_refused(&h, "bad TOC count 1");
	hb_build(&h, 0);
	hb_header(&h)->tocs = -3;
	expect_refused(&h, "bad TOC count -3");
	hb_build(&h, 0);
	hb_header(&h)->tocs = 0x7fffffff;
	expect_refused(&h, "bad TOC count");
	hb_build(&h, 5000);
	expect_refused(&h, "cluster 5000 out of range");
	hb_build(&h, -1);
	expect_refused(&h, "cluster -1 out of range");
}

static void generations(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;

	(void)state;
	hb_build(&h, 0);
	hb_header(&h)->g2 = 1;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(mmvr_snapshot_not_ready(s), 1);
	assert_int_equal(bad_metrics(s), 0);
	expect_log("generations differ");
	mmvr_snapshot_free(s);
	hb_header(&h)->g1 = hb_header(&h)->g2 = 0;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(mmvr_snapshot_not_ready(s), 1);
	assert_int_equal(bad_metrics(s), 0);
	expect_log("generation 0");
	mmvr_snapshot_free(s);
	/* Sized but not yet filled (PCP's writer): retried, not refused. */
	memset(&h, 0, sizeof(h));
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(mmvr_snapshot_not_ready(s), 1);
	expect_log("header not written yet");
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_NONE);
	hb_build(&h, 0);
	{
		int fd = open(file_path(dir, "bad"), O_WRONLY);

		assert_int_equal(pwrite(fd, &h, sizeof(h), 0), sizeof(h));
		close(fd);
	}
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_READY);
	mmvr_snapshot_free(s);
}

static void overlapping_sections(void **state)
{
	hb_t h;

	(void)state;
	hb_build(&h, 0);
	hb_toc(&h, 2)->offset = HB_VALUES - 48;	/* metrics into values */
	expect_refused(&h, "sections overlap");
	hb_build(&h, 0);
	hb_toc(&h, 0)->offset = 100;		/* indoms into the TOC */
	expect_refused(&h, "sections overlap");
}

static void counts_and_offsets_past_end(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	hb_toc(&h, 2)->count = 1000;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 0);
	expect_log("metrics section (1000 at 200) past the end");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_toc(&h, 3)->offset = 1ULL << 40;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 2);
	fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_toc(&h, 2)->count = -1;		/* read as 4294967295 */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 0);
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_indom(&h)->count = 1000;		/* instances past the end */
	s = scan_bad(&h, sizeof(h));
	assert_null(mmvr_snapshot_lookup_indom(s, (70u << 22) | (1u << 11) | 5));
	fetch_ll(s, "mmv.bad.m.s", 1, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	expect_log("indom 5: 1000 instances");
	mmvr_snapshot_free(s);
}

static void integer_overflow(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	/* offset + count * size wraps to a small number. */
	hb_build(&h, 0);
	hb_toc(&h, 0)->count = 2;
	hb_toc(&h, 0)->offset = UINT64_MAX - 16;
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.s", 1, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_indom(&h)->count = 0xffffffff;
	hb_indom(&h)->offset = UINT64_MAX - 0xffffffffULL * 24 + 100;
	s = scan_bad(&h, sizeof(h));
	assert_null(mmvr_snapshot_lookup_indom(s, (70u << 22) | (1u << 11) | 5));
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_toc(&h, 3)->count = 0x7fffffff;
	hb_toc(&h, 3)->offset = (1ULL << 63) + 8;
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_value(&h, 0)->metric = UINT64_MAX;
	hb_metric(&h, 0)->name = UINT64_MAX;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 1);
	mmvr_snapshot_free(s);
}

/* The last three bytes of the file, none of them NUL. */
static void tail_garbage(hb_t *h)
{
	memset(h->b + HB_SIZE - 3, 'z', 3);
}

static void unterminated_strings(void **state)
{
	mmvr_snapshot_t *s;
	const char *text;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	tail_garbage(&h);
	hb_metric(&h, 0)->name = HB_SIZE - 3;
	s = scan_bad(&h, sizeof(h));
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.bad.m.a"));
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 2, &sts), 22);
	expect_log("name unterminated or past the end");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	tail_garbage(&h);
	hb_inst(&h, 0)->external = HB_SIZE - 3;
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.s", 1, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 2, &sts), 22);
	expect_log("instance 0 has a bad name");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	tail_garbage(&h);
	hb_metric(&h, 0)->shorttext = HB_SIZE - 3;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	assert_int_equal(mmvr_snapshot_text(s, (int)mmvr_snapshot_lookup_name(s,
			"mmv.bad.m.a")->desc.pmid, PM_TEXT_PMID | PM_TEXT_ONELINE,
			&text), PM_ERR_TEXT);
	expect_log("help text");
	mmvr_snapshot_free(s);
}

/* A version 1 file: the 64-byte inline name with no NUL in it. */
static void unterminated_v1_name(void **state)
{
	unsigned char b[40 + 32 + 104 + 32] = { 0 };
	mmv_disk_header_t *hd = (mmv_disk_header_t *)b;
	mmv_disk_toc_t *t = (mmv_disk_toc_t *)(b + 40);
	mmv_disk_metric_t *m = (mmv_disk_metric_t *)(b + 72);
	mmv_disk_value_t *v = (mmv_disk_value_t *)(b + 176);
	mmvr_snapshot_t *s;
	int sts;

	(void)state;
	memcpy(hd->magic, "MMV", 4);
	hd->version = 1;
	hd->g1 = hd->g2 = 77;
	hd->tocs = 2;
	t[0].type = MMV_TOC_METRICS;
	t[0].count = 1;
	t[0].offset = 72;
	t[1].type = MMV_TOC_VALUES;
	t[1].count = 1;
	t[1].offset = 176;
	strcpy(m->name, "ok");
	m->type = MMV_TYPE_I64;
	m->semantics = MMV_SEM_INSTANT;
	v->value.ll = -9;
	v->metric = 72;
	s = scan_bad(b, sizeof(b));
	assert_int_equal(fetch_ll(s, "mmv.bad.ok", PM_IN_NULL, &sts), -9);
	mmvr_snapshot_free(s);
	memset(m->name, 'a', sizeof(m->name));
	s = scan_bad(b, sizeof(b));
	assert_int_equal(bad_metrics(s), 0);
	expect_log("name unterminated");
	mmvr_snapshot_free(s);
}

static void cross_references(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	hb_value(&h, 0)->metric = 12345;		/* no metric there */
	hb_value(&h, 2)->instance = HB_INSTS + 8;	/* inside a record */
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 1, &sts), 11);
	fetch_ll(s, "mmv.bad.m.s", 2, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	expect_log("2 value records refer to no metric");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_value(&h, 0)->metric = HB_METRICS + 24;	/* mid-record */
	hb_inst(&h, 1)->indom = 999;			/* wrong owner */
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	assert_int_equal(mmvr_snapshot_lookup_indom(s,
			(70u << 22) | (1u << 11) | 5)->ninstances, 1);
	fetch_ll(s, "mmv.bad.m.s", 2, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	expect_log("instance 1 belongs elsewhere");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_metric(&h, 1)->indom = 6;			/* undeclared indom */
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.s", 1, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	mmvr_snapshot_free(s);

	/* A STRING value whose slot lies past the end. */
	hb_build(&h, 0);
	hb_metric(&h, 0)->type = MMV_TYPE_STRING;
	hb_value(&h, 0)->extra = HB_SIZE;
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	mmvr_snapshot_free(s);
}

static void duplicates(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	hb_metric(&h, 1)->item = 1;			/* repeats m.a's */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 1);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	expect_log("metric[1] m.s: item repeated");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_inst(&h, 1)->internal = 1;			/* repeats "one"'s */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(mmvr_snapshot_lookup_indom(s,
			(70u << 22) | (1u << 11) | 5)->ninstances, 1);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 1, &sts), 11);
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_value(&h, 2)->instance = HB_INSTS;		/* two values for one */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 1, &sts), 11);
	fetch_ll(s, "mmv.bad.m.s", 2, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_metric(&h, 1)->name = HB_S_MA;		/* same name */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 1);
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	mmvr_snapshot_free(s);
}

static void bad_fields(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	hb_metric(&h, 0)->type = 7;		/* crashes PCP's agent */
	hb_metric(&h, 1)->semantics = 2;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 0);
	expect_log("unknown type");
	expect_log("unknown semantics");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_metric(&h, 0)->item = 2000;
	hb_metric(&h, 1)->indom = 3000;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(bad_metrics(s), 0);
	expect_log("item over 1023");
	expect_log("indom serial out of range");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_indom(&h)->serial = 3000;
	s = scan_bad(&h, sizeof(h));
	fetch_ll(s, "mmv.bad.m.s", 1, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	expect_log("indom serial 3000 out of range");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_toc(&h, 4)->type = 99;		/* unknown section */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 2, &sts), 22);
	expect_log("1 TOC entries of unknown type ignored");
	mmvr_snapshot_free(s);

	hb_build(&h, 0);
	hb_toc_set(&h, 4, MMV_TOC_METRICS, 1, HB_STRINGS);	/* second one */
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", 2, &sts), 22);
	expect_log("second metrics section ignored");
	mmvr_snapshot_free(s);
}

static int count_labels(void *arg, unsigned int flags, int inst,
		const char *json)
{
	(void)flags;
	(void)inst;
	(void)json;
	++*(int *)arg;
	return 0;
}

/* Labels appended after the hand-built file, replacing its STRINGS TOC. */
static void labels(void **state)
{
	size_t size = HB_SIZE + 300 * 256;
	unsigned char *b = calloc(1, size);
	mmv_disk_label_t *l = (mmv_disk_label_t *)(b + HB_SIZE);
	mmvr_snapshot_t *s;
	int n = 0;

	(void)state;
	hb_build((hb_t *)b, 0);
	hb_toc_set((hb_t *)b, 4, MMV_TOC_LABELS, 3, HB_SIZE);
	for (int i = 0; i < 300; i++) {
		l[i].flags = PM_LABEL_ITEM;
		l[i].identity = 1;
		strcpy(l[i].payload, "{\"a\":1}");
	}
	memset(l[1].payload, 'x', MMV_LABELMAX);	/* unterminated */
	l[2].flags = 0x40;				/* not a label type */
	s = scan_bad(b, size);
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_ITEM,
			(70u << 22) | (1u << 10) | 1, PM_IN_NULL, count_labels,
			&n), 1);
	expect_log("label[1] refused");
	expect_log("label[2] refused");
	mmvr_snapshot_free(s);
	hb_toc_set((hb_t *)b, 4, MMV_TOC_LABELS, 300, HB_SIZE);
	s = scan_bad(b, size);
	n = 0;
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_ITEM,
			(70u << 22) | (1u << 10) | 1, PM_IN_NULL, count_labels,
			&n), 0);
	expect_log("300 labels, over 255");
	mmvr_snapshot_free(s);
	free(b);
}

/* One instance label (indom 5, instance 1) per payload, after the file. */
static void label_payloads(void **state)
{
	size_t size = HB_SIZE + sizeof(mmv_disk_label_t);
	unsigned char *b = calloc(1, size);
	mmv_disk_label_t *l = (mmv_disk_label_t *)(b + HB_SIZE);
	pmInDom indom = (70u << 22) | (1u << 11) | 5;

	(void)state;
	for (size_t i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
		mmvr_snapshot_t *s;
		int n = 0;

		hb_build((hb_t *)b, 0);
		hb_toc_set((hb_t *)b, 4, MMV_TOC_LABELS, 1, HB_SIZE);
		memset(l, 0, sizeof(*l));
		l->flags = PM_LABEL_INSTANCES;
		l->identity = 5;
		l->internal = 1;
		strcpy(l->payload, payloads[i].json);
		s = scan_bad(b, size);
		if (mmvr_snapshot_labels(s, PM_LABEL_INSTANCES, indom, PM_IN_NULL,
				count_labels, &n) != payloads[i].ok)
			fail_msg("payload %s: %s", payloads[i].json,
					payloads[i].ok ? "refused" : "served");
		if (!payloads[i].ok)
			expect_log("label[0] refused: not a label set");
		mmvr_snapshot_free(s);
	}
	free(b);
}

/* Instance id -1 is PM_IN_NULL to every client: not an instance. */
static void negative_instance(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	hb_inst(&h, 0)->internal = -1;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(mmvr_snapshot_lookup_indom(s,
			(70u << 22) | (1u << 11) | 5)->ninstances, 1);
	assert_int_equal(mmvr_snapshot_lookup_indom(s,
			(70u << 22) | (1u << 11) | 5)->instances[0].inst, 2);
	/* its value went with it: the first value left is two's */
	assert_int_equal(fetch_ll(s, "mmv.bad.m.s", PM_IN_NULL, &sts), 22);
	expect_log("indom 5: instance 0 has id -1");
	mmvr_snapshot_free(s);
}

/* A string slot must lie whole in the file, as a number's record must. */
static void string_slot_at_end(void **state)
{
	static const struct {
		uint64_t slot;
		int sts;
	} cases[] = {
		{ HB_SIZE - 4, PM_ERR_VALUE },
		{ HB_SIZE - 255, PM_ERR_VALUE },
		{ HB_SIZE - 256, 1 },		/* the last slot: fine */
	};
	mmvr_snapshot_t *s;
	mmvr_value_t v;
	hb_t h;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hb_build(&h, 0);
		hb_metric(&h, 0)->type = MMV_TYPE_STRING;
		hb_value(&h, 0)->extra = (int64_t)cases[i].slot;
		s = scan_bad(&h, sizeof(h));
		assert_int_equal(mmvr_snapshot_fetch(s, mmvr_snapshot_lookup_name(s,
				"mmv.bad.m.a")->desc.pmid, PM_IN_NULL, &v),
				cases[i].sts);
		mmvr_snapshot_free(s);
	}
}

static mmvr_snapshot_t *rescan_after(const mmvr_snapshot_t *prev)
{
	return scan_after(dir, &logbuf, prev);
}

/* A served file keeps its explicit cluster against a newcomer. */
static void cluster_theft(void **state)
{
	mmvr_snapshot_t *s0, *s1, *s2;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 7);
	write_file(dir, "z", &h, sizeof(h));
	s0 = rescan_after(NULL);
	assert_int_equal(fetch_ll(s0, "mmv.z.m.a", PM_IN_NULL, &sts), 42);
	hb_value(&h, 0)->value.ull = 666;
	write_file(dir, "a", &h, sizeof(h));	/* sorts first */
	s1 = rescan_after(s0);
	assert_int_equal(fetch_ll(s1, "mmv.z.m.a", PM_IN_NULL, &sts), 42);
	fetch_ll(s1, "mmv.a.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_NAME);
	assert_int_equal(logbuf.lines, 1);
	expect_log("/a: cluster 7 already used by z");
	assert_good(s1);
	/* ... and keeps it on the next rescan, from the snapshot it won */
	s2 = rescan_after(s1);
	assert_int_equal(fetch_ll(s2, "mmv.z.m.a", PM_IN_NULL, &sts), 42);
	mmvr_snapshot_free(s2);
	mmvr_snapshot_free(s1);
	/* Nothing served before: the first by name wins, as it always did. */
	s1 = rescan_after(NULL);
	assert_int_equal(fetch_ll(s1, "mmv.a.m.a", PM_IN_NULL, &sts), 666);
	mmvr_snapshot_free(s1);
	mmvr_snapshot_free(s0);
}

/* Nor can a newcomer at c - 2048 push out a served file's indoms. */
static void cluster_alias_theft(void **state)
{
	mmvr_snapshot_t *s0, *s1;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 2048 + 7);
	write_file(dir, "z", &h, sizeof(h));
	s0 = rescan_after(NULL);
	assert_int_equal(fetch_ll(s0, "mmv.z.m.s", 2, &sts), 22);
	hb_build(&h, 7);
	write_file(dir, "a", &h, sizeof(h));
	s1 = rescan_after(s0);
	assert_int_equal(fetch_ll(s1, "mmv.z.m.s", 2, &sts), 22);
	fetch_ll(s1, "mmv.a.m.s", 2, &sts);
	assert_int_equal(sts, PM_ERR_NAME);
	expect_log("/a: cluster 7 indoms would collide with z's");
	mmvr_snapshot_free(s1);
	/* Nothing served before: the higher cluster gives way, as before. */
	s1 = rescan_after(NULL);
	assert_int_equal(fetch_ll(s1, "mmv.a.m.s", 2, &sts), 22);
	fetch_ll(s1, "mmv.z.m.s", 2, &sts);
	assert_int_equal(sts, PM_ERR_NAME);
	mmvr_snapshot_free(s1);
	mmvr_snapshot_free(s0);
}

static void special_files(void **state)
{
	mmvr_snapshot_t *s;
	char sub[600], target[600];

	(void)state;
	snprintf(target, sizeof(target), "%s/good", dir);
	assert_int_equal(symlink(target, file_path(dir, "link")), 0);
	assert_int_equal(mkfifo(file_path(dir, "fifo"), 0644), 0);
	snprintf(sub, sizeof(sub), "%s/subdir", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	s = scan_dir(dir, &logbuf);	/* must not block on the FIFO */
	assert_good(s);
	assert_int_equal(mmvr_snapshot_nfiles(s), 1);
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.link.x"));
	expect_log("/link: symbolic link, not followed");
	expect_log("/fifo: not a regular file");
	expect_log("/subdir: not a regular file");
	mmvr_snapshot_free(s);
}

static void huge_sparse_file(void **state)
{
	int fd = open(file_path(dir, "bad"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
	mmvr_snapshot_t *s;
	hb_t h;

	(void)state;
	assert_true(fd >= 0);
	hb_build(&h, 0);
	assert_int_equal(write(fd, &h, sizeof(h)), sizeof(h));
	assert_int_equal(ftruncate(fd, 8LL << 30), 0);	/* 8 GiB, sparse */
	close(fd);
	s = scan_dir(dir, &logbuf);
	assert_good(s);
	assert_int_equal(bad_metrics(s), 0);
	expect_log("/bad: size 8589934592 over the");
	mmvr_snapshot_free(s);
}

static void truncated_after_scan(void **state)
{
	mmvr_snapshot_t *s;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 0);
	hb_metric(&h, 1)->type = MMV_TYPE_STRING;
	hb_value(&h, 1)->extra = HB_S_HELP;
	s = scan_bad(&h, sizeof(h));
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	assert_int_equal(truncate(file_path(dir, "bad"), HB_VALUES + 8), 0);
	/* The value's page is still mapped (docs/mmv-format.md §7.10): the
	 * value's 8 bytes are still in the file, the string slot past the new
	 * end reads as zeros, and the full check sees the size; the rest
	 * keeps being served. */
	assert_int_equal(fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts), 42);
	{
		const mmvr_metric_info_t *m = mmvr_snapshot_lookup_name(s, "mmv.bad.m.s");
		mmvr_value_t v;

		assert_non_null(m);
		assert_int_equal(mmvr_snapshot_fetch(s, m->desc.pmid, 1, &v), 1);
		assert_string_equal(v.str, "");
	}
	assert_good(s);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_CHANGED);
	/* Emptied: every page is gone, SIGBUS is caught by the guard. */
	assert_int_equal(truncate(file_path(dir, "bad"), 0), 0);
	fetch_ll(s, "mmv.bad.m.a", PM_IN_NULL, &sts);
	assert_int_equal(sts, PM_ERR_VALUE);
	fetch_ll(s, "mmv.bad.m.s", 1, &sts);
	assert_int_equal(sts, PM_ERR_VALUE);
	mmvr_snapshot_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(truncated_at_every_boundary, setup, teardown),
		cmocka_unit_test_setup_teardown(header_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(generations, setup, teardown),
		cmocka_unit_test_setup_teardown(overlapping_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(counts_and_offsets_past_end, setup, teardown),
		cmocka_unit_test_setup_teardown(integer_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(unterminated_strings, setup, teardown),
		cmocka_unit_test_setup_teardown(unterminated_v1_name, setup, teardown),
		cmocka_unit_test_setup_teardown(cross_references, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(labels, setup, teardown),
		cmocka_unit_test_setup_teardown(label_payloads, setup, teardown),
		cmocka_unit_test_setup_teardown(negative_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(string_slot_at_end, setup, teardown),
		cmocka_unit_test_setup_teardown(cluster_theft, setup, teardown),
		cmocka_unit_test_setup_teardown(cluster_alias_theft, setup, teardown),
		cmocka_unit_test_setup_teardown(special_files, setup, teardown),
		cmocka_unit_test_setup_teardown(huge_sparse_file, setup, teardown),
		cmocka_unit_test_setup_teardown(truncated_after_scan, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
