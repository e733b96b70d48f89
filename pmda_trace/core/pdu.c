/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pdu.c - the agent's view of a client's PDUs: DATA through the shared
 * decoder (common/trace_decode.c) plus the agent's own rules, and ACKs.
 */
#include <pcp/trace_dev.h>

#include "pdu.h"

static int bad(const char **why, const char *reason)
{
	*why = reason;
	return TRACE_PDU_BAD;
}

int tra_pdu_decode(const unsigned char *buf, size_t avail,
		struct trace_data *out, size_t *used, const char **why)
{
	uint32_t len;

	if (avail < TRACE_HDR_LEN)
		return TRACE_PDU_NEED_MORE;
	len = trace_get32(buf + TRACE_OFF_LEN);
	if (len < TRACE_PDU_MIN || len > TRACE_DATA_MAX)
		return bad(why, "illegal PDU length");
	if (trace_get32(buf + TRACE_OFF_TYPE) != TRACE_WIRE_DATA)
		return bad(why, "unknown PDU type");
	if (avail < len)
		return TRACE_PDU_NEED_MORE;
	switch (sdk_trace_data_decode(buf, len, TRACE_TAGLEN_MAX, out)) {
	case TRACE_DATA_OK:
		break;
	case TRACE_DATA_SHORT:
		return bad(why, "DATA PDU too short");
	case TRACE_DATA_VERSION:
		return bad(why, "unsupported DATA version");
	case TRACE_DATA_TAGLEN:
		return bad(why, "bad tag length");
	}
	if (out->type < TRACE_FIRST_TYPE || out->type > TRACE_LAST_TYPE)
		return bad(why, "unknown trace type");
	if (out->taglen == 0)
		return bad(why, "empty tag");
	*used = len;
	return TRACE_PDU_OK;
}

void tra_pdu_ack(unsigned char out[TRACE_ACK_LEN], int32_t value, int32_t pid)
{
	trace_put_ack(out, value, (uint32_t)pid);
}
