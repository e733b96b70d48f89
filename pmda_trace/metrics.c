/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace.* metrics (docs/trace-protocol.md §8.1): descriptors, help text, fetch,
 * instance domains and stores. Runs on the thread that answers pmcd; the
 * numbers come from the aggregation, which the I/O thread fills.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "label_text.h"
#include "otel_pmda.h"
#include "otlp/http.h"
#include "trace_pmda.h"

#define U_NONE	PMDA_PMUNITS(0, 0, 0, 0, 0, 0)
#define U_COUNT	PMDA_PMUNITS(0, 0, 1, 0, 0, PM_COUNT_ONE)
#define U_RATE	PMDA_PMUNITS(0, -1, 1, 0, PM_TIME_SEC, PM_COUNT_ONE)
#define U_AVE	PMDA_PMUNITS(0, 1, -1, 0, PM_TIME_SEC, PM_COUNT_ONE)
#define U_SEC	PMDA_PMUNITS(0, 1, 0, 0, PM_TIME_SEC, 0)
#define U_BYTES	PMDA_PMUNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0)

/* What a data metric exports. */
enum field {
	F_COUNT, F_RATE, F_AVE, F_MIN, F_MAX, F_TOTAL, F_VALUE,
	F_PERIOD, F_INTERVAL, F_BUCKETS, F_PORT, F_RESET, F_DEBUG,
	F_PCT, F_LE, F_ERRORS,
	/* cluster 3: the OTLP receiver and the memory budgets (no tag type) */
	F_OTLP_REQUESTS, F_OTLP_ACCEPTED, F_OTLP_REJECTED, F_OTLP_OVERFLOW, F_OTLP_BYTES,
	F_OTLP_INFLIGHT, F_OTLP_BUFFERED, F_OTLP_BUFMAX, F_OTLP_LISTENING, F_OTLP_ERRORS,
	F_SPAN_MEMORY, F_SPAN_MEMORY_MAX, F_TAG_MEMORY, F_TAG_MEMORY_MAX, F_TAG_REFUSED,
	F_OTLP_VIA, F_POINTS_ACCEPTED, F_POINTS_REJECTED, F_OTEL_METRICS, F_OTEL_SERIES,
	F_OTEL_MEMORY, F_OTEL_MEMORY_MAX, F_OTLP_DENIED,
};

/* The spans' pseudo tag type: the span table's aggregation, its transactions. */
#define T_SPAN	(TRACE_NTYPES + 1)
#define NTAGTYPES (T_SPAN + 1)	/* arrays indexed by tag type */

/*
 * The metric table, one entry a metric: cluster 0 is PCP's agent's,
 * items 0..19 in order; cluster 1 has ours (percentiles, buckets), so PCP's
 * items stay as they are; cluster 2 the OpenTelemetry spans (T_SPAN);
 * cluster 3 the OTLP receiver's counters and the memory budgets.
 * pmda_trace/pmns names them.
 */
struct metric_info {
	unsigned cluster, item;
	int tagtype;		/* 0: a control metric */
	enum field field;
	double pct;		/* F_PCT: which percentile */
	const char *oneline, *help;
};

#define PCT_HELP_T(p) \
	"The " #p "th percentile of transaction times, in seconds, over the rolling\n" \
	"window: the nearest-rank value of the window's merged histogram, within\n" \
	"1.6 % (the bucket scheme's error) and clamped into [min_time, max_time].\n" \
	"No value while the window holds no transaction of the tag."
#define PCT_HELP_O(p) \
	"The " #p "th percentile of observed values over the rolling window: the\n" \
	"nearest-rank value of the window's merged histogram, within 1.6 % of a\n" \
	"value from 2^-30 to 2^40 (others: clamped into the window's minimum and\n" \
	"maximum); units as set with -U. No value while the window is empty."

#define PCT_HELP_S(p) \
	"The " #p "th percentile of span durations, in seconds, over the rolling\n" \
	"window: as trace.transact.p" #p "_time, within 1.6 % and clamped into\n" \
	"[min, max_time]. No value while the window holds no span of the instance."

#define LE_HELP(what, unit, count, prom) \
	"Each tag's " what " since the agent started or was reset, in cumulative\n" \
	"buckets as Prometheus reads a histogram: instance \"<tag>:<le>\" counts\n" \
	"those below le" unit ", \"<tag>:+Inf\" all of them (" count ").\n" \
	"Four buckets a binade (le = 2^e times 1.25, 1.5, 1.75 and 2), from the\n" \
	"one below the smallest recorded to the largest. Each instance is\n" \
	"labelled le and tag; through pmproxy, for example\n" \
	"histogram_quantile(0.9, sum by (tag, le) (rate(" prom "[5m])))."

static const struct metric_info info[TRACE_NMETRICS] = {
	{ 0, 0, TRACE_TRANSACT, F_COUNT, 0, "Number of completed transactions",
	  "Transactions reported with pmtraceend, per tag, since the agent started or was reset." },
	{ 0, 1, TRACE_TRANSACT, F_RATE, 0, "Rate of completed transactions",
	  "Transactions per second over the rolling window: the count in the last\n"
	  "N completed sub-intervals divided by the period T." },
	{ 0, 2, TRACE_TRANSACT, F_AVE, 0, "Average transaction time",
	  "Mean time per transaction, in seconds, over the rolling window." },
	{ 0, 3, TRACE_TRANSACT, F_MIN, 0, "Shortest transaction time",
	  "Shortest transaction, in seconds, in the rolling window." },
	{ 0, 4, TRACE_TRANSACT, F_MAX, 0, "Longest transaction time",
	  "Longest transaction, in seconds, in the rolling window." },
	{ 0, 5, TRACE_TRANSACT, F_TOTAL, 0, "Total transaction time",
	  "Seconds spent in transactions, per tag, since the agent started or was reset." },
	{ 0, 6, TRACE_POINT, F_COUNT, 0, "Number of trace points",
	  "Points reported with pmtracepoint, per tag, since the agent started or was reset." },
	{ 0, 7, TRACE_POINT, F_RATE, 0, "Rate of trace points",
	  "Points per second over the rolling window." },
	{ 0, 8, TRACE_OBSERVE, F_COUNT, 0, "Number of observations",
	  "Values reported with pmtraceobs, per tag, since the agent started or was reset." },
	{ 0, 9, TRACE_OBSERVE, F_RATE, 0, "Rate of observations",
	  "Observations per second over the rolling window." },
	{ 0, 10, TRACE_OBSERVE, F_VALUE, 0, "Most recent observation",
	  "The value of the last pmtraceobs call for the tag; units as set with -U." },
	{ 0, 11, 0, F_PERIOD, 0, "Rolling window period in seconds",
	  "T, the time the rate, average, minimum and maximum metrics span (-T)." },
	{ 0, 12, 0, F_INTERVAL, 0, "Rolling window update interval in seconds",
	  "T divided by N (integer division): how often the window moves on." },
	{ 0, 13, 0, F_BUCKETS, 0, "Number of rolling window sub-intervals",
	  "N, the number of sub-intervals of the period (-N)." },
	{ 0, 14, 0, F_PORT, 0, "Port the agent listens on for trace clients",
	  "The configured TCP port (-I, else PCP_TRACE_PORT, else 4323)." },
	{ 0, 15, 0, F_RESET, 0, "Reset the trace statistics",
	  "Always 1. Storing any value discards every count, total, value and\n"
	  "instance and starts a new window; tags seen again keep their numbers." },
#ifdef SDK_PCP7
	{ 0, 16, 0, F_DEBUG, 0, "Debug options",
	  "The agent's PCP debug options (pmdbg(1)), such as \"appl0,pdu\";\n"
	  "storing a list replaces them, and an unknown option clears them." },
#else
	{ 0, 16, 0, F_DEBUG, 0, "Debug flags",
	  "The agent's diagnostic bit mask; storing a value replaces it." },
#endif
	{ 0, 17, TRACE_COUNTER, F_COUNT, 0, "Number of counter reports",
	  "Values reported with pmtracecounter, per tag, since the agent started or was reset." },
	{ 0, 18, TRACE_COUNTER, F_RATE, 0, "Rate of counter reports",
	  "Counter reports per second over the rolling window." },
	{ 0, 19, TRACE_COUNTER, F_VALUE, 0, "Most recent counter value",
	  "The value of the last pmtracecounter call for the tag, exported as a\n"
	  "counter; units as set with -V." },
	{ 1, 0, TRACE_TRANSACT, F_PCT, 50, "Median transaction time", PCT_HELP_T(50) },
	{ 1, 1, TRACE_TRANSACT, F_PCT, 90, "90th percentile of transaction times", PCT_HELP_T(90) },
	{ 1, 2, TRACE_TRANSACT, F_PCT, 99, "99th percentile of transaction times", PCT_HELP_T(99) },
	{ 1, 3, TRACE_OBSERVE, F_PCT, 50, "Median observed value", PCT_HELP_O(50) },
	{ 1, 4, TRACE_OBSERVE, F_PCT, 90, "90th percentile of observed values", PCT_HELP_O(90) },
	{ 1, 5, TRACE_OBSERVE, F_PCT, 99, "99th percentile of observed values", PCT_HELP_O(99) },
	{ 1, 6, TRACE_TRANSACT, F_LE, 0, "Cumulative buckets of transaction times",
	  LE_HELP("transactions", " seconds", "trace.transact.count",
		  "trace_transact_bucket") },
	{ 1, 7, TRACE_OBSERVE, F_LE, 0, "Cumulative buckets of observed values",
	  LE_HELP("observations", "", "trace.observe.count",
		  "trace_observe_bucket") },
	{ 2, 0, T_SPAN, F_COUNT, 0, "Number of OpenTelemetry spans",
	  "Spans received by the OTLP/HTTP receiver (-O), per service and span name\n"
	  "(instance \"SERVICE/SPAN\"), since the instance appeared, the agent\n"
	  "started or was reset. Spans of new names beyond the cap (-S) count in\n"
	  "the instance \"_overflow/_overflow\"." },
	{ 2, 1, T_SPAN, F_ERRORS, 0, "Number of OpenTelemetry spans with status ERROR",
	  "Spans whose status code was ERROR, per service and span name, counted\n"
	  "as trace.span.count." },
	{ 2, 2, T_SPAN, F_RATE, 0, "Rate of OpenTelemetry spans",
	  "Spans per second over the rolling window: the count in the last N\n"
	  "completed sub-intervals divided by the period T." },
	{ 2, 3, T_SPAN, F_AVE, 0, "Average span duration",
	  "Mean span duration (end - start), in seconds, over the rolling window." },
	{ 2, 4, T_SPAN, F_MAX, 0, "Longest span duration",
	  "Longest span, in seconds, in the rolling window." },
	{ 2, 5, T_SPAN, F_PCT, 50, "Median span duration", PCT_HELP_S(50) },
	{ 2, 6, T_SPAN, F_PCT, 90, "90th percentile of span durations", PCT_HELP_S(90) },
	{ 2, 7, T_SPAN, F_PCT, 99, "99th percentile of span durations", PCT_HELP_S(99) },
	{ 2, 8, T_SPAN, F_LE, 0, "Cumulative buckets of span durations",
	  LE_HELP("spans", " seconds", "trace.span.count", "trace_span_bucket") },
	{ 3, 0, 0, F_OTLP_REQUESTS, 0, "OTLP requests answered, by HTTP status code",
	  "Requests the OTLP receiver answered since the agent started, one\n"
	  "instance per status code: 200 (taken; refused spans, if any, are in\n"
	  "trace.otlp.spans.rejected), 204 (a browser's CORS preflight from an\n"
	  "origin -C allows), 400 (not a valid request), 401 (no bearer token or\n"
	  "another, -a), 403 (a host -A refuses, or a preflight from an origin -C\n"
	  "does not allow), 404, 405 (another method; OPTIONS too without\n"
	  "-C), 413 (too large), 415 (wrong type or encoding), 429 (more requests\n"
	  "at once than -Q allows, or a host at its -A connection limit) and 503\n"
	  "(the receiver's buffers, -b, are full).\n"
	  "An exporter retries a 429 or 503 after the answer's Retry-After (-R), so\n"
	  "these count refusals, not lost spans; an exporter that gives up says so\n"
	  "itself.\n"
	  "OTLP/gRPC answers count under the code OTLP pairs with their status:\n"
	  "OK 200, INVALID_ARGUMENT 400, UNAUTHENTICATED 401, PERMISSION_DENIED 403,\n"
	  "UNIMPLEMENTED 404, RESOURCE_EXHAUSTED 413, UNAVAILABLE 429 or 503\n"
	  "(docs/trace-protocol.md §12.7)." },
	{ 3, 1, 0, F_OTLP_ACCEPTED, 0, "OTLP spans taken",
	  "Spans the OTLP/HTTP receiver took into the span table (trace.span.*,\n"
	  "the overflow instance included) since the agent started." },
	{ 3, 2, 0, F_OTLP_REJECTED, 0, "OTLP spans refused in partial_success, by reason",
	  "Spans of well-formed requests that the receiver refused, reported to the\n"
	  "exporter in the answer's partial_success (rejected_spans), by reason:\n"
	  "bad_kind, bad_status (values OTLP does not define), no_start_time,\n"
	  "ends_before_start, refused (the span table could not take it)." },
	{ 3, 3, 0, F_OTLP_OVERFLOW, 0, "OTLP spans counted in the overflow instance, by cause",
	  "Spans counted in the span instance \"_overflow/_overflow\" instead of their\n"
	  "own: \"instances\" when their name was new and the table held -S\n"
	  "instances, \"memory\" when their name or its histogram needed memory\n"
	  "beyond the span table's budget (-B)." },
	{ 3, 4, 0, F_OTLP_BYTES, 0, "OTLP request body bytes received",
	  "Bytes of request bodies the receiver read, as sent (before gzip is undone)." },
	{ 3, 5, 0, F_OTLP_INFLIGHT, 0, "OTLP requests being received",
	  "Requests admitted whose bodies are being received or decoded now." },
	{ 3, 6, 0, F_OTLP_BUFFERED, 0, "Bytes held for OTLP request bodies",
	  "Bytes of the receiver's buffer budget (trace.otlp.buffer_max) that the\n"
	  "requests being received hold now." },
	{ 3, 7, 0, F_OTLP_BUFMAX, 0, "The OTLP receiver's buffer budget",
	  "At most this many bytes of request bodies are held at once (-b); a\n"
	  "request beyond it is answered 503 with a Retry-After." },
	{ 3, 8, 0, F_OTLP_LISTENING, 0, "OTLP transports serving",
	  "How many of the OTLP receiver's transports serve now (OTLP/HTTP and\n"
	  "OTLP/gRPC: 2 by default); one is missing when it is off, its address\n"
	  "could not be bound, or its event loop failed: see the log." },
	{ 3, 9, 0, F_OTLP_ERRORS, 0, "Failures and protocol errors of the OTLP transports",
	  "Times a transport's event loop failed and was tried again, and OTLP/gRPC\n"
	  "connections closed for a protocol error (a flood of stream resets, a\n"
	  "stalled call...); each logged, a line every 10 s at most." },
	{ 3, 10, 0, F_SPAN_MEMORY, 0, "Bytes held by the span table",
	  "Memory the span table (trace.span.*) holds now: instances, names,\n"
	  "histograms and buckets, as counted against trace.span.memory_max." },
	{ 3, 11, 0, F_SPAN_MEMORY_MAX, 0, "The span table's memory budget",
	  "The span table's byte budget (-B). Beyond it, new names and new\n"
	  "histogram room are refused and their spans counted in the overflow\n"
	  "instance (trace.otlp.spans.overflow \"memory\")." },
	{ 3, 12, 0, F_TAG_MEMORY, 0, "Bytes held by the trace tags",
	  "Memory the tags of trace clients (trace.transact, point, observe,\n"
	  "counter) hold now, as counted against trace.control.memory_max." },
	{ 3, 13, 0, F_TAG_MEMORY_MAX, 0, "The trace tags' memory budget",
	  "The byte budget of the trace clients' tags (-m). Beyond it, reports\n"
	  "needing more memory are refused (trace.control.refused \"memory\")." },
	{ 3, 14, 0, F_TAG_REFUSED, 0, "Trace reports refused, by cause",
	  "Reports of trace clients that were not counted: \"instances\" when their\n"
	  "tag was new and its type had -t tags, \"memory\" when they needed memory\n"
	  "beyond the budget (-m). A client sending them in sync mode gets the error." },
	{ 3, 15, 0, F_OTLP_VIA, 0, "OTLP requests answered, by transport",
	  "Requests the OTLP receiver answered since the agent started, whatever\n"
	  "the answer, by the way they came: \"http\" (OTLP/HTTP, -O) and \"grpc\"\n"
	  "(OTLP/gRPC). trace.otlp.requests has the same answers by status code." },
	{ 3, 16, 0, F_POINTS_ACCEPTED, 0, "OpenTelemetry metric data points taken",
	  "Data points of OTLP metrics requests that the store took into the\n"
	  "trace.otel.* metrics since the agent started (docs/otlp-metrics.md)." },
	{ 3, 17, 0, F_POINTS_REJECTED, 0, "OpenTelemetry metric data points refused, by reason",
	  "Data points of well-formed OTLP metrics requests that the store\n"
	  "refused, reported to the exporter in the answer's partial_success\n"
	  "(rejected_data_points), by reason (docs/otlp-metrics.md): a kind, unit\n"
	  "or value type that differs from the metric's, bad buckets, no time, and\n"
	  "the caps on metrics (-X) and series (-E) and the byte budget (-Y)." },
	{ 3, 18, 0, F_OTEL_METRICS, 0, "OpenTelemetry metrics known",
	  "OpenTelemetry metrics the store has names and PMIDs for (trace.otel.*)." },
	{ 3, 19, 0, F_OTEL_SERIES, 0, "OpenTelemetry metric series live",
	  "Series (instances) of the trace.otel.* metrics now, all metrics together;\n"
	  "a series with no point for -W seconds leaves." },
	{ 3, 20, 0, F_OTEL_MEMORY, 0, "Bytes held by the OpenTelemetry metrics",
	  "Memory the trace.otel.* metrics hold now, as counted against\n"
	  "trace.otlp.metrics.memory_max." },
	{ 3, 21, 0, F_OTEL_MEMORY_MAX, 0, "The OpenTelemetry metrics' memory budget",
	  "The byte budget of the trace.otel.* metrics (-Y). Beyond it, points\n"
	  "needing more memory are refused (trace.otlp.points.rejected \"memory\")." },
	{ 3, 22, 0, F_OTLP_DENIED, 0, "OTLP clients turned away by access control, by reason",
	  "Clients of the OTLP receiver (both transports) turned away before their\n"
	  "request was read, by reason (docs/trace-protocol.md §12.9): \"host\", a\n"
	  "connection from a host the access list (-A) refuses, answered 403 or\n"
	  "PERMISSION_DENIED; \"host_limit\", one from a host at its MAXCONN,\n"
	  "answered 429 or UNAVAILABLE with a retry hint; \"no_token\", a request\n"
	  "without a bearer token (-a), \"bad_token\", one with another token or\n"
	  "scheme, both answered 401 or UNAUTHENTICATED; \"tls\", a TLS connection\n"
	  "whose handshake failed (a cleartext client, no common protocol, no or an\n"
	  "untrusted client certificate with -K) or, on OTLP/HTTP, a request without\n"
	  "a trusted client certificate (403). Hosts and TLS count connections,\n"
	  "tokens requests." },
};

/*
 * Instance domains: serials 0..3 the tags of each type (PCP's), 4 and 5
 * the cumulative buckets of transactions and observations, instance
 * (tag instance << LE_SHIFT) | coarse bucket, named "<tag>:<le>". Tags
 * numbered from 2^22 on (over four million tags seen) have no buckets.
 */
#define LE_SERIAL_T	TRACE_NTYPES
#define LE_SERIAL_O	(TRACE_NTYPES + 1)
#define SPAN_SERIAL	(TRACE_NTYPES + 2)	/* the spans' instances, "SERVICE/SPAN" */
#define LE_SERIAL_S	(TRACE_NTYPES + 3)	/* their cumulative buckets */
#define ANSWER_SERIAL	(TRACE_NTYPES + 4)	/* HTTP status codes, fixed */
#define REJECT_SERIAL	(TRACE_NTYPES + 5)	/* reasons a span is refused, fixed */
#define LIMIT_SERIAL	(TRACE_NTYPES + 6)	/* "instances", "memory": what a limit counts */
#define VIA_SERIAL	(TRACE_NTYPES + 7)	/* the OTLP transports, fixed */
#define POINT_REJECT_SERIAL (TRACE_NTYPES + 8)	/* reasons a data point is refused, fixed */
#define DENY_SERIAL	(TRACE_NTYPES + 9)	/* reasons a client is turned away, fixed */
#define NINDOMS		(TRACE_NTYPES + 10)
#define LE_SHIFT	9
_Static_assert(TRACE_HIST_LE_N <= 1u << LE_SHIFT, "a coarse bucket fits below the tag's bits");
#define LE_TAG_MAX	((1 << (31 - LE_SHIFT)) - 1)

#define LE_INDOM_HELP(what) \
	"One instance per tag and bucket: \"<tag>:<le>\", from the bucket below\n" \
	"the tag's smallest " what " since start or reset to its largest, and\n" \
	"\"<tag>:+Inf\"; instance number (tag's instance << 9) + bucket."

static const char *indom_help[NINDOMS][2] = {
	{ "Transaction tags", "One instance per tag passed to pmtraceend." },
	{ "Trace point tags", "One instance per tag passed to pmtracepoint." },
	{ "Observation tags", "One instance per tag passed to pmtraceobs." },
	{ "Counter tags", "One instance per tag passed to pmtracecounter." },
	{ "Cumulative buckets of transaction times", LE_INDOM_HELP("time") },
	{ "Cumulative buckets of observed values", LE_INDOM_HELP("value") },
	{ "OpenTelemetry span names",
	  "One instance per service, kind and span name, \"[NS/]SERVICE:KIND/SPAN\",\n"
	  "labelled service_name, service_namespace (if any), span_name and\n"
	  "span_kind; \"_overflow/_overflow\" takes the spans beyond the caps.\n"
	  "An instance with no span for ten windows leaves the domain; its name\n"
	  "seen again gets a new instance number." },
	{ "Cumulative buckets of span durations", LE_INDOM_HELP("span duration") },
	{ "HTTP status codes of the OTLP receiver's answers",
	  "One instance per status code the receiver answers with, named and\n"
	  "numbered by it: 200, 204, 400, 401, 403, 404, 405, 413, 415, 429, 503." },
	{ "Reasons a span is refused",
	  "bad_kind, bad_status, no_start_time, ends_before_start, refused\n"
	  "(docs/trace-protocol.md §12.2)." },
	{ "Limits that refuse or divert",
	  "0 \"instances\": a cap on the number of instances (-S, -t);\n"
	  "1 \"memory\": a byte budget (-B, -m)." },
	{ "The OTLP receiver's transports",
	  "0 \"http\": OTLP/HTTP; 1 \"grpc\": OTLP/gRPC." },
	{ "Reasons an OpenTelemetry metric data point is refused",
	  "kind_changed, unit_changed, double_in_int, bad_buckets, bounds_changed,\n"
	  "no_time, bad_name, metrics_cap, series_cap, memory (docs/otlp-metrics.md)." },
	{ "Reasons an OTLP client is turned away",
	  "0 \"host\", 1 \"host_limit\" (the access list, -A), 2 \"no_token\",\n"
	  "3 \"bad_token\" (the bearer token, -a): docs/trace-protocol.md §12.9." },
};

/* LIMIT_SERIAL's instances */
enum { LIMIT_INSTANCES, LIMIT_MEMORY, LIMIT_N };
static const char *const limit_names[LIMIT_N] = { "instances", "memory" };

static const char *const via_names[OTLP_VIA_N] = {
#define OTLP_X(id, name) name,
	OTLP_TRANSPORTS(OTLP_X)
#undef OTLP_X
};

static const char *const deny_names[OTLP_DENY_N] = {
#define OTLP_X(id, name) name,
	OTLP_DENY_REASONS(OTLP_X)
#undef OTLP_X
};

static const char *const reject_names[OTLP_REJECT_N] = {
#define OTLP_X(id, name, why) name,
	OTLP_REJECT_REASONS(OTLP_X)
#undef OTLP_X
};

static pmdaIndom indoms[NINDOMS];
static pmdaMetric metrics[TRACE_NMETRICS];
static struct trace_pmda *self;

/* The aggregation and its tag type behind tag type @tagtype (T_SPAN: the
 * span table's transactions); NULL when the agent has no span table. */
static struct trace_agg *agg_of(int tagtype, int *type)
{
	if (tagtype == T_SPAN) {
		*type = TRACE_TRANSACT;
		return self->spans ? tra_spans_agg(self->spans) : NULL;
	}
	*type = tagtype;
	return self->agg;
}

static int le_serial(int tagtype)
{
	return tagtype == TRACE_TRANSACT ? LE_SERIAL_T : tagtype == T_SPAN ? LE_SERIAL_S : LE_SERIAL_O;
}

/* The table entry of metric @id (any domain), or NULL. */
static const struct metric_info *info_of(pmID id)
{
	for (unsigned i = 0; i < TRACE_NMETRICS; i++)
		if (info[i].cluster == pmID_cluster(id) && info[i].item == pmID_item(id))
			return &info[i];
	return NULL;
}

/* Cluster 3's descriptors, by field from F_OTLP_REQUESTS on (their indoms are fixed). */
struct fixed_desc {
	int type, sem;
	pmUnits units;
	int indom;	/* a serial, or -1: none */
};

static const struct fixed_desc otlp_desc[] = {
	[F_OTLP_REQUESTS - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, ANSWER_SERIAL },
	[F_OTLP_ACCEPTED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, -1 },
	[F_OTLP_REJECTED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, REJECT_SERIAL },
	[F_OTLP_OVERFLOW - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, LIMIT_SERIAL },
	[F_OTLP_BYTES - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_BYTES, -1 },
	[F_OTLP_INFLIGHT - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_COUNT, -1 },
	[F_OTLP_BUFFERED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_BYTES, -1 },
	[F_OTLP_BUFMAX - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_DISCRETE, U_BYTES, -1 },
	[F_OTLP_LISTENING - F_OTLP_REQUESTS] = { PM_TYPE_U32, PM_SEM_INSTANT, U_NONE, -1 },
	[F_OTLP_ERRORS - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, -1 },
	[F_SPAN_MEMORY - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_BYTES, -1 },
	[F_SPAN_MEMORY_MAX - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_DISCRETE, U_BYTES, -1 },
	[F_TAG_MEMORY - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_BYTES, -1 },
	[F_TAG_MEMORY_MAX - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_DISCRETE, U_BYTES, -1 },
	[F_TAG_REFUSED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, LIMIT_SERIAL },
	[F_OTLP_VIA - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, VIA_SERIAL },
	[F_POINTS_ACCEPTED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, -1 },
	[F_POINTS_REJECTED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT,
						   POINT_REJECT_SERIAL },
	[F_OTEL_METRICS - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_COUNT, -1 },
	[F_OTEL_SERIES - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_COUNT, -1 },
	[F_OTEL_MEMORY - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_INSTANT, U_BYTES, -1 },
	[F_OTEL_MEMORY_MAX - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_DISCRETE, U_BYTES, -1 },
	[F_OTLP_DENIED - F_OTLP_REQUESTS] = { PM_TYPE_U64, PM_SEM_COUNTER, U_COUNT, DENY_SERIAL },
};
_Static_assert(sizeof(otlp_desc) / sizeof(otlp_desc[0]) ==
	       F_OTLP_DENIED - F_OTLP_REQUESTS + 1,
	       "a descriptor for every field of cluster 3");

static pmDesc desc_of(const struct metric_info *m)
{
	pmDesc d = { .indom = PM_INDOM_NULL, .sem = PM_SEM_INSTANT };

	if (m->field >= F_OTLP_REQUESTS) {
		const struct fixed_desc *o = &otlp_desc[m->field - F_OTLP_REQUESTS];

		d.type = o->type;
		d.sem = o->sem;
		d.units = o->units;
		d.indom = o->indom < 0 ? PM_INDOM_NULL : (pmInDom)o->indom;
		return d;
	}

	if (m->field == F_LE)	/* serials; pmdaInit adds the domain */
		d.indom = (pmInDom)le_serial(m->tagtype);

	else if (m->tagtype == T_SPAN)
		d.indom = SPAN_SERIAL;
	else if (m->tagtype)
		d.indom = (pmInDom)(m->tagtype - 1);
	switch (m->field) {
	case F_COUNT:
	case F_ERRORS:
	case F_LE:
		d.type = PM_TYPE_U64;
		d.sem = PM_SEM_COUNTER;
		d.units = (pmUnits)U_COUNT;
		break;
	case F_RATE:
		d.type = PM_TYPE_FLOAT;
		d.units = (pmUnits)U_RATE;
		break;
	case F_AVE:
		d.type = PM_TYPE_FLOAT;
		d.units = (pmUnits)U_AVE;
		break;
	case F_MIN:
	case F_MAX:
		d.type = PM_TYPE_FLOAT;
		d.units = (pmUnits)U_SEC;
		break;
	case F_TOTAL:
		d.type = PM_TYPE_DOUBLE;
		d.sem = PM_SEM_COUNTER;
		d.units = (pmUnits)U_SEC;
		break;
	case F_VALUE:
		d.type = PM_TYPE_DOUBLE;
		if (m->tagtype == TRACE_COUNTER) {
			d.sem = PM_SEM_COUNTER;
			d.units = self->counter_units;
		} else {
			d.units = self->observe_units;
		}
		break;
	case F_PERIOD:
	case F_INTERVAL:
		d.type = PM_TYPE_U32;
		d.sem = PM_SEM_DISCRETE;
		d.units = (pmUnits)U_SEC;
		break;
	case F_PCT:
		d.type = PM_TYPE_DOUBLE;
		d.units = m->tagtype == TRACE_OBSERVE ? self->observe_units : (pmUnits)U_SEC;
		break;
	case F_DEBUG:
		d.type = SDK_DEBUG_TYPE;
		d.sem = PM_SEM_DISCRETE;
		d.units = (pmUnits)U_NONE;
		break;
	default:
		d.type = PM_TYPE_U32;
		d.sem = PM_SEM_DISCRETE;
		d.units = (pmUnits)U_NONE;
		break;
	}
	return d;
}

static uint64_t load(const uint64_t *field)
{
	return __atomic_load_n(field, __ATOMIC_RELAXED);
}

/* A cluster 3 value: the receiver's counters and the memory budgets. */
static int otlp_value(enum field f, unsigned int inst, pmAtomValue *atom)
{
	const struct otlp_stats *st = &self->otlp_stats;
	struct tra_spans_usage su;
	struct trace_agg_usage tu = { 0 };
	struct otel_usage ou = { 0 };

	/* the tables' usage only for the fields that show it */
	memset(&su, 0, sizeof(su));
	if (self->spans && (f == F_OTLP_OVERFLOW || f == F_SPAN_MEMORY || f == F_SPAN_MEMORY_MAX))
		tra_spans_usage(self->spans, &su);
	if (f == F_TAG_REFUSED || f == F_TAG_MEMORY || f == F_TAG_MEMORY_MAX)
		tra_agg_usage(self->agg, &tu);
	if (self->metrics && f >= F_OTEL_METRICS && f <= F_OTEL_MEMORY_MAX)
		otel_usage_get(self->metrics, &ou);
	switch (f) {
	case F_OTLP_REQUESTS:
		for (unsigned i = 0; i < OTLP_ANSWER_N; i++)
			if (otlp_answer_code(i) == inst) {
				atom->ull = load(&st->answers[i]);
				return 1;
			}
		return PM_ERR_INST;
	case F_OTLP_VIA:
		if (inst >= OTLP_VIA_N)
			return PM_ERR_INST;
		atom->ull = load(&st->via[inst]);
		return 1;
	case F_OTLP_DENIED:
		if (inst >= OTLP_DENY_N)
			return PM_ERR_INST;
		atom->ull = load(&st->denied[inst]);
		return 1;
	case F_OTLP_REJECTED:
		if (inst >= OTLP_REJECT_N)
			return PM_ERR_INST;
		atom->ull = load(&st->spans_rejected[inst]);
		return 1;
	case F_OTLP_OVERFLOW:
	case F_TAG_REFUSED:
		if (inst >= LIMIT_N)
			return PM_ERR_INST;
		if (f == F_OTLP_OVERFLOW)
			atom->ull = inst == LIMIT_INSTANCES ? su.overflow_cap : su.overflow_bytes;
		else
			atom->ull = inst == LIMIT_INSTANCES ? tu.refused_cap : tu.refused_bytes;
		return 1;
	case F_OTLP_ACCEPTED:
		atom->ull = load(&st->spans_accepted);
		return 1;
	case F_POINTS_ACCEPTED:
		atom->ull = load(&st->points_accepted);
		return 1;
	case F_POINTS_REJECTED:
		if (inst >= OTEL_REJECT_N)
			return PM_ERR_INST;
		atom->ull = load(&st->points_rejected[inst]);
		return 1;
	case F_OTEL_METRICS:
		atom->ull = ou.metrics;
		return 1;
	case F_OTEL_SERIES:
		atom->ull = ou.series;
		return 1;
	case F_OTEL_MEMORY:
		atom->ull = ou.bytes;
		return 1;
	case F_OTEL_MEMORY_MAX:
		atom->ull = ou.max_bytes;
		return 1;
	case F_OTLP_BYTES:
		atom->ull = load(&st->bytes);
		return 1;
	case F_OTLP_INFLIGHT:
		atom->ull = load(&st->inflight);
		return 1;
	case F_OTLP_BUFFERED:
		atom->ull = load(&st->buffered);
		return 1;
	case F_OTLP_BUFMAX:
		atom->ull = load(&st->buf_max);
		return 1;
	case F_OTLP_LISTENING:
		atom->ul = (uint32_t)load(&st->listening);
		return 1;
	case F_OTLP_ERRORS:
		atom->ull = load(&st->errors);
		return 1;
	case F_SPAN_MEMORY:
		atom->ull = su.agg.bytes;
		return 1;
	case F_SPAN_MEMORY_MAX:
		atom->ull = su.agg.max_bytes;
		return 1;
	case F_TAG_MEMORY:
		atom->ull = tu.bytes;
		return 1;
	case F_TAG_MEMORY_MAX:
		atom->ull = tu.max_bytes;
		return 1;
	default:
		return PM_ERR_PMID;
	}
}

static int control_value(enum field f, unsigned int inst, pmAtomValue *atom)
{
	if (f >= F_OTLP_REQUESTS)
		return otlp_value(f, inst, atom);
	switch (f) {
	case F_PERIOD:
		atom->ul = self->period;
		break;
	case F_INTERVAL:
		atom->ul = self->period / self->buckets;
		break;
	case F_BUCKETS:
		atom->ul = self->buckets;
		break;
	case F_PORT:
		atom->ul = self->port_shown;
		break;
	case F_RESET:
		atom->ul = 1;
		break;
	case F_DEBUG:
		return sdk_debug_value(self->debug, atom, self->debug_text,
				sizeof(self->debug_text));
	default:
		return PM_ERR_PMID;
	}
	return 1;
}

/*
 * A fetch's percentiles of one tag come from one pass over its window:
 * the first percentile metric asked for computes all of the type's
 * levels (the F_PCT rows of info[], gathered by pct_setup), the others
 * of the same fetch read them, so they also agree with each other.
 * Direct-mapped by instance; a clash computes again.
 */
#define PCT_LEVELS	4	/* at most, per type */
#define PCT_MEMO	256

static double pct_levels[NTAGTYPES][PCT_LEVELS];
static unsigned pct_nlevels[NTAGTYPES];
static uint64_t fetch_seq;	/* trace_fetch's count, from 1 */
static struct pct_memo {
	uint64_t fetch;		/* fetch_seq of the values, 0: none */
	int inst, sts;
	double v[PCT_LEVELS];
} pct_memo[NTAGTYPES][PCT_MEMO];

/* 0, or -E2BIG (logged) if info[] has more levels of a type than
 * PCT_LEVELS: a row is never served another row's level. */
static int pct_setup(void)
{
	memset(pct_nlevels, 0, sizeof(pct_nlevels));
	memset(pct_memo, 0, sizeof(pct_memo));
	for (unsigned i = 0; i < TRACE_NMETRICS; i++) {
		int t = info[i].tagtype;

		if (info[i].field != F_PCT)
			continue;
		if (pct_nlevels[t] == PCT_LEVELS) {
			pmNotifyErr(LOG_ERR, "metric %u.%u: more than %d percentiles "
					"of one type (PCT_LEVELS)", info[i].cluster,
					info[i].item, PCT_LEVELS);
			return -E2BIG;
		}
		pct_levels[t][pct_nlevels[t]++] = info[i].pct;
	}
	return 0;
}

/* A percentile of the window: a value, none (empty window) or no instance. */
static int pct_value(const struct metric_info *m, unsigned int inst, pmAtomValue *atom)
{
	int t = m->tagtype;
	struct pct_memo *e = &pct_memo[t][inst % PCT_MEMO];
	unsigned k;

	if (e->fetch != fetch_seq || e->inst != (int)inst) {
		int type;
		struct trace_agg *agg = agg_of(t, &type);

		e->sts = agg ? tra_agg_percentiles(agg, type, (int)inst, pct_levels[t],
						   pct_nlevels[t], e->v) : -ENOENT;
		e->fetch = fetch_seq;
		e->inst = (int)inst;
	}
	if (e->sts == -ENOENT)
		return PM_ERR_INST;
	if (e->sts == -ENODATA)
		return PMDA_FETCH_NOVALUES;
	if (e->sts < 0)
		return e->sts;
	for (k = 0; k + 1 < pct_nlevels[t] && pct_levels[t][k] != m->pct; k++)
		;
	atom->d = e->v[k];
	return 1;
}

/*
 * A cumulative bucket: one tag's buckets come from one tra_agg_le call a
 * fetch, read by the instances after it (pmdaFetch goes through an indom
 * in instance order, so a tag's buckets come together).
 */
static struct le_memo {
	uint64_t fetch;		/* fetch_seq of the values, 0: none */
	int tag, sts;
	unsigned first, last;
	uint64_t cum[TRACE_HIST_LE_N];
} le_memo[NTAGTYPES];

static int le_value(const struct metric_info *m, unsigned int inst, pmAtomValue *atom)
{
	struct le_memo *e = &le_memo[m->tagtype];
	int tag = (int)(inst >> LE_SHIFT);
	unsigned j = inst & ((1u << LE_SHIFT) - 1);

	if (e->fetch != fetch_seq || e->tag != tag) {
		int type;
		struct trace_agg *agg = agg_of(m->tagtype, &type);

		e->sts = agg ? tra_agg_le(agg, type, tag, e->cum, &e->first, &e->last) : -ENOENT;
		e->fetch = fetch_seq;
		e->tag = tag;
	}
	if (e->sts == -ENODATA)
		return PMDA_FETCH_NOVALUES;
	if (e->sts < 0 || j >= TRACE_HIST_LE_N ||
	    ((j < e->first || j > e->last) && j != TRACE_HIST_LE_N - 1))
		return PM_ERR_INST;
	atom->ull = e->cum[j];
	return 1;
}

static int fetch_value(pmdaMetric *mdesc, unsigned int inst, pmAtomValue *atom)
{
	const struct metric_info *m = mdesc->m_user;
	struct trace_agg *agg;
	struct trace_stats s;
	int type;

	if (mdesc->m_user == otel_pmda_leaf)
		return otel_pmda_fetch(mdesc, inst, atom);
	if (m == NULL)
		return PM_ERR_PMID;
	if (m->tagtype == 0)
		return control_value(m->field, inst, atom);
	if (m->field == F_PCT)
		return pct_value(m, inst, atom);
	if (m->field == F_LE)
		return le_value(m, inst, atom);
	if ((agg = agg_of(m->tagtype, &type)) == NULL || tra_agg_get(agg, type, (int)inst, &s) < 0)
		return PM_ERR_INST;
	switch (m->field) {
	case F_COUNT:
		atom->ull = s.count;
		return 1;
	case F_ERRORS:
		atom->ull = s.flagged;
		return 1;
	case F_TOTAL:
		atom->d = s.total;
		return 1;
	case F_VALUE:
		atom->d = s.value;
		return 1;
	default:
		break;
	}
	if (!s.in_window)
		return PMDA_FETCH_NOVALUES;	/* nothing in the window yet */
	switch (m->field) {
	case F_RATE:
		atom->f = (float)(s.wcount / (double)self->period);
		break;
	case F_AVE:
		atom->f = s.wcount ? (float)(s.wsum / s.wcount) : 0;
		break;
	case F_MIN:
		atom->f = (float)s.wmin;
		break;
	default:
		atom->f = (float)s.wmax;
		break;
	}
	return 1;
}

struct collect {
	pmdaInstid *set;
	int n, cap;
};

static void collect_one(void *arg, int inst, const char *name)
{
	struct collect *c = arg;

	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 16;
		pmdaInstid *p = realloc(c->set, (size_t)cap * sizeof(*p));

		if (p == NULL)
			return;
		c->set = p;
		c->cap = cap;
	}
	if ((c->set[c->n].i_name = strdup(name)) != NULL)
		c->set[c->n++].i_inst = inst;
}

static int by_inst(const void *a, const void *b)
{
	return ((const pmdaInstid *)a)->i_inst - ((const pmdaInstid *)b)->i_inst;
}

/* The bucket instances of tag type @tagtype's tags (indom @tags, sorted) into @c. */
static void collect_le(int tagtype, const pmdaIndom *tags, struct collect *c)
{
	char name[TRACE_TAG_MAX + 48], le[32];
	int type;
	struct trace_agg *agg = agg_of(tagtype, &type);

	if (agg == NULL)
		return;
	for (int i = 0; i < tags->it_numinst; i++) {
		const pmdaInstid *t = &tags->it_set[i];
		unsigned first, last;

		if (t->i_inst > LE_TAG_MAX ||
		    tra_agg_le(agg, type, t->i_inst, NULL, &first, &last) < 0)
			continue;
		for (unsigned j = first; j < TRACE_HIST_LE_N; j = j < last ? j + 1 : TRACE_HIST_LE_N - 1) {
			snprintf(name, sizeof(name), "%s:%s", t->i_name,
				 sdk_le_text(trace_hist_le_bound(j), le, sizeof(le)));
			collect_one(c, t->i_inst << LE_SHIFT | (int)j, name);
			if (j == TRACE_HIST_LE_N - 1)
				break;
		}
	}
}

static void set_indom(pmdaIndom *d, struct collect *c)
{
	for (int i = 0; i < d->it_numinst; i++)
		free(d->it_set[i].i_name);
	free(d->it_set);
	d->it_set = c->set;
	d->it_numinst = c->n;
}

/*
 * The instance domains as the tags stand now, sorted by instance number;
 * rebuilt only when a tag was created or a reset happened since last time.
 */
static void refresh_indoms(void)
{
	static uint64_t seen = UINT64_MAX, seen_spans = UINT64_MAX;
	static time_t expired;
	uint64_t gen = tra_agg_generation(self->agg), gen_spans = 0;
	time_t now = time(NULL);

	if (self->spans) {
		if (now != expired) {	/* idle span instances leave, checked once a second */
			expired = now;
			tra_spans_expire(self->spans);
		}
		gen_spans = tra_agg_generation(tra_spans_agg(self->spans));
	}
	if (gen == seen && gen_spans == seen_spans)
		return;
	seen = gen;
	seen_spans = gen_spans;
	for (int t = 0; t < TRACE_NTYPES; t++) {
		struct collect c = { 0 };

		tra_agg_instances(self->agg, t + 1, collect_one, &c);
		if (c.n > 1)	/* an empty set is NULL, which qsort must not get */
			qsort(c.set, (size_t)c.n, sizeof(*c.set), by_inst);
		set_indom(&indoms[t], &c);
	}
	for (int s = LE_SERIAL_T; s <= LE_SERIAL_O; s++) {
		int type = s == LE_SERIAL_T ? TRACE_TRANSACT : TRACE_OBSERVE;
		struct collect c = { 0 };

		collect_le(type, &indoms[type - 1], &c);	/* in instance order */
		set_indom(&indoms[s], &c);
	}
	{
		struct collect c = { 0 }, le = { 0 };

		if (self->spans)
			tra_agg_instances(tra_spans_agg(self->spans), TRACE_TRANSACT, collect_one, &c);
		if (c.n > 1)
			qsort(c.set, (size_t)c.n, sizeof(*c.set), by_inst);
		set_indom(&indoms[SPAN_SERIAL], &c);
		collect_le(T_SPAN, &indoms[SPAN_SERIAL], &le);
		set_indom(&indoms[LE_SERIAL_S], &le);
	}
}

/*
 * The tables as they stand now: the tags' instances, and with @otel
 * (a request about trace.otel) the OpenTelemetry metrics' too.
 */
static void sync_tables(pmdaExt *pmda, int otel)
{
	refresh_indoms();
	otel_pmda_sync(pmda, indoms, NINDOMS, otel);
}

static int inst_cmp(const void *key, const void *elem)
{
	int inst = *(const int *)key, other = ((const pmdaInstid *)elem)->i_inst;

	return inst < other ? -1 : inst > other;
}

/*
 * A span instance's labels: the note the span table made it with
 * (service_name, service_namespace, span_name, span_kind; spans.h).
 * Returns 0 (none: no such instance) or a PCP error.
 */
static int span_note_labels(int inst, pmLabelSet **lp)
{
	char note[TRA_SPAN_NOTE_MAX];
	int sts;

	if (tra_agg_note(tra_spans_agg(self->spans), TRACE_TRANSACT, inst, note,
			 sizeof(note)) <= 0)
		return 0;
	sts = pmdaAddLabels(lp, "%s", note);
	return sts < 0 ? sts : 0;
}

static int span_labels(const pmdaInstid *in, pmLabelSet **lp)
{
	int sts = span_note_labels(in->i_inst, lp);

	if (sts < 0)
		return sts;
	return *lp != NULL ? (*lp)->nlabels : 0;
}

/*
 * A bucket's labels {"le":"..."} and {"tag":"..."}, from its name
 * "<tag>:<le>" (a bound has no ':'), and a span bucket's also its span's
 * (span_note_labels); a span's (span_labels); other
 * instances have none. Returns the number of labels, as pmdaLabel wants,
 * or a PCP error.
 */
static int trace_instance_labels(pmInDom indom, unsigned int inst, pmLabelSet **lp)
{
	unsigned s = pmInDom_serial(indom);
	const pmdaInstid *in;
	char json[6 * TRACE_TAG_MAX + 48], *colon, *tag;
	int key = (int)inst, sts;

	if (otel_pmda_indom(indom))
		return otel_pmda_inst_labels(indom, inst, lp);
	if (s == SPAN_SERIAL && self->spans) {
		in = bsearch(&key, indoms[s].it_set, (size_t)indoms[s].it_numinst,
			     sizeof(*in), inst_cmp);
		return in ? span_labels(in, lp) : 0;
	}
	if (s != LE_SERIAL_T && s != LE_SERIAL_O && s != LE_SERIAL_S)
		return 0;
	in = bsearch(&key, indoms[s].it_set, (size_t)indoms[s].it_numinst,
		     sizeof(*in), inst_cmp);
	if (in == NULL || (colon = strrchr(in->i_name, ':')) == NULL)
		return 0;
	if ((tag = strndup(in->i_name, (size_t)(colon - in->i_name))) == NULL)
		return -ENOMEM;
	/* (json holds any tag: 6 bytes a byte and the rest) */
	sdk_json_label(json, sizeof(json), "le", colon + 1);
	if ((sts = pmdaAddLabels(lp, "%s", json)) >= 0) {
		sdk_json_label(json, sizeof(json), "tag", tag);
		sts = pmdaAddLabels(lp, "%s", json);
	}
	if (sts >= 0 && s == LE_SERIAL_S)	/* "<tag>:<le>": the span's the last ':' ends */
		sts = span_note_labels(tra_agg_lookup(tra_spans_agg(self->spans), TRACE_TRANSACT,
						      tag), lp);
	free(tag);
	if (sts < 0)
		return sts;
	return *lp != NULL ? (*lp)->nlabels : 0;
}

static int trace_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda)
{
	int sts;

	sync_tables(pmda, (type & PM_LABEL_ITEM) ? otel_pmda_pmid((pmID)ident) :
		    (type & (PM_LABEL_INDOM | PM_LABEL_INSTANCES)) ? otel_pmda_indom((pmInDom)ident) : 0);
	if (type & (PM_LABEL_INDOM | PM_LABEL_INSTANCES))
		otel_pmda_want((pmInDom)ident);
	if ((sts = pmdaLabel(ident, type, lp, pmda)) < 0)
		return sts;
	if (type & PM_LABEL_ITEM)
		return otel_pmda_item_labels((pmID)ident, lp);
	return sts;
}

static int trace_fetch(int n, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
	int otel = 0;

	fetch_seq++;
	for (int i = 0; i < n && !otel; i++)
		otel = otel_pmda_pmid(pmids[i]);
	sync_tables(pmda, otel);
	for (int i = 0; i < n && otel; i++)
		otel_pmda_want_pmid(pmids[i]);
	return pmdaFetch(n, pmids, resp, pmda);
}

static int trace_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
	sync_tables(pmda, otel_pmda_pmid(pmid));
	return pmdaDesc(pmid, desc, pmda);
}

static int trace_instance(pmInDom indom, int inst, char *name,
		pmInResult **result, pmdaExt *pmda)
{
	sync_tables(pmda, otel_pmda_indom(indom));
	otel_pmda_want(indom);
	return pmdaInstance(indom, inst, name, result, pmda);
}

static int trace_text(int ident, int type, char **buf, pmdaExt *pmda)
{
	int longtext = (type & PM_TEXT_HELP) != 0;

	sync_tables(pmda, (type & PM_TEXT_PMID) ? otel_pmda_pmid((pmID)ident) :
		    otel_pmda_indom((pmInDom)ident));
	if (type & PM_TEXT_PMID) {
		const struct metric_info *m = info_of((pmID)ident);

		if (m == NULL)
			return otel_pmda_text((pmID)ident, type, buf);
		*buf = (char *)(longtext ? m->help : m->oneline);
		return 0;
	}
	if (otel_pmda_indom((pmInDom)ident))
		return PM_ERR_TEXT;
	if (pmInDom_serial((pmInDom)ident) >= NINDOMS)
		return PM_ERR_INDOM;
	*buf = (char *)indom_help[pmInDom_serial((pmInDom)ident)][longtext];
	return 0;
}

static int trace_store(pmdaResult *result, pmdaExt *pmda)
{
	(void)pmda;
	for (int i = 0; i < result->numpmid; i++) {
		pmValueSet *vs = result->vset[i];
		const struct metric_info *m = info_of(vs->pmid);

		if (m == NULL)
			return PM_ERR_PMID;
		if (m->field == F_RESET) {
			tra_agg_reset(self->agg);
			if (self->spans)
				tra_spans_reset(self->spans);
			pmNotifyErr(LOG_INFO, "PMDA reset");
		} else if (m->field == F_DEBUG) {
			int sts = sdk_debug_store(vs, &self->debug, self->debug_text,
					sizeof(self->debug_text));

			if (sts < 0)
				return sts;
			pmNotifyErr(LOG_INFO, SDK_DEBUG_LOGFMT, self->debug_text);
		} else {
			return PM_ERR_PMID;
		}
	}
	return 0;
}

/* The fixed instance domains of cluster 3: 0 or -ENOMEM. */
static int fixed_indoms(void)
{
	static pmdaInstid answers[OTLP_ANSWER_N], reasons[OTLP_REJECT_N], limits[LIMIT_N];
	static pmdaInstid via[OTLP_VIA_N], points[OTEL_REJECT_N], denied[OTLP_DENY_N];
	static char codes[OTLP_ANSWER_N][8];

	for (unsigned i = 0; i < OTLP_ANSWER_N; i++) {
		snprintf(codes[i], sizeof(codes[i]), "%u", otlp_answer_code(i));
		answers[i].i_inst = (int)otlp_answer_code(i);
		answers[i].i_name = codes[i];
	}
	for (unsigned i = 0; i < OTLP_REJECT_N; i++) {
		reasons[i].i_inst = (int)i;
		reasons[i].i_name = (char *)reject_names[i];
	}
	for (unsigned i = 0; i < LIMIT_N; i++) {
		limits[i].i_inst = (int)i;
		limits[i].i_name = (char *)limit_names[i];
	}
	indoms[ANSWER_SERIAL].it_set = answers;
	indoms[ANSWER_SERIAL].it_numinst = OTLP_ANSWER_N;
	indoms[REJECT_SERIAL].it_set = reasons;
	indoms[REJECT_SERIAL].it_numinst = OTLP_REJECT_N;
	indoms[LIMIT_SERIAL].it_set = limits;
	indoms[LIMIT_SERIAL].it_numinst = LIMIT_N;
	for (unsigned i = 0; i < OTLP_VIA_N; i++) {
		via[i].i_inst = (int)i;
		via[i].i_name = (char *)via_names[i];
	}
	indoms[VIA_SERIAL].it_set = via;
	indoms[VIA_SERIAL].it_numinst = OTLP_VIA_N;
	for (unsigned i = 0; i < OTEL_REJECT_N; i++) {
		points[i].i_inst = (int)i;
		points[i].i_name = (char *)otel_reject_name((enum otel_reject)i);
	}
	indoms[POINT_REJECT_SERIAL].it_set = points;
	indoms[POINT_REJECT_SERIAL].it_numinst = OTEL_REJECT_N;
	for (unsigned i = 0; i < OTLP_DENY_N; i++) {
		denied[i].i_inst = (int)i;
		denied[i].i_name = (char *)deny_names[i];
	}
	indoms[DENY_SERIAL].it_set = denied;
	indoms[DENY_SERIAL].it_numinst = OTLP_DENY_N;
	return 0;
}

void trace_pmda_init(pmdaInterface *dp, struct trace_pmda *t)
{
	self = t;
	if ((dp->status = pct_setup()) < 0)
		return;
	for (int i = 0; i < NINDOMS; i++)
		indoms[i].it_indom = (pmInDom)i;
	if ((dp->status = fixed_indoms()) < 0)
		return;
	for (unsigned i = 0; i < TRACE_NMETRICS; i++) {
		metrics[i].m_user = (void *)&info[i];
		metrics[i].m_desc = desc_of(&info[i]);
		/* pmdaInit adds the domain */
		metrics[i].m_desc.pmid = pmID_build(0, info[i].cluster, info[i].item);
	}
	dp->version.any.fetch = trace_fetch;
	dp->version.any.desc = trace_desc;
	dp->version.any.instance = trace_instance;
	dp->version.any.text = trace_text;
	dp->version.any.store = trace_store;
	dp->version.seven.label = trace_label;
	pmdaSetFetchCallBack(dp, fetch_value);
	pmdaSetLabelCallBack(dp, trace_instance_labels);
	pmdaSetFlags(dp, PMDA_EXT_FLAG_HASHED);
	pmdaInit(dp, indoms, NINDOMS, metrics, TRACE_NMETRICS);
	if (dp->status == 0)
		otel_pmda_setup(dp, t->metrics, metrics, TRACE_NMETRICS, sync_tables);
}
