/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.c - the trace agent's command line from one typed table: each
 * row is an option's pmLongOptions (long name, letter, argument name,
 * help), its kind, where its value goes in struct trace_opts, its range
 * and its default as text. The pmLongOptions array, the short option
 * string, the help's "(default ...)" and the defaults themselves are all
 * made from the rows; one loop reads argv, and a kind's reader (numbers
 * through common/pmda_options.h) takes each argument.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <pcp/trace_dev.h>

#include "core/access.h"
#include "core/spans.h"
#include "otel/otel.h"
#include "otlp/grpc.h"
#include "otlp/cors.h"
#include "otlp/http.h"
#include "options.h"
#include "pcp_compat.h"
#include "pmda_options.h"

enum opt_kind {
	OPT_TEXT,	/* a heading of the usage message, not an option */
	OPT_PCP,	/* read by pmdaGetOptions itself: -D, -d, -l, -? */
	OPT_COUNT,	/* a decimal integer in [min, max]: uint64_t */
	OPT_BYTES,	/* a byte size (sdk_parse_bytes) in [min, max]: uint64_t */
	OPT_SECONDS_RANGE,	/* MIN or MIN-MAX seconds in [min, max]: two unsigned */
	OPT_INTERVAL,	/* PCP's interval syntax, whole seconds in [min, max]: uint64_t */
	OPT_UNITS,	/* six integers, a pmUnits */
	OPT_ADDR,	/* [HOST:]PORT or off: an OTLP receiver's address (-O, -G) */
	OPT_ACCESS,	/* an access rule, appended to the list */
	OPT_STRING,	/* kept as given: const char * */
	OPT_ORIGINS,	/* a list of origins (otlp/cors.h), kept as given: const char * */
};

struct opt_row {
	pmLongOptions lo;	/* long name, argument?, letter, argument name, help */
	enum opt_kind kind;
	size_t off;		/* where the value goes in struct trace_opts */
	uint64_t min, max;	/* a number's range */
	const char *dflt;	/* the default as an argument; NULL: none */
	const char *what;	/* what the argument must be, for the message */
};

#define MIB		(UINT64_C(1) << 20)
#define TIB		(UINT64_C(1) << 40)
#define TEXT_(x)	#x
#define TEXT(x)		TEXT_(x)	/* a number's literal as a default */

/* An option of ours (or PCP's read here): a row with an argument. */
#define ROW(c, name, arg, kind, field, min, max, dflt, what, help) \
	{ { name, 1, c, arg, help }, kind, offsetof(struct trace_opts, field), min, max, dflt, what }
/* One of PCP's that pmdaGetOptions reads, with PCP's own help. */
#define PCP(longopt)	{ longopt, OPT_PCP, 0, 0, 0, NULL, NULL }

static const struct opt_row rows[] = {
	{ PMDA_OPTIONS_HEADER("Options"), OPT_TEXT, 0, 0, 0, NULL, NULL },
	ROW('A', "access", "SPEC", OPT_ACCESS, access, 0, 0, NULL, NULL,
	    "host access control: allow:HOST:MAXCONN or disallow:HOST"),
	PCP(PMDAOPT_DEBUG),
	PCP(PMDAOPT_DOMAIN),
	ROW('I', "port", "PORT", OPT_COUNT, port, 0, 65535, TEXT(TRACE_PORT), "a port number",
	    "listen for trace clients on this port"),
	PCP(PMDAOPT_LOGFILE),
	ROW('M', "user", "USER", OPT_STRING, user, 0, 0, NULL, NULL,
	    "run the agent as this user"),
	ROW('N', "buckets", "N", OPT_COUNT, buckets, 1, 1000000, "5", "a number of buckets",
	    "number of sub-intervals of the period"),
	ROW('T', "period", "TIME", OPT_INTERVAL, period, 1, UINT_MAX, "60",
	    "whole seconds in PCP's interval syntax (30, 30sec, 1min)",
	    "rolling window period, PCP's interval syntax"),
	ROW('U', "units", "UNITS", OPT_UNITS, observe_units, 0, 0, "0,0,0,0,0,0", NULL,
	    "units of trace.observe.value: six integers"),
	ROW('V', "counter-units", "UNITS", OPT_UNITS, counter_units, 0, 0, "0,0,0,0,0,0", NULL,
	    "units of trace.counter.value: six integers"),
	ROW('c', "max-clients", "N", OPT_COUNT, max_clients, 1, 1000000, "1024", "a number of clients",
	    "most trace clients connected at once"),
	ROW('t', "max-tags", "N", OPT_COUNT, max_tags, 0, 100000000, "100000", "a number of tags",
	    "most tags of each kind, 0 for no limit"),
	ROW('m', "tag-memory", "BYTES", OPT_BYTES, tag_memory, MIB, TIB,
	    TEXT(TRA_AGG_BYTES_MIB) "M", NULL,
	    "memory budget of the trace tags' aggregation"),
	ROW('O', "otlp", "[HOST:]PORT", OPT_ADDR, otlp_http, 0, 65535, TEXT(OTLP_HTTP_PORT), NULL,
	    "OTLP/HTTP receiver address (a port alone: 127.0.0.1 and ::1), or off; "
	    "insecure:HOST:PORT off the loopback with no -A or -a"),
	ROW('G', "otlp-grpc", "[HOST:]PORT", OPT_ADDR, otlp_grpc, 0, 65535, TEXT(OTLP_GRPC_PORT), NULL,
	    "OTLP/gRPC receiver address (a port alone: 127.0.0.1 and ::1), or off; "
	    "insecure:HOST:PORT as for -O"),
	ROW('a', "otlp-token", "FILE", OPT_STRING, otlp_token, 0, 0, NULL, NULL,
	    "OTLP requests must carry Authorization: Bearer and the token in FILE "
	    "(owned by the agent's user, mode 600 or stricter)"),
	ROW('j', "otlp-tls-cert", "FILE", OPT_STRING, otlp_tls_cert, 0, 0, NULL, NULL,
	    "OTLP listeners speak TLS (1.3 or 1.2) with this certificate chain (PEM); needs -J"),
	ROW('J', "otlp-tls-key", "FILE", OPT_STRING, otlp_tls_key, 0, 0, NULL, NULL,
	    "the private key of -j's certificate (PEM)"),
	ROW('K', "otlp-tls-ca", "FILE", OPT_STRING, otlp_tls_ca, 0, 0, NULL, NULL,
	    "OTLP clients must present a certificate this CA (PEM) signed; needs -j"),
	ROW('C', "otlp-cors", "ORIGINS", OPT_ORIGINS, otlp_cors, 0, 0, NULL, NULL,
	    "origins browsers may send OTLP spans from (CORS): comma-separated, "
	    "each exact or with one *, or * for any; none by default"),
	ROW('b', "otlp-buffer", "BYTES", OPT_BYTES, otlp_buffer, MIB, TIB,
	    TEXT(OTLP_HTTP_BUF_MIB) "M", NULL,
	    "OTLP request bodies being received, in bytes"),
	ROW('Q', "otlp-requests", "N", OPT_COUNT, otlp_requests, 0, 1000000, "0", "a number of requests",
	    "most OTLP requests receiving bodies at once, 0 for no count limit"),
	ROW('R', "otlp-retry-after", "MIN[-MAX]", OPT_SECONDS_RANGE, retry_min, 1, 3600,
	    TEXT(OTLP_HTTP_RETRY_MIN) "-" TEXT(OTLP_HTTP_RETRY_MAX),
	    "seconds as MIN or MIN-MAX, MIN <= MAX",
	    "Retry-After of a refused OTLP request, seconds drawn from MIN..MAX"),
	ROW('k', "otlp-idle", "SECONDS", OPT_COUNT, otlp_idle, 1, 86400, TEXT(OTLP_HTTP_IDLE_SEC),
	    "a number of seconds", "close an OTLP connection idle this long"),
	ROW('S', "max-spans", "N", OPT_COUNT, max_spans, 1, 100000000, TEXT(TRA_SPAN_CAP_DEFAULT),
	    "a number of span instances", "most span instances, besides the overflow one"),
	ROW('B', "span-memory", "BYTES", OPT_BYTES, span_memory, MIB, TIB,
	    TEXT(TRA_SPAN_BYTES_MIB) "M", NULL,
	    "memory budget of the span table"),
	ROW('X', "otel-metrics", "N", OPT_COUNT, otel_metrics, 0, 1000000,
	    TEXT(OTEL_METRICS_DEFAULT), "a number of metrics",
	    "most OpenTelemetry metrics (trace.otel.*), 0 to take none"),
	ROW('E', "otel-series", "N", OPT_COUNT, otel_series, 1, 100000000,
	    TEXT(OTEL_SERIES_DEFAULT), "a number of series", "most series of one OpenTelemetry metric"),
	ROW('Y', "otel-memory", "BYTES", OPT_BYTES, otel_memory, MIB, TIB,
	    TEXT(OTEL_BYTES_MIB) "M", NULL,
	    "memory budget of the OpenTelemetry metrics"),
	ROW('W', "otel-idle", "SECONDS", OPT_COUNT, otel_idle, 1, 100000000,
	    TEXT(OTEL_IDLE_DEFAULT), "a number of seconds",
	    "an OpenTelemetry metric series with no point this long leaves"),
	ROW('P', "otel-state", "FILE", OPT_STRING, otel_state, 0, 0, NULL, NULL,
	    "where the OpenTelemetry metrics' PMIDs are kept "
	    "(default $PCP_VAR_DIR/config/pmda/trace.otel)"),
	PCP(PMOPT_HELP),
};

#define NROWS		(sizeof(rows) / sizeof(rows[0]))
#define HELP_MAX	160

/* The message of a number out of its row's range or not one. */
static int refuse(const struct opt_row *r, pmdaOptions *opts)
{
	char lo[24], hi[24];

	if (r->kind == OPT_BYTES) {
		sdk_opt_refuse(opts, r->lo.short_opt, SDK_OPT_BYTES_WHAT,
			       sdk_bytes_text(r->min, lo, sizeof(lo)),
			       sdk_bytes_text(r->max, hi, sizeof(hi)));
		return -1;
	}
	snprintf(lo, sizeof(lo), "%llu", (unsigned long long)r->min);
	snprintf(hi, sizeof(hi), "%llu", (unsigned long long)r->max);
	sdk_opt_refuse(opts, r->lo.short_opt, r->what, lo, hi);
	return -1;
}

static int take_count(const struct opt_row *r, const char *arg, uint64_t *v, pmdaOptions *opts)
{
	long long n;

	if (sdk_parse_integer(arg, (long long)r->min, (long long)r->max, &n) < 0)
		return refuse(r, opts);
	*v = (uint64_t)n;
	return 0;
}

/* "MIN" or "MIN-MAX": each a decimal integer in the row's range, MIN <= MAX. */
static int take_seconds_range(const struct opt_row *r, const char *arg, struct trace_opts *o,
		pmdaOptions *opts)
{
	const char *dash = strchr(arg, '-');
	char first[24];
	long long lo, hi;
	size_t n = dash ? (size_t)(dash - arg) : strlen(arg);

	if (n >= sizeof(first))
		return refuse(r, opts);
	memcpy(first, arg, n);
	first[n] = '\0';
	if (sdk_parse_integer(first, (long long)r->min, (long long)r->max, &lo) < 0)
		return refuse(r, opts);
	hi = lo;
	if (dash && sdk_parse_integer(dash + 1, (long long)r->min, (long long)r->max, &hi) < 0)
		return refuse(r, opts);
	if (hi < lo)
		return refuse(r, opts);
	o->retry_min = (unsigned)lo;
	o->retry_max = (unsigned)hi;
	return 0;
}

/* PCP's interval syntax (pmParseInterval: "30", "30sec", "1min"), whole seconds. */
static int take_interval(const struct opt_row *r, const char *arg, uint64_t *v, pmdaOptions *opts)
{
	sdk_pmapi_time_t tv;
	char *msg = NULL, lo[24], hi[24];

	if (pmParseInterval(arg, &tv, &msg) < 0 || tv.tv_sec < (long long)r->min ||
	    (uint64_t)tv.tv_sec > r->max) {
		free(msg);
		snprintf(lo, sizeof(lo), "%llu", (unsigned long long)r->min);
		snprintf(hi, sizeof(hi), "%llu", (unsigned long long)r->max);
		sdk_opt_refuse(opts, r->lo.short_opt, r->what, lo, hi);
		return -1;
	}
	*v = (uint64_t)tv.tv_sec;
	return 0;
}

/*
 * "dimSpace,dimTime,dimCount,scaleSpace,scaleTime,scaleCount", each a
 * decimal integer that fits its pmUnits field (4 bits: the dimensions and
 * scaleCount -8..7, scaleSpace and scaleTime 0..15).
 */
static int take_units(const struct opt_row *r, const char *arg, pmUnits *u, pmdaOptions *opts)
{
	static const long long lo[6] = { -8, -8, -8, 0, 0, -8 }, hi[6] = { 7, 7, 7, 15, 15, 7 };
	long long v[6];
	char field[24];
	const char *p = arg;

	for (int i = 0; i < 6; i++) {
		size_t n = strcspn(p, ",");

		if (n >= sizeof(field) || (p[n] == ',') != (i < 5))
			goto bad;
		memcpy(field, p, n);
		field[n] = '\0';
		if (sdk_parse_integer(field, lo[i], hi[i], &v[i]) < 0)
			goto bad;
		p += n + (i < 5);
	}
	memset(u, 0, sizeof(*u));
	u->dimSpace = (int)v[0];
	u->dimTime = (int)v[1];
	u->dimCount = (int)v[2];
	u->scaleSpace = (unsigned)v[3];
	u->scaleTime = (unsigned)v[4];
	u->scaleCount = (int)v[5];
	return 0;
bad:
	fprintf(stderr, "%s: -%c needs six integers separated by commas: dimensions of space, "
		"time, count -8..7, scales of space, time 0..15, of count -8..7\n",
		pmGetProgname(), r->lo.short_opt);
	opts->errors++;
	return -1;
}

/* [insecure:][HOST:]PORT or off; the word says a listener off the loopback may go unprotected. */
static int take_addr(const struct opt_row *r, const char *arg, struct trace_addr *a,
		pmdaOptions *opts)
{
	int insecure = strncmp(arg, TRACE_INSECURE ":", sizeof(TRACE_INSECURE)) == 0;

	if (strcmp(arg, "off") == 0) {
		a->off = 1;
		return 0;
	}
	if (insecure)
		arg += sizeof(TRACE_INSECURE);
	if (otlp_parse_addr(arg, a->host, sizeof(a->host), &a->port) < 0) {
		fprintf(stderr, "%s: -%c needs [" TRACE_INSECURE ":][HOST:]PORT or off\n",
			pmGetProgname(), r->lo.short_opt);
		opts->errors++;
		return -1;
	}
	a->off = 0;
	a->insecure = insecure;
	return 0;
}

/* @arg for row @r into @o; 0, or -1 with the message printed and counted. */
static int take(const struct opt_row *r, const char *arg, struct trace_opts *o, pmdaOptions *opts)
{
	void *field = (char *)o + r->off;
	char why[256];

	switch (r->kind) {
	case OPT_COUNT:
		return take_count(r, arg, field, opts);
	case OPT_BYTES:
		if (sdk_parse_bytes(arg, r->min, r->max, field) < 0)
			return refuse(r, opts);
		return 0;
	case OPT_SECONDS_RANGE:
		return take_seconds_range(r, arg, o, opts);
	case OPT_INTERVAL:
		return take_interval(r, arg, field, opts);
	case OPT_UNITS:
		return take_units(r, arg, field, opts);
	case OPT_ADDR:
		return take_addr(r, arg, field, opts);
	case OPT_ACCESS:
		if (tra_access_add(o->access, arg, why, sizeof(why)) < 0) {
			fprintf(stderr, "%s: -A %s: %s\n", pmGetProgname(), arg, why);
			opts->errors++;
			return -1;
		}
		return 0;
	case OPT_STRING:
		*(const char **)field = arg;
		return 0;
	case OPT_ORIGINS:
		if (otlp_cors_check(arg, why, sizeof(why)) < 0) {
			fprintf(stderr, "%s: -%c needs origins separated by commas (%s)\n",
				pmGetProgname(), r->lo.short_opt, why);
			opts->errors++;
			return -1;
		}
		*(const char **)field = arg;
		return 0;
	default:
		opts->errors++;	/* PCP's options never get here */
		return -1;
	}
}

static const struct opt_row *row_of(int c)
{
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].kind != OPT_TEXT && rows[i].lo.short_opt == c)
			return &rows[i];
	return NULL;
}

/* -U is our units, not pmdaGetOptions's user name (PCP's pmdatrace too). */
static int override(int c, pmdaOptions *opts)
{
	(void)opts;
	return c == 'U';
}

/* The pmLongOptions array, the short option string and the help texts, from the rows. */
static void build(pmdaOptions *opts)
{
	static pmLongOptions longopts[NROWS + 1];
	static char shortopts[2 * NROWS + 1], help[NROWS][HELP_MAX];
	size_t n = 0;

	for (size_t i = 0; i < NROWS; i++) {
		const struct opt_row *r = &rows[i];

		longopts[i] = r->lo;
		if (r->dflt != NULL) {
			snprintf(help[i], HELP_MAX, "%s (default %s)", r->lo.message, r->dflt);
			longopts[i].message = help[i];
		}
		if (r->kind == OPT_TEXT)
			continue;
		shortopts[n++] = (char)r->lo.short_opt;
		if (r->lo.has_arg)
			shortopts[n++] = ':';
	}
	shortopts[n] = '\0';
	longopts[NROWS] = (pmLongOptions)PMDA_OPTIONS_END;
	opts->short_options = shortopts;
	opts->long_options = longopts;
	opts->override = override;
}

/* PCP_TRACE_PORT, read as -I is; a bad one is said and ignored, as PCP's agent starts anyway. */
static void env_port(struct trace_opts *o)
{
	const char *env = getenv(TRACE_ENV_PORT);
	long long v;

	if (env == NULL)
		return;
	if (sdk_parse_integer(env, 0, 65535, &v) == 0)
		o->port = (uint64_t)v;
	else
		fprintf(stderr, "%s: %s=%s is not a port number 0..65535: ignored\n",
			pmGetProgname(), TRACE_ENV_PORT, env);
}

void trace_opts_parse(int argc, char **argv, pmdaInterface *dispatch, struct trace_opts *o)
{
	static pmdaOptions opts;
	int c;

	memset(o, 0, sizeof(*o));
	if ((o->access = tra_access_new()) == NULL) {
		fprintf(stderr, "%s: no memory for the access list\n", pmGetProgname());
		exit(SDK_PMDA_EXIT_FAIL);
	}
	build(&opts);
	for (size_t i = 0; i < NROWS; i++)
		if (rows[i].dflt != NULL)
			take(&rows[i], rows[i].dflt, o, &opts);
	env_port(o);
	while ((c = pmdaGetOptions(argc, argv, &opts, dispatch)) != EOF) {
		const struct opt_row *r = row_of(c);

		if (r == NULL || r->kind == OPT_PCP)
			opts.errors++;
		else
			take(r, opts.optarg, o, &opts);
	}
	sdk_opts_done(&opts);
}
