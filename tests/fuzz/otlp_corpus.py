#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Writes the seeds of tests/fuzz/fuzz_otlp_decode.c into
tests/fuzz/corpus/otlp_decode: OTLP trace export requests in protobuf
(encoded here by hand from common/otlp_trace.proto's field numbers), in
JSON and gzipped, each behind the byte that tells the target what it is
(0 protobuf, 1 JSON, 2 gzip). Run from the top of the tree; the output is
the same every time (gzip's mtime is 0)."""
import gzip
import json
import os
import sys

sys.path.insert(0, "tests/lib")
from otlp_pb import field, fixed64, msg, string, varint  # noqa: E402

OUT = "tests/fuzz/corpus/otlp_decode"


def kv(num, key, value):
    # KeyValue{key=1, value=2: AnyValue{string_value=1}}
    return msg(num, string(1, key), msg(2, string(1, value)))


def nested_any(depth):
    # AnyValue{array_value=5: ArrayValue{values=1: AnyValue{...}}}
    v = string(1, "leaf")
    for _ in range(depth):
        v = msg(5, msg(1, v))
    return v


def span(name, kind, status, start, end, extra=b""):
    return msg(2, field(1, 2, bytes(16)), field(2, 2, bytes(8)), string(5, name),
               field(6, 0, varint(kind)), fixed64(7, start), fixed64(8, end),
               msg(15, string(2, "why"), field(3, 0, varint(status))), extra)


def request():
    r1 = msg(1, msg(1, kv(1, "service.name", "checkout"), kv(1, "host.name", "box")),
             msg(2, msg(1, string(1, "lib"), string(2, "1.0")),
                 span("GET /cart", 2, 1, 1000, 2000,
                      msg(9, string(1, "deep"), msg(2, nested_any(4)))),
                 span("db query", 3, 2, 1100, 1900,
                      msg(11, fixed64(1, 1500), string(2, "event"), kv(3, "k", "v")))),
             msg(2, span("x-refused", 1, 0, 5, 6), span("backwards", 4, 0, 9, 8)))
    r2 = msg(1, msg(2, span("caf\u00e9/\u20ac", 5, 0, 1, 1,
                          msg(13, field(1, 2, bytes(16)), kv(4, "l", "v")))))
    return r1 + r2


JSON = {
    "resourceSpans": [{
        "resource": {"attributes": [{"key": "service.name", "value": {"stringValue": "checkout"}}]},
        "scopeSpans": [{
            "scope": {"name": "lib"},
            "spans": [
                {"traceId": "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174",
                 "name": "GET /cart", "kind": 2, "startTimeUnixNano": "1000",
                 "endTimeUnixNano": "2000", "status": {"code": 1},
                 "attributes": [{"key": "a", "value": {"arrayValue": {"values": [
                     {"kvlistValue": {"values": [{"key": "b", "value": {"intValue": "3"}}]}}]}}}]},
                {"name": "db\tquery", "kind": "SPAN_KIND_CLIENT", "startTimeUnixNano": 1100,
                 "endTimeUnixNano": 1900, "status": {"code": "STATUS_CODE_ERROR"},
                 "events": [{"timeUnixNano": "1500", "name": "e"}],
                 "links": [{"traceId": "00", "spanId": "00", "attributes": []}]},
                {"name": "backwards", "startTimeUnixNano": "9", "endTimeUnixNano": "8"},
            ]}]}]}


def main():
    os.makedirs(OUT, exist_ok=True)
    pb = request()
    js = json.dumps(JSON).encode()
    seeds = {
        "protobuf": b"\x00" + pb,
        "protobuf-empty": b"\x00",
        "json": b"\x01" + js,
        "json-empty": b"\x01{}",
        "gzip-protobuf": b"\x02" + gzip.compress(pb, mtime=0),
        "gzip-json": b"\x02" + gzip.compress(js, mtime=0),
    }
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
