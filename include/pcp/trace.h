/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * <pcp/trace.h> - trace instrumentation API, source- and ABI-compatible
 * with Performance Co-Pilot's libpcp_trace (soname libpcp_trace.so.2).
 *
 * An application reports four kinds of events to the trace agent
 * (pmdatrace), which aggregates them and exports them as trace.*
 * metrics:
 *   transactions  pmtracebegin/pmtraceend (elapsed seconds), pmtraceabort
 *   points        pmtracepoint (a count)
 *   observations  pmtraceobs (a value, latest exported)
 *   counters      pmtracecounter (a value, latest exported)
 *
 * Tags: a NULL or empty tag gives PMTRACE_ERR_TAGNAME; a tag longer than
 * 124 bytes gives PMTRACE_ERR_TAGLENGTH (PCP's library accepts up to 254
 * but its agent drops the connection on anything over 124, so PCP loses
 * such events silently; this library refuses them instead). Any byte
 * values are allowed.
 *
 * Protocol (pmtracestate): synchronous by default, every sending call
 * waits for the agent's acknowledgement and returns 0; after
 * pmtracestate(PMTRACE_STATE_ASYNC) the calls do not wait and return the
 * number of bytes queued for the agent (a positive PDU length).
 *
 * Connection errors: until a first connection succeeded, a call that
 * needs the agent returns the connection error (-ECONNREFUSED,
 * -EHOSTUNREACH, -ETIMEDOUT, PMTRACE_ERR_TIMEOUT, PMTRACE_ERR_PERMISSION,
 * PMTRACE_ERR_CONNLIMIT, PMTRACE_ERR_IPC, ...). Once connected, a lost
 * agent makes synchronous calls return 0 (the event is dropped, as in
 * PCP) and asynchronous calls return PMTRACE_ERR_IPC; reconnection is
 * retried on a back-off schedule (PCP_TRACE_RECONNECT) and calls made
 * while waiting for the next attempt return at once.
 *
 * Environment: PCP_TRACE_HOST, PCP_TRACE_PORT, PCP_TRACE_TIMEOUT,
 * PCP_TRACE_REQTIMEOUT, PCP_TRACE_RECONNECT, PCP_TRACE_NOAGENT (see
 * pmdatrace(3)). All functions are thread-safe.
 *
 * What the agent observes: in sync mode a call returns after the agent
 * acknowledged the event, so the agent has recorded it first. In async
 * mode a call that returns success has handed the PDU to the kernel: the
 * agent receives one thread's events in call order and different threads'
 * events in the order they took the connection lock; the kernel may hold
 * them for up to about 200 us before sending. docs/trace-protocol.md
 * describes the wire protocol.
 */
#ifndef PCP_TRACE_H
#define PCP_TRACE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * pmtracebegin - start transaction "tag" (PCP: pmtracebegin(3)).
 * Records the start time (monotonic clock) for the tag; nothing is sent.
 * Opens the connection to the agent if there is none.
 * Returns 0; PMTRACE_ERR_TAGNAME, PMTRACE_ERR_TAGLENGTH;
 * PMTRACE_ERR_INPROGRESS if the tag is already begun (start unchanged);
 * or a connection error (then the tag is not recorded).
 * One transaction per tag per process: of begins racing on a tag exactly
 * one succeeds, and any thread may end it. Implies no memory barrier.
 */
extern int pmtracebegin(const char *tag);

/*
 * pmtraceend - end transaction "tag" and send its elapsed time in
 * seconds (PCP: pmtraceend(3)). The tag becomes idle even if sending fails.
 * Returns 0 (sync) or the bytes queued (async); PMTRACE_ERR_TAGNAME,
 * PMTRACE_ERR_TAGLENGTH; PMTRACE_ERR_NOSUCHTAG if never begun;
 * PMTRACE_ERR_NOPROGRESS if not in progress; or a send error.
 * Of ends racing on a tag exactly one takes its begin. Implies no memory
 * barrier: ending another thread's transaction does not see its writes.
 */
extern int pmtraceend(const char *tag);

/*
 * pmtraceabort - abandon transaction "tag"; nothing is sent and no
 * connection is made (PCP: pmtraceabort(3)).
 * Returns 0; PMTRACE_ERR_TAGNAME, PMTRACE_ERR_TAGLENGTH,
 * PMTRACE_ERR_NOSUCHTAG, PMTRACE_ERR_NOPROGRESS.
 */
extern int pmtraceabort(const char *tag);

/*
 * pmtracepoint - report one event at point "tag" (PCP: pmtracepoint(3)).
 * Returns 0 (sync) or the bytes queued (async); PMTRACE_ERR_TAGNAME,
 * PMTRACE_ERR_TAGLENGTH, PMTRACE_ERR_TIMEOUT (no acknowledgement within
 * PCP_TRACE_REQTIMEOUT seconds), a negative acknowledgement value from
 * the agent, -EAGAIN (async queue full), or a connection error.
 */
extern int pmtracepoint(const char *tag);

/*
 * pmtraceobs - report observation "value" (any unit, passed unchanged,
 * NaN and infinities included) for "tag" (PCP: pmtraceobs(3)).
 * Returns as pmtracepoint.
 */
extern int pmtraceobs(const char *tag, double value);

/*
 * pmtracecounter - report counter "value" for "tag" (PCP: pmtracecounter(3)).
 * Returns as pmtracepoint.
 */
extern int pmtracecounter(const char *tag, double value);

/*
 * pmtraceerrstr - text for a code returned by the calls above (PCP:
 * pmtraceerrstr(3)): "No error." for 0, strerror(-code) for -1..-11999, the
 * PMTRACE_ERR_* texts, else "Unknown error code.". The result points to
 * static (or thread-local) storage and must not be freed or modified.
 */
extern char *pmtraceerrstr(int code);

#define PMTRACE_ERR_BASE	12000
#define PMTRACE_ERR_TAGNAME	(-PMTRACE_ERR_BASE-0)	/* NULL or empty tag */
#define PMTRACE_ERR_INPROGRESS	(-PMTRACE_ERR_BASE-1)	/* begin while begun */
#define PMTRACE_ERR_NOPROGRESS	(-PMTRACE_ERR_BASE-2)	/* end/abort while idle */
#define PMTRACE_ERR_NOSUCHTAG	(-PMTRACE_ERR_BASE-3)	/* end/abort, never begun */
#define PMTRACE_ERR_TAGTYPE	(-PMTRACE_ERR_BASE-4)	/* not returned */
#define PMTRACE_ERR_TAGLENGTH	(-PMTRACE_ERR_BASE-5)	/* tag too long */
#define PMTRACE_ERR_IPC		(-PMTRACE_ERR_BASE-6)	/* protocol failure */
#define PMTRACE_ERR_ENVFORMAT	(-PMTRACE_ERR_BASE-7)	/* bad environment value */
#define PMTRACE_ERR_TIMEOUT	(-PMTRACE_ERR_BASE-8)	/* greeting or ACK late */
#define PMTRACE_ERR_VERSION	(-PMTRACE_ERR_BASE-9)	/* protocol version */
#define PMTRACE_ERR_PERMISSION	(-PMTRACE_ERR_BASE-10)	/* agent refused host */
#define PMTRACE_ERR_CONNLIMIT	(-PMTRACE_ERR_BASE-11)	/* agent connection limit */

/*
 * pmtracestate - replace the library's state word with "code" (an OR of
 * PMTRACE_STATE_*) and return the previous word (PCP: pmtracestate(3)).
 * PMTRACE_STATE_ASYNC chooses the asynchronous protocol; it must come
 * before the first successful connection, else -EINVAL is returned and
 * nothing changes. Once chosen, async stays in force even if the bit is
 * later cleared. Debug bits (API, COMMS, PDU, PDUBUF) print diagnostics
 * on stderr and may change at any time; NOAGENT suppresses all
 * communication with the agent from the next call on.
 */
extern int pmtracestate(int code);

#define PMTRACE_STATE_NONE    0  /* synchronous, no diagnostics */
#define PMTRACE_STATE_API     1  /* debug: calls and their results */
#define PMTRACE_STATE_COMMS   2  /* debug: connection activity */
#define PMTRACE_STATE_PDU     4  /* debug: PDUs sent and received */
#define PMTRACE_STATE_PDUBUF  8  /* debug: internal buffer management */
#define PMTRACE_STATE_NOAGENT 16 /* no communication with the agent */
#define PMTRACE_STATE_ASYNC   32 /* asynchronous protocol */

#ifdef __cplusplus
}
#endif

#endif /* PCP_TRACE_H */
