/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP metrics request bodies to data points: the decoder between the
 * OTLP receiver's transports (/v1/metrics, MetricsService/Export) and
 * the store (otel.h, otel_record). Names start with otel_.
 *
 * A body, after Content-Encoding, is an ExportMetricsServiceRequest
 * (common/otlp_metrics.proto) in protobuf or in OTLP's JSON mapping. It
 * is checked whole before a point is reported: one that is not
 * well-formed reports none (400), one that is reports each data point
 * to the caller's function in order, with its metric and resource, and
 * a point the caller refuses is counted for the answer's
 * partial_success (docs/otlp-metrics.md, "Decoding").
 *
 * Lifetimes: everything the callback is passed (the structs, their
 * strings, attribute arrays and JSON texts, bucket arrays, quantiles) is
 * the decoder's and valid only during that call; a store keeps copies.
 *
 * Threads: reentrant; nothing is shared between calls but what the
 * caller passes.
 */
#ifndef OTEL_DECODE_H
#define OTEL_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "../otlp/otlp.h"
#include "otel.h"

/*
 * Caps on the texts a point carries, in bytes after cleaning (cut at a
 * character boundary): service, namespace, instance id, scope name and
 * version and attribute keys at OTLP_NAME_MAX as for spans; the metric
 * name at OTEL_NAME_MAX; these two. Attribute values are not cut.
 */
#define OTEL_DESC_MAX	1024	/* a metric's description */
#define OTEL_UNIT_MAX	63	/* a metric's unit */

/* What a request came to: points taken and refused, for partial_success. */
struct otel_result {
	uint64_t accepted;	/* points the callback took */
	uint64_t rejected;	/* points refused */
	uint64_t rejected_by[OTEL_REJECT_N];	/* the same by reason */
	char message[160];	/* why the first refusal, "metric 'NAME': why"; "" if none */
};

/*
 * The caller's function for each point: 0 to take it, or -1 - enum
 * otel_reject to refuse it (otel_record's answer; counted by that
 * reason; another negative value is counted in res->rejected alone).
 */
typedef int (*otel_point_fn)(void *arg, const struct otel_resource *r, const struct otel_metric *m,
			     const struct otel_point *p);

/*
 * otel_decode - decode @len bytes of @enc and report each data point to
 * @fn. @mem_max caps the decoder's memory for the request (0:
 * OTLP_MEM_MAX): protobuf-c's unpacked request, json-c's tree (bounded
 * before parsing) and the texts of one point's attributes.
 * Returns 0 (see @res), -EBADMSG (not a valid request: 400, nothing
 * reported; res->message says why), -E2BIG (values nested deeper than
 * OTLP_DEPTH_MAX: 400) or -ENOMEM (over @mem_max, or out of memory:
 * 413). On error, res->accepted and res->rejected are 0 and the callback
 * was not called.
 *
 * What is reported (docs/otlp-metrics.md has the detail):
 *  - r: service, ns, instance_id from the resource's first attribute of
 *    each key when it is a string (else "unknown_service", "", ""), every
 *    resource attribute, the scope's name and version; all texts
 *    cleaned as otlp_clean_name does (valid UTF-8, a control character
 *    '?'), NUL-terminated;
 *  - m: name (cleaned, cut at OTEL_NAME_MAX, "" if empty: the store
 *    refuses it), description, unit, kind; temporality for Sum and the
 *    histograms (a number OTLP does not define is
 *    OTEL_TEMP_UNSPECIFIED), monotonic for Sum. A Metric with no data
 *    (no member of its oneof) or no points reports nothing;
 *  - p: the point's attributes (keys cleaned; values as JSON text: a
 *    string escaped, control characters U+0000-U+001F, U+007F-U+009F as
 *    \uXXXX, bytes that are not UTF-8 as U+FFFD; an int a number; a
 *    double a number, or "NaN", "Infinity", "-Infinity" as strings; a
 *    bool; bytes a base64 string; an array or a key-value list a JSON
 *    array or object; no value null), times, no_value (flags'
 *    FLAG_NO_RECORDED_VALUE, or a NumberDataPoint with neither as_int
 *    nor as_double), and the kind's fields: for an int, as_int and
 *    as_double = (double)as_int; the histograms' arrays as sent (bounds
 *    and counts need not agree: the store checks); a Summary's sum is
 *    always there (has_sum), its quantiles in order.
 */
int otel_decode(enum otlp_encoding enc, const void *body, size_t len, size_t mem_max,
		otel_point_fn fn, void *arg, struct otel_result *res);

/*
 * otel_answer - the body of a 200 answer: an ExportMetricsServiceResponse
 * in @enc, with partial_success (rejected_data_points, error_message:
 * res->message, bytes that are not UTF-8 as U+FFFD) when res->rejected >
 * 0; empty otherwise ("{}" in JSON). JSON writes rejectedDataPoints as a
 * decimal string, as protobuf's JSON mapping writes an int64. At most
 * @cap bytes into @buf: the length, or -ENOSPC. An error's body is
 * otlp_status_body's (otlp.h), as for traces.
 */
int otel_answer(enum otlp_encoding enc, const struct otel_result *res, void *buf, size_t cap);

#endif
