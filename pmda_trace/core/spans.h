/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table: OpenTelemetry spans (from the OTLP receiver,
 * pmda_trace/otlp/http.c) aggregated per (service.namespace, service.name,
 * span kind, span name), the key of the OpenTelemetry Collector's
 * spanmetrics with the namespace, for the trace.span.* metrics
 * (docs/trace-protocol.md §12).
 *
 * It is a second trace aggregation (agg.h) whose tags are transactions,
 * a span's time (end - start) / 1e9 seconds: the same window, histograms,
 * percentiles and cumulative buckets as trace.transact.*. A span with
 * status ERROR counts as flagged (the errors); its kind is also the
 * tag's attribute.
 *
 * An instance's name (a trace tag, at most TRACE_TAG_MAX bytes) is
 * [NAMESPACE/]SERVICE:KIND/SPAN: in NAMESPACE and SERVICE each '/', ':'
 * and ' ' becomes '_', in SPAN each ' ' ('/' and ':' kept), KIND is
 * tra_span_kind_name's; "GET /users/:id" of service shop-api, kind server,
 * is "shop-api:server/GET_/users/:id". The name has no space (PCP's
 * instance names are unique up to the first one) and reads back: the
 * first ':' ends the service part, which has at most one '/'. The
 * namespace is cut to TRA_SPAN_NS_MAX bytes, the service to
 * TRA_SPAN_SERVICE_MAX and the span name to what is left, at character
 * boundaries. So names that differ only in ' ' against '_' (or '/', ':'
 * in the service part), or beyond a cut, share one instance; its labels
 * are the first name's. The labels, as the tag's note (tra_agg_note):
 * {"service_name":..,"service_namespace":.. (if any),"span_name":..,
 * "span_kind":..} from the names as they came (JSON-escaped, each cut
 * at a character boundary to fit the note's TRA_SPAN_NOTE_MAX bytes).
 *
 * At most @cap instances live at once; a span of a new name beyond them
 * goes to the one overflow instance TRA_SPAN_OVERFLOW (no ':', so no
 * span's name), which is not counted in the cap. An instance with no
 * span for @idle sub-intervals expires (tra_spans_expire): it leaves the
 * instance domain and its name is forgotten, so a name seen again gets a
 * new instance number and its counters start at zero there; a number is
 * never reused. Counts of an instance only ever grow, until the agent
 * restarts or trace.control.reset (tra_spans_reset, which forgets every
 * name too).
 *
 * Memory per instance (x86-64, glibc; counted as the budget counts,
 * malloc's overhead included; tests/unit/pmda_trace/
 * test_tracepmda_spans_memory.c measures the worst case with -T 60 -N 5):
 * the tag (168 bytes, its name and its note of about 100 bytes, 6 x 48
 * bytes of buckets, two hash nodes) and the remembered name (56 bytes,
 * the name, a hash node), and for spans of one duration one histogram
 * chunk and one coarse bucket: 1.1 KiB an instance with one span in one
 * sub-interval, 2.9 KiB when all six sub-intervals hold spans (more
 * chunks when durations spread: 6.3 KiB an instance measured with
 * durations over 20 binades, bench/RESULTS.md). The worst case, every
 * chunk of every sub-interval, is tra_agg_tag_worst(N, name and note):
 * 115,107 bytes (112 KiB) for a name and note of 140 bytes with -N 5, of
 * which 101,707 counted (99 KiB) for one span in each of 64 binades of
 * duration in each sub-interval (10,000 such instances took 968 MiB
 * before the budget; the default budget holds about 660 of them).
 *
 * Byte budget: every byte of the table is counted (agg.h), at most
 * @max_bytes (TRA_SPAN_BYTES_DEFAULT, 64 MiB, by default) besides the
 * overflow instance, whose own worst case (tra_agg_tag_worst) is the
 * most the total may pass the budget by. A span whose instance would need
 * memory beyond it, for a new name or for a known name's new histogram
 * chunk or wider coarse span, is counted in the overflow instance
 * instead, as one over the cap is: every span accepted is counted in
 * exactly one instance. tra_spans_usage tells how many went there, by
 * reason.
 *
 * Threads: tra_spans_record, tra_spans_expire, tra_spans_reset and
 * tra_spans_usage may be called from any threads (a mutex serialises a
 * new name's creation with expiry and reset; they take microseconds; a
 * span of a name with an instance takes no lock of this module, only the
 * agg's own); the fetching thread reads tra_spans_agg's aggregation as
 * agg.h allows. Every thread that calls into this module must be
 * registered with liburcu.
 */
#ifndef TRACE_SPANS_H
#define TRACE_SPANS_H

#include <stddef.h>
#include <stdint.h>

#include "agg.h"

#define TRA_SPAN_OVERFLOW	"_overflow/_overflow"
#define TRA_SPAN_CAP_DEFAULT	10000
#define TRA_SPAN_IDLE_PERIODS	10	/* default expiry: ten windows without a span */
#define TRA_SPAN_SERVICE_MAX	127	/* bytes of the service name kept */
#define TRA_SPAN_NS_MAX		63	/* bytes of the service namespace kept */
#define TRA_SPAN_NOTE_MAX	1024	/* bytes of an instance's labels, with a NUL */
#define TRA_SPAN_BYTES_MIB	64	/* the byte budget by default, MiB */
#define TRA_SPAN_BYTES_DEFAULT	((size_t)TRA_SPAN_BYTES_MIB << 20)

struct tra_spans;

/* What identifies a span's instance (spans.h): NUL-terminated UTF-8, no control characters. */
struct tra_span_id {
	const char *service;	/* service.name: not empty */
	const char *ns;		/* service.namespace; NULL or "": none */
	const char *name;	/* the span's name: not empty */
	int kind;		/* OTLP SpanKind, 0..5 (others: 0, unspecified) */
};

/* The table's memory and where spans went (tra_spans_usage). */
struct tra_spans_usage {
	struct trace_agg_usage agg;	/* the aggregation's (tags[TRACE_TRANSACT]: instances under the cap) */
	uint64_t overflow_cap;		/* spans counted in the overflow instance: over the cap */
	uint64_t overflow_bytes;	/* ... over the byte budget */
	size_t instances;		/* live instances, the overflow one included */
};

/*
 * tra_spans_new - a span table with a window of @period_sec split in
 * @buckets (as tra_agg_new), at most @cap instances besides the overflow
 * one (>= 1) and @max_bytes of memory besides it (0:
 * TRA_SPAN_BYTES_DEFAULT), expiring after @idle sub-intervals without a
 * span (0: never). @clock may be NULL (CLOCK_MONOTONIC). Returns NULL
 * with errno EINVAL or ENOMEM.
 */
struct tra_spans *tra_spans_new(unsigned period_sec, unsigned buckets, size_t cap,
		size_t max_bytes, uint64_t idle, trace_clock_fn clock, void *clock_arg);

/* tra_spans_free - free everything; no other thread may use @s. */
void tra_spans_free(struct tra_spans *s);

/*
 * tra_spans_record - account one span of @id, @error (non-zero: status
 * ERROR), lasting from @start_ns to @end_ns, in its instance or, over the
 * cap or the byte budget, in the overflow one. Returns the instance (>= 1),
 * or -EINVAL (@id's service or name NULL or empty, a start of 0 (none),
 * an end before the start) or -ENOMEM: the span is not counted.
 */
int tra_spans_record(struct tra_spans *s, const struct tra_span_id *id, int error,
		uint64_t start_ns, uint64_t end_ns);

/* tra_spans_usage - the table's memory and overflow counts into @u; any registered thread. */
void tra_spans_usage(struct tra_spans *s, struct tra_spans_usage *u);

/* tra_spans_expire - remove the idle instances now; how many. */
int tra_spans_expire(struct tra_spans *s);

/* tra_spans_reset - forget every instance, name and count (trace.control.reset). */
void tra_spans_reset(struct tra_spans *s);

/* tra_spans_agg - the aggregation to read (type TRACE_TRANSACT); never NULL. */
struct trace_agg *tra_spans_agg(struct tra_spans *s);

/* tra_span_kind_name - "internal", "server", ... for an OTLP SpanKind number;
 * "unspecified" for 0 and any other number. */
const char *tra_span_kind_name(int kind);

#endif
