/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal interfaces of libpcp_trace; not installed. */
#ifndef TRACE_PRIV_H
#define TRACE_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include "trace_decode.h"
#include "trace_wire.h"
#include <sys/types.h>
#include <time.h>
#include <pcp/trace.h>
#include <pcp/trace_dev.h>

/* PCP's hash table ABI (pmdatrace allocates these structs itself). */
typedef struct __pmHashEl {
	void *ent;
	struct __pmHashEl *next;
} __pmHashEnt;

typedef struct __pmHashTab {
	size_t tsize;
	size_t esize;
	unsigned int entries;
	int (*cmp)(void *, void *);
	void (*del)(void *);
	__pmHashEnt **rows;
} __pmHashTable;

int __pmhashinit(__pmHashTable *t, size_t tsize, size_t esize,
		int (*cmp)(void *, void *), void (*del)(void *));
int __pmhashinsert(__pmHashTable *t, char *key, void *entry);
void *__pmhashlookup(__pmHashTable *t, char *key, void *probe);
void __pmhashtraverse(__pmHashTable *t, void (*func)(__pmHashTable *, void *));
void __pmhashtrunc(__pmHashTable *t);

/* wire.c: encoding and the state word */
size_t trace__encode_data(unsigned char *buf, const char *tag, size_t taglen,
		int type, int sync, double value, size_t align);
void trace__encode_ack(unsigned char *buf, int value);
int trace__state(void);

/* The state word, read where a call costs too much. */
static inline int trace_state_now(void)
{
	return __atomic_load_n(&__pmstate, __ATOMIC_RELAXED);
}
int trace__is_lost_errno(int err);
void trace__debug(int bit, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void trace__dump_pdu(const char *what, const unsigned char *buf, size_t len);
ssize_t trace__send_nosig(int fd, const void *buf, size_t len, int flags);

/* env.c: environment variables */
const char *trace__env_host(char *buf, size_t size);
int trace__env_port(void);
double trace__env_timeout(void);
double trace__env_reqtimeout(void);
int trace__env_backoff(int attempt);
int trace__env_noagent(void);
int trace__env_shm(void);

/* conn.c: the connection to the agent */
int trace__conn_touch(void);
int trace__conn_open(void);
int trace__conn_send(int type, const char *tag, size_t taglen, double value);
int trace__conn_set_state(int code);
int trace_conn_protocol(int op);
void trace__conn_atfork_child(void);
void trace__conn_shm_lost(int sock);
/* where a report goes (trace__conn_open, api.c); results are <= 0 */
#define TRACE_SINK_SHM	1	/* the shared segment */
#define TRACE_SINK_PDU	2	/* a PDU to the agent */

/* api.c: a tag handle's report that its fast path did not take */
int trace__report_handle(const char *call, int type, const char *tag, size_t taglen,
		uint32_t hid, double value);

/* txn.c: transaction table */
struct trace_txn {
	char *tag;
	uint64_t start;		/* atomic: CLOCK_MONOTONIC ns at begin, 0: idle */
};
int trace__txn_begin(const char *tag);
int trace__txn_end(const char *tag, double *elapsed, struct trace_txn **t);
int trace__txn_abort(const char *tag);
void trace__txn_atfork_child(void);

/* CLOCK_MONOTONIC in ns, never 0 (a transaction's idle mark) */
static inline uint64_t trace_now_ns(void)
{
	struct timespec ts;
	uint64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return ns != 0 ? ns : 1;
}

/*
 * Begin @t at @now: 0, or PMTRACE_ERR_INPROGRESS. Relaxed CAS: of begins
 * racing on one tag exactly one wins; orders no other memory.
 */
static inline int trace_txn_start(struct trace_txn *t, uint64_t now)
{
	uint64_t idle = 0;

	return __atomic_compare_exchange_n(&t->start, &idle, now, 0, __ATOMIC_RELAXED,
					   __ATOMIC_RELAXED) ? 0 : PMTRACE_ERR_INPROGRESS;
}

/*
 * End @t at @now (any thread): 0 and the seconds since its begin, or
 * PMTRACE_ERR_NOPROGRESS. Relaxed exchange: one end takes each begin's
 * start; ending another thread's transaction orders nothing after its writes.
 */
static inline int trace_txn_stop(struct trace_txn *t, uint64_t now, double *elapsed)
{
	uint64_t start = __atomic_exchange_n(&t->start, 0, __ATOMIC_RELAXED);

	if (start == 0)
		return PMTRACE_ERR_NOPROGRESS;
	if (elapsed != NULL)
		*elapsed = now > start ? (double)(now - start) / 1e9 : 0.0;
	return 0;
}

/* shm.c: the shared aggregate segment (docs/trace-protocol.md §10) */
struct trace_shm_seg {
	int fd;			/* the memfd, -1: none */
	void *base;		/* its mapping */
	size_t size;
	uint32_t tags, rows;
};
#define TRACE_SHM_PDU	1	/* not taken: send a PDU instead */
int trace__shm_seg_create(struct trace_shm_seg *seg, uint32_t tags, uint32_t rows);
void trace__shm_seg_destroy(struct trace_shm_seg *seg);
int trace__shm_install(const struct trace_shm_seg *seg);
void trace__shm_drop(int child);
int trace__shm_on(void);
uint32_t trace__shm_nrows(void);
int trace__shm_record(int type, const char *tag, size_t taglen, uint32_t hid,
		struct trace_txn *txn, double value);
int trace__shm_fast(int type, const char *tag, double value, size_t *taglen);
int trace__shm_txn_begin(const char *tag);
int trace__shm_txn_end(int state, const char *tag);
int trace__shm_handle(int type, const char *tag, uint32_t hid, double value);
int trace__shm_handle_point(const char *tag, uint32_t hid);

/*
 * What a report that went to the segment returns (@rc: the tag's status
 * there): as the PDU path, sync 0 or the agent's refusal (-ENOSPC from its
 * tag cap), async the PDU's length as PCP's library returns it.
 */
static inline int trace_shm_result(int state, int rc, size_t taglen)
{
	if (state & PMTRACE_STATE_ASYNC)
		return (int)trace_data_len(taglen, TRACE_DATA_ALIGN);
	return rc;
}

/* shm_reg.c: handing the segment to the agent, watching it go */
#define TRACE_ENV_SHM	"PCP_TRACE_SHM"

/*
 * Every PMTRACE_ERR_* code (values PCP's, in <pcp/trace.h>) and the text
 * pmtraceerrstr gives for it (PCP's words), in one list.
 */
#define TRACE_ERR_MAP(X)							\
	X(PMTRACE_ERR_TAGNAME, "Invalid tag name - tag names cannot be NULL")	\
	X(PMTRACE_ERR_INPROGRESS, "Transaction is already in progress - cannot begin") \
	X(PMTRACE_ERR_NOPROGRESS, "Transaction is not currently in progress - cannot end") \
	X(PMTRACE_ERR_NOSUCHTAG, "Transaction tag was not successfully initialised") \
	X(PMTRACE_ERR_TAGTYPE, "Tag is already in use for a different type of tracing") \
	X(PMTRACE_ERR_TAGLENGTH, "Tag name is too long (maximum 256 characters)") \
	X(PMTRACE_ERR_IPC, "IPC protocol failure")				\
	X(PMTRACE_ERR_ENVFORMAT, "Unrecognised environment variable format")	\
	X(PMTRACE_ERR_TIMEOUT, "Application timed out connecting to the PMDA")	\
	X(PMTRACE_ERR_VERSION, "Incompatible versions between application and PMDA") \
	X(PMTRACE_ERR_PERMISSION, "Cannot connect to PMDA - permission denied")	\
	X(PMTRACE_ERR_CONNLIMIT, "Cannot connect to PMDA - connection limit reached")
int trace__shm_register(int tcp_fd, int agent_pid);
void trace__shm_unregister(void);
int trace__shm_lost(int sock);
void trace__shm_atfork_child(void);

#endif /* TRACE_PRIV_H */
