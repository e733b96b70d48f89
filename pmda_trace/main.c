/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_trace: the trace agent. A daemon PMDA (pipe to pmcd) whose I/O
 * thread serves trace clients while the main thread answers pmcd.
 * Options are PCP's pmdatrace options (docs/trace-protocol.md §8.4) and
 * ours: -O and -S for the OTLP/HTTP receiver's thread (otlp/http.h,
 * docs/trace-protocol.md §12).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <pcp/trace_dev.h>

#include "core/listener.h"
#include "core/spans.h"
#include "otlp/http.h"
#include "trace_pmda.h"
#include "pmda_options.h"

static pmLongOptions longopts[] = {
	PMDA_OPTIONS_HEADER("Options"),
	{ "access", 1, 'A', "SPEC", "host access control: allow:HOST:MAXCONN or disallow:HOST" },
	PMDAOPT_DEBUG,
	PMDAOPT_DOMAIN,
	{ "port", 1, 'I', "PORT", "listen for trace clients on this port" },
	PMDAOPT_LOGFILE,
	{ "user", 1, 'M', "USER", "run the agent as this user" },
	{ "buckets", 1, 'N', "N", "number of sub-intervals of the period (default 5)" },
	{ "period", 1, 'T', "TIME", "rolling window period (default 60 seconds)" },
	{ "units", 1, 'U', "UNITS", "units of trace.observe.value: six integers" },
	{ "counter-units", 1, 'V', "UNITS", "units of trace.counter.value: six integers" },
	{ "max-clients", 1, 'c', "N", "most trace clients connected at once (default 1024)" },
	{ "max-tags", 1, 't', "N", "most tags of each kind, 0 for no limit (default 100000)" },
	{ "otlp", 1, 'O', "[HOST:]PORT", "OTLP/HTTP receiver address, or off (default 127.0.0.1:4318)" },
	{ "max-spans", 1, 'S', "N", "most span instances, besides the overflow one (default 10000)" },
	PMOPT_HELP,
	PMDA_OPTIONS_END
};

static pmdaOptions opts = {
	.short_options = "A:c:D:d:I:l:M:N:O:S:t:T:U:V:?",
	.long_options = longopts,
};

static void log_line(const char *msg)
{
	pmNotifyErr(LOG_WARNING, "%s", msg);
}

/* "dimSpace,dimTime,dimCount,scaleSpace,scaleTime,scaleCount" */
static int parse_units(const char *s, pmUnits *u)
{
	int v[6];

	if (sscanf(s, "%d,%d,%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	memset(u, 0, sizeof(*u));
	u->dimSpace = v[0];
	u->dimTime = v[1];
	u->dimCount = v[2];
	u->scaleSpace = (unsigned)v[3];
	u->scaleTime = (unsigned)v[4];
	u->scaleCount = v[5];
	return 0;
}

/* A port number, the whole string; -1 otherwise. */
static long parse_port(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	return (*s && *end == '\0' && !errno && v >= 0 && v <= 65535) ? v : -1;
}

int main(int argc, char **argv)
{
	static pmdaInterface dispatch;
	static struct trace_pmda t = { .period = 60, .buckets = 5 };
	struct trace_listener_cfg cfg = { .port = TRACE_PORT, .max_clients = 1024 };
	struct trace_listener *l;
	struct otlp_http_cfg ocfg = { .port = OTLP_HTTP_PORT };
	struct otlp_http *otlp = NULL;
	char ohost[256] = OTLP_HTTP_HOST;
	int otlp_off = 0;
	size_t max_spans = TRA_SPAN_CAP_DEFAULT;
	const char *env = getenv(TRACE_ENV_PORT);
	size_t max_tags = 100000;
	char *user = NULL, why[256];
	int c;

	pmSetProgname(argv[0]);
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, (char *)pmGetProgname(), TRACE_DOMAIN,
		   "trace.log", NULL);
	cfg.access = tra_access_new();
	if (env && parse_port(env) >= 0)
		cfg.port = (uint16_t)parse_port(env);

	while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF) {
		switch (c) {
		case 'A':
			if (tra_access_add(cfg.access, opts.optarg, why, sizeof(why)) < 0) {
				fprintf(stderr, "%s: -A %s: %s\n", pmGetProgname(), opts.optarg, why);
				opts.errors++;
			}
			break;
		case 'c':
			cfg.max_clients = (unsigned)sdk_opt_number(&opts, c, 1, 1000000, 1,
					"clients");
			break;
		case 't':
			/* a client inventing tags without end must not exhaust memory */
			max_tags = (size_t)sdk_opt_number(&opts, c, 0, 100000000, 1, "tags");
			break;
		case 'O':
			if (strcmp(opts.optarg, "off") == 0) {
				otlp_off = 1;
			} else if (otlp_parse_addr(opts.optarg, ohost, sizeof(ohost), &ocfg.port) < 0) {
				fprintf(stderr, "%s: -O needs [HOST:]PORT or off\n", pmGetProgname());
				opts.errors++;
			} else {
				otlp_off = 0;
				if (ohost[0] == '\0')
					strcpy(ohost, OTLP_HTTP_HOST);
			}
			break;
		case 'S':
			max_spans = (size_t)sdk_opt_number(&opts, c, 1, 100000000, 1, "span instances");
			break;
		case 'I':
			/* PCP binds a random port for a non-number; we refuse it */
			if (parse_port(opts.optarg) < 0) {
				fprintf(stderr, "%s: -I needs a port number\n", pmGetProgname());
				opts.errors++;
			} else {
				cfg.port = (uint16_t)parse_port(opts.optarg);
			}
			break;
		case 'M':
			user = opts.optarg;
			break;
		case 'N': {
			char *end;
			long n = strtol(opts.optarg, &end, 10);

			if (*end || n < 1 || n > 1000000) {
				fprintf(stderr, "%s: -N requires a positive number.\n", pmGetProgname());
				opts.errors++;
			} else {
				t.buckets = (unsigned)n;
			}
			break;
		}
		case 'T': {
			sdk_pmapi_time_t tv;
			char *msg;

			if (pmParseInterval(opts.optarg, &tv, &msg) < 0 || tv.tv_sec < 1) {
				fprintf(stderr, "%s: -T requires a time interval of at least a second\n",
					pmGetProgname());
				opts.errors++;
			} else {
				t.period = (unsigned)tv.tv_sec;
			}
			break;
		}
		case 'U':
		case 'V':
			if (parse_units(opts.optarg, c == 'U' ? &t.observe_units : &t.counter_units) < 0) {
				fprintf(stderr, "%s: -%c: token parse error\n", pmGetProgname(), c);
				opts.errors++;
			}
			break;
		default:
			opts.errors++;
			break;
		}
	}
	sdk_opts_done(&opts);
	t.port_shown = cfg.port;
	pmdaOpenLog(&dispatch);
	if (user || pmGetUsername(&user) > 0)
		pmSetProcessIdentity(user);

	rcu_register_thread();
	if ((t.agg = tra_agg_new(t.period, t.buckets, max_tags, NULL, NULL)) == NULL) {
		pmNotifyErr(LOG_ERR, "cannot set up aggregation: %s", strerror(errno));
		exit(SDK_PMDA_EXIT_FAIL);
	}
	t.spans = tra_spans_new(t.period, t.buckets, max_spans, 0,
			(uint64_t)TRA_SPAN_IDLE_PERIODS * t.buckets, NULL, NULL);
	if (t.spans == NULL) {
		pmNotifyErr(LOG_ERR, "cannot set up the span table: %s", strerror(errno));
		exit(SDK_PMDA_EXIT_FAIL);
	}
	cfg.agg = t.agg;
	cfg.log = log_line;
	if ((l = tra_listener_start(&cfg)) == NULL) {
		pmNotifyErr(LOG_ERR, "cannot listen on port %u: %s", cfg.port, strerror(errno));
		exit(SDK_PMDA_EXIT_FAIL);
	}
	pmNotifyErr(LOG_INFO, "listening for trace clients on port %u", tra_listener_port(l));
	if (!otlp_off) {
		/* a port taken (or any failure) is logged once; the agent runs on without it */
		ocfg.host = ohost;
		ocfg.spans = t.spans;
		ocfg.log = log_line;
		otlp = otlp_http_start(&ocfg);
	}
	trace_pmda_init(&dispatch, &t);
	if (dispatch.status != 0) {
		pmNotifyErr(LOG_ERR, "cannot set up the metric table: %s",
				pmErrStr(dispatch.status));
		exit(SDK_PMDA_EXIT_FAIL);
	}
	pmdaConnect(&dispatch);
	pmdaMain(&dispatch);	/* returns when pmcd goes away */
	otlp_http_stop(otlp);
	tra_listener_stop(l);
	exit(SDK_PMDA_EXIT_DONE);
}
