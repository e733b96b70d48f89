/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * trace_shm.h - the layout of a trace client's shared aggregate segment
 * (docs/trace-protocol.md §10.3): the one place for its sizes, offsets,
 * limits, magic and version, shared by the client library (the writer),
 * the agent (the reader), tests and fuzzers.
 *
 * A segment is a sealed memfd the client creates and passes to our agent
 * over a local socket. It holds, in host byte order (client and agent are
 * on one machine):
 *
 *   header	TRACE_SHM_HDR_SIZE bytes: a line the client writes once
 *		(magic, version, geometry) or only grows (ntags, nrows), and
 *		a line only the agent writes (epoch)
 *   tags	@tags entries of struct trace_shm_tag: a tag's type and name,
 *		written once by the client before it publishes ntags; the
 *		agent writes the entry's status (-ENOSPC: the tag cap refused it)
 *   slots	@rows x @tags struct trace_shm_slot, one cache line each: the
 *		cumulative numbers of one tag as reported by the one thread
 *		that owns the row
 *   hist	@rows x @tags histograms of TRACE_HIST_NBUCKETS 32-bit
 *		cumulative bucket counts (transactions and observations only;
 *		pages never touched cost nothing)
 *
 * Every field the two sides share is accessed with __atomic builtins.
 * A slot's writer makes seq odd, stores, then makes it even again; a
 * reader retries while seq is odd or moved. Histogram buckets are read
 * outside that protocol: each is a monotone counter of its own.
 */
#ifndef TRACE_SHM_H
#define TRACE_SHM_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace_hist.h"
#include "trace_wire.h"

#define TRACE_SHM_MAGIC		"PCPTRSHM"	/* 8 bytes, no NUL stored */
#define TRACE_SHM_VERSION	1u		/* this layout */
#define TRACE_SHM_LINE		64u		/* a cache line */
#define TRACE_SHM_PAGE		4096u
#define TRACE_SHM_HDR_SIZE	(2 * TRACE_SHM_LINE)

/* Geometry: what the client asks for and the most an agent accepts. */
#define TRACE_SHM_TAGS		256u	/* tag slots a client creates */
#define TRACE_SHM_ROWS		64u	/* thread rows a client creates */
#define TRACE_SHM_TAGS_MAX	4096u
#define TRACE_SHM_ROWS_MAX	1024u
#define TRACE_SHM_NAME_MAX	128u	/* a tag's bytes, NUL included */

/* The greeting's extension version from which our agent takes segments. */
#define TRACE_SHM_GREETING_EXT	2

/* The agent's local socket: an abstract name (no file) per TCP port. */
#define TRACE_SHM_SOCK_FMT	"pcp-sdk-trace.%u"

/* The registration message's schema version (trace_reg.proto). */
#define TRACE_REG_VERSION	1u
#define TRACE_REG_MAX		512u	/* longest registration message */

struct trace_shm_hdr {
	/* the client's line */
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint64_t size;		/* bytes of the whole segment */
	uint32_t tags, rows;	/* geometry */
	uint32_t ntags;		/* tag entries published (release) */
	uint32_t nrows;		/* rows ever taken (release) */
	int32_t pid;
	uint32_t client_pad[5];
	/* the agent's line */
	uint32_t epoch;		/* the agent's sub-interval stamp, 0: none yet */
	uint32_t agent_pad[15];
};

struct trace_shm_tag {
	uint8_t type;		/* TRACE_TYPE_* */
	uint8_t len;		/* name bytes, NUL not counted */
	uint16_t pad;
	int32_t status;		/* agent: 0, or -ENOSPC when -t refused it */
	char name[TRACE_SHM_NAME_MAX];
};

struct trace_shm_slot {
	uint32_t seq;		/* odd while the writer updates */
	uint32_t epoch;		/* header epoch + 1 that min and max belong to */
	uint64_t count;		/* reports */
	double sum;		/* times (transactions) or values */
	double min, max;	/* since epoch */
	double last;		/* latest value */
	uint64_t pad[2];
};

#define TRACE_SHM_HIST_BYTES	(TRACE_HIST_NBUCKETS * sizeof(uint32_t))

static inline size_t trace_shm_align(size_t n, size_t a)
{
	return (n + a - 1) / a * a;
}

static inline size_t trace_shm_tags_off(void)
{
	return TRACE_SHM_HDR_SIZE;
}

static inline size_t trace_shm_slots_off(uint32_t tags)
{
	return trace_shm_align(trace_shm_tags_off() + (size_t)tags *
			       sizeof(struct trace_shm_tag), TRACE_SHM_LINE);
}

static inline size_t trace_shm_hist_off(uint32_t tags, uint32_t rows)
{
	return trace_shm_align(trace_shm_slots_off(tags) + (size_t)tags * rows *
			       sizeof(struct trace_shm_slot), TRACE_SHM_PAGE);
}

/* The size of a segment of @tags x @rows, or 0 outside the limits. */
static inline size_t trace_shm_size(uint32_t tags, uint32_t rows)
{
	if (tags == 0 || rows == 0 || tags > TRACE_SHM_TAGS_MAX || rows > TRACE_SHM_ROWS_MAX)
		return 0;
	return trace_shm_align(trace_shm_hist_off(tags, rows) + (size_t)tags * rows *
			       TRACE_SHM_HIST_BYTES, TRACE_SHM_PAGE);
}

static inline struct trace_shm_tag *trace_shm_tag_at(void *base, uint32_t t)
{
	return (struct trace_shm_tag *)((char *)base + trace_shm_tags_off()) + t;
}

static inline struct trace_shm_slot *trace_shm_slot_at(void *base, uint32_t tags,
		uint32_t row, uint32_t t)
{
	return (struct trace_shm_slot *)((char *)base + trace_shm_slots_off(tags)) +
		(size_t)row * tags + t;
}

static inline uint32_t *trace_shm_hist_at(void *base, uint32_t tags, uint32_t rows,
		uint32_t row, uint32_t t)
{
	return (uint32_t *)((char *)base + trace_shm_hist_off(tags, rows)) +
		((size_t)row * tags + t) * TRACE_HIST_NBUCKETS;
}

/* Tag types that keep a histogram (times or values). */
static inline int trace_shm_has_hist(int type)
{
	return type == TRACE_TYPE_TRANSACT || type == TRACE_TYPE_OBSERVE;
}

_Static_assert(TRACE_SHM_GREETING_EXT <= TRACE_GREETING_SDK_EXT, "this build offers segments");
_Static_assert(sizeof(struct trace_shm_hdr) == TRACE_SHM_HDR_SIZE, "header: two lines");
_Static_assert(offsetof(struct trace_shm_hdr, epoch) == TRACE_SHM_LINE,
	       "the agent's line is the second");
_Static_assert(sizeof(struct trace_shm_slot) == TRACE_SHM_LINE, "a slot is a line");
_Static_assert(sizeof(struct trace_shm_tag) % 8 == 0, "tag entries stay aligned");
_Static_assert(TRACE_SHM_NAME_MAX > TRACE_PCP_TAG_MAX, "every API tag fits");
_Static_assert(TRACE_SHM_TAGS <= TRACE_SHM_TAGS_MAX && TRACE_SHM_ROWS <= TRACE_SHM_ROWS_MAX,
	       "defaults within the limits");
_Static_assert(sizeof(TRACE_SHM_MAGIC) - 1 == sizeof(((struct trace_shm_hdr *)0)->magic),
	       "magic fills its field");

#endif
