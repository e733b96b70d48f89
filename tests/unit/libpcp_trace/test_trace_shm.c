/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared aggregate segment without sockets: the client's writer
 * (libpcp_trace/shm.c) fills a segment, the agent's reader
 * (pmda_trace/core/shm.c) collects it, and the batches must be what the
 * reports were (count, sum, min, max, last, histogram), per sub-interval
 * and per thread row; then the reader's defences against a hostile
 * segment (docs/trace-protocol.md §10.4, §10.5).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include "../../lib/cmocka_compat.h"

#include "../../../libpcp_trace/trace_priv.h"
#include "../../../pmda_trace/core/shm.h"
#include <pcp/trace_handle.h>

#define MAXB 64

/* What the reader emitted. */
struct got {
	int n;
	struct {
		uint64_t seq;
		int type;
		char tag[TRACE_SHM_NAME_MAX];
		struct trace_batch b;
		uint64_t hist_total;
		uint32_t hist_bucket;	/* the one non-empty bucket, or UINT32_MAX */
	} e[MAXB];
	int refuse;		/* answer -ENOSPC */
};

static int emit(void *arg, uint64_t seq, int type, const char *tag, size_t len,
		const struct trace_batch *b)
{
	struct got *g = arg;

	assert_true(g->n < MAXB);
	g->e[g->n].seq = seq;
	g->e[g->n].type = type;
	memcpy(g->e[g->n].tag, tag, len);
	g->e[g->n].tag[len] = '\0';
	g->e[g->n].b = *b;
	g->e[g->n].hist_total = 0;
	g->e[g->n].hist_bucket = UINT32_MAX;
	if (b->hist != NULL) {
		for (uint32_t i = 0; i < TRACE_HIST_NBUCKETS; i++) {
			g->e[g->n].hist_total += b->hist[i];
			if (b->hist[i])
				g->e[g->n].hist_bucket = g->e[g->n].hist_bucket == UINT32_MAX ?
					i : UINT32_MAX - 1;
		}
	}
	g->n++;
	return g->refuse ? -ENOSPC : 1;
}

static struct trace_shm_seg seg;

static int setup(void **state)
{
	(void)state;
	assert_int_equal(trace__shm_seg_create(&seg, 8, 4), 0);
	assert_int_equal(trace__shm_install(&seg), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	trace__shm_drop(1);	/* as a child: unmapped and closed */
	return 0;
}

static struct tra_shm *reader(void)
{
	char why[128] = "";
	struct tra_shm *s = tra_shm_open(dup(seg.fd), seg.tags, seg.rows, why, sizeof(why));

	if (s == NULL)
		fail_msg("reader: %s", why);
	return s;
}

static int collect(struct tra_shm *s, uint64_t seq, struct got *g)
{
	char why[128] = "";
	int n;

	g->n = 0;
	n = tra_shm_collect(s, seq, 0, emit, g, why, sizeof(why));
	if (n < 0)
		fail_msg("collect: %s", why);
	return n;
}

/* A report by name as the library makes it: the thread's cache, else the segment's tables. */
static int rec(int type, const char *tag, double v)
{
	size_t taglen;
	int rc = trace__shm_fast(type, tag, v, &taglen);

	return rc != TRACE_SHM_PDU ? rc : trace__shm_record(type, tag, strlen(tag) + 1, 0, NULL, v);
}

static void each_type(void **state)
{
	struct tra_shm *s = reader();
	struct got g = { 0 };

	(void)state;
	assert_int_equal(rec(TRACE_TYPE_POINT, "pt", -1.0), 0);
	assert_int_equal(rec(TRACE_TYPE_POINT, "pt", -1.0), 0);
	assert_int_equal(rec(TRACE_TYPE_OBSERVE, "obs", 2.5), 0);
	assert_int_equal(rec(TRACE_TYPE_OBSERVE, "obs", 0.5), 0);
	assert_int_equal(rec(TRACE_TYPE_OBSERVE, "obs", 4.0), 0);
	assert_int_equal(rec(TRACE_TYPE_COUNTER, "ctr", 7.0), 0);
	assert_int_equal(rec(TRACE_TYPE_TRANSACT, "txn", 0.25), 0);
	/* the same name as another type is another tag */
	assert_int_equal(rec(TRACE_TYPE_COUNTER, "pt", 3.0), 0);
	assert_int_equal(collect(s, 5, &g), 5);
	assert_int_equal(g.e[0].type, TRACE_TYPE_POINT);
	assert_string_equal(g.e[0].tag, "pt");
	assert_int_equal(g.e[0].b.count, 2);
	assert_null(g.e[0].b.hist);
	assert_int_equal(g.e[1].type, TRACE_TYPE_OBSERVE);
	assert_int_equal(g.e[1].b.count, 3);
	assert_true(g.e[1].b.sum == 7.0 && g.e[1].b.min == 0.5 && g.e[1].b.max == 4.0);
	assert_true(g.e[1].b.last == 4.0);
	assert_int_equal(g.e[1].hist_total, 3);
	assert_int_equal(g.e[2].type, TRACE_TYPE_COUNTER);
	assert_true(g.e[2].b.last == 7.0);
	assert_int_equal(g.e[3].type, TRACE_TYPE_TRANSACT);
	assert_int_equal(g.e[3].hist_bucket, trace_hist_index(0.25));
	assert_true(g.e[4].type == TRACE_TYPE_COUNTER && strcmp(g.e[4].tag, "pt") == 0);
	for (int i = 0; i < g.n; i++)
		assert_int_equal(g.e[i].seq, 5);
	/* nothing new: nothing emitted */
	assert_int_equal(collect(s, 5, &g), 0);
	tra_shm_close(s);
}

/* Deltas only; min and max start again in each sub-interval (epoch). */
static void deltas_and_epochs(void **state)
{
	struct tra_shm *s = reader();
	struct got g = { 0 };

	(void)state;
	rec(TRACE_TYPE_OBSERVE, "o", 10.0);
	rec(TRACE_TYPE_OBSERVE, "o", 1.0);
	assert_int_equal(collect(s, 3, &g), 1);
	assert_true(g.e[0].b.min == 1.0 && g.e[0].b.max == 10.0);
	/* the reader published sub-interval 3: the writer's next min/max are new */
	rec(TRACE_TYPE_OBSERVE, "o", 5.0);
	rec(TRACE_TYPE_OBSERVE, "o", 6.0);
	assert_int_equal(collect(s, 4, &g), 1);
	assert_int_equal(g.e[0].seq, 3);	/* stamped in 3, collected at 4 */
	assert_int_equal(g.e[0].b.count, 2);
	assert_true(g.e[0].b.sum == 11.0 && g.e[0].b.min == 5.0 && g.e[0].b.max == 6.0);
	assert_int_equal(g.e[0].hist_total, 2);
	rec(TRACE_TYPE_OBSERVE, "o", 2.0);
	assert_int_equal(collect(s, 4, &g), 1);
	assert_int_equal(g.e[0].seq, 4);
	assert_true(g.e[0].b.min == 2.0 && g.e[0].b.max == 2.0 && g.e[0].b.count == 1);
	tra_shm_close(s);
}

struct worker {
	const char *tag;
	int n;
	pthread_barrier_t *bar;
};

static void *work(void *arg)
{
	struct worker *w = arg;

	long bad = 0;

	pthread_barrier_wait(w->bar);
	for (int i = 1; i <= w->n; i++) {
		int rc = rec(TRACE_TYPE_OBSERVE, w->tag, (double)i);

		if (rc != 0 && bad++ == 0)
			fprintf(stderr, "worker: report %d: %d\n", i, rc);
	}
	return (void *)bad;	/* cmocka's asserts belong to the main thread */
}

/* Threads write their own rows; the reader collects while they write. */
static void threads_rows(void **state)
{
	struct tra_shm *s = reader();
	pthread_barrier_t bar;
	struct worker w = { "shared", 20000, &bar };
	pthread_t th[3];
	uint64_t count = 0;
	double sum = 0.0;
	struct got g = { 0 };

	(void)state;
	pthread_barrier_init(&bar, NULL, 4);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_create(&th[i], NULL, work, &w), 0);
	pthread_barrier_wait(&bar);
	for (int k = 0; k < 50; k++) {
		collect(s, 1, &g);
		for (int i = 0; i < g.n; i++) {
			assert_int_equal(g.e[i].hist_total, g.e[i].b.count);
			count += g.e[i].b.count;
			sum += g.e[i].b.sum;
		}
	}
	for (int i = 0; i < 3; i++) {
		void *bad;

		pthread_join(th[i], &bad);
		assert_null(bad);
	}
	collect(s, 1, &g);
	for (int i = 0; i < g.n; i++) {
		assert_int_equal(g.e[i].hist_total, g.e[i].b.count);
		count += g.e[i].b.count;
		sum += g.e[i].b.sum;
	}
	assert_int_equal(count, 60000);
	assert_true(sum == 3.0 * 20000.0 * 20001.0 / 2.0);
	/* a row each at most: one that exited early may have passed its row on */
	assert_uint_in_range(((struct trace_shm_hdr *)seg.base)->nrows, 1, 3);
	pthread_barrier_destroy(&bar);
	tra_shm_close(s);
}

/* Full tag table or no free row: the PDU path takes the report. */
static void full(void **state)
{
	char tag[16];

	(void)state;
	for (int i = 0; i < 8; i++) {
		snprintf(tag, sizeof(tag), "t%d", i);
		assert_int_equal(rec(TRACE_TYPE_POINT, tag, 0), 0);
	}
	assert_int_equal(rec(TRACE_TYPE_POINT, "ninth", 0), TRACE_SHM_PDU);
	assert_int_equal(rec(TRACE_TYPE_POINT, "t3", 0), 0);
}

/* A tag the agent's -t refused says so to the writer. */
static void refused(void **state)
{
	struct tra_shm *s = reader();
	struct got g = { 0 };

	(void)state;
	assert_int_equal(rec(TRACE_TYPE_POINT, "capped", 0), 0);
	g.refuse = 1;
	g.n = 0;
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &g, NULL, 0), 1);
	assert_int_equal(rec(TRACE_TYPE_POINT, "capped", 0), -ENOSPC);
	/* a reset made room: the next merge takes it, and the writer hears so */
	g.refuse = 0;
	g.n = 0;
	assert_int_equal(tra_shm_collect(s, 1, 0, emit, &g, NULL, 0), 1);
	assert_int_equal(rec(TRACE_TYPE_POINT, "capped", 0), 0);
	tra_shm_close(s);
}

/* After a drop the writer declines, and nothing is written any more. */
static void dropped(void **state)
{
	(void)state;
	assert_int_equal(rec(TRACE_TYPE_POINT, "x", 0), 0);
	trace__shm_drop(0);
	assert_false(trace__shm_on());
	assert_int_equal(rec(TRACE_TYPE_POINT, "x", 0), TRACE_SHM_PDU);
	seg.fd = -1;
}

/* The count of (@type, @tag) over every row in what the reader emitted. */
static uint64_t count_of(const struct got *g, int type, const char *tag)
{
	uint64_t n = 0;

	for (int i = 0; i < g->n; i++)
		if (g->e[i].type == type && strcmp(g->e[i].tag, tag) == 0)
			n += g->e[i].b.count;
	return n;
}

/* one pointer per tag (the caches key on it, string literals need not share one) */
static const char xt[] = "xt", gn[] = "gen", fk[] = "fk";

/* A second thread that runs one call at a time for the test (its caches persist). */
enum peer_op { PEER_BEGIN, PEER_END, PEER_FAST_BEGIN, PEER_FAST_END, PEER_QUIT };

static struct {
	pthread_t th;
	sem_t go, done;
	enum peer_op op;
	const char *tag;
	int rc;
} peer;

static void *peer_main(void *arg)
{
	(void)arg;
	for (;;) {
		sem_wait(&peer.go);
		switch (peer.op) {
		case PEER_BEGIN:
			peer.rc = pmtracebegin(peer.tag);
			break;
		case PEER_END:
			peer.rc = pmtraceend(peer.tag);
			break;
		case PEER_FAST_BEGIN:
			peer.rc = trace__shm_txn_begin(peer.tag);
			break;
		case PEER_FAST_END:
			peer.rc = trace__shm_txn_end(0, peer.tag);
			break;
		case PEER_QUIT:
			sem_post(&peer.done);
			return NULL;
		}
		sem_post(&peer.done);
	}
}

static int on_peer(enum peer_op op, const char *tag)
{
	peer.op = op;
	peer.tag = tag;
	sem_post(&peer.go);
	sem_wait(&peer.done);
	return peer.rc;
}

static void peer_start(void)
{
	sem_init(&peer.go, 0, 0);
	sem_init(&peer.done, 0, 0);
	assert_int_equal(pthread_create(&peer.th, NULL, peer_main, NULL), 0);
}

static void peer_stop(void)
{
	on_peer(PEER_QUIT, NULL);
	pthread_join(peer.th, NULL);
	sem_destroy(&peer.go);
	sem_destroy(&peer.done);
}

/*
 * A transaction through both threads' cached paths (trace_shm_txn_*):
 * begun on one, ended on the other, and one transaction per tag per
 * process whichever thread asks.
 */
static void txn_cross_thread(void **state)
{
	struct tra_shm *s = reader();
	struct got g = { 0 };

	(void)state;
	peer_start();
	/* not cached yet: the full path, which fills each thread's cache */
	assert_int_equal(trace__shm_txn_begin(xt), TRACE_SHM_PDU);
	assert_int_equal(pmtracebegin(xt), 0);
	assert_int_equal(trace__shm_txn_end(0, xt), TRACE_SHM_PDU);
	assert_int_equal(pmtraceend(xt), 0);
	assert_int_equal(on_peer(PEER_BEGIN, xt), 0);
	assert_int_equal(on_peer(PEER_END, xt), 0);
	/* begun here, ended there, both cached */
	assert_int_equal(trace__shm_txn_begin(xt), 0);
	assert_int_equal(on_peer(PEER_FAST_BEGIN, xt), PMTRACE_ERR_INPROGRESS);
	assert_int_equal(on_peer(PEER_FAST_END, xt), 0);
	assert_int_equal(trace__shm_txn_end(0, xt), PMTRACE_ERR_NOPROGRESS);
	assert_int_equal(on_peer(PEER_FAST_END, xt), PMTRACE_ERR_NOPROGRESS);
	/* begun there, ended here */
	assert_int_equal(on_peer(PEER_FAST_BEGIN, xt), 0);
	assert_int_equal(trace__shm_txn_begin(xt), PMTRACE_ERR_INPROGRESS);
	assert_int_equal(pmtracebegin(xt), PMTRACE_ERR_INPROGRESS);
	assert_int_equal(trace__shm_txn_end(0, xt), 0);
	assert_int_equal(pmtraceend(xt), PMTRACE_ERR_NOPROGRESS);
	/* an abort (full path) is seen by the cached path */
	assert_int_equal(trace__shm_txn_begin(xt), 0);
	assert_int_equal(pmtraceabort(xt), 0);
	assert_int_equal(on_peer(PEER_FAST_END, xt), PMTRACE_ERR_NOPROGRESS);
	peer_stop();
	/* what was recorded: 2 full ends and 2 cached ones, no failed one */
	collect(s, 1, &g);
	assert_int_equal(count_of(&g, TRACE_TYPE_TRANSACT, xt), 4);
	tra_shm_close(s);
}

/* The tag's string changes under the same pointer: the cache must not match. */
static void txn_tag_changes(void **state)
{
	struct tra_shm *s = reader();
	struct got g = { 0 };
	char tag[8] = "ca";

	(void)state;
	assert_int_equal(pmtracebegin(tag), 0);
	assert_int_equal(pmtraceend(tag), 0);
	assert_int_equal(trace__shm_txn_begin(tag), 0);	/* "ca", cached */
	strcpy(tag, "cb");
	assert_int_equal(trace__shm_txn_end(0, tag), TRACE_SHM_PDU);
	assert_int_equal(trace__shm_txn_begin(tag), TRACE_SHM_PDU);
	assert_int_equal(pmtraceend(tag), PMTRACE_ERR_NOSUCHTAG);
	assert_int_equal(pmtracebegin(tag), 0);
	strcpy(tag, "c");	/* a prefix of the cached name */
	assert_int_equal(trace__shm_txn_end(0, tag), TRACE_SHM_PDU);
	strcpy(tag, "caa");	/* the cached name and more */
	assert_int_equal(trace__shm_txn_end(0, tag), TRACE_SHM_PDU);
	strcpy(tag, "ca");
	assert_int_equal(pmtraceend(tag), 0);	/* "ca", begun before the changes */
	assert_int_equal(pmtraceend("cb"), 0);
	collect(s, 1, &g);
	assert_int_equal(count_of(&g, TRACE_TYPE_TRANSACT, "ca"), 2);
	assert_int_equal(count_of(&g, TRACE_TYPE_TRANSACT, "cb"), 1);
	assert_int_equal(count_of(&g, TRACE_TYPE_TRANSACT, "c"), 0);
	tra_shm_close(s);
}

/*
 * A new segment (the agent went and came back): the cached entries are
 * stale, a transaction begun before still ends, and reports, through a
 * tag handle too, go to the new segment only.
 */
static void new_generation(void **state)
{
	struct tra_shm *old = reader(), *s;
	pmtracehandle *h = pmtracehandle_new("hp");
	struct got g = { 0 };

	(void)state;
	assert_non_null(h);
	assert_int_equal(pmtracebegin(gn), 0);
	assert_int_equal(pmtraceend(gn), 0);
	assert_int_equal(pmtracepoint_h(h), 0);
	assert_int_equal(pmtracepoint_h(h), 0);
	assert_int_equal(trace__shm_txn_begin(gn), 0);
	trace__shm_drop(0);
	assert_int_equal(trace__shm_txn_end(0, gn), TRACE_SHM_PDU);
	assert_int_equal(trace__shm_seg_create(&seg, 8, 4), 0);
	assert_int_equal(trace__shm_install(&seg), 0);
	s = reader();
	/* first, before a slow lookup empties this thread's cache */
	assert_int_equal(pmtracepoint_h(h), 0);
	assert_int_equal(trace__shm_txn_end(0, gn), TRACE_SHM_PDU);
	assert_int_equal(pmtraceend(gn), 0);
	assert_int_equal(trace__shm_txn_begin(gn), 0);	/* cached again */
	assert_int_equal(trace__shm_txn_end(0, gn), 0);
	collect(s, 1, &g);
	assert_int_equal(count_of(&g, TRACE_TYPE_TRANSACT, gn), 2);
	assert_int_equal(count_of(&g, TRACE_TYPE_POINT, "hp"), 1);
	collect(old, 1, &g);
	assert_int_equal(count_of(&g, TRACE_TYPE_TRANSACT, gn), 1);
	assert_int_equal(count_of(&g, TRACE_TYPE_POINT, "hp"), 2);
	pmtracehandle_free(h);
	tra_shm_close(s);
	tra_shm_close(old);
}

/* A child of fork() has no transactions and none of the parent's entries. */
static void txn_fork(void **state)
{
	pid_t pid;
	int status;

	(void)state;
	assert_int_equal(pmtracebegin(fk), 0);
	assert_int_equal(pmtraceend(fk), 0);
	assert_int_equal(trace__shm_txn_begin(fk), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int bad = trace__shm_txn_end(0, fk) != TRACE_SHM_PDU;

		pmtracestate(PMTRACE_STATE_NOAGENT);
		bad |= (pmtraceend(fk) != PMTRACE_ERR_NOSUCHTAG) << 1;
		bad |= (pmtracebegin(fk) != 0) << 2;
		bad |= (pmtraceend(fk) != 0) << 3;
		_exit(bad);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(trace__shm_txn_end(0, fk), 0);
}

/* A report through a handle's copy @tag, id @hid, as handle.c makes it. */
static int hrec(int type, const char *tag, uint32_t hid, double v)
{
	int rc = type == TRACE_TYPE_POINT ? trace__shm_handle_point(tag, hid) :
		 trace__shm_handle(type, tag, hid, v);

	return rc != TRACE_SHM_PDU ? rc : trace__shm_record(type, tag, strlen(tag) + 1, hid, NULL, v);
}

/*
 * A handle freed and another made at its address (malloc may give it
 * back) for another tag: a thread's cached entry for the address must not
 * take the new handle's reports (the handle's id tells them apart).
 */
static void handle_address_reused(void **state)
{
	struct tra_shm *s = reader();
	struct got g = { 0 };
	pmtracehandle *h;
	char copy[8] = "ha";	/* as a handle's copy, then another's at the same place */

	(void)state;
	/* not cached yet: the cached path records nothing */
	assert_int_equal(trace__shm_handle_point(copy, 1001), TRACE_SHM_PDU);
	assert_int_equal(hrec(TRACE_TYPE_POINT, copy, 1001, -1.0), 0);
	assert_int_equal(trace__shm_handle_point(copy, 1001), 0);
	assert_int_equal(hrec(TRACE_TYPE_OBSERVE, copy, 1001, 1.0), 0);
	strcpy(copy, "hb");
	assert_int_equal(trace__shm_handle_point(copy, 1002), TRACE_SHM_PDU);
	assert_int_equal(hrec(TRACE_TYPE_POINT, copy, 1002, -1.0), 0);
	assert_int_equal(trace__shm_handle(TRACE_TYPE_OBSERVE, copy, 1002, 2.0), TRACE_SHM_PDU);
	assert_int_equal(hrec(TRACE_TYPE_OBSERVE, copy, 1002, 2.0), 0);
	/* the same through the API (a test only where malloc gives the address back) */
	h = pmtracehandle_new("pa");
	assert_int_equal(pmtracepoint_h(h), 0);
	pmtracehandle_free(h);
	h = pmtracehandle_new("pb");
	assert_int_equal(pmtracepoint_h(h), 0);
	pmtracehandle_free(h);
	collect(s, 1, &g);
	assert_int_equal(count_of(&g, TRACE_TYPE_POINT, "ha"), 2);
	assert_int_equal(count_of(&g, TRACE_TYPE_POINT, "hb"), 1);
	assert_int_equal(count_of(&g, TRACE_TYPE_OBSERVE, "ha"), 1);
	assert_int_equal(count_of(&g, TRACE_TYPE_OBSERVE, "hb"), 1);
	assert_int_equal(count_of(&g, TRACE_TYPE_POINT, "pa"), 1);
	assert_int_equal(count_of(&g, TRACE_TYPE_POINT, "pb"), 1);
	tra_shm_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(each_type, setup, teardown),
		cmocka_unit_test_setup_teardown(deltas_and_epochs, setup, teardown),
		cmocka_unit_test_setup_teardown(threads_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(full, setup, teardown),
		cmocka_unit_test_setup_teardown(refused, setup, teardown),
		cmocka_unit_test_setup_teardown(dropped, setup, teardown),
		cmocka_unit_test_setup_teardown(txn_cross_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(txn_tag_changes, setup, teardown),
		cmocka_unit_test_setup_teardown(new_generation, setup, teardown),
		cmocka_unit_test_setup_teardown(txn_fork, setup, teardown),
		cmocka_unit_test_setup_teardown(handle_address_reused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
