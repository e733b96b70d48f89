/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OpenTelemetry metrics as PCP metrics: the store the OTLP receiver
 * fills from /v1/metrics and MetricsService/Export (one data point at a
 * time, otel_record) and the trace agent serves below trace.otel
 * (docs/otlp-metrics.md). Names start with otel_.
 *
 * Names. An OpenTelemetry metric name is a PMNS path below
 * OTEL_PMNS_ROOT, its dots kept: "http.server.request.duration" is
 * trace.otel.http.server.request.duration. In each component a character
 * PCP refuses (anything but ASCII letters, digits and '_') becomes '_',
 * and a component that does not start with a letter gets an 'x' before
 * it ("2xx" -> "x2xx", "" -> "x"). A Gauge or a Sum is a leaf there; a
 * Histogram, an ExponentialHistogram and a Summary are a subtree of
 * fixed leaves (OTEL_LEAVES). A path already taken by another metric
 * (another OpenTelemetry name mapping to it, or a leaf where a subtree
 * is wanted and the other way round, along the path) gets "_2", "_3", ...
 * on the component where the two meet: its last, or the one that is
 * another metric's leaf or subtree ("a.b" a gauge: "a.b.c" is
 * "a.b_2.c"). The OpenTelemetry name as sent is the metric's
 * label "otel_name".
 *
 * PMIDs. Clusters OTEL_CLUSTER_MIN..4095 of the agent's domain are the
 * store's: a leaf's PMID is derived from a hash of its full PCP name
 * (21 bits: cluster - OTEL_CLUSTER_MIN and item), the next free one on a
 * collision, and every name -> PMID pair is kept in a state file
 * (otel_cfg.state, one line each, written on each new metric), read back
 * at start: a metric keeps its PMID and its path across restarts
 * (pmlogger archives and pmie rules hold on), and, collisions aside, the
 * order in which metrics first arrive does not matter. Each leaf has an
 * instance domain of its own whose serial is the PMID's low 22 bits.
 *
 * Series and instances. A metric's series is one (resource identity:
 * service.namespace, service.name, service.instance.id; instrumentation
 * scope name and version; the point's attribute set, in any order). Its
 * instance name is
 *	[NAMESPACE/]SERVICE[:INSTANCE_ID][{KEY=VALUE,...}]
 * with the attributes sorted by key, each space replaced by '_' (so the
 * name is unique up to its first space, pmdaCache(3)), cut with a
 * "~HASH" (8 hex digits of the identity) past OTEL_INST_NAME_MAX bytes;
 * another series whose name comes out the same also gets "~HASH". The
 * instance number is a 31-bit hash of the identity (the next free one on
 * a collision), so it survives restarts too. Every attribute, the
 * resource's included, is an instance label: the key with each
 * character PCP refuses in a label name as '_' ("http.route" ->
 * "http_route") and an 'x' before one not starting with a letter (PCP
 * wants a letter first), the value as JSON (a string, number or boolean;
 * an array or a key-value list as JSON text in a string). First come
 * service_name, service_namespace, service_instance_id, otel_scope_name
 * and otel_scope_version (those not empty), then the point's attributes,
 * then the resource's; the first of two keys mapping to one label name
 * wins, "le" and "quantile" are the buckets' and quantiles' own, and a
 * label that would take the set past OTEL_LABELS_MAX is left out.
 * Histogram buckets and Summary quantiles are instances of their own
 * leaves: "SERIES:LE" (LE as common/label_text.h writes it, "+Inf" last)
 * labelled "le", and "SERIES:Q" labelled "quantile".
 *
 * Semantics, types and units (docs/otlp-metrics.md has each reason):
 *  - Gauge: PM_SEM_INSTANT, the last value (by time: a Gauge's or a
 *    cumulative point older than the one kept is taken, changing nothing).
 *  - Sum, monotonic: PM_SEM_COUNTER. Cumulative: the value as sent; a
 *    start time later than the series' last one (the application
 *    restarted) is served as sent too, a counter going down, which PCP's
 *    tools take for a reset. Delta: the store adds the deltas up; a
 *    delta point without a start time (0: no interval to be the change
 *    of) is taken as a running total, as sent.
 *  - Sum, not monotonic: PM_SEM_INSTANT; deltas added up likewise.
 *  - The type is the first point's: PM_TYPE_64 for as_int,
 *    PM_TYPE_DOUBLE for as_double; a later int point of a double metric
 *    is converted, a double point of an int metric rejected.
 *  - Histogram and ExponentialHistogram leaves: count (PM_TYPE_U64,
 *    counter, count units), sum (double, counter, the metric's units),
 *    bucket (U64 counter, count units, cumulative counts below each
 *    bound; an exponential histogram's buckets are given bounds
 *    base^(index + 1), base = 2^(2^-scale), its negative buckets'
 *    -base^index, its zero bucket's the zero threshold), p50, p90 and p99
 *    (double, instant, the metric's units: interpolated within the
 *    buckets, as Prometheus' histogram_quantile, over the counts added
 *    since the series' point before; no value before a second point or
 *    when none were added).
 *    Delta temporality is added up as for Sums (an exponential
 *    histogram's at the coarser of the two scales, whose bounds are
 *    some of the finer one's).
 *  - Summary leaves: count, sum (as above) and quantile (double,
 *    instant, the metric's units).
 *  - Units: the UCUM unit mapped to pmUnits where PCP has them (s, ms,
 *    us, ns, min, h; By, KiBy, MiBy, GiBy, TiBy; d and bit are not; 1 and
 *    {annotation} alone as counts for a Sum, none for a Gauge; a
 *    quotient A/B of two of those); otherwise no units and the unit
 *    named in the help text. The help text is the description (or the
 *    name, without one) with the unit and the kind after it.
 *
 * Refusals. otel_record rejects a point (it counts in partial_success's
 * rejected_data_points and trace.otlp.points.rejected, by reason,
 * OTEL_REJECT_REASONS) rather than store a number that would mislead: a
 * point whose kind, monotonicity or unit differs from the metric's first
 * one, a double point of an int metric, a histogram whose bucket counts
 * do not add up to its count or number one more than its bounds (none
 * of either: a count and a sum, one +Inf bucket), bounds not increasing,
 * an exponential histogram's scale out of -10..20 or bounds beyond a
 * double, a summary's quantiles not increasing within [0, 1], a delta
 * point whose bounds differ from the series' last (an exponential
 * histogram's zero threshold), a point with no time. A point flagged
 * "no recorded value" is taken and changes nothing.
 *
 * Caps and memory. Every byte the store allocates is counted (with
 * malloc's overhead per block) against otel_cfg.max_bytes; at most
 * otel_cfg.max_metrics metrics and otel_cfg.max_series series a metric.
 * A point that would need a new metric or series past a cap, or memory
 * past the budget, is rejected (OTEL_REJECT_METRICS, _SERIES, _MEMORY):
 * a cumulative point cannot be merged into one overflow series without
 * keeping each series' last value, the memory the cap is there to save.
 * A series with no point for otel_cfg.idle_sec leaves its instance
 * domain and gives its memory back (otel_expire); a metric with no
 * series left keeps its name and PMID (they are small and persisted).
 * Every table is counted too, so the worst case is max_bytes plus the
 * store's own struct, documented with the per-series and per-metric
 * costs in docs/otlp-metrics.md (the metrics of the state file are
 * counted but never refused).
 *
 * Threads: otel_record may be called from any thread (the receiver's
 * transports); it takes the store's mutex for one point. The PCP side
 * (every other function) is called from the thread answering pmcd and
 * takes the same mutex for its call, before any recorder waiting for it
 * (a flood of points cannot hold a fetch back: otel_priv.h's
 * otel_lock_pcp); what it reads is as of one moment; otel_leaves' and otel_instances' callbacks run under the
 * mutex and may not call the store. otel_generation changes whenever the
 * names, PMIDs or instance domains change, so the agent rebuilds its
 * tables only then. The one mutex makes the tables plain open-addressing
 * ones (pmda_trace/otel/otel_priv.h), no liburcu.
 */
#ifndef OTEL_H
#define OTEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcp/pmapi.h>

#define OTEL_PMNS_ROOT		"trace.otel"
#define OTEL_CLUSTER_MIN	2048	/* clusters 2048..4095 of the domain */
#define OTEL_NAME_MAX		255	/* bytes of an OpenTelemetry metric name taken */
#define OTEL_INST_NAME_MAX	255	/* bytes of a series' instance name, with its ~HASH */
#define OTEL_LABELS_MAX		4096	/* bytes of an instance's label set (JSON) */
#define OTEL_SERIES_DEFAULT	1000	/* series a metric, by default */
#define OTEL_METRICS_DEFAULT	2000	/* metrics, by default */
#define OTEL_BYTES_MIB		64	/* the byte budget by default, MiB */
#define OTEL_IDLE_DEFAULT	900	/* seconds without a point before a series expires */

/* The leaves of a histogram's or summary's subtree: X(ID, name). */
#define OTEL_LEAVES(X) \
	X(VALUE, NULL) X(COUNT, "count") X(SUM, "sum") X(BUCKET, "bucket") \
	X(P50, "p50") X(P90, "p90") X(P99, "p99") X(QUANTILE, "quantile")

enum otel_leaf {
#define OTEL_X(id, name) OTEL_LEAF_##id,
	OTEL_LEAVES(OTEL_X)
#undef OTEL_X
	OTEL_LEAF_N
};

/* Why a point is rejected: X(ID, instance name of trace.otlp.points.rejected, message). */
#define OTEL_REJECT_REASONS(X) \
	X(KIND, "kind_changed", "kind or monotonicity differs from the metric's") \
	X(UNIT, "unit_changed", "unit differs from the metric's") \
	X(TYPE, "double_in_int", "a double value for an integer metric") \
	X(BUCKETS, "bad_buckets", "bucket counts do not match the count or the bounds") \
	X(BOUNDS, "bounds_changed", "delta histogram bounds differ from the series'") \
	X(NO_TIME, "no_time", "has no time") \
	X(BAD_NAME, "bad_name", "metric name is empty") \
	X(METRICS, "metrics_cap", "too many metrics (-X)") \
	X(SERIES, "series_cap", "too many series of the metric (-E)") \
	X(MEMORY, "memory", "over the metrics' byte budget (-Y)")

enum otel_reject {
#define OTEL_X(id, name, why) OTEL_REJECT_##id,
	OTEL_REJECT_REASONS(OTEL_X)
#undef OTEL_X
	OTEL_REJECT_N
};

enum otel_kind { OTEL_GAUGE, OTEL_SUM, OTEL_HISTOGRAM, OTEL_EXPHIST, OTEL_SUMMARY };

/* OTLP's AggregationTemporality numbers. */
enum otel_temporality { OTEL_TEMP_UNSPECIFIED, OTEL_TEMP_DELTA, OTEL_TEMP_CUMULATIVE };

/*
 * One attribute: @key (@key_len bytes) and its value as JSON text
 * (@json, @json_len bytes: "\"GET\"", "200", "true", "[1,2]"), both
 * valid UTF-8 without control characters outside JSON escapes.
 */
struct otel_attr {
	const char *key;
	size_t key_len;
	const char *json;
	size_t json_len;
};

/* A ResourceMetrics' resource and a ScopeMetrics' scope. */
struct otel_resource {
	const char *service;	/* service.name, "unknown_service" without one */
	const char *ns;		/* service.namespace, "" without one */
	const char *instance_id;	/* service.instance.id, "" without one */
	const struct otel_attr *attrs;	/* every resource attribute */
	size_t n_attrs;
	const char *scope_name, *scope_version;	/* "" without them */
};

/* A metric as a point's Metric message gives it. */
struct otel_metric {
	const char *name;	/* as sent, NUL-terminated */
	const char *description;	/* "" without one */
	const char *unit;	/* UCUM, "" without one */
	enum otel_kind kind;
	enum otel_temporality temporality;	/* Sum and histograms */
	bool monotonic;		/* Sum */
};

struct otel_quantile {
	double quantile, value;
};

/* One data point; the fields of its kind are read. */
struct otel_point {
	const struct otel_attr *attrs;
	size_t n_attrs;
	uint64_t start_ns, time_ns;	/* Unix epoch; start 0: unknown */
	bool no_value;		/* flags' FLAG_NO_RECORDED_VALUE */
	/* Gauge, Sum */
	bool is_int;
	int64_t as_int;
	double as_double;
	/* Histogram, ExponentialHistogram, Summary */
	uint64_t count;
	bool has_sum;
	double sum;
	/* Histogram */
	const double *bounds;
	size_t n_bounds;
	const uint64_t *counts;
	size_t n_counts;
	/* ExponentialHistogram */
	int32_t scale;
	uint64_t zero_count;
	double zero_threshold;
	int32_t pos_offset, neg_offset;
	const uint64_t *pos, *neg;
	size_t n_pos, n_neg;
	/* Summary */
	const struct otel_quantile *quantiles;
	size_t n_quantiles;
};

struct otel_cfg {
	unsigned domain;	/* the agent's PMDA domain */
	const char *state;	/* the PMID state file; NULL: none kept */
	size_t max_bytes;	/* 0: OTEL_BYTES_MIB MiB */
	size_t max_metrics;	/* 0: OTEL_METRICS_DEFAULT */
	size_t max_series;	/* per metric; 0: OTEL_SERIES_DEFAULT */
	unsigned idle_sec;	/* 0: OTEL_IDLE_DEFAULT */
	uint64_t (*now_ns)(void);	/* CLOCK_REALTIME when NULL; tests set it */
	void (*log)(int pri, const char *msg);	/* may be NULL */
};

/* The store's counts (trace.otlp.points.*, trace.otel.memory). */
struct otel_usage {
	uint64_t accepted;		/* points stored */
	uint64_t rejected[OTEL_REJECT_N];	/* points rejected, by reason */
	size_t metrics, series;		/* live now */
	size_t bytes, max_bytes;	/* counted memory and its budget */
};

struct otel_store;

/* otel_store_new - a store (the state file read); NULL with errno. */
struct otel_store *otel_store_new(const struct otel_cfg *cfg);
void otel_store_free(struct otel_store *s);

/*
 * otel_record - one data point @p of metric @m from @r. Returns 0
 * (stored, or a "no recorded value" point) or -1 - enum otel_reject
 * (rejected, counted; otel_reject_why names it for partial_success).
 */
int otel_record(struct otel_store *s, const struct otel_resource *r,
		const struct otel_metric *m, const struct otel_point *p);
const char *otel_reject_why(enum otel_reject why);
const char *otel_reject_name(enum otel_reject why);

/* otel_usage_get - the counts now. */
void otel_usage_get(struct otel_store *s, struct otel_usage *u);

/*
 * otel_expire - drop the series idle for idle_sec; how many. It does not
 * wait for the lock: while a recorder holds it, it drops nothing (0),
 * and the caller's next call does.
 */
size_t otel_expire(struct otel_store *s);

/* ---- the PCP side (the thread answering pmcd) ---- */

/* otel_generation - changes when names, PMIDs or instance domains change. */
uint64_t otel_generation(struct otel_store *s);

/*
 * otel_leaf_fn - one leaf: its full PCP name (OTEL_PMNS_ROOT. ...) and
 * descriptor (pmid, type, indom, sem, units). otel_leaves calls @fn for
 * every leaf, in PMID order.
 */
typedef void (*otel_leaf_fn)(void *arg, const char *name, const pmDesc *desc);
void otel_leaves(struct otel_store *s, otel_leaf_fn fn, void *arg);

/*
 * otel_lookup_name/pmid - a leaf by full name or by PMID: 0 or
 * PM_ERR_NAME/PM_ERR_PMID (-ENOSPC: its name does not fit @size).
 */
int otel_lookup_name(struct otel_store *s, const char *name, pmDesc *desc);
int otel_lookup_pmid(struct otel_store *s, pmID pmid, char *name, size_t size, pmDesc *desc);

/*
 * otel_instances - @fn for each instance of @indom now (number, name);
 * PM_ERR_INDOM if the store has no such domain.
 */
typedef void (*otel_inst_fn)(void *arg, int inst, const char *name);
int otel_instances(struct otel_store *s, pmInDom indom, otel_inst_fn fn, void *arg);

/*
 * otel_fetch - leaf @pmid's value for instance @inst into @atom: 1 (a
 * value), 0 (none now: a percentile without two points), PM_ERR_PMID,
 * PM_ERR_INST.
 */
int otel_fetch(struct otel_store *s, pmID pmid, int inst, pmAtomValue *atom);

/*
 * otel_text - the help text (@oneline or long) of leaf @pmid into @buf
 * of @size: 0 or PM_ERR_PMID/PM_ERR_TEXT.
 * otel_labels - the label set (JSON) of leaf @pmid (PM_LABEL_ITEM:
 * otel_name, and otel_unit where the unit is not in pmUnits) or of
 * instance @inst of @indom (PM_LABEL_INSTANCES), into @buf of @size:
 * the length, 0 for none, or PM_ERR_PMID/PM_ERR_INST/-ENOSPC.
 */
int otel_text(struct otel_store *s, pmID pmid, bool oneline, char *buf, size_t size);
int otel_item_labels(struct otel_store *s, pmID pmid, char *buf, size_t size);
int otel_inst_labels(struct otel_store *s, pmInDom indom, int inst, char *buf, size_t size);

/* ---- helpers with no state, for tests too ---- */

/*
 * otel_pmns_path - @name mapped to a PMNS path below OTEL_PMNS_ROOT as
 * the Names paragraph says, into @buf of @size (without the root):
 * its length, or -1 if it does not fit or @name is empty.
 */
int otel_pmns_path(const char *name, char *buf, size_t size);

/*
 * otel_units - the pmUnits of UCUM @unit for a leaf of @kind (counts:
 * "1" and "{x}" are PM_COUNT for a Sum): true if PCP has them, else
 * false and *@u all zero.
 */
bool otel_units(const char *unit, enum otel_kind kind, pmUnits *u);

/*
 * otel_label_name - @key mapped to a PCP label name into @buf of @size:
 * its length, or -1.
 */
int otel_label_name(const char *key, size_t len, char *buf, size_t size);

#endif
