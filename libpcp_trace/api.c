/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The public calls of <pcp/trace.h>: the fast path (shm.c's cache), else
 * the tag validated, the sink chosen, then txn.c, shm.c or conn.c.
 */
#include <errno.h>
#include <float.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "trace_priv.h"

/*
 * Where one report goes, chosen once per call (docs/trace-protocol.md §10):
 * TRACE_SINK_SHM (the segment), TRACE_SINK_PDU, or, <= 0, what the call
 * returns. A process not connected yet connects first: the connection may
 * bring a segment, which then takes this very report.
 */
static int choose_sink(void)
{
	if (trace_state_now() & PMTRACE_STATE_NOAGENT)
		return TRACE_SINK_PDU;	/* which sends nothing */
	if (trace__shm_on())
		return TRACE_SINK_SHM;
	return trace__conn_open();
}

/*
 * One report of a valid tag whose fast path did not take it, through its
 * one sink: the segment's tables (the tag and its slot found or made once,
 * @txn cached beside it), or a PDU, also when the segment has no room for
 * the tag. What the caller sees is what the PDU path returns: sync, 0 or
 * the agent's refusal (-ENOSPC from its tag cap); async, the PDU's length
 * as PCP's library returns it.
 */
static int report(int type, const char *tag, size_t taglen, uint32_t hid,
		struct trace_txn *txn, double value)
{
	int rc = choose_sink();

	if (rc == TRACE_SINK_SHM) {
		rc = trace__shm_record(type, tag, taglen, hid, txn, value);
		if (rc != TRACE_SHM_PDU)
			return trace_shm_result(trace_state_now(), rc, taglen);
		rc = TRACE_SINK_PDU;
	}
	return rc == TRACE_SINK_PDU ? trace__conn_send(type, tag, taglen, value) : rc;
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
	struct trace_txn *txn = NULL;
	double elapsed = 0.0;
	size_t taglen;

	/* fast: as pmtracebegin; one lookup stops the transaction and records it */
	if (tag != NULL && !(state & (PMTRACE_STATE_NOAGENT | PMTRACE_STATE_API)) &&
	    (rc = trace__shm_txn_end(state, tag)) != TRACE_SHM_PDU)
		return rc;
	rc = check_tag(tag, &taglen);
	if (rc == 0)
		rc = trace__txn_end(tag, &elapsed, &txn);
	if (rc == 0)
		rc = report(TRACE_TYPE_TRANSACT, tag, taglen, 0, txn, elapsed);
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
		rc = report(type, tag, taglen, 0, NULL, value);
	return api_result(call, tag, rc);
}

/* A tag handle's report that its fast path did not take (handle.c). */
int trace__report_handle(const char *call, int type, const char *tag, size_t taglen,
		uint32_t hid, double value)
{
	return api_result(call, tag, report(type, tag, taglen, hid, NULL, value));
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

int pmtracetransact(const char *tag, double elapsed)
{
	int rc;

	if (!(elapsed >= 0 && elapsed <= DBL_MAX))
		return api_result("pmtracetransact", tag, -EINVAL);
	rc = fast(TRACE_TYPE_TRANSACT, tag, elapsed);
	return rc != TRACE_SHM_PDU ? rc : send_value("pmtracetransact", tag, TRACE_TYPE_TRANSACT,
						      elapsed);
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
