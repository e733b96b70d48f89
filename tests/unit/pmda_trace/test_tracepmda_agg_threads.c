/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's aggregation (pmda_trace/core/agg_*.c) used by its
 * threads at once, as the agent does: two recorders (the listener's
 * reads, tra_agg_seq + tra_agg_record_in, and its segment batches,
 * tra_agg_merge_in) create tags and account reports, a reader fetches
 * as metrics.c does and another thread resets every few milliseconds,
 * for 1.2 s on the real clock. Every number read must be one the
 * recorders' known values can make, and a name keeps its instance number
 * across resets. Also built with -fsanitize=thread (tests/unit/build.mk):
 * a race TSan sees between the threads fails the run.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "../../lib/cmocka_compat.h"
#include <urcu.h>

#include "../../../pmda_trace/core/agg.h"
#include "sdk_tsan.h"

#define RUN_NS	1200000000LL	/* at least this long, */
#define MAX_NS	120000000000LL	/* and until each event's minimum, at most this */
#define MAX_TAGS 6	/* a type's tag cap: the fixed names fill it */
#define NFIXED	6
#define NNEW	4096	/* new names "n0".."n4095", now and then */
#define NSLOTS	(NFIXED + NNEW)
#define MAX_SEEN 256	/* instances one listing may see: far above the cap */

#ifdef SDK_TSAN
/*
 * liburcu's own hand-overs, which TSan cannot see: cds_lfht_add allocates
 * a resize work item the table's worker thread frees, rcu_barrier one
 * the call_rcu thread frees. Only the libraries' own calls of intercepted
 * functions (malloc, free) are ignored; the aggregation, its match callbacks
 * included, is still checked.
 */
const char *__tsan_default_suppressions(void)
{
	return "called_from_lib:liburcu-cds.so\ncalled_from_lib:liburcu.so\n";
}
#endif

static const char *const fixed[NFIXED] = { "get", "put", "scan", "sync", "open", "close" };

/* Every value recorded: exact binary fractions, so sums are exact too. */
static const double vals[] = { 0.25, 0.5, 1, 3, 12.5, 100, -2 };
#define NVALS 7	/* transactions take the first NVALS - 1 (positive) */

static const double pcts[] = { 50, 90, 99, 100 };
#define NPCTS 4

static struct trace_agg *agg;
static int stop;		/* atomic */
static unsigned nnew;		/* atomic: new names handed out */
static uint64_t issued;		/* atomic: reports about to be recorded */
static int inst_of[TRACE_NTYPES + 1][NSLOTS];	/* atomic: 0 unknown */

/* A thread's failures: counted, the first one kept for the main thread. */
static int failures;		/* atomic */
static char failure[200];

#define check(cond) do { if (!(cond)) failed(__LINE__, #cond); } while (0)

static void failed(int line, const char *what)
{
	if (__atomic_fetch_add(&failures, 1, __ATOMIC_RELAXED) == 0)
		snprintf(failure, sizeof(failure), "line %d: %s", line, what);
}

/* The counts: written by their worker only, read by the main thread meanwhile */
struct worker {
	uint64_t rng;
	long ok, nospace, rounds;
	long passes, windows, pct_ok, hist_ok, le_ok;	/* the reader's */
	uint64_t hist[TRACE_HIST_NBUCKETS];	/* a batch's */
	uint64_t cum[TRACE_HIST_LE_N];	/* cumulative buckets */
};

static void bump(long *count, long by)
{
	__atomic_store_n(count, __atomic_load_n(count, __ATOMIC_RELAXED) + by,
			 __ATOMIC_RELAXED);
}

static long seen(long *count)
{
	return __atomic_load_n(count, __ATOMIC_RELAXED);
}

static uint64_t next_rand(struct worker *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static int stopped(void)
{
	return __atomic_load_n(&stop, __ATOMIC_ACQUIRE);
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_ms(unsigned ms)
{
	struct timespec t = { 0, (long)ms * 1000000 };

	nanosleep(&t, NULL);
}

static double value_for(struct worker *w, int type)
{
	return vals[next_rand(w) % (type == TRACE_TRANSACT ? NVALS - 1 : NVALS)];
}

static int known_value(int type, double v)
{
	for (unsigned i = 0; i < (type == TRACE_TRANSACT ? NVALS - 1 : NVALS); i++)
		if (v == vals[i])
			return 1;
	return 0;
}

/* What a percentile may be: a value, or its bucket's midpoint. */
static int known_percentile(int type, double v)
{
	for (unsigned i = 0; i < NVALS; i++)
		if (v == trace_hist_value(trace_hist_index(vals[i])))
			return 1;
	return known_value(type, v);
}

static int known_index(uint32_t idx)
{
	for (unsigned i = 0; i < NVALS; i++)
		if (idx == trace_hist_index(vals[i]))
			return 1;
	return 0;
}

static void slot_name(unsigned slot, char *buf, size_t len)
{
	if (slot < NFIXED)
		snprintf(buf, len, "%s", fixed[slot]);
	else
		snprintf(buf, len, "n%u", slot - NFIXED);
}

/* The slot of a name the recorders wrote, or -1. */
static int slot_of(const char *name)
{
	char *end;
	unsigned long k;

	for (int i = 0; i < NFIXED; i++)
		if (strcmp(name, fixed[i]) == 0)
			return i;
	if (name[0] != 'n' || name[1] < '0' || name[1] > '9')
		return -1;
	k = strtoul(name + 1, &end, 10);
	if (*end != '\0' || k >= NNEW || k >= __atomic_load_n(&nnew, __ATOMIC_RELAXED))
		return -1;
	return NFIXED + (int)k;
}

/* A fixed name mostly, now and then one never used before. */
static unsigned pick_slot(struct worker *w)
{
	uint64_t r = next_rand(w);
	unsigned k;

	if (r % 128 == 0 && (k = __atomic_fetch_add(&nnew, 1, __ATOMIC_RELAXED)) < NNEW)
		return NFIXED + k;
	return (unsigned)(r >> 8) % NFIXED;
}

/* @inst is the one instance number of (@type, @slot) for good. */
static void check_inst(int type, int slot, int inst)
{
	int expect = 0;

	check(inst >= 1 && inst <= NSLOTS);
	if (!__atomic_compare_exchange_n(&inst_of[type][slot], &expect, inst, 0,
			__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		check(expect == inst);
}

/* A recorder's result: an instance, or the cap. */
static void note(struct worker *w, int type, int slot, int sts)
{
	if (sts > 0) {
		check_inst(type, slot, sts);
		bump(&w->ok, 1);
	} else {
		check(sts == -ENOSPC);
		bump(&w->nospace, 1);
	}
}

/* A client segment's batch of up to 5 reports (sometimes none). */
static void fill_batch(struct worker *w, int type, struct trace_batch *b)
{
	unsigned n = (unsigned)(next_rand(w) % 6);

	memset(b, 0, sizeof(*b));
	b->hist = type == TRACE_TRANSACT || type == TRACE_OBSERVE ? w->hist : NULL;
	for (unsigned i = 0; i < n; i++) {
		double v = value_for(w, type);

		if (i == 0 || v < b->min)
			b->min = v;
		if (i == 0 || v > b->max)
			b->max = v;
		b->sum += v;
		b->last = v;
		w->hist[trace_hist_index(v)]++;
	}
	b->count = n;
}

/* One report of @type for the name of @slot, read at @seq. */
static void record_one(struct worker *w, uint64_t seq, int type,
		unsigned slot, const char *name)
{
	__atomic_add_fetch(&issued, 1, __ATOMIC_RELAXED);
	note(w, type, (int)slot, tra_agg_record_in(agg, seq, type, name,
			strlen(name), value_for(w, type)));
}

/* A segment's batch of @type for the name of @slot, read at @seq. */
static void merge_one(struct worker *w, uint64_t seq, int type,
		unsigned slot, const char *name)
{
	struct trace_batch b;
	int sts;

	fill_batch(w, type, &b);
	__atomic_add_fetch(&issued, b.count, __ATOMIC_RELAXED);
	sts = tra_agg_merge_in(agg, seq, type, name, strlen(name), &b);
	for (unsigned v = 0; v < NVALS; v++)
		w->hist[trace_hist_index(vals[v])] = 0;
	if (b.count == 0 && sts == 0)
		return;		/* no reports and no tag: nothing made */
	note(w, type, (int)slot, sts);
}

/*
 * As the listener works: one clock read, then what came together (a
 * client's reports, or a segment's batches), each by @one.
 */
static void work(struct worker *w, void (*one)(struct worker *, uint64_t,
		int, unsigned, const char *))
{
	char name[16];

	rcu_register_thread();
	while (!stopped()) {
		uint64_t seq = tra_agg_seq(agg);
		unsigned n = 1 + (unsigned)(next_rand(w) % 4);

		for (unsigned i = 0; i < n; i++) {
			int type = 1 + (int)(next_rand(w) % TRACE_NTYPES);
			unsigned slot = pick_slot(w);

			slot_name(slot, name, sizeof(name));
			one(w, seq, type, slot, name);
		}
		bump(&w->rounds, 1);
	}
	rcu_unregister_thread();
}

static void *recorder(void *arg)
{
	work(arg, record_one);
	return NULL;
}

static void *merger(void *arg)
{
	work(arg, merge_one);
	return NULL;
}

/* An instance as metrics.c caches it (the name copied out). */
struct seen {
	int inst;
	char name[16];
};

struct listing {
	int type, n;
	struct seen set[MAX_SEEN];
};

static void collect(void *arg, int inst, const char *name)
{
	struct listing *l = arg;
	int slot = slot_of(name);

	check(slot >= 0);
	if (slot >= 0)
		check_inst(l->type, slot, inst);
	check(l->n < MAX_SEEN);
	if (l->n >= MAX_SEEN)
		return;
	l->set[l->n].inst = inst;
	snprintf(l->set[l->n].name, sizeof(l->set[l->n].name), "%s", name);
	l->n++;
}

/* One instance's numbers: what the known values can add up to. */
static void check_stats(int type, int inst, const struct trace_stats *s)
{
	double lo = type == TRACE_TRANSACT ? vals[0] : vals[NVALS - 1];
	double hi = vals[NVALS - 2];
	uint64_t most = __atomic_load_n(&issued, __ATOMIC_RELAXED);

	check(s->inst == inst);
	check(s->count <= most);
	check(s->wcount <= s->count);
	if (s->count == 0) {	/* made, not yet accounted */
		check(s->total == 0 && s->value == 0 && !s->in_window);
		return;
	}
	if (type == TRACE_TRANSACT)
		check(s->total >= s->count * lo && s->total <= s->count * hi);
	else
		check(s->total == 0);
	if (type == TRACE_OBSERVE || type == TRACE_COUNTER)
		check(known_value(type, s->value));
	else
		check(s->value == 0);
	if (!s->in_window)
		return;
	check(s->wcount >= 1);
	check(known_value(type, s->wmin) && known_value(type, s->wmax));
	check(s->wmin <= s->wmax);
	check(s->wsum >= s->wcount * lo && s->wsum <= s->wcount * hi);
}

/* A fetch of every metric of one instance, as metrics.c makes it. */
static void fetch(struct worker *w, int type, const struct seen *i)
{
	struct trace_stats s;
	double out[NPCTS];
	uint64_t n = 0;
	int sts;

	sts = tra_agg_get(agg, type, i->inst, &s);
	check(sts == 0 || sts == -ENOENT);
	if (sts == 0) {
		check_stats(type, i->inst, &s);
		bump(&w->windows, s.in_window);
	}
	sts = tra_agg_lookup(agg, type, i->name);
	check(sts == i->inst || sts == -ENOENT);
	if (type != TRACE_TRANSACT && type != TRACE_OBSERVE)
		return;
	sts = tra_agg_percentiles(agg, type, i->inst, pcts, NPCTS, out);
	check(sts == 0 || sts == -ENODATA || sts == -ENOENT);
	for (unsigned k = 0; sts == 0 && k < NPCTS; k++)
		check(known_percentile(type, out[k]));
	bump(&w->pct_ok, sts == 0);
	sts = tra_agg_window_hist(agg, type, i->inst, w->hist);
	check(sts >= 0 || sts == -ENOENT);
	for (uint32_t k = 0; k < TRACE_HIST_NBUCKETS; k++) {
		check(w->hist[k] == 0 || known_index(k));
		n += w->hist[k];
	}
	check(sts < 0 ? n == 0 : n == (uint64_t)sts);
	check(n <= __atomic_load_n(&issued, __ATOMIC_RELAXED));
	bump(&w->hist_ok, sts > 0);
	/* the cumulative buckets: never decreasing, nothing past the span */
	{
		unsigned first = 0, last = 0;

		sts = tra_agg_le(agg, type, i->inst, w->cum, &first, &last);
		check(sts == 0 || sts == -ENODATA || sts == -ENOENT);
		for (uint32_t k = 1; sts == 0 && k < TRACE_HIST_LE_N; k++)
			check(w->cum[k] >= w->cum[k - 1]);
		if (sts == 0) {
			check(first <= last && last < TRACE_HIST_LE_N);
			check(w->cum[last] == w->cum[TRACE_HIST_LE_N - 1]);
			check(w->cum[TRACE_HIST_LE_N - 1] <=
			      __atomic_load_n(&issued, __ATOMIC_RELAXED));
		}
		bump(&w->le_ok, sts == 0);
	}
}

/* metrics.c on a fetch: instances relisted when the generation moved. */
static void *reader(void *arg)
{
	static struct listing list[TRACE_NTYPES + 1];
	struct worker *w = arg;
	uint64_t seen = UINT64_MAX;

	rcu_register_thread();
	while (!stopped()) {
		uint64_t gen = tra_agg_generation(agg);

		for (int t = 1; t <= TRACE_NTYPES; t++) {
			if (gen != seen) {
				list[t].type = t;
				list[t].n = 0;
				check(tra_agg_instances(agg, t, collect, &list[t]) == list[t].n);
			}
			for (int i = 0; i < list[t].n; i++)
				fetch(w, t, &list[t].set[i]);
		}
		seen = gen;
		bump(&w->passes, 1);
	}
	rcu_unregister_thread();
	return NULL;
}

/* pmstore trace.control.reset, every 2 to 8 ms. */
static void *resetter(void *arg)
{
	struct worker *w = arg;

	rcu_register_thread();
	while (!stopped()) {
		sleep_ms(2 + (unsigned)(next_rand(w) % 7));
		tra_agg_reset(agg);
		bump(&w->rounds, 1);
	}
	rcu_unregister_thread();
	return NULL;
}

/* After a reset each fixed name comes back with its number. */
static void check_remembered(void)
{
	char used[NSLOTS + 1];

	tra_agg_reset(agg);
	for (int t = 1; t <= TRACE_NTYPES; t++) {
		memset(used, 0, sizeof(used));
		for (int s = 0; s < NSLOTS; s++) {
			int inst = inst_of[t][s];

			if (inst == 0)
				continue;
			assert_uint_in_range(inst, 1, NSLOTS);
			assert_int_equal(used[inst], 0);	/* one name, one number */
			used[inst] = 1;
		}
		for (int s = 0; s < NFIXED; s++) {
			assert_true(inst_of[t][s] > 0);
			assert_int_equal(tra_agg_lookup(agg, t, fixed[s]), -ENOENT);
			assert_int_equal(tra_agg_record(agg, t, fixed[s], strlen(fixed[s]),
					vals[0]), inst_of[t][s]);
		}
	}
}

/* Each kind of event happened often enough: a test of nothing proves nothing */
static bool enough(struct worker *rec, struct worker *mrg, struct worker *rd,
		   struct worker *rst)
{
	return seen(&rec->ok) >= 100 && seen(&mrg->ok) >= 100 &&
	       seen(&rec->nospace) + seen(&mrg->nospace) >= 1 &&
	       __atomic_load_n(&nnew, __ATOMIC_RELAXED) >= 10 &&
	       seen(&rd->passes) >= 100 && seen(&rd->windows) >= 10 &&
	       seen(&rd->pct_ok) >= 10 && seen(&rd->hist_ok) >= 10 &&
	       seen(&rd->le_ok) >= 10 && seen(&rst->rounds) >= 10;
}

static void agg_under_threads(void **state)
{
	static struct worker rec = { .rng = 88172645463325252ULL };
	static struct worker mrg = { .rng = 0x9e3779b97f4a7c15ULL };
	static struct worker rd = { .rng = 0x2545f4914f6cdd1dULL };
	static struct worker rst = { .rng = 0x853c49e6748fea9bULL };
	pthread_t th[4];
	long long start, t;

	(void)state;
	rcu_register_thread();	/* as main.c does before tra_agg_new */
	/* 2 ms sub-intervals: resets every 2-8 ms leave some windows full */
	assert_non_null(agg = tra_agg_new(1, 500, MAX_TAGS, NULL, NULL));
	start = now_ns();
	assert_int_equal(pthread_create(&th[0], NULL, recorder, &rec), 0);
	assert_int_equal(pthread_create(&th[1], NULL, merger, &mrg), 0);
	assert_int_equal(pthread_create(&th[2], NULL, reader, &rd), 0);
	assert_int_equal(pthread_create(&th[3], NULL, resetter, &rst), 0);
	while ((t = now_ns() - start) < MAX_NS &&
	       (t < RUN_NS || !enough(&rec, &mrg, &rd, &rst)))
		sleep_ms(10);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	printf("# records %ld (cap %ld), merges %ld (cap %ld), new names %u, "
	       "reader passes %ld (windows %ld, percentiles %ld, histograms %ld, "
	       "cumulative %ld), resets %ld\n", rec.ok, rec.nospace, mrg.ok, mrg.nospace,
	       nnew < NNEW ? nnew : NNEW, rd.passes, rd.windows,
	       rd.pct_ok, rd.hist_ok, rd.le_ok, rst.rounds);
	if (failures)
		fail_msg("%d failed checks, the first %s", failures, failure);
	/* as enough(), one by one for the message */
	assert_true(rec.ok >= 100 && mrg.ok >= 100);
	assert_true(rec.nospace + mrg.nospace >= 1);
	assert_true(nnew >= 10);
	assert_true(rd.passes >= 100);
	assert_true(rd.windows >= 10 && rd.pct_ok >= 10 && rd.hist_ok >= 10 && rd.le_ok >= 10);
	assert_true(rst.rounds >= 10);
	check_remembered();
	tra_agg_free(agg);
	rcu_unregister_thread();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(agg_under_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
