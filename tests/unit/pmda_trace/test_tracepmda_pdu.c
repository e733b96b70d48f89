/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_trace PDU decoding. The byte vectors are the captures of real
 * traffic in docs/trace-protocol.md §2; the rejections are those of §2.3 and §5.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <pcp/trace_dev.h>

#include "../../../pmda_trace/core/pdu.h"

static const unsigned char txn[] = {	/* sync transaction, 0.100857 s */
	0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x70, 0x51, 0x00, 0x00, 0x25, 0x7b,
	0x01, 0x04, 0x01, 0x80, 0x3f, 0xb9, 0xd1, 0xc3, 0xac, 0x92, 0x9a, 0xa2,
	0x74, 0x78, 0x6e, 0x00 };
static const unsigned char pt[] = {	/* sync point, padding '~' */
	0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x70, 0x51, 0x00, 0x00, 0x25, 0x7b,
	0x01, 0x03, 0x02, 0x80, 0xbf, 0xf0, 0, 0, 0, 0, 0, 0,
	0x70, 0x74, 0x00, 0x7e };
static const unsigned char aobs[] = {	/* async observation 2.5 */
	0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x70, 0x51, 0x00, 0x00, 0x28, 0x85,
	0x01, 0x05, 0x03, 0x00, 0x40, 0x04, 0, 0, 0, 0, 0, 0,
	0x61, 0x6f, 0x62, 0x73, 0x00, 0x7e, 0x7e, 0x7e };

static void captured_pdus(void **state)
{
	struct trace_data d;
	const char *why = NULL;
	size_t used = 0;

	(void)state;
	assert_int_equal(tra_pdu_decode(txn, sizeof(txn), &d, &used, &why), TRACE_PDU_OK);
	assert_int_equal(used, 28);
	assert_int_equal(d.type, 1);
	assert_true(d.sync);
	assert_true(d.value > 0.100856 && d.value < 0.100858);
	assert_int_equal(d.taglen, 3);
	assert_memory_equal(d.tag, "txn", 3);

	assert_int_equal(tra_pdu_decode(pt, sizeof(pt), &d, &used, &why), TRACE_PDU_OK);
	assert_int_equal(d.type, 2);
	assert_true(d.value == -1.0);
	assert_int_equal(d.taglen, 2);

	assert_int_equal(tra_pdu_decode(aobs, sizeof(aobs), &d, &used, &why), TRACE_PDU_OK);
	assert_int_equal(used, 32);
	assert_int_equal(d.type, 3);
	assert_false(d.sync);
	assert_true(d.value == 2.5);
	assert_memory_equal(d.tag, "aobs", 4);
}

/* Every split of a stream of two PDUs decodes to the same two PDUs. */
static void any_split(void **state)
{
	unsigned char stream[sizeof(txn) + sizeof(aobs)];
	struct trace_data d;
	const char *why;
	size_t used;

	(void)state;
	memcpy(stream, txn, sizeof(txn));
	memcpy(stream + sizeof(txn), aobs, sizeof(aobs));
	for (size_t n = 0; n < sizeof(txn); n++)
		assert_int_equal(tra_pdu_decode(stream, n, &d, &used, &why), TRACE_PDU_NEED_MORE);
	assert_int_equal(tra_pdu_decode(stream, sizeof(stream), &d, &used, &why), TRACE_PDU_OK);
	for (size_t n = 0; n < sizeof(aobs); n++)
		assert_int_equal(tra_pdu_decode(stream + used, n, &d, &used, &why),
				 TRACE_PDU_NEED_MORE);
}

static int decode_mutated(size_t off, unsigned char v, const char **why)
{
	unsigned char b[sizeof(txn)];
	struct trace_data d;
	size_t used;

	memcpy(b, txn, sizeof(b));
	b[off] = v;
	return tra_pdu_decode(b, sizeof(b), &d, &used, why);
}

static void rejections(void **state)
{
	const char *why = NULL;

	(void)state;
	assert_int_equal(decode_mutated(3, 15, &why), TRACE_PDU_BAD);	/* len 15 */
	assert_string_equal(why, "illegal PDU length");
	assert_int_equal(decode_mutated(2, 2, &why), TRACE_PDU_BAD);	/* len 540 */
	assert_int_equal(decode_mutated(7, 0x50, &why), TRACE_PDU_BAD);	/* an ACK */
	assert_string_equal(why, "unknown PDU type");
	assert_int_equal(decode_mutated(7, 0x52, &why), TRACE_PDU_BAD);
	assert_int_equal(decode_mutated(12, 2, &why), TRACE_PDU_BAD);	/* version 2 */
	assert_int_equal(decode_mutated(13, 0, &why), TRACE_PDU_BAD);	/* taglen 0 */
	assert_int_equal(decode_mutated(13, 5, &why), TRACE_PDU_BAD);	/* past len */
	assert_int_equal(decode_mutated(14, 0, &why), TRACE_PDU_BAD);
	assert_string_equal(why, "unknown trace type");
	assert_int_equal(decode_mutated(14, 5, &why), TRACE_PDU_BAD);
	assert_int_equal(decode_mutated(24, 0, &why), TRACE_PDU_BAD);	/* empty tag */
	/* len 20: a header, then too short for DATA */
	assert_int_equal(decode_mutated(3, 20, &why), TRACE_PDU_BAD);
	/* no NUL inside taglen: the tag is taglen bytes (docs/trace-protocol.md §2.3) */
	{
		struct trace_data d;
		unsigned char b[sizeof(txn)];
		size_t used;

		memcpy(b, txn, sizeof(b));
		b[27] = 'x';
		assert_int_equal(tra_pdu_decode(b, sizeof(b), &d, &used, &why), TRACE_PDU_OK);
		assert_int_equal(d.taglen, 4);
	}
}

static void long_tags(void **state)
{
	unsigned char b[TRACE_DATA_MAX];
	struct trace_data d;
	const char *why;
	size_t used;

	(void)state;
	memset(b, 'x', sizeof(b));
	memcpy(b, txn, 16);
	b[2] = 0x01;
	b[3] = 0x18;		/* len 280 = 24 + 256 */
	b[13] = 255;		/* 254 chars and the NUL */
	b[24 + 254] = '\0';
	assert_int_equal(tra_pdu_decode(b, sizeof(b), &d, &used, &why), TRACE_PDU_OK);
	assert_int_equal(d.taglen, 254);
}

static void ack_bytes(void **state)
{
	/* the refused greeting captured in docs/trace-protocol.md §2 */
	const unsigned char refused[] = { 0, 0, 0, 0x10, 0, 0, 0x70, 0x50,
		0, 0, 0x37, 0xc4, 0xff, 0xff, 0xd1, 0x16 };
	unsigned char out[TRACE_ACK_LEN];

	(void)state;
	tra_pdu_ack(out, -12010, 0x37c4);
	assert_memory_equal(out, refused, sizeof(out));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(captured_pdus),
		cmocka_unit_test(any_split),
		cmocka_unit_test(rejections),
		cmocka_unit_test(long_tags),
		cmocka_unit_test(ack_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
