// SPDX-License-Identifier: GPL-2.0-or-later
// The OTLP/gRPC receiver's answers to requests the stock exporter never
// sends, for tests/integration/otlp_grpc.sh. Node's own http2 module (h2c
// with prior knowledge) for the calls; raw HTTP/2 frames over a socket for
// the floods, which a well-behaved client library would not send.
//   node grpc_cases.js PORT CASE...
// Each case prints one JSON line: {case, status, grpc, message, retry,
// accept, data, error, ...}. Cases:
//   good, good_gzip   one span, identity or gzip: 200, grpc-status 0
//   ctype             content-type application/json: HTTP 415
//   path              another method path: grpc-status 12
//   encoding          grpc-encoding deflate: 12 with grpc-accept-encoding
//   oversize          a prefix announcing 20 MiB, nothing after: 8
//   big               a prefix announcing 2 MiB (over a 1 MiB -b): 14 + RetryInfo
//   none, two, short  no message, two, a truncated one: 3
//   garbage           a message that is no request: 3
//   resets            raw: 1000 streams opened and reset at once: GOAWAY
//   flood             raw: 300 streams held open at once: at most the cap served
//   slow              raw: half a message, then silence: closed by the server
'use strict';
const http2 = require('http2');
const net = require('net');
const zlib = require('zlib');

const port = Number(process.argv[2]);
const PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

// protobuf by hand (common/otlp_trace.proto's numbers)
function varint(n) {
	const b = [];
	while (n >= 0x80) {
		b.push((n & 0x7f) | 0x80);
		n = Math.floor(n / 128);
	}
	b.push(n);
	return Buffer.from(b);
}
function ld(num, payload) {
	return Buffer.concat([varint(num << 3 | 2), varint(payload.length), payload]);
}
function fixed64(num, v) {
	const b = Buffer.alloc(9);
	b[0] = num << 3 | 1;
	b.writeBigUInt64LE(BigInt(v), 1);
	return b;
}
// ExportTraceServiceRequest: one span "raw-op" of 5 ms, service "rawsvc"
function request() {
	const now = BigInt(Date.now() - 1000) * 1000000n;
	const span = ld(2, Buffer.concat([ld(5, Buffer.from('raw-op')), fixed64(7, now),
		fixed64(8, now + 5000000n)]));
	const res = ld(1, ld(1, Buffer.concat([ld(1, Buffer.from('service.name')),
		ld(2, ld(1, Buffer.from('rawsvc')))])));
	return ld(1, Buffer.concat([res, ld(2, span)]));
}
function frame(flag, msg, len) {
	const p = Buffer.alloc(5);
	p[0] = flag;
	p.writeUInt32BE(len === undefined ? msg.length : len, 1);
	return Buffer.concat([p, msg]);
}

// RetryInfo's seconds out of a google.rpc.Status (grpc-status-details-bin)
function retrySeconds(b64) {
	if (!b64)
		return null;
	const b = Buffer.from(b64, 'base64');
	const m = b.toString('latin1').indexOf('type.googleapis.com/google.rpc.RetryInfo');
	if (m < 0)
		return -1;
	// Any.value (0x12 len) holds RetryInfo (0x0a len) holding Duration (0x08 varint)
	let i = m + 'type.googleapis.com/google.rpc.RetryInfo'.length;
	if (b[i] !== 0x12 || b[i + 2] !== 0x0a || b[i + 4] !== 0x08)
		return -1;
	return b[i + 5];
}

// one call: headers (besides the pseudo ones), a body to write, and what came back
function call(c, headers, body, opts = {}) {
	return new Promise((resolve) => {
		const out = { status: null, grpc: null, message: null, retry: null, accept: null,
			data: '' };
		const chunks = [];
		const r = c.request(Object.assign({ ':method': 'POST', ':path': PATH,
			'content-type': 'application/grpc', te: 'trailers' }, headers),
		{ endStream: body === null });
		const take = (h) => {
			if (h[':status'] !== undefined)
				out.status = h[':status'];
			if (h['grpc-status'] !== undefined)
				out.grpc = Number(h['grpc-status']);
			if (h['grpc-message'] !== undefined)
				out.message = decodeURIComponent(h['grpc-message']);
			if (h['grpc-status-details-bin'] !== undefined)
				out.retry = retrySeconds(h['grpc-status-details-bin']);
			if (h['grpc-accept-encoding'] !== undefined)
				out.accept = h['grpc-accept-encoding'];
		};
		r.on('response', take);
		r.on('trailers', take);
		r.on('data', (d) => chunks.push(d));
		r.on('error', (e) => { out.error = e.code || String(e); });
		r.on('close', () => {
			out.data = Buffer.concat(chunks).toString('hex');
			out.rst = r.rstCode;
			resolve(out);
		});
		if (body !== null) {
			if (opts.hold)
				r.write(body);
			else
				r.end(body);
		}
		if (opts.hold)	// no end: the server must answer without the rest
			setTimeout(() => r.close(), opts.hold);
	});
}

function connect() {
	return new Promise((resolve, reject) => {
		const c = http2.connect('http://127.0.0.1:' + port);
		c.on('connect', () => resolve(c));
		c.on('error', reject);
	});
}

// raw HTTP/2: the preface, frames, and what the server sends back
function rawFrame(type, flags, id, payload) {
	const h = Buffer.alloc(9);
	h.writeUIntBE(payload.length, 0, 3);
	h[3] = type;
	h[4] = flags;
	h.writeUInt32BE(id, 5);
	return Buffer.concat([h, payload]);
}
// HEADERS of a POST to PATH: static-table indexes and literals without indexing
function rawHeaders(id, endStream) {
	const lit = (idx, v) => Buffer.concat([Buffer.from([idx]), Buffer.from([v.length]),
		Buffer.from(v)]);
	// content-type is index 31: 0x0f then 31 - 15
	const block = Buffer.concat([Buffer.from([0x83, 0x86]), lit(0x04, PATH),
		lit(0x01, '127.0.0.1'), Buffer.from([0x0f]), lit(0x10, 'application/grpc')]);
	return rawFrame(1, 0x4 | (endStream ? 1 : 0), id, block);
}
function rawConn(onFrame) {
	return new Promise((resolve) => {
		const s = net.connect(port, '127.0.0.1');
		let buf = Buffer.alloc(0);
		const info = { closed: false, goaway: null, rst: 0, refused: 0, headers: 0 };
		s.on('connect', () => {
			s.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
			s.write(rawFrame(4, 0, 0, Buffer.alloc(0)));
			resolve({ s, info });
		});
		s.on('data', (d) => {
			buf = Buffer.concat([buf, d]);
			while (buf.length >= 9) {
				const len = buf.readUIntBE(0, 3);
				if (buf.length < 9 + len)
					break;
				const type = buf[3], flags = buf[4], id = buf.readUInt32BE(5) & 0x7fffffff;
				const p = buf.subarray(9, 9 + len);
				buf = buf.subarray(9 + len);
				if (type === 4 && !(flags & 1))
					s.write(rawFrame(4, 1, 0, Buffer.alloc(0)));
				if (type === 7)
					info.goaway = p.readUInt32BE(4);
				if (type === 3) {
					info.rst++;
					if (p.readUInt32BE(0) === 7)
						info.refused++;
				}
				if (type === 1)
					info.headers++;
				if (onFrame)
					onFrame(type, flags, id, p);
			}
		});
		s.on('error', () => {});
		s.on('close', () => { info.closed = true; });
	});
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const cases = {
	async good() {
		const c = await connect();
		const r = await call(c, {}, frame(0, request()));
		c.close();
		return r;
	},
	async good_gzip() {
		const c = await connect();
		const r = await call(c, { 'grpc-encoding': 'gzip' }, frame(1, zlib.gzipSync(request())));
		c.close();
		return r;
	},
	async ctype() {
		const c = await connect();
		const r = await call(c, { 'content-type': 'application/json' }, frame(0, request()));
		c.close();
		return r;
	},
	async path() {
		const c = await connect();
		const r = await call(c, { ':path': '/opentelemetry.proto.collector.logs.v1.LogsService/Export' },
			frame(0, request()));
		c.close();
		return r;
	},
	async encoding() {
		const c = await connect();
		const r = await call(c, { 'grpc-encoding': 'deflate' }, frame(1, zlib.deflateSync(request())));
		c.close();
		return r;
	},
	async oversize() {
		const c = await connect();
		const r = await call(c, {}, frame(0, Buffer.alloc(0), 20 << 20), { hold: 3000 });
		c.close();
		return r;
	},
	async big() {
		const c = await connect();
		const r = await call(c, {}, frame(0, Buffer.alloc(0), 2 << 20), { hold: 3000 });
		c.close();
		return r;
	},
	async none() {
		const c = await connect();
		const r = await call(c, {}, null);
		c.close();
		return r;
	},
	async two() {
		const c = await connect();
		const r = await call(c, {}, Buffer.concat([frame(0, request()), frame(0, request())]));
		c.close();
		return r;
	},
	async short() {
		const c = await connect();
		const m = frame(0, request());
		const r = await call(c, {}, m.subarray(0, m.length - 3));
		c.close();
		return r;
	},
	async garbage() {
		const c = await connect();
		const r = await call(c, {}, frame(0, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f])));
		c.close();
		return r;
	},
	// HEADERS then RST_STREAM(CANCEL), 1000 streams back to back
	async resets() {
		const { s, info } = await rawConn();
		const out = [];
		for (let i = 0; i < 1000; i++) {
			const id = 2 * i + 1;
			out.push(rawHeaders(id, false), rawFrame(0, 0, id, Buffer.from([0, 0, 0, 0x10, 0])),
				rawFrame(3, 0, id, Buffer.from([0, 0, 0, 8])));
		}
		s.write(Buffer.concat(out));
		for (let t = 0; t < 50 && !info.closed; t++)
			await sleep(100);
		s.destroy();
		return info;
	},
	// 300 streams each announcing 64 KiB and sending none of it, held 2 s
	async flood() {
		const { s, info } = await rawConn();
		const out = [];
		for (let i = 0; i < 300; i++) {
			const id = 2 * i + 1;
			out.push(rawHeaders(id, false), rawFrame(0, 0, id, Buffer.from([0, 0, 1, 0, 0])));
		}
		s.write(Buffer.concat(out));
		await sleep(2000);
		s.destroy();
		return info;
	},
	// half a message, then nothing: the server closes the connection
	async slow() {
		const { s, info } = await rawConn();
		const m = frame(0, request());
		const t0 = Date.now();
		s.write(Buffer.concat([rawHeaders(1, false), rawFrame(0, 0, 1, m.subarray(0, 10))]));
		for (let t = 0; t < 300 && !info.closed; t++)
			await sleep(100);
		info.seconds = Math.round((Date.now() - t0) / 1000);
		s.destroy();
		return info;
	},
};

async function main() {
	for (const name of process.argv.slice(3)) {
		let r;
		try {
			r = await cases[name]();
		} catch (e) {
			r = { error: String(e) };
		}
		console.log(JSON.stringify(Object.assign({ case: name }, r)));
	}
	process.exit(0);
}

main();
