/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The trace agent's pmcd side: shared between main.c and metrics.c. */
#ifndef TRACE_PMDA_H
#define TRACE_PMDA_H

#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "pcp_compat.h"

#include "core/agg.h"
#include "core/spans.h"
#include "otel/otel.h"
#include "otlp/sink.h"
#include "pmda_debug.h"

#define TRACE_DOMAIN	10
#define TRACE_NMETRICS	60	/* 20 of PCP's in cluster 0; 6 percentiles, 2 bucket metrics in cluster 1;
				 * 9 span metrics in cluster 2; 23 receiver and memory metrics in cluster 3;
				 * the OpenTelemetry metrics' own, trace.otel.*, are dynamic (otel_pmda.c) */

struct trace_pmda {
	struct trace_agg *agg;
	struct tra_spans *spans;	/* OTLP spans (trace.span.*) */
	struct otel_store *metrics;	/* OTLP metrics (trace.otel.*); NULL: none */
	struct otlp_stats otlp_stats;	/* the receiver's counters (trace.otlp.*) */
	unsigned period;	/* T, whole seconds */
	unsigned buckets;	/* N */
	unsigned port_shown;	/* trace.control.port */
	int debug;		/* trace.control.debug's flag (pmda_debug.h) */
	char debug_text[SDK_DEBUG_TEXTMAX];	/* its text, for a fetch or a log line */
	pmUnits observe_units;	/* -U */
	pmUnits counter_units;	/* -V */
};

/* Install the callbacks and tables, then pmdaInit. dp->status is 0, or
 * pmdaInit's error, or -E2BIG (logged) for a metric table with more
 * percentiles of one type than metrics.c keeps levels for. */
void trace_pmda_init(pmdaInterface *dp, struct trace_pmda *t);

#endif
