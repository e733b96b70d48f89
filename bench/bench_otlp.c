/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_otlp: an OTLP/HTTP load generator for the trace agent's receiver
 * (docs/trace-protocol.md §12; bench/run-otlp.sh runs it).
 *
 *   bench_otlp load PORT AGENTPID ENC CONNS SECONDS
 *       ENC: proto | json | gzip (protobuf, gzip'd). Pre-encodes 64
 *       distinct ExportTraceServiceRequests of 512 spans each (the SDK's
 *       batch: one resource, 2 services x 50 span names over the set, a
 *       few string attributes, 16-byte trace and 8-byte span IDs,
 *       durations log-uniform from 10 us to 10 s, 1 % errors), then sends
 *       them for SECONDS over CONNS keep-alive HTTP/1.1 connections (one
 *       thread each, Content-Length bodies), each waiting for the answer
 *       before its next request.
 *   bench_otlp names PORT AGENTPID N ROUNDS
 *       ROUNDS spans for each of N distinct SERVICE/SPAN names (100
 *       services), 512 spans a request over one connection: the agent's
 *       memory at N instances.
 *
 * Prints "key value" lines: spans/s, request times (p50, p99, max, ms),
 * non-200 answers, answers with partial_success, the agent's CPU
 * (utime + stime from /proc/AGENTPID/stat, before and after) per span in
 * ns, its VmRSS and VmHWM (KiB) before and after.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <zlib.h>

#include "otlp_trace.pb-c.h"

#define BATCH		512	/* spans a request: the SDK's default batch */
#define NBODIES		64	/* distinct bodies, sent round robin */
#define NSERVICES	2
#define NNAMES		50
#define MAXLAT		(1 << 22)	/* request times kept per connection */

typedef Opentelemetry__Proto__Trace__V1__ExportTraceServiceRequest Req;
typedef Opentelemetry__Proto__Trace__V1__ResourceSpans RSpans;
typedef Opentelemetry__Proto__Trace__V1__ScopeSpans SSpans;
typedef Opentelemetry__Proto__Trace__V1__Span Span;
typedef Opentelemetry__Proto__Trace__V1__KeyValue KV;
typedef Opentelemetry__Proto__Trace__V1__AnyValue AnyValue;
typedef Opentelemetry__Proto__Trace__V1__Resource Resource;
typedef Opentelemetry__Proto__Trace__V1__InstrumentationScope Scope;
typedef Opentelemetry__Proto__Trace__V1__Status Status;

struct body {
	char *data;
	size_t len;
};

static const char *const services[NSERVICES] = { "frontend", "checkout-service" };
static const char *const verbs[] = { "GET", "POST", "PUT", "DELETE", "PATCH" };
static const char *const things[] = { "cart", "product", "user", "order", "payment",
	"inventory", "session", "review", "shipment", "coupon" };

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

static void *xmalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (p == NULL) {
		perror("bench_otlp: calloc");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xmalloc(strlen(s) + 1), s);
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static KV *kv_str(const char *key, const char *val)
{
	KV *kv = xmalloc(sizeof(*kv));
	AnyValue *v = xmalloc(sizeof(*v));

	opentelemetry__proto__trace__v1__key_value__init(kv);
	opentelemetry__proto__trace__v1__any_value__init(v);
	kv->key = xstrdup(key);
	v->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_STRING_VALUE;
	v->string_value = xstrdup(val);
	kv->value = v;
	return kv;
}

static KV *kv_int(const char *key, int64_t val)
{
	KV *kv = kv_str(key, "");

	free(kv->value->string_value);
	kv->value->value_case = OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_INT_VALUE;
	kv->value->int_value = val;
	return kv;
}

static void rand_bytes(ProtobufCBinaryData *b, size_t n)
{
	b->len = n;
	b->data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		b->data[i] = (uint8_t)rnd();
}

/*
 * One request: BATCH spans of @service, named @names[i % @nnames] in turn,
 * or at random among the benchmark's 50 when @names is NULL.
 */
static Req *build_req(const char *service, const char *const *names, size_t nnames,
		uint64_t base_ns)
{
	Req *req = xmalloc(sizeof(*req));
	RSpans *rs = xmalloc(sizeof(*rs));
	SSpans *ss = xmalloc(sizeof(*ss));
	Resource *res = xmalloc(sizeof(*res));
	Scope *scope = xmalloc(sizeof(*scope));
	char name[128];

	opentelemetry__proto__trace__v1__export_trace_service_request__init(req);
	opentelemetry__proto__trace__v1__resource_spans__init(rs);
	opentelemetry__proto__trace__v1__scope_spans__init(ss);
	opentelemetry__proto__trace__v1__resource__init(res);
	opentelemetry__proto__trace__v1__instrumentation_scope__init(scope);
	/* the resource the Node SDK sends */
	res->n_attributes = 5;
	res->attributes = xmalloc(5 * sizeof(KV *));
	res->attributes[0] = kv_str("service.name", service);
	res->attributes[1] = kv_str("telemetry.sdk.language", "nodejs");
	res->attributes[2] = kv_str("telemetry.sdk.name", "opentelemetry");
	res->attributes[3] = kv_str("telemetry.sdk.version", "2.12.1");
	res->attributes[4] = kv_str("host.name", "bench-host");
	rs->resource = res;
	scope->name = xstrdup("bench-otlp");
	scope->version = xstrdup("1.0.0");
	ss->scope = scope;
	ss->n_spans = BATCH;
	ss->spans = xmalloc(BATCH * sizeof(Span *));
	for (size_t i = 0; i < BATCH; i++) {
		Span *sp = xmalloc(sizeof(*sp));
		Status *st = xmalloc(sizeof(*st));
		unsigned k = names ? (unsigned)(i % nnames) : (unsigned)(rnd() % NNAMES);
		double secs = 1e-5 * pow(1e6, rnd01());	/* 10 us .. 10 s, log-uniform */
		uint64_t start = base_ns + (uint64_t)(rnd01() * 1e9);

		opentelemetry__proto__trace__v1__span__init(sp);
		opentelemetry__proto__trace__v1__status__init(st);
		rand_bytes(&sp->trace_id, 16);
		rand_bytes(&sp->span_id, 8);
		if (rnd() % 2)
			rand_bytes(&sp->parent_span_id, 8);
		sp->flags = 1;
		if (names) {
			snprintf(name, sizeof(name), "%s", names[k]);
		} else {
			snprintf(name, sizeof(name), "%s %s", verbs[k % 5], things[k / 5]);
		}
		sp->name = xstrdup(name);
		sp->kind = (Opentelemetry__Proto__Trace__V1__Span__SpanKind)(1 + k % 3);
		sp->start_time_unix_nano = start;
		sp->end_time_unix_nano = start + (uint64_t)(secs * 1e9);
		sp->n_attributes = 4;
		sp->attributes = xmalloc(4 * sizeof(KV *));
		sp->attributes[0] = kv_str("http.request.method", verbs[k % 5]);
		snprintf(name, sizeof(name), "/api/v1/%s/{id}", things[k / 5 % 10]);
		sp->attributes[1] = kv_str("http.route", name);
		sp->attributes[2] = kv_str("server.address", "shop.example.com");
		sp->attributes[3] = kv_int("http.response.status_code", rnd() % 100 ? 200 : 500);
		st->code = rnd() % 100 ? OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_UNSET
				       : OPENTELEMETRY__PROTO__TRACE__V1__STATUS__STATUS_CODE__STATUS_CODE_ERROR;
		sp->status = st;
		ss->spans[i] = sp;
	}
	rs->n_scope_spans = 1;
	rs->scope_spans = xmalloc(sizeof(SSpans *));
	rs->scope_spans[0] = ss;
	req->n_resource_spans = 1;
	req->resource_spans = xmalloc(sizeof(RSpans *));
	req->resource_spans[0] = rs;
	return req;
}

/* A growing text buffer for the JSON encoding. */
struct sbuf {
	char *p;
	size_t len, cap;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
		if ((size_t)n < b->cap - b->len)
			break;
		b->cap = b->cap ? 2 * b->cap + (size_t)n : 65536;
		if ((b->p = realloc(b->p, b->cap)) == NULL) {
			perror("bench_otlp: realloc");
			exit(1);
		}
	}
	b->len += (size_t)n;
}

static void sb_hex(struct sbuf *b, const ProtobufCBinaryData *d)
{
	sb_add(b, "\"");
	for (size_t i = 0; i < d->len; i++)
		sb_add(b, "%02x", d->data[i]);
	sb_add(b, "\"");
}

/* names here carry no character JSON must escape */
static void sb_kvs(struct sbuf *b, KV **kv, size_t n)
{
	sb_add(b, "\"attributes\":[");
	for (size_t i = 0; i < n; i++) {
		if (kv[i]->value->value_case == OPENTELEMETRY__PROTO__TRACE__V1__ANY_VALUE__VALUE_INT_VALUE)
			sb_add(b, "%s{\"key\":\"%s\",\"value\":{\"intValue\":\"%lld\"}}", i ? "," : "",
			       kv[i]->key, (long long)kv[i]->value->int_value);
		else
			sb_add(b, "%s{\"key\":\"%s\",\"value\":{\"stringValue\":\"%s\"}}", i ? "," : "",
			       kv[i]->key, kv[i]->value->string_value);
	}
	sb_add(b, "]");
}

/* OTLP's JSON mapping of @req, as the SDK's JSON exporter writes it */
static struct body to_json(const Req *req)
{
	struct sbuf b = { 0 };
	const RSpans *rs = req->resource_spans[0];
	const SSpans *ss = rs->scope_spans[0];

	sb_add(&b, "{\"resourceSpans\":[{\"resource\":{");
	sb_kvs(&b, rs->resource->attributes, rs->resource->n_attributes);
	sb_add(&b, ",\"droppedAttributesCount\":0},\"scopeSpans\":[{\"scope\":{\"name\":\"%s\","
	       "\"version\":\"%s\"},\"spans\":[", ss->scope->name, ss->scope->version);
	for (size_t i = 0; i < ss->n_spans; i++) {
		const Span *sp = ss->spans[i];

		sb_add(&b, "%s{\"traceId\":", i ? "," : "");
		sb_hex(&b, &sp->trace_id);
		sb_add(&b, ",\"spanId\":");
		sb_hex(&b, &sp->span_id);
		if (sp->parent_span_id.len) {
			sb_add(&b, ",\"parentSpanId\":");
			sb_hex(&b, &sp->parent_span_id);
		}
		sb_add(&b, ",\"name\":\"%s\",\"kind\":%d,\"startTimeUnixNano\":\"%llu\","
		       "\"endTimeUnixNano\":\"%llu\",", sp->name, (int)sp->kind,
		       (unsigned long long)sp->start_time_unix_nano,
		       (unsigned long long)sp->end_time_unix_nano);
		sb_kvs(&b, sp->attributes, sp->n_attributes);
		sb_add(&b, ",\"droppedAttributesCount\":0,\"events\":[],\"droppedEventsCount\":0,"
		       "\"status\":{\"code\":%d},\"links\":[],\"droppedLinksCount\":0,\"flags\":1}",
		       (int)sp->status->code);
	}
	sb_add(&b, "]}]}]}");
	return (struct body){ b.p, b.len };
}

static struct body to_proto(const Req *req)
{
	struct body b;

	b.len = opentelemetry__proto__trace__v1__export_trace_service_request__get_packed_size(req);
	b.data = xmalloc(b.len);
	opentelemetry__proto__trace__v1__export_trace_service_request__pack(req, (uint8_t *)b.data);
	return b;
}

static struct body gzipped(struct body in)
{
	z_stream z = { 0 };
	struct body out;

	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		exit(1);
	out.len = deflateBound(&z, in.len) + 32;
	out.data = xmalloc(out.len);
	z.next_in = (Bytef *)in.data;
	z.avail_in = (uInt)in.len;
	z.next_out = (Bytef *)out.data;
	z.avail_out = (uInt)out.len;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		exit(1);
	out.len = z.total_out;
	deflateEnd(&z);
	free(in.data);
	return out;
}

/* ---- the agent's CPU and memory ---- */

static double agent_cpu_sec(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut = 0, st = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	/* after the command's ')': state is field 3, utime 14, stime 15 */
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static long agent_kib(int pid, const char *key)
{
	char path[64], line[256];
	size_t n = strlen(key);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* ---- HTTP ---- */

static int port;
static const char *ctype = "application/x-protobuf";
static const char *cenc = "";
static struct body *bodies;
static size_t nbodies;
static double deadline;
static int once;		/* send each body once, in order (names) */

struct conn {
	pthread_t t;
	unsigned id;
	size_t requests, non200, partial, errors;
	size_t nlat;
	double *lat;
};

static int dial(void)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("bench_otlp: connect");
		exit(1);
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* Reads one answer; returns its status (-1: the connection failed), *@partial its body's size. */
static int read_answer(int fd, char *buf, size_t cap, size_t *blen)
{
	size_t have = 0, need;
	char *end, *cl;
	int status;

	for (;;) {
		ssize_t r = read(fd, buf + have, cap - 1 - have);

		if (r <= 0)
			return -1;
		have += (size_t)r;
		buf[have] = '\0';
		if ((end = strstr(buf, "\r\n\r\n")) != NULL)
			break;
		if (have == cap - 1)
			return -1;
	}
	if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
		return -1;
	*blen = 0;
	if ((cl = strcasestr(buf, "\r\nContent-Length:")) != NULL && cl < end)
		*blen = strtoul(cl + 17, NULL, 10);
	need = (size_t)(end + 4 - buf) + *blen;
	if (need >= cap)
		return -1;
	while (have < need) {
		ssize_t r = read(fd, buf + have, cap - 1 - have);

		if (r <= 0)
			return -1;
		have += (size_t)r;
	}
	return status;
}

static void *run_conn(void *arg)
{
	struct conn *c = arg;
	char head[512], ans[8192];
	size_t i = once ? 0 : c->id * 7;
	int fd = dial();

	while (once ? i < nbodies : now_sec() < deadline) {
		const struct body *b = &bodies[i++ % nbodies];
		struct iovec iov[2];
		size_t blen;
		double t0;
		int st, n;

		n = snprintf(head, sizeof(head), "POST /v1/traces HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
			     "User-Agent: bench_otlp\r\nContent-Type: %s\r\n%sContent-Length: %zu\r\n\r\n",
			     port, ctype, cenc, b->len);
		iov[0] = (struct iovec){ head, (size_t)n };
		iov[1] = (struct iovec){ b->data, b->len };
		t0 = now_sec();
		if (write_all(fd, iov, 2) < 0 || (st = read_answer(fd, ans, sizeof(ans), &blen)) < 0) {
			c->errors++;
			close(fd);
			fd = dial();
			continue;
		}
		if (c->nlat < MAXLAT)
			c->lat[c->nlat++] = now_sec() - t0;
		c->requests++;
		if (st != 200)
			c->non200++;
		else if (blen > 2)	/* neither empty nor "{}": a partial_success */
			c->partial++;
	}
	close(fd);
	return NULL;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(struct conn *cs, unsigned nc, double secs, int pid, double cpu0,
		long rss0, long hwm0)
{
	size_t req = 0, non200 = 0, partial = 0, errors = 0, nlat = 0, k = 0;
	double cpu1 = agent_cpu_sec(pid), *lat;

	for (unsigned i = 0; i < nc; i++) {
		req += cs[i].requests;
		non200 += cs[i].non200;
		partial += cs[i].partial;
		errors += cs[i].errors;
		nlat += cs[i].nlat;
	}
	lat = xmalloc((nlat + 1) * sizeof(double));
	for (unsigned i = 0; i < nc; i++)
		for (size_t j = 0; j < cs[i].nlat; j++)
			lat[k++] = cs[i].lat[j];
	qsort(lat, nlat, sizeof(double), cmp_dbl);
	printf("connections %u\n", nc);
	printf("seconds %.3f\n", secs);
	printf("requests %zu\n", req);
	printf("spans %zu\n", (req - non200) * BATCH);
	printf("spans_per_sec %.0f\n", (double)(req - non200) * BATCH / secs);
	printf("body_bytes %zu\n", bodies[0].len);
	if (nlat) {
		printf("p50_ms %.3f\n", 1e3 * lat[(nlat - 1) / 2]);
		printf("p99_ms %.3f\n", 1e3 * lat[(size_t)((double)(nlat - 1) * 0.99)]);
		printf("max_ms %.3f\n", 1e3 * lat[nlat - 1]);
	}
	printf("non200 %zu\n", non200);
	printf("partial %zu\n", partial);
	printf("conn_errors %zu\n", errors);
	if (cpu0 >= 0 && cpu1 >= 0 && req > non200) {
		printf("agent_cpu_sec %.2f\n", cpu1 - cpu0);
		printf("agent_cpu_ns_per_span %.0f\n", (cpu1 - cpu0) * 1e9 / ((double)(req - non200) * BATCH));
		printf("agent_cpu_util %.2f\n", (cpu1 - cpu0) / secs);
	}
	printf("rss_kib_before %ld\n", rss0);
	printf("rss_kib_after %ld\n", agent_kib(pid, "VmRSS"));
	printf("hwm_kib_before %ld\n", hwm0);
	printf("hwm_kib_after %ld\n", agent_kib(pid, "VmHWM"));
	free(lat);
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_otlp load PORT AGENTPID proto|json|gzip CONNS SECONDS\n"
		"       bench_otlp names PORT AGENTPID N ROUNDS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct timespec wall;
	uint64_t base_ns;
	unsigned nc = 1;	/* names: one connection */
	double secs = 5, t0, cpu0;
	long rss0, hwm0;
	struct conn *cs;
	int pid;

	if (argc < 6)
		usage();
	port = atoi(argv[2]);
	pid = atoi(argv[3]);
	clock_gettime(CLOCK_REALTIME, &wall);
	base_ns = (uint64_t)wall.tv_sec * 1000000000ull - 2000000000ull;
	if (strcmp(argv[1], "load") == 0 && argc == 7) {
		const char *enc = argv[4];

		nc = (unsigned)atoi(argv[5]);
		secs = atof(argv[6]);
		if (nc == 0 || secs <= 0)
			usage();
		nbodies = NBODIES;
		bodies = xmalloc(nbodies * sizeof(*bodies));
		for (size_t i = 0; i < nbodies; i++) {
			Req *r = build_req(services[i % NSERVICES], NULL, 0, base_ns);

			if (strcmp(enc, "json") == 0)
				bodies[i] = to_json(r);
			else if (strcmp(enc, "gzip") == 0)
				bodies[i] = gzipped(to_proto(r));
			else if (strcmp(enc, "proto") == 0)
				bodies[i] = to_proto(r);
			else
				usage();
			/* the request's strings stay: a benchmark's process ends soon */
		}
		if (strcmp(enc, "json") == 0)
			ctype = "application/json";
		if (strcmp(enc, "gzip") == 0)
			cenc = "Content-Encoding: gzip\r\n";
	} else if (strcmp(argv[1], "names") == 0 && argc == 6) {
		size_t n = strtoul(argv[4], NULL, 10), rounds = strtoul(argv[5], NULL, 10);
		size_t per = (n + 99) / 100, nsvc;
		char **names, svc[64];

		if (n == 0 || rounds == 0 || per > BATCH)
			usage();
		nsvc = (n + per - 1) / per;
		names = xmalloc(per * sizeof(char *));
		for (size_t j = 0; j < per; j++) {
			names[j] = xmalloc(32);
			snprintf(names[j], 32, "operation-%05zu", j);
		}
		/*
		 * 100 services (fewer when N < 100) of N / 100 span names; each
		 * request one service's BATCH spans, its names in turn; ROUNDS
		 * requests a service.
		 */
		once = 1;
		nbodies = nsvc * rounds;
		bodies = xmalloc(nbodies * sizeof(*bodies));
		for (size_t i = 0; i < nbodies; i++) {
			Req *r;

			snprintf(svc, sizeof(svc), "service-%03zu", i % nsvc);
			r = build_req(svc, (const char *const *)names, per, base_ns);
			bodies[i] = to_proto(r);
		}
	} else {
		usage();
	}
	cs = xmalloc(nc * sizeof(*cs));
	rss0 = agent_kib(pid, "VmRSS");
	hwm0 = agent_kib(pid, "VmHWM");
	cpu0 = agent_cpu_sec(pid);
	t0 = now_sec();
	deadline = t0 + secs;
	for (unsigned i = 0; i < nc; i++) {
		cs[i].id = i;
		cs[i].lat = xmalloc(MAXLAT * sizeof(double));
		if (pthread_create(&cs[i].t, NULL, run_conn, &cs[i]) != 0) {
			perror("bench_otlp: pthread_create");
			return 1;
		}
	}
	for (unsigned i = 0; i < nc; i++)
		pthread_join(cs[i].t, NULL);
	report(cs, nc, now_sec() - t0, pid, cpu0, rss0, hwm0);
	return 0;
}
