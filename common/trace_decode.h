/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one DATA PDU decoder (docs/trace-protocol.md §2.3), used by the client
 * library's __pmtracedecodedata and by the agent's stream decoder. It
 * checks the PDU's structure; what a caller then refuses (tag types, empty
 * tags) is its own policy.
 */
#ifndef TRACE_DECODE_H
#define TRACE_DECODE_H

#include <stddef.h>

struct trace_data {
	int type;		/* the tag type field, not range-checked */
	int sync;		/* the sender waits for an ACK */
	double value;
	const char *tag;	/* inside the PDU, not NUL-terminated */
	size_t taglen;		/* up to the first NUL within the tag field */
	size_t wire_taglen;	/* the taglen field (NUL counted) */
};

enum trace_data_verdict {
	TRACE_DATA_OK = 0,
	TRACE_DATA_SHORT,	/* len below the fixed part */
	TRACE_DATA_VERSION,	/* not TRACE_PDU_VERSION */
	TRACE_DATA_TAGLEN,	/* taglen 0, over @taglen_max, or past len */
};

/*
 * sdk_trace_data_decode - decode the DATA PDU at @pdu, @len bytes long (the
 * header's len, which the caller has checked against what it holds; the
 * header itself is not read). The tag field may hold at most @taglen_max
 * bytes (NUL counted). The checks run in this order: length, version,
 * taglen; *@out is filled only on TRACE_DATA_OK.
 */
enum trace_data_verdict sdk_trace_data_decode(const unsigned char *pdu,
		size_t len, size_t taglen_max, struct trace_data *out);

#endif
