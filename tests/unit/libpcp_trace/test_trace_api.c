/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libpcp_trace without an agent: argument checks, the transaction state
 * machine, error texts, pmtracestate, the Fortran entry points, and the
 * internal entry points pmdatrace uses (hash tables, PDU reading and
 * decoding), the latter over socket pairs. Expected values from
 * docs/trace-protocol.md §1, §2 and PCP's library as captured there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <cmocka.h>
#include <pcp/trace.h>
#include <pcp/trace_dev.h>

/* PCP's hash table ABI, as pmdatrace sees it (docs/trace-protocol.md §8.5) */
typedef struct hash_ent {
	void *ent;
	struct hash_ent *next;
} hash_ent_t;

typedef struct {
	size_t tsize;
	size_t esize;
	unsigned int entries;
	int (*cmp)(void *, void *);
	void (*del)(void *);
	hash_ent_t **rows;
} hash_table_t;

int __pmhashinit(hash_table_t *, size_t, size_t, int (*)(void *, void *), void (*)(void *));
int __pmhashinsert(hash_table_t *, char *, void *);
void *__pmhashlookup(hash_table_t *, char *, void *);
void __pmhashtraverse(hash_table_t *, void (*)(hash_table_t *, void *));
void __pmhashtrunc(hash_table_t *);
int pmtracebegin_(const char *, int);
int pmtraceend_(const char *, int);
int pmtracepoint_(const char *, int);
int pmtraceobs_(const char *, int, double *);
int pmtracecounter_(const char *, double *, int);
void pmtraceerrstr_(int *, char *, int);
int pmtracestate_(int *);

static char *repeat(int n)
{
	static char buf[400];

	memset(buf, 'x', (size_t)n);
	buf[n] = '\0';
	return buf;
}

static int setup(void **state)
{
	(void)state;
	pmtracestate(PMTRACE_STATE_NOAGENT);
	return 0;
}

static void test_bad_tags(void **state)
{
	(void)state;
	assert_int_equal(pmtracebegin(NULL), PMTRACE_ERR_TAGNAME);
	assert_int_equal(pmtraceend(""), PMTRACE_ERR_TAGNAME);
	assert_int_equal(pmtraceabort(NULL), PMTRACE_ERR_TAGNAME);
	assert_int_equal(pmtracepoint(""), PMTRACE_ERR_TAGNAME);
	assert_int_equal(pmtraceobs(NULL, 1), PMTRACE_ERR_TAGNAME);
	assert_int_equal(pmtracecounter("", 1), PMTRACE_ERR_TAGNAME);
	/* 124 is the agent's limit: longer tags are refused, not lost */
	assert_int_equal(pmtracepoint(repeat(124)), 0);
	assert_int_equal(pmtracepoint(repeat(125)), PMTRACE_ERR_TAGLENGTH);
	assert_int_equal(pmtraceobs(repeat(255), 1), PMTRACE_ERR_TAGLENGTH);
	assert_int_equal(pmtracebegin(repeat(300)), PMTRACE_ERR_TAGLENGTH);
	assert_int_equal(pmtraceend(repeat(125)), PMTRACE_ERR_TAGLENGTH);
	assert_int_equal(pmtraceabort(repeat(125)), PMTRACE_ERR_TAGLENGTH);
	assert_int_equal(pmtracepoint("\x01\xff odd bytes"), 0);
}

static void test_transaction_states(void **state)
{
	static const int want[] = { -12003, -12003, 0, -12001, 0, -12002,
		-12002, 0, 0, -12002 };
	int got[10];

	(void)state;
	got[0] = pmtraceend("seq");
	got[1] = pmtraceabort("seq");
	got[2] = pmtracebegin("seq");
	got[3] = pmtracebegin("seq");
	got[4] = pmtraceend("seq");
	got[5] = pmtraceend("seq");
	got[6] = pmtraceabort("seq");
	got[7] = pmtracebegin("seq");
	got[8] = pmtraceabort("seq");
	got[9] = pmtraceend("seq");
	assert_memory_equal(got, want, sizeof(want));
	/* a point of the same name is independent */
	assert_int_equal(pmtracepoint("seq"), 0);
	assert_int_equal(pmtracebegin("seq"), 0);
	assert_int_equal(pmtracebegin("other"), 0);
	assert_int_equal(pmtraceend("other"), 0);
	assert_int_equal(pmtraceend("seq"), 0);
}

static void test_errstr(void **state)
{
	static const char *const text[] = {
		"Invalid tag name - tag names cannot be NULL",
		"Transaction is already in progress - cannot begin",
		"Transaction is not currently in progress - cannot end",
		"Transaction tag was not successfully initialised",
		"Tag is already in use for a different type of tracing",
		"Tag name is too long (maximum 256 characters)",
		"IPC protocol failure",
		"Unrecognised environment variable format",
		"Application timed out connecting to the PMDA",
		"Incompatible versions between application and PMDA",
		"Cannot connect to PMDA - permission denied",
		"Cannot connect to PMDA - connection limit reached",
	};
	int i;

	(void)state;
	for (i = 0; i < 12; i++)
		assert_string_equal(pmtraceerrstr(-12000 - i), text[i]);
	assert_string_equal(pmtraceerrstr(0), "No error.");
	assert_string_equal(pmtraceerrstr(-ECONNREFUSED), strerror(ECONNREFUSED));
	assert_string_equal(pmtraceerrstr(-12012), "Unknown error code.");
	assert_string_equal(pmtraceerrstr(5), "Unknown error code.");
	assert_int_equal(PMTRACE_ERR_BASE, 12000);
	assert_int_equal(PMTRACE_ERR_CONNLIMIT, -12011);
}

static void test_state(void **state)
{
	int code;

	(void)state;
	assert_int_equal(pmtracestate(PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API),
			 PMTRACE_STATE_NOAGENT);
	assert_int_equal(pmtracestate(PMTRACE_STATE_NOAGENT),
			 PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API);
	code = PMTRACE_STATE_NOAGENT | PMTRACE_STATE_COMMS;
	assert_int_equal(pmtracestate_(&code), PMTRACE_STATE_NOAGENT);
	assert_int_equal(__pmstate, code);
	assert_int_equal(__pmtraceprotocol(TRACE_PROTOCOL_QUERY), TRACE_PROTOCOL_SYNC);
	pmtracestate(PMTRACE_STATE_NOAGENT);
}

static void test_fortran(void **state)
{
	char buf[60];
	int code = PMTRACE_ERR_IPC;
	double v = 2.5;

	(void)state;
	assert_int_equal(pmtracebegin_("ftx   ", 6), 0);
	assert_int_equal(pmtraceend_("ftx   ", 6), 0);
	/* trailing blanks are part of the tag */
	assert_int_equal(pmtraceend_("ftx", 3), PMTRACE_ERR_NOSUCHTAG);
	assert_int_equal(pmtracepoint_("fp", 2), 0);
	assert_int_equal(pmtraceobs_("fo", 2, &v), 0);
	assert_int_equal(pmtracecounter_("fc", &v, 2), 0);
	assert_int_equal(pmtracepoint_("", 0), PMTRACE_ERR_TAGNAME);
	memset(buf, 0, sizeof(buf));
	pmtraceerrstr_(&code, buf, 30);
	assert_memory_equal(buf, "IPC protocol failure          ", 30);
	assert_int_equal(buf[30], 0);
}

static int cmp_int(void *a, void *b)
{
	return *(int *)a == *(int *)b;
}

static int deleted;

static void del_int(void *p)
{
	deleted++;
	free(p);
}

static int visited;

static void visit(hash_table_t *t, void *e)
{
	(void)t;
	visited += *(int *)e;
}

static void test_hash(void **state)
{
	hash_table_t t;
	int v, probe;

	(void)state;
	assert_int_equal(sizeof(hash_table_t), 48);
	assert_int_equal(offsetof(hash_table_t, entries), 16);
	assert_int_equal(offsetof(hash_table_t, rows), 40);
	assert_int_equal(__pmhashinit(&t, 0, sizeof(int), cmp_int, del_int), 0);
	assert_int_equal(t.tsize, 31);
	probe = 1;
	assert_null(__pmhashlookup(&t, "a", &probe));
	for (v = 1; v <= 4; v++)
		assert_int_equal(__pmhashinsert(&t, "same.prefix", &v), 0);
	v = 10;
	assert_int_equal(__pmhashinsert(&t, "b", &v), 0);
	assert_int_equal(t.entries, 5);
	/* one row for keys sharing five characters; head first, then newest */
	{
		unsigned int h = 0;
		const char *k = "same.";

		while (*k)
			h = h * 31 + (unsigned int)*k++;
		assert_non_null(t.rows[h % 31]);
		assert_int_equal(*(int *)t.rows[h % 31]->ent, 1);
		assert_int_equal(*(int *)t.rows[h % 31]->next->ent, 4);
	}
	probe = 3;
	assert_int_equal(*(int *)__pmhashlookup(&t, "same.other", &probe), 3);
	probe = 10;
	assert_null(__pmhashlookup(&t, "same.", &probe));
	assert_int_equal(*(int *)__pmhashlookup(&t, "b", &probe), 10);
	__pmhashtraverse(&t, visit);
	assert_int_equal(visited, 20);
	__pmhashtrunc(&t);
	assert_int_equal(deleted, 5);
	assert_int_equal(t.entries, 0);
	assert_null(__pmhashlookup(&t, "b", &probe));
	free(t.rows);
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* a DATA PDU as docs/trace-protocol.md §2.3 lays it out: "obs" 3.25 sync */
static size_t make_data(unsigned char *b, const char *tag, int taglen, int type)
{
	size_t len = (24 + (size_t)taglen + 3) & ~3u;

	memset(b, '~', len);
	put32(b, (uint32_t)len);
	put32(b + 4, 0x7051);
	put32(b + 8, 1234);
	b[12] = 1;
	b[13] = (unsigned char)taglen;
	b[14] = (unsigned char)type;
	b[15] = 0x80;
	put32(b + 16, 0x400a0000);
	put32(b + 20, 0);
	memcpy(b + 24, tag, strlen(tag) + 1);
	return len;
}

static void test_getpdu_decode(void **state)
{
	unsigned char b[600];
	__pmTracePDU *pdu;
	__pmTracePDUHdr *hdr;
	char *tag;
	int sv[2], taglen, type, proto, value;
	double v;
	size_t n;

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* two PDUs in one write, the first split inside its header */
	n = make_data(b, "obs", 4, 3);
	make_data(b + n, "pt", 3, 2);
	assert_int_equal(write(sv[0], b, 5), 5);
	assert_int_equal(__pmtracemoreinput(sv[1]), 0);
	assert_int_equal(write(sv[0], b + 5, 2 * n - 5), (ssize_t)(2 * n - 5));
	assert_int_equal(__pmtracegetPDU(sv[1], TRACE_TIMEOUT_NEVER, &pdu), TRACE_PDU_DATA);
	hdr = (__pmTracePDUHdr *)pdu;
	assert_int_equal(hdr->len, 28);
	assert_int_equal(hdr->from, 1234);
	assert_int_equal(__pmtracemoreinput(sv[1]), 1);
	assert_int_equal(__pmtracedecodedata(pdu, &tag, &taglen, &type, &proto, &v), 0);
	assert_string_equal(tag, "obs");
	assert_int_equal(taglen, 4);
	assert_int_equal(type, 3);
	assert_int_equal(proto, 1);
	assert_true(v == 3.25);
	free(tag);
	assert_int_equal(__pmtracegetPDU(sv[1], TRACE_TIMEOUT_NEVER, &pdu), TRACE_PDU_DATA);
	assert_int_equal(__pmtracedecodedata(pdu, &tag, &taglen, &type, &proto, &v), 0);
	assert_string_equal(tag, "pt");
	free(tag);
	assert_int_equal(__pmtracemoreinput(sv[1]), 0);

	/* decode rules: version, taglen 0 and 126, len too short */
	n = make_data(b, "x", 2, 2);
	b[12] = 2;
	assert_int_equal(write(sv[0], b, n), (ssize_t)n);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), TRACE_PDU_DATA);
	assert_int_equal(__pmtracedecodedata(pdu, &tag, &taglen, &type, &proto, &v),
			 PMTRACE_ERR_VERSION);
	n = make_data(b, "x", 0, 2);
	assert_int_equal(write(sv[0], b, n), (ssize_t)n);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), TRACE_PDU_DATA);
	assert_int_equal(__pmtracedecodedata(pdu, &tag, &taglen, &type, &proto, &v),
			 PMTRACE_ERR_IPC);
	memset(b + 300, 'y', 130);
	b[430] = '\0';
	n = make_data(b, (char *)b + 300, 126, 2);
	assert_int_equal(write(sv[0], b, n), (ssize_t)n);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), TRACE_PDU_DATA);
	assert_int_equal(__pmtracedecodedata(pdu, &tag, &taglen, &type, &proto, &v),
			 PMTRACE_ERR_IPC);
	b[300 + 124] = '\0';
	n = make_data(b, (char *)b + 300, 125, 2);
	assert_int_equal(write(sv[0], b, n), (ssize_t)n);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), TRACE_PDU_DATA);
	assert_int_equal(__pmtracedecodedata(pdu, &tag, &taglen, &type, &proto, &v), 0);
	assert_int_equal(strlen(tag), 124);
	free(tag);

	/* ACKs */
	put32(b, 16);
	put32(b + 4, 0x7050);
	put32(b + 8, 1);
	put32(b + 12, (uint32_t)-12010);
	assert_int_equal(write(sv[0], b, 16), 16);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), TRACE_PDU_ACK);
	assert_int_equal(__pmtracedecodeack(pdu, &value), 0);
	assert_int_equal(value, -12010);
	((__pmTracePDUHdr *)pdu)->len = 20;
	assert_int_equal(__pmtracedecodeack(pdu, &value), PMTRACE_ERR_IPC);

	/* bad header length, then end of file */
	put32(b, 273);
	assert_int_equal(write(sv[0], b, 16), 16);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), PMTRACE_ERR_IPC);
	close(sv[0]);
	assert_int_equal(__pmtracegetPDU(sv[1], 0, &pdu), 0);
	__pmtracenomoreinput(sv[1]);
	close(sv[1]);
}

static void test_getpdu_timeouts(void **state)
{
	unsigned char b[64];
	__pmTracePDU *pdu;
	struct timespec t0, t1;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	setenv("PCP_TRACE_REQTIMEOUT", "0.2", 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(__pmtracegetPDU(sv[1], TRACE_TIMEOUT_DEFAULT, &pdu),
			 PMTRACE_ERR_TIMEOUT);
	/* a PDU that stops half way is abandoned after a bounded wait */
	make_data(b, "stall", 6, 2);
	assert_int_equal(write(sv[0], b, 20), 20);
	assert_int_equal(__pmtracegetPDU(sv[1], TRACE_TIMEOUT_NEVER, &pdu), PMTRACE_ERR_IPC);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	unsetenv("PCP_TRACE_REQTIMEOUT");
	close(sv[0]);
	close(sv[1]);
}

static void test_send_entry_points(void **state)
{
	static const unsigned char ack[] = { 0, 0, 0, 0x10, 0, 0, 0x70, 0x50 };
	static const unsigned char data[] = { 0x01, 0x03, 0x02, 0x80, 0xbf, 0xf0,
		0, 0, 0, 0, 0, 0, 'p', 't', 0, '~' };
	unsigned char b[64], big[300];
	char tag[255];
	__pmTracePDU *buf;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pmtracestate(0);
	assert_int_equal(__pmtracesendack(sv[0], 3), 16);
	assert_int_equal(read(sv[1], b, sizeof(b)), 16);
	assert_memory_equal(b, ack, sizeof(ack));
	assert_int_equal(b[15], 3);
	assert_int_equal(__pmtracesenddata(sv[0], "pt", 3, 2, -1.0), 28);
	assert_int_equal(read(sv[1], b, sizeof(b)), 28);
	assert_memory_equal(b + 12, data, sizeof(data));
	assert_int_equal(__pmtracesenddata(sv[0], "pt", 0, 2, -1.0), -EINVAL);
	/* the longest tag PCP's library sends: 254 characters, 24 + 255 + 1 pad */
	memset(tag, 'x', 254);
	tag[254] = '\0';
	assert_int_equal(__pmtracesenddata(sv[0], tag, 255, 4, 1.0), 280);
	assert_int_equal(recv(sv[1], big, 280, MSG_WAITALL), 280);
	assert_int_equal(big[13], 255);
	assert_int_equal(big[24 + 254], 0);
	assert_int_equal(big[279], '~');
	assert_int_equal(__pmtracesenddata(sv[0], tag, 256, 4, 1.0), -EINVAL);
	buf = __pmtracefindPDUbuf(100);
	assert_non_null(buf);
	((__pmTracePDUHdr *)buf)->len = 16;
	((__pmTracePDUHdr *)buf)->type = TRACE_PDU_ACK;
	buf[3] = 0;
	assert_int_equal(__pmtracexmitPDU(sv[0], buf), 16);
	assert_int_equal(read(sv[1], b, sizeof(b)), 16);
	assert_memory_equal(b, ack, sizeof(ack));
	__pmtracepinPDUbuf((char *)buf + 10);
	assert_int_equal(__pmtraceunpinPDUbuf(buf), 1);
	assert_int_equal(__pmtraceunpinPDUbuf(buf), 1);
	assert_int_equal(__pmtraceunpinPDUbuf(buf), 0);
	pmtracestate(PMTRACE_STATE_NOAGENT);
	assert_int_equal(__pmtracesendack(sv[0], 3), 0);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_tags),
		cmocka_unit_test(test_transaction_states),
		cmocka_unit_test(test_errstr),
		cmocka_unit_test(test_state),
		cmocka_unit_test(test_fortran),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_getpdu_decode),
		cmocka_unit_test(test_getpdu_timeouts),
		cmocka_unit_test(test_send_entry_points),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
