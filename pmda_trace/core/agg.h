/*
 * Trace aggregation: per (tag type, tag) counts, totals and last values
 * since start or reset, and count/min/max/sum over a rolling window of the
 * last N completed sub-intervals of a period T (docs/trace-protocol.md §8.3).
 *
 * Time is divided into sub-intervals of exactly T/N seconds from the start
 * (or the last reset); sub-interval s is "sequence number" s. Each tag keeps
 * N + 1 buckets stamped with their sequence number, so rotation costs
 * nothing: a bucket whose stamp is outside the window simply does not
 * count, and the window is summed when it is fetched. PCP's agent rotates
 * on a timer and computes the sub-interval wrongly when T is not a multiple
 * of N (docs/trace-protocol.md §8.3); here it is exact.
 *
 * Threads: any number of threads may call tra_agg_record concurrently
 * with one thread doing fetches (tra_agg_get, tra_agg_instances) and
 * tra_agg_reset. Every thread that calls into this module must be
 * registered with liburcu (rcu_register_thread). Tags live in liburcu
 * lock-free hash tables; a tag's numbers are guarded by its own mutex,
 * never held across I/O.
 */
#ifndef TRACE_AGG_H
#define TRACE_AGG_H

#include <stddef.h>
#include <stdint.h>
#include <pcp/trace_dev.h>

#include "trace_wire.h"

/* Tag types: the DATA PDU's tagtype and the instance domain serial + 1. */
enum trace_type {
	TRACE_TRANSACT = TRACE_TYPE_TRANSACT,
	TRACE_POINT = TRACE_TYPE_POINT,
	TRACE_OBSERVE = TRACE_TYPE_OBSERVE,
	TRACE_COUNTER = TRACE_TYPE_COUNTER,
};
#define TRACE_NTYPES TRACE_LAST_TYPE
#define TRACE_TAG_MAX TRACE_TAGLEN_MAX	/* bytes without a NUL: a tag field with none */

/* Microseconds on a monotonic clock; tests inject their own. */
typedef int64_t (*trace_clock_fn)(void *arg);

struct trace_agg;

/* What one instance exports (docs/trace-protocol.md §8.3 "Exported values"). */
struct trace_stats {
	int inst;		/* instance number, from 1 */
	uint64_t count;		/* reports since start or reset */
	double total;		/* transactions: sum of times */
	double value;		/* observations, counters: latest value */
	int in_window;		/* 0: the window metrics have no value */
	uint32_t wcount;	/* reports in the window */
	double wmin, wmax, wsum;	/* transactions: times in the window */
};

/*
 * tra_agg_new - aggregation with period @period_sec (>= 1) split into
 * @buckets (>= 1) sub-intervals, at most @max_tags tags of each type
 * (0: no limit). @clock may be NULL for CLOCK_MONOTONIC.
 * Returns NULL with errno EINVAL or ENOMEM.
 */
struct trace_agg *tra_agg_new(unsigned period_sec, unsigned buckets,
		size_t max_tags, trace_clock_fn clock, void *clock_arg);

/* tra_agg_free - free everything; no other thread may use @agg. */
void tra_agg_free(struct trace_agg *agg);

/*
 * tra_agg_record - account one report of @type for @tag (@len bytes, no
 * NUL needed) with @value (seconds for transactions; ignored for points).
 * Returns the tag's instance number (>= 1), or -EINVAL (bad type or
 * length), -ENOSPC (tag limit reached) or -ENOMEM.
 */
int tra_agg_record(struct trace_agg *agg, int type, const char *tag,
		size_t len, double value);

/*
 * tra_agg_seq / tra_agg_record_in - the same, in two steps: read the
 * clock once (the current sub-interval) and account several reports that
 * arrived together, as the listener does for each read from a client.
 */
uint64_t tra_agg_seq(const struct trace_agg *agg);
int tra_agg_record_in(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value);

/*
 * tra_agg_generation - changes whenever a tag is created or a reset
 * empties the instance domains: callers cache instance lists by it.
 */
uint64_t tra_agg_generation(const struct trace_agg *agg);

/*
 * tra_agg_reset - forget every tag's numbers and every instance (names
 * and numbers are remembered: a tag seen again gets its old number) and
 * start a new window phase now (PCP: store to trace.control.reset).
 */
void tra_agg_reset(struct trace_agg *agg);

/*
 * tra_agg_get - the numbers of instance @inst of @type, as of now.
 * Returns 0, or -ENOENT if there is no such instance.
 */
int tra_agg_get(struct trace_agg *agg, int type, int inst,
		struct trace_stats *out);

/*
 * tra_agg_instances - call @fn(@arg, inst, name) for every current
 * instance of @type, in no particular order. Returns the number visited.
 */
int tra_agg_instances(struct trace_agg *agg, int type,
		void (*fn)(void *arg, int inst, const char *name), void *arg);

/* tra_agg_lookup - the instance number of @name in @type, or -ENOENT. */
int tra_agg_lookup(struct trace_agg *agg, int type, const char *name);

#endif
