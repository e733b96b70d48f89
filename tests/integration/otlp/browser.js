// SPDX-License-Identifier: GPL-2.0-or-later
// A web page's spans with the stock OpenTelemetry web SDK (sdk-trace-web's
// WebTracerProvider, a BatchSpanProcessor and exporter-trace-otlp-http or
// -proto), for tests/integration/otlp_browser.sh, which bundles this file
// with esbuild and loads it in headless Chromium from another origin than
// the receiver's. The page's query: url (the receiver's /v1/traces),
// enc (json | proto), svc (service.name). The plan: 15 spans of known
// names, kinds, durations and statuses (PLAN below, the test's too).
// Once the export has settled the page writes its outcome into the DOM:
// <pre id="outcome">exported 15</pre>, or "failed: WHY".
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { WebTracerProvider } from '@opentelemetry/sdk-trace-web';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';

// name, kind, durations (ms), how many of the first are ERROR
const PLAN = [
	['page-load', SpanKind.INTERNAL, [100, 200, 300, 400, 500], 1],
	['GET /api/cart', SpanKind.CLIENT, [20, 20, 20, 20, 20, 20], 2],
	['click-buy', SpanKind.INTERNAL, [5, 5, 5, 5], 0],
];

function say(text) {
	const pre = document.createElement('pre');

	pre.id = 'outcome';
	pre.textContent = text;
	document.body.appendChild(pre);
}

async function main() {
	const q = new URLSearchParams(location.search);
	const Exporter = q.get('enc') === 'proto' ? ProtoExporter : JsonExporter;
	const otlp = new Exporter({ url: q.get('url') });
	const results = [];
	let spans = 0;
	// the exporter as the processor sees it, its results kept
	const exporter = {
		export(batch, done) {
			otlp.export(batch, (r) => {
				results.push(r);
				if (r.code === 0)
					spans += batch.length;
				done(r);
			});
		},
		shutdown: () => otlp.shutdown(),
		forceFlush: () => otlp.forceFlush(),
	};
	const provider = new WebTracerProvider({
		resource: resourceFromAttributes({ 'service.name': q.get('svc') || 'web' }),
		spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 100 })],
	});
	const tracer = provider.getTracer('pcp-sdk-otlp-browser-test');
	const base = Math.floor(Date.now() / 1000) - 1;	// whole seconds: exact durations

	for (const [name, kind, ms, errors] of PLAN) {
		ms.forEach((d, i) => {
			const span = tracer.startSpan(name, { kind, startTime: [base, 0] });

			span.setStatus(i < errors ? { code: SpanStatusCode.ERROR, message: 'planned' }
				: { code: SpanStatusCode.OK });
			span.end([base + Math.floor(d / 1000), (d % 1000) * 1e6]);
		});
	}
	try {
		await provider.forceFlush();
	} catch (e) {
		results.push({ code: 1, error: e });
	}
	const bad = results.find((r) => r.code !== 0);
	say(bad || results.length === 0
		? 'failed: ' + (bad && bad.error ? bad.error.message || bad.error : 'nothing exported')
		: 'exported ' + spans);
}

main().catch((e) => say('failed: ' + e));
