/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the OpenTelemetry metrics store's metrics and series cost
 * (docs/otlp-metrics.md, "Refusals, caps and memory" quotes these
 * numbers): the heap they take (heap_bytes.h: ASan's count of the bytes
 * asked of malloc, glibc's blocks with their headers without ASan) and
 * the bytes the store counts for them, which must cover the heap, for a
 * gauge metric, a gauge series, a histogram series of 10 bounds, an
 * exponential one of 160 buckets and a summary of 3 quantiles, each
 * series with the labels of a typical HTTP server series.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "heap_bytes.h"
#include "otel_helpers.h"

#define N	1000
#define T0	(100 * SEC)

/* A typical server series: resource and point attributes. */
static const struct otel_attr res_attrs[] = {
	{ "service.name", 12, "\"checkout\"", 10 },
	{ "service.instance.id", 19, "\"7f3c9a2e-5b1d-4c8e-9f0a-2d6b8e4c1a3f\"", 38 },
	{ "host.name", 9, "\"web-01\"", 8 },
	{ "telemetry.sdk.language", 22, "\"go\"", 4 },
};

static const struct otel_resource res = {
	.service = "checkout", .ns = "", .instance_id = "7f3c9a2e-5b1d-4c8e-9f0a-2d6b8e4c1a3f",
	.attrs = res_attrs, .n_attrs = 4, .scope_name = "go.opentelemetry.io/otel/http",
	.scope_version = "0.52.0",
};

struct cost {
	size_t heap, counted;
};

static struct cost measure(struct otel_store *s, size_t *heap0, size_t *counted0)
{
	struct otel_usage u;
	struct cost c;

	otel_usage_get(s, &u);
	c.heap = heap_bytes() - *heap0;
	c.counted = u.bytes - *counted0;
	*heap0 = heap_bytes();
	*counted0 = u.bytes;
	return c;
}

/* @n points of @m, each a series of its own (route /api/v1/items/I, code 200). */
static void series(struct otel_store *s, struct otel_metric m, struct otel_point p, int n,
		bool new_metric)
{
	char route[64], name[64];
	struct otel_attr a[3] = {
		{ "http.request.method", 19, "\"GET\"", 5 },
		{ "http.response.status_code", 25, "200", 3 },
		{ "http.route", 10, route, 0 },
	};

	p.attrs = a;
	p.n_attrs = 3;
	for (int i = 0; i < n; i++) {
		a[2].json_len = (size_t)snprintf(route, sizeof(route), "\"/api/v1/items/%05d\"", i);
		if (new_metric) {
			snprintf(name, sizeof(name), "http.server.active_requests.%05d", i);
			m.name = name;
		}
		assert_int_equal(otel_record(s, &res, &m, &p), 0);
	}
}

static void report(const char *what, struct cost c, int n)
{
	print_message("%-44s %6zu bytes on the heap, %6zu counted\n", what, c.heap / (size_t)n,
		      c.counted / (size_t)n);
#ifdef __SANITIZE_ADDRESS__
	/* the count covers the bytes asked of malloc */
	assert_true(c.heap <= c.counted);
#else
	/* and glibc's blocks, within its rounding (16 bytes a block counted, on average) */
	assert_true(c.heap <= c.counted + c.counted / 20);
#endif
}

static void costs(void **state)
{
	static const double b[] = { 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1 };
	static const uint64_t hc[11] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
	static const struct otel_quantile q[] = { { 0.5, 1 }, { 0.9, 2 }, { 0.99, 3 } };
	struct otel_cfg cfg = { .domain = 155, .max_metrics = 2 * N, .max_series = 2 * N,
				.max_bytes = (size_t)1 << 30, .now_ns = test_clock };
	struct otel_store *s;
	size_t heap0 = heap_bytes(), counted0 = 0;
	uint64_t pos[160];
	struct otel_point p;
	struct cost c;

	(void)state;
	assert_non_null(s = otel_store_new(&cfg));
	c = measure(s, &heap0, &counted0);
	print_message("%-44s %6zu bytes on the heap (sizeof(struct otel_store))\n", "the store",
		      c.heap);

	/* N gauge metrics of a series each; then N series of one gauge */
	series(s, gauge("", "{request}"), ipoint(1, T0), N, true);
	c = measure(s, &heap0, &counted0);
	report("a gauge metric and its first series", c, N);
	series(s, gauge("http.server.active", "{request}"), ipoint(1, T0), N, false);
	c = measure(s, &heap0, &counted0);
	report("a gauge series", c, N);

	p = hpoint(b, 10, hc, 1, T0);
	series(s, histo("http.server.request.duration", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE),
	       p, N, false);
	c = measure(s, &heap0, &counted0);
	report("a histogram series, 10 bounds", c, N);

	for (int i = 0; i < 160; i++)
		pos[i] = 1;
	p = (struct otel_point){ .start_ns = 1, .time_ns = T0, .scale = 3, .pos_offset = -40,
				 .pos = pos, .n_pos = 160, .count = 160 };
	series(s, histo("http.server.request.body.size", "By", OTEL_EXPHIST, OTEL_TEMP_DELTA),
	       p, N, false);
	c = measure(s, &heap0, &counted0);
	report("an exponential histogram series, 160 buckets", c, N);

	p = (struct otel_point){ .start_ns = 1, .time_ns = T0, .count = 3, .quantiles = q,
				 .n_quantiles = 3 };
	series(s, histo("rpc.server.duration", "ms", OTEL_SUMMARY, OTEL_TEMP_UNSPECIFIED), p, N,
	       false);
	c = measure(s, &heap0, &counted0);
	report("a summary series, 3 quantiles", c, N);

	/* every series gone, the metrics' bytes are left */
	test_clock_set(test_clock() + 3600 * SEC);
	assert_int_equal(otel_expire(s), 5 * N);
	{
		struct otel_usage u;

		otel_usage_get(s, &u);
		print_message("%-44s %6zu bytes counted\n", "a gauge metric with no series",
			      u.bytes / (N + 4));
	}
	otel_store_free(s);

	/* N histogram metrics (6 leaves each), their series expired */
	assert_non_null(s = otel_store_new(&cfg));
	heap0 = heap_bytes();
	counted0 = 0;
	series(s, histo("", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE), hpoint(b, 10, hc, 1, T0), N,
	       true);
	test_clock_set(test_clock() + 3600 * SEC);
	assert_int_equal(otel_expire(s), N);
	c = measure(s, &heap0, &counted0);
	report("a histogram metric with no series", c, N);
	otel_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(costs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
