/* SPDX-License-Identifier: GPL-2.0-or-later */
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
 * Transactions and observations also keep, per bucket, a histogram of the
 * times/values in common/trace_hist.h's log-linear scheme; a fetch merges
 * the window's buckets for percentiles (tra_agg_percentiles). A bucket's
 * histogram is sparse: the 2242 bucket indexes in 71 chunks of 32 (about
 * a binade each), a chunk's 32 64-bit counts (256 bytes) allocated the
 * first time a value falls in it, behind an 80-byte map from chunk to
 * counts. Recording a value is two array lookups and an increment; a
 * bucket's reuse keeps the allocation (halved when the sub-interval before
 * used under half of it).
 *
 * Since start or reset, each transaction and observation tag also counts
 * its times/values in trace_hist.h's coarse buckets (4 a binade), for the
 * cumulative "le" buckets Prometheus reads (tra_agg_le): one 64-bit count
 * for each coarse bucket from the lowest to the highest any value fell in,
 * the span widened (reallocated) when a value falls outside it. A record
 * only checks the span (two compares); a slot's histogram is added to the
 * counts when the slot is reused, and a fetch adds the slots not reused
 * yet.
 *
 * Memory per tag (x86-64): 168 bytes + the tag's name and note, (N + 1) x
 * 48 bytes of buckets, and for transactions and observations, in each of
 * the N + 1 sub-intervals with values, 80 bytes + 256 bytes per chunk its
 * values fell in, and 8 bytes per coarse bucket of the span (values
 * within a binade: 40 bytes; the widest span, 282 buckets, 2.2 KiB), and
 * the remembered name. With -T 60 -N 5: about 600 bytes a tag without
 * histograms; values within one binade (1 or 2 chunks) add 2-4 KiB,
 * values spread log-uniformly over 20 binades ~32 KiB (bench/RESULTS.md);
 * the worst case, all 71 chunks, is 18 KiB a sub-interval, what a dense
 * array would cost always: tra_agg_tag_worst(5, len) is 114,827 bytes +
 * twice len (112 KiB).
 *
 * Byte budget (tra_agg_set_budget): every allocation above is counted in
 * one atomic total, with malloc's overhead per block and liburcu's
 * buckets per hash node (estimates named in agg_tags.c); one that would
 * take the total over the budget is not made and the report is refused
 * with -ENOSPC, changing no number (tra_agg_usage counts refusals by
 * cap and by bytes). Only what tags and names hold is counted, not the
 * aggregation's fixed few KiB. The one tag named as exempt (the span
 * table's overflow instance) is never refused and not capped, but its
 * bytes count too, so the total stays under the budget plus that tag's
 * worst case, tra_agg_tag_worst(N, its name and note's length). The names
 * remembered across resets count as well: without tra_agg_forget_expired
 * they stay until the aggregation is freed (PCP's rule, §8.2), so a
 * stream of ever new names fills the budget with names and then every
 * new name is refused; with it, expiry and reset forget them.
 *
 * Threads: any number of threads may call tra_agg_record(_in, _ex),
 * tra_agg_update_ex, tra_agg_merge_in, tra_agg_expire, tra_agg_usage and
 * the lookups (tra_agg_lookup, tra_agg_ntags, tra_agg_generation)
 * concurrently with one thread doing fetches (tra_agg_get,
 * tra_agg_percentiles, tra_agg_window_hist, tra_agg_le, tra_agg_note,
 * tra_agg_instances) and tra_agg_reset; a fetch sees each tag's numbers
 * as of one moment (its lock is held while it reads, also while it
 * merges the window's histograms). tra_agg_set_budget and
 * tra_agg_forget_expired are called once, before any other thread uses
 * the aggregation; tra_agg_free when none does any more. Every thread
 * that calls into this module must be registered with liburcu
 * (rcu_register_thread). Tags live in liburcu lock-free hash tables; a
 * tag's numbers are guarded by its own spinlock, never held across I/O;
 * the byte total is one atomic, changed only when memory is allocated or
 * freed. The code: agg_tags.c (tag table, budget), agg_record.c
 * (reports), agg_hist.c (histograms), agg_window.c (fetches),
 * agg_expire.c (expiry, reset, free), agg_priv.h (what they share).
 */
#ifndef TRACE_AGG_H
#define TRACE_AGG_H

#include <stddef.h>
#include <stdint.h>
#include <pcp/trace_dev.h>

#include "trace_hist.h"
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
	uint64_t wcount;	/* reports in the window */
	double wmin, wmax, wsum;	/* transactions, observations: in the window */
	uint64_t flagged;	/* reports flagged by tra_agg_record_ex since start or reset */
	int attr;		/* the latest tra_agg_record_ex report's attribute, else 0 */
};

/* What tra_agg_record_ex adds to a report (the OTLP spans': error, kind, labels). */
struct trace_extra {
	int flagged;		/* non-zero: count the report in trace_stats.flagged */
	int attr;		/* kept as the tag's latest attribute */
	/* kept by a tag made by this report (copied, counted in the budget),
	 * never changed afterwards; NULL: none (tra_agg_note) */
	const char *note;
	size_t note_len;
};

/* The aggregation's memory and refusals (tra_agg_usage). */
struct trace_agg_usage {
	size_t bytes, max_bytes;	/* counted now; the budget (0: none) */
	size_t tags[TRACE_NTYPES + 1];	/* tags of each type under the cap (the exempt one not) */
	size_t remembered;		/* names remembered (instance numbers) */
	uint64_t refused_cap;		/* reports refused by the tag cap */
	uint64_t refused_bytes;		/* reports refused by the byte budget */
};

/* The PDU aggregation's byte budget (the agent's default). */
#define TRA_AGG_BYTES_MIB	256	/* the PDU aggregation's byte budget by default, MiB */
#define TRA_AGG_BYTES_DEFAULT ((size_t)TRA_AGG_BYTES_MIB << 20)

/* One sub-interval's numbers for one tag, from a client's shared segment. */
struct trace_batch {
	uint64_t count;		/* reports */
	double sum;		/* transactions: total time (s); observations: sum of values */
	double min, max;	/* of the times/values; ignored when count == 0 */
	double last;		/* observations, counters: the latest value */
	const uint64_t *hist;	/* TRACE_HIST_NBUCKETS counts, or NULL (points, counters) */
};

/* The most reports one batch may carry: far more than a sub-interval sees, exact in a double. */
#define TRACE_BATCH_MAX ((UINT64_C(1) << 52) - 1)

/*
 * tra_agg_new - aggregation with period @period_sec (>= 1) split into
 * @buckets (>= 1) sub-intervals, at most @max_tags tags of each type
 * (0: no limit). @clock may be NULL for CLOCK_MONOTONIC.
 * Returns NULL with errno EINVAL or ENOMEM.
 */
struct trace_agg *tra_agg_new(unsigned period_sec, unsigned buckets,
		size_t max_tags, trace_clock_fn clock, void *clock_arg);

/*
 * tra_agg_set_budget - count every allocation of @agg in bytes and refuse
 * (-ENOSPC, no number changed) one that would take the total over
 * @max_bytes (0: no budget, only counted). The tag of the @exempt_len
 * bytes @exempt (NULL: none), in any type, is never refused by the budget
 * nor counted against max_tags; its bytes are counted. Call before use.
 */
void tra_agg_set_budget(struct trace_agg *agg, size_t max_bytes, const char *exempt,
		size_t exempt_len);

/*
 * tra_agg_usage - @agg's byte total, budget, tags and refusals into @u.
 * Any registered thread; takes the creation mutex for a moment.
 */
void tra_agg_usage(struct trace_agg *agg, struct trace_agg_usage *u);

/*
 * tra_agg_tag_worst - the most bytes one transaction or observation tag
 * of an aggregation of @nbuckets sub-intervals counts in the budget,
 * whose name and note take @name_len bytes together: every chunk of every
 * slot's histogram, the widest coarse span (with the one it replaces
 * while widening), the remembered name.
 */
size_t tra_agg_tag_worst(unsigned nbuckets, size_t name_len);

/*
 * tra_agg_note - the note instance @inst of @type was made with
 * (struct trace_extra), NUL-terminated into @buf of @cap bytes ("" if
 * none). Returns its length, -ENOENT (no such instance) or -ENOSPC (@cap
 * too small). Called by the fetching thread, as tra_agg_get.
 */
int tra_agg_note(struct trace_agg *agg, int type, int inst, char *buf, size_t cap);

/* tra_agg_free - free everything; no other thread may use @agg. */
void tra_agg_free(struct trace_agg *agg);

/*
 * tra_agg_record - account one report of @type for @tag (@len bytes, no
 * NUL needed) with @value (seconds for transactions; ignored for points).
 * Returns the tag's instance number (>= 1), or -EINVAL (bad type or
 * length), -ENOSPC (tag limit reached, or the byte budget: nothing
 * counted) or -ENOMEM.
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
 * tra_agg_record_ex - tra_agg_record_in with @x (NULL: as tra_agg_record_in):
 * the report also counts as flagged if x->flagged, and x->attr becomes
 * the tag's attribute. Returns as tra_agg_record_in.
 */
int tra_agg_record_ex(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value, const struct trace_extra *x);

/*
 * tra_agg_update_ex - tra_agg_record_ex for a tag that exists: one that
 * does not (or expires meanwhile) is not made, -ENOENT. For callers that
 * serialise making a tag with a lock of their own (the span table).
 */
int tra_agg_update_ex(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, double value, const struct trace_extra *x);

/*
 * tra_agg_expire - remove the tags of @type whose latest report is more
 * than @idle sub-intervals before the current one: their instances leave
 * the domain (tra_agg_generation changes). A report racing the removal is
 * accounted in a new tag, never lost. Instance numbers are never given to
 * another name; a name seen again gets its old number back, or, after
 * tra_agg_forget_expired, a new one (its counts start again under the new
 * number). Returns the number of tags removed. Any registered thread.
 */
int tra_agg_expire(struct trace_agg *agg, int type, uint64_t idle);

/*
 * tra_agg_forget_expired - from now on tra_agg_expire also forgets the
 * expired names and tra_agg_reset every name, so the names remembered
 * stay as many as the tags (an aggregation whose names come and go
 * without end). Call before use.
 */
void tra_agg_forget_expired(struct trace_agg *agg);

/*
 * tra_agg_ntags - the number of current tags of @type counted against
 * max_tags, the exempt one not (0 for a bad type).
 */
size_t tra_agg_ntags(struct trace_agg *agg, int type);

/*
 * tra_agg_merge_in - account @b for @tag (@len bytes) of @type in sub-interval @seq
 * (from tra_agg_seq) exactly as b->count tra_agg_record_in calls with those values
 * would have: count and total since start, the window's count/min/max/sum, the latest
 * value, the histogram. Returns the instance (>= 1) or -EINVAL/-ENOSPC/-ENOMEM as
 * tra_agg_record_in (tag cap -t applies the same way).
 *
 * A batch of no reports (b->count == 0) changes nothing and creates no
 * tag: it returns the tag's instance if the tag exists, else 0. -EINVAL
 * also rejects, changing nothing, a batch that cannot come from real
 * reports: b NULL, b->count over TRACE_BATCH_MAX, b->min > b->max, and for
 * transactions and observations a NULL b->hist or one whose counts do not
 * add up to b->count (b->hist is ignored for points and counters).
 * Thread-safe as tra_agg_record_in; @b is only read, during the call.
 */
int tra_agg_merge_in(struct trace_agg *agg, uint64_t seq, int type,
		const char *tag, size_t len, const struct trace_batch *b);

/*
 * tra_agg_percentiles - the @n percentiles @pct[i] (0 < pct <= 100) of
 * the times (transactions) or values (observations) in the rolling window
 * of instance @inst of @type, into @out[i]: nearest rank over the merged
 * histograms (trace_hist_rank), a bucket's midpoint (within 1.6 % of any
 * value it holds) clamped into the window's [min, max].
 * Returns 0, -ENOENT (no such instance), -ENODATA (nothing in the window,
 * or a type with no histogram), -EINVAL (a pct out of range) or -ENOMEM.
 * Called by the fetching thread, as tra_agg_get.
 */
int tra_agg_percentiles(struct trace_agg *agg, int type, int inst,
		const double *pct, unsigned n, double *out);

/*
 * tra_agg_window_hist - the merged histogram of the rolling window of
 * instance @inst of @type into @counts (TRACE_HIST_NBUCKETS of them).
 * Returns the number of values (capped at INT_MAX), -ENOENT or -ENODATA
 * (a type with no histogram; @counts is zeroed either way).
 */
int tra_agg_window_hist(struct trace_agg *agg, int type, int inst,
		uint64_t *counts);

/*
 * tra_agg_le - the times (transactions) or values (observations) of
 * instance @inst of @type since start or reset, cumulative in trace_hist.h's
 * coarse buckets: @cum[j] (TRACE_HIST_LE_N of them; NULL: not wanted)
 * counts those below trace_hist_le_bound(j), @cum[TRACE_HIST_LE_N - 1]
 * all of them (the count, late reports included). *@first and *@last get
 * the buckets worth exporting: the one below the lowest any value fell in
 * (an empty lower edge) to the highest. Returns 0, -ENOENT (no such
 * instance) or -ENODATA (no value yet, or a type with no histogram).
 * Called by the fetching thread, as tra_agg_get.
 */
int tra_agg_le(struct trace_agg *agg, int type, int inst, uint64_t *cum,
		unsigned *first, unsigned *last);

/*
 * tra_agg_generation - changes whenever a tag is created, a reset
 * empties the instance domains, or a tag's coarse span (tra_agg_le's
 * first and last) widens: callers cache instance lists by it.
 */
uint64_t tra_agg_generation(const struct trace_agg *agg);

/*
 * tra_agg_reset - forget every tag's numbers and every instance and start
 * a new window phase now (PCP: store to trace.control.reset). Names and
 * numbers are remembered (a tag seen again gets its old number), unless
 * tra_agg_forget_expired was called: then the names are forgotten too,
 * and a name seen again gets a new number (numbers are never reused).
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
