/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Contention-free counters (include/pcp/mmv_counter.h): per-thread slots
 * folded into the file's value. What every case checks follows from the
 * header: N threads of M increments make exactly N * M once the threads
 * have exited (each exit folds) or once mmv_counter_flush returns after
 * they synchronised with the caller; a fork, a stop, a close or an id
 * reused neither loses nor counts twice; only integer values of files
 * this process created are taken.
 *
 * Several cases first quieten the folding thread (quiet_folder): an
 * interval of a minute, and the one fold that its change makes seen
 * done, so that the thread does not fold during the case. What makes
 * their values exact is then the exit, flush, close or stop under test,
 * not the timer, and they can check that nothing was folded before it.
 */
#include <pthread.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include <pcp/mmv_counter.h>

#include "mmv_test.h"

#define NTHREADS	4
#define NINCS		200000
#define LONG_MS		60000		/* the longest interval: no timed fold */

/* fork() in a threaded process: ThreadSanitizer stops a child that
 * starts a thread (the folder) unless told it may */
#if defined(__SANITIZE_THREAD__)
#define TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TSAN 1
#endif
#endif
#ifdef TSAN
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
	return "die_after_fork=0";
}
#endif

/* A file of metrics m0, m1, ... of the given types, no indom. */
struct cfile {
	mmv_registry_t *r;
	void *addr;
};

static void cf_start(struct cfile *f, const char *name, mmv_stats_flags_t flags,
		const mmv_metric_type_t *types, int n)
{
	char m[16];

	f->r = mmv_stats_registry(name, 0, flags);
	assert_non_null(f->r);
	for (int i = 0; i < n; i++) {
		snprintf(m, sizeof(m), "m%d", i);
		assert_int_equal(mmv_stats_add_metric(f->r, m, i + 1, types[i],
				types[i] == MMV_TYPE_STRING ? MMV_SEM_INSTANT : MMV_SEM_COUNTER,
				mt_count, 0, NULL, NULL), 0);
	}
	f->addr = mmv_stats_start(f->r);
	assert_non_null(f->addr);
}

static pmAtomValue *cf_val(struct cfile *f, int i)
{
	pmAtomValue *v;
	char m[16];

	snprintf(m, sizeof(m), "m%d", i);
	v = mmv_lookup_value_desc(f->addr, m, NULL);
	assert_non_null(v);
	return v;
}

/* The folding thread may be adding to the value while the test reads. */
static uint64_t ld64(const pmAtomValue *v)
{
	return __atomic_load_n(&v->ull, __ATOMIC_RELAXED);
}

static uint32_t ld32(const pmAtomValue *v)
{
	return __atomic_load_n(&v->ul, __ATOMIC_RELAXED);
}

static const mmv_metric_type_t one_u64[] = { MMV_TYPE_U64 };

/* A file @name of one U64 counter, its value in *@v, and a counter on it. */
static mmv_counter_t *cf_counter(struct cfile *f, const char *name, pmAtomValue **v)
{
	mmv_counter_t *c;

	cf_start(f, name, 0, one_u64, 1);
	*v = cf_val(f, 0);
	c = mmv_counter_open(f->addr, *v);
	assert_non_null(c);
	return c;
}

/*
 * Worker threads: each adds @step to @c @m times; with @hold, they wait at
 * @done (all added), then at @go, then add @after and exit.
 */
struct crew {
	mmv_counter_t *c;
	long m;
	uint64_t step;
	int hold;
	uint64_t after;
	pthread_barrier_t start, done, go;
	pthread_t th[NTHREADS];
};

static void *adder(void *arg)
{
	struct crew *w = arg;

	pthread_barrier_wait(&w->start);
	for (long i = 0; i < w->m; i++) {
		if (w->step == 1)
			mmv_counter_inc(w->c);
		else
			mmv_counter_add(w->c, w->step);
	}
	if (w->hold) {
		pthread_barrier_wait(&w->done);
		pthread_barrier_wait(&w->go);
		mmv_counter_add(w->c, w->after);
	}
	return NULL;
}

static void crew_start(struct crew *w, int n)
{
	assert_int_equal(pthread_barrier_init(&w->start, NULL, (unsigned)n), 0);
	assert_int_equal(pthread_barrier_init(&w->done, NULL, (unsigned)n + 1), 0);
	assert_int_equal(pthread_barrier_init(&w->go, NULL, (unsigned)n + 1), 0);
	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_create(&w->th[i], NULL, adder, w), 0);
}

static void crew_join(struct crew *w, int n)
{
	for (int i = 0; i < n; i++)
		assert_int_equal(pthread_join(w->th[i], NULL), 0);
	pthread_barrier_destroy(&w->start);
	pthread_barrier_destroy(&w->done);
	pthread_barrier_destroy(&w->go);
}

static void wait_value(const pmAtomValue *v, uint64_t want)
{
	struct timespec nap = { 0, 100000 };

	for (int i = 0; i < 50000 && ld64(v) != want; i++)
		nanosleep(&nap, NULL);
	assert_int_equal(ld64(v), want);
}

/*
 * The interval set to a minute, and no fold pending. A change of
 * interval wakes the folding thread, which folds once and waits for the
 * new interval (a thread just started waits first). So: a probe folded
 * at 1 ms shows the thread in its loop; a probe added between two
 * changes to a minute shows the fold after them done (whichever of the
 * two woke it); a fold the first change woke may still be taking the
 * lock after that, which it does at once: 100 ms is ample.
 */
static void quiet_folder(void)
{
	struct timespec settle = { 0, 100000000 };
	struct cfile p;
	mmv_counter_t *c;
	pmAtomValue *v;

	cf_start(&p, "probe", 0, one_u64, 1);
	v = cf_val(&p, 0);
	c = mmv_counter_open(p.addr, v);
	assert_non_null(c);
	assert_int_equal(mmv_counter_set_interval(1), 0);
	mmv_counter_inc(c);
	wait_value(v, 1);
	assert_int_equal(mmv_counter_set_interval(LONG_MS), 0);
	mmv_counter_inc(c);
	assert_int_equal(mmv_counter_set_interval(LONG_MS), 0);
	wait_value(v, 2);
	nanosleep(&settle, NULL);
	mmv_counter_close(c);
	mmv_stats_free(p.r);
}

/* Each case starts at the default interval and ends with no fallback. */
static int ct_setup(void **state)
{
	if (mmv_counter_set_interval(10) != 0)
		return -1;
	return mt_setup(state);
}

static int ct_teardown(void **state)
{
	(void)mmv_counter_set_interval(10);
	return mt_teardown(state);
}

#define CT_TEST(f) cmocka_unit_test_setup_teardown(f, ct_setup, ct_teardown)

static void no_fallbacks(void)
{
	assert_int_equal(mmv_counter_fallbacks(), 0);
}

/* (a) N threads of M increments, joined: each exit folds its slot. */
static void joined_threads_exact(void **state)
{
	const uint64_t want = (uint64_t)NTHREADS * NINCS;
	struct crew w = { .m = NINCS, .step = 1 };
	struct cfile f;
	pmAtomValue *v;

	(void)state;
	w.c = cf_counter(&f, "joined", &v);
	quiet_folder();
	crew_start(&w, NTHREADS);
	crew_join(&w, NTHREADS);
	assert_int_equal(ld64(v), want);
	mmv_counter_flush();
	assert_int_equal(ld64(v), want);
	mmv_counter_close(w.c);
	assert_int_equal(ld64(v), want);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/* (b) Threads still alive: once they passed a barrier, a flush is exact. */
static void running_threads_flush(void **state)
{
	const uint64_t want = (uint64_t)NTHREADS * NINCS * 3;
	struct crew w = { .m = NINCS, .step = 3, .hold = 1 };
	struct cfile f;
	pmAtomValue *v;
	uint64_t before;

	(void)state;
	w.c = cf_counter(&f, "running", &v);
	quiet_folder();
	crew_start(&w, NTHREADS);
	pthread_barrier_wait(&w.done);
	before = ld64(v);
	mmv_counter_flush();
	assert_int_equal(before, 0);	/* no fold yet: the flush makes it exact */
	assert_int_equal(ld64(v), want);
	pthread_barrier_wait(&w.go);
	crew_join(&w, NTHREADS);
	assert_int_equal(ld64(v), want);
	mmv_counter_close(w.c);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/* (c) The four integer types, their wrap and sign; everything else refused. */
static void integer_types(void **state)
{
	static const mmv_metric_type_t types[] = {
		MMV_TYPE_U32, MMV_TYPE_I32, MMV_TYPE_U64, MMV_TYPE_I64,
		MMV_TYPE_DOUBLE, MMV_TYPE_FLOAT, MMV_TYPE_STRING, MMV_TYPE_ELAPSED,
	};
	struct cfile f;
	pmAtomValue *v[8];
	mmv_counter_t *c[4];
	char path[PATH_MAX];
	size_t size;
	void *again;
	int fd;

	cf_start(&f, "types", 0, types, 8);
	for (int i = 0; i < 8; i++)
		v[i] = cf_val(&f, i);
	/* starting values: the counters add to what the file holds */
	v[0]->ul = 0xfffffff0u;
	v[1]->l = 5;
	v[2]->ull = UINT64_MAX - 1;
	v[3]->ll = 100;
	for (int i = 0; i < 4; i++) {
		c[i] = mmv_counter_open(f.addr, v[i]);
		assert_non_null(c[i]);
	}
	/* U32: 0xfffffff0 + 0x20 wraps to 0x10; 2^32 + 3 adds its low word, 3 */
	mmv_counter_add(c[0], 0x20);
	mmv_counter_add(c[0], (1ULL << 32) + 3);
	/* I32: 5 - 12 + 3 */
	mmv_counter_add(c[1], (uint64_t)-12);
	mmv_counter_inc(c[1]);
	mmv_counter_add(c[1], 2);
	/* U64: 2^64 - 2 + 5 wraps to 3 */
	mmv_counter_add(c[2], 5);
	/* I64: 100 - 2^40 - 1 */
	mmv_counter_add(c[3], (uint64_t)-(int64_t)(1LL << 40));
	mmv_counter_add(c[3], (uint64_t)-1);
	mmv_counter_flush();
	assert_int_equal(ld32(v[0]), 0x13);
	assert_int_equal(v[1]->l, -4);
	assert_int_equal(ld64(v[2]), 3);
	assert_true(v[3]->ll == 100 - (1LL << 40) - 1);
	/* a 32-bit value's fold leaves the record's other 4 bytes alone */
	assert_int_equal(rd32(v[0], 4), 0);
	assert_int_equal(rd32(v[1], 4), 0);

	for (int i = 4; i < 8; i++) {
		errno = 0;
		assert_null(mmv_counter_open(f.addr, v[i]));
		assert_int_equal(errno, EINVAL);
	}
	errno = 0;
	assert_null(mmv_counter_open(NULL, v[2]));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmv_counter_open(f.addr, NULL));
	assert_int_equal(errno, EINVAL);
	/* not a value record: the header, and a value's second word */
	errno = 0;
	assert_null(mmv_counter_open(f.addr, f.addr));
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_null(mmv_counter_open(f.addr, (pmAtomValue *)((char *)v[2] + 8)));
	assert_int_equal(errno, EINVAL);

	/* the same file mapped a second time: not a mapping this process created */
	fd = open(mt_path(state, "types", path), O_RDWR);
	assert_true(fd >= 0);
	size = (size_t)mt_size(state, "types");
	again = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(again != MAP_FAILED);
	errno = 0;
	assert_null(mmv_counter_open(again, (pmAtomValue *)((char *)again + mt_off(f.addr, v[2]))));
	assert_int_equal(errno, EINVAL);
	/* nor our mapping's address with a value of the other */
	errno = 0;
	assert_null(mmv_counter_open(f.addr, (pmAtomValue *)((char *)again + mt_off(f.addr, v[2]))));
	assert_int_equal(errno, EINVAL);
	munmap(again, size);

	/* a NULL counter: nothing happens */
	mmv_counter_add(NULL, 5);
	mmv_counter_inc(NULL);
	mmv_counter_close(NULL);
	mmv_counter_flush();
	assert_int_equal(ld32(v[0]), 0x13);
	assert_int_equal(ld64(v[2]), 3);

	for (int i = 0; i < 4; i++)
		mmv_counter_close(c[i]);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/* A thread that adds @n to a counter, then waits until told to exit. */
struct holder {
	mmv_counter_t *c;
	uint64_t n;
	pthread_barrier_t added, go;
	pthread_t th;
};

static void *hold_main(void *arg)
{
	struct holder *h = arg;

	mmv_counter_add(h->c, h->n);
	pthread_barrier_wait(&h->added);
	pthread_barrier_wait(&h->go);
	return NULL;
}

static void holder_start(struct holder *h, mmv_counter_t *c, uint64_t n)
{
	h->c = c;
	h->n = n;
	assert_int_equal(pthread_barrier_init(&h->added, NULL, 2), 0);
	assert_int_equal(pthread_barrier_init(&h->go, NULL, 2), 0);
	assert_int_equal(pthread_create(&h->th, NULL, hold_main, h), 0);
	pthread_barrier_wait(&h->added);
}

static void holder_stop(struct holder *h)
{
	pthread_barrier_wait(&h->go);
	assert_int_equal(pthread_join(h->th, NULL), 0);
	pthread_barrier_destroy(&h->added);
	pthread_barrier_destroy(&h->go);
}

/* Fork a child that adds @n to @c and leaves by exit(), by _exit() after a
 * flush, or by _exit() alone (@how 0, 1, 2); wait for it. */
static void child_adds(mmv_counter_t *c, uint64_t n, int how)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		mmv_counter_add(c, n);
		if (how == 0)
			exit(0);
		if (how == 1)
			mmv_counter_flush();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/*
 * (d) fork: what the parent's threads had added and not folded is the
 * parent's; the child adds only its own. A = 1000 (this thread) and
 * D = 50000 (another thread, alive across the fork) unfolded at the
 * fork; the child adds B = 20 and exits; the parent adds C = 300.
 */
static void fork_child_adds_own(void **state)
{
	struct holder h;
	struct cfile f;
	mmv_counter_t *c;
	pmAtomValue *v;

	(void)state;
	c = cf_counter(&f, "fork", &v);
	quiet_folder();
	mmv_counter_add(c, 1000);
	holder_start(&h, c, 50000);
	assert_int_equal(ld64(v), 0);	/* A and D not folded at the fork */
	child_adds(c, 20, 0);
	assert_int_equal(ld64(v), 20);	/* the child's exit folded B alone */
	mmv_counter_add(c, 300);
	mmv_counter_flush();
	assert_int_equal(ld64(v), 1000 + 50000 + 20 + 300);
	holder_stop(&h);
	assert_int_equal(ld64(v), 1000 + 50000 + 20 + 300);
	mmv_counter_close(c);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/*
 * _exit() runs no destructor: a child's updates since its last fold are
 * lost unless it flushes (mmv_counter.h: up to one interval of them;
 * here the interval is a minute, so all of them). With the flush the
 * total is exact; without it the child can add less than it added,
 * never more.
 */
static void fork_child_underscore_exit(void **state)
{
	struct cfile f;
	mmv_counter_t *c;
	pmAtomValue *v;
	uint64_t got;

	(void)state;
	c = cf_counter(&f, "fork_exit", &v);
	quiet_folder();
	mmv_counter_add(c, 7);
	child_adds(c, 40, 1);
	mmv_counter_add(c, 500);
	mmv_counter_flush();
	assert_int_equal(ld64(v), 7 + 40 + 500);

	child_adds(c, 9000, 2);
	mmv_counter_flush();
	got = ld64(v) - (7 + 40 + 500);
	print_message("# _exit without a flush: %llu of the child's 9000 arrived\n",
		      (unsigned long long)got);
	assert_true(got <= 9000);
	mmv_counter_close(c);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/*
 * A child that changes the interval. At the fork the parent's folding
 * thread was waiting for its wake-up (a minute's wait): the child has no
 * such thread, and a change of interval must not wait for it (it did:
 * glibc's condition variable counted the parent's waiter, and the signal
 * waited for it for ever, holding the counters' mutex). The child's own
 * folding thread then folds what the child added, with no flush and no
 * exit fold (_exit). The child's alarm ends it if it hangs.
 */
static void fork_child_sets_interval(void **state)
{
	struct timespec ms = { 0, 1000000 };
	struct cfile f;
	mmv_counter_t *c;
	pmAtomValue *v;
	pid_t pid;
	int st;

	(void)state;
	c = cf_counter(&f, "fork_interval", &v);
	quiet_folder();
	mmv_counter_add(c, 3);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(10);
		for (int i = 0; i < 50; i++) {
			mmv_counter_inc(c);
			if (mmv_counter_set_interval(1 + i % 3) != 0)
				_exit(2);
			nanosleep(&ms, NULL);
		}
		/* the child's own folding thread folds its 50 (the
		 * parent's 3 are the parent's to fold) */
		for (int i = 0; i < 5000 && ld64(v) != 50; i++)
			nanosleep(&ms, NULL);
		_exit(ld64(v) == 50 ? 0 : 3);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_false(WIFSIGNALED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	mmv_counter_flush();
	assert_int_equal(ld64(v), 3 + 50);
	mmv_counter_close(c);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/*
 * (e) mmv_stats_free with a counter open and a thread's updates not
 * folded: the file on disk holds them all. Updates after the stop change
 * nothing and do not touch the unmapped file; close still works.
 */
static void stop_with_open_counter(void **state)
{
	const uint64_t want = (uint64_t)NTHREADS * NINCS + 77;
	struct crew w = { .m = NINCS, .step = 1, .hold = 1, .after = 5 };
	unsigned char *buf;
	struct cfile f;
	pmAtomValue *v;
	uint64_t off;
	size_t len;

	cf_start(&f, "stopped", 0, one_u64, 1);
	v = cf_val(&f, 0);
	off = mt_off(f.addr, v);
	w.c = mmv_counter_open(f.addr, v);
	assert_non_null(w.c);
	quiet_folder();
	crew_start(&w, NTHREADS);
	pthread_barrier_wait(&w.done);
	mmv_counter_add(w.c, 77);
	assert_int_equal(ld64(v), 0);	/* the stop is what folds */
	mmv_stats_free(f.r);

	buf = mt_read(state, "stopped", &len);
	assert_true(off + 8 <= len);
	assert_int_equal(rd64(buf, off), want);
	free(buf);

	/* after the stop: the threads add 5 each and exit, this thread adds */
	mmv_counter_add(w.c, 1000);
	mmv_counter_inc(w.c);
	pthread_barrier_wait(&w.go);
	crew_join(&w, NTHREADS);
	mmv_counter_flush();
	mmv_counter_close(w.c);
	buf = mt_read(state, "stopped", &len);
	assert_int_equal(rd64(buf, off), want);
	free(buf);
	no_fallbacks();
}

/*
 * (f) close folds every thread's part; a counter opened next takes the
 * lowest free id, the closed one's (every other case closes its
 * counters), and starts from nothing of it.
 */
static void close_folds_id_reused(void **state)
{
	static const mmv_metric_type_t two_u64[] = { MMV_TYPE_U64, MMV_TYPE_U64 };
	struct holder h;
	struct cfile f;
	mmv_counter_t *c1, *c2;
	pmAtomValue *v0, *v1;

	(void)state;
	cf_start(&f, "reuse", 0, two_u64, 2);
	v0 = cf_val(&f, 0);
	v1 = cf_val(&f, 1);
	c1 = mmv_counter_open(f.addr, v0);
	assert_non_null(c1);
	quiet_folder();
	mmv_counter_add(c1, 5);
	holder_start(&h, c1, 7);
	assert_int_equal(ld64(v0), 0);
	mmv_counter_close(c1);
	assert_int_equal(ld64(v0), 12);

	c2 = mmv_counter_open(f.addr, v1);
	assert_non_null(c2);
	mmv_counter_add(c2, 4);
	/* the other thread's slot for the id held c1's 7, folded at the
	 * close: its exit adds nothing to c2 */
	holder_stop(&h);
	mmv_counter_flush();
	assert_int_equal(ld64(v1), 4);
	assert_int_equal(ld64(v0), 12);

	/* a new thread's adds to c2 arrive at its exit */
	holder_start(&h, c2, 30);
	holder_stop(&h);
	assert_int_equal(ld64(v1), 34);
	assert_int_equal(ld64(v0), 12);
	mmv_counter_close(c2);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/*
 * (g) 300 counters opened one by one while two threads keep updating
 * those already open (their slot arrays grow under them). Each thread
 * counts its own updates of each counter; the files must hold the sums.
 */
#define NMANY	300

struct many {
	mmv_counter_t *c[NMANY];
	int nopen;		/* atomic: c[0 .. nopen) are open */
	int stop;		/* atomic */
	uint64_t count[2][NMANY];
	pthread_t th[2];
};

struct many_arg {
	struct many *s;
	int self;
};

static void *many_main(void *arg)
{
	struct many_arg *a = arg;
	struct many *s = a->s;
	uint64_t *cnt = s->count[a->self];
	unsigned long i = (unsigned long)a->self * 7;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		int n = __atomic_load_n(&s->nopen, __ATOMIC_ACQUIRE);
		int j = (int)(i++ % (unsigned long)n);

		mmv_counter_add(s->c[j], (uint64_t)j + 1);
		cnt[j] += (uint64_t)j + 1;
	}
	/* a last round over all of them */
	for (int j = 0; j < NMANY; j++) {
		mmv_counter_inc(s->c[j]);
		cnt[j]++;
	}
	return NULL;
}

static void many_counters_growing(void **state)
{
	mmv_metric_type_t types[NMANY];
	struct many_arg a[2];
	struct timespec ms = { 0, 1000000 };
	struct cfile f;
	struct many *s = calloc(1, sizeof(*s));
	pmAtomValue *v[NMANY];

	(void)state;
	assert_non_null(s);
	for (int j = 0; j < NMANY; j++)
		types[j] = j % 2 ? MMV_TYPE_U32 : MMV_TYPE_I64;
	cf_start(&f, "many", 0, types, NMANY);
	for (int j = 0; j < NMANY; j++)
		v[j] = cf_val(&f, j);
	s->c[0] = mmv_counter_open(f.addr, v[0]);
	assert_non_null(s->c[0]);
	__atomic_store_n(&s->nopen, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++) {
		a[i].s = s;
		a[i].self = i;
		assert_int_equal(pthread_create(&s->th[i], NULL, many_main, &a[i]), 0);
	}
	for (int j = 1; j < NMANY; j++) {
		s->c[j] = mmv_counter_open(f.addr, v[j]);
		assert_non_null(s->c[j]);
		__atomic_store_n(&s->nopen, j + 1, __ATOMIC_RELEASE);
		if (j % 20 == 0)
			nanosleep(&ms, NULL);
	}
	nanosleep(&ms, NULL);
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_join(s->th[i], NULL), 0);
	mmv_counter_flush();
	for (int j = 0; j < NMANY; j++) {
		uint64_t want = s->count[0][j] + s->count[1][j];

		assert_true(want > 0);
		if (j % 2)
			assert_int_equal(ld32(v[j]), (uint32_t)want);
		else
			assert_int_equal(ld64(v[j]), want);
	}
	for (int j = 0; j < NMANY; j++)
		mmv_counter_close(s->c[j]);
	mmv_stats_free(f.r);
	free(s);
	no_fallbacks();
}

/* (h) At a 5 ms interval a reader sees an update within 2 s (a generous
 * bound on correctness, not a measure of speed); the lag is reported. */
static void stale_bound(void **state)
{
	struct timespec t0, t1, nap = { 0, 100000 };
	struct cfile f;
	mmv_counter_t *c;
	pmAtomValue *v;
	double lag;

	(void)state;
	c = cf_counter(&f, "lag", &v);
	assert_int_equal(mmv_counter_set_interval(5), 0);
	assert_int_equal(ld64(v), 0);
	mmv_counter_inc(c);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		lag = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
		      (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
		if (ld64(v) != 0 || lag >= 2000)
			break;
		nanosleep(&nap, NULL);
	}
	print_message("# lag %.3f ms (interval 5 ms)\n", lag);
	assert_int_equal(ld64(v), 1);
	assert_true(lag < 2000);
	mmv_counter_close(c);
	mmv_stats_free(f.r);
	no_fallbacks();
}

/* (i) The interval's limits; no update of any case fell back. */
static void interval_limits(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(mmv_counter_set_interval(0), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(mmv_counter_set_interval(LONG_MS + 1), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(mmv_counter_set_interval(1), 0);
	assert_int_equal(mmv_counter_set_interval(LONG_MS), 0);
	no_fallbacks();
}

/*
 * (j) The PCP update calls read the type from the mapping's private table
 * on a file of ours, and from the file on a copy of it that this process
 * did not create: the same calls leave the same bytes. Per type, by hand:
 * set 7, add 3, add 1, add 10 (atomvalue) is 21; adding -30 then gives -9
 * (the unsigned types wrap: 2^32 - 9, 2^64 - 9; ELAPSED takes a negative
 * amount as an interval's start, kept in extra, and keeps 21). STRING is
 * left alone by all of them.
 */
static const mmv_metric_type_t all_types[] = {
	MMV_TYPE_U32, MMV_TYPE_I32, MMV_TYPE_U64, MMV_TYPE_I64,
	MMV_TYPE_FLOAT, MMV_TYPE_DOUBLE, MMV_TYPE_STRING, MMV_TYPE_ELAPSED,
};
#define NALL	((int)(sizeof(all_types) / sizeof(all_types[0])))

static void pcp_calls(void *addr, pmAtomValue *v, mmv_metric_type_t type)
{
	pmAtomValue ten;

	memset(&ten, 0, sizeof(ten));
	switch (type) {
	case MMV_TYPE_U32:
	case MMV_TYPE_I32:
		ten.ul = 10;
		break;
	case MMV_TYPE_FLOAT:
		ten.f = 10;
		break;
	case MMV_TYPE_DOUBLE:
		ten.d = 10;
		break;
	default:
		ten.ull = 10;
		break;
	}
	mmv_set_value(addr, v, 7);
	mmv_inc_value(addr, v, 3);
	mmv_inc(addr, v);
	mmv_inc_atomvalue(addr, v, &ten);
	mmv_inc_value(addr, v, -30);
}

static void check_by_hand(const pmAtomValue *v, const mmv_disk_value_t *before,
		mmv_metric_type_t type)
{
	const mmv_disk_value_t *r = (const mmv_disk_value_t *)v;

	switch (type) {
	case MMV_TYPE_U32:
		assert_int_equal(v->ul, 0xfffffff7u);
		break;
	case MMV_TYPE_I32:
		assert_int_equal(v->l, -9);
		break;
	case MMV_TYPE_U64:
		assert_true(v->ull == UINT64_MAX - 8);
		break;
	case MMV_TYPE_I64:
		assert_true(v->ll == -9);
		break;
	case MMV_TYPE_FLOAT:
		assert_true(v->f == -9.0f);
		break;
	case MMV_TYPE_DOUBLE:
		assert_true(v->d == -9.0);
		break;
	case MMV_TYPE_ELAPSED:
		assert_true(v->ll == 21);
		assert_true(r->extra == -30);
		break;
	default:
		assert_memory_equal(r, before, sizeof(*r));
		break;
	}
}

static void type_table_same_bytes(void **state, void *addr, size_t size,
		pmAtomValue **v, const mmv_metric_type_t *types, int n)
{
	const struct mt *t = *state;
	char path[PATH_MAX];
	void *copy;
	int fd;

	/* a copy of the file as started, mapped by hand */
	snprintf(path, sizeof(path), "%s/copy", t->dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, addr, size), (ssize_t)size);
	copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	assert_true(copy != MAP_FAILED);

	for (int i = 0; i < n; i++) {
		pmAtomValue *w = (pmAtomValue *)((char *)copy + mt_off(addr, v[i]));
		mmv_disk_value_t before;

		memcpy(&before, v[i], sizeof(before));
		pcp_calls(addr, v[i], types[i]);
		pcp_calls(copy, w, types[i]);
		check_by_hand(v[i], &before, types[i]);
	}
	assert_memory_equal(addr, copy, size);
	munmap(copy, size);
	unlink(path);
}

static void type_table(void **state)
{
	struct cfile f;
	pmAtomValue *v[NALL];

	cf_start(&f, "table", 0, all_types, NALL);
	for (int i = 0; i < NALL; i++)
		v[i] = cf_val(&f, i);
	type_table_same_bytes(state, f.addr, (size_t)mt_size(state, "table"), v,
			      all_types, NALL);
	mmv_stats_free(f.r);
}

/* The same on a version 1 file (mmv_stats_init: the v1 metric record). */
static void type_table_v1(void **state)
{
	mmv_metric_t m[NALL];
	pmAtomValue *v[NALL];
	void *addr;

	memset(m, 0, sizeof(m));
	for (int i = 0; i < NALL; i++) {
		snprintf(m[i].name, sizeof(m[i].name), "m%d", i);
		m[i].item = (uint32_t)i + 1;
		m[i].type = all_types[i];
		m[i].semantics = all_types[i] == MMV_TYPE_STRING ? MMV_SEM_INSTANT : MMV_SEM_COUNTER;
		m[i].dimension = mt_count;
	}
	addr = mmv_stats_init("table1", 0, 0, m, NALL, NULL, 0);
	assert_non_null(addr);
	assert_int_equal(((mmv_disk_header_t *)addr)->version, 1);
	for (int i = 0; i < NALL; i++) {
		v[i] = mmv_lookup_value_desc(addr, m[i].name, NULL);
		assert_non_null(v[i]);
	}
	type_table_same_bytes(state, addr, (size_t)mt_size(state, "table1"), v,
			      all_types, NALL);
	mmv_stats_stop("table1", addr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		CT_TEST(joined_threads_exact),
		CT_TEST(running_threads_flush),
		CT_TEST(integer_types),
		CT_TEST(fork_child_adds_own),
		CT_TEST(fork_child_underscore_exit),
		CT_TEST(fork_child_sets_interval),
		CT_TEST(stop_with_open_counter),
		CT_TEST(close_folds_id_reused),
		CT_TEST(many_counters_growing),
		CT_TEST(stale_bound),
		CT_TEST(interval_limits),
		CT_TEST(type_table),
		CT_TEST(type_table_v1),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
