// SPDX-License-Identifier: GPL-2.0-or-later
// Acme's web shop for make demo: a small Node service instrumented with the
// stock OpenTelemetry SDK (the packages and lock of tests/integration/otlp,
// installed in build/npm). It serves no HTTP: a loop runs "search" and
// "checkout" operations (a checkout also a "charge-card" client call) of
// random durations, some checkouts failing, and a BatchSpanProcessor with
// the OTLP protobuf exporter sends the spans to the trace agent's OTLP/HTTP
// receiver, which shows them as trace.span.* beside Acme's metrics.
//   node shop.js URL SECONDS
'use strict';
const api = require('@opentelemetry/api');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');

const [url, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText || 25);
const provider = new BasicTracerProvider({
	resource: resourceFromAttributes({ 'service.name': 'acme-shop' }),
	// a batch each second (the SDK's default is 5 s) so the demo's views move
	spanProcessors: [new BatchSpanProcessor(
		new OTLPTraceExporter({ url: url + '/v1/traces' }), { scheduledDelayMillis: 1000 })],
});
const tracer = provider.getTracer('acme-shop', '1.0.0');
const PRODUCTS = ['Anvils', 'Rockets', 'Magnets'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const between = (lo, hi) => lo + Math.random() * (hi - lo);

async function search() {
	await tracer.startActiveSpan('search', { kind: api.SpanKind.SERVER,
		attributes: { 'http.route': '/search', 'acme.query': PRODUCTS[Math.floor(Math.random() * 3)] } },
	async (span) => {
		await sleep(between(5, 40));
		span.end();
	});
}

async function checkout() {
	await tracer.startActiveSpan('checkout', { kind: api.SpanKind.SERVER,
		attributes: { 'http.route': '/checkout' } }, async (span) => {
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
}

main().catch((e) => { console.error('acme-shop: ' + e); process.exit(1); });
