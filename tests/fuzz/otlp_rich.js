// SPDX-License-Identifier: GPL-2.0-or-later
// Spans as instrumented services make them, exported once with the stock
// OpenTelemetry SDK's protobuf exporter, for the seeds of
// tests/fuzz/fuzz_otlp_pb_diff.c and bench/bench_otlp_decode.c: each span
// has 20 attributes of mixed types (strings, ints, doubles, bools, a
// string array), 3 events with 2 attributes each and 2 links.
//   NODE_PATH=build/npm/node_modules node tests/fuzz/otlp_rich.js URL SPANS
// with tests/fuzz/otlp_capture.py listening at URL.
'use strict';
const api = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } =
	require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');

const [url, spansText] = process.argv.slice(2);
const count = Number(spansText || 10);

function attributes(i) {
	const a = {};
	for (let k = 0; k < 20; k++) {
		const key = 'app.attr.' + ['s', 'i', 'd', 'b', 'a'][k % 5] + k;
		switch (k % 5) {
		case 0: a[key] = 'value-' + i + '-' + k; break;
		case 1: a[key] = i * 1000 + k; break;
		case 2: a[key] = i + k / 7; break;
		case 3: a[key] = (i + k) % 2 === 0; break;
		default: a[key] = ['x' + k, 'y' + i]; break;
		}
	}
	return a;
}

async function main() {
	const memory = new InMemorySpanExporter();
	const provider = new BasicTracerProvider({
		resource: resourceFromAttributes({ 'service.name': 'rich', 'service.namespace': 'fuzz' }),
		spanProcessors: [new SimpleSpanProcessor(memory)],
	});
	const tracer = provider.getTracer('pcp-fuzz-rich', '1.0.0');
	const base = Math.floor(Date.now() / 1000) - 10;
	const link = (n) => ({ context: { traceId: 'ab'.repeat(15) + n.toString(16).padStart(2, '0'),
		spanId: 'cd'.repeat(7) + n.toString(16).padStart(2, '0'),
		traceFlags: api.TraceFlags.SAMPLED }, attributes: { 'link.n': n } });

	for (let i = 0; i < count; i++) {
		const span = tracer.startSpan('GET /api/items/' + (i % 7), {
			kind: [api.SpanKind.SERVER, api.SpanKind.CLIENT, api.SpanKind.INTERNAL][i % 3],
			startTime: [base, i * 1000], attributes: attributes(i), links: [link(i), link(i + 1)],
		});
		for (let e = 0; e < 3; e++)
			span.addEvent('event-' + e, { 'event.n': e, 'event.what': 'step ' + e },
				[base, i * 1000 + e]);
		span.setStatus({ code: i % 4 === 0 ? api.SpanStatusCode.ERROR : api.SpanStatusCode.OK });
		span.end([base + 1, i * 1000]);
	}
	await provider.forceFlush();
	const exporter = new OTLPTraceExporter({ url: url + '/v1/traces' });
	const result = await new Promise((r) => exporter.export(memory.getFinishedSpans(), r));
	await exporter.shutdown();
	await provider.shutdown();
	process.exit(result.code === 0 ? 0 : 1);
}

main().catch((e) => { console.error(e); process.exit(2); });
