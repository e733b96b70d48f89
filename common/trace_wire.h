/*
 * Byte order of the trace protocol (docs/trace-protocol.md §2.1, §2.2, §2.3): every integer
 * and the double are big-endian. Shared by the client library and the
 * agent so both read and write the wire the same way.
 */
#ifndef TRACE_WIRE_H
#define TRACE_WIRE_H

#include <stdint.h>
#include <string.h>

static inline uint32_t trace_get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void trace_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

static inline double trace_get_double(const unsigned char *p)
{
	uint64_t bits = (uint64_t)trace_get32(p) << 32 | trace_get32(p + 4);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

static inline void trace_put_double(unsigned char *p, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	trace_put32(p, (uint32_t)(bits >> 32));
	trace_put32(p + 4, (uint32_t)bits);
}

/* The 16-byte ACK PDU: header (len 16, type 0x7050, sender pid), value. */
static inline void trace_put_ack(unsigned char *p, int32_t value, uint32_t pid)
{
	trace_put32(p, 16);
	trace_put32(p + 4, 0x7050);
	trace_put32(p + 8, pid);
	trace_put32(p + 12, (uint32_t)value);
}

/*
 * The greeting ACK tells the client which agent it reached. PCP's agent
 * sends the PDU version, 1. Ours sends TRACE_GREETING_SDK_TAG with the
 * version of its extensions in the low 16 bits: PCP's client library
 * accepts any greeting >= 0 (it never checks the value), so PCP's clients
 * keep working with our agent, and only our client uses what it offers.
 */
#define TRACE_GREETING_SDK_TAG	0x53440000u	/* "SD" in the top half */
#define TRACE_GREETING_SDK_MASK	0xffff0000u
#define TRACE_GREETING_SDK_EXT	1		/* extensions this build offers */

static inline int32_t trace_greeting_sdk(unsigned int ext)
{
	return (int32_t)(TRACE_GREETING_SDK_TAG | (ext & 0xffffu));
}

/* The extension version in an SDK greeting, or -1 for any other agent. */
static inline int trace_greeting_ext(int32_t greeting)
{
	if (greeting < 0 ||
	    ((uint32_t)greeting & TRACE_GREETING_SDK_MASK) != TRACE_GREETING_SDK_TAG)
		return -1;
	return (int)((uint32_t)greeting & 0xffffu);
}

/*
 * Async streams to PCP's agent (docs/trace-protocol.md §5.1): it reads at
 * most 1,024 bytes at a time and drops a client whose leftover is shorter
 * than a PDU header. A stream of PDUs whose lengths are all multiples of
 * TRACE_PCP_ALIGN, written so that every TCP segment ends on a PDU
 * boundary, can only leave leftovers that are multiples of it (0 or >= 16),
 * because 1,024 is one too. The agent ignores bytes between the tag and
 * the PDU length, so the padding costs it nothing.
 */
#define TRACE_PCP_READ		1024
#define TRACE_PCP_ALIGN		16

#endif
