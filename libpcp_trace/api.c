/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The public calls of <pcp/trace.h>: validation, then txn.c and conn.c. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "trace_priv.h"

/*
 * One report: into the shared segment when there is one (docs/trace-protocol.md
 * §10), else a PDU. What the caller sees is what the PDU path returns:
 * sync, 0 or the agent's refusal (-ENOSPC from its tag cap); async, the
 * PDU's length as PCP's library returns it.
 */
static int report(int type, const char *tag, size_t taglen, double value)
{
	int rc;

	if (trace__shm_on() && !(trace_state_now() & PMTRACE_STATE_NOAGENT)) {
		rc = trace__shm_record(type, tag, taglen, value);
		if (rc != TRACE_SHM_PDU)
			return trace_shm_result(trace_state_now(), rc, taglen);
	}
	rc = trace__conn_send(type, tag, taglen, value);
	if (rc != TRACE_CONN_SHM)
		return rc;
	rc = trace__shm_record(type, tag, taglen, value);
	if (rc == TRACE_SHM_PDU)
		return trace__conn_send(type, tag, taglen, value);
	return trace_shm_result(trace_state_now(), rc, taglen);
}

static void atfork_child(void)
{
	trace__txn_atfork_child();
	trace__conn_atfork_child();
}

__attribute__((constructor)) static void api_init(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

/* taglen (with the NUL) on success */
static int check_tag(const char *tag, size_t *taglen)
{
	size_t len;

	if (tag == NULL || *tag == '\0')
		return PMTRACE_ERR_TAGNAME;
	len = strnlen(tag, TRACE_PCP_TAG_MAX + 1);
	/* the agent drops anything longer: refuse it here, visibly */
	if (len > TRACE_PCP_TAG_MAX)
		return PMTRACE_ERR_TAGLENGTH;
	*taglen = len + 1;
	return 0;
}

static int api_result(const char *call, const char *tag, int rc)
{
	if (trace_state_now() & PMTRACE_STATE_API)
		trace__debug(PMTRACE_STATE_API, "%s(\"%s\") -> %d", call,
			    tag != NULL ? tag : "(null)", rc);
	return rc;
}

/*
 * The fast path: a tag this thread reported before, into the segment,
 * with no diagnostics asked for. TRACE_SHM_PDU: take the full path.
 */
static inline int fast(int type, const char *tag, double value)
{
	int state = trace_state_now(), rc;
	size_t taglen;

	if (state & (PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API) || tag == NULL)
		return TRACE_SHM_PDU;
	rc = trace__shm_fast(type, tag, value, &taglen);
	return rc == TRACE_SHM_PDU ? rc : trace_shm_result(state, rc, taglen);
}

int pmtracebegin(const char *tag)
{
	size_t taglen;
	int rc;

	/* fast: a tag this thread ended before through the segment in use */
	if (tag != NULL && !(trace_state_now() & (PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API)) &&
	    (rc = trace__shm_txn_begin(tag)) != TRACE_SHM_PDU)
		return rc;
	rc = check_tag(tag, &taglen);
	if (rc == 0 && !trace__shm_on())
		rc = trace__conn_touch();
	if (rc == 0)
		rc = trace__txn_begin(tag);
	return api_result("pmtracebegin", tag, rc);
}

int pmtraceend(const char *tag)
{
	int state = trace_state_now(), rc;
	double elapsed = 0.0;
	size_t taglen;

	/* fast: as pmtracebegin; one lookup stops the transaction and records it */
	if (tag != NULL && !(state & (PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API)) &&
	    (rc = trace__shm_txn_end(state, tag)) != TRACE_SHM_PDU)
		return rc;
	rc = check_tag(tag, &taglen);
	if (rc == 0)
		rc = trace__txn_end(tag, &elapsed);
	if (rc == 0)
		rc = report(TRACE_TYPE_TRANSACT, tag, taglen, elapsed);
	return api_result("pmtraceend", tag, rc);
}

int pmtraceabort(const char *tag)
{
	size_t taglen;
	int rc = check_tag(tag, &taglen);

	if (rc == 0)
		rc = trace__txn_abort(tag);
	return api_result("pmtraceabort", tag, rc);
}

static int send_value(const char *call, const char *tag, int type, double value)
{
	size_t taglen;
	int rc = check_tag(tag, &taglen);

	if (rc == 0)
		rc = report(type, tag, taglen, value);
	return api_result(call, tag, rc);
}

int pmtracepoint(const char *tag)
{
	int rc = fast(TRACE_TYPE_POINT, tag, -1.0);

	return rc != TRACE_SHM_PDU ? rc : send_value("pmtracepoint", tag, TRACE_TYPE_POINT, -1.0);
}

int pmtraceobs(const char *tag, double value)
{
	int rc = fast(TRACE_TYPE_OBSERVE, tag, value);

	return rc != TRACE_SHM_PDU ? rc : send_value("pmtraceobs", tag, TRACE_TYPE_OBSERVE, value);
}

int pmtracecounter(const char *tag, double value)
{
	int rc = fast(TRACE_TYPE_COUNTER, tag, value);

	return rc != TRACE_SHM_PDU ? rc : send_value("pmtracecounter", tag, TRACE_TYPE_COUNTER,
						      value);
}

int pmtracestate(int code)
{
	return trace__conn_set_state(code);
}

char *pmtraceerrstr(int code)
{
	static __thread char buf[128];

	if (code == 0)
		return (char *)"No error.";
	if (code < 0 && code > -PMTRACE_ERR_BASE)
		return strerror_r(-code, buf, sizeof(buf));
	switch (code) {
#define TRACE_ERR_TEXT(c, text)	case c: return (char *)text;
	TRACE_ERR_MAP(TRACE_ERR_TEXT)
#undef TRACE_ERR_TEXT
	default:
		return (char *)"Unknown error code.";
	}
}
