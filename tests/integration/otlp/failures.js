// SPDX-License-Identifier: GPL-2.0-or-later
// What the OTLP metrics tests' Node programs (metrics.js, nodesdk.js)
// count as a failed export: anything the SDK logs at error level, and a
// partial success that rejected something (the exporters log those as a
// warning). install(api) sets the SDK's diag logger; fail() counts one
// more; count() says how many so far.
'use strict';

let failures = 0;

function fail(...args) {
	failures++;
	console.error('FAILED:', ...args.map((a) => (a && a.message ? a.message : a)));
}

// a partial success's count of rejections (a string, number or Long; NaN: not JSON)
function rejected(text) {
	let ps;

	try {
		ps = JSON.parse(text);
	} catch (e) {
		return NaN;
	}
	return ['rejectedSpans', 'rejectedDataPoints'].reduce((n, k) => {
		const v = ps[k];
		return n + (v == null ? 0 : typeof v === 'object' ? v.low + v.high * 4294967296 : Number(v));
	}, 0);
}

function install(api) {
	api.diag.setLogger({
		error: (...a) => fail('diag error:', ...a),
		warn: (m, ...a) => {
			if (/Partial Success/.test(m) && !(rejected(a[0]) === 0))
				fail('diag warn:', m, ...a);
			else
				console.error('diag warn:', m, ...a);
		},
		info: () => {}, debug: () => {}, verbose: () => {},
	}, api.DiagLogLevel.WARN);
}

module.exports = { fail, rejected, install, count: () => failures };
