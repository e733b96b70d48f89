/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_contention.c - many threads updating one MMV counter (make
 * bench-contention).
 *
 * Ways of adding 1 to an MMV_TYPE_U64 value, each by T threads at once,
 * pinned one a CPU, CALLS calls a thread:
 *   mmv_inc_value      ours, mmv_inc_value(addr, v, 1.0)
 *   mmv_inc            ours, mmv_inc(addr, v)
 *   atomic             a bare relaxed __atomic_fetch_add on the value
 *   pcp_mmv_inc_value  Debian's libpcp_mmv (PCP_LIB, loaded with dlmopen
 *                      into a namespace of its own), mmv_inc_value
 *   counter            ours, mmv_counter_inc (<pcp/mmv_counter.h>)
 *   percpu             not offered: per-CPU slots chosen by sched_getcpu()
 *                      with an atomic add, the design it was weighed
 *                      against (private memory, summed at the end)
 * for T = 1, 2 and nproc threads on one value ("T"), and on neighbouring
 * values, one a thread ("T-adjacent": records 32 bytes apart, two to a
 * cache line, as a file lays out the instances of one metric).
 *
 * Output, one line a case:
 *   contention: WAY THREADS NS_PER_UPDATE LOST
 * NS_PER_UPDATE is the wall time from the first thread's start to the
 * last one's end divided by the calls of one thread (so T threads that do
 * not slow each other show their 1-thread cost), the median of REPS
 * runs; LOST is the most updates any run lost (T x CALLS minus the
 * value). Then one line for how long a reader waits for a counter's
 * update to reach the file (the folder's interval, default 10 ms):
 *   counter_lag: samples N median MS p99 MS max MS
 * from an update at a random point of the interval to the file holding
 * it, polled every 20 us. Files go to $PCP_TMP_DIR/mmv. Nothing is
 * asserted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcp/mmv_stats.h>
#include <pcp/mmv_counter.h>

#include "bench_util.h"

#ifndef PCP_LIB
#define PCP_LIB		"/usr/lib/libpcp_mmv.so.1"
#endif

#define REPS		5
#define MAX_THREADS	64

#define WAYS(X)				\
	X(MMV_INC_VALUE, "mmv_inc_value")	\
	X(MMV_INC, "mmv_inc")			\
	X(ATOMIC, "atomic")			\
	X(PCP_INC_VALUE, "pcp_mmv_inc_value")	\
	X(COUNTER, "counter")			\
	X(PERCPU, "percpu")

#define AS_ENUM(e, s) W_##e,
#define AS_NAME(e, s) s,
enum way { WAYS(AS_ENUM) NWAYS };
static const char *const way_name[] = { WAYS(AS_NAME) };

static void (*pcp_inc_value)(void *, pmAtomValue *, double);
static long calls = 5000000;
static long ncpu;

struct percpu_slot {
	uint64_t n;
} __attribute__((aligned(64)));
static struct percpu_slot *percpu;

struct worker {
	enum way way;
	void *addr;
	pmAtomValue *v;
	mmv_counter_t *c;
	int cpu;
	pthread_barrier_t *go;
	double t0, t1;
};

static void *work(void *p)
{
	struct worker *w = p;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu % ncpu, &set);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	pthread_barrier_wait(w->go);
	w->t0 = now_ns();
	switch (w->way) {
	case W_MMV_INC_VALUE:
		for (long i = 0; i < calls; i++)
			mmv_inc_value(w->addr, w->v, 1.0);
		break;
	case W_MMV_INC:
		for (long i = 0; i < calls; i++)
			mmv_inc(w->addr, w->v);
		break;
	case W_ATOMIC:
		for (long i = 0; i < calls; i++) {
			__atomic_fetch_add(&w->v->ull, 1, __ATOMIC_RELAXED);
			__asm__ __volatile__("" ::: "memory");
		}
		break;
	case W_PCP_INC_VALUE:
		for (long i = 0; i < calls; i++)
			pcp_inc_value(w->addr, w->v, 1.0);
		break;
	case W_COUNTER:
		for (long i = 0; i < calls; i++)
			mmv_counter_inc(w->c);
		break;
	case W_PERCPU:
		for (long i = 0; i < calls; i++) {
			int cpu = sched_getcpu();

			__atomic_fetch_add(&percpu[cpu < 0 ? 0 : cpu % ncpu].n, 1,
					   __ATOMIC_RELAXED);
		}
		break;
	default:
		break;
	}
	w->t1 = now_ns();
	return NULL;
}

/* One run: @t threads, each on value @v[i] (all the same, or adjacent). */
static void run(enum way way, void *addr, pmAtomValue **v, int t,
		double *ns, double *lost)
{
	struct worker w[MAX_THREADS];
	pthread_t tid[MAX_THREADS];
	pthread_barrier_t go;
	mmv_counter_t *c[MAX_THREADS] = { NULL };
	double t0 = 0, t1 = 0;
	uint64_t total = 0;

	for (int i = 0; i < t; i++) {
		v[i]->ull = 0;
		if (way == W_COUNTER && (i == 0 || v[i] != v[0]) &&
		    (c[i] = mmv_counter_open(addr, v[i])) == NULL) {
			perror("bench_contention: mmv_counter_open");
			exit(1);
		}
		if (way == W_COUNTER && c[i] == NULL)
			c[i] = c[0];
	}
	memset(percpu, 0, sizeof(*percpu) * (size_t)ncpu);
	pthread_barrier_init(&go, NULL, (unsigned)t);
	for (int i = 0; i < t; i++) {
		w[i] = (struct worker){ way, addr, v[i], c[i], i, &go, 0, 0 };
		pthread_create(&tid[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < t; i++) {
		pthread_join(tid[i], NULL);
		if (i == 0 || w[i].t0 < t0)
			t0 = w[i].t0;
		if (w[i].t1 > t1)
			t1 = w[i].t1;
	}
	pthread_barrier_destroy(&go);
	if (way == W_COUNTER) {
		mmv_counter_flush();
		for (int i = 0; i < t; i++)
			if (i == 0 || c[i] != c[0])
				mmv_counter_close(c[i]);
	}
	for (int i = 0; i < t; i++)
		if (i == 0 || v[i] != v[0])
			total += v[i]->ull;
	if (way == W_PERCPU)
		for (long i = 0; i < ncpu; i++)
			total += percpu[i].n;
	*ns = (t1 - t0) / (double)calls;
	*lost = (double)t * (double)calls - (double)total;
}

static void bench(enum way way, void *addr, pmAtomValue **v, int t, int adjacent)
{
	double ns[REPS], lost[REPS], worst = 0;

	if (way == W_PCP_INC_VALUE && pcp_inc_value == NULL) {
		printf("contention: %s %d%s na no-library\n", way_name[way], t,
		       adjacent ? "-adjacent" : "");
		return;
	}
	for (int r = 0; r < REPS; r++) {
		run(way, addr, v, t, &ns[r], &lost[r]);
		if (lost[r] > worst)
			worst = lost[r];
	}
	printf("contention: %s %d%s %.1f %.0f\n", way_name[way], t,
	       adjacent ? "-adjacent" : "", median(ns, REPS), worst);
	fflush(stdout);
}

/* How long an update takes to reach the file, over @n samples. */
static void lag(void *addr, pmAtomValue *v, int n)
{
	mmv_counter_t *c = mmv_counter_open(addr, v);
	double *ms = calloc((size_t)n, sizeof(*ms));
	struct timespec pause;

	if (c == NULL || ms == NULL) {
		perror("bench_contention: lag");
		exit(1);
	}
	srandom(1);
	for (int i = 0; i < n; i++) {
		uint64_t before = __atomic_load_n(&v->ull, __ATOMIC_RELAXED);
		double t0;

		pause = (struct timespec){ 0, random() % 10000000 };
		nanosleep(&pause, NULL);
		t0 = now_ns();
		mmv_counter_inc(c);
		while (__atomic_load_n(&v->ull, __ATOMIC_RELAXED) == before) {
			pause = (struct timespec){ 0, 20000 };
			nanosleep(&pause, NULL);
		}
		ms[i] = (now_ns() - t0) / 1e6;
	}
	qsort(ms, (size_t)n, sizeof(*ms), cmp_double);
	printf("counter_lag: samples %d median %.2f p99 %.2f max %.2f ms\n", n,
	       ms[n / 2], ms[n * 99 / 100], ms[n - 1]);
	mmv_counter_close(c);
	free(ms);
}

int main(int argc, char **argv)
{
	static const char *inst[MAX_THREADS];
	pmAtomValue *one[MAX_THREADS], *adj[MAX_THREADS];
	mmv_registry_t *reg;
	pmUnits none = { 0 };
	int counts[3], ncounts = 0;
	void *pcp, *addr;
	char (*names)[8];

	if (argc > 1)
		calls = atol(argv[1]);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > MAX_THREADS)
		ncpu = MAX_THREADS;
	if ((percpu = aligned_alloc(64, sizeof(*percpu) * (size_t)ncpu)) == NULL)
		return 1;
	pcp = dlmopen(LM_ID_NEWLM, PCP_LIB, RTLD_NOW | RTLD_LOCAL);
	if (pcp != NULL)
		*(void **)&pcp_inc_value = dlsym(pcp, "mmv_inc_value");
	else
		fprintf(stderr, "bench_contention: %s\n", dlerror());

	names = calloc(MAX_THREADS, sizeof(*names));
	reg = mmv_stats_registry("bench_contention", 0, 0);
	if (reg == NULL || names == NULL ||
	    mmv_stats_add_indom(reg, 1, "threads", NULL) != 0 ||
	    mmv_stats_add_metric(reg, "one", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
				 none, 0, NULL, NULL) != 0 ||
	    mmv_stats_add_metric(reg, "adjacent", 2, MMV_TYPE_U64, MMV_SEM_COUNTER,
				 none, 1, NULL, NULL) != 0) {
		perror("bench_contention: registry");
		return 1;
	}
	for (int i = 0; i < MAX_THREADS; i++) {
		snprintf(names[i], sizeof(names[i]), "t%d", i);
		inst[i] = names[i];
		if (mmv_stats_add_instance(reg, 1, i, inst[i]) != 0) {
			perror("bench_contention: instance");
			return 1;
		}
	}
	if ((addr = mmv_stats_start(reg)) == NULL) {
		perror("bench_contention: mmv_stats_start");
		return 1;
	}
	for (int i = 0; i < MAX_THREADS; i++) {
		one[i] = mmv_lookup_value_desc(addr, "one", NULL);
		adj[i] = mmv_lookup_value_desc(addr, "adjacent", inst[i]);
	}
	printf("contention: nproc %ld calls_per_thread %ld library %s\n",
	       ncpu, calls, pcp ? PCP_LIB : "none");
	counts[ncounts++] = 1;
	if (ncpu >= 2)
		counts[ncounts++] = 2;
	if (ncpu > 2)
		counts[ncounts++] = (int)ncpu;
	for (int k = 0; k < ncounts; k++)
		for (int w = 0; w < NWAYS; w++)
			bench((enum way)w, addr, one, counts[k], 0);
	for (int k = 1; k < ncounts; k++)
		for (int w = 0; w < NWAYS; w++)
			bench((enum way)w, addr, adj, counts[k], 1);
	lag(addr, one[0], 300);
	mmv_stats_free(reg);
	free(names);
	free(percpu);
	return 0;
}
