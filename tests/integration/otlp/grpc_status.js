// SPDX-License-Identifier: GPL-2.0-or-later
// One unary call of an empty message by grpc-js (the library the stock
// Node SDK's gRPC exporters use) to OTLP/gRPC's trace Export, printing
// the status code it ends with. curl cannot stand in: after an answer
// that comes before the body is sent (Trailers-Only, then RST_STREAM
// NO_ERROR, as gRPC servers do) curl 7.88 sometimes reports a framing
// error and drops the answer.
//   node grpc_status.js HOST:PORT [authorization header value]
// The client's source address is HOST itself when HOST is one of this
// host's addresses (the tests' network namespaces).
'use strict';
const grpc = require('@grpc/grpc-js');
const [target, auth] = process.argv.slice(2);
const client = new grpc.Client(target, grpc.credentials.createInsecure());
const md = new grpc.Metadata();
if (auth)
	md.set('authorization', auth);
const path = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';
client.makeUnaryRequest(path, (b) => b, (b) => b, Buffer.alloc(0), md,
	{ deadline: Date.now() + 10000 }, (err) => {
		console.log(err ? err.code : 0);
		client.close();
	});
