// SPDX-License-Identifier: GPL-2.0-or-later
// OTLP metrics requests as the stock OpenTelemetry Node SDK writes them,
// for the seeds of tests/fuzz/fuzz_otel_decode.c and the unit test
// tests/unit/pmda_trace/test_otel_decode.c (which decodes each request in
// both encodings and wants the same points from either):
//   NODE_PATH=build/npm/node_modules node tests/fuzz/otel_metrics.js DIR
// (build/npm is what make check installs for tests/integration/otlp) writes
// DIR/sdk-protobuf-NAME and DIR/sdk-json-NAME, each the request behind the
// byte that tells the fuzzer its encoding (0 protobuf, 1 JSON), made by
// the transformer's ProtobufMetricsSerializer and JsonMetricsSerializer:
//  - cumulative, delta: real instruments of sdk-metrics (an int counter,
//    a double up-down counter, a histogram, an exponential histogram, an
//    observable gauge) collected twice with that temporality;
//  - values: a hand-made ResourceMetrics of every attribute value type
//    (strings with control characters and non-ASCII, ints, doubles, bools,
//    bytes, arrays, nested key-value lists), a histogram without a sum and
//    an exponential histogram with negative buckets.
'use strict';
const fs = require('fs');
const path = require('path');
const { ValueType } = require('@opentelemetry/api');
const { resourceFromAttributes } = require('@opentelemetry/resources');
const { MeterProvider, MetricReader, AggregationTemporality, AggregationType, DataPointType } =
	require('@opentelemetry/sdk-metrics');
const { ProtobufMetricsSerializer, JsonMetricsSerializer } = require('@opentelemetry/otlp-transformer');

const [dir] = process.argv.slice(2);

class Reader extends MetricReader {
	constructor(temporality) {
		super({ aggregationTemporalitySelector: () => temporality });
	}
	async onForceFlush() {}
	async onShutdown() {}
}

function write(name, resourceMetrics) {
	const pb = ProtobufMetricsSerializer.serializeRequest(resourceMetrics);
	const json = JsonMetricsSerializer.serializeRequest(resourceMetrics);

	fs.writeFileSync(path.join(dir, 'sdk-protobuf-' + name), Buffer.concat([Buffer.from([0]), pb]));
	fs.writeFileSync(path.join(dir, 'sdk-json-' + name), Buffer.concat([Buffer.from([1]), json]));
}

async function instruments(name, temporality) {
	const reader = new Reader(temporality);
	const provider = new MeterProvider({
		resource: resourceFromAttributes({ 'service.name': 'shop', 'service.namespace': 'acme',
			'service.instance.id': 'shop-1', 'host.name': 'box', 'process.pid': 4242 }),
		views: [{ instrumentName: 'rpc.payload.size',
			aggregation: { type: AggregationType.EXPONENTIAL_HISTOGRAM } }],
		readers: [reader],
	});
	const meter = provider.getMeter('pcp-fuzz-metrics', '1.2.3');
	const requests = meter.createCounter('http.server.requests', { description: 'Requests served',
		unit: '{request}', valueType: ValueType.INT });
	const queue = meter.createUpDownCounter('queue.depth', { unit: '1' });
	const latency = meter.createHistogram('http.server.request.duration', { unit: 's',
		advice: { explicitBucketBoundaries: [0.005, 0.05, 0.5, 5] } });
	const payload = meter.createHistogram('rpc.payload.size', { unit: 'By' });
	const temp = meter.createObservableGauge('device.temperature', { unit: 'Cel' });
	let t = 20.5;

	temp.addCallback((r) => {
		r.observe(t, { 'device.id': 'a' });
		r.observe(-t, { 'device.id': 'b' });
	});
	for (let round = 0; round < 2; round++) {
		for (let i = 0; i < 7; i++) {
			const route = i % 2 ? '/cart' : '/items';
			requests.add(i + 1, { 'http.route': route, 'http.response.status_code': 200 + (i % 3) * 100 });
			queue.add(i % 3 - 0.5, { queue: 'jobs' });
			latency.record(0.001 * (i + 1) * (round + 1) * 13, { 'http.route': route });
			payload.record((i + 1) * 1000);
		}
		payload.record(0);
		t += 1.25;
		const { resourceMetrics, errors } = await reader.collect();

		if (errors.length > 0)
			throw errors[0];
		write(name + '-' + (round + 1), resourceMetrics);
	}
	await provider.shutdown();
}

function values() {
	const now = [1700000000, 123456789];
	const start = [1699999990, 0];
	const attrs = {
		's': 'plain', 'utf8': 'caf\u00e9 \u2603 \u{1f600}', 'ctl': 'tab\there\nnl\u0001\u007f\u0085end',
		'quote': 'say "hi" \\ back', 'i': 42, 'neg': -7, 'big': 9007199254740991, 'd': 3.25,
		'tiny': 1e-300, 'bt': true, 'bf': false, 'bytes': new Uint8Array([0, 1, 254, 255, 16]),
		'arr': ['x', 2, 2.5, true, ['in']], 'kv': { 'a': 1, 'b': { 'c': 'deep', 'd': [1, 2] } },
		'empty': '',
	};
	const scope = { name: 'pcp-fuzz-values', version: '0.0.1' };
	const point = (value, attributes) => ({ startTime: start, endTime: now, attributes, value });

	write('values', {
		resource: resourceFromAttributes({ 'service.name': 'vals', 'k8s.pod.labels': { app: 'x' },
			'list': [1, 2, 3] }),
		scopeMetrics: [{
			scope,
			metrics: [{
				descriptor: { name: 'gauge.int', description: 'an int gauge', unit: '1', valueType: ValueType.INT },
				dataPointType: DataPointType.GAUGE, aggregationTemporality: AggregationTemporality.CUMULATIVE,
				dataPoints: [point(-5, attrs), point(7, {})],
			}, {
				descriptor: { name: 'sum.double', description: '', unit: 'ms', valueType: ValueType.DOUBLE },
				dataPointType: DataPointType.SUM, isMonotonic: false,
				aggregationTemporality: AggregationTemporality.DELTA,
				dataPoints: [point(-0.125, { 'k': 'v' })],
			}, {
				descriptor: { name: 'hist.nosum', description: 'no sum', unit: 's', valueType: ValueType.DOUBLE },
				dataPointType: DataPointType.HISTOGRAM,
				aggregationTemporality: AggregationTemporality.CUMULATIVE,
				dataPoints: [point({ count: 6, sum: undefined, min: undefined, max: undefined,
					buckets: { boundaries: [1, 2.5, 10], counts: [1, 2, 0, 3] } }, { 'h': 1 })],
			}, {
				descriptor: { name: 'exphist.signed', description: 'both signs', unit: 'By', valueType: ValueType.DOUBLE },
				dataPointType: DataPointType.EXPONENTIAL_HISTOGRAM,
				aggregationTemporality: AggregationTemporality.DELTA,
				dataPoints: [point({ count: 12, sum: -3.5, min: -40, max: 60, scale: -2, zeroCount: 1,
					positive: { offset: -1, bucketCounts: [1, 0, 4] },
					negative: { offset: 3, bucketCounts: [2, 4] } }, { 'e': 'x' })],
			}],
		}],
	});
}

async function main() {
	fs.mkdirSync(dir, { recursive: true });
	await instruments('cumulative', AggregationTemporality.CUMULATIVE);
	await instruments('delta', AggregationTemporality.DELTA);
	values();
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
