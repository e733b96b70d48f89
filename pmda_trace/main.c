/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_trace: the trace agent. A daemon PMDA (pipe to pmcd) whose I/O
 * thread serves trace clients while the main thread answers pmcd.
 * Options are PCP's pmdatrace options (docs/trace-protocol.md §8.4) and
 * ours, read by options.c; -O, -G and the OTLP ones configure the OTLP
 * receiver: its sink (otlp/sink.h), the OTLP/HTTP transport's thread
 * (otlp/http.h) and the OTLP/gRPC one's (otlp/grpc.h,
 * docs/trace-protocol.md §12).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <pcp/trace_dev.h>

#include <unistd.h>

#include "core/access.h"
#include "core/listener.h"
#include "core/spans.h"
#include "otlp/grpc.h"
#include "otlp/guard.h"
#include "otlp/tls.h"
#include "otlp/http.h"
#include "options.h"
#include "trace_pmda.h"
#include "pmda_options.h"

/* The client listener's lines: problems with clients. */
static void log_line(const char *msg)
{
	pmNotifyErr(LOG_WARNING, "%s", msg);
}

/* The OTLP receiver's lines, at the priority it gives. */
static void log_otlp(int pri, const char *msg)
{
	pmNotifyErr(pri, "%s", msg);
}

/* The OTLP receiver's sink from the options (one for every transport). */
static void fail(const char *what, const char *why)
{
	pmNotifyErr(LOG_ERR, "cannot set up %s: %s", what, why);
	exit(SDK_PMDA_EXIT_FAIL);
}

/*
 * The OpenTelemetry metrics store (trace.otel.*); NULL with -X 0. Its
 * PMIDs are kept in -P's file, by default next to PCP's own agents'
 * instance caches.
 */
static struct otel_store *otel_of(const struct trace_opts *o, unsigned domain)
{
	char state[MAXPATHLEN];
	struct otel_cfg cfg = {
		.domain = domain,
		.state = o->otel_state,
		.max_bytes = (size_t)o->otel_memory,
		.max_metrics = (size_t)o->otel_metrics,
		.max_series = (size_t)o->otel_series,
		.idle_sec = (unsigned)o->otel_idle,
		.log = log_otlp,
	};
	struct otel_store *s;

	if (o->otel_metrics == 0)
		return NULL;
	if (cfg.state == NULL) {
		snprintf(state, sizeof(state), "%s/config/pmda/trace.otel", pmGetConfig("PCP_VAR_DIR"));
		cfg.state = state;
	}
	if ((s = otel_store_new(&cfg)) == NULL)
		fail("the OpenTelemetry metrics", strerror(errno));
	return s;
}

static struct otlp_sink *otlp_sink_of(const struct trace_opts *o, struct tra_spans *spans,
		struct otel_store *metrics, struct otlp_stats *stats)
{
	struct otlp_sink_cfg cfg = {
		.spans = spans,
		.metrics = metrics,
		.buf_max = (size_t)o->otlp_buffer,
		.max_inflight = (unsigned)o->otlp_requests,
		.retry_min = o->retry_min,
		.retry_max = o->retry_max,
		.stats = stats,
		.log = log_otlp,
	};

	return otlp_sink_new(&cfg);
}

/*
 * The OTLP receiver's protections (otlp/guard.h): the bearer token read
 * from -a's file (as the agent's user, after the switch to it), a
 * restrictive access list. The agent stops on a token file it cannot
 * trust or read.
 */
static unsigned protections(const struct trace_opts *o, struct otlp_token *token,
		struct otlp_tls **tls)
{
	unsigned bits = 0;
	char why[512];

	*tls = NULL;
	if ((o->otlp_tls_key || o->otlp_tls_ca) && !o->otlp_tls_cert)
		fail("OTLP's TLS (-J, -K)", "give the certificate too (-j FILE)");
	if (o->otlp_tls_cert && !o->otlp_tls_key)
		fail("OTLP's TLS (-j)", "give the certificate's key too (-J FILE)");
	if (o->otlp_tls_cert) {
		/* never cleartext in its place: the listeners do not start */
		if (otlp_tls_load(o->otlp_tls_cert, o->otlp_tls_key, o->otlp_tls_ca, tls,
				  why, sizeof(why)) < 0)
			fail("OTLP's TLS certificate (-j, -J, -K)", why);
		bits |= OTLP_PROTECT_TLS;
	}
	if (o->otlp_token) {
		if (otlp_token_load(o->otlp_token, geteuid(), token, why, sizeof(why)) < 0)
			fail("the OTLP bearer token (-a)", why);
		bits |= OTLP_PROTECT_TOKEN;
	}
	if (tra_access_restricts(o->access))
		bits |= OTLP_PROTECT_ACCESS;
	return bits;
}

/*
 * A listener off the loopback needs a protection or the word insecure
 * (-O insecure:HOST:PORT); without either the agent does not start.
 * Each listener's protection is said in the log.
 */
static void check_exposure(const char *what, char opt, const struct trace_addr *a, unsigned bits)
{
	char prot[128];
	const char *host = a->host[0] ? a->host : "127.0.0.1 and ::1";
	int v6;

	if (a->off)
		return;
	otlp_protection_text(bits, prot, sizeof(prot));
	if (otlp_host_is_loopback(a->host)) {
		pmNotifyErr(LOG_INFO, "%s on %s (loopback); protection: %s", what, host, prot);
		return;
	}
	if (bits) {
		pmNotifyErr(LOG_INFO, "%s on %s, off the loopback; protection: %s", what, host, prot);
		return;
	}
	if (a->insecure) {
		pmNotifyErr(LOG_WARNING, "%s on %s, off the loopback, UNPROTECTED (-%c %s:): anyone "
			    "who reaches it may send spans and metrics", what, host, opt,
			    TRACE_INSECURE);
		return;
	}
	v6 = strchr(a->host, ':') != NULL;
	pmNotifyErr(LOG_ERR, "refusing to listen for %s on %s, off the loopback, with no "
		    "protection: give an access list that refuses the rest (-A allow:HOST:N "
		    "-A disallow:*), a bearer token (-a FILE), TLS (-j FILE -J FILE), or -%c %s:%s%s%s:%u to run it "
		    "unprotected", what, host, opt, TRACE_INSECURE, v6 ? "[" : "", a->host,
		    v6 ? "]" : "", a->port);
	exit(SDK_PMDA_EXIT_FAIL);
}

/* The OTLP/HTTP transport; NULL when off or failed (logged once). */
static struct otlp_http *start_http(const struct trace_opts *o, struct otlp_sink *sink,
		const struct otlp_token *token, const struct otlp_tls *tls)
{
	struct otlp_http_cfg cfg = {
		.host = o->otlp_http.host,
		.port = o->otlp_http.port,
		.sink = sink,
		.timeout_sec = (unsigned)o->otlp_idle,
		.cors = o->otlp_cors,
		.access = o->access,
		.token = token,
		.tls = tls,
		.log = log_otlp,
	};

	return o->otlp_http.off ? NULL : otlp_http_start(&cfg);
}

/* The OTLP/gRPC transport; NULL when off or failed (logged once). */
static struct otlp_grpc *start_grpc(const struct trace_opts *o, struct otlp_sink *sink,
		const struct otlp_token *token, const struct otlp_tls *tls)
{
	struct otlp_grpc_cfg cfg = {
		.host = o->otlp_grpc.host,
		.port = o->otlp_grpc.port,
		.sink = sink,
		.timeout_sec = (unsigned)o->otlp_idle,
		.access = o->access,
		.token = token,
		.tls = tls,
		.log = log_otlp,
	};

	return o->otlp_grpc.off ? NULL : otlp_grpc_start(&cfg);
}

int main(int argc, char **argv)
{
	static pmdaInterface dispatch;
	static struct trace_pmda t;
	static struct trace_opts o;
	static struct otlp_token token;
	struct otlp_tls *tls;
	struct trace_listener_cfg cfg = { 0 };
	struct trace_listener *l;
	struct otlp_sink *sink;
	struct otlp_http *http;
	struct otlp_grpc *grpc;
	unsigned prot;
	char *user;

	pmSetProgname(argv[0]);
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, (char *)pmGetProgname(), TRACE_DOMAIN,
		   "trace.log", NULL);
	trace_opts_parse(argc, argv, &dispatch, &o);
	t.period = (unsigned)o.period;
	t.buckets = (unsigned)o.buckets;
	t.observe_units = o.observe_units;
	t.counter_units = o.counter_units;
	t.port_shown = (unsigned)o.port;
	pmdaOpenLog(&dispatch);
	user = (char *)o.user;
	if (user || pmGetUsername(&user) > 0)
		pmSetProcessIdentity(user);
	prot = protections(&o, &token, &tls);
	check_exposure("OTLP/HTTP", 'O', &o.otlp_http, prot);
	check_exposure("OTLP/gRPC", 'G', &o.otlp_grpc, prot);

	rcu_register_thread();
	if ((t.agg = tra_agg_new(t.period, t.buckets, (size_t)o.max_tags, NULL, NULL)) == NULL)
		fail("aggregation", strerror(errno));
	tra_agg_set_budget(t.agg, (size_t)o.tag_memory, NULL, 0);
	t.spans = tra_spans_new(t.period, t.buckets, (size_t)o.max_spans, (size_t)o.span_memory,
			(uint64_t)TRA_SPAN_IDLE_PERIODS * t.buckets, NULL, NULL);
	if (t.spans == NULL)
		fail("the span table", strerror(errno));
	cfg.port = (uint16_t)o.port;
	cfg.max_clients = (unsigned)o.max_clients;
	/* the trace port's own copy: its counts change on its thread while
	 * the OTLP listeners copy o.access on this one */
	if ((cfg.access = tra_access_dup(o.access)) == NULL)
		fail("the access list", strerror(ENOMEM));
	cfg.agg = t.agg;
	cfg.log = log_line;
	if ((l = tra_listener_start(&cfg)) == NULL) {
		pmNotifyErr(LOG_ERR, "cannot listen on port %u: %s", cfg.port, strerror(errno));
		exit(SDK_PMDA_EXIT_FAIL);
	}
	pmNotifyErr(LOG_INFO, "listening for trace clients on port %u", tra_listener_port(l));
	t.metrics = otel_of(&o, (unsigned)dispatch.domain);
	if ((sink = otlp_sink_of(&o, t.spans, t.metrics, &t.otlp_stats)) == NULL)
		fail("the OTLP receiver", strerror(errno));
	http = start_http(&o, sink, prot & OTLP_PROTECT_TOKEN ? &token : NULL, tls);
	grpc = start_grpc(&o, sink, prot & OTLP_PROTECT_TOKEN ? &token : NULL, tls);
	/* the agent runs on without either */
	trace_pmda_init(&dispatch, &t);
	if (dispatch.status != 0)
		fail("the metric table", pmErrStr(dispatch.status));
	pmdaConnect(&dispatch);
	pmdaMain(&dispatch);	/* returns when pmcd goes away */
	otlp_grpc_stop(grpc);
	otlp_http_stop(http);
	otlp_tls_free(tls);
	otlp_sink_free(sink);
	if (t.metrics)
		otel_store_free(t.metrics);
	tra_listener_stop(l);
	tra_access_free(cfg.access);
	exit(SDK_PMDA_EXIT_DONE);
}
