/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decoding the trace protocol's DATA PDUs on the agent side, from a
 * client's byte stream (docs/trace-protocol.md §2.1, §2.2, §2.3, §5.1), and encoding ACKs.
 *
 * The decoder works on whatever bytes have arrived: it reports "need more"
 * instead of blocking (PCP's agent blocks all clients and pmcd on a
 * partial PDU) and accepts any split of the stream (PCP's drops a client
 * when fewer than 12 bytes remain at a PDU boundary). It frames the PDU,
 * leaves the DATA body to sdk_trace_data_decode, then applies the agent's
 * own rules: a known tag type and a non-empty tag. It takes every PDU up
 * to TRACE_DATA_MAX, so every tag the client library sends (PCP's agent
 * stops at TRACE_PCP_PDU_MAX and TRACE_PCP_TAG_MAX).
 */
#ifndef TRACE_PDU_H
#define TRACE_PDU_H

#include <stddef.h>
#include <stdint.h>

#include "trace_decode.h"
#include "trace_wire.h"

enum {
	TRACE_PDU_NEED_MORE = 0,
	TRACE_PDU_OK = 1,
	TRACE_PDU_BAD = -1,
};

/*
 * tra_pdu_decode - decode the PDU at the start of @buf (@avail bytes).
 * TRACE_PDU_OK: *@out filled, *@used = its length. TRACE_PDU_NEED_MORE:
 * nothing consumed. TRACE_PDU_BAD: *@why says what was wrong; the client
 * should be dropped (the stream can no longer be framed or trusted).
 */
int tra_pdu_decode(const unsigned char *buf, size_t avail,
		struct trace_data *out, size_t *used, const char **why);

/* tra_pdu_ack - the 16-byte ACK carrying @value, sent from @pid. */
void tra_pdu_ack(unsigned char out[TRACE_ACK_LEN], int32_t value, int32_t pid);

#endif
