/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_decode.c - the one decoder of a trace DATA PDU
 * (docs/trace-protocol.md §2), shared by libpcp_trace and pmda_trace.
 */
#include <string.h>

#include "trace_decode.h"
#include "trace_wire.h"

enum trace_data_verdict sdk_trace_data_decode(const unsigned char *pdu,
		size_t len, size_t taglen_max, struct trace_data *out)
{
	const unsigned char *tag = pdu + TRACE_OFF_TAG;
	const unsigned char *nul;
	size_t taglen;

	if (len < TRACE_DATA_FIXED)
		return TRACE_DATA_SHORT;
	if (pdu[TRACE_OFF_VERSION] != TRACE_PDU_VERSION)
		return TRACE_DATA_VERSION;
	taglen = pdu[TRACE_OFF_TAGLEN];
	if (taglen == 0 || taglen > taglen_max || TRACE_DATA_FIXED + taglen > len)
		return TRACE_DATA_TAGLEN;
	out->type = pdu[TRACE_OFF_TAGTYPE];
	out->sync = (pdu[TRACE_OFF_FLAGS] & TRACE_SYNC_FLAG) != 0;
	out->value = trace_get_double(pdu + TRACE_OFF_VALUE);
	out->tag = (const char *)tag;
	out->wire_taglen = taglen;
	/* the tag ends at its NUL, or at taglen when the NUL is missing */
	nul = memchr(tag, '\0', taglen);
	out->taglen = nul ? (size_t)(nul - tag) : taglen;
	return TRACE_DATA_OK;
}
