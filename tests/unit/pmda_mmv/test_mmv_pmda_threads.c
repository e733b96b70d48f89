/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_mmv's daemon mode (view.c, threaded) under ThreadSanitizer. The
 * agent's rescan thread, kicked by stores to mmv.control.reload, waking
 * each second for its per-file checks and every 10 ms to sample a
 * histogram, publishes views while this thread answers requests from
 * them as pmdaMain's would, and rescans itself when it finds the
 * directory changed; a writer thread starts, rewrites and removes files
 * all the while. Every answer must be whole: the steady file's values
 * right in every reply, a changing file's value its own or an error,
 * never another file's. tests/unit/build.mk builds it twice: with
 * -fsanitize=thread, where a race TSan sees between the three threads
 * fails the run, and with ASan+UBSan as the other unit tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_histogram.h>
#include "../../../pmda_mmv/pmda_mmv.h"
#include "mmv_reader_test.h"

/* libpcp's, exported but declared only in libpcp.h (not installed):
 * how pmdaMain gives a daemon's replies back. */
extern void __pmFreeInResult(pmInResult *res);

#define DOMAIN	70
#define STEADY	7	/* the steady file's cluster */
#define SERIAL	3	/* its indom: instances 1 "one" and 2 "two" */
#define MOVING	20	/* the writer's files: clusters 20..23, "w0".."w3" */
#define NMOVING	4
#define TAG	1000000	/* a writer's value: cluster * TAG + round */
#define RUN_NS	1500000000LL	/* requests for 1.5 s: one per-file check */
#define MIN_EVENTS 100		/* and at least this many requests and rounds, */
#define MAX_NS	120000000000LL	/* however long a loaded machine takes */

static char *tmp;
static char mmvdir[256];
static pmdaInterface dp;
static mmv_registry_t *steady;
static void *steady_addr;
static int writer_stop;		/* atomic */
static int writer_rounds;	/* atomic */

static pmID pmid(unsigned int cluster, unsigned int item)
{
	return pmID_build(DOMAIN, cluster, item);
}

static pmdaExt *ext(void)
{
	return dp.version.seven.ext;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * "s": u32 = 42, u64 = 1 << 40, per = 5 and 6 over SERIAL (instance 2
 * labelled), a histogram "lat" with one value a writer's round.
 */
static void write_steady(void)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	mmv_registry_t *r = mmv_stats_registry(file_path(mmvdir, "s"), STEADY, 0);

	assert_non_null(steady = r);
	assert_int_equal(mmv_stats_add_metric(r, "u32", 1, MMV_TYPE_U32,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "u64", 2, MMV_TYPE_U64,
			MMV_SEM_COUNTER, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_indom(r, SERIAL, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(r, SERIAL, 1, "one"), 0);
	assert_int_equal(mmv_stats_add_instance(r, SERIAL, 2, "two"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "per", 3, MMV_TYPE_U32,
			MMV_SEM_INSTANT, none, SERIAL, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, SERIAL, 2, "inst_l",
			"7", MMV_NUMBER_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_histogram(r, "lat", 10, 1, 0, 1, 1000000,
			4, usec, NULL, NULL), 0);
	assert_non_null(steady_addr = mmv_stats_start(r));
	mmv_stats_set(steady_addr, "per", "one", 5);
	mmv_stats_set(steady_addr, "per", "two", 6);
	mmv_stats_set(steady_addr, "u32", NULL, 42);
	mmv_stats_set(steady_addr, "u64", NULL, (double)(1ULL << 40));
}

/* File "w<k>" at cluster MOVING + k, metric "v" = its cluster * TAG + @round. */
static void write_moving(int k, int round)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	char name[8];
	mmv_registry_t *r;
	void *addr;

	snprintf(name, sizeof(name), "w%d", k);
	r = mmv_stats_registry(file_path(mmvdir, name), MOVING + k, 0);
	assert_non_null(r);
	assert_int_equal(mmv_stats_add_metric(r, "v", 0, MMV_TYPE_U64,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_non_null(addr = mmv_stats_start(r));
	mmv_stats_set(addr, "v", NULL, (double)((MOVING + k) * TAG + round));
	mmv_stats_free(r);	/* unmapped; the file stays */
}

/* Round after round: one file rewritten, one removed, a histogram value. */
static void *writer(void *arg)
{
	mmv_histogram_t *h = mmv_stats_histogram(steady_addr, "lat", NULL);
	char name[8];
	int round;

	(void)arg;
	for (round = 1; !__atomic_load_n(&writer_stop, __ATOMIC_ACQUIRE); round++) {
		write_moving(round % NMOVING, round);
		if (round % 3 == 0) {
			snprintf(name, sizeof(name), "w%d", (round + 2) % NMOVING);
			unlink(file_path(mmvdir, name));
		}
		mmv_histogram_record(h, (uint64_t)(round % 1000) + 1);
		__atomic_store_n(&writer_rounds, round, __ATOMIC_RELEASE);
		usleep(500);
	}
	return NULL;
}

static int setup(void **state)
{
	(void)state;
	if ((tmp = make_tmp_dir(mmvdir, sizeof(mmvdir))) == NULL)
		return 1;
	rcu_register_thread();	/* as the daemon's main() does for pmdaMain */
	write_steady();
	/* the thread samples histograms every 10 ms */
	if (mmv_pmda_percentiles(0.01, 1) != 0)
		return 1;
	pmdaDSO(&dp, PMDA_INTERFACE_7, "mmv threads test", NULL);
	dp.domain = DOMAIN;
	return mmv_pmda_setup(&dp, "mmv", true) != 0;
}

static int teardown(void **state)
{
	(void)state;
	mmv_pmda_shutdown(&dp);
	rcu_unregister_thread();
	mmv_stats_free(steady);
	rm_rf(tmp);
	free(tmp);
	return 0;
}

static void store_reload(void)
{
	pmdaResult r = { .numpmid = 1 };
	pmValueSet vs = { .pmid = pmid(0, 0), .numval = 1,
		.valfmt = PM_VAL_INSITU };

	vs.vlist[0].inst = PM_IN_NULL;
	vs.vlist[0].value.lval = 1;
	r.vset[0] = &vs;
	assert_int_equal(dp.version.seven.store(&r, ext()), 0);
}

/* A changing file's value set: its own value, or an error. */
static void check_moving(const pmValueSet *vs, unsigned int cluster)
{
	pmAtomValue a;

	if (vs->numval <= 0)
		return;		/* PM_ERR_PMID (not there), or not ready */
	assert_int_equal(vs->numval, 1);
	assert_int_equal(pmExtractValue(vs->valfmt, &vs->vlist[0], PM_TYPE_U64,
			&a, PM_TYPE_U64), 0);
	if (a.ull != 0)		/* 0: read before the writer's one store */
		assert_int_equal(a.ull / TAG, cluster);
}

/* One request of the steady, the changing and the percentile metrics. */
static int request(pmID p50)
{
	pmID ids[3 + NMOVING + 1];
	pmdaResult *res;
	pmAtomValue a;
	int k, n = 0, seen = 0;

	ids[n++] = pmid(STEADY, 1);
	ids[n++] = pmid(STEADY, 2);
	ids[n++] = pmid(0, 2);		/* mmv.control.files */
	for (k = 0; k < NMOVING; k++)
		ids[n++] = pmid(MOVING + k, 0);
	ids[n++] = p50;
	assert_int_equal(dp.version.seven.fetch(n, ids, &res, ext()), 0);
	assert_int_equal(res->numpmid, n);
	assert_int_equal(pmExtractValue(res->vset[0]->valfmt,
			&res->vset[0]->vlist[0], PM_TYPE_U32, &a, PM_TYPE_U32), 0);
	assert_int_equal(a.ul, 42);
	assert_int_equal(pmExtractValue(res->vset[1]->valfmt,
			&res->vset[1]->vlist[0], PM_TYPE_U64, &a, PM_TYPE_U64), 0);
	assert_true(a.ull == 1ULL << 40);
	assert_int_equal(res->vset[2]->numval, 1);
	for (k = 0; k < NMOVING; k++) {
		check_moving(res->vset[3 + k], MOVING + k);
		seen += res->vset[3 + k]->numval > 0;
	}
	assert_true(res->vset[n - 1]->numval >= 0);	/* none yet, or one */
	sdk_free_pmda_result_values(res);
	return seen;
}

/*
 * The steady file's instances, instance labels and per-instance values;
 * names and descriptors of the changing files: known and right, or
 * unknown.
 */
static void lookups(void)
{
	pmInDom indom = pmInDom_build(DOMAIN, STEADY << 11 | SERIAL);
	pmID per = pmid(STEADY, 3);
	pmLabelSet *lp = NULL;
	pmInResult *in;
	pmdaResult *res;
	char name[16];
	pmDesc d;
	pmID id;
	int k, sts;

	assert_int_equal(dp.version.seven.instance(indom, PM_IN_NULL, NULL,
			&in, ext()), 0);
	assert_int_equal(in->numinst, 2);
	assert_string_equal(in->namelist[1], "two");
	__pmFreeInResult(in);
	assert_int_equal(dp.version.seven.label((int)indom, PM_LABEL_INSTANCES,
			&lp, ext()), 2);
	assert_int_equal(lp[1].inst, 2);
	assert_int_equal(lp[1].nlabels, 1);
	pmFreeLabelSets(lp, 2);
	assert_int_equal(dp.version.seven.fetch(1, &per, &res, ext()), 0);
	assert_int_equal(res->vset[0]->numval, 2);
	assert_int_equal(res->vset[0]->vlist[0].value.lval, 5);
	assert_int_equal(res->vset[0]->vlist[1].value.lval, 6);
	sdk_free_pmda_result_values(res);

	for (k = 0; k < NMOVING; k++) {
		snprintf(name, sizeof(name), "mmv.w%d.v", k);
		sts = dp.version.seven.pmid(name, &id, ext());
		if (sts == 0)
			assert_int_equal(id, pmid(MOVING + k, 0));
		else
			assert_int_equal(sts, PM_ERR_NAME);
		sts = dp.version.seven.desc(pmid(MOVING + k, 0), &d, ext());
		if (sts == 0)
			assert_int_equal(d.type, PM_TYPE_U64);
		else
			assert_int_equal(sts, PM_ERR_PMID);
	}
}

/* A file renamed in: the next request knows it and serves its value. */
static void check_renamed_in(void)
{
	pmdaResult *res;
	pmAtomValue a;
	pmID id;

	write_moving(0, 7);
	assert_int_equal(dp.version.seven.pmid("mmv.w0.v", &id, ext()), 0);
	assert_int_equal(dp.version.seven.fetch(1, &id, &res, ext()), 0);
	assert_int_equal(res->vset[0]->numval, 1);
	assert_int_equal(pmExtractValue(res->vset[0]->valfmt,
			&res->vset[0]->vlist[0], PM_TYPE_U64, &a, PM_TYPE_U64), 0);
	assert_true(a.ull == (uint64_t)MOVING * TAG + 7);
	sdk_free_pmda_result_values(res);
}

static void requests_while_files_change(void **state)
{
	long long start = now_ns(), t;
	pthread_t w;
	pmID p50;
	int i, seen = 0;

	(void)state;
	assert_int_equal(dp.version.seven.pmid("mmv.percentile.s.lat.p50", &p50,
			ext()), 0);
	assert_int_equal(pthread_create(&w, NULL, writer, NULL), 0);
	for (i = 0; ; i++) {
		t = now_ns() - start;
		if (t >= MAX_NS || (t >= RUN_NS && i >= MIN_EVENTS &&
		    __atomic_load_n(&writer_rounds, __ATOMIC_ACQUIRE) >= MIN_EVENTS))
			break;
		seen += request(p50);
		lookups();
		if (i % 16 == 0)
			store_reload();	/* the thread rescans meanwhile */
	}
	__atomic_store_n(&writer_stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(w, NULL), 0);
	/* each kind of event happened: a test of nothing proves nothing */
	assert_true(writer_rounds >= MIN_EVENTS);
	assert_true(i >= MIN_EVENTS);
	assert_true(seen > 0);
	check_renamed_in();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requests_while_files_change),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
