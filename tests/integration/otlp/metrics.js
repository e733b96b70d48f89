// SPDX-License-Identifier: GPL-2.0-or-later
// Exports OpenTelemetry metrics of known values with the stock SDK
// (sdk-metrics' MeterProvider and PeriodicExportingMetricReader, the
// exporter-metrics-otlp-http, -proto or -grpc exporter) to an OTLP/HTTP or
// OTLP/gRPC endpoint, in three exports, and prints what the trace agent
// must then serve under trace.otel (pmda_trace/otel/otel.h), for
// tests/integration/otlp_metrics.sh:
//   PROTOCOL=http/json|http/protobuf|grpc TEMPORALITY=cumulative|delta|deltaall
//   ENDPOINT=http://HOST:PORT SERVICE=NAME [NAMESPACE=NS] [INSTANCE_ID=ID]
//   [COMPRESSION=gzip] node metrics.js
// ENDPOINT is without /v1/metrics. TEMPORALITY delta is the exporter's
// delta preference (Counter, Histogram and gauges delta, UpDownCounter
// cumulative, as the OpenTelemetry specification has it); deltaall makes
// the UpDownCounter delta too (a non-monotonic delta Sum, which the agent
// adds up as well).
//
// Standard output, one line an expectation, fields separated by tabs:
//   value  METRIC  INSTANCE  VALUE     pminfo -f shows VALUE for INSTANCE
//   desc   METRIC  TYPE  SEM  UNITS    pminfo -d's words ("64-bit int", "counter", "count")
//   ilabel METRIC  INSTANCE  KEY  JSON the instance's label KEY is JSON
//   mlabel METRIC  KEY  JSON           the metric's (item) label KEY is JSON
//   text   METRIC  TEXT                pminfo -t's one-line help contains TEXT
//   series PREFIX                      the instances of this run: no other of PREFIX
//   points N                           data points exported (accepted by the agent)
// computed from what this program recorded, never from the agent; the
// comparator is tests/integration/otlp_metrics.py. Exits 0 only when
// every export succeeded with no point rejected: the exporter's result
// (a wrapper around the stock exporter), and every error the SDK logs
// (diag) or hands its global error handler.
'use strict';
const api = require('@opentelemetry/api');
const core = require('@opentelemetry/core');
const { MeterProvider, PeriodicExportingMetricReader, AggregationTemporality } =
	require('@opentelemetry/sdk-metrics');
const { defaultResource, resourceFromAttributes } = require('@opentelemetry/resources');

const env = process.env;
const PROTOCOL = env.PROTOCOL || 'http/protobuf';
const TEMPORALITY = env.TEMPORALITY || 'cumulative';
const ENDPOINT = env.ENDPOINT;
const SERVICE = env.SERVICE;
const NAMESPACE = env.NAMESPACE || '';
const INSTANCE_ID = env.INSTANCE_ID || '';
const COMPRESSION = env.COMPRESSION || 'none';
const PACKAGES = { 'http/json': '@opentelemetry/exporter-metrics-otlp-http',
	'http/protobuf': '@opentelemetry/exporter-metrics-otlp-proto',
	'grpc': '@opentelemetry/exporter-metrics-otlp-grpc' };
if (!PACKAGES[PROTOCOL] || !['cumulative', 'delta', 'deltaall'].includes(TEMPORALITY) ||
    !ENDPOINT || !SERVICE) {
	console.error('usage: PROTOCOL=http/json|http/protobuf|grpc TEMPORALITY=cumulative|delta|deltaall ' +
		'ENDPOINT=http://HOST:PORT SERVICE=NAME [NAMESPACE=NS] [INSTANCE_ID=ID] [COMPRESSION=gzip] node metrics.js');
	process.exit(2);
}

// Failures: what the SDK logs at error level, a partial success with
// points rejected (the exporters log it as a warning), an export's result.
const { fail, install, count: failures } = require('./failures.js');
install(api);
core.setGlobalErrorHandler((e) => fail('global error handler:', e && e.message ? e.message : e));

// The stock exporter, its export wrapped to see each result.
const { OTLPMetricExporter } = require(PACKAGES[PROTOCOL]);
const { AggregationTemporalityPreference } = require('@opentelemetry/exporter-metrics-otlp-http');
const stock = new OTLPMetricExporter({
	url: PROTOCOL === 'grpc' ? ENDPOINT : ENDPOINT + '/v1/metrics',
	compression: COMPRESSION === 'gzip' ? 'gzip' : 'none',
	temporalityPreference: TEMPORALITY === 'cumulative'
		? AggregationTemporalityPreference.CUMULATIVE : AggregationTemporalityPreference.DELTA,
});
let attempts = 0, exported = 0, points = 0;
const exporter = {
	export(metrics, done) {
		const n = ++attempts;
		const sent = metrics.scopeMetrics.reduce((x, sm) =>
			x + sm.metrics.reduce((y, m) => y + m.dataPoints.length, 0), 0);
		stock.export(metrics, (result) => {
			if (result.code === core.ExportResultCode.SUCCESS) {
				exported++;
				points += sent;
			} else
				fail('export', n, 'failed:', result.error ? result.error.message || result.error : result.code);
			done(result);
		});
	},
	selectAggregationTemporality: (type) => TEMPORALITY === 'deltaall'
		? AggregationTemporality.DELTA : stock.selectAggregationTemporality(type),
	selectAggregation: (type) => stock.selectAggregation(type),
	forceFlush: () => stock.forceFlush(),
	shutdown: () => stock.shutdown(),
};

const attributes = { 'service.name': SERVICE };
if (NAMESPACE)
	attributes['service.namespace'] = NAMESPACE;
if (INSTANCE_ID)
	attributes['service.instance.id'] = INSTANCE_ID;
// an hour: no export but the three forceFlush calls below
const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3600000,
	exportTimeoutMillis: 10000 });
const provider = new MeterProvider({
	resource: defaultResource().merge(resourceFromAttributes(attributes)),
	readers: [reader],
});
const meter = provider.getMeter('pcp-otlp-metrics-test', '1.0.0');

// What is recorded, export by export.
const A = { 'http.route': '/users/:id', 'http.request.method': 'GET' };
const B = { 'http.route': '/cart items', 'http.request.method': 'POST' };
const H = { 'http.route': '/users/:id' };
const T = { 'sensor.location': 'rack 1' };
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
// dyadic values: every count, sum and bucket exact in binary
const PLAN = [
	{ a: 3, b: 1, queue: 100, durations: [0.00390625, 0.0078125, 0.01953125],
	  temperature: 20.25, load: 0.5 },
	{ a: 4, b: 2, queue: -30, durations: [0.046875, 0.3125, 0.75, 2],
	  temperature: 21.5, load: 1.25 },
	// B has nothing in the last export: under delta it is not sent again
	{ a: 5, b: 0, queue: 5, durations: [0.0234375, 0.03125, 0.046875, 0.0625, 0.0703125,
		0.078125, 0.09375, 0.125, 0.375, 0.625],
	  temperature: 22.75, load: 0.75 },
];

const requests = meter.createCounter('pcptest.http.requests', { unit: '{request}',
	valueType: api.ValueType.INT, description: 'Requests served by the test' });
const queue = meter.createUpDownCounter('pcptest.queue-bytes', { unit: 'By',
	valueType: api.ValueType.INT, description: 'Bytes queued by the test' });
const duration = meter.createHistogram('pcptest.request.duration', { unit: 's',
	description: 'Request durations of the test', advice: { explicitBucketBoundaries: BOUNDS } });
let step = 0;
meter.createObservableGauge('pcptest.temperature', { unit: 'Cel',
	description: 'Temperature of the test' })
	.addCallback((r) => r.observe(PLAN[step].temperature, T));
meter.createObservableGauge('pcptest.load.1m', { unit: '1', description: 'Load of the test' })
	.addCallback((r) => r.observe(PLAN[step].load));

// ---- the mapping of otel.h, applied to what was recorded ----

// a PMNS path: each component's characters PCP refuses as '_', an 'x'
// before one that does not start with a letter
const pcpName = (name) => 'trace.otel.' + name.split('.')
	.map((c) => c.replace(/[^A-Za-z0-9_]/g, '_'))
	.map((c) => (/^[A-Za-z]/.test(c) ? c : 'x' + c)).join('.');
// [NAMESPACE/]SERVICE[:INSTANCE_ID][{KEY=VALUE,...}], keys sorted, spaces as '_'
const series = (attrs) => {
	const keys = Object.keys(attrs).sort();
	const tail = keys.length ? '{' + keys.map((k) => k + '=' + attrs[k]).join(',') + '}' : '';
	return ((NAMESPACE ? NAMESPACE + '/' : '') + SERVICE + (INSTANCE_ID ? ':' + INSTANCE_ID : '') +
		tail).replace(/ /g, '_');
};
const labelName = (key) => key.replace(/[^A-Za-z0-9_]/g, '_');
// C's %.Ng
const fmtG = (x, p) => {
	if (x === 0)
		return '0';
	const [m, e] = x.toExponential(p - 1).split('e');
	const exp = parseInt(e, 10);
	const strip = (s) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
	if (exp < -4 || exp >= p)
		return strip(m) + 'e' + (exp < 0 ? '-' : '+') + String(Math.abs(exp)).padStart(2, '0');
	return strip(x.toFixed(Math.max(0, p - 1 - exp)));
};
// common/label_text.h's sdk_le_text
const leText = (bound) => {
	if (bound === Infinity)
		return '+Inf';
	let digits = 1;
	for (let x = Math.abs(bound); x >= 10 && digits < 17; x /= 10)
		digits++;
	let s;
	for (; digits <= 17; digits++) {
		s = fmtG(bound, digits);
		if (Number(s) === bound)
			break;
	}
	return s;
};
// Prometheus' histogram_quantile over non-cumulative bucket counts
const quantile = (q, counts) => {
	const total = counts.reduce((x, y) => x + y, 0);
	const rank = q * total;
	let cum = 0;
	for (let i = 0; i < counts.length; i++) {
		if (cum + counts[i] >= rank && counts[i] > 0) {
			if (i === BOUNDS.length)	// +Inf: the highest finite bound
				return BOUNDS[BOUNDS.length - 1];
			const lo = i === 0 ? 0 : BOUNDS[i - 1];
			return lo + (BOUNDS[i] - lo) * (rank - cum) / counts[i];
		}
		cum += counts[i];
	}
	return null;
};
const bucketOf = (v) => { const i = BOUNDS.findIndex((b) => v <= b); return i < 0 ? BOUNDS.length : i; };
const num = String;

const out = [];
const line = (...f) => out.push(f.join('\t'));
const resourceLabels = (metric, inst) => {
	line('ilabel', metric, inst, 'service_name', JSON.stringify(SERVICE));
	if (NAMESPACE)
		line('ilabel', metric, inst, 'service_namespace', JSON.stringify(NAMESPACE));
	if (INSTANCE_ID)
		line('ilabel', metric, inst, 'service_instance_id', JSON.stringify(INSTANCE_ID));
};
const attrLabels = (metric, inst, attrs) => {
	resourceLabels(metric, inst);
	for (const k of Object.keys(attrs))
		line('ilabel', metric, inst, labelName(k), JSON.stringify(attrs[k]));
};

function expectations() {
	const sum = (k) => PLAN.reduce((x, p) => x + p[k], 0);
	const last = PLAN[PLAN.length - 1];
	line('series', series({}));
	line('points', points);

	// Counter: a monotonic Sum of ints, {request} is a count
	let m = pcpName('pcptest.http.requests');
	line('desc', m, '64-bit int', 'counter', 'count');
	line('mlabel', m, 'otel_name', JSON.stringify('pcptest.http.requests'));
	line('text', m, 'Requests served by the test');
	line('value', m, series(A), num(sum('a')));
	line('value', m, series(B), num(sum('b')));
	attrLabels(m, series(A), A);
	attrLabels(m, series(B), B);

	// UpDownCounter: a Sum not monotonic, instant, By is bytes
	m = pcpName('pcptest.queue-bytes');
	line('desc', m, '64-bit int', 'instant', 'byte');
	line('mlabel', m, 'otel_name', JSON.stringify('pcptest.queue-bytes'));
	line('value', m, series({}), num(sum('queue')));
	resourceLabels(m, series({}));

	// Histogram: a subtree
	const root = pcpName('pcptest.request.duration');
	const counts = new Array(BOUNDS.length + 1).fill(0);
	const lastCounts = new Array(BOUNDS.length + 1).fill(0);
	let total = 0, n = 0;
	PLAN.forEach((p, i) => p.durations.forEach((v) => {
		counts[bucketOf(v)]++;
		if (i === PLAN.length - 1)
			lastCounts[bucketOf(v)]++;
		total += v;
		n++;
	}));
	const s = series(H);
	for (const [leaf, type, sem, units] of [['count', '64-bit unsigned int', 'counter', 'count'],
		['sum', 'double', 'counter', 'sec'], ['bucket', '64-bit unsigned int', 'counter', 'count'],
		['p50', 'double', 'instant', 'sec'], ['p90', 'double', 'instant', 'sec'],
		['p99', 'double', 'instant', 'sec']]) {
		line('desc', root + '.' + leaf, type, sem, units);
		line('mlabel', root + '.' + leaf, 'otel_name', JSON.stringify('pcptest.request.duration'));
	}
	line('value', root + '.count', s, num(n));
	line('value', root + '.sum', s, num(total));
	attrLabels(root + '.count', s, H);
	let cum = 0;
	[...BOUNDS, Infinity].forEach((b, i) => {
		cum += counts[i];
		const inst = s + ':' + leText(b);
		line('value', root + '.bucket', inst, num(cum));
		line('ilabel', root + '.bucket', inst, 'le', JSON.stringify(leText(b)));
		if (b === Infinity)
			attrLabels(root + '.bucket', inst, H);
	});
	// over the counts the last export added
	for (const [leaf, q] of [['p50', 0.5], ['p90', 0.9], ['p99', 0.99]])
		line('value', root + '.' + leaf, s, num(quantile(q, lastCounts)));

	// ObservableGauges: doubles, instant, the last value; Cel is not in pmUnits
	m = pcpName('pcptest.temperature');
	line('desc', m, 'double', 'instant', 'none');
	line('mlabel', m, 'otel_name', JSON.stringify('pcptest.temperature'));
	line('mlabel', m, 'otel_unit', JSON.stringify('Cel'));
	line('value', m, series(T), num(last.temperature));
	attrLabels(m, series(T), T);
	m = pcpName('pcptest.load.1m');
	line('desc', m, 'double', 'instant', 'none');
	line('mlabel', m, 'otel_name', JSON.stringify('pcptest.load.1m'));
	line('value', m, series({}), num(last.load));
}

async function main() {
	for (step = 0; step < PLAN.length; step++) {
		const p = PLAN[step];
		requests.add(p.a, A);
		if (p.b)
			requests.add(p.b, B);
		queue.add(p.queue);
		p.durations.forEach((v) => duration.record(v, H));
		// collect (the gauges' callbacks) and export, now
		await provider.forceFlush();
	}
	// no provider.shutdown(): it would export a fourth time, an export with
	// nothing added to the histogram (whose percentiles are over the counts
	// added since the point before)
	await stock.shutdown();
	if (exported !== PLAN.length)
		fail('exports that succeeded:', exported, 'of', PLAN.length);
	expectations();
	process.stdout.write(out.join('\n') + '\n');
	console.error(`${SERVICE}: ${exported} exports (${points} data points) by ${PROTOCOL} (${TEMPORALITY}), ` +
		`${failures()} failures`);
	process.exit(failures() ? 1 : 0);
}

main().catch((e) => { console.error(e); process.exit(2); });
