/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Concurrent updates lose nothing (docs/compatibility.md: atomic read-modify-write on
 * every type; 64-bit integer adds never go through double; mmv_inline.h).
 */
#include <dirent.h>
#include <pthread.h>

#include <pcp/mmv_inline.h>

#include "mmv_test.h"

#define NTHREADS	4
#define NINCS		200000

/* Each increment's integer part is exact; as a double sum it would round. */
#define BIG		((1ULL << 40) + 1)

enum { C_INC, C_INCV, C_INCV_I64, C_ADD_U64, C_ADD_I64, C_FAST_U64,
       C_FAST_DBL, C_INC_U32, C_INCV_DBL, NCOUNTERS };

static const struct {
	const char *name;
	int type;
} counters[NCOUNTERS] = {
	{ "inc", MMV_TYPE_U64 }, { "incv", MMV_TYPE_U64 },
	{ "incv_i64", MMV_TYPE_I64 }, { "add_u64", MMV_TYPE_U64 },
	{ "add_i64", MMV_TYPE_I64 }, { "fast_u64", MMV_TYPE_U64 },
	{ "fast_dbl", MMV_TYPE_DOUBLE }, { "inc_u32", MMV_TYPE_U32 },
	{ "incv_dbl", MMV_TYPE_DOUBLE },
};

struct shared {
	void *addr;
	pmAtomValue *v[NCOUNTERS];
};

struct job {
	struct shared *s;
	int which;
	pthread_barrier_t start;	/* all threads begin together */
};

static void *worker(void *arg)
{
	struct job *j = arg;
	struct shared *s = j->s;
	pmAtomValue *v = s->v[j->which];
	pmAtomValue big = { .ull = BIG }, neg = { .ll = -(int64_t)BIG };

	pthread_barrier_wait(&j->start);
	for (int i = 0; i < NINCS; i++) {
		switch (j->which) {
		case C_INC:
		case C_INC_U32:
			mmv_inc(s->addr, v);
			break;
		case C_INCV:
		case C_INCV_DBL:
			mmv_inc_value(s->addr, v, 1);
			break;
		case C_INCV_I64:
			mmv_inc_value(s->addr, v, -3);
			break;
		case C_ADD_U64:
			mmv_add(s->addr, v, &big);
			break;
		case C_ADD_I64:
			mmv_inc_atomvalue(s->addr, v, &neg);
			break;
		case C_FAST_U64:
			mmv_fast_add_u64(v, BIG);
			break;
		case C_FAST_DBL:
			mmv_fast_add_double(v, 0.5);
			break;
		}
	}
	return NULL;
}

static void run_counter(struct shared *s, int which)
{
	pthread_t t[NTHREADS];
	struct job j = { .s = s, .which = which };

	assert_int_equal(pthread_barrier_init(&j.start, NULL, NTHREADS), 0);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, &j), 0);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	pthread_barrier_destroy(&j.start);
}

static void concurrent_updates(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("threads", 0, 0);
	const uint64_t n = (uint64_t)NTHREADS * NINCS;
	struct shared s;

	(void)state;
	for (int i = 0; i < NCOUNTERS; i++)
		assert_int_equal(mmv_stats_add_metric(r, counters[i].name, i,
				(mmv_metric_type_t)counters[i].type,
				MMV_SEM_COUNTER, mt_count, 0, NULL, NULL), 0);
	s.addr = mmv_stats_start(r);
	assert_non_null(s.addr);
	for (int i = 0; i < NCOUNTERS; i++) {
		s.v[i] = mmv_lookup_value_desc(s.addr, counters[i].name, NULL);
		assert_non_null(s.v[i]);
	}
	for (int i = 0; i < NCOUNTERS; i++)
		run_counter(&s, i);
	assert_int_equal(s.v[C_INC]->ull, n);
	assert_int_equal(s.v[C_INC_U32]->ul, n);
	assert_int_equal(s.v[C_INCV]->ull, n);
	assert_true(s.v[C_INCV_DBL]->d == (double)n);
	assert_int_equal(s.v[C_INCV_I64]->ll, -3 * (int64_t)n);
	assert_int_equal(s.v[C_ADD_U64]->ull, n * BIG);
	assert_int_equal(s.v[C_ADD_I64]->ll, -(int64_t)(n * BIG));
	assert_int_equal(s.v[C_FAST_U64]->ull, n * BIG);
	assert_true(s.v[C_FAST_DBL]->d == 0.5 * (double)n);
	/* the totals are beyond 2^53: a double sum could not hold them */
	assert_true(n * BIG > (1ULL << 53));
	mmv_stats_free(r);
}

/* Many threads looking up and bumping values by name at once. */
struct name_job {
	void *addr;
	int id;
};

static void *name_worker(void *arg)
{
	struct name_job *j = arg;
	char inst[8];

	snprintf(inst, sizeof(inst), "i%d", j->id);
	for (int i = 0; i < 20000; i++) {
		mmv_stats_inc(j->addr, "m", inst);
		mmv_stats_inc(j->addr, "shared", NULL);
	}
	return NULL;
}

static void concurrent_by_name(void **state)
{
	mmv_registry_t *r = mmv_stats_registry("names", 0, 0);
	struct name_job jobs[NTHREADS];
	pthread_t t[NTHREADS];
	char inst[8];
	void *addr;

	(void)state;
	assert_int_equal(mmv_stats_add_indom(r, 1, NULL, NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(inst, sizeof(inst), "i%d", i);
		assert_int_equal(mmv_stats_add_instance(r, 1, i, inst), 0);
	}
	assert_int_equal(mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U32,
			MMV_SEM_COUNTER, mt_count, 1, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "shared", 2, MMV_TYPE_I64,
			MMV_SEM_COUNTER, mt_count, 0, NULL, NULL), 0);
	addr = mmv_stats_start(r);
	assert_non_null(addr);
	for (int i = 0; i < NTHREADS; i++) {
		jobs[i].addr = addr;
		jobs[i].id = i;
		assert_int_equal(pthread_create(&t[i], NULL, name_worker, &jobs[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(inst, sizeof(inst), "i%d", i);
		assert_int_equal(mmv_lookup_value_desc(addr, "m", inst)->ul, 20000);
	}
	assert_int_equal(mmv_lookup_value_desc(addr, "shared", NULL)->ll,
			 NTHREADS * 20000);
	mmv_stats_free(r);
}

/* Threads creating, updating and stopping their own files at once. */
static void *lifecycle_worker(void *arg)
{
	int id = *(int *)arg;
	char file[32];

	for (int i = 0; i < 40; i++) {
		mmv_registry_t *r;
		void *addr;

		snprintf(file, sizeof(file), "t%d.%d", id, i % 3);
		r = mmv_stats_registry(file, 0, i % 2 ? MMV_FLAG_PROCESS : 0);
		if (r == NULL)
			return (void *)1;
		if (mmv_stats_add_metric(r, "c", 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
				mt_count, 0, NULL, NULL) < 0 ||
		    (addr = mmv_stats_start(r)) == NULL) {
			mmv_stats_free(r);
			return (void *)2;
		}
		mmv_stats_add(addr, "c", NULL, id + 1);
		if (mmv_lookup_value_desc(addr, "c", NULL)->ull != (uint64_t)id + 1) {
			mmv_stats_free(r);
			return (void *)3;
		}
		mmv_stats_free(r);
	}
	return NULL;
}

static void concurrent_lifecycles(void **state)
{
	const struct mt *t = *state;
	pthread_t th[NTHREADS];
	int ids[NTHREADS];
	void *ret;
	struct stat st;
	char path[PATH_MAX];

	for (int i = 0; i < NTHREADS; i++) {
		ids[i] = i;
		assert_int_equal(pthread_create(&th[i], NULL, lifecycle_worker, &ids[i]), 0);
	}
	for (int i = 0; i < NTHREADS; i++) {
		assert_int_equal(pthread_join(th[i], &ret), 0);
		assert_null(ret);
	}
	/* last rounds: .0 at i = 39 and .1 at 37 had PROCESS, .2 at 38 not */
	for (int i = 0; i < NTHREADS; i++) {
		snprintf(path, sizeof(path), "%s/t%d.2", t->mmvdir, i);
		assert_int_equal(stat(path, &st), 0);
		assert_int_equal(st.st_mode & 0777, 0644);
		snprintf(path, sizeof(path), "%s/t%d.0", t->mmvdir, i);
		assert_int_equal(stat(path, &st), -1);
		snprintf(path, sizeof(path), "%s/t%d.1", t->mmvdir, i);
		assert_int_equal(stat(path, &st), -1);
	}
	/* no hidden temporary file is left behind */
	DIR *d = opendir(t->mmvdir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		assert_true(strncmp(e->d_name, ".mmv-", 5) != 0);
	closedir(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(concurrent_updates),
		MT_TEST(concurrent_by_name),
		MT_TEST(concurrent_lifecycles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
