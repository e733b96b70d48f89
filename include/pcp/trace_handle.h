/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_handle.h - tag handles: this SDK's libpcp_trace resolves a tag
 * once, and each later report through the handle skips the tag's lookup
 * and check. Include after <pcp/trace.h>. Programs that use these calls
 * need our library; see pmtracehandle_new(3).
 */
#ifndef PCP_TRACE_HANDLE_H
#define PCP_TRACE_HANDLE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pmtracehandle pmtracehandle;

/*
 * pmtracehandle_new - a handle for @tag (checked as pmtracepoint checks
 * it; the string is copied). Returns NULL with errno EINVAL (NULL, empty
 * or longer than 124 characters) or ENOMEM. Thread-safe; one handle may
 * be used by any number of threads at once.
 */
extern pmtracehandle *pmtracehandle_new(const char *tag);

/* pmtracehandle_free - free @h (NULL is ignored); no thread may use it any more. */
extern void pmtracehandle_free(pmtracehandle *h);

/*
 * pmtracepoint_h, pmtraceobs_h, pmtracecounter_h - pmtracepoint,
 * pmtraceobs and pmtracecounter for the handle's tag: the same results
 * and errors. Through the shared segment (docs/trace-protocol.md §10) a
 * report is a few stores into the calling thread's own slot.
 */
extern int pmtracepoint_h(pmtracehandle *h);
extern int pmtraceobs_h(pmtracehandle *h, double value);
extern int pmtracecounter_h(pmtracehandle *h, double value);

#ifdef __cplusplus
}
#endif

#endif /* PCP_TRACE_HANDLE_H */
