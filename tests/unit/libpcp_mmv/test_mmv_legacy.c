/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mmv_stats_init / mmv_stats2_init (docs/mmv-format.md §3.2, §10.2; mmv_stats.h). */
#include "mmv_test.h"

static mmv_metric_t metric1(const char *name, uint32_t item, int type,
		uint32_t indom)
{
	mmv_metric_t m;

	memset(&m, 0, sizeof(m));
	snprintf(m.name, sizeof(m.name), "%s", name);
	m.item = item;
	m.type = (mmv_metric_type_t)type;
	m.semantics = MMV_SEM_COUNTER;
	m.dimension = mt_count;
	m.indom = indom;
	return m;
}

static mmv_metric2_t metric2(char *name, uint32_t item, int type, uint32_t indom)
{
	mmv_metric2_t m;

	memset(&m, 0, sizeof(m));
	m.name = name;
	m.item = item;
	m.type = (mmv_metric_type_t)type;
	m.semantics = MMV_SEM_COUNTER;
	m.dimension = mt_count;
	m.indom = indom;
	return m;
}

static void init_err(const mmv_metric_t *m, int nm, const mmv_indom_t *d,
		int nd, int err)
{
	errno = 0;
	assert_null(mmv_stats_init("legacy", 1, 0, m, nm, d, nd));
	assert_int_equal(errno, err);
}

static void init2_err(const mmv_metric2_t *m, int nm, const mmv_indom2_t *d,
		int nd, int err)
{
	errno = 0;
	assert_null(mmv_stats2_init("legacy", 1, 0, m, nm, d, nd));
	assert_int_equal(errno, err);
}

static void counts_and_arrays(void **state)
{
	mmv_metric_t m = metric1("m", 1, MMV_TYPE_U64, 0);
	mmv_metric2_t m2 = metric2("m", 1, MMV_TYPE_U64, 0);
	mmv_indom_t d = { .serial = 1, .count = 1, .instances = NULL };
	mmv_indom2_t d2 = { .serial = 1, .count = 1, .instances = NULL };
	void *addr;

	init_err(&m, -1, NULL, 0, EINVAL);
	init_err(&m, 1, &d, -1, EINVAL);
	init_err(NULL, 1, NULL, 0, EINVAL);
	init_err(&m, 1, NULL, 1, EINVAL);
	init_err(&m, 1, &d, 1, EINVAL);		/* count 1, no instances */
	init2_err(&m2, -1, NULL, 0, EINVAL);
	init2_err(&m2, 1, &d2, -1, EINVAL);
	init2_err(NULL, 1, NULL, 0, EINVAL);
	init2_err(&m2, 1, NULL, 1, EINVAL);
	init2_err(&m2, 1, &d2, 1, EINVAL);
	assert_int_equal(mt_size(state, "legacy"), -1);
	errno = 0;
	assert_null(mmv_stats_init(NULL, 1, 0, &m, 1, NULL, 0));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmv_stats2_init(NULL, 1, 0, &m2, 1, NULL, 0));
	assert_int_equal(errno, EINVAL);
	/* NULL arrays with zero counts: the empty 72-byte file (docs/mmv-format.md §2.4) */
	addr = mmv_stats_init("legacy", 1, 0, NULL, 0, NULL, 0);
	assert_non_null(addr);
	assert_int_equal(mt_size(state, "legacy"), 72);
	mmv_stats_stop("legacy", addr);
	addr = mmv_stats2_init("legacy2", 1, 0, NULL, 0, NULL, 0);
	assert_non_null(addr);
	assert_int_equal(mt_size(state, "legacy2"), 72);
	mmv_stats_stop("legacy2", addr);
}

/* docs/mmv-format.md §10.2: indom checks over all indoms, then metric checks, in table order. */
static void v1_errno_order(void **state)
{
	mmv_instances_t in[2] = { { 0, "a" }, { 1, "b" } };
	mmv_indom_t good = { .serial = 3, .count = 2, .instances = in };
	mmv_indom_t zero = { .serial = 0 }, ones = { .serial = 0xffffffff };
	char *h256 = mt_str(256, 'h');
	mmv_indom_t longhelp = { .serial = 4, .helptext = h256 };
	mmv_indom_t longshort = { .serial = 4, .shorttext = h256 };
	mmv_metric_t ok = metric1("ok", 1, MMV_TYPE_U64, 3);
	mmv_metric_t badtype = metric1("bt", 2, 10, 0);
	mmv_metric_t undecl = metric1("ud", 3, MMV_TYPE_U64, 9);
	mmv_metric_t empty = metric1("", 4, MMV_TYPE_U64, 0);
	mmv_metric_t m[3];
	mmv_indom_t d[2];

	(void)state;
	d[0] = good;
	d[1] = zero;
	init_err(&ok, 1, d, 2, ESRCH);
	d[1] = ones;
	init_err(&ok, 1, d, 2, ESRCH);
	d[1] = longhelp;
	init_err(&ok, 1, d, 2, E2BIG);
	d[1] = longshort;
	init_err(&ok, 1, d, 2, E2BIG);
	/* indoms before metrics */
	m[0] = badtype;
	init_err(m, 1, &zero, 1, ESRCH);
	init_err(m, 1, &longhelp, 1, E2BIG);
	/* metrics in order, type before name length */
	init_err(&badtype, 1, &good, 1, EINVAL);
	init_err(&empty, 1, &good, 1, EINVAL);
	init_err(&undecl, 1, &good, 1, ESRCH);
	m[0] = ok;
	m[1] = undecl;
	m[2] = badtype;
	init_err(m, 3, &good, 1, ESRCH);
	m[1] = badtype;
	m[2] = undecl;
	init_err(m, 3, &good, 1, EINVAL);
	m[0] = metric1("t", 1, -2, 0);
	init_err(m, 1, NULL, 0, EINVAL);
	m[0] = metric1("t", 1, MMV_TYPE_NOSUPPORT, 0);
	void *addr = mmv_stats_init("legacy", 1, 0, m, 1, NULL, 0);
	assert_non_null(addr);
	mmv_stats_stop("legacy", addr);
	free(h256);
}

static void v2_errno_order(void **state)
{
	char *n256 = mt_str(256, 'n');
	mmv_instances2_t in_empty[1] = { { 0, "" } };
	mmv_instances2_t in_long[1] = { { 0, n256 } };
	mmv_instances2_t in_null[1] = { { 0, NULL } };
	mmv_indom2_t d = { .serial = 3, .count = 1 };
	mmv_metric2_t bad = metric2("bad", 1, 10, 0);
	mmv_metric2_t big = metric2(n256, 2, MMV_TYPE_U64, 0);
	mmv_metric2_t big_undecl = metric2(n256, 2, MMV_TYPE_U64, 9);
	mmv_metric2_t nul = metric2(NULL, 3, MMV_TYPE_U64, 0);
	mmv_metric2_t m[2];

	(void)state;
	d.instances = in_empty;
	init2_err(&bad, 1, &d, 1, EINVAL);
	d.instances = in_long;
	init2_err(&bad, 1, &d, 1, E2BIG);
	d.instances = in_null;
	init2_err(&bad, 1, &d, 1, EINVAL);
	d.count = 0;
	init2_err(&big, 1, &d, 1, E2BIG);
	init2_err(&big_undecl, 1, &d, 1, E2BIG);
	init2_err(&nul, 1, &d, 1, EINVAL);
	m[0] = big;
	m[1] = bad;
	init2_err(m, 2, &d, 1, E2BIG);
	m[0] = bad;
	m[1] = big;
	init2_err(m, 2, &d, 1, EINVAL);
	free(n256);
}

/* init_ok - the call succeeds, as PCP's; tests/compat compares bytes. */
static void init_ok(const mmv_metric_t *m, int nm, const mmv_indom_t *d,
		int nd, int cluster)
{
	void *addr = mmv_stats_init("legacy", cluster, 0, m, nm, d, nd);

	if (addr == NULL)
		fail_msg("mmv_stats_init: %s", strerror(errno));
	mmv_stats_stop("legacy", addr);
}

/* Repeats are written as PCP writes them; the agents drop them. */
static void duplicates(void **state)
{
	mmv_instances_t dupid[2] = { { 1, "a" }, { 1, "b" } };
	mmv_instances_t dupname[2] = { { 1, "a" }, { 2, "a" } };
	mmv_indom_t d[2] = { { .serial = 3 }, { .serial = 3 } };
	mmv_metric_t m[2];

	(void)state;
	init_ok(NULL, 0, d, 2, 1);
	d[0].count = 2;
	d[0].instances = dupid;
	init_ok(NULL, 0, d, 1, 1);
	d[0].instances = dupname;
	init_ok(NULL, 0, d, 1, 1);
	m[0] = metric1("a", 1, MMV_TYPE_U64, 0);
	m[1] = metric1("a", 2, MMV_TYPE_U64, 0);
	init_ok(m, 2, NULL, 0, 1);
	m[1] = metric1("b", 1, MMV_TYPE_U64, 0);
	init_ok(m, 2, NULL, 0, 1);
}

/*
 * What the registry's add calls refuse (docs/compatibility.md), init accepts as PCP
 * does: cluster and item ranges, semantics, types 7 and 8, name
 * characters, serials over 2047.
 */
static void pcp_accepts(void **state)
{
	mmv_metric_t m = metric1("m", 1, MMV_TYPE_U64, 0);
	mmv_metric2_t m2 = metric2("m", 1, MMV_TYPE_U64, 0);
	mmv_indom_t big = { .serial = 2048 };
	void *addr;

	(void)state;
	init_ok(&m, 1, NULL, 0, 4096);
	init_ok(&m, 1, NULL, 0, -1);
	addr = mmv_stats2_init("legacy", 4096, 0, &m2, 1, NULL, 0);
	assert_non_null(addr);
	mmv_stats_stop("legacy", addr);
	m.item = 1024;
	init_ok(&m, 1, NULL, 0, 1);
	m.item = 1;
	m.semantics = (mmv_metric_sem_t)2;
	init_ok(&m, 1, NULL, 0, 1);
	m = metric1("a-b", 1, MMV_TYPE_U64, 0);
	init_ok(&m, 1, NULL, 0, 1);
	m = metric1("t", 1, 7, 0);
	init_ok(&m, 1, NULL, 0, 1);
	init_ok(NULL, 0, &big, 1, 1);
	m2.name = "x.";
	addr = mmv_stats2_init("legacy", 1, 0, &m2, 1, NULL, 0);
	assert_non_null(addr);
	mmv_stats_stop("legacy", addr);
}

/* v1 instance names: not checked, cut to 63 chars (docs/mmv-format.md §5). */
static void v1_instance_names(void **state)
{
	mmv_instances_t in[2];
	mmv_indom_t d = { .serial = 3, .count = 2, .instances = in };
	mmv_metric_t m = metric1("m", 1, MMV_TYPE_U64, 3);
	char *n63 = mt_str(63, 'x');
	unsigned char *b;
	size_t len;
	void *addr;

	memset(in, 0, sizeof(in));
	in[0].internal = 1;
	memset(in[0].external, 'x', sizeof(in[0].external));	/* no NUL */
	in[1].internal = 2;				/* "" is accepted */
	addr = mmv_stats_init("legacy", 1, 0, &m, 1, &d, 1);
	assert_non_null(addr);
	b = mt_read(state, "legacy", &len);
	assert_int_equal(rdi32(b, 4), 1);
	/* tocs 4: indom 104, instances 136 */
	assert_int_equal(rdi32(b, 24), 4);
	assert_int_equal(rdi32(b, 136 + 12), 1);
	assert_memory_equal(b + 136 + 16, n63, 63);
	assert_int_equal(b[136 + 16 + 63], 0);
	assert_int_equal(rdi32(b, 216 + 12), 2);
	assert_int_equal(b[216 + 16], 0);
	assert_non_null(mmv_lookup_value_desc(addr, "m", n63));
	assert_non_null(mmv_lookup_value_desc(addr, "m", ""));
	free(b);
	free(n63);
	mmv_stats_stop("legacy", addr);
}

static int file_version(void **state, const char *name)
{
	size_t len;
	unsigned char *b = mt_read(state, name, &len);
	int v = rdi32(b, 4);

	free(b);
	return v;
}

/* docs/mmv-format.md §3.2: mmv_stats_init always 1; mmv_stats2_init 1, or 2 for long names. */
static void versions(void **state)
{
	char *n63 = mt_str(63, 'm'), *n64 = mt_str(64, 'm');
	char *i63 = mt_str(63, 'i'), *i64 = mt_str(64, 'i');
	mmv_instances2_t in[1] = { { 1, i63 } };
	mmv_indom2_t d = { .serial = 2, .count = 1, .instances = in };
	mmv_metric2_t m = metric2(n63, 1, MMV_TYPE_U64, 2);
	mmv_metric_t m1 = metric1("m", 1, MMV_TYPE_U64, 0);
	void *addr;

	addr = mmv_stats_init("v", 0, 0, &m1, 1, NULL, 0);
	assert_int_equal(file_version(state, "v"), 1);
	mmv_stats_stop("v", addr);
	addr = mmv_stats2_init("v", 0, 0, &m, 1, &d, 1);
	assert_int_equal(file_version(state, "v"), 1);
	/* 40 + 4*16 + 32 + 80 + 104 + 32 */
	assert_int_equal(mt_size(state, "v"), 352);
	mmv_stats_stop("v", addr);
	m.name = n64;
	addr = mmv_stats2_init("v", 0, 0, &m, 1, &d, 1);
	assert_int_equal(file_version(state, "v"), 2);
	/* 40 + 5*16 + 32 + 24 + 48 + 32 + 2*256 */
	assert_int_equal(mt_size(state, "v"), 768);
	assert_non_null(mmv_lookup_value_desc(addr, n64, i63));
	mmv_stats_stop("v", addr);
	m.name = n63;
	in[0].external = i64;
	addr = mmv_stats2_init("v", 0, 0, &m, 1, &d, 1);
	assert_int_equal(file_version(state, "v"), 2);
	assert_non_null(mmv_lookup_value_desc(addr, n63, i64));
	mmv_stats_stop("v", addr);
	free(n63);
	free(n64);
	free(i63);
	free(i64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(counts_and_arrays),
		MT_TEST(v1_errno_order),
		MT_TEST(v2_errno_order),
		MT_TEST(duplicates),
		MT_TEST(pcp_accepts),
		MT_TEST(v1_instance_names),
		MT_TEST(versions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
