/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shared segment end to end, in one test binary: our agent's listener
 * (pmda_trace/core/listener.c) in this process, our client library in
 * forked children. A child on this host gets a segment (registration
 * over the local socket, memfd passed), reports, and exits, _exits or is
 * killed; the agent's totals must be exactly what it reported. With
 * PCP_TRACE_SHM=0 the same reports come as PDUs. The children are this
 * program run afresh (fork, then exec at once: a child of a threaded
 * process under ASan may inherit its allocator's locks held).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <urcu.h>
#include <pcp/trace.h>
#include <pcp/trace_ext.h>
#include <pcp/trace_handle.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <arpa/inet.h>

#include "../../../libpcp_trace/trace_priv.h"
#include "../../../pmda_trace/core/listener.h"
#include "trace_reg.pb-c.h"
#include "trace_shm.h"

#define N 1000

struct fixture {
	struct trace_agg *agg;
	struct trace_listener *l;
	struct access_list *acl;
};

static struct fixture fx;

/* An agent core with at most @max_tags tags, access @rule (or none) and
 * @max_clients clients (0: no limit), found through PCP_TRACE_HOST/PORT. */
static int setup_with(void **state, size_t max_tags, const char *rule,
		unsigned max_clients)
{
	struct trace_listener_cfg cfg = { .bind_addr = INADDR_LOOPBACK,
					  .max_clients = max_clients };
	char port[16], why[64];

	(void)state;
	rcu_register_thread();
	fx.agg = tra_agg_new(60, 5, max_tags, NULL, NULL);
	fx.acl = NULL;
	if (rule) {
		fx.acl = tra_access_new();
		assert_int_equal(tra_access_add(fx.acl, rule, why, sizeof(why)), 0);
	}
	cfg.access = fx.acl;
	cfg.agg = fx.agg;
	fx.l = tra_listener_start(&cfg);
	assert_non_null(fx.l);
	snprintf(port, sizeof(port), "%u", tra_listener_port(fx.l));
	setenv("PCP_TRACE_HOST", "127.0.0.1", 1);
	setenv("PCP_TRACE_PORT", port, 1);
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, 0, NULL, 0);
}

static int setup_cap(void **state)
{
	return setup_with(state, 1, NULL, 0);
}

static int setup_one(void **state)
{
	return setup_with(state, 0, NULL, 1);
}

static int setup_deny(void **state)
{
	return setup_with(state, 0, "disallow:127.0.0.1", 0);
}

static int teardown(void **state)
{
	(void)state;
	tra_listener_stop(fx.l);
	tra_agg_free(fx.agg);
	tra_access_free(fx.acl);
	rcu_unregister_thread();
	return 0;
}

static uint64_t count_of(int type, const char *tag, struct trace_stats *out)
{
	struct trace_stats s;
	int inst = tra_agg_lookup(fx.agg, type, tag);

	if (inst < 0 || tra_agg_get(fx.agg, type, inst, &s) < 0)
		return 0;
	if (out)
		*out = s;
	return s.count;
}

/* The agent collects every 100 ms and at the close: wait up to 5 s. */
static void wait_count(int type, const char *tag, uint64_t want)
{
	for (int i = 0; i < 500 && count_of(type, tag, NULL) != want; i++)
		usleep(10000);
	assert_int_equal(count_of(type, tag, NULL), want);
}

enum ending { EXIT, UNDERSCORE_EXIT, KILLED };

/* In a child: the workload, then the ending; exit status 0: all as expected. */
static int child(int want_shm, enum ending how, int async)
{
	int ok = 1;

	if (async)
		pmtracestate(PMTRACE_STATE_ASYNC);
	for (int i = 1; i <= N; i++) {
		ok &= pmtracebegin("txn") == 0;
		ok &= pmtraceend("txn") >= 0;
		ok &= pmtracepoint("pt") >= 0;
		ok &= pmtraceobs("obs", 1.5 * i) >= 0;
		ok &= pmtracecounter("ctr", 10.0 * i) >= 0;
		ok &= pmtracetransact("given", 0.5) >= 0;	/* timed by the caller */
	}
	ok &= pmtraceagent() == PMTRACE_AGENT_SDK;
	ok &= trace__shm_on() == want_shm;
	if (!ok)
		_exit(1);
	if (how == KILLED)
		raise(SIGKILL);
	if (how == UNDERSCORE_EXIT)
		_exit(0);
	exit(0);
}

/* Run this program as "child MODE...": returns its pid. */
static pid_t spawn(const char *mode, const char *a, const char *b, const char *c)
{
	char *const argv[] = { "test_trace_shm_agent", "child", (char *)mode, (char *)a,
			       (char *)b, (char *)c, NULL };
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	return pid;
}

static void run(int want_shm, enum ending how, int async)
{
	struct trace_stats s;
	char w[2] = { (char)('0' + want_shm), 0 }, h[2] = { (char)('0' + how), 0 };
	char as[2] = { (char)('0' + async), 0 };
	int status;
	pid_t pid = spawn("work", w, h, as);

	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (how == KILLED)
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	wait_count(TRACE_TYPE_POINT, "pt", N);
	wait_count(TRACE_TYPE_TRANSACT, "txn", N);
	wait_count(TRACE_TYPE_OBSERVE, "obs", N);
	wait_count(TRACE_TYPE_COUNTER, "ctr", N);
	count_of(TRACE_TYPE_OBSERVE, "obs", &s);
	assert_true(s.value == 1.5 * N);	/* the latest value */
	count_of(TRACE_TYPE_COUNTER, "ctr", &s);
	assert_true(s.value == 10.0 * N);
	count_of(TRACE_TYPE_TRANSACT, "txn", &s);
	assert_true(s.total >= 0.0 && s.total < 1.0);
	wait_count(TRACE_TYPE_TRANSACT, "given", N);
	count_of(TRACE_TYPE_TRANSACT, "given", &s);
	assert_true(s.total == 0.5 * N);
	for (int i = 0; i < 500 && tra_listener_clients(fx.l) != 0; i++)
		usleep(10000);
	assert_int_equal(tra_listener_clients(fx.l), 0);	/* its connection went too */
}

static void shm_exit(void **state) { (void)state; unsetenv("PCP_TRACE_SHM"); run(1, EXIT, 0); }
static void shm_underscore_exit(void **state) { (void)state; run(1, UNDERSCORE_EXIT, 0); }
static void shm_killed(void **state) { (void)state; run(1, KILLED, 1); }

static void pdu_when_asked(void **state)
{
	(void)state;
	setenv("PCP_TRACE_SHM", "0", 1);
	run(0, EXIT, 0);
	unsetenv("PCP_TRACE_SHM");
}

/*
 * Send @msg (@len bytes) with @fd attached (-1: none) on the agent's local
 * socket; the reply's status, or 1 if the agent closed without one.
 */
static int register_raw(const void *msg, size_t len, int fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { (void *)msg, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	Tra__TraceShmReply *r;
	uint8_t buf[TRACE_REG_MAX];
	int sock = socket(AF_UNIX, SOCK_SEQPACKET, 0), n, sts = 1;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, TRACE_SHM_SOCK_FMT,
		     tra_listener_port(fx.l));
	assert_int_equal(connect(sock, (struct sockaddr *)&sa,
				 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)), 0);
	if (fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		CMSG_FIRSTHDR(&mh)->cmsg_level = SOL_SOCKET;
		CMSG_FIRSTHDR(&mh)->cmsg_type = SCM_RIGHTS;
		CMSG_FIRSTHDR(&mh)->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(CMSG_FIRSTHDR(&mh)), &fd, sizeof(int));
	}
	assert_int_equal(sendmsg(sock, &mh, 0), (ssize_t)len);
	n = (int)recv(sock, buf, sizeof(buf), 0);
	if (n > 0 && (r = tra__trace_shm_reply__unpack(NULL, (size_t)n, buf)) != NULL) {
		sts = r->status;
		tra__trace_shm_reply__free_unpacked(r, NULL);
	}
	close(sock);
	return sts;
}

/* A registration for @fd's geometry, from local TCP port @port. */
static size_t registration(uint8_t *buf, unsigned port)
{
	Tra__TraceShmRegister m = TRA__TRACE_SHM_REGISTER__INIT;

	m.version = TRACE_REG_VERSION;
	m.layout = TRACE_SHM_VERSION;
	m.tags = 8;
	m.rows = 2;
	m.size = trace_shm_size(8, 2);
	m.tcp_port = port;
	return tra__trace_shm_register__pack(&m, buf);
}

/*
 * Hostile registrations are refused with a reason and a log line, the
 * descriptor closed, and an honest client is served after them.
 */
static void hostile_registrations(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET }, me;
	socklen_t melen = sizeof(me);
	struct trace_shm_seg seg = { .fd = -1 };
	uint8_t buf[TRACE_REG_MAX];
	int tcp = socket(AF_INET, SOCK_STREAM, 0), bare;
	size_t len;

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(tra_listener_port(fx.l));
	assert_int_equal(connect(tcp, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(tcp, (struct sockaddr *)&me, &melen), 0);
	assert_int_equal(trace__shm_seg_create(&seg, 8, 2), 0);
	len = registration(buf, ntohs(me.sin_port));
	/* garbage, a message without its descriptor, a port with no connection */
	assert_int_equal(register_raw("\xff\xff\xff garbage", 12, seg.fd), -EINVAL);
	assert_int_equal(register_raw(buf, len, -1), -EINVAL);
	assert_int_equal(register_raw(buf, registration(buf, 1), seg.fd), -EINVAL);
	/* a memfd that is not sealed against shrinking */
	bare = memfd_create("bare", MFD_CLOEXEC);
	assert_int_equal(ftruncate(bare, (off_t)trace_shm_size(8, 2)), 0);
	len = registration(buf, ntohs(me.sin_port));
	assert_int_equal(register_raw(buf, len, bare), -EINVAL);
	/* the real thing is taken (and collected as the socket closes) */
	assert_int_equal(register_raw(buf, len, seg.fd), 0);
	close(bare);
	close(tcp);
	trace__shm_seg_destroy(&seg);
	run(1, EXIT, 0);
}

/*
 * In a child: fork; the grandchild reports on a segment of its own (its
 * parent's is not touched), and so does the child, before and after.
 */
static int child_fork(void)
{
	int ok = pmtracepoint("before") == 0 && trace__shm_on(), status;
	pid_t pid = fork();

	if (pid == 0) {
		ok = !trace__shm_on();	/* the parent's segment is dropped */
		for (int i = 0; i < 100; i++)
			ok &= pmtracepoint("grandchild") == 0;
		_exit(ok && trace__shm_on() ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
	for (int i = 0; i < 10; i++)
		ok &= pmtracepoint("after") == 0;
	return ok && trace__shm_on() ? 0 : 1;
}

static void *points10(void *arg)
{
	long bad = 0;

	(void)arg;
	for (int i = 0; i < 10; i++)
		bad += pmtracepoint("threads") != 0;
	return (void *)bad;
}

/* In a child: 200 threads one after another, more than the rows. */
static int child_threads(void)
{
	long bad = 0;

	for (int t = 0; t < 200; t++) {
		pthread_t th;
		void *b;

		if (pthread_create(&th, NULL, points10, NULL) != 0)
			return 1;
		pthread_join(th, &b);
		bad += (long)b;
	}
	/* one row, passed from thread to thread (none fell back to PDUs) */
	return bad == 0 && trace__shm_on() && trace__shm_nrows() == 1 ? 0 : 1;
}

/* In a child: the agent's -A refuses this host: no segment either. */
static int child_denied(void)
{
	return pmtracepoint("denied") == PMTRACE_ERR_PERMISSION && !trace__shm_on() ? 0 : 1;
}

static void child_ok(const char *mode)
{
	int status;
	pid_t pid = spawn(mode, NULL, NULL, NULL);

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* fork(): the child gets its own aggregates; the parent keeps its own. */
static void forked(void **state)
{
	(void)state;
	child_ok("fork");
	wait_count(TRACE_TYPE_POINT, "before", 1);
	wait_count(TRACE_TYPE_POINT, "grandchild", 100);
	wait_count(TRACE_TYPE_POINT, "after", 10);
}

/* Exited threads pass their rows on: nothing lost, nothing to the PDU path. */
static void thread_exit(void **state)
{
	(void)state;
	child_ok("threads");
	wait_count(TRACE_TYPE_POINT, "threads", 2000);
}

static void denied(void **state)
{
	(void)state;
	child_ok("denied");
	assert_int_equal(tra_agg_lookup(fx.agg, TRACE_TYPE_POINT, "denied"), -ENOENT);
}

/* In a child: reports through tag handles, from two threads at once. */
static void *handle_points(void *arg)
{
	long bad = 0;

	for (int i = 0; i < 500; i++)
		bad += pmtracepoint_h(arg) != 0;
	return (void *)bad;
}

static int child_handles(void)
{
	char toolong[200];
	pmtracehandle *h = pmtracehandle_new("hpt"), *o = pmtracehandle_new("hobs");
	pthread_t th[2];
	void *b1, *b2;
	int ok = h != NULL && o != NULL;

	memset(toolong, 'x', sizeof(toolong) - 1);
	toolong[sizeof(toolong) - 1] = '\0';
	ok &= pmtracehandle_new(toolong) == NULL && errno == EINVAL;
	ok &= pmtracehandle_new("") == NULL && pmtracehandle_new(NULL) == NULL;
	ok &= pmtracepoint_h(NULL) == PMTRACE_ERR_TAGNAME;
	for (int t = 0; t < 2; t++)
		pthread_create(&th[t], NULL, handle_points, h);
	for (int i = 1; i <= 100; i++)
		ok &= pmtraceobs_h(o, i) == 0 && pmtracecounter_h(o, 2.0 * i) == 0;
	pthread_join(th[0], &b1);
	pthread_join(th[1], &b2);
	ok &= b1 == NULL && b2 == NULL;
	ok &= pmtracepoint("hpt") == 0;	/* the same tag by name */
	pmtracehandle_free(h);
	pmtracehandle_free(o);
	pmtracehandle_free(NULL);
	return ok ? 0 : 1;
}

static void handles(void **state)
{
	struct trace_stats s;

	(void)state;
	for (int shm = 1; shm >= 0; shm--) {
		if (!shm)
			setenv("PCP_TRACE_SHM", "0", 1);
		child_ok("handles");
		wait_count(TRACE_TYPE_POINT, "hpt", 1001 * (2 - shm));
		wait_count(TRACE_TYPE_OBSERVE, "hobs", 100 * (2 - shm));
		wait_count(TRACE_TYPE_COUNTER, "hobs", 100 * (2 - shm));
		count_of(TRACE_TYPE_OBSERVE, "hobs", &s);
		assert_true(s.value == 100.0);
	}
	unsetenv("PCP_TRACE_SHM");
}

/* A local socket of the agent's, not registered; -1 if refused at once. */
static int local_socket(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	int n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, TRACE_SHM_SOCK_FMT,
			 tra_listener_port(fx.l));

	assert_int_equal(connect(fd, (struct sockaddr *)&sa,
				 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)), 0);
	return fd;
}

/*
 * Local sockets held open without a registration are bounded (-c 1: 65
 * at once); past that the agent closes them, and once they go, a client
 * gets its segment as usual.
 */
static void socket_flood(void **state)
{
	int fds[80], closed = 0;
	char byte;

	(void)state;
	for (int i = 0; i < 80; i++)
		fds[i] = local_socket();
	for (int i = 0; i < 80; i++) {
		struct pollfd p = { .fd = fds[i], .events = POLLIN };

		if (poll(&p, 1, i < 65 ? 0 : 2000) == 1 && recv(fds[i], &byte, 1, 0) == 0)
			closed++;
	}
	assert_int_equal(closed, 15);
	for (int i = 0; i < 80; i++)
		close(fds[i]);
	usleep(200000);
	run(1, EXIT, 0);
}

/* In a child: the second tag is refused, and a sync caller hears so. */
static int child_cap(void)
{
	int ok = pmtracepoint("first") == 0 && trace__shm_on();
	int rc = 0;

	ok &= pmtracepoint("second") == 0;	/* the agent has not looked yet */
	for (int i = 0; i < 500 && rc == 0; i++) {
		usleep(10000);
		rc = pmtracepoint("second");
	}
	return ok && rc == -ENOSPC ? 0 : 1;
}

/* -t 1: the second tag of a kind is refused; a sync caller hears so. */
static void tag_cap(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = spawn("cap", NULL, NULL, NULL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	wait_count(TRACE_TYPE_POINT, "first", 1);
	assert_int_equal(tra_agg_lookup(fx.agg, TRACE_TYPE_POINT, "second"), -ENOENT);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(shm_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(shm_underscore_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(shm_killed, setup, teardown),
		cmocka_unit_test_setup_teardown(pdu_when_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(tag_cap, setup_cap, teardown),
		cmocka_unit_test_setup_teardown(hostile_registrations, setup, teardown),
		cmocka_unit_test_setup_teardown(forked, setup, teardown),
		cmocka_unit_test_setup_teardown(thread_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(denied, setup_deny, teardown),
		cmocka_unit_test_setup_teardown(handles, setup, teardown),
		cmocka_unit_test_setup_teardown(socket_flood, setup_one, teardown),
	};

	if (argc >= 3 && strcmp(argv[1], "child") == 0) {
		if (strcmp(argv[2], "cap") == 0)
			return child_cap();
		if (strcmp(argv[2], "fork") == 0)
			return child_fork();
		if (strcmp(argv[2], "threads") == 0)
			return child_threads();
		if (strcmp(argv[2], "denied") == 0)
			return child_denied();
		if (strcmp(argv[2], "handles") == 0)
			return child_handles();
		if (argc == 6)
			return child(atoi(argv[3]), (enum ending)atoi(argv[4]), atoi(argv[5]));
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
