/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - the trace agent's command line (pmdatrace(1),
 * docs/trace-protocol.md §8.4): PCP's pmdatrace options and ours, read
 * from one typed table in options.c into struct trace_opts.
 *
 * Threads: called once, by the main thread, before any other starts.
 */
#ifndef TRACE_OPTIONS_H
#define TRACE_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

struct access_list;

/*
 * A listener's address: -O's or -G's, [insecure:][HOST:]PORT or off.
 * The word allows an address off the loopback with no protection
 * (otlp/guard.h); the agent says in its log that it is unprotected.
 */
#define TRACE_INSECURE	"insecure"
struct trace_addr {
	int off;			/* "off" */
	int insecure;			/* "insecure:" came first */
	char host[256];			/* "": both loopbacks */
	uint16_t port;
};

/* Every value the command line sets; the defaults are options.c's table's. */
struct trace_opts {
	struct access_list *access;	/* -A, in order; never NULL after parsing */
	const char *user;		/* -M; NULL: PCP's user */
	uint64_t port;			/* -I, else PCP_TRACE_PORT, else TRACE_PORT */
	uint64_t buckets;		/* -N */
	uint64_t period;		/* -T, whole seconds */
	pmUnits observe_units;		/* -U */
	pmUnits counter_units;		/* -V */
	uint64_t max_clients;		/* -c */
	uint64_t max_tags;		/* -t; 0: no limit */
	uint64_t max_spans;		/* -S */
	struct trace_addr otlp_http;	/* -O */
	struct trace_addr otlp_grpc;	/* -G */
	const char *otlp_cors;		/* -C, origins allowed by CORS; NULL: no CORS */
	const char *otlp_token;		/* -a, the bearer token's file; NULL: none asked */
	const char *otlp_tls_cert;	/* -j, TLS's certificate chain; NULL: cleartext */
	const char *otlp_tls_key;	/* -J, its key */
	const char *otlp_tls_ca;	/* -K, client certificates' CA; NULL: none asked */
	uint64_t otlp_buffer;		/* -b, bytes of bodies buffered and decoding */
	uint64_t otlp_requests;		/* -Q, bodies being received at once; 0: no cap */
	unsigned retry_min, retry_max;	/* -R, Retry-After seconds */
	uint64_t otlp_idle;		/* -k, seconds an idle connection stays */
	uint64_t span_memory;		/* -B, the span table's bytes */
	uint64_t tag_memory;		/* -m, the PDU aggregation's bytes */
	uint64_t otel_metrics;		/* -X, OpenTelemetry metrics at most; 0: none taken */
	uint64_t otel_series;		/* -E, series a metric */
	uint64_t otel_memory;		/* -Y, the OpenTelemetry metrics' bytes */
	uint64_t otel_idle;		/* -W, seconds before an idle series leaves */
	const char *otel_state;		/* -P, the PMID state file; NULL: the default */
};

/*
 * trace_opts_parse - fill @o with the defaults, the PCP_TRACE_PORT
 * environment variable (a port number; anything else is reported on
 * stderr and ignored) and the options of @argv, read through
 * pmdaGetOptions for @dispatch (which takes -D, -d and -l itself). On any
 * bad option: a message naming it, the usage message and exit with
 * SDK_PMDA_EXIT_FAIL; also on no memory for the access list.
 */
void trace_opts_parse(int argc, char **argv, pmdaInterface *dispatch, struct trace_opts *o);

#endif
