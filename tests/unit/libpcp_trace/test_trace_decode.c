/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one DATA decoder (common/trace_decode.c) and its two callers: the
 * client library's __pmtracedecodedata and the agent's tra_pdu_decode.
 * Each hostile PDU goes through all three; the expected outcomes are the
 * rules of docs/trace-protocol.md §2.3 (PCP's agent decode) and docs/compatibility.md
 * "Compatibility" (our agent takes tags up to 254 characters, refuses
 * unknown types and empty tags). PDUs are built here byte by byte, not
 * with the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <pcp/trace.h>
#include <pcp/trace_dev.h>

#include "trace_decode.h"
#include "../../../pmda_trace/core/pdu.h"

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* A DATA PDU of @len bytes: taglen field @taglen, tag @tag (copied with its NUL). */
static void make(unsigned char *b, uint32_t len, int version, int taglen,
		int type, const char *tag)
{
	memset(b, '~', 300);
	be32(b, len);
	be32(b + 4, 0x7051);
	be32(b + 8, 4321);
	b[12] = (unsigned char)version;
	b[13] = (unsigned char)taglen;
	b[14] = (unsigned char)type;
	b[15] = 0x80;
	be32(b + 16, 0x40040000);	/* 2.5 */
	be32(b + 20, 0);
	if (tag)
		memcpy(b + 24, tag, strlen(tag) + 1);
}

/* __pmtracedecodedata on a copy of @b, header in host order as __pmtracegetPDU leaves it. */
static int lib_decode(const unsigned char *b, uint32_t len, char **tag, int *taglen)
{
	static __pmTracePDU pdu[300 / sizeof(__pmTracePDU)];
	__pmTracePDUHdr *hdr = (__pmTracePDUHdr *)pdu;
	int type, proto;
	double value;

	memcpy(pdu, b, sizeof(pdu));
	hdr->len = (int)len;
	hdr->type = TRACE_PDU_DATA;
	hdr->from = 4321;
	*tag = NULL;
	return __pmtracedecodedata(pdu, tag, taglen, &type, &proto, &value);
}

struct hostile {
	const char *what;
	uint32_t len;
	int version, taglen, type;
	const char *tag;
	int verdict;		/* sdk_trace_data_decode with the agent's limit */
	int lib;		/* __pmtracedecodedata */
	const char *agent;	/* tra_pdu_decode's reason, NULL: accepted */
};

static const struct hostile cases[] = {
	{ "captured", 28, 1, 3, 1, "tx", TRACE_DATA_OK, 0, NULL },
	{ "short: header and control word only", 16, 1, 3, 1, NULL,
	  TRACE_DATA_SHORT, PMTRACE_ERR_IPC, "DATA PDU too short" },
	{ "short: 23 bytes", 23, 1, 1, 1, NULL,
	  TRACE_DATA_SHORT, PMTRACE_ERR_IPC, "DATA PDU too short" },
	{ "version 2", 28, 2, 3, 1, "tx",
	  TRACE_DATA_VERSION, PMTRACE_ERR_VERSION, "unsupported DATA version" },
	{ "version 0", 28, 0, 3, 1, "tx",
	  TRACE_DATA_VERSION, PMTRACE_ERR_VERSION, "unsupported DATA version" },
	{ "taglen 0", 28, 1, 0, 1, "tx",
	  TRACE_DATA_TAGLEN, PMTRACE_ERR_IPC, "bad tag length" },
	{ "taglen past len", 28, 1, 5, 1, "tx",
	  TRACE_DATA_TAGLEN, PMTRACE_ERR_IPC, "bad tag length" },
	{ "taglen 255 in a 24-byte PDU", 24, 1, 255, 1, NULL,
	  TRACE_DATA_TAGLEN, PMTRACE_ERR_IPC, "bad tag length" },
	{ "taglen fills len exactly", 27, 1, 3, 1, "tx", TRACE_DATA_OK, 0, NULL },
	{ "missing NUL: the tag is taglen bytes", 28, 1, 3, 1, "txnx",
	  TRACE_DATA_OK, 0, NULL },
	/* the differences docs/compatibility.md lists for our agent, not the decoder's */
	{ "tag type 0", 28, 1, 3, 0, "tx", TRACE_DATA_OK, 0, "unknown trace type" },
	{ "tag type 5", 28, 1, 3, 5, "tx", TRACE_DATA_OK, 0, "unknown trace type" },
	{ "empty tag", 28, 1, 1, 2, "", TRACE_DATA_OK, 0, "empty tag" },
	{ "125 characters: over PCP's agent's limit", 152, 1, 126, 3, NULL,
	  TRACE_DATA_OK, PMTRACE_ERR_IPC, NULL },
	{ "124 characters", 152, 1, 125, 3, NULL, TRACE_DATA_OK, 0, NULL },
};

static void hostile_pdus(void **state)
{
	unsigned char b[300];
	char long_tag[130];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct hostile *c = &cases[i];
		struct trace_data d, a;
		const char *why = NULL;
		size_t used = 0;
		char *tag;
		int taglen, v, r;

		print_message("%s\n", c->what);
		if (c->tag == NULL && c->len == 152) {
			memset(long_tag, 'y', (size_t)c->taglen - 1);
			long_tag[c->taglen - 1] = '\0';
			make(b, c->len, c->version, c->taglen, c->type, long_tag);
		} else {
			make(b, c->len, c->version, c->taglen, c->type, c->tag);
		}
		if (c->tag && strlen(c->tag) + 1 > (size_t)c->taglen && c->taglen > 0)
			b[24 + c->taglen] = '~';	/* no NUL inside the tag field */

		v = sdk_trace_data_decode(b, c->len, 255, &d);
		assert_int_equal(v, c->verdict);

		r = lib_decode(b, c->len, &tag, &taglen);
		assert_int_equal(r, c->lib);
		if (r == 0) {
			assert_int_equal(taglen, c->taglen);
			assert_int_equal(strlen(tag), d.taglen);
			assert_memory_equal(tag, b + 24, d.taglen);
		}
		free(tag);

		r = tra_pdu_decode(b, c->len, &a, &used, &why);
		if (c->agent == NULL) {
			assert_int_equal(r, TRACE_PDU_OK);
			assert_int_equal(used, c->len);
			assert_int_equal(a.taglen, d.taglen);
			assert_ptr_equal(a.tag, (const char *)b + 24);
			assert_true(a.value == 2.5);
			assert_true(a.sync);
		} else {
			assert_int_equal(r, TRACE_PDU_BAD);
			assert_string_equal(why, c->agent);
		}
	}
}

/* No NUL inside taglen: both callers see the same tag of taglen bytes. */
static void missing_nul(void **state)
{
	unsigned char b[300];
	struct trace_data a;
	const char *why;
	size_t used;
	char *tag;
	int taglen;

	(void)state;
	make(b, 28, 1, 3, 2, "abcdef");
	assert_int_equal(lib_decode(b, 28, &tag, &taglen), 0);
	assert_string_equal(tag, "abc");
	free(tag);
	assert_int_equal(tra_pdu_decode(b, 28, &a, &used, &why), TRACE_PDU_OK);
	assert_int_equal(a.taglen, 3);
	assert_memory_equal(a.tag, "abc", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hostile_pdus),
		cmocka_unit_test(missing_nul),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
