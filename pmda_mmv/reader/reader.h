/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.h - the MMV reader core of pmda_mmv: scans a directory of MMV
 * files into an immutable snapshot and answers the questions a PMDA asks
 * (names, descriptors, instances, help, labels, values). It knows nothing
 * of pmcd; the front end (pmda_mmv/view.c) publishes snapshots with RCU
 * and maps the answers onto libpcp_pmda. Every name the core exports
 * starts with mmvr_ (shared code from common/: sdk_), which make check
 * enforces (tests/style/exports.sh).
 *
 * A snapshot is immutable once built. A file that did not change (same
 * inode, size and generations) is shared with the previous snapshot,
 * reference counted and never modified after the scan that read it, so
 * any number of threads may query one snapshot while another thread
 * builds the next; snapshots are built and freed by one thread at a time.
 * Every byte of every file is validated before use (docs/mmv-format.md §7, §7.1, §7.2, §8);
 * a bad file or record is refused with a log line and everything else
 * keeps being served. Metadata is copied out at the scan and checked in
 * the copy; live values are read from a read-only mapping through a SIGBUS
 * guard, so a file truncated under the reader gives an error, not a crash.
 */
#ifndef PMDA_MMV_READER_H
#define PMDA_MMV_READER_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcp/pmapi.h>
#include "bucket_pct.h"
#include "mmv_format.h"

#define MMVR_DOMAIN	70	/* PMDA domain of the mmv instance */
/* Cluster 0 holds the control metrics; files get 1..MMV_CLUSTER_MAX. */
#define MMVR_MAX_FILE	(16u << 20)	/* default file size cap */

/* Log levels are syslog's (LOG_ERR, LOG_WARNING, LOG_INFO). */
typedef void (*mmvr_log_fn)(void *arg, int level, const char *msg);

typedef struct mmvr_config {
	const char *dir;		/* e.g. $PCP_TMP_DIR/mmv */
	const char *prefix;		/* "mmv"; NULL means "mmv" */
	unsigned int domain;		/* 0 means MMVR_DOMAIN */
	uint64_t max_file_size;		/* 0 means MMVR_MAX_FILE */
	mmvr_log_fn log;		/* NULL: one line on stderr */
	void *log_arg;
	/* The snapshot being served, or NULL: a file it serves at an
	 * explicit cluster keeps that cluster against newcomers. */
	const struct mmvr_snapshot *previous;
} mmvr_config_t;

typedef struct mmvr_snapshot mmvr_snapshot_t;

/* One accepted file. */
typedef struct mmvr_file_info {
	const char *name;		/* directory entry name */
	unsigned int cluster;		/* assigned, 1..4095 */
	int requested_cluster;		/* header cluster, 0 = any */
	unsigned int flags;		/* MMV_FLAG_* from the header */
	int version;			/* 1, 2 or 3 */
	uint64_t generation;		/* g1 at load */
	int pid;			/* watched writer (PROCESS), or 0 */
} mmvr_file_info_t;

/* One exported metric. */
typedef struct mmvr_metric_info {
	const char *name;		/* prefix.file.metric or prefix.metric */
	pmDesc desc;			/* docs/mmv-format.md §9.3 */
	const char *shorttext;		/* NULL when absent */
	const char *helptext;
} mmvr_metric_info_t;

typedef struct mmvr_instance_info {
	int inst;
	const char *name;
} mmvr_instance_info_t;

/* One instance domain: mmv_indom_serial(cluster, serial). */
typedef struct mmvr_indom_info {
	pmInDom indom;
	unsigned int ninstances;
	const mmvr_instance_info_t *instances;	/* in file order */
	const char *shorttext;		/* NULL when absent */
	const char *helptext;
} mmvr_indom_info_t;

/* A fetched value: atom for numbers, str (and atom.cp) for strings. */
typedef struct mmvr_value {
	int type;			/* PM_TYPE_* of the descriptor */
	pmAtomValue atom;
	char str[MMV_STRINGMAX];
} mmvr_value_t;

/* Why a rescan is needed (mmvr_snapshot_needs_rescan). */
enum {
	MMVR_RESCAN_NONE = 0,
	MMVR_RESCAN_DIR,			/* directory mtime or stat errno changed,
					 * or it changed in the scan's clock tick */
	MMVR_RESCAN_READY,		/* a file that was not ready now is */
	MMVR_RESCAN_CHANGED,		/* a file's generation or size changed */
	MMVR_RESCAN_WRITER_GONE,		/* a PROCESS file's writer exited */
};

/*
 * mmvr_snapshot_scan - read every file of cfg->dir into a new snapshot.
 * A missing directory gives an empty snapshot (watched for appearing).
 * Returns NULL with errno set only when memory runs out.
 */
mmvr_snapshot_t *mmvr_snapshot_scan(const mmvr_config_t *cfg);

/* mmvr_snapshot_free - release all memory and descriptors. NULL ignored. */
void mmvr_snapshot_free(mmvr_snapshot_t *snap);

/*
 * mmvr_snapshot_needs_rescan - whether the directory or a file changed
 * since the scan (docs/mmv-format.md §9.2). Returns MMVR_RESCAN_NONE or the first reason
 * found. Safe to call concurrently with queries.
 */
int mmvr_snapshot_needs_rescan(const mmvr_snapshot_t *snap);

/*
 * mmvr_snapshot_needs_rescan_quick - the part of the check whose cost does
 * not grow with the number of files: the directory, files that were not
 * ready, and a change a fetch found (below). Every legitimate rewrite
 * (ours and PCP's writers replace the file) changes the directory, so
 * callers run this per request and the full check at most once a second.
 */
int mmvr_snapshot_needs_rescan_quick(const mmvr_snapshot_t *snap);

/*
 * mmvr_snapshot_reserve - keep memory for the next scan with @snap as
 * cfg->previous: blocks the sizes of @snap's lists and of its largest
 * file's copy and tables, their pages faulted in now. For a first scan:
 * later scans reuse what the one before released. Takes the block lock.
 */
void mmvr_snapshot_reserve(const mmvr_snapshot_t *snap);

/* Files taken over unchanged from cfg->previous (not read again). */
size_t mmvr_snapshot_reused(const mmvr_snapshot_t *snap);

/* Files that were not ready (g1 != g2, g1 == 0, too short) at the scan. */
unsigned int mmvr_snapshot_not_ready(const mmvr_snapshot_t *snap);

size_t mmvr_snapshot_nfiles(const mmvr_snapshot_t *snap);
const mmvr_file_info_t *mmvr_snapshot_file(const mmvr_snapshot_t *snap, size_t i);

/* Metrics, sorted by name; by name or PMID. NULL when absent. */
size_t mmvr_snapshot_nmetrics(const mmvr_snapshot_t *snap);
/* mmvr_snapshot_same_names - do @a and @b export the same names with the
 * same PMIDs? One pass over both name lists, comparing only the metrics
 * that are not the same record (files both share need no compare). */
bool mmvr_snapshot_same_names(const mmvr_snapshot_t *a, const mmvr_snapshot_t *b);
const mmvr_metric_info_t *mmvr_snapshot_metric(const mmvr_snapshot_t *snap,
		size_t i);
const mmvr_metric_info_t *mmvr_snapshot_lookup_name(const mmvr_snapshot_t *snap,
		const char *name);
const mmvr_metric_info_t *mmvr_snapshot_lookup_pmid(const mmvr_snapshot_t *snap,
		pmID pmid);

/*
 * mmvr_snapshot_name_range - the metrics whose names begin with @prefix:
 * their count, the first one's index (mmvr_snapshot_metric) in *first.
 */
size_t mmvr_snapshot_name_range(const mmvr_snapshot_t *snap, const char *prefix,
		size_t *first);

/* Instance domains, sorted by pmInDom. NULL when absent. */
size_t mmvr_snapshot_nindoms(const mmvr_snapshot_t *snap);
const mmvr_indom_info_t *mmvr_snapshot_indom(const mmvr_snapshot_t *snap,
		size_t i);
const mmvr_indom_info_t *mmvr_snapshot_lookup_indom(const mmvr_snapshot_t *snap,
		pmInDom indom);

/*
 * mmvr_snapshot_text - help text, pmdaText style: @type is PM_TEXT_PMID or
 * PM_TEXT_INDOM, or-ed with PM_TEXT_ONELINE or PM_TEXT_HELP; @ident the
 * pmID or pmInDom. Returns 0 with *text set (valid as long as the
 * snapshot), or PM_ERR_PMID, PM_ERR_INDOM or PM_ERR_TEXT.
 */
int mmvr_snapshot_text(const mmvr_snapshot_t *snap, int ident, int type,
		const char **text);

/*
 * mmvr_snapshot_labels - call @cb for each label of a subject (docs/mmv-format.md §9.6):
 * @type PM_LABEL_CLUSTER or PM_LABEL_ITEM with @ident a pmID,
 * PM_LABEL_INDOM with a pmInDom, PM_LABEL_INSTANCES with a pmInDom and
 * @inst (PM_IN_NULL: every instance). @cb gets the record's flags
 * (PM_LABEL_OPTIONAL kept), the instance (or PM_IN_NULL) and the JSON
 * payload; a negative return stops the walk and is returned.
 * Returns the number of labels given to @cb.
 */
typedef int (*mmvr_label_cb)(void *arg, unsigned int flags, int inst,
		const char *json);
int mmvr_snapshot_labels(const mmvr_snapshot_t *snap, int type,
		unsigned int ident, int inst, mmvr_label_cb cb, void *arg);

/*
 * mmvr_snapshot_fetch - the current value of (@pmid, @inst), docs/mmv-format.md §9.4.
 * @inst PM_IN_NULL gives the first value record of the metric.
 * Returns 1 with *out filled, 0 for "no value" (a SENTINEL pattern), or
 * PM_ERR_PMID (unknown), PM_ERR_INST (no such instance), PM_ERR_APPVERSION
 * (type NOSUPPORT), PM_ERR_AGAIN (the file's generation changed in place)
 * or PM_ERR_VALUE (the file shrank under the reader past the value's page;
 * a value in the file's last page then reads as zero until the next full
 * rescan check notices the size, as with PCP's agent, which maps too).
 * Nothing is cached: each call reads the file's generation and the value.
 */
int mmvr_snapshot_fetch(const mmvr_snapshot_t *snap, pmID pmid, int inst,
		mmvr_value_t *out);

/* mmvr_snapshot_fetch_metric - the same for a metric already looked up
 * (mmvr_snapshot_lookup_pmid) in @snap: one lookup per PMID. */
int mmvr_snapshot_fetch_metric(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *m, int inst, mmvr_value_t *out);

/*
 * One guard for many values. mmvr_snapshot_fetch_metric arms the SIGBUS
 * guard around each value's reads (a sigsetjmp each); a caller reading
 * many values can arm it once:
 *
 *	mmvr_guard_t g;
 *	if (sigsetjmp(g.env, 0) == 0) {
 *		mmvr_guard_arm(&g);
 *		... mmvr_snapshot_fetch_armed(...) for each value ...
 *		mmvr_guard_disarm();
 *	} else {
 *		... a file shrank under its mapping: the guard is disarmed;
 *		    read again with mmvr_snapshot_fetch_metric ...
 *	}
 *
 * A jump comes from a read of a mapping, which must not happen with a
 * lock held; but any SIGBUS the thread takes while armed jumps too, out
 * of whatever runs, so keep other work that takes locks outside the
 * stretch where it is cheap to (the agent disarms around its logging).
 * @g's frame must stay live until disarm. Other threads are not affected.
 */
typedef struct mmvr_guard {
	sigjmp_buf env;
} mmvr_guard_t;

void mmvr_guard_arm(mmvr_guard_t *g);
void mmvr_guard_disarm(void);

/* mmvr_snapshot_fetch_armed - mmvr_snapshot_fetch_metric with the guard
 * armed by the caller: the values are read with plain loads. */
int mmvr_snapshot_fetch_armed(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *m, int inst, mmvr_value_t *out);

/*
 * The quick path, for a request of many singular metrics: a PMID of a
 * metric without an indom whose type is a number has a quick record (8
 * bytes, dense per file), and its value is read from that record alone,
 * without the metric's own. Others have none: look them up as above.
 *
 * mmvr_snapshot_lookup_quick - @pmid's quick record in @snap, or NULL
 * (unknown, an indom, a string, NOSUPPORT, a file read with pread, a
 * value record 4 GiB or more into its file). Valid while @snap is.
 * mmvr_quick_type - its PM_TYPE_*, as the metric's desc has it.
 * mmvr_snapshot_fetch_quick - mmvr_snapshot_fetch_metric(@snap, metric
 * of @pmid, PM_IN_NULL, @out), or mmvr_snapshot_fetch_armed when @armed:
 * the same value and return values, from the record @q of @pmid.
 */
typedef struct rquick {
	uint32_t offset;		/* of its value record; 0: none */
	int8_t mtype;			/* MMV_TYPE_* */
	int8_t type;			/* PM_TYPE_* of its desc */
	uint16_t unused;
} mmvr_quick_t;

const mmvr_quick_t *mmvr_snapshot_lookup_quick(const mmvr_snapshot_t *snap,
		pmID pmid);

/* Inline: asked once per PMID of a request. */
static inline int mmvr_quick_type(const mmvr_quick_t *q)
{
	return q->type;
}
int mmvr_snapshot_fetch_quick(const mmvr_snapshot_t *snap, pmID pmid,
		const mmvr_quick_t *q, mmvr_value_t *out, bool armed);

/*
 * mmvr_snapshot_read_quick - under a guard the caller armed for a whole
 * reply: the 8 value bytes of @q's record for @pmid into @atom. Returns 1,
 * 0 (the SENTINEL pattern: no value), PM_ERR_AGAIN as
 * mmvr_snapshot_fetch_quick, or 2 for an elapsed time, whose value needs
 * its record's second word: mmvr_snapshot_fetch_quick reads that.
 */
int mmvr_snapshot_read_quick(const mmvr_snapshot_t *snap, pmID pmid,
		const mmvr_quick_t *q, pmAtomValue *atom);

/*
 * mmvr_snapshot_quick_addrs - where in its file's mapping a quick read of
 * @q for @pmid loads from: @addr[0] the generations, @addr[1] the value
 * record. For prefetching only: reading them needs the guard.
 */
void mmvr_snapshot_quick_addrs(const mmvr_snapshot_t *snap, pmID pmid,
		const mmvr_quick_t *q, const void *addr[2]);

/*
 * mmvr_snapshot_fetch_counts - the 64-bit integer values of metric @m
 * (mmvr_snapshot_lookup_*) for the @n instances @insts, into @out, read
 * in one copy of the metric's value records (a sentinel reads as 0).
 * Returns 1, or PM_ERR_TYPE (not a 64-bit integer), PM_ERR_INST,
 * PM_ERR_AGAIN or PM_ERR_VALUE as mmvr_snapshot_fetch.
 */
int mmvr_snapshot_fetch_counts(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *m, const int *insts, unsigned int n,
		uint64_t *out);

/*
 * mmvr_snapshot_fetch_saw_change - whether a fetch from @snap found a file
 * whose generation changed in place (PM_ERR_AGAIN) or that shrank under
 * the mapping (PM_ERR_VALUE); the snapshot then needs a rescan
 * (MMVR_RESCAN_CHANGED). A request that sees this after its fetches
 * rescans and answers again.
 */
bool mmvr_snapshot_fetch_saw_change(const mmvr_snapshot_t *snap);

/*
 * Percentiles of histograms (docs/mmv-format.md §9.8, pct.c). A histogram
 * NAME is a U64 metric NAME.bucket with the item label "histogram" whose
 * bucket instances carry "lo" and (but for the overflow bucket) "hi"
 * labels, plus NAME.count (its indom is the histograms' one, or none)
 * and NAME.sum (its units are the histogram's). The agent samples the bucket
 * counts every step and serves p50, p90 and p99 over the last window as
 * <prefix>.percentile.<NAME without the prefix>.p50 (.p90, .p99), and the
 * buckets again as Prometheus wants them, cumulative with an "le" label,
 * as <prefix>.percentile.<NAME without the prefix>.bucket; PMIDs
 * (domain, 0, MMVR_PCT_ITEM0 + MMVR_PCT_NITEMS * slot + q), the buckets'
 * indom serial (slot + 1) << MMV_SERIAL_BITS: cluster 0 is never a file's,
 * a file's indom serial never has its low bits 0, and "percentile" is
 * refused as a file name (as "control").
 */
#define MMVR_PCT_NAME		"percentile"
#define MMVR_PCT_ITEM0		16	/* items below: control metrics */
#define MMVR_PCT_NQ		3	/* p50, p90, p99 */
#define MMVR_PCT_LE		MMVR_PCT_NQ	/* the cumulative buckets' q */
#define MMVR_PCT_NITEMS		(MMVR_PCT_NQ + 1)	/* items a histogram takes */
#define MMVR_PCT_MAX_SLOTS	((MMV_ITEM_MAX + 1 - MMVR_PCT_ITEM0) / MMVR_PCT_NITEMS)
#define MMVR_PCT_STEP_MS	1000	/* default sampling step */
#define MMVR_PCT_WINDOW_MS	60000	/* default window */

/* One bucket: [lo, hi) in the histogram's units; hi INFINITY: overflow. */
typedef struct sdk_pct_bucket mmvr_pct_bucket_t;

/*
 * mmvr_pct_estimate - the @q quantile (0 < q <= 1) of the @n buckets
 * @b holding @counts, as common/bucket_pct.h's sdk_pct_estimate (which
 * the trace agent's OpenTelemetry histograms share). Returns 1 with
 * *out set, 0 when the buckets hold nothing.
 */
int mmvr_pct_estimate(const mmvr_pct_bucket_t *b, const uint64_t *counts,
		unsigned int n, double q, double *out);

/*
 * A rolling window of sampled counters: enough samples of @ncounts
 * counters to span @window_ms at one per 7/8 @step_ms, each stamped (milliseconds, any clock
 * that does not go back). A sample with a counter below the newest
 * one's (the writer started again) empties the window first.
 */
typedef struct mmvr_pct_window {
	uint64_t window_ms, step_ms;
	unsigned int ncounts, nslots;
	unsigned int head, used;	/* newest sample at head */
	uint64_t *stamp;		/* nslots */
	uint64_t *counts;		/* nslots * ncounts */
} mmvr_pct_window_t;

int mmvr_pct_window_init(mmvr_pct_window_t *w, uint64_t window_ms,
		uint64_t step_ms, unsigned int ncounts);
void mmvr_pct_window_fini(mmvr_pct_window_t *w);
void mmvr_pct_window_clear(mmvr_pct_window_t *w);
/* Whether a sample at @now_ms is due: none yet, or 7/8 of a step since
 * the last (so a timer firing a little early does not skip a step). */
bool mmvr_pct_window_due(const mmvr_pct_window_t *w, uint64_t now_ms);
void mmvr_pct_window_push(mmvr_pct_window_t *w, uint64_t now_ms,
		const uint64_t *counts);
/*
 * mmvr_pct_window_delta - counters [first, first + n) of the newest sample
 * minus those of the oldest sample no older than the window before it,
 * into @out. Returns false (no value) unless two such samples exist.
 */
bool mmvr_pct_window_delta(const mmvr_pct_window_t *w, unsigned int first,
		unsigned int n, uint64_t *out);

/* The agent's percentile state: slots (PMIDs) and windows, kept across
 * snapshots; all calls on one mmvr_pct_t are serialised inside. */
typedef struct mmvr_pct mmvr_pct_t;
/* The percentile metrics of one snapshot: immutable, like it. */
typedef struct mmvr_pct_view mmvr_pct_view_t;

mmvr_pct_t *mmvr_pct_new(const char *prefix, unsigned int domain,
		uint64_t window_ms, uint64_t step_ms);
void mmvr_pct_free(mmvr_pct_t *p);
uint64_t mmvr_pct_step_ms(const mmvr_pct_t *p);

/*
 * mmvr_pct_view_build - find the histograms of @snap, give each a slot
 * (a name keeps its slot while @p lives; slots of histograms gone are
 * taken again only when none is free) and build their metrics. A
 * histogram whose buckets changed starts an empty window. NULL only when
 * memory runs out.
 */
mmvr_pct_view_t *mmvr_pct_view_build(mmvr_pct_t *p, const mmvr_snapshot_t *snap);
void mmvr_pct_view_free(mmvr_pct_view_t *v);
size_t mmvr_pct_view_nhists(const mmvr_pct_view_t *v);
/* The same queries as the snapshot's, for the percentile metrics. */
size_t mmvr_pct_view_nmetrics(const mmvr_pct_view_t *v);
const mmvr_metric_info_t *mmvr_pct_view_metric(const mmvr_pct_view_t *v,
		size_t i);
const mmvr_metric_info_t *mmvr_pct_view_lookup_name(const mmvr_pct_view_t *v,
		const char *name);
const mmvr_metric_info_t *mmvr_pct_view_lookup_pmid(const mmvr_pct_view_t *v,
		pmID pmid);
size_t mmvr_pct_view_name_range(const mmvr_pct_view_t *v, const char *prefix,
		size_t *first);
/* The cumulative buckets' indoms: the same queries as the snapshot's. */
const mmvr_indom_info_t *mmvr_pct_view_lookup_indom(const mmvr_pct_view_t *v,
		pmInDom indom);
int mmvr_pct_view_labels(const mmvr_pct_view_t *v, int type, unsigned int ident,
		int inst, mmvr_label_cb cb, void *arg);
int mmvr_pct_view_text(const mmvr_pct_view_t *v, int ident, int type,
		const char **text);

/*
 * mmvr_pct_sample - read the bucket counts of every histogram of @v from
 * @snap (the snapshot @v was built from) into their windows, those whose
 * step is due at @now_ms. Returns the number of histograms sampled.
 */
int mmvr_pct_sample(mmvr_pct_t *p, const mmvr_pct_view_t *v,
		const mmvr_snapshot_t *snap, uint64_t now_ms);

/*
 * mmvr_pct_fetch - the value of percentile metric @m (of @v, built from
 * @snap) for @inst: a percentile (instance of the histogram's indom, or
 * PM_IN_NULL when the histogram is singular) in out->d; a cumulative
 * bucket (instance of the buckets' indom) in out->ull, the counts of its
 * histogram's buckets up to it read live from @snap. 1 with *out, 0 for
 * no value (a percentile: fewer than two samples in the window, or
 * nothing recorded in it; buckets that are not a histogram's), PM_ERR_INST,
 * PM_ERR_PMID, or a read error of mmvr_snapshot_fetch_counts.
 */
int mmvr_pct_fetch(mmvr_pct_t *p, const mmvr_pct_view_t *v,
		const mmvr_snapshot_t *snap, const mmvr_metric_info_t *m, int inst,
		pmAtomValue *out);

#endif /* PMDA_MMV_READER_H */
