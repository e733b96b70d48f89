// SPDX-License-Identifier: GPL-2.0-or-later
// Acme's web shop for make demo: a small Node service instrumented with the
// stock OpenTelemetry SDK (the packages and lock of tests/integration/otlp,
// installed in build/npm). It serves no HTTP: a loop runs "search" and
// "checkout" operations (a checkout also a "charge-card" client call) of
// random durations, some checkouts failing, and a BatchSpanProcessor with
// the OTLP protobuf exporter sends the spans to the trace agent's OTLP/HTTP
// receiver, which shows them as trace.span.* beside Acme's metrics. The
// same SDK's metrics go to the same receiver (every second): a request
// counter (acme.shop.requests, by route and outcome) and a latency
// histogram (acme.shop.request.duration, seconds), trace.otel.acme.shop.*.
//   node shop.js URL SECONDS
'use strict';
const api = require('@opentelemetry/api');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');
const { MeterProvider, PeriodicExportingMetricReader } = require('@opentelemetry/sdk-metrics');
const { OTLPMetricExporter } = require('@opentelemetry/exporter-metrics-otlp-proto');

const [url, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText || 25);
const provider = new BasicTracerProvider({
	resource: resourceFromAttributes({ 'service.name': 'acme-shop' }),
	// a batch each second (the SDK's default is 5 s) so the demo's views move
	spanProcessors: [new BatchSpanProcessor(
		new OTLPTraceExporter({ url: url + '/v1/traces' }), { scheduledDelayMillis: 1000 })],
});
const tracer = provider.getTracer('acme-shop', '1.0.0');
const meters = new MeterProvider({
	resource: resourceFromAttributes({ 'service.name': 'acme-shop' }),
	readers: [new PeriodicExportingMetricReader({
		exporter: new OTLPMetricExporter({ url: url + '/v1/metrics' }),
		exportIntervalMillis: 1000 })],
});
const meter = meters.getMeter('acme-shop', '1.0.0');
const requests = meter.createCounter('acme.shop.requests',
	{ description: 'Requests the shop served', unit: '{request}' });
const duration = meter.createHistogram('acme.shop.request.duration',
	{ description: 'Time the shop took to serve a request', unit: 's',
	  advice: { explicitBucketBoundaries: [0.01, 0.025, 0.05, 0.1, 0.25] } });

// One request served: counted and timed by route and outcome.
function served(route, t0, ok) {
	const attrs = { 'http.route': route, outcome: ok ? 'ok' : 'error' };

	requests.add(1, attrs);
	duration.record((Date.now() - t0) / 1000, attrs);
}
const PRODUCTS = ['Anvils', 'Rockets', 'Magnets'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const between = (lo, hi) => lo + Math.random() * (hi - lo);

async function search() {
	await tracer.startActiveSpan('search', { kind: api.SpanKind.SERVER,
		attributes: { 'http.route': '/search', 'acme.query': PRODUCTS[Math.floor(Math.random() * 3)] } },
	async (span) => {
		const t0 = Date.now();

		await sleep(between(5, 40));
		span.end();
		served('/search', t0, true);
	});
}

async function checkout() {
	await tracer.startActiveSpan('checkout', { kind: api.SpanKind.SERVER,
		attributes: { 'http.route': '/checkout' } }, async (span) => {
		const t0 = Date.now();

		await sleep(between(20, 60));
		const ok = await tracer.startActiveSpan('charge-card', { kind: api.SpanKind.CLIENT },
			async (charge) => {
				await sleep(between(30, 120));
				const paid = Math.random() > 0.05;	// 1 in 20 cards declined
				if (!paid)
					charge.setStatus({ code: api.SpanStatusCode.ERROR, message: 'card declined' });
				charge.end();
				return paid;
			});
		if (!ok)
			span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'payment failed' });
		span.end();
		served('/checkout', t0, ok);
	});
}

async function main() {
	const end = Date.now() + seconds * 1000;
	const running = new Set();
	const start = (p) => { running.add(p); p.finally(() => running.delete(p)); };

	while (Date.now() < end) {
		start(search());			// about 20 searches a second
		if (Math.random() < 0.25)
			start(checkout());		// and 5 checkouts
		await sleep(50);
	}
	await Promise.all(running);
	await provider.shutdown();		// the last batch goes out
	await meters.shutdown();		// and the last metrics
}

main().catch((e) => { console.error('acme-shop: ' + e); process.exit(1); });
