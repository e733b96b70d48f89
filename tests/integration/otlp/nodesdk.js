// SPDX-License-Identifier: GPL-2.0-or-later
// The stock NodeSDK (@opentelemetry/sdk-node) configured by nothing but
// its environment, as an application started with
//   OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:4318 OTEL_SERVICE_NAME=NAME
// is: spans and metrics to one endpoint with the SDK's defaults
// (http/protobuf, /v1/traces and /v1/metrics, cumulative). One span and
// one counter (a double, as a Counter is by default), flushed, then the
// SDK shut down (which exports the metrics once more). For
// tests/integration/otlp_metrics.sh: prints what the trace agent must then
// serve, in tests/integration/otlp/metrics.js's format (value, desc,
// ilabel, mlabel lines); exits 0 only when every export succeeded (the
// SDK logs each failure through diag, which this program counts).
'use strict';
const api = require('@opentelemetry/api');
const { NodeSDK } = require('@opentelemetry/sdk-node');

const SERVICE = process.env.OTEL_SERVICE_NAME;
if (!SERVICE || !process.env.OTEL_EXPORTER_OTLP_ENDPOINT) {
	console.error('usage: OTEL_EXPORTER_OTLP_ENDPOINT=http://HOST:PORT OTEL_SERVICE_NAME=NAME node nodesdk.js');
	process.exit(2);
}
const { fail, install, count: failures } = require('./failures.js');
install(api);

const SPAN = 'nodesdk-span';
const COUNTER = 'pcptest.nodesdk.hits';
const ATTRS = { 'k': 'v' };

async function main() {
	const sdk = new NodeSDK();
	sdk.start();
	const span = api.trace.getTracer('pcp-nodesdk-test').startSpan(SPAN);
	span.end();
	const hits = api.metrics.getMeter('pcp-nodesdk-test').createCounter(COUNTER, { unit: '{hit}' });
	hits.add(4, ATTRS);
	hits.add(3, ATTRS);
	// the registered providers' own flush, then the SDK's shutdown
	try {
		await api.metrics.getMeterProvider().forceFlush();
		await api.trace.getTracerProvider().getDelegate().forceFlush();
	} catch (e) {
		fail('forceFlush:', e && e.message ? e.message : e);
	}
	try {
		await sdk.shutdown();
	} catch (e) {
		fail('shutdown:', e && e.message ? e.message : e);
	}
	const name = 'trace.otel.pcptest.nodesdk.hits';
	const inst = SERVICE.replace(/ /g, '_') + '{k=v}';
	const lines = [
		['series', SERVICE.replace(/ /g, '_')],
		// docs/trace-protocol.md §12.4: SERVICE:KIND/SPAN, internal by default
		['value', 'trace.span.count', SERVICE.replace(/[/: ]/g, '_') + ':internal/' + SPAN, 1],
		['value', name, inst, 7],
		['desc', name, 'double', 'counter', 'count'],
		['mlabel', name, 'otel_name', JSON.stringify(COUNTER)],
		['ilabel', name, inst, 'service_name', JSON.stringify(SERVICE)],
		['ilabel', name, inst, 'k', JSON.stringify('v')],
	];
	process.stdout.write(lines.map((l) => l.join('\t')).join('\n') + '\n');
	console.error(`${SERVICE}: NodeSDK by its environment, ${failures()} failures`);
	process.exit(failures() ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
