/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <pcp/trace_dev.h> - trace protocol constants and the library's
 * internal entry points, source-compatible with PCP's header of the same
 * name. Applications need only <pcp/trace.h>; this header serves agents
 * (pmdatrace) and tests. Unlike PCP's, it needs no platform_defs.h.
 *
 * Wire format (all integers big-endian):
 *   header  int len (whole PDU, header included), int type, int from (pid)
 *   ACK     header + int value                          (len 16)
 *   DATA    header + u8 version, u8 taglen (with NUL), u8 tagtype,
 *           u8 flags (0x80 = sync) + double value + tag + NUL + '~' pad
 */
#ifndef PCP_TRACE_DEV_H
#define PCP_TRACE_DEV_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAXTAGNAMELEN	256	/* wire limit on a tag with its NUL */

#define TRACE_ENV_HOST		"PCP_TRACE_HOST"
#define TRACE_ENV_PORT		"PCP_TRACE_PORT"
#define TRACE_ENV_TIMEOUT	"PCP_TRACE_TIMEOUT"
#define TRACE_ENV_NOAGENT	"PCP_TRACE_NOAGENT"
#define TRACE_ENV_REQTIMEOUT	"PCP_TRACE_REQTIMEOUT"
#define TRACE_ENV_RECTIMEOUT	"PCP_TRACE_RECONNECT"
#define TRACE_PORT		4323
#define TRACE_PDU_VERSION	1

#define TRACE_TYPE_TRANSACT	1
#define TRACE_TYPE_POINT	2
#define TRACE_TYPE_OBSERVE	3
#define TRACE_TYPE_COUNTER	4
#define TRACE_FIRST_TYPE	TRACE_TYPE_TRANSACT
#define TRACE_LAST_TYPE		TRACE_TYPE_COUNTER

/* PDU header as returned by __pmtracegetPDU (host byte order). */
typedef struct {
	int len;	/* whole PDU in bytes, header included */
	int type;	/* TRACE_PDU_ACK or TRACE_PDU_DATA */
	int from;	/* sender's process id */
} __pmTracePDUHdr;

typedef uint32_t __pmTracePDU;

/*
 * __pmtracexmitPDU - write the PDU at "pdu" (header in host order, len
 * bytes in all; "from" is set to getpid()) to "fd". Returns the bytes
 * written or -errno. SIGPIPE is never raised.
 */
extern int __pmtracexmitPDU(int fd, __pmTracePDU *pdu);

/*
 * __pmtracegetPDU - read one PDU from "fd". "timeout" in seconds for the
 * first bytes: TRACE_TIMEOUT_NEVER waits for ever, TRACE_TIMEOUT_DEFAULT
 * uses PCP_TRACE_REQTIMEOUT (10 s). The rest of a partly received PDU is
 * awaited for at most 2 seconds. On success *pdu points to a buffer owned
 * by the library (header in host order, body as received), valid until
 * the next call for that fd, and the PDU type is returned. Returns 0 on
 * end of file or a lost connection, PMTRACE_ERR_TIMEOUT, or
 * PMTRACE_ERR_IPC (bad length, stalled PDU, other read errors).
 */
extern int __pmtracegetPDU(int fd, int timeout, __pmTracePDU **pdu);

#define TRACE_TIMEOUT_NEVER	 0
#define TRACE_TIMEOUT_DEFAULT	-1

#define TRACE_PDU_CHUNK	1024	/* PDU buffer allocation unit */

/*
 * __pmtracefindPDUbuf - a buffer of at least "need" bytes (rounded up to
 * TRACE_PDU_CHUNK), pinned once; NULL and errno on allocation failure.
 * __pmtracepinPDUbuf - add a pin to the buffer containing "addr".
 * __pmtraceunpinPDUbuf - remove a pin, freeing the buffer at zero;
 * returns 1 if "addr" was in a known buffer, else 0.
 */
extern __pmTracePDU *__pmtracefindPDUbuf(int need);
extern void __pmtracepinPDUbuf(void *addr);
extern int __pmtraceunpinPDUbuf(void *addr);

/*
 * __pmtracemoreinput - 1 if a complete PDU (or a header that will be
 * rejected) is already buffered for "fd", so __pmtracegetPDU will not
 * block; else 0. __pmtracenomoreinput - discard what is buffered for
 * "fd" (call it when closing the descriptor).
 */
extern int __pmtracemoreinput(int fd);
extern void __pmtracenomoreinput(int fd);

#define TRACE_PDU_BASE		0x7050
#define TRACE_PDU_ACK		0x7050
#define TRACE_PDU_DATA		0x7051
#define TRACE_PDU_MAX		2

/*
 * __pmtracesendack - send an ACK PDU carrying "value". Returns the bytes
 * written (16) or -errno; 0 without sending in NOAGENT state.
 * __pmtracedecodeack - *value from an ACK PDU; 0, or PMTRACE_ERR_IPC if
 * its length is not 16.
 */
extern int __pmtracesendack(int fd, int value);
extern int __pmtracedecodeack(__pmTracePDU *pdu, int *value);

/*
 * __pmtracesenddata - send a DATA PDU: "tag" of "taglen" bytes counting
 * its NUL (1..255), "type" TRACE_TYPE_*, "value"; the sync flag is set
 * unless the protocol is async. Returns the bytes written or -errno
 * (-EINVAL for a bad taglen or type); 0 without sending in NOAGENT state.
 *
 * __pmtracedecodedata - check a DATA PDU from __pmtracegetPDU and decode
 * it: *tag a malloc'ed NUL-terminated copy (the caller frees it),
 * *taglen the wire tag length, *type the tag type, *proto 1 for sync and
 * 0 for async, *value the value. Converts the PDU in place, so decode a
 * PDU once. Returns 0, PMTRACE_ERR_VERSION, PMTRACE_ERR_IPC (lengths:
 * taglen must be 1..125 and fit in len), or -ENOMEM.
 */
extern int __pmtracesenddata(int fd, char *tag, int taglen, int type, double value);
extern int __pmtracedecodedata(__pmTracePDU *pdu, char **tag, int *taglen,
		int *type, int *proto, double *value);

#define TRACE_PROTOCOL_FINAL    -1
#define TRACE_PROTOCOL_QUERY    0
#define TRACE_PROTOCOL_ASYNC    1
#define TRACE_PROTOCOL_SYNC     2

/*
 * __pmtraceprotocol - TRACE_PROTOCOL_QUERY returns the protocol
 * (TRACE_PROTOCOL_SYNC or _ASYNC); _ASYNC requests async unless frozen
 * (and sets PMTRACE_STATE_ASYNC in __pmstate); _FINAL freezes it.
 * Returns the protocol in force afterwards.
 */
extern int __pmtraceprotocol(int op);

/* The state word of pmtracestate(); agents may write it directly. */
extern int __pmstate;

#ifdef __cplusplus
}
#endif

#endif /* PCP_TRACE_DEV_H */
