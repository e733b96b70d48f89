// SPDX-License-Identifier: GPL-2.0-or-later
// Real spans as the stock Node SDK's JSON exporter sends them, for seeds
// of tests/fuzz/fuzz_otlp_json_diff.c (captured by otlp_capture.py):
// COUNT spans of service "shop", each with 20 attributes, 3 events (2
// attributes each) and 2 links (1 attribute each), in one request.
//   NODE_PATH=build/npm/node_modules node tests/fuzz/otlp_real_spans.js URL COUNT
'use strict';
const api = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } =
	require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http');

const [url, countText] = process.argv.slice(2);

async function main() {
	const memory = new InMemorySpanExporter();
	const provider = new BasicTracerProvider({
		resource: resourceFromAttributes({ 'service.name': 'shop', 'service.namespace': 'acme' }),
		spanProcessors: [new SimpleSpanProcessor(memory)],
	});
	const tracer = provider.getTracer('pcp-json-real', '1.0.0');
	const link = () => ({ context: { traceId: '5b8efff798038103d269b633813fc60c',
		spanId: 'eee19b7ec3c1b174', traceFlags: 1 }, attributes: { 'link.kind': 'follows' } });

	for (let i = 0; i < Number(countText || 1); i++) {
		const attributes = {};
		for (let a = 0; a < 20; a++)
			attributes['app.attr.' + a] = a % 4 === 0 ? a * 1000 : a % 4 === 1 ? 'value-' + a :
				a % 4 === 2 ? a % 8 === 2 : a + 0.5;
		const span = tracer.startSpan('GET /items/' + i, { kind: api.SpanKind.SERVER, attributes,
			links: [link(), link()] });
		for (let e = 0; e < 3; e++)
			span.addEvent('event-' + e, { 'event.seq': e, 'event.note': 'note ' + e });
		span.setStatus({ code: i % 5 === 0 ? api.SpanStatusCode.ERROR : api.SpanStatusCode.OK });
		span.end();
	}
	await provider.forceFlush();
	const exporter = new OTLPTraceExporter({ url: url + '/v1/traces' });
	const result = await new Promise((resolve) => exporter.export(memory.getFinishedSpans(), resolve));
	await exporter.shutdown();
	process.exit(result.code === 0 ? 0 : 1);
}

main().catch((e) => { console.error(e); process.exit(2); });
