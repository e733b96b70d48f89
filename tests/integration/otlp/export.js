// SPDX-License-Identifier: GPL-2.0-or-later
// Exports spans of known durations and statuses with the stock OpenTelemetry
// SDK (sdk-trace-base + exporter-trace-otlp-proto, -http or -grpc) to an
// OTLP/HTTP or OTLP/gRPC endpoint, for tests/integration/otlp.sh and
// otlp_grpc.sh.
//   node export.js URL ENCODING COMPRESSION PLAN
// ENCODING: proto | json (OTLP/HTTP, URL without /v1/traces) | grpc
// (OTLP/gRPC, URL http://HOST:PORT); COMPRESSION: none | gzip; PLAN: a JSON list of
// {service, namespace (optional), name, kind, ms: [durations], errors: n}:
// the first n spans of each entry get status ERROR. Exits 0 when every
// export succeeded.
'use strict';
const api = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } =
	require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');

const [url, encoding, compression, planText] = process.argv.slice(2);
const { OTLPTraceExporter } = require(encoding === 'json'
	? '@opentelemetry/exporter-trace-otlp-http'
	: encoding === 'grpc' ? '@opentelemetry/exporter-trace-otlp-grpc'
		: '@opentelemetry/exporter-trace-otlp-proto');
const KINDS = { internal: api.SpanKind.INTERNAL, server: api.SpanKind.SERVER,
	client: api.SpanKind.CLIENT, producer: api.SpanKind.PRODUCER,
	consumer: api.SpanKind.CONSUMER };

function exportOnce(exporter, spans) {
	return new Promise((resolve) => exporter.export(spans, resolve));
}

async function main() {
	const plan = JSON.parse(planText);
	const base = Math.floor(Date.now() / 1000) - 1;	// whole seconds: exact durations
	const exporter = new OTLPTraceExporter({ url: encoding === 'grpc' ? url : url + '/v1/traces',
		compression: compression === 'gzip' ? 'gzip' : 'none' });
	const resourceOf = (p) => JSON.stringify([p.service, p.namespace || null]);
	const resources = [...new Set(plan.map(resourceOf))];
	let failed = 0;

	for (const key of resources) {
		const [service, namespace] = JSON.parse(key);
		const attributes = { 'service.name': service };
		if (namespace !== null)
			attributes['service.namespace'] = namespace;
		const memory = new InMemorySpanExporter();
		const provider = new BasicTracerProvider({
			resource: resourceFromAttributes(attributes),
			spanProcessors: [new SimpleSpanProcessor(memory)],
		});
		const tracer = provider.getTracer('pcp-sdk-otlp-test');

		for (const p of plan.filter((q) => resourceOf(q) === key)) {
			p.ms.forEach((ms, i) => {
				const span = tracer.startSpan(p.name, { kind: KINDS[p.kind],
					startTime: [base, 0] });
				if (i < p.errors)
					span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'planned' });
				else
					span.setStatus({ code: api.SpanStatusCode.OK });
				span.end([base + Math.floor(ms / 1000), (ms % 1000) * 1e6]);
			});
		}
		await provider.forceFlush();
		const result = await exportOnce(exporter, memory.getFinishedSpans());
		if (result.code !== 0) {
			console.error(service + ': export failed: ' + (result.error || result.code));
			failed++;
		}
		await provider.shutdown();
	}
	await exporter.shutdown();
	process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
