/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The span table: OpenTelemetry spans (from the OTLP receiver,
 * pmda_trace/otlp/http.c) aggregated per (service.name, span name) for
 * the trace.span.* metrics (docs/trace-protocol.md §12).
 *
 * It is a second trace aggregation (agg.h) whose tags are transactions
 * named "SERVICE/SPAN" (the decoder removes '/' from both names, so the
 * first '/' splits them again), a span's time (end - start) / 1e9 seconds:
 * the same window, histograms, percentiles and cumulative buckets as
 * trace.transact.*. A span with status ERROR counts as flagged (the
 * errors), and its kind is the tag's attribute (the latest one seen).
 *
 * At most @cap instances live at once; a span of a new name beyond them
 * goes to the one overflow instance TRA_SPAN_OVERFLOW, which is not
 * counted in the cap. An instance with no span for @idle sub-intervals
 * expires (tra_spans_expire): it leaves the instance domain and its name
 * is forgotten, so a name seen again gets a new instance number and its
 * counters start at zero there; a number is never reused. Counts of an
 * instance only ever grow, until the agent restarts or trace.control.reset.
 *
 * Memory per instance (x86-64, glibc; measured by tests/unit/pmda_trace/
 * test_tracepmda_spans.c's memory test with -T 60 -N 5): the tag as
 * agg.h states (about 520 bytes and the name) plus the remembered name
 * (about 90 bytes and the name), and for spans of one duration, one
 * histogram chunk and one coarse bucket: about 1 KiB an instance with
 * one span in one sub-interval, up to 2.7 KiB when all six sub-intervals
 * hold spans (more chunks when durations spread: agg.h; 6.3 KiB an
 * instance measured with durations over 20 binades, bench/RESULTS.md). So
 * the default cap of 10,000 instances costs about 10-30 MiB for steady
 * durations, about 65 MiB for widely spread ones.
 *
 * Threads: tra_spans_record, tra_spans_expire and tra_spans_reset may be
 * called from any threads (a mutex serialises a new name's cap check and
 * creation with expiry and reset; they take microseconds; a span of a
 * name with an instance takes no lock of this module, only the agg's own);
 * the fetching thread reads tra_spans_agg's aggregation as agg.h allows.
 * Every thread that calls into this module must be registered with liburcu.
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

struct tra_spans;

/*
 * tra_spans_new - a span table with a window of @period_sec split in
 * @buckets (as tra_agg_new), at most @cap instances besides the overflow
 * one (>= 1), expiring after @idle sub-intervals without a span (0: never).
 * @clock may be NULL (CLOCK_MONOTONIC). Returns NULL with errno EINVAL or
 * ENOMEM.
 */
struct tra_spans *tra_spans_new(unsigned period_sec, unsigned buckets, size_t cap,
		uint64_t idle, trace_clock_fn clock, void *clock_arg);

/* tra_spans_free - free everything; no other thread may use @s. */
void tra_spans_free(struct tra_spans *s);

/*
 * tra_spans_record - account one span of @service and @name (UTF-8, no
 * '/', NUL-terminated; an instance name being a trace tag of at most
 * TRACE_TAG_MAX bytes, the service is cut to TRA_SPAN_SERVICE_MAX bytes
 * and the span name to what is left, at character boundaries), @kind (OTLP's
 * SpanKind number, 0..5), @error (non-zero: status ERROR), lasting from
 * @start_ns to @end_ns. Returns the instance (>= 1; the overflow one when
 * the cap is reached), or -EINVAL (a name empty, too long or with '/',
 * end before start) or -ENOMEM: the span is not counted.
 */
int tra_spans_record(struct tra_spans *s, const char *service, const char *name,
		int kind, int error, uint64_t start_ns, uint64_t end_ns);

/* tra_spans_expire - remove the idle instances now; how many. */
int tra_spans_expire(struct tra_spans *s);

/* tra_spans_reset - forget every instance and count (trace.control.reset). */
void tra_spans_reset(struct tra_spans *s);

/* tra_spans_agg - the aggregation to read (type TRACE_TRANSACT); never NULL. */
struct trace_agg *tra_spans_agg(struct tra_spans *s);

/* tra_span_kind_name - "internal", "server", ... for an OTLP SpanKind number;
 * "unspecified" for 0 and any other number. */
const char *tra_span_kind_name(int kind);

#endif
