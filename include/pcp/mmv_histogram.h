/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_histogram.h - latency (or any value) distributions in an MMV file.
 *
 * New API: PCP has no equivalent. A histogram is laid out as plain MMV
 * metrics, so PCP's pmdammv and every PCP tool serve and read it
 * unchanged; link with -lpcp_mmv (symbol version PCP_MMV_SDK_1.0).
 *
 * Bucket scheme ("log-linear"): for a low bound lo (>= 1) and a high bound
 * hi (> lo), in the units of the recorded values, every power of two
 * [2^e, 2^(e+1)) is split into sub_buckets equal sub-buckets (one bucket
 * per integer where 2^e < sub_buckets). The buckets between lo and hi are
 * those sub-buckets, the first and last cut at lo and hi; an underflow
 * bucket [0, lo) comes first and an overflow bucket [hi, inf) last. So
 * a bucket is at most 1/sub_buckets of its lower bound wide: with
 * sub_buckets 8 any value is known to within 12.5%. Powers of two for lo
 * and hi give buckets of equal relative width throughout.
 *
 * Layout of histogram NAME (docs/mmv-format.md §10.5):
 *  - NAME.bucket: U64 COUNTER, units count, indom @bucket_serial: one counter per
 *    bucket. Bucket instances are named "<lo>-<hi>" (integers, hi
 *    exclusive; "0-<lo>" underflow, "<hi>-inf" overflow) with ids
 *    0..nb-1 in value order. A histogram per instance of an indom
 *    (@serial) has nb instances per instance of @serial: id p * nb + k
 *    for the p-th instance (in declaration order) and bucket k, named
 *    "<instance>:<lo>-<hi>", so a PCP tool selects one product's buckets
 *    by name (pmrep -i, pmval -i) or by the "of" label.
 *  - NAME.count: U64 COUNTER, units count, indom @serial (or none): the
 *    number of values recorded.
 *  - NAME.sum: U64 COUNTER in @units, indom @serial (or none): their sum
 *    (wraps at 2^64).
 *  - Labels: on NAME.bucket's item, "histogram" = {"scheme":"log-linear","low":LO,
 *    "high":HI,"sub_buckets":N}; on every bucket instance "lo" (number) and,
 *    but for the overflow bucket, "hi" (number); per-instance histograms
 *    add "of" = the instance name of @serial. Labels make the file
 *    version 3.
 * (The buckets are NAME.bucket, not NAME: a PMNS name cannot be both a
 * metric and the parent of NAME.count, and PCP's pmdammv then serves no
 * metric of any file.)
 *
 * PCP's pmdammv ignores every label of a file with more than 255 label
 * records; each bucket instance takes two (three per instance), so the
 * calls below refuse (E2BIG) a histogram that would take a file past 255.
 *
 * Threads: declaring (mmv_stats_add_histogram, _spec) is for one thread per
 * registry, as the other registry calls. Recording may be done from any
 * number of threads (and processes mapping the file) at once; nothing is
 * lost.
 *
 * What a concurrent reader (the agent) may observe: each record is three
 * relaxed atomic adds (the bucket, .count, .sum), each seen before or
 * after, never torn; relaxed means unordered, so a reader may see a
 * bucket counted a moment before .count or .sum includes the value (or
 * the other way round). The sum over the buckets equals .count once
 * recording pauses.
 */
#ifndef PCP_MMV_HISTOGRAM_H
#define PCP_MMV_HISTOGRAM_H

#include <stdint.h>
#include <pcp/mmv_stats.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MMV_HISTOGRAM_SUB_BUCKETS_MAX	64

/*
 * mmv_stats_add_histogram - declare histogram @name on @reg (before
 * mmv_stats_start). @item is the first of three consecutive PMID items it
 * takes (@item: @name.bucket, @item + 1: @name.count, @item + 2:
 * @name.sum).
 * @bucket_serial is a new indom serial (1..2047) the call declares for the
 * buckets, with their instances and labels. @serial is 0 for one
 * histogram, or an indom already declared on @reg whose instances (those
 * declared before this call) each get a histogram. @lo, @hi: the scheme's
 * bounds in @units (1 <= lo < hi); @sub_buckets: 1..64, a power of two.
 * @shorttext and @helptext describe @name.bucket as for
 * mmv_stats_add_metric; the indom, @name.count and @name.sum get help of
 * their own.
 * Instances added to @serial after this call would have no buckets: then
 * mmv_stats_start fails with EINVAL.
 * Returns 0, or a negative errno (errno is set too):
 *  -EFAULT  @reg NULL;
 *  -EBUSY   @reg already started;
 *  -EINVAL  @name NULL or not a metric name, @item < 0 or @item + 2 >
 *           1023, @bucket_serial outside 1..2047, bounds or sub_buckets
 *           outside the ranges above;
 *  -ESRCH   @serial not 0 and not declared;
 *  -EEXIST  @bucket_serial already declared;
 *  -E2BIG   @name longer than 248 chars, a bucket instance name longer
 *           than 255, more than 2^31 bucket instances, or the file would
 *           have more than 255 labels (see above);
 *  -ENOMEM  (the registry then refuses to start, with ENOMEM).
 */
extern int mmv_stats_add_histogram(mmv_registry_t *reg, const char *name,
		int item, int bucket_serial, int serial, uint64_t lo, uint64_t hi,
		unsigned int sub_buckets, pmUnits units, const char *shorttext,
		const char *helptext);

/*
 * mmv_histogram_spec_t - a histogram as mmv_stats_add_histogram_spec takes
 * it: the arguments of mmv_stats_add_histogram, by field name, so a
 * declaration reads as what it sets (fields left out of a designated
 * initialiser are zero: no indom, no help):
 *
 *	mmv_histogram_spec_t spec = {
 *		.name = "buildtime", .item = 11, .bucket_serial = 20,
 *		.serial = PRODUCTS, .lo = 64, .hi = 1 << 20, .sub_buckets = 8,
 *		.units = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0),
 *		.shorttext = "Time to build a product",
 *	};
 */
typedef struct mmv_histogram_spec {
	const char *name;		/* NAME */
	int item;			/* NAME.bucket's; .count and .sum the next two */
	int bucket_serial;		/* the new indom of the buckets */
	int serial;			/* 0, or the indom whose instances each get one */
	uint64_t lo, hi;		/* the scheme's bounds, in @units */
	unsigned int sub_buckets;	/* 1..64, a power of two */
	pmUnits units;
	const char *shorttext;		/* NAME.bucket's help, may be NULL */
	const char *helptext;
} mmv_histogram_spec_t;

/*
 * mmv_stats_add_histogram_spec - mmv_stats_add_histogram with its
 * arguments in @spec: the same checks, declarations and results, and
 * -EFAULT for a NULL @spec. @spec and its strings may go once it returns
 * (the registry copies them). This SDK's call (version node
 * PCP_MMV_SDK_1.1); no PCP counterpart.
 */
extern int mmv_stats_add_histogram_spec(mmv_registry_t *reg,
		const mmv_histogram_spec_t *spec);

/* A histogram (of one instance) in a started file. */
typedef struct mmv_histogram mmv_histogram_t;

/*
 * mmv_stats_histogram - the handle of histogram @name for @instance (an
 * instance name of the histogram's @serial; ignored, may be NULL, when
 * @serial was 0) in the file @addr returned by mmv_stats_start. A lookup:
 * keep the handle, it stays valid until the file is stopped (mmv_stats_stop,
 * mmv_stats_reset, mmv_stats_free). Safe with any concurrent call but
 * those.
 * Returns the handle, or NULL with errno EINVAL (@addr or @name NULL, or
 * @instance NULL for a per-instance histogram) or ENOENT (@addr is not a
 * file this process started, or it has no such histogram or instance).
 */
extern mmv_histogram_t *mmv_stats_histogram(void *addr, const char *name,
		const char *instance);

/*
 * mmv_histogram_record - count @value (in the histogram's units) in its
 * bucket, add 1 to .count and @value to .sum: three relaxed atomic adds,
 * the bucket found by bit arithmetic (no loop, no lock). @h NULL: nothing.
 */
extern void mmv_histogram_record(mmv_histogram_t *h, uint64_t value);

/*
 * mmv_histogram_now - a start stamp for mmv_histogram_record_since:
 * CLOCK_MONOTONIC in nanoseconds (immune to clock changes).
 */
extern uint64_t mmv_histogram_now(void);

/*
 * mmv_histogram_record_since - record the time elapsed since @start (from
 * mmv_histogram_now), converted to the histogram's time units (PM_TIME_NSEC
 * .. PM_TIME_HOUR, truncated); a histogram whose units are not a time
 * records nanoseconds. A @start in the future records 0. @h NULL: nothing.
 */
extern void mmv_histogram_record_since(mmv_histogram_t *h, uint64_t start);

#ifdef __cplusplus
}
#endif

#endif /* PCP_MMV_HISTOGRAM_H */
