/*
 * Decoding the trace protocol's DATA PDUs on the agent side, from a
 * client's byte stream (docs/trace-protocol.md §2.1, §2.2, §2.3, §5.1), and encoding ACKs.
 *
 * The decoder works on whatever bytes have arrived: it reports "need more"
 * instead of blocking (PCP's agent blocks all clients and pmcd on a
 * partial PDU) and accepts any split of the stream (PCP's drops a client
 * when fewer than 12 bytes remain at a PDU boundary).
 */
#ifndef TRACE_PDU_H
#define TRACE_PDU_H

#include <stddef.h>
#include <stdint.h>

#define TRACE_HDR_LEN	12
#define TRACE_ACK_LEN	16
#define TRACE_DATA_MIN	24
/* 24 + a 255-byte tag padded to 256: every tag the client library sends.
 * PCP's agent stops at 272 and refuses tags over 124 characters. */
#define TRACE_PDU_MAXLEN 280

struct trace_data {
	int type;		/* TRACE_TYPE_* (1..4) */
	int sync;		/* the sender waits for an ACK */
	double value;
	const char *tag;	/* inside the input buffer, not NUL-terminated */
	size_t taglen;		/* up to the first NUL within the tag field */
};

enum {
	TRACE_PDU_NEED_MORE = 0,
	TRACE_PDU_OK = 1,
	TRACE_PDU_BAD = -1,
};

/*
 * trace_pdu_decode - decode the PDU at the start of @buf (@avail bytes).
 * TRACE_PDU_OK: *@out filled, *@used = its length. TRACE_PDU_NEED_MORE:
 * nothing consumed. TRACE_PDU_BAD: *@why says what was wrong; the client
 * should be dropped (the stream can no longer be framed or trusted).
 */
int trace_pdu_decode(const unsigned char *buf, size_t avail,
		struct trace_data *out, size_t *used, const char **why);

/* trace_pdu_ack - the 16-byte ACK carrying @value, sent from @pid. */
void trace_pdu_ack(unsigned char out[TRACE_ACK_LEN], int32_t value, int32_t pid);

#endif
