/* The trace agent's DATA decoder and ACK encoder (pdu.h says how they read a stream). */
#include <string.h>
#include <pcp/trace_dev.h>
#include "trace_wire.h"

#include "pdu.h"

static int bad(const char **why, const char *reason)
{
	*why = reason;
	return TRACE_PDU_BAD;
}

int trace_pdu_decode(const unsigned char *buf, size_t avail,
		struct trace_data *out, size_t *used, const char **why)
{
	uint32_t len, taglen;
	const unsigned char *nul;

	if (avail < TRACE_HDR_LEN)
		return TRACE_PDU_NEED_MORE;
	len = trace_get32(buf);
	if (len < TRACE_ACK_LEN || len > TRACE_PDU_MAXLEN)
		return bad(why, "illegal PDU length");
	if (trace_get32(buf + 4) != TRACE_PDU_DATA)
		return bad(why, "unknown PDU type");
	if (avail < len)
		return TRACE_PDU_NEED_MORE;
	if (len < TRACE_DATA_MIN)
		return bad(why, "DATA PDU too short");
	if (buf[12] != TRACE_PDU_VERSION)
		return bad(why, "unsupported DATA version");
	taglen = buf[13];
	if (taglen == 0 || TRACE_DATA_MIN + taglen > len)
		return bad(why, "bad tag length");
	if (buf[14] < TRACE_FIRST_TYPE || buf[14] > TRACE_LAST_TYPE)
		return bad(why, "unknown trace type");
	out->type = buf[14];
	out->sync = (buf[15] & 0x80) != 0;
	out->value = trace_get_double(buf + 16);
	out->tag = (const char *)buf + TRACE_DATA_MIN;
	/* the tag ends at its NUL, or at taglen when the NUL is missing */
	nul = memchr(buf + TRACE_DATA_MIN, '\0', taglen);
	out->taglen = nul ? (size_t)(nul - (buf + TRACE_DATA_MIN)) : taglen;
	if (out->taglen == 0)
		return bad(why, "empty tag");
	*used = len;
	return TRACE_PDU_OK;
}

void trace_pdu_ack(unsigned char out[TRACE_ACK_LEN], int32_t value, int32_t pid)
{
	trace_put_ack(out, value, (uint32_t)pid);
}
