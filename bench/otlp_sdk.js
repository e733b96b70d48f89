// SPDX-License-Identifier: GPL-2.0-or-later
// The stock OpenTelemetry SDK as an OTLP/HTTP client, as fast as it goes
// (bench/run-otlp.sh): BasicTracerProvider with a BatchSpanProcessor of the
// SDK's defaults (batches of 512, a queue of 2048) and the protobuf
// exporter (exporter-trace-otlp-proto), spans like bench_otlp's (2 services
// x 50 names over two providers, four attributes, log-uniform durations).
//   node otlp_sdk.js URL SECONDS
// Prints "key value" lines: spans created, spans exported (answered 200),
// spans per second exported, export times (p50, p99, max, ms).
'use strict';
const api = require('@opentelemetry/api');
const { BasicTracerProvider, BatchSpanProcessor } = require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');

const [url, secondsText] = process.argv.slice(2);
const seconds = Number(secondsText || 5);
const VERBS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const THINGS = ['cart', 'product', 'user', 'order', 'payment', 'inventory', 'session',
	'review', 'shipment', 'coupon'];
const KINDS = [api.SpanKind.INTERNAL, api.SpanKind.SERVER, api.SpanKind.CLIENT];
const times = [];
let exported = 0, failed = 0;

// The SDK's exporter, with each export's time and outcome counted.
class Counting {
	constructor(inner) { this.inner = inner; }
	export(spans, done) {
		const t0 = process.hrtime.bigint();
		this.inner.export(spans, (r) => {
			times.push(Number(process.hrtime.bigint() - t0) / 1e6);
			if (r.code === 0)
				exported += spans.length;
			else
				failed += spans.length;
			done(r);
		});
	}
	shutdown() { return this.inner.shutdown(); }
	forceFlush() { return this.inner.forceFlush ? this.inner.forceFlush() : Promise.resolve(); }
}

function provider(service) {
	return new BasicTracerProvider({
		resource: resourceFromAttributes({ 'service.name': service, 'host.name': 'bench-host' }),
		spanProcessors: [new BatchSpanProcessor(new Counting(
			new OTLPTraceExporter({ url: url + '/v1/traces' })))],
	});
}

async function main() {
	const providers = [provider('frontend'), provider('checkout-service')];
	const tracers = providers.map((p) => p.getTracer('bench-otlp-sdk', '1.0.0'));
	const end = Date.now() + seconds * 1000;
	const t0 = process.hrtime.bigint();
	let created = 0;

	while (Date.now() < end) {
		for (let i = 0; i < 512; i++) {
			const k = Math.floor(Math.random() * 50);
			const tracer = tracers[created & 1];
			const ms = 0.01 * Math.pow(1e6, Math.random());	// 10 us .. 10 s
			const start = Date.now() - ms;
			const span = tracer.startSpan(VERBS[k % 5] + ' ' + THINGS[Math.floor(k / 5)], {
				kind: KINDS[k % 3], startTime: start,
				attributes: { 'http.request.method': VERBS[k % 5],
					'http.route': '/api/v1/' + THINGS[Math.floor(k / 5)] + '/{id}',
					'server.address': 'shop.example.com',
					'http.response.status_code': Math.random() < 0.01 ? 500 : 200 },
			});
			if (Math.random() < 0.01)
				span.setStatus({ code: api.SpanStatusCode.ERROR });
			span.end(start + ms);
			created++;
		}
		await new Promise((r) => setImmediate(r));	// let the exports run
	}
	await Promise.all(providers.map((p) => p.forceFlush()));
	const secs = Number(process.hrtime.bigint() - t0) / 1e9;
	await Promise.all(providers.map((p) => p.shutdown()));
	times.sort((a, b) => a - b);
	const q = (f) => (times.length ? times[Math.floor((times.length - 1) * f)].toFixed(3) : 'na');
	console.log('seconds ' + secs.toFixed(3));
	console.log('spans_created ' + created);
	console.log('spans ' + exported);
	console.log('spans_failed ' + failed);
	console.log('spans_per_sec ' + Math.round(exported / secs));
	console.log('requests ' + times.length);
	console.log('p50_ms ' + q(0.5));
	console.log('p99_ms ' + q(0.99));
	console.log('max_ms ' + q(1));
}

main().catch((e) => { console.error(e); process.exit(2); });
