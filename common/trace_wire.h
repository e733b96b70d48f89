/*
 * Byte order of the trace protocol (spec trace.md 1.4-1.6): every integer
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

#endif
