/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP JSON decoding, the walker (otlp_decode, pmda_trace/otlp/jsonwalk.c)
 * against json-c's path (otlp_decode_json_ref, ref_json.c), in one run:
 * CPU time (CLOCK_PROCESS_CPUTIME_ID) per span and spans per CPU-second
 * for two requests:
 *   plain  1000 spans of ids, name, kind, times and status only;
 *   real   100 copies of the first span of a capture of the stock Node
 *          SDK's JSON exporter (tests/fuzz/otlp_real_spans.js: 20
 *          attributes, 3 events, 2 links), in its resource and scope.
 *   bench_otlp_json [CAPTURE [ROUNDS]]
 * CAPTURE defaults to tests/fuzz/corpus/otlp_json_diff/sdk-json-real-2;
 * each case runs ROUNDS (default 5) rounds of at least 0.3 CPU-seconds,
 * and the median, the best and the worst round are printed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../pmda_trace/otlp/otlp.h"
#include "../pmda_trace/otlp/otlp_priv.h"

typedef int (*decode_fn)(const char *body, size_t len, otlp_span_fn fn, void *arg,
			 struct otlp_result *res);

static int sink(void *arg, const struct otlp_span *sp)
{
	*(size_t *)arg += sp->name[0];
	return 0;
}

static int walker(const char *body, size_t len, otlp_span_fn fn, void *arg, struct otlp_result *res)
{
	return otlp_decode(OTLP_JSON, body, len, 0, fn, arg, res);
}

static int jsonc(const char *body, size_t len, otlp_span_fn fn, void *arg, struct otlp_result *res)
{
	return otlp_decode_json_ref(body, len, 0, fn, arg, res);
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per span of @dec over @body (@spans spans): median, best, worst of @rounds. */
static void run(const char *what, decode_fn dec, const char *body, size_t len, size_t spans, int rounds)
{
	double ns[64];
	struct otlp_result res;
	size_t sum = 0;

	for (int r = 0; r < rounds; r++) {
		double t0 = cpu_s(), t;
		long n = 0;

		do {
			if (dec(body, len, sink, &sum, &res) != 0 || res.accepted != spans) {
				fprintf(stderr, "%s: does not decode (%s)\n", what, res.message);
				exit(1);
			}
			n++;
		} while ((t = cpu_s() - t0) < 0.3);
		ns[r] = t * 1e9 / ((double)n * spans);
	}
	qsort(ns, (size_t)rounds, sizeof(ns[0]), cmp);
	printf("%-22s %8.0f ns/span (%.0f-%.0f)  %9.0f spans/CPU-s  (%zu bytes/span)\n", what,
	       ns[rounds / 2], ns[0], ns[rounds - 1], 1e9 / ns[rounds / 2], len / spans);
}

/* The request of @n copies of @span (@slen bytes) between @head and @tail. */
static char *build(const char *head, size_t hlen, const char *span, size_t slen, size_t n,
		   const char *tail, size_t *len)
{
	size_t tlen = strlen(tail), at = 0;
	char *b = malloc(hlen + n * (slen + 1) + tlen + 1);

	if (b == NULL)
		exit(1);
	memcpy(b, head, hlen);
	at = hlen;
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			b[at++] = ',';
		memcpy(b + at, span, slen);
		at += slen;
	}
	memcpy(b + at, tail, tlen + 1);
	*len = at + tlen;
	return b;
}

/* The end of the object or array at @p (its bracket): past its closing bracket. */
static const char *close_of(const char *p)
{
	int depth = 0, str = 0;

	for (;; p++) {
		if (str) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				str = 0;
		} else if (*p == '"') {
			str = 1;
		} else if (*p == '{' || *p == '[') {
			depth++;
		} else if ((*p == '}' || *p == ']') && --depth == 0) {
			return p + 1;
		}
	}
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "tests/fuzz/corpus/otlp_json_diff/sdk-json-real-2";
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	static const char plain_span[] = "{\"traceId\":\"5b8efff798038103d269b633813fc60c\","
		"\"spanId\":\"eee19b7ec3c1b174\",\"parentSpanId\":\"eee19b7ec3c1b173\","
		"\"name\":\"GET /cart\",\"kind\":2,\"startTimeUnixNano\":\"1700000000000000000\","
		"\"endTimeUnixNano\":\"1700000000250000000\",\"status\":{\"code\":1}}";
	static const char head[] = "{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":"
		"\"service.name\",\"value\":{\"stringValue\":\"shop\"}}]},\"scopeSpans\":[{\"scope\":"
		"{\"name\":\"lib\"},\"spans\":[";
	char cap[1 << 16], *plain, *real;
	const char *sp, *se;
	size_t n, plen, rlen;
	FILE *f;

	if (rounds < 1 || rounds > 64)
		rounds = 5;
	if ((f = fopen(path, "rb")) == NULL) {
		perror(path);
		return 1;
	}
	n = fread(cap, 1, sizeof(cap) - 1, f);
	fclose(f);
	cap[n] = '\0';
	/* the capture's first span, between its head (to "spans":[) and tail */
	if ((sp = strstr(cap, "\"spans\":[")) == NULL)
		return 1;
	sp += strlen("\"spans\":[");
	se = close_of(sp);
	plain = build(head, strlen(head), plain_span, strlen(plain_span), 1000, "]}]}]}", &plen);
	real = build(cap, (size_t)(sp - cap), sp, (size_t)(se - sp), 100, "]}]}]}", &rlen);
	printf("OTLP JSON decoding, CPU time per span (median of %d rounds, best-worst)\n", rounds);
	run("plain walker", walker, plain, plen, 1000, rounds);
	run("plain json-c", jsonc, plain, plen, 1000, rounds);
	run("real walker", walker, real, rlen, 100, rounds);
	run("real json-c", jsonc, real, rlen, 100, rounds);
	free(plain);
	free(real);
	return 0;
}
