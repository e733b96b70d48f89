/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The measurement that chose the JSON walker's base (issue 36): Debian's
 * yajl 2 (libyajl-dev), a streaming parser, over the same requests as
 * bench_otlp_json, against the walker. Not in the build (the tree does
 * not depend on yajl); by hand, after make build/bench/bench_otlp_json:
 *   apt-get install libyajl-dev
 *   cc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Icommon -o build/bench/bench_otlp_json_yajl \
 *       bench/bench_otlp_json_yajl.c build/lib/libpmda_trace_core.a -lyajl -ljson-c -lz \
 *       -lmicrohttpd -lprotobuf-c -lpthread
 *   build/bench/bench_otlp_json_yajl tests/fuzz/corpus/otlp_json_diff/sdk-json-real-2
 * Three yajl cases, each one pass (the walker makes two):
 *   yajl-bare   callbacks that do nothing: yajl's parse alone, UTF-8 checked;
 *   yajl-keys   callbacks that keep a stack of messages and look each key up
 *               in otlp_fields.h's table, as a walker on yajl must;
 *   yajl-span   the same, and take each span's name, kind and times;
 *   yajl-2pass  yajl-keys then yajl-span: what a decoder on yajl that
 *               checks a request whole before its first span needs (or it
 *               must keep every span of the request until the end).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <yajl/yajl_parse.h>

#include "../pmda_trace/otlp/otlp.h"
#include "../pmda_trace/otlp/otlp_fields.h"
#include "../pmda_trace/otlp/otlp_priv.h"

struct ys {
	enum otlp_msg st[256];	/* the message at each depth, LEAF for none */
	enum otlp_field kat[256];	/* the key that opened it, back at its end */
	int top;
	enum otlp_field key;	/* the last key's field */
	bool take;		/* yajl-span: take the span's fields */
	char name[OTLP_NAME_MAX + 1];
	unsigned long long start, end;
	long long kind;
	size_t spans;
};

static int y_null(void *c) { (void)c; return 1; }
static int y_bool(void *c, int b) { (void)c; (void)b; return 1; }

static int y_num(void *c, const char *s, size_t n)
{
	struct ys *y = c;

	if (y->take && y->key == OTLP_F_SPAN_KIND)
		y->kind = strtoll(s, NULL, 10);
	(void)n;
	return 1;
}

static int y_str(void *c, const unsigned char *s, size_t n)
{
	struct ys *y = c;

	if (!y->take)
		return 1;
	if (y->key == OTLP_F_SPAN_NAME)
		otlp_clean_name(y->name, (const char *)s, n, "unnamed");
	else if (y->key == OTLP_F_SPAN_START)
		y->start = strtoull((const char *)s, NULL, 10);
	else if (y->key == OTLP_F_SPAN_END)
		y->end = strtoull((const char *)s, NULL, 10);
	return 1;
}

static int y_key(void *c, const unsigned char *s, size_t n)
{
	struct ys *y = c;
	int alt;

	y->key = otlp_field_json(y->st[y->top], (const char *)s, n, &alt);
	return 1;
}

/* An object opens: the message the last key's field holds. */
static int y_open(void *c)
{
	struct ys *y = c;
	enum otlp_msg m = y->top < 0 ? OTLP_M_REQ :
		y->key == OTLP_F_N ? OTLP_M_LEAF : otlp_fields[y->key].child;

	if (y->top + 1 >= 256)
		return 0;
	y->st[++y->top] = m;
	y->kat[y->top] = y->key;
	y->key = OTLP_F_N;
	return 1;
}

static int y_close(void *c)
{
	struct ys *y = c;

	if (y->st[y->top] == OTLP_M_SPAN)
		y->spans++;
	y->key = y->kat[y->top];
	y->top--;
	return 1;
}

/* Arrays keep the field of their key for their elements. */
static int y_arr(void *c) { (void)c; return 1; }

static const yajl_callbacks bare = { 0 };
static const yajl_callbacks keys = {
	y_null, y_bool, NULL, NULL, y_num, y_str, y_open, y_key, y_close, y_arr, y_arr,
};

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int sink(void *arg, const struct otlp_span *sp)
{
	*(size_t *)arg += sp->name[0];
	return 0;
}

/* 0: the walker; 1, 2, 3: yajl bare, keys, span; 4: keys and span. */
static void once(int how, const char *body, size_t len)
{
	struct otlp_result res;
	struct ys y = { .top = -1, .key = OTLP_F_N, .take = how == 3 };
	yajl_handle h;
	size_t sum = 0;

	if (how == 4) {
		once(2, body, len);
		once(3, body, len);
		return;
	}
	if (how == 0) {
		if (otlp_decode(OTLP_JSON, body, len, 0, sink, &sum, &res) != 0)
			exit(1);
		return;
	}
	h = yajl_alloc(how == 1 ? &bare : &keys, NULL, &y);
	if (yajl_parse(h, (const unsigned char *)body, len) != yajl_status_ok ||
	    yajl_complete_parse(h) != yajl_status_ok)
		exit(2);
	yajl_free(h);
}

static void run(const char *what, int how, const char *body, size_t len, size_t spans)
{
	double best = 1e30;

	for (int r = 0; r < 5; r++) {
		double t0 = cpu_s(), t;
		long n = 0;

		do {
			once(how, body, len);
			n++;
		} while ((t = cpu_s() - t0) < 0.3);
		if (t * 1e9 / ((double)n * spans) < best)
			best = t * 1e9 / ((double)n * spans);
	}
	printf("%-18s %7.0f ns/span (best of 5)\n", what, best);
}

static char *build(const char *head, size_t hlen, const char *span, size_t slen, size_t n, size_t *len)
{
	char *b = malloc(hlen + n * (slen + 1) + 16);
	size_t at = hlen;

	if (b == NULL)
		exit(1);
	memcpy(b, head, hlen);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			b[at++] = ',';
		memcpy(b + at, span, slen);
		at += slen;
	}
	memcpy(b + at, "]}]}]}", 7);
	*len = at + 6;
	return b;
}

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
	static const char *const what[] = { "walker", "yajl-bare", "yajl-keys", "yajl-span", "yajl-2pass" };
	char cap[1 << 16], *real;
	const char *sp;
	size_t n, len;
	FILE *f;

	if (argc < 2 || (f = fopen(argv[1], "rb")) == NULL)
		return 1;
	n = fread(cap, 1, sizeof(cap) - 1, f);
	fclose(f);
	cap[n] = '\0';
	if ((sp = strstr(cap, "\"spans\":[")) == NULL)
		return 1;
	sp += strlen("\"spans\":[");
	real = build(cap, (size_t)(sp - cap), sp, (size_t)(close_of(sp) - sp), 100, &len);
	for (int how = 0; how < 5; how++)
		run(what[how], how, real, len, 100);
	free(real);
	return 0;
}
