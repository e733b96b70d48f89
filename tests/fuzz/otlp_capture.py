#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Captures what a real OTLP/HTTP exporter sends, as seeds of
tests/fuzz/fuzz_otlp_decode.c: answers every POST 200 (an empty
ExportTraceServiceResponse) and writes its body, behind the byte that tells
the fuzzer what it is (0 protobuf, 1 JSON, 2 gzip), to OUTDIR/sdk-KIND-N.
Takes Content-Length and chunked bodies (the Node SDK sends chunked).
    python3 tests/fuzz/otlp_capture.py PORT OUTDIR
The sdk-* seeds in tests/fuzz/corpus/otlp_decode came from the stock Node
SDK pinned in tests/integration/otlp (build/npm after make check):
    NODE_PATH=build/npm/node_modules node tests/integration/otlp/export.js \\
        http://127.0.0.1:PORT proto|json none|gzip PLAN
with PLAN '[{"service":"shop","name":"checkout","kind":"server",
"ms":[12,250,1000],"errors":1},{"service":"shop","name":"GET /items",
"kind":"client","ms":[3,7],"errors":0},{"service":"billing",
"name":"charge-card","kind":"internal","ms":[40],"errors":1}]' (shop: 5
spans, billing: 1; one request a service), and sdk-demo-protobuf from
demos/acme/otel/shop.js (spans with attributes, charge-card a child of checkout).
"""
import http.server
import os
import sys

OUT = sys.argv[2]
COUNT = [0]


class Capture(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def body(self):
        if self.headers.get("Content-Length") is not None:
            return self.rfile.read(int(self.headers["Content-Length"]))
        data = b""
        while True:
            size = int(self.rfile.readline().strip().split(b";")[0], 16)
            if size == 0:
                self.rfile.readline()
                return data
            data += self.rfile.read(size)
            self.rfile.readline()

    def do_POST(self):
        data = self.body()
        gz = self.headers.get("Content-Encoding", "") == "gzip"
        js = "json" in self.headers.get("Content-Type", "")
        kind = ("gzip-" if gz else "") + ("json" if js else "protobuf")
        COUNT[0] += 1
        with open(os.path.join(OUT, "sdk-%s-%d" % (kind, COUNT[0])), "wb") as f:
            f.write(bytes([2 if gz else 1 if js else 0]) + data)
        answer = b"{}" if js else b""
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if js else "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Capture).serve_forever()
