// SPDX-License-Identifier: GPL-2.0-or-later
// One process of a burst of OpenTelemetry exporters against an OTLP/HTTP
// receiver, for tests/integration/otlp_burst.sh (issue 35): K stock
// OTLPTraceExporters (@opentelemetry/exporter-trace-otlp-proto, default
// options: protobuf, its own timeout and retry policy), each exporting B
// batches of 512 real SDK spans (20 attributes, some events and links)
// one after another, as a BatchSpanProcessor does.
//
//   node burst.js URL PROC K B DIR [WAIT_S]
//
// The spans are made first (BasicTracerProvider into an in-memory
// exporter); then the process creates DIR/ready.PROC and waits (at most
// WAIT_S seconds, default 120) for DIR/go, so that every process of the
// burst starts exporting at the same moment. It prints one line an
// exporter:
//
//   proc=P exporter=E batches=N exported=S lost=L requests=R noresp=X
//       ms=T rss_mb=M code_200=n code_503=m ...
//
// exported: spans whose export result was SUCCESS; lost: FAILED. requests:
// HTTP requests the exporter made (retries count), code_NNN those answered
// NNN, noresp those that got no answer (refused, reset, timed out); ms
// its time exporting, rss_mb the process's resident memory at the end. The
// requests are counted by wrapping http.request before the exporter loads
// (module.syncBuiltinESMExports, as the exporter imports 'http' as an ES
// module) and attributed to their exporter by an AsyncLocalStorage.
// Exit status 0 when the burst ran (whatever it lost), 2 on a usage or
// start error.
'use strict';
const fs = require('fs');
const path = require('path');
const http = require('http');
const { AsyncLocalStorage } = require('async_hooks');

const BATCH = 512;
const [url, procArg, kArg, bArg, dir, waitArg] = process.argv.slice(2);
const proc = Number(procArg), K = Number(kArg), B = Number(bArg);
const waitS = Number(waitArg || 120);
if (!url || !dir || !(K > 0) || !(B > 0) || !(proc >= 0)) {
	console.error('usage: node burst.js URL PROC K B DIR [WAIT_S]');
	process.exit(2);
}

// Count every request the exporters make, and its answer.
const als = new AsyncLocalStorage();
const stray = { requests: 0, noresp: 0, codes: {} };
const originalRequest = http.request;
http.request = function countedRequest(...args) {
	const req = originalRequest.apply(this, args);
	const st = als.getStore() || stray;
	let answered = false;
	st.requests++;
	req.on('response', (res) => {
		answered = true;
		st.codes[res.statusCode] = (st.codes[res.statusCode] || 0) + 1;
	});
	req.on('close', () => { if (!answered) st.noresp++; });
	return req;
};
require('module').syncBuiltinESMExports();

const api = require('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor, InMemorySpanExporter } =
	require('@opentelemetry/sdk-trace-base');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-proto');

const ROUTES = [
	['GET', '/api/cart/{id}', api.SpanKind.SERVER, 200],
	['POST', '/api/checkout', api.SpanKind.SERVER, 201],
	['GET', '/api/catalog/items', api.SpanKind.SERVER, 200],
	['PUT', '/api/profile/{user}', api.SpanKind.CLIENT, 204],
];
const AGENTS = ['Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0',
	'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) Safari/605.1.15',
	'okhttp/4.12.0', 'curl/8.5.0'];

// A batch of 512 finished spans, as a BatchSpanProcessor hands them over.
function makeBatch(tracer, memory, e, b) {
	const t0 = Date.now() - 60000;
	let previous = null;
	for (let i = 0; i < BATCH; i++) {
		const n = (b * BATCH + i);
		const [method, route, kind, code] = ROUTES[n % ROUTES.length];
		const id = (proc * 1000003 + e * 7919 + n).toString(16);
		const target = route.replace(/\{[a-z]+\}/, id);
		const failed = n % 97 === 0;
		const start = t0 + (n % 50000);
		const opts = {
			kind,
			startTime: start,
			attributes: {
				'http.method': method,
				'http.request.method': method,
				'http.route': route,
				'url.path': target,
				'url.scheme': 'http',
				'url.query': 'page=' + (n % 20) + '&lang=en',
				'http.status_code': failed ? 500 : code,
				'http.response.status_code': failed ? 500 : code,
				'http.flavor': '1.1',
				'network.protocol.version': '1.1',
				'net.peer.name': 'shop-frontend-' + (n % 8) + '.internal',
				'net.peer.port': 30000 + (n % 2000),
				'server.address': 'api.shop.example.com',
				'server.port': 8080,
				'client.address': '10.1.' + (n % 250) + '.' + ((n >> 3) % 250),
				'user_agent.original': AGENTS[n % AGENTS.length],
				'http.request.body.size': 120 + (n % 900),
				'http.response.body.size': 2000 + (n % 30000),
				'enduser.id': 'user-' + (n % 5000),
				'thread.name': 'worker-' + (n % 16),
			},
		};
		if (previous && i % 16 === 0)
			opts.links = [{ context: previous, attributes: { 'link.reason': 'retry-of' } }];
		const span = tracer.startSpan(method + ' ' + route, opts);
		if (i % 8 === 0)
			span.addEvent('cache.miss', { 'cache.key': 'item:' + id }, start + 1);
		if (failed) {
			span.addEvent('exception', { 'exception.type': 'UpstreamTimeout',
				'exception.message': 'upstream did not answer in 2 s' }, start + 2);
			span.setStatus({ code: api.SpanStatusCode.ERROR, message: 'upstream timeout' });
		}
		span.end(start + 3 + (n % 250));
		previous = span.spanContext();
	}
	const spans = memory.getFinishedSpans().slice();
	memory.reset();
	return spans;
}

function exportBatch(exporter, spans) {
	return new Promise((resolve) => exporter.export(spans, resolve));
}

function sleep(ms) {
	return new Promise((resolve) => setTimeout(resolve, ms));
}

async function runExporter(x, batches) {
	const begin = Date.now();
	for (const spans of batches) {
		const result = await exportBatch(x.exporter, spans);
		if (result.code === 0) {
			x.exported += spans.length;
		} else {
			x.lost += spans.length;
			if (!x.error)
				x.error = String((result.error && result.error.message) || result.error || result.code);
		}
		x.batches++;
	}
	x.ms = Date.now() - begin;
}

async function main() {
	const memory = new InMemorySpanExporter();
	const provider = new BasicTracerProvider({
		resource: resourceFromAttributes({
			'service.name': 'burst-' + proc,
			'service.version': '1.4.2',
			'deployment.environment': 'test',
			'host.name': 'node-' + proc,
		}),
		spanProcessors: [new SimpleSpanProcessor(memory)],
	});
	const tracer = provider.getTracer('pcp-otlp-burst', '1.0.0');

	// Each exporter's batches, made before the start: 2 distinct ones an
	// exporter, exported in turn (the spans are counted, not told apart),
	// which keeps 40 processes' start and memory small. The exporter
	// serializes each batch anew, as it would new spans.
	const exporters = [];
	for (let e = 0; e < K; e++) {
		const distinct = [];
		for (let b = 0; b < Math.min(B, 2); b++)
			distinct.push(makeBatch(tracer, memory, e, b));
		const batches = [];
		for (let b = 0; b < B; b++)
			batches.push(distinct[b % distinct.length]);
		exporters.push({ e, exporter: new OTLPTraceExporter({ url: url + '/v1/traces' }),
			batches: 0, exported: 0, lost: 0, error: null, ms: 0,
			st: { requests: 0, noresp: 0, codes: {} }, list: batches });
	}

	// Warm up the serializer the exporter uses, as in a service that has
	// run a while: a cold V8 takes 5 times longer over the first batches,
	// which spread the burst out on a small machine.
	try {
		const { ProtobufTraceSerializer } = require('@opentelemetry/otlp-transformer');
		for (let i = 0; i < 3; i++)
			ProtobufTraceSerializer.serializeRequest(exporters[i % K].list[0]);
	} catch (e) {
		console.error('burst.js ' + proc + ': no warm-up: ' + e.message);
	}

	fs.writeFileSync(path.join(dir, 'ready.' + proc), '');
	const deadline = Date.now() + waitS * 1000;
	while (!fs.existsSync(path.join(dir, 'go'))) {
		if (Date.now() > deadline) {
			console.error('burst.js ' + proc + ': no start signal in ' + waitS + ' s');
			process.exit(2);
		}
		await sleep(5);
	}

	await Promise.all(exporters.map((x) =>
		als.run(x.st, () => runExporter(x, x.list))));
	await Promise.all(exporters.map((x) => x.exporter.shutdown()));
	await provider.shutdown();

	for (const x of exporters) {
		const codes = Object.keys(x.st.codes).sort()
			.map((c) => ' code_' + c + '=' + x.st.codes[c]).join('');
		console.log('proc=' + proc + ' exporter=' + x.e + ' batches=' + x.batches +
			' exported=' + x.exported + ' lost=' + x.lost + ' requests=' + x.st.requests +
			' noresp=' + x.st.noresp + ' ms=' + x.ms +
			' rss_mb=' + Math.round(process.memoryUsage().rss / 1048576) + codes);
		if (x.error)
			console.error('burst.js ' + proc + '/' + x.e + ': first failure: ' + x.error);
	}
	if (stray.requests)
		console.log('proc=' + proc + ' exporter=stray requests=' + stray.requests +
			' noresp=' + stray.noresp);
}

main().catch((e) => { console.error(e); process.exit(2); });
