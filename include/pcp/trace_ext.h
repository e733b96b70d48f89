/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_ext.h - what this SDK's libpcp_trace offers beyond PCP's
 * <pcp/trace.h>. Include after <pcp/trace.h>. Programs that use these calls
 * need our library; everything in <pcp/trace.h> stays as in PCP.
 */
#ifndef PCP_TRACE_EXT_H
#define PCP_TRACE_EXT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Which agent the process's connection reached (pmtraceagent). */
#define PMTRACE_AGENT_NONE	0	/* not connected (yet, or any more) */
#define PMTRACE_AGENT_PCP	1	/* PCP's pmdatrace, or any agent whose
					   greeting is not ours */
#define PMTRACE_AGENT_SDK	2	/* this SDK's pmda_trace */

/*
 * pmtraceagent - which agent the current connection reached, told apart by
 * its greeting: PMTRACE_AGENT_SDK, PMTRACE_AGENT_PCP, or PMTRACE_AGENT_NONE
 * while not connected. No PCP equivalent. Thread-safe; the answer may be
 * out of date as soon as it returns if another thread loses or makes the
 * connection.
 */
int pmtraceagent(void);

/*
 * pmtracelost - how many events this process reported with a call that
 * returned success (async mode) but that never reached the kernel,
 * because the connection was lost (or the process exited with the agent
 * more than 1 s behind) while they waited in the library's queue. Events
 * wait there only while another thread is sending or connecting, or when
 * the kernel took part of a PDU. Each such loss is also said by the next
 * call's PMTRACE_ERR_IPC and by one line on stderr. Cumulative since the
 * process started (a child of fork() starts again at 0). No PCP
 * equivalent (PCP's library loses such events without a word).
 * Thread-safe.
 */
unsigned long long pmtracelost(void);

/*
 * pmtracetransact - report one finished transaction of @tag that took
 * @elapsed seconds (>= 0, finite), timed by the caller: what pmtraceend
 * reports after a pmtracebegin, but with no begin and no state kept, so
 * any number of transactions of one tag may run at once (threads, tasks,
 * processes). The agent sees an ordinary transaction (PCP's agent too).
 * Returns 0, or a pmtraceend error: PMTRACE_ERR_TAGNAME, _TAGLENGTH,
 * _IPC, -errno of the connection, -ENOSPC (the agent's tag limit); -EINVAL
 * for a negative or non-finite @elapsed (nothing sent). Asynchronous mode:
 * as pmtraceend. Thread-safe; unrelated to pmtracebegin's per-process
 * transaction of the same tag. No PCP equivalent.
 */
int pmtracetransact(const char *tag, double elapsed);

#ifdef __cplusplus
}
#endif

#endif /* PCP_TRACE_EXT_H */
