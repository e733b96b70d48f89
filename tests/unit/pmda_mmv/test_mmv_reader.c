/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the pmda_mmv reader core with well-formed files: names,
 * PMIDs, descriptors, instances, values, help, labels, clusters, flags
 * and rescan detection; incremental rescans (unchanged files taken over
 * unread, changed, removed, added and hostile ones, clusters kept, name
 * clashes settled as a first scan). Expected values come from
 * docs/mmv-format.md §2, §4.5, §9, not from the reader's own output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <cmocka.h>
#include "../../lib/cmocka_compat.h"
#include <pcp/mmv_stats.h>
#include "mmv_reader_test.h"
#include "../../../pmda_mmv/reader/reader_priv.h"

static pmUnits units(int s, int t, int c, int ss, int st, int sc)
{
	pmUnits u = MMV_UNITS(s, t, c, ss, st, sc);

	return u;
}

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

/* The acme demo of docs/mmv-format.md §2.4: v1, cluster 321, indom 61, three metrics. */
static void *write_acme(const char *name, int flags)
{
	static mmv_instances_t inst[] = {
		{ 0, "Anvils" }, { 1, "Rockets" }, { 2, "Giant_Rubber_Bands" },
	};
	static mmv_indom_t indoms[] = {
		{ 61, 3, inst, "Acme products", "Most popular products" },
	};
	mmv_metric_t metrics[] = {
		{ "products.count", 7, MMV_TYPE_U64, MMV_SEM_COUNTER,
		  MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE), 61,
		  "Acme factory product throughput", "long count" },
		{ "products.time", 8, MMV_TYPE_U64, MMV_SEM_COUNTER,
		  MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0), 61,
		  "Machine time spent producing Acme products", "long time" },
		{ "products.queuetime", 10, MMV_TYPE_U64, MMV_SEM_COUNTER,
		  MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0), 61,
		  "Queued time while producing Acme products", "long queue" },
	};

	return mmv_stats_init(file_path(dir, name), 321, flags, metrics, 3,
			indoms, 1);
}

static void acme_names_pmids_descs(void **state)
{
	void *addr = write_acme("acme", 0);
	const mmvr_metric_info_t *m;
	const mmvr_file_info_t *f;
	mmvr_snapshot_t *s;

	(void)state;
	assert_non_null(addr);
	s = scan_dir(dir, &logbuf);
	assert_non_null(s);
	assert_int_equal(mmvr_snapshot_nfiles(s), 1);
	f = mmvr_snapshot_file(s, 0);
	assert_string_equal(f->name, "acme");
	assert_int_equal(f->cluster, 321);
	assert_int_equal(f->version, 1);
	assert_int_equal(f->pid, 0);
	assert_int_equal(mmvr_snapshot_nmetrics(s), 3);
	/* Sorted by name. */
	assert_string_equal(mmvr_snapshot_metric(s, 0)->name,
			"mmv.acme.products.count");
	assert_string_equal(mmvr_snapshot_metric(s, 1)->name,
			"mmv.acme.products.queuetime");
	m = mmvr_snapshot_lookup_name(s, "mmv.acme.products.time");
	assert_non_null(m);
	assert_int_equal(m->desc.pmid, (70u << 22) | (321u << 10) | 8);
	assert_int_equal(m->desc.type, PM_TYPE_U64);
	assert_int_equal(m->desc.sem, PM_SEM_COUNTER);
	assert_int_equal(m->desc.units.dimTime, 1);
	assert_int_equal(m->desc.units.scaleTime, PM_TIME_USEC);
	/* docs/mmv-format.md §4.9: acme's indom is 70.657469 = 321 << 11 | 61. */
	assert_int_equal(m->desc.indom, (70u << 22) | 657469);
	assert_ptr_equal(mmvr_snapshot_lookup_pmid(s, m->desc.pmid), m);
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.acme.products"));
	assert_null(mmvr_snapshot_lookup_pmid(s, (70u << 22) | (321u << 10) | 9));
	mmvr_snapshot_free(s);
	mmv_stats_stop(file_path(dir, "acme"), addr);
}

static void acme_instances_values_help(void **state)
{
	void *addr = write_acme("acme", 0);
	const mmvr_indom_info_t *d;
	const char *text;
	mmvr_snapshot_t *s;
	int sts;

	(void)state;
	mmv_stats_add(addr, "products.count", "Rockets", 5);
	s = scan_dir(dir, &logbuf);
	d = mmvr_snapshot_lookup_indom(s, (70u << 22) | 657469);
	assert_non_null(d);
	assert_int_equal(d->ninstances, 3);
	assert_int_equal(d->instances[2].inst, 2);
	assert_string_equal(d->instances[2].name, "Giant_Rubber_Bands");
	assert_int_equal(fetch_ll(s, "mmv.acme.products.count", 1, &sts), 5);
	assert_int_equal(sts, 1);
	/* Values stay live: an update after the scan is seen. */
	mmv_stats_add(addr, "products.count", "Rockets", 2);
	assert_int_equal(fetch_ll(s, "mmv.acme.products.count", 1, &sts), 7);
	assert_int_equal(fetch_ll(s, "mmv.acme.products.count", 0, &sts), 0);
	assert_int_equal(sts, 1);
	fetch_ll(s, "mmv.acme.products.count", 3, &sts);
	assert_int_equal(sts, PM_ERR_INST);
	assert_int_equal(mmvr_snapshot_text(s, (70 << 22) | (321 << 10) | 7,
			PM_TEXT_PMID | PM_TEXT_ONELINE, &text), 0);
	assert_string_equal(text, "Acme factory product throughput");
	assert_int_equal(mmvr_snapshot_text(s, (70 << 22) | (321 << 10) | 7,
			PM_TEXT_PMID | PM_TEXT_HELP, &text), 0);
	assert_string_equal(text, "long count");
	/* Indom help with the cluster bits stripped (docs/mmv-format.md §9.5, clean). */
	assert_int_equal(mmvr_snapshot_text(s, (70 << 22) | 657469,
			PM_TEXT_INDOM | PM_TEXT_ONELINE, &text), 0);
	assert_string_equal(text, "Acme products");
	assert_int_equal(mmvr_snapshot_text(s, (70 << 22) | 657470,
			PM_TEXT_INDOM | PM_TEXT_ONELINE, &text), PM_ERR_INDOM);
	assert_int_equal(mmvr_snapshot_text(s, (70 << 22) | (321 << 10) | 9,
			PM_TEXT_PMID | PM_TEXT_ONELINE, &text), PM_ERR_PMID);
	mmvr_snapshot_free(s);
	mmv_stats_stop(file_path(dir, "acme"), addr);
}

/* The registry variant of docs/mmv-format.md §2.4 with its four labels (v3). */
static mmv_registry_t *reg_219(const char *name, int cluster, int flags)
{
	mmv_registry_t *r = mmv_stats_registry(file_path(dir, name), cluster,
			flags);

	assert_non_null(r);
	assert_int_equal(mmv_stats_add_indom(r, 5, "indom short", "indom long"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 5, 1, "one"), 0);
	assert_int_equal(mmv_stats_add_instance(r, 5, 2, "two"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "m.counter", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, units(0, 0, 1, 0, 0, 0), 0, "short1",
			NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "m.str", 2, MMV_TYPE_STRING,
			MMV_SEM_INSTANT, units(0, 0, 0, 0, 0, 0), 5, NULL,
			"long2"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "m.el", 3, MMV_TYPE_ELAPSED,
			MMV_SEM_INSTANT, units(0, 0, 1, 0, 0, 0), 0, NULL,
			NULL), 0);
	return r;
}

static void add_219_labels(mmv_registry_t *r)
{
	assert_int_equal(mmv_stats_add_registry_label(r, "app", "\"acme\"",
			MMV_STRING_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_indom_label(r, 5, "indom_l", "42",
			MMV_NUMBER_TYPE, 1), 0);
	assert_int_equal(mmv_stats_add_metric_label(r, 2, "metric_l", "true",
			MMV_BOOLEAN_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, 5, 2, "inst_l", "null",
			MMV_NULL_TYPE, 0), 0);
}

typedef struct got {
	int n;
	unsigned int flags[8];
	int inst[8];
	char json[8][64];
} got_t;

static int collect(void *arg, unsigned int flags, int inst, const char *json)
{
	got_t *g = arg;

	if (g->n < 8) {
		g->flags[g->n] = flags;
		g->inst[g->n] = inst;
		snprintf(g->json[g->n], sizeof(g->json[0]), "%s", json);
	}
	g->n++;
	return 0;
}

static void registry_labels_strings_elapsed(void **state)
{
	mmv_registry_t *r = reg_219("reg", 0, 0);
	unsigned int c, pmid2, indom;
	const mmvr_metric_info_t *m;
	pmAtomValue *av;
	mmvr_snapshot_t *s;
	mmvr_value_t v;
	got_t g;
	void *addr;

	(void)state;
	add_219_labels(r);
	assert_non_null(addr = mmv_stats_start(r));
	mmv_stats_set_string(addr, "m.str", "two", "hello");
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_file(s, 0)->version, 3);
	c = mmvr_snapshot_file(s, 0)->cluster;
	assert_int_equal(c, 1);		/* automatic: smallest free */
	pmid2 = (70u << 22) | (c << 10) | 2;
	indom = (70u << 22) | (c << 11) | 5;
	m = mmvr_snapshot_lookup_pmid(s, pmid2);
	assert_non_null(m);
	assert_string_equal(m->name, "mmv.reg.m.str");
	assert_int_equal(m->desc.type, PM_TYPE_STRING);
	assert_int_equal(m->desc.indom, indom);
	assert_int_equal(mmvr_snapshot_fetch(s, pmid2, 2, &v), 1);
	assert_string_equal(v.str, "hello");
	assert_int_equal(mmvr_snapshot_fetch(s, pmid2, 1, &v), 1);
	assert_string_equal(v.str, "");
	/* ELAPSED: 64-bit counter in microseconds (docs/mmv-format.md §4.5). */
	m = mmvr_snapshot_lookup_name(s, "mmv.reg.m.el");
	assert_int_equal(m->desc.type, PM_TYPE_64);
	assert_int_equal(m->desc.sem, PM_SEM_COUNTER);
	assert_int_equal(m->desc.units.dimTime, 1);
	assert_int_equal(m->desc.units.dimCount, 0);
	assert_int_equal(m->desc.units.scaleTime, PM_TIME_USEC);
	av = mmv_lookup_value_desc(addr, "m.el", NULL);
	{
		struct timespec ts;
		mmv_disk_value_t *rec = (mmv_disk_value_t *)av;

		clock_gettime(CLOCK_REALTIME, &ts);
		rec->value.ll = 1000;
		/* An interval opened 2 s ago: value + now + extra. */
		rec->extra = -((int64_t)ts.tv_sec * 1000000 +
				ts.tv_nsec / 1000 - 2000000);
	}
	assert_int_equal(mmvr_snapshot_fetch(s, m->desc.pmid, PM_IN_NULL, &v), 1);
	assert_uint_in_range(v.atom.ll, 1000 + 2000000, 1000 + 2500000);
	((mmv_disk_value_t *)av)->extra = 0;
	assert_int_equal(mmvr_snapshot_fetch(s, m->desc.pmid, PM_IN_NULL, &v), 1);
	assert_int_equal(v.atom.ll, 1000);
	/* Labels of docs/mmv-format.md §2.4: cluster label (requested cluster 0). */
	memset(&g, 0, sizeof(g));
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_CLUSTER, pmid2,
			PM_IN_NULL, collect, &g), 1);
	assert_string_equal(g.json[0], "{\"app\":\"acme\"}");
	assert_int_equal(g.flags[0], PM_LABEL_CLUSTER);
	memset(&g, 0, sizeof(g));
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_ITEM, pmid2,
			PM_IN_NULL, collect, &g), 1);
	assert_string_equal(g.json[0], "{\"metric_l\":true}");
	memset(&g, 0, sizeof(g));
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_ITEM, pmid2 - 1,
			PM_IN_NULL, collect, &g), 0);
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_INDOM, indom,
			PM_IN_NULL, collect, &g), 1);
	assert_string_equal(g.json[0], "{\"indom_l\":42}");
	assert_int_equal(g.flags[0], PM_LABEL_INDOM | PM_LABEL_OPTIONAL);
	memset(&g, 0, sizeof(g));
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_INSTANCES, indom, 1,
			collect, &g), 0);
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_INSTANCES, indom, 2,
			collect, &g), 1);
	assert_string_equal(g.json[0], "{\"inst_l\":null}");
	assert_int_equal(g.inst[0], 2);
	mmvr_snapshot_free(s);
	mmv_stats_free(r);
}

static void explicit_cluster_label(void **state)
{
	mmv_registry_t *r = reg_219("reg77", 77, 0);
	mmvr_snapshot_t *s;
	got_t g = { 0 };

	(void)state;
	add_219_labels(r);
	assert_non_null(mmv_stats_start(r));
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_file(s, 0)->cluster, 77);
	assert_int_equal(mmvr_snapshot_labels(s, PM_LABEL_CLUSTER,
			(70u << 22) | (77u << 10), PM_IN_NULL, collect, &g), 1);
	mmvr_snapshot_free(s);
	mmv_stats_free(r);
}

/* A minimal registry file with one U64 metric @mname, item 1. */
static void *simple_file(mmv_registry_t **rp, const char *name, int cluster,
		int flags, const char *mname)
{
	mmv_registry_t *r = mmv_stats_registry(file_path(dir, name), cluster,
			flags);
	void *addr;

	assert_non_null(r);
	assert_int_equal(mmv_stats_add_metric(r, mname, 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, units(0, 0, 1, 0, 0, 0), 0, NULL,
			NULL), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	*rp = r;
	return addr;
}

static void cluster_assignment(void **state)
{
	mmv_registry_t *r[5];
	mmvr_snapshot_t *s;

	(void)state;
	/* a: auto; b: 1; c: auto; d: 1 again; e: 3. */
	simple_file(&r[0], "a", 0, 0, "x");
	simple_file(&r[1], "b", 1, 0, "x");
	simple_file(&r[2], "c", 0, 0, "x");
	simple_file(&r[3], "d", 1, 0, "x");
	simple_file(&r[4], "e", 3, 0, "x");
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_nfiles(s), 4);
	/* Requests first (e keeps 3 though a and c come before it), the
	 * repeated request refused, automatic ones take the gaps. */
	assert_string_equal(mmvr_snapshot_file(s, 0)->name, "a");
	assert_int_equal(mmvr_snapshot_file(s, 0)->cluster, 2);
	assert_int_equal(mmvr_snapshot_file(s, 1)->cluster, 1);
	assert_string_equal(mmvr_snapshot_file(s, 2)->name, "c");
	assert_int_equal(mmvr_snapshot_file(s, 2)->cluster, 4);
	assert_string_equal(mmvr_snapshot_file(s, 3)->name, "e");
	assert_int_equal(mmvr_snapshot_file(s, 3)->cluster, 3);
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.d.x"));
	assert_non_null(strstr(logbuf.text, "/d: cluster 1 already used by b"));
	assert_int_equal(mmvr_snapshot_lookup_name(s, "mmv.c.x")->desc.pmid,
			(70u << 22) | (4u << 10) | 1);
	mmvr_snapshot_free(s);
	for (int i = 0; i < 5; i++)
		mmv_stats_free(r[i]);
}

static void noprefix_and_names(void **state)
{
	mmv_registry_t *r[4];
	mmvr_snapshot_t *s;
	int sts;

	(void)state;
	simple_file(&r[0], "np1", 0, MMV_FLAG_NOPREFIX, "shared");
	simple_file(&r[1], "np2", 0, MMV_FLAG_NOPREFIX, "shared");
	simple_file(&r[2], "my-app", 0, 0, "x");
	simple_file(&r[3], "my-np", 0, MMV_FLAG_NOPREFIX, "mine");
	s = scan_dir(dir, &logbuf);
	/* A name clash: the first file in name order wins (docs/mmv-format.md §7.8). */
	assert_non_null(mmvr_snapshot_lookup_name(s, "mmv.shared"));
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.np1.shared"));
	/* A '-' cannot be in a name, but NOPREFIX leaves it out. */
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.my-app.x"));
	assert_non_null(mmvr_snapshot_lookup_name(s, "mmv.mine"));
	assert_int_equal(mmvr_snapshot_nmetrics(s), 2);
	assert_int_equal(fetch_ll(s, "mmv.shared", PM_IN_NULL, &sts), 0);
	assert_non_null(strstr(logbuf.text, "mmv.shared already used by np1"));
	mmvr_snapshot_free(s);
	for (int i = 0; i < 4; i++)
		mmv_stats_free(r[i]);
}

static void set_pid(const char *name, int pid)
{
	int fd = open(file_path(dir, name), O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &pid, 4, 32), 4);
	close(fd);
}

static pid_t dead_pid(void)
{
	pid_t p = fork();

	if (p == 0)
		_exit(0);
	waitpid(p, NULL, 0);
	return p;
}

static void process_flag(void **state)
{
	mmv_registry_t *r[3];
	mmvr_snapshot_t *s;
	pid_t child;

	(void)state;
	simple_file(&r[0], "live", 0, MMV_FLAG_PROCESS, "x");
	simple_file(&r[1], "dead", 0, MMV_FLAG_PROCESS, "x");
	set_pid("dead", dead_pid());
	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	simple_file(&r[2], "soon", 0, MMV_FLAG_PROCESS, "x");
	set_pid("soon", child);
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_nfiles(s), 2);
	assert_string_equal(mmvr_snapshot_file(s, 0)->name, "live");
	assert_int_equal(mmvr_snapshot_file(s, 0)->pid, getpid());
	assert_int_equal(mmvr_snapshot_file(s, 1)->pid, child);
	assert_null(mmvr_snapshot_lookup_name(s, "mmv.dead.x"));
	assert_non_null(strstr(logbuf.text, "/dead: writer pid"));
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_NONE);
	/* Exited but not yet reaped (a zombie) counts as gone. */
	kill(child, SIGKILL);
	for (int i = 0; i < 200 && mmvr_snapshot_needs_rescan(s) ==
			MMVR_RESCAN_NONE; i++)
		usleep(10000);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_WRITER_GONE);
	waitpid(child, NULL, 0);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_WRITER_GONE);
	mmvr_snapshot_free(s);
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_nfiles(s), 1);
	mmvr_snapshot_free(s);
	for (int i = 0; i < 3; i++)
		mmv_stats_free(r[i]);
}

/* One metric of every type, for values and SENTINEL (docs/mmv-format.md §9.4). */
static void *types_file(mmv_registry_t **rp, const char *name, int flags)
{
	static const struct { const char *n; int t; } t[] = {
		{ "i32", MMV_TYPE_I32 }, { "u32", MMV_TYPE_U32 },
		{ "i64", MMV_TYPE_I64 }, { "u64", MMV_TYPE_U64 },
		{ "flt", MMV_TYPE_FLOAT }, { "dbl", MMV_TYPE_DOUBLE },
		{ "str", MMV_TYPE_STRING }, { "el", MMV_TYPE_ELAPSED },
		{ "nos", MMV_TYPE_NOSUPPORT },
	};
	mmv_registry_t *r = mmv_stats_registry(file_path(dir, name), 0, flags);
	void *addr;

	for (int i = 0; i < 9; i++)
		assert_int_equal(mmv_stats_add_metric(r, t[i].n, i + 1, t[i].t,
				MMV_SEM_INSTANT, units(0, 0, 0, 0, 0, 0), 0,
				NULL, NULL), 0);
	assert_non_null(addr = mmv_stats_start(r));
	*rp = r;
	return addr;
}

static int fetch_named(mmvr_snapshot_t *s, const char *name, mmvr_value_t *v)
{
	const mmvr_metric_info_t *m = mmvr_snapshot_lookup_name(s, name);

	assert_non_null(m);
	return fetch_checked(s, m->desc.pmid, PM_IN_NULL, v);
}

static void all_types(void **state)
{
	mmv_registry_t *r;
	void *a = types_file(&r, "t", 0);
	mmvr_snapshot_t *s;
	mmvr_value_t v;

	(void)state;
	set_each_number(a);
	mmv_stats_set_string(a, "str", NULL, "text");
	s = scan_dir(dir, &logbuf);
	assert_int_equal(fetch_named(s, "mmv.t.i32", &v), 1);
	assert_int_equal(v.type, PM_TYPE_32);
	assert_int_equal(v.atom.l, -5);
	assert_int_equal(fetch_named(s, "mmv.t.u32", &v), 1);
	assert_int_equal(v.atom.ul, 4000000000u);
	assert_int_equal(fetch_named(s, "mmv.t.i64", &v), 1);
	assert_true(v.atom.ll == -6000000000000LL);
	assert_int_equal(fetch_named(s, "mmv.t.u64", &v), 1);
	assert_true(v.atom.ull == 7000000000000ULL);
	assert_int_equal(fetch_named(s, "mmv.t.flt", &v), 1);
	assert_true(v.atom.f == 1.5f);
	assert_int_equal(fetch_named(s, "mmv.t.dbl", &v), 1);
	assert_true(v.atom.d == 2.25);
	assert_int_equal(fetch_named(s, "mmv.t.str", &v), 1);
	assert_string_equal(v.atom.cp, "text");
	mmv_stats_add(a, "el", NULL, 1234);	/* µs, no interval open */
	assert_int_equal(fetch_named(s, "mmv.t.el", &v), 1);
	assert_int_equal(v.type, PM_TYPE_64);
	assert_true(v.atom.ll == 1234);
	assert_int_equal(mmvr_snapshot_lookup_name(s, "mmv.t.nos")->desc.type,
			PM_TYPE_NOSUPPORT);
	assert_int_equal(fetch_named(s, "mmv.t.nos", &v), PM_ERR_APPVERSION);
	/* Without SENTINEL, NaN and all-ones are values. */
	mmv_stats_set(a, "flt", NULL, NAN);
	assert_int_equal(fetch_named(s, "mmv.t.flt", &v), 1);
	assert_true(isnan(v.atom.f));
	mmv_stats_set_string(a, "str", NULL, "");
	assert_int_equal(fetch_named(s, "mmv.t.str", &v), 1);
	mmvr_snapshot_free(s);
	mmv_stats_free(r);
}

static void sentinel(void **state)
{
	mmv_registry_t *r;
	void *a = types_file(&r, "t", MMV_FLAG_SENTINEL);
	pmAtomValue ones;
	mmvr_snapshot_t *s;
	mmvr_value_t v;

	(void)state;
	memset(&ones, 0xff, sizeof(ones));
	s = scan_dir(dir, &logbuf);
	/* A 32-bit -1 through set_value leaves bytes 4-7 zero: a value. */
	mmv_stats_set(a, "i32", NULL, -1);
	assert_int_equal(fetch_named(s, "mmv.t.i32", &v), 1);
	assert_int_equal(v.atom.l, -1);
	/* All 8 bytes set: no value, for every integer type and ELAPSED. */
	mmv_set_atomvalue(a, mmv_lookup_value_desc(a, "i32", NULL), &ones);
	assert_int_equal(fetch_named(s, "mmv.t.i32", &v), 0);
	mmv_set_atomvalue(a, mmv_lookup_value_desc(a, "u64", NULL), &ones);
	assert_int_equal(fetch_named(s, "mmv.t.u64", &v), 0);
	mmv_set_atomvalue(a, mmv_lookup_value_desc(a, "el", NULL), &ones);
	assert_int_equal(fetch_named(s, "mmv.t.el", &v), 0);
	/* NaN: no value ([7.x] behaviour). */
	mmv_stats_set(a, "flt", NULL, NAN);
	assert_int_equal(fetch_named(s, "mmv.t.flt", &v), 0);
	mmv_stats_set(a, "dbl", NULL, NAN);
	assert_int_equal(fetch_named(s, "mmv.t.dbl", &v), 0);
	mmv_stats_set(a, "dbl", NULL, 3);
	assert_int_equal(fetch_named(s, "mmv.t.dbl", &v), 1);
	/* Empty string: no value. */
	assert_int_equal(fetch_named(s, "mmv.t.str", &v), 0);
	mmv_stats_set_string(a, "str", NULL, "x");
	assert_int_equal(fetch_named(s, "mmv.t.str", &v), 1);
	mmvr_snapshot_free(s);
	mmv_stats_free(r);
}

static void poke_g2(const char *name, uint64_t g2)
{
	int fd = open(file_path(dir, name), O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &g2, 8, 16), 8);
	close(fd);
}

static void rescan_detection(void **state)
{
	mmv_registry_t *r;
	mmvr_snapshot_t *s;
	hb_t h;

	(void)state;
	simple_file(&r, "w", 0, 0, "x");
	hb_build(&h, 0);
	hb_header(&h)->g2 = 7;		/* not ready: g1 != g2 */
	write_file(dir, "hb", &h, sizeof(h));
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_nfiles(s), 1);
	assert_int_equal(mmvr_snapshot_not_ready(s), 1);
	/* Still not ready: no rescan storm (PCP's agent rescans). */
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_NONE);
	poke_g2("hb", hb_header(&h)->g1);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_READY);
	mmvr_snapshot_free(s);
	s = scan_dir(dir, &logbuf);
	assert_int_equal(mmvr_snapshot_nfiles(s), 2);
	assert_int_equal(mmvr_snapshot_not_ready(s), 0);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_NONE);
	/* A generation change in a loaded file (docs/mmv-format.md §6.2). */
	poke_g2("hb", 99);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_CHANGED);
	poke_g2("hb", hb_header(&h)->g1);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_NONE);
	/* A new file changes the directory. */
	write_file(dir, "new", "x", 1);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_DIR);
	mmvr_snapshot_free(s);
	mmv_stats_free(r);
}

static void missing_directory(void **state)
{
	char path[600];
	mmvr_snapshot_t *s;

	(void)state;
	snprintf(path, sizeof(path), "%s/sub", dir);
	s = scan_dir(path, &logbuf);
	assert_non_null(s);
	assert_int_equal(mmvr_snapshot_nfiles(s), 0);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_NONE);
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(mmvr_snapshot_needs_rescan(s), MMVR_RESCAN_DIR);
	mmvr_snapshot_free(s);
}

static void hand_built_file(void **state)
{
	const mmvr_metric_info_t *m;
	mmvr_snapshot_t *s;
	const char *text;
	hb_t h;
	int sts;

	(void)state;
	hb_build(&h, 9);
	write_file(dir, "hb", &h, sizeof(h));
	s = scan_dir(dir, &logbuf);
	assert_int_equal(logbuf.lines, 0);
	assert_int_equal(fetch_ll(s, "mmv.hb.m.a", PM_IN_NULL, &sts), 42);
	assert_int_equal(fetch_ll(s, "mmv.hb.m.s", 1, &sts), 11);
	assert_int_equal(fetch_ll(s, "mmv.hb.m.s", 2, &sts), 22);
	/* PM_IN_NULL: the first value record in file order. */
	assert_int_equal(fetch_ll(s, "mmv.hb.m.s", PM_IN_NULL, &sts), 11);
	m = mmvr_snapshot_lookup_name(s, "mmv.hb.m.a");
	assert_int_equal(m->desc.indom, PM_INDOM_NULL);
	assert_int_equal(mmvr_snapshot_text(s, (int)m->desc.pmid,
			PM_TEXT_PMID | PM_TEXT_ONELINE, &text), 0);
	assert_string_equal(text, "short a");
	assert_int_equal(mmvr_snapshot_text(s, (int)m->desc.pmid,
			PM_TEXT_PMID | PM_TEXT_HELP, &text), PM_ERR_TEXT);
	mmvr_snapshot_free(s);
}

/* Incremental rescans: a scan given the snapshot served. */
static mmvr_snapshot_t *rescan(const mmvr_snapshot_t *prev)
{
	return scan_after(dir, &logbuf, prev);
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

static const mmvr_metric_info_t *metric(mmvr_snapshot_t *s, const char *file)
{
	char name[64];

	snprintf(name, sizeof(name), "mmv.%s.m.a", file);
	return mmvr_snapshot_lookup_name(s, name);
}

static long long value(mmvr_snapshot_t *s, const char *file)
{
	char name[64];
	int sts;
	long long v;

	snprintf(name, sizeof(name), "mmv.%s.m.a", file);
	v = fetch_ll(s, name, PM_IN_NULL, &sts);
	return sts == 1 ? v : sts;
}

static unsigned int cluster(mmvr_snapshot_t *s, const char *file)
{
	for (size_t i = 0; i < mmvr_snapshot_nfiles(s); i++)
		if (strcmp(mmvr_snapshot_file(s, i)->name, file) == 0)
			return mmvr_snapshot_file(s, i)->cluster;
	return 0;
}

static const mmvr_quick_t *quick_named(mmvr_snapshot_t *s, const char *name)
{
	const mmvr_metric_info_t *m = mmvr_snapshot_lookup_name(s, name);

	assert_non_null(m);
	return mmvr_snapshot_lookup_quick(s, m->desc.pmid);
}

/*
 * The quick path (reader.h): singular numbers only, the same values and
 * statuses as the general path (fetch_checked, in every test here), a
 * generation change seen, and records that follow files across rescans.
 */
static void quick_records(void **state)
{
	static const char *const numbers[] = {
		"i32", "u32", "i64", "u64", "flt", "dbl", "el",
	};
	const mmvr_metric_info_t *m;
	const mmvr_quick_t *q;
	mmvr_snapshot_t *s0, *s1;
	mmv_registry_t *r;
	mmvr_value_t v;
	char name[32];
	void *a;

	(void)state;
	a = types_file(&r, "t", 0);
	assert_non_null(write_acme("acme", 0));
	put("hb", 42, 5, 0);
	s0 = rescan(NULL);
	for (size_t i = 0; i < sizeof(numbers) / sizeof(numbers[0]); i++) {
		snprintf(name, sizeof(name), "mmv.t.%s", numbers[i]);
		assert_non_null(q = quick_named(s0, name));
		m = mmvr_snapshot_lookup_name(s0, name);
		assert_int_equal(mmvr_quick_type(q), m->desc.type);
	}
	assert_null(quick_named(s0, "mmv.t.str"));
	assert_null(quick_named(s0, "mmv.t.nos"));
	assert_null(quick_named(s0, "mmv.acme.products.count"));
	m = mmvr_snapshot_lookup_name(s0, "mmv.t.i32");
	assert_null(mmvr_snapshot_lookup_quick(s0, m->desc.pmid + 100));
	assert_null(mmvr_snapshot_lookup_quick(s0, m->desc.pmid ^ (1u << 22)));
	assert_null(mmvr_snapshot_lookup_quick(s0, mmv_pmid_build(MMVR_DOMAIN, 0, 0)));
	mmv_stats_set(a, "i32", NULL, -9);
	assert_int_equal(fetch_named(s0, "mmv.t.i32", &v), 1);
	assert_int_equal(v.atom.l, -9);
	/* What a prefetch is given: this file's generations, the live value. */
	{
		const void *at[2];
		int32_t l;

		q = quick_named(s0, "mmv.t.i32");
		mmvr_snapshot_quick_addrs(s0, m->desc.pmid, q, at);
		assert_memory_equal(at[0], (char *)a + MMV_HDR_G1, 16);
		memcpy(&l, at[1], sizeof(l));
		assert_int_equal(l, -9);
		mmv_stats_set(a, "i32", NULL, 77);
		memcpy(&l, at[1], sizeof(l));
		assert_int_equal(l, 77);
	}
	assert_int_equal(fetch_named(s0, "mmv.hb.m.a", &v), 1);
	/* Unchanged files keep their records; a removed one has none. */
	assert_int_equal(unlink(file_path(dir, "acme")), 0);
	s1 = rescan(s0);
	assert_int_equal(mmvr_snapshot_reused(s1), 2);
	assert_ptr_equal(quick_named(s1, "mmv.t.u64"), quick_named(s0, "mmv.t.u64"));
	m = mmvr_snapshot_lookup_name(s0, "mmv.acme.products.count");
	assert_null(mmvr_snapshot_lookup_quick(s1, m->desc.pmid));
	mmvr_snapshot_free(s0);
	assert_int_equal(value(s1, "hb"), 42);
	/* Re-initialised in place: no value, and a rescan is due. */
	q = quick_named(s1, "mmv.hb.m.a");
	m = mmvr_snapshot_lookup_name(s1, "mmv.hb.m.a");
	poke_g2("hb", 6);
	assert_false(mmvr_snapshot_fetch_saw_change(s1));
	assert_int_equal(read_quick(s1, m->desc.pmid, q, &v.atom), PM_ERR_AGAIN);
	assert_true(mmvr_snapshot_fetch_saw_change(s1));
	assert_int_equal(fetch_quick(s1, m->desc.pmid, q, &v, true), PM_ERR_AGAIN);
	assert_int_equal(fetch_quick(s1, m->desc.pmid, q, &v, false), PM_ERR_AGAIN);
	mmvr_snapshot_free(s1);
	mmv_stats_free(r);
}

/* Unchanged files are taken over, not read: even an unreadable one. */
static void unchanged_files_shared(void **state)
{
	mmvr_snapshot_t *s0, *s1;

	(void)state;
	put("a", 1, 11, 0);
	put("b", 2, 12, 0);
	put("c", 3, 13, 0);
	s0 = rescan(NULL);
	assert_int_equal(mmvr_snapshot_reused(s0), 0);
	assert_int_equal(mmvr_snapshot_nmetrics(s0), 6);
	/* Reading b again would fail now (unless we run as root). */
	assert_int_equal(chmod(file_path(dir, "b"), 0), 0);
	s1 = rescan(s0);
	assert_int_equal(mmvr_snapshot_reused(s1), 3);
	assert_int_equal(mmvr_snapshot_nfiles(s1), 3);
	assert_int_equal(mmvr_snapshot_nmetrics(s1), 6);
	/* The same memory: parsed once. */
	assert_ptr_equal(metric(s1, "a"), metric(s0, "a"));
	assert_ptr_equal(metric(s1, "b"), metric(s0, "b"));
	assert_int_equal(cluster(s1, "b"), cluster(s0, "b"));
	assert_int_equal(logbuf.lines, 0);
	/* The old snapshot goes first; the new one still serves all. */
	mmvr_snapshot_free(s0);
	assert_int_equal(value(s1, "a"), 1);
	assert_int_equal(value(s1, "b"), 2);
	assert_int_equal(value(s1, "c"), 3);
	assert_int_equal(mmvr_snapshot_metric(s1, 2)->desc.pmid,
			metric(s1, "b")->desc.pmid);
	mmvr_snapshot_free(s1);
}

/* Changed in place, replaced, removed, added: each read as it now is. */
static void changed_removed_added(void **state)
{
	mmvr_snapshot_t *s0, *s1, *s2, *s3;

	(void)state;
	put("a", 1, 11, 0);
	put("b", 2, 12, 0);
	put("c", 3, 13, 0);
	s0 = rescan(NULL);
	put("b", 20, 22, 0);		/* same inode and size, new generation */
	replace("c", 30, 13);		/* new inode, same size and generation */
	s1 = rescan(s0);
	assert_int_equal(mmvr_snapshot_reused(s1), 1);
	assert_ptr_equal(metric(s1, "a"), metric(s0, "a"));
	assert_ptr_not_equal(metric(s1, "b"), metric(s0, "b"));
	assert_int_equal(value(s1, "b"), 20);
	assert_int_equal(value(s1, "c"), 30);
	assert_int_equal(cluster(s1, "b"), cluster(s0, "b"));
	assert_int_equal(cluster(s1, "c"), cluster(s0, "c"));
	mmvr_snapshot_free(s0);
	/* Removed: the first in name order; the others keep their clusters
	 * (a first scan would give b cluster 1). */
	assert_int_equal(unlink(file_path(dir, "a")), 0);
	s2 = rescan(s1);
	assert_int_equal(mmvr_snapshot_reused(s2), 2);
	assert_null(metric(s2, "a"));
	assert_int_equal(mmvr_snapshot_nmetrics(s2), 4);
	assert_int_equal(cluster(s2, "b"), cluster(s1, "b"));
	assert_int_equal(cluster(s2, "c"), cluster(s1, "c"));
	assert_int_equal(metric(s2, "c")->desc.pmid, metric(s1, "c")->desc.pmid);
	mmvr_snapshot_free(s1);
	/* Added: the smallest free cluster, names merged in order. */
	put("aa", 4, 14, 0);
	s3 = rescan(s2);
	assert_int_equal(mmvr_snapshot_reused(s3), 2);
	assert_int_equal(value(s3, "aa"), 4);
	assert_int_equal(cluster(s3, "aa"), 1);
	assert_int_equal(mmvr_snapshot_nmetrics(s3), 6);
	assert_string_equal(mmvr_snapshot_metric(s3, 0)->name, "mmv.aa.m.a");
	assert_string_equal(mmvr_snapshot_metric(s3, 2)->name, "mmv.b.m.a");
	assert_string_equal(mmvr_snapshot_metric(s3, 5)->name, "mmv.c.m.s");
	assert_ptr_equal(mmvr_snapshot_lookup_pmid(s3, metric(s3, "aa")->desc.pmid),
			metric(s3, "aa"));
	assert_non_null(mmvr_snapshot_lookup_indom(s3,
			(70u << 22) | (cluster(s3, "aa") << 11 | 5)));
	assert_int_equal(mmvr_snapshot_nindoms(s3), 3);
	mmvr_snapshot_free(s2);
	mmvr_snapshot_free(s3);
}

/* A served file replaced by a hostile one: refused, the rest served. */
static void hostile_replacement(void **state)
{
	mmvr_snapshot_t *s0, *s1;
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
	assert_int_equal(mmvr_snapshot_nfiles(s1), 2);
	assert_null(metric(s1, "b"));
	assert_int_equal(logbuf.lines, 1);
	assert_non_null(strstr(logbuf.text, "/b: bad TOC count"));
	assert_ptr_equal(metric(s1, "a"), metric(s0, "a"));
	assert_ptr_equal(metric(s1, "c"), metric(s0, "c"));
	mmvr_snapshot_free(s0);
	assert_int_equal(value(s1, "a"), 1);
	assert_int_equal(value(s1, "c"), 3);
	assert_int_equal(cluster(s1, "c"), 3);
	mmvr_snapshot_free(s1);
}

/*
 * Names that clash across files settle as in a first scan (the first
 * file in name order wins), whichever file came or went: NOPREFIX files
 * all export mmv.m.a.
 */
static void name_clash_as_first_scan(void **state)
{
	mmvr_snapshot_t *s0, *s1, *s2, *s3;
	const mmvr_metric_info_t *m;

	(void)state;
	put("b", 2, 12, MMV_FLAG_NOPREFIX);
	s0 = rescan(NULL);
	put("c", 3, 13, MMV_FLAG_NOPREFIX);	/* loses to b */
	s1 = rescan(s0);
	m = mmvr_snapshot_lookup_name(s1, "mmv.m.a");
	assert_non_null(m);
	assert_int_equal(m->desc.pmid, mmvr_snapshot_lookup_name(s0,
			"mmv.m.a")->desc.pmid);
	assert_non_null(strstr(logbuf.text, "/c: metric name mmv.m.a already "
			"used by b"));
	put("a", 1, 11, MMV_FLAG_NOPREFIX);	/* wins over both */
	s2 = rescan(s1);
	assert_int_equal(fetch_ll(s2, "mmv.m.a", PM_IN_NULL, &(int){0}), 1);
	assert_int_equal(mmvr_snapshot_nmetrics(s2), 2);
	assert_int_equal(unlink(file_path(dir, "a")), 0);
	assert_int_equal(unlink(file_path(dir, "b")), 0);
	s3 = rescan(s2);			/* c, the loser, now wins */
	assert_int_equal(fetch_ll(s3, "mmv.m.a", PM_IN_NULL, &(int){0}), 3);
	assert_int_equal(mmvr_snapshot_nmetrics(s3), 2);
	mmvr_snapshot_free(s0);
	mmvr_snapshot_free(s1);
	mmvr_snapshot_free(s2);
	mmvr_snapshot_free(s3);
}

/*
 * A rename in the clock tick of the scan leaves the directory's mtime as
 * the scan saw it: a scan within a tick of the last change counts as
 * changed until one sees the directory a tick old.
 */
static void same_tick_change(void **state)
{
	mmvr_config_t cfg = { .dir = dir, .log = test_log_fn,
		.log_arg = &logbuf };
	mmvr_snapshot_t *s0, *s1, *s2;

	(void)state;
	put("a", 1, 11, 0);
	s0 = mmvr_snapshot_scan(&cfg);		/* just after the change */
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(s0), MMVR_RESCAN_DIR);
	put(".b", 2, 12, 0);
	age_dir(dir);				/* the mtime s0 saw, say */
	s1 = rescan(s0);
	assert_int_equal(mmvr_snapshot_needs_rescan_quick(s1), MMVR_RESCAN_NONE);
	replace("a", 3, 13);
	s2 = rescan(s1);
	assert_int_equal(value(s2, "a"), 3);
	mmvr_snapshot_free(s0);
	mmvr_snapshot_free(s1);
	mmvr_snapshot_free(s2);
}

/* Names and PMIDs compared across rescans (the agent's names-changed flag). */
static void same_names_across_rescans(void **state)
{
	mmvr_snapshot_t *s0, *s1, *s2, *s3, *s4;

	(void)state;
	put("a", 1, 11, 0);
	put("b", 2, 12, 0);
	s0 = rescan(NULL);
	s1 = rescan(s0);			/* nothing changed: all shared */
	assert_true(mmvr_snapshot_same_names(s0, s1));
	replace("b", 20, 13);			/* read again, the same names */
	s2 = rescan(s1);
	assert_ptr_not_equal(metric(s2, "b"), metric(s1, "b"));
	assert_true(mmvr_snapshot_same_names(s1, s2));
	put("b", 21, 14, MMV_FLAG_NOPREFIX);	/* as many names, others */
	s3 = rescan(s2);
	assert_int_equal(mmvr_snapshot_nmetrics(s3), mmvr_snapshot_nmetrics(s2));
	assert_false(mmvr_snapshot_same_names(s2, s3));
	put("c", 3, 15, 0);			/* more names */
	s4 = rescan(s3);
	assert_false(mmvr_snapshot_same_names(s3, s4));
	mmvr_snapshot_free(s0);
	mmvr_snapshot_free(s1);
	mmvr_snapshot_free(s2);
	mmvr_snapshot_free(s3);
	mmvr_snapshot_free(s4);
}

/*
 * Released blocks are kept for the next scan's requests of about their
 * size (arena.c): the same block comes back for a request it fits, not
 * for one less than half its size. Sizes are rounded up to classes an
 * eighth of a power of two apart, so a list a few entries longer than
 * last time fits the last one's block. (Odd sizes: other tests' blocks
 * are kept too.)
 */
static void blocks_kept(void **state)
{
	size_t got;
	void *a, *b;

	(void)state;
	assert_non_null(a = mmvr_block_take(3333333, &got));
	assert_true(got >= 3333333 && got <= 3333333 + 3333333 / 8);
	memset(a, 1, got);
	mmvr_block_give(a);
	assert_non_null(b = mmvr_block_take(3000001, &got));
	assert_ptr_equal(b, a);
	assert_true(got >= 3333333);
	mmvr_block_give(b);
	assert_non_null(b = mmvr_block_take(1500001, &got));
	assert_ptr_not_equal(b, a);
	assert_true(got >= 1500001 && got < 3333333);
	mmvr_block_give(b);
	/* 100,001 names' list, then 101,001's: one class */
	mmvr_block_trim();
	assert_non_null(a = mmvr_block_take(100001 * 8, &got));
	mmvr_block_give(a);
	assert_non_null(b = mmvr_block_take(101001 * 8, &got));
	assert_ptr_equal(b, a);
	assert_true(got >= 101001 * 8);
	mmvr_block_give(b);
}

/* @s's names in order are those a first scan of the directory finds. */
static void names_as_first_scan(mmvr_snapshot_t *s)
{
	mmvr_snapshot_t *f = rescan(NULL);

	assert_int_equal(mmvr_snapshot_nmetrics(s), mmvr_snapshot_nmetrics(f));
	for (size_t i = 0; i < mmvr_snapshot_nmetrics(f); i++)
		assert_string_equal(mmvr_snapshot_metric(s, i)->name,
				mmvr_snapshot_metric(f, i)->name);
	mmvr_snapshot_free(f);
}

/*
 * The merge of kept and new names (snapshot.c merge_names) with files
 * read again at the front, in the middle, side by side and at the end,
 * and a new one between two kept ones: the order a first scan gives.
 */
static void merge_many_files(void **state)
{
	static const char *again[] = { "f00", "f07", "f08", "f21", "f39" };
	mmvr_snapshot_t *s0, *s1;
	char name[16];
	int added = 0;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "f%02d", i);
		put(name, (uint64_t)i, 100 + (uint64_t)i, 0);
	}
	s0 = rescan(NULL);
	for (size_t i = 0; i < sizeof(again) / sizeof(again[0]); i++)
		replace(again[i], 1000 + i, 300 + i);
	/* new ones 1 to 7 kept files after the one before */
	for (int i = 9, step = 1; i < 40; i += step++) {
		snprintf(name, sizeof(name), "f%02da", i);
		put(name, (uint64_t)i, 400 + (uint64_t)i, 0);
		added++;
	}
	s1 = rescan(s0);
	assert_int_equal(mmvr_snapshot_reused(s1), 35);
	assert_int_equal(mmvr_snapshot_nmetrics(s1),
			mmvr_snapshot_nmetrics(s0) / 40 * (40 + added));
	names_as_first_scan(s1);
	assert_int_equal(value(s1, "f21"), 1003);
	assert_int_equal(value(s1, "f24a"), 24);	/* one of the new */
	mmvr_snapshot_free(s0);
	mmvr_snapshot_free(s1);
}

/*
 * The search the merge places each new name with: for every length up
 * to 40 and every name below, at and above each entry, the index a
 * linear search gives.
 */
static void name_lower_bound(void **state)
{
	static rmetric_t m[40];
	static char names[40][8];
	rmetric_t *v[40];
	char key[8];

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof(names[i]), "n%03d", 2 * i + 1);
		m[i].pub.name = names[i];
		v[i] = &m[i];
	}
	for (size_t n = 0; n <= 40; n++)
		for (int k = 0; k <= 2 * 40 + 1; k++) {
			size_t want = 0;

			snprintf(key, sizeof(key), "n%03d", k);
			while (want < n && strcmp(v[want]->pub.name, key) < 0)
				want++;
			assert_int_equal(mmvr_name_lower_bound(v, n, key), want);
		}
}

/*
 * A first scan's reserve covers the next rescan: after one file of many
 * is replaced, that rescan takes no block from malloc. Without the
 * reserve (nothing kept) it has to.
 */
static void first_rescan_reserved(void **state)
{
	mmvr_snapshot_t *s0, *s1, *s2, *s3;
	char name[8];
	size_t fresh;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "f%02d", i);
		put(name, (uint64_t)i, 100 + (uint64_t)i, 0);
	}
	mmvr_block_trim();
	s0 = rescan(NULL);
	replace("f07", 7, 200);
	fresh = mmvr_block_fresh();
	s1 = rescan(s0);			/* nothing kept: fresh blocks */
	assert_int_equal(mmvr_snapshot_reused(s1), 39);
	assert_true(mmvr_block_fresh() > fresh);
	mmvr_snapshot_free(s0);
	mmvr_snapshot_free(s1);

	mmvr_block_trim();
	s2 = rescan(NULL);
	mmvr_snapshot_reserve(s2);
	replace("f07", 8, 201);
	fresh = mmvr_block_fresh();
	s3 = rescan(s2);
	assert_int_equal(mmvr_snapshot_reused(s3), 39);
	assert_int_equal(mmvr_block_fresh(), fresh);
	assert_int_equal(value(s3, "f07"), 8);
	mmvr_snapshot_free(s2);
	mmvr_snapshot_free(s3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(acme_names_pmids_descs, setup, teardown),
		cmocka_unit_test_setup_teardown(acme_instances_values_help, setup, teardown),
		cmocka_unit_test_setup_teardown(registry_labels_strings_elapsed, setup, teardown),
		cmocka_unit_test_setup_teardown(explicit_cluster_label, setup, teardown),
		cmocka_unit_test_setup_teardown(cluster_assignment, setup, teardown),
		cmocka_unit_test_setup_teardown(noprefix_and_names, setup, teardown),
		cmocka_unit_test_setup_teardown(process_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(all_types, setup, teardown),
		cmocka_unit_test_setup_teardown(sentinel, setup, teardown),
		cmocka_unit_test_setup_teardown(rescan_detection, setup, teardown),
		cmocka_unit_test_setup_teardown(quick_records, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(hand_built_file, setup, teardown),
		cmocka_unit_test_setup_teardown(unchanged_files_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(changed_removed_added, setup, teardown),
		cmocka_unit_test_setup_teardown(hostile_replacement, setup, teardown),
		cmocka_unit_test_setup_teardown(name_clash_as_first_scan, setup, teardown),
		cmocka_unit_test_setup_teardown(same_tick_change, setup, teardown),
		cmocka_unit_test_setup_teardown(same_names_across_rescans, setup, teardown),
		cmocka_unit_test_setup_teardown(merge_many_files, setup, teardown),
		cmocka_unit_test(name_lower_bound),
		cmocka_unit_test(blocks_kept),
		cmocka_unit_test_setup_teardown(first_rescan_reserved, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
