/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tag handles (<pcp/trace_handle.h>): the tag checked and copied once; a
 * report through the segment finds the calling thread's slot by the copy's
 * address and the handle's id, with no string compare (trace__shm_handle*),
 * else the tag, checked already, takes the ordinary slow path (api.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trace_priv.h"
#include <pcp/trace_handle.h>

struct pmtracehandle {
	size_t taglen;		/* NUL counted */
	uint32_t id;		/* not 0: with the address, what threads cache */
	char tag[];		/* never changes: threads cache its address */
};

static uint32_t handle_ids;	/* atomic: the last id given */

pmtracehandle *pmtracehandle_new(const char *tag)
{
	pmtracehandle *h;
	size_t len;

	if (tag == NULL || *tag == '\0' || (len = strnlen(tag, TRACE_PCP_TAG_MAX + 1)) >
	    TRACE_PCP_TAG_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((h = calloc(1, sizeof(*h) + len + 1)) == NULL)
		return NULL;
	h->taglen = len + 1;
	/* a freed handle's address may come back: its id does not (for 2^32 handles) */
	while ((h->id = __atomic_add_fetch(&handle_ids, 1, __ATOMIC_RELAXED)) == 0)
		;
	memcpy(h->tag, tag, len + 1);
	return h;
}

void pmtracehandle_free(pmtracehandle *h)
{
	free(h);
}

/*
 * The thread's cached slot for the handle (one state load), else the
 * ordinary slow path, which PMTRACE_STATE_API words as the call by name.
 */
static inline int handle_report(pmtracehandle *h, int type, double value, const char *call)
{
	int state = trace_state_now(), rc;

	if (h == NULL)
		return PMTRACE_ERR_TAGNAME;
	if (state & (PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API) ||
	    (rc = trace__shm_handle(type, h->tag, h->id, value)) == TRACE_SHM_PDU)
		return trace__report_handle(call, type, h->tag, h->taglen, h->id, value);
	return trace_shm_result(state, rc, h->taglen);
}

/* one state load; the thread's entry by the handle's address and shm.gen */
int pmtracepoint_h(pmtracehandle *h)
{
	int state = trace_state_now(), rc;

	if (h == NULL)
		return PMTRACE_ERR_TAGNAME;
	if (state & (PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API) ||
	    (rc = trace__shm_handle_point(h->tag, h->id)) == TRACE_SHM_PDU)
		return trace__report_handle("pmtracepoint", TRACE_TYPE_POINT, h->tag, h->taglen,
					    h->id, -1.0);
	return trace_shm_result(state, rc, h->taglen);
}

int pmtraceobs_h(pmtracehandle *h, double value)
{
	return handle_report(h, TRACE_TYPE_OBSERVE, value, "pmtraceobs");
}

int pmtracecounter_h(pmtracehandle *h, double value)
{
	return handle_report(h, TRACE_TYPE_COUNTER, value, "pmtracecounter");
}
