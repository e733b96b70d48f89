#include <string.h>
#include <pcp/trace_dev.h>

#include "pdu.h"

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static double be_double(const unsigned char *p)
{
	uint64_t u = (uint64_t)be32(p) << 32 | be32(p + 4);
	double d;

	memcpy(&d, &u, sizeof(d));
	return d;
}

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
	len = be32(buf);
	if (len < TRACE_ACK_LEN || len > TRACE_PDU_MAXLEN)
		return bad(why, "illegal PDU length");
	if (be32(buf + 4) != TRACE_PDU_DATA)
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
	out->value = be_double(buf + 16);
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
	put_be32(out, TRACE_ACK_LEN);
	put_be32(out + 4, TRACE_PDU_ACK);
	put_be32(out + 8, (uint32_t)pid);
	put_be32(out + 12, (uint32_t)value);
}
