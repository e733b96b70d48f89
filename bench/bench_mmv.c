/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mmv.c - head-to-head benchmark of libpcp_mmv implementations.
 *
 * One source, built twice: against PCP's <pcp/mmv_stats.h> and
 * /usr/lib/libpcp_mmv.so.1 (bench_mmv_pcp), and against ours with -DOURS
 * (bench_mmv_ours), which adds the inline fast-path cases of
 * <pcp/mmv_inline.h>. Files go to $PCP_TMP_DIR/mmv (set by run-bench.sh).
 *
 * Output: one line per figure, "key value unit", or "key na reason" when
 * a case cannot run with this library. Nothing is asserted: it reports.
 *
 * Method: each case is a loop over n calls; n is calibrated so that one
 * repetition takes about TARGET_NS, then REPS repetitions are timed with
 * CLOCK_MONOTONIC and the median ns per call is printed. Library calls are
 * opaque to the compiler; lookups store their result in a volatile sink
 * and the plain-C baselines keep a compiler barrier in the loop, so no
 * loop is optimised away or collapsed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>

#include "bench_util.h"
#ifdef OURS
#include <pcp/mmv_inline.h>
#endif

#define REPS		9
#define TARGET_NS	25e6	/* one timed repetition: ~25 ms */
#define START_RUNS	5	/* mmv_stats_start timings averaged */
#define MT_CALLS	4000000	/* calls per thread, two-thread case */
#define MT_REPS		5

#define barrier()	__asm__ __volatile__("" ::: "memory")

static void *volatile sink;

/* ------------------------------------------------------------------ */
/* Timing harness                                                      */
/* ------------------------------------------------------------------ */

struct ctx {
	void *addr;
	pmAtomValue *h;
	const char *metric;
	const char *inst;
};

typedef void (*loop_fn)(const struct ctx *c, long n);

struct call {
	loop_fn fn;
	const struct ctx *c;
};

static void run_call(const void *arg, long n)
{
	const struct call *k = arg;

	k->fn(k->c, n);
}

/* Median ns per call of fn over REPS repetitions of a calibrated n. */
static double measure(loop_fn fn, const struct ctx *c)
{
	struct call k = { fn, c };

	return bench_median_ns(run_call, &k, REPS, TARGET_NS);
}

static void report(const char *key, double v, const char *unit)
{
	printf("%s %.3f %s\n", key, v, unit);
	fflush(stdout);
}

static void report_na(const char *key, const char *why)
{
	printf("%s na %s\n", key, why);
	fflush(stdout);
}

/* ------------------------------------------------------------------ */
/* Loops                                                               */
/* ------------------------------------------------------------------ */

static void loop_inc_value(const struct ctx *c, long n)
{
	void *addr = c->addr;
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++)
		mmv_inc_value(addr, h, 1.0);
}

static void loop_inc(const struct ctx *c, long n)
{
	void *addr = c->addr;
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++)
		mmv_inc(addr, h);
}

static void loop_set_value(const struct ctx *c, long n)
{
	void *addr = c->addr;
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++)
		mmv_set_value(addr, h, (double)i);
}

/* Plain C, no library: what "+=" and "=" cost on the same memory. */
static void loop_plain_add(const struct ctx *c, long n)
{
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++) {
		h->ull += 1;
		barrier();
	}
}

static void loop_plain_store_double(const struct ctx *c, long n)
{
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++) {
		h->d = (double)i;
		barrier();
	}
}

#ifdef OURS
static void loop_fast_add_u64(const struct ctx *c, long n)
{
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++)
		mmv_fast_add_u64(h, 1);
}

static void loop_fast_set_double(const struct ctx *c, long n)
{
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++)
		mmv_fast_set_double(h, (double)i);
}
#endif

static void loop_elapsed_pair(const struct ctx *c, long n)
{
	void *addr = c->addr;
	pmAtomValue *h = c->h;

	for (long i = 0; i < n; i++) {
		mmv_stats_interval_start(addr, h, NULL, NULL);
		mmv_stats_interval_end(addr, h);
	}
}

/* The clock reads alone: PCP 6 uses gettimeofday, ours clock_gettime. */
static void loop_clock_pair(const struct ctx *c, long n)
{
	struct timeval tv;

	(void)c;
	for (long i = 0; i < n; i++) {
		gettimeofday(&tv, NULL);
		gettimeofday(&tv, NULL);
		barrier();
	}
}

static void loop_lookup(const struct ctx *c, long n)
{
	for (long i = 0; i < n; i++)
		sink = mmv_lookup_value_desc(c->addr, c->metric, c->inst);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

static char tmpdir[4096];

static void remove_file(const char *file)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/mmv/%s", tmpdir, file);
	unlink(path);
}

static const char *errname(int e)
{
	switch (e) {
	case EEXIST: return "EEXIST";
	case EINVAL: return "EINVAL";
	case ENOMEM: return "ENOMEM";
	case ENOENT: return "ENOENT";
	case E2BIG: return "E2BIG";
	default: return "error";
	}
}

/*
 * A registry for @file: @nmetrics metrics named m00000.. (items
 * i & 1023, as items are 10-bit), singular when @ninst is 0, else each
 * over one indom of @ninst instances i00000..; with @help, every metric
 * has a one-line and a long help text (each takes a 256-byte string slot
 * in the file). PCP's registry keeps the caller's strings until start, so
 * @names / @inames must outlive it.
 * Returns NULL with errno set if a call refuses.
 */
static mmv_registry_t *make_registry(const char *file, int nmetrics,
		int ninst, int help, char (*names)[16], char (*inames)[16])
{
	mmv_registry_t *reg = mmv_stats_registry(file, 0, 0);
	pmUnits none = {0};
	int serial = ninst > 0 ? 1 : 0;

	if (reg == NULL)
		return NULL;
	if (ninst > 0) {
		if (mmv_stats_add_indom(reg, 1, "bench indom", NULL) != 0)
			goto fail;
		for (int k = 0; k < ninst; k++) {
			snprintf(inames[k], 16, "i%05d", k);
			/* PCP 6 returns -1 even on success: not checked */
			mmv_stats_add_instance(reg, 1, k, inames[k]);
		}
	}
	for (int i = 0; i < nmetrics; i++) {
		snprintf(names[i], 16, "m%05d", i);
		if (mmv_stats_add_metric(reg, names[i], i & 1023,
				MMV_TYPE_U64, MMV_SEM_COUNTER, none, serial,
				help ? "Units made by the bench line." : NULL,
				help ? "Number of units made since start, "
				"counted by the bench line." : NULL) != 0)
			goto fail;
	}
	return reg;
fail:
	{
		int e = errno;

		mmv_stats_free(reg);
		errno = e;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Cases                                                               */
/* ------------------------------------------------------------------ */

static void bench_updates(void)
{
	mmv_registry_t *reg = mmv_stats_registry("bench_ops", 0, 0);
	pmUnits none = {0};
	struct ctx c = {0};
	pmAtomValue *hu, *hd, *he;
	double pcp_like;

	if (reg == NULL ||
	    mmv_stats_add_metric(reg, "u64", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
			none, 0, NULL, NULL) != 0 ||
	    mmv_stats_add_metric(reg, "dbl", 2, MMV_TYPE_DOUBLE,
			MMV_SEM_INSTANT, none, 0, NULL, NULL) != 0 ||
	    mmv_stats_add_metric(reg, "elapsed", 3, MMV_TYPE_ELAPSED,
			MMV_SEM_COUNTER, none, 0, NULL, NULL) != 0 ||
	    (c.addr = mmv_stats_start(reg)) == NULL) {
		fprintf(stderr, "bench_ops: %s\n", strerror(errno));
		exit(1);
	}
	hu = mmv_lookup_value_desc(c.addr, "u64", NULL);
	hd = mmv_lookup_value_desc(c.addr, "dbl", NULL);
	he = mmv_lookup_value_desc(c.addr, "elapsed", NULL);
	if (hu == NULL || hd == NULL || he == NULL) {
		fprintf(stderr, "bench_ops: lookup failed\n");
		exit(1);
	}

	c.h = hu;
	pcp_like = measure(loop_inc_value, &c);
	report("inc_value_u64", pcp_like, "ns");
	report("inc_u64", measure(loop_inc, &c), "ns");
	report("set_value_u64", measure(loop_set_value, &c), "ns");
	report("plain_add_u64", measure(loop_plain_add, &c), "ns");
#ifdef OURS
	report("fast_add_u64", measure(loop_fast_add_u64, &c), "ns");
#else
	report_na("fast_add_u64", "no-inline-API");
#endif
	c.h = hd;
	report("set_value_double", measure(loop_set_value, &c), "ns");
	report("plain_store_double", measure(loop_plain_store_double, &c), "ns");
#ifdef OURS
	report("fast_set_double", measure(loop_fast_set_double, &c), "ns");
#else
	report_na("fast_set_double", "no-inline-API");
#endif
	c.h = he;
	report("elapsed_pair", measure(loop_elapsed_pair, &c), "ns");
	report("clock_pair", measure(loop_clock_pair, &c), "ns");

	mmv_stats_free(reg);
	remove_file("bench_ops");
}

static void bench_lookup(const char *key, int nmetrics, int ninst)
{
	char (*names)[16] = calloc(nmetrics, 16);
	char (*inames)[16] = calloc(ninst > 0 ? ninst : 1, 16);
	char file[64];
	mmv_registry_t *reg;
	struct ctx c = {0};

	snprintf(file, sizeof(file), "bench_%s", key);
	reg = make_registry(file, nmetrics, ninst, 0, names, inames);
	if (reg == NULL || (c.addr = mmv_stats_start(reg)) == NULL) {
		report_na(key, errname(errno));
		goto out;
	}
	c.metric = names[nmetrics / 2];
	c.inst = ninst > 0 ? inames[ninst / 2] : NULL;
	if (mmv_lookup_value_desc(c.addr, c.metric, c.inst) == NULL) {
		report_na(key, "lookup-failed");
		goto out;
	}
	report(key, measure(loop_lookup, &c), "ns");
out:
	if (reg != NULL)	/* PCP's mmv_stats_free crashes on NULL */
		mmv_stats_free(reg);
	remove_file(file);
	free(names);
	free(inames);
}

/*
 * Mean time of mmv_stats_start alone over START_RUNS fresh registries,
 * metrics with help text; the file removed before each run, or with
 * @replace left from the run before (an application restarting).
 */
static void bench_start(const char *key, int nmetrics, int ninst, int replace)
{
	char (*names)[16] = calloc(nmetrics, 16);
	char (*inames)[16] = calloc(ninst > 0 ? ninst : 1, 16);
	char file[64], mkey[80];
	double sum = 0, best = 1e30;

	snprintf(file, sizeof(file), "bench_%s", key);
	remove_file(file);
	for (int r = replace ? -1 : 0; r < START_RUNS; r++) {
		mmv_registry_t *reg;
		double t0, t;
		void *addr;

		if (!replace)
			remove_file(file);
		reg = make_registry(file, nmetrics, ninst, 1, names, inames);
		if (reg == NULL) {
			report_na(key, errname(errno));
			goto out;
		}
		t0 = now_ns();
		addr = mmv_stats_start(reg);
		t = now_ns() - t0;
		if (addr == NULL) {
			report_na(key, errname(errno));
			mmv_stats_free(reg);
			goto out;
		}
		mmv_stats_free(reg);
		if (r < 0)
			continue;	/* the untimed run that leaves a file behind */
		sum += t;
		if (t < best)
			best = t;
	}
	report(key, sum / START_RUNS / 1e6, "ms");
	snprintf(mkey, sizeof(mkey), "%s_min", key);
	report(mkey, best / 1e6, "ms");
out:
	remove_file(file);
	free(names);
	free(inames);
}

/* Two threads, one counter. */
struct mt_arg {
	void *addr;
	pmAtomValue *h;
	int fast;
	int cpu;
	pthread_barrier_t *go;
	double t0, t1;
};

static void *mt_worker(void *p)
{
	struct mt_arg *a = p;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	/* one thread per CPU, so that they really run at the same time */
	if (ncpu >= 2) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(a->cpu % ncpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(a->go);
	a->t0 = now_ns();
#ifdef OURS
	if (a->fast) {
		for (long i = 0; i < MT_CALLS; i++)
			mmv_fast_add_u64(a->h, 1);
	} else
#endif
	for (long i = 0; i < MT_CALLS; i++)
		mmv_inc_value(a->addr, a->h, 1.0);
	a->t1 = now_ns();
	return NULL;
}

static void bench_threads(const char *key, int fast)
{
	mmv_registry_t *reg = mmv_stats_registry("bench_mt", 0, 0);
	pmUnits none = {0};
	double ns[MT_REPS], lost[MT_REPS];
	void *addr;
	pmAtomValue *h;
	char k[80];

	if (reg == NULL ||
	    mmv_stats_add_metric(reg, "counter", 1, MMV_TYPE_U64,
			MMV_SEM_COUNTER, none, 0, NULL, NULL) != 0 ||
	    (addr = mmv_stats_start(reg)) == NULL ||
	    (h = mmv_lookup_value_desc(addr, "counter", NULL)) == NULL) {
		fprintf(stderr, "bench_mt: %s\n", strerror(errno));
		exit(1);
	}
	for (int r = 0; r < MT_REPS; r++) {
		pthread_barrier_t go;
		pthread_t tid[2];
		struct mt_arg a[2];
		double t0, t1;

		h->ull = 0;
		pthread_barrier_init(&go, NULL, 2);
		for (int i = 0; i < 2; i++) {
			a[i] = (struct mt_arg){ addr, h, fast, i, &go, 0, 0 };
			pthread_create(&tid[i], NULL, mt_worker, &a[i]);
		}
		for (int i = 0; i < 2; i++)
			pthread_join(tid[i], NULL);
		pthread_barrier_destroy(&go);
		t0 = a[0].t0 < a[1].t0 ? a[0].t0 : a[1].t0;
		t1 = a[0].t1 > a[1].t1 ? a[0].t1 : a[1].t1;
		ns[r] = (t1 - t0) / MT_CALLS;
		lost[r] = 2.0 * MT_CALLS - (double)h->ull;
	}
	snprintf(k, sizeof(k), "%s_ns", key);
	report(k, median(ns, MT_REPS), "ns");
	snprintf(k, sizeof(k), "%s_lost", key);
	report(k, median(lost, MT_REPS), "updates");
	snprintf(k, sizeof(k), "%s_lost_pct", key);
	report(k, 100.0 * median(lost, MT_REPS) / (2.0 * MT_CALLS), "%");
	/* median() sorted lost[]: the spread shows how much the threads overlapped */
	snprintf(k, sizeof(k), "%s_lost_pct_min", key);
	report(k, 100.0 * lost[0] / (2.0 * MT_CALLS), "%");
	snprintf(k, sizeof(k), "%s_lost_pct_max", key);
	report(k, 100.0 * lost[MT_REPS - 1] / (2.0 * MT_CALLS), "%");
	mmv_stats_free(reg);
	remove_file("bench_mt");
}

int main(void)
{
	const char *t = getenv("PCP_TMP_DIR");
	Dl_info info;

	if (t == NULL || *t == '\0') {
		fprintf(stderr, "bench_mmv: set PCP_TMP_DIR (with an mmv/ subdirectory)\n");
		return 2;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s", t);
	if (dladdr((void *)mmv_inc_value, &info) != 0 && info.dli_fname)
		printf("library %s path\n", info.dli_fname);
	printf("nproc %ld cpus\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("mt_calls_per_thread %d calls\n", MT_CALLS);

	bench_updates();

	bench_lookup("lookup_10", 10, 0);
	bench_lookup("lookup_1000", 1000, 0);
	bench_lookup("lookup_10000_singular", 10000, 0);
	bench_lookup("lookup_10000_values", 100, 100);

	bench_start("start_1000", 1000, 0, 0);
	bench_start("start_1000_replace", 1000, 0, 1);
	bench_start("start_10000_singular", 10000, 0, 0);
	bench_start("start_10000_values", 100, 100, 0);
	bench_start("start_10000_values_replace", 100, 100, 1);

	bench_threads("mt2_inc_value", 0);
#ifdef OURS
	bench_threads("mt2_fast_add_u64", 1);
#else
	report_na("mt2_fast_add_u64_ns", "no-inline-API");
	report_na("mt2_fast_add_u64_lost", "no-inline-API");
#endif
	return 0;
}
