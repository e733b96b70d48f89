/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The trace protocol's wire format (docs/trace-protocol.md §2.1, §2.2, §2.3, §5.1): the one
 * place for its PDU types, layouts, limits and byte order, shared by the
 * client library (libpcp_trace), the agent (pmda_trace), tests and fuzzers.
 * Every integer and the double are big-endian.
 */
#ifndef TRACE_WIRE_H
#define TRACE_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <pcp/trace_dev.h>

/*
 * PDU types: X(kind, type value, fixed length). An ACK is exactly its
 * fixed length; a DATA PDU is its fixed part, then the tag and padding.
 */
#define TRACE_PDU_TYPES(X)						\
	X(ACK,	0x7050,	16)	/* header, int value */			\
	X(DATA,	0x7051,	24)	/* header, control word, double value */

enum {
#define TRACE_X(kind, value, fixed)	TRACE_WIRE_##kind = value,
	TRACE_PDU_TYPES(TRACE_X)
#undef TRACE_X
};

enum {
#define TRACE_X(kind, value, fixed)	TRACE_WIRE_##kind##_LEN = fixed,
	TRACE_PDU_TYPES(TRACE_X)
#undef TRACE_X
};

#define TRACE_X(kind, value, fixed)	+ 1
enum { TRACE_WIRE_NTYPES = 0 TRACE_PDU_TYPES(TRACE_X) };
#undef TRACE_X

/* The 12-byte header: int len (header included), int type, int from. */
#define TRACE_OFF_LEN		0
#define TRACE_OFF_TYPE		4
#define TRACE_OFF_FROM		8
#define TRACE_HDR_LEN		12

/* ACK: the value after the header. */
#define TRACE_OFF_ACK_VALUE	12
#define TRACE_ACK_LEN		TRACE_WIRE_ACK_LEN

/*
 * DATA: the control word at 12 is u8 version, u8 taglen (NUL counted),
 * u8 tag type, u8 flags; then the double, the tag, its NUL and padding
 * up to the PDU length.
 */
#define TRACE_OFF_VERSION	12
#define TRACE_OFF_TAGLEN	13
#define TRACE_OFF_TAGTYPE	14
#define TRACE_OFF_FLAGS		15
#define TRACE_OFF_VALUE		16
#define TRACE_OFF_TAG		24
#define TRACE_DATA_FIXED	TRACE_WIRE_DATA_LEN
#define TRACE_SYNC_FLAG		0x80	/* in flags: the sender waits for an ACK */
#define TRACE_PAD_BYTE		'~'	/* PCP's padding; receivers ignore it */
#define TRACE_DATA_ALIGN	4	/* PCP's encoder rounds DATA PDUs to this */

/* The control word's fields, for a reader that takes it as one integer. */
#define TRACE_WORD_VERSION(w)	((w) >> 24)
#define TRACE_WORD_TAGLEN(w)	(((w) >> 16) & 0xff)
#define TRACE_WORD_TAGTYPE(w)	(((w) >> 8) & 0xff)

/*
 * Limits. Each bounds something different:
 *  TRACE_PDU_MIN	the shortest PDU any reader accepts (an ACK).
 *  TRACE_PCP_PDU_MAX	the longest PDU PCP's reader accepts (header, 4 and
 *			MAXTAGNAMELEN = 272); our __pmtracegetPDU and
 *			__pmtracexmitPDU keep that bound.
 *  TRACE_TAGLEN_MAX	the largest taglen field (NUL counted): a byte.
 *  TRACE_DATA_MAX	the longest DATA PDU an encoder makes: the longest
 *			tag padded to TRACE_DATA_ALIGN (280). Our agent
 *			accepts up to this, so it takes every tag our
 *			library's __pmtracesenddata sends.
 *  TRACE_PCP_TAG_MAX	the longest tag (NUL not counted) PCP's agent
 *			accepts (taglen < CHAR_MAX - 1): our library's API
 *			limit and __pmtracedecodedata's.
 */
#define TRACE_PDU_MIN		TRACE_ACK_LEN
#define TRACE_PCP_PDU_MAX	(TRACE_HDR_LEN + 4 + MAXTAGNAMELEN)
#define TRACE_TAGLEN_MAX	(MAXTAGNAMELEN - 1)
#define TRACE_DATA_MAX		TRACE_DATA_LEN(TRACE_TAGLEN_MAX, TRACE_DATA_ALIGN)
#define TRACE_PCP_TAG_MAX	124

/* The length of a DATA PDU for @taglen (NUL counted), a multiple of @align. */
#define TRACE_DATA_LEN(taglen, align) \
	((TRACE_DATA_FIXED + (taglen) + (align) - 1) & ~((align) - 1))

static inline size_t trace_data_len(size_t taglen, size_t align)
{
	return TRACE_DATA_LEN(taglen, align);
}

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

/* The 16-byte ACK PDU: header (len 16, type ACK, sender pid), value. */
static inline void trace_put_ack(unsigned char *p, int32_t value, uint32_t pid)
{
	trace_put32(p + TRACE_OFF_LEN, TRACE_ACK_LEN);
	trace_put32(p + TRACE_OFF_TYPE, TRACE_WIRE_ACK);
	trace_put32(p + TRACE_OFF_FROM, pid);
	trace_put32(p + TRACE_OFF_ACK_VALUE, (uint32_t)value);
}

/* The value of the ACK at @p (16 bytes), or -1 if it is not an ACK. */
static inline int trace_get_ack(const unsigned char *p, int32_t *value)
{
	if (trace_get32(p + TRACE_OFF_LEN) != TRACE_ACK_LEN ||
	    trace_get32(p + TRACE_OFF_TYPE) != TRACE_WIRE_ACK)
		return -1;
	*value = (int32_t)trace_get32(p + TRACE_OFF_ACK_VALUE);
	return 0;
}

/*
 * The greeting ACK tells the client which agent it reached. PCP's agent
 * sends the PDU version, TRACE_GREETING_PCP. Ours sends TRACE_GREETING_SDK_TAG with the
 * version of its extensions in the low 16 bits: PCP's client library
 * accepts any greeting >= 0 (it never checks the value), so PCP's clients
 * keep working with our agent, and only our client uses what it offers.
 */
#define TRACE_GREETING_PCP	TRACE_PDU_VERSION
#define TRACE_GREETING_SDK_TAG	0x53440000u	/* "SD" in the top half */
#define TRACE_GREETING_SDK_MASK	0xffff0000u
#define TRACE_GREETING_SDK_EXT	2		/* extensions this build offers: 2, shared segments */

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

/* The table agrees with PCP's public <pcp/trace_dev.h>. */
_Static_assert(TRACE_WIRE_ACK == TRACE_PDU_ACK && TRACE_WIRE_DATA == TRACE_PDU_DATA &&
	       TRACE_WIRE_ACK == TRACE_PDU_BASE && TRACE_WIRE_NTYPES == TRACE_PDU_MAX,
	       "PDU types");
_Static_assert(TRACE_HDR_LEN == 3 * sizeof(int32_t) &&
	       TRACE_HDR_LEN == sizeof(__pmTracePDUHdr), "PDU header");
_Static_assert(TRACE_ACK_LEN == TRACE_OFF_ACK_VALUE + 4, "ACK layout");
_Static_assert(TRACE_DATA_FIXED == TRACE_OFF_VALUE + 8 &&
	       TRACE_OFF_TAG == TRACE_DATA_FIXED, "DATA layout");
_Static_assert(TRACE_TAGLEN_MAX == UINT8_MAX, "taglen is a byte");
_Static_assert(TRACE_PCP_PDU_MAX == 272 && TRACE_DATA_MAX == 280, "maxima");
_Static_assert(TRACE_PCP_TAG_MAX + 1 < TRACE_TAGLEN_MAX, "PCP's tag limit");
/* A stream shaped for PCP's agent leaves it no fragment under a header. */
_Static_assert(TRACE_PCP_READ % TRACE_PCP_ALIGN == 0 &&
	       TRACE_PCP_ALIGN >= TRACE_HDR_LEN, "PCP stream shaping");
/* a shaped PDU of the longest tag still passes PCP's length check */
_Static_assert(TRACE_DATA_LEN(TRACE_PCP_TAG_MAX + 1, TRACE_PCP_ALIGN) <= TRACE_PCP_PDU_MAX,
	       "PCP stream shaping");

#endif
