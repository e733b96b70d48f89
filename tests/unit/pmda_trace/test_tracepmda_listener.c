/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_trace listener on loopback with raw clients: greetings and
 * refusals (docs/trace-protocol.md §2.2, §6.2), ACKs carrying the tag type (§4.1), and
 * the robustness rules our agent adds: a partial PDU or a silent client
 * blocks nobody, a bad PDU closes only its sender, delivered data is kept.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <urcu.h>
#include <pcp/trace.h>

#include "../../../pmda_trace/core/listener.h"
#include "trace_wire.h"

struct fixture {
	struct trace_agg *agg;
	struct trace_listener *l;
	struct access_list *acl;
};

static int setup_with(void **state, unsigned max_clients, const char *rule)
{
	static struct fixture f;
	struct trace_listener_cfg cfg = { .bind_addr = INADDR_LOOPBACK };
	char why[64];

	memset(&f, 0, sizeof(f));
	f.agg = tra_agg_new(60, 5, 0, NULL, NULL);
	if (rule) {
		f.acl = tra_access_new();
		assert_int_equal(tra_access_add(f.acl, rule, why, sizeof(why)), 0);
	}
	cfg.agg = f.agg;
	cfg.access = f.acl;
	cfg.max_clients = max_clients;
	f.l = tra_listener_start(&cfg);
	assert_non_null(f.l);
	*state = &f;
	return 0;
}

static int setup(void **state) { return setup_with(state, 0, NULL); }
static int setup_limit(void **state) { return setup_with(state, 2, NULL); }
static int setup_deny(void **state) { return setup_with(state, 0, "disallow:127.0.0.1"); }

static int teardown(void **state)
{
	struct fixture *f = *state;

	tra_listener_stop(f->l);
	tra_agg_free(f->agg);
	tra_access_free(f->acl);
	return 0;
}

static int connect_to(struct fixture *f)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(tra_listener_port(f->l));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

/* Read one 16-byte ACK within 2 s; returns its value, or 99999 on EOF. */
static int32_t read_ack(int fd)
{
	unsigned char b[16];
	size_t got = 0;
	struct pollfd p = { fd, POLLIN, 0 };

	while (got < sizeof(b)) {
		ssize_t n;

		assert_int_equal(poll(&p, 1, 2000), 1);
		n = read(fd, b + got, sizeof(b) - got);
		if (n <= 0)
			return 99999;
		got += (size_t)n;
	}
	assert_int_equal(b[3], 16);
	assert_int_equal(b[6], 0x70);
	assert_int_equal(b[7], 0x50);
	return (int32_t)((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 | (uint32_t)b[14] << 8 | b[15]);
}

static int closed_by_peer(int fd)
{
	char b;
	struct pollfd p = { fd, POLLIN, 0 };

	if (poll(&p, 1, 2000) != 1)
		return 0;
	return read(fd, &b, 1) <= 0;
}

/* A DATA PDU as PCP's library builds it (docs/trace-protocol.md §2.3). */
static size_t data_pdu(unsigned char *b, int type, int sync, const char *tag, double v)
{
	size_t taglen = strlen(tag) + 1, len = (24 + taglen + 3) & ~(size_t)3;
	uint64_t u;

	memset(b, '~', len);
	b[0] = b[1] = 0;
	b[2] = (unsigned char)(len >> 8);
	b[3] = (unsigned char)len;
	b[4] = b[5] = 0;
	b[6] = 0x70;
	b[7] = 0x51;
	memset(b + 8, 0, 4);
	b[12] = 1;
	b[13] = (unsigned char)taglen;
	b[14] = (unsigned char)type;
	b[15] = sync ? 0x80 : 0;
	memcpy(&u, &v, 8);
	for (int i = 0; i < 8; i++)
		b[16 + i] = (unsigned char)(u >> (56 - 8 * i));
	memcpy(b + 24, tag, taglen);
	return len;
}

static void send_all(int fd, const unsigned char *b, size_t n)
{
	assert_int_equal(write(fd, b, n), (ssize_t)n);
}

static uint64_t count_of(struct fixture *f, int type, const char *tag)
{
	struct trace_stats s;
	int inst = tra_agg_lookup(f->agg, type, tag);

	if (inst < 0 || tra_agg_get(f->agg, type, inst, &s) < 0)
		return 0;
	return s.count;
}

static void wait_count(struct fixture *f, int type, const char *tag, uint64_t want)
{
	for (int i = 0; i < 200 && count_of(f, type, tag) != want; i++)
		usleep(10000);
	assert_int_equal(count_of(f, type, tag), want);
}

/*
 * Our agent's greeting: "SD" and extension version 2 (docs/compatibility.md, libpcp_trace
 * row on the greeting), >= 0 so PCP's client library accepts it.
 */
#define GREETING 0x53440002

static void greeting_and_acks(void **state)
{
	struct fixture *f = *state;
	unsigned char b[300];
	int fd = connect_to(f);

	assert_int_equal(read_ack(fd), GREETING);
	assert_int_equal(trace_greeting_ext(GREETING), TRACE_GREETING_SDK_EXT);
	assert_int_equal(trace_greeting_ext(1), -1);	/* PCP's agent */
	for (int type = 1; type <= 4; type++) {
		send_all(fd, b, data_pdu(b, type, 1, "tag", 2.5));
		assert_int_equal(read_ack(fd), type);	/* the ACK carries the type */
	}
	send_all(fd, b, data_pdu(b, 3, 0, "async", 1));	/* no ACK for async */
	send_all(fd, b, data_pdu(b, 2, 1, "sync", -1));
	assert_int_equal(read_ack(fd), 2);
	wait_count(f, 3, "async", 1);
	assert_int_equal(count_of(f, 1, "tag"), 1);
	close(fd);
}

/* One byte at a time, and many PDUs in one write: both decode. */
static void stream_splits(void **state)
{
	struct fixture *f = *state;
	unsigned char b[300 * 50];
	size_t n = 0;
	int fd = connect_to(f);

	assert_int_equal(read_ack(fd), GREETING);
	for (int i = 0; i < 50; i++)
		n += data_pdu(b + n, 2, 0, "a-32-character-tag-for-pipelines", -1);
	send_all(fd, b, n);
	n = data_pdu(b, 2, 1, "bytewise", -1);
	for (size_t i = 0; i < n; i++) {
		send_all(fd, b + i, 1);
		usleep(200);
	}
	assert_int_equal(read_ack(fd), 2);
	wait_count(f, 2, "a-32-character-tag-for-pipelines", 50);
	close(fd);
}

static void partial_pdu_blocks_nobody(void **state)
{
	struct fixture *f = *state;
	unsigned char b[300];
	int stuck = connect_to(f), other = connect_to(f);

	assert_int_equal(read_ack(stuck), GREETING);
	assert_int_equal(read_ack(other), GREETING);
	send_all(stuck, b, data_pdu(b, 2, 1, "stuck", -1) - 5);	/* half a PDU */
	for (int i = 0; i < 20; i++) {
		send_all(other, b, data_pdu(b, 2, 1, "other", -1));
		assert_int_equal(read_ack(other), 2);
	}
	assert_int_equal(count_of(f, 2, "stuck"), 0);
	close(stuck);	/* closing mid-PDU records nothing */
	close(other);
	assert_int_equal(count_of(f, 2, "other"), 20);
}

static void bad_pdu_closes_only_sender(void **state)
{
	struct fixture *f = *state;
	unsigned char b[300];
	int bad = connect_to(f), good = connect_to(f);

	assert_int_equal(read_ack(bad), GREETING);
	assert_int_equal(read_ack(good), GREETING);
	send_all(bad, b, data_pdu(b, 2, 0, "before", -1));
	data_pdu(b, 7, 1, "x", 0);	/* unknown tag type */
	send_all(bad, b, 28);
	assert_true(closed_by_peer(bad));
	send_all(good, b, data_pdu(b, 3, 1, "fine", 1));
	assert_int_equal(read_ack(good), 3);
	assert_int_equal(count_of(f, 2, "before"), 1);	/* delivered data kept */
	close(bad);
	close(good);
}

static void connection_limit(void **state)
{
	struct fixture *f = *state;
	int a = connect_to(f), b = connect_to(f), c;

	assert_int_equal(read_ack(a), GREETING);
	assert_int_equal(read_ack(b), GREETING);
	c = connect_to(f);
	assert_int_equal(read_ack(c), PMTRACE_ERR_CONNLIMIT);
	assert_true(closed_by_peer(c));
	close(c);
	close(a);
	for (int i = 0; i < 200 && tra_listener_clients(f->l) > 1; i++)
		usleep(10000);
	c = connect_to(f);
	assert_int_equal(read_ack(c), GREETING);
	close(b);
	close(c);
}

static void access_denied(void **state)
{
	struct fixture *f = *state;
	int fd = connect_to(f);

	assert_int_equal(read_ack(fd), PMTRACE_ERR_PERMISSION);
	assert_true(closed_by_peer(fd));
	close(fd);
}

static void many_clients(void **state)
{
	struct fixture *f = *state;
	unsigned char b[300];
	int fds[100];

	for (int i = 0; i < 100; i++) {
		fds[i] = connect_to(f);
		assert_int_equal(read_ack(fds[i]), GREETING);
	}
	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 100; i++)
			send_all(fds[i], b, data_pdu(b, 4, 0, "shared", i));
	for (int i = 0; i < 100; i++)
		close(fds[i]);
	wait_count(f, 4, "shared", 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(greeting_and_acks, setup, teardown),
		cmocka_unit_test_setup_teardown(stream_splits, setup, teardown),
		cmocka_unit_test_setup_teardown(partial_pdu_blocks_nobody, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_pdu_closes_only_sender, setup, teardown),
		cmocka_unit_test_setup_teardown(connection_limit, setup_limit, teardown),
		cmocka_unit_test_setup_teardown(access_denied, setup_deny, teardown),
		cmocka_unit_test_setup_teardown(many_clients, setup, teardown),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
