#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile clients of the trace agent's OTLP/HTTP receiver
(docs/trace-protocol.md §11, §12), run by tests/integration/otlp_hostile.sh
against the agent built with ASan and UBSan in a private pmcd.

    otlp_hostile.py fetch PMCD_HOST LOG     the pmcd side: fetch trace.span.count
                                            and trace.transact.count through pmcd
                                            in a loop, one line "TIME SECONDS" a
                                            fetch (SECONDS -1: an error) into LOG
    otlp_hostile.py drive PMCD_HOST OTLP_PORT AGENT_PID FETCH_LOG
                                            the cases; prints "PASS what",
                                            "FAIL what" and "# diag" lines

Python 3's standard library alone, but for PCP's pmapi in the fetcher.
Protobuf bodies are encoded by hand from common/otlp_trace.proto's field
numbers (as tests/fuzz/otlp_corpus.py does); the big ones are made as a
few header bytes around repeated bytes, so the test stays small in memory.
"""
import os
import re
import resource
import select
import socket
import struct
import subprocess
import sys
import threading
import time
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from otlp_pb import msg, varint  # noqa: E402

MiB = 1 << 20


# ---- protobuf by hand ----

def ld(num, payload):
    """A length-delimited field NUM holding PAYLOAD."""
    return msg(num, payload)


def span(name, start=1000, end=2000):
    """A Span (field 2 of ScopeSpans): name 5, start 7, end 8 (fixed64)."""
    return ld(2, ld(5, name.encode()) + b"\x39" + struct.pack("<Q", start) +
              b"\x41" + struct.pack("<Q", end))


def request(service, spans):
    """ExportTraceServiceRequest{resource_spans 1: {resource 1: {attributes 1:
    service.name}, scope_spans 2: {spans 2}}}; service None: no resource."""
    res = b""
    if service is not None:
        res = ld(1, ld(1, ld(1, b"service.name") + ld(2, ld(1, service.encode()))))
    return ld(1, res + ld(2, b"".join(spans)))


def empty_spans(n):
    """One request of N empty spans (each 0x12 0x00) and no resource."""
    ss_len = 2 * n
    rs = varint(2 << 3 | 2) + varint(ss_len)
    rs_len = len(rs) + ss_len
    return varint(1 << 3 | 2) + varint(rs_len) + rs + b"\x12\x00" * n


def nested_pb(depth):
    """A request whose one span has an attribute whose AnyValue nests DEPTH
    deep through array_value (5) and ArrayValue.values (1), built outside in
    from the lengths, without copying the inner bytes at every level."""
    # from the inside: the innermost AnyValue is empty
    sizes = []          # (field number, payload length) of each header, inside out
    n = 0
    for _ in range(depth):
        sizes.append((1, n))        # ArrayValue.values holding the AnyValue
        n += len(varint(1 << 3 | 2)) + len(varint(n))
        sizes.append((5, n))        # AnyValue.array_value holding the ArrayValue
        n += len(varint(5 << 3 | 2)) + len(varint(n))
    headers = [varint(f << 3 | 2) + varint(ln) for f, ln in reversed(sizes)]
    anyval = b"".join(headers)      # n bytes, outermost first
    kv = ld(1, b"deep") + ld(2, anyval)
    sp = ld(2, ld(5, b"deep") + ld(9, kv))
    return ld(1, ld(2, sp))


def nested_json(depth):
    head = ('{"resourceSpans":[{"scopeSpans":[{"spans":[{"name":"deep","attributes":'
            '[{"key":"deep","value":')
    tail = '}]}]}]}]}'
    return (head + '{"arrayValue":{"values":[' * depth + '{}' + ']}}' * depth + tail).encode()


def gzip_bomb(raw_size):
    """gzip of RAW_SIZE zero bytes, made a MiB at a time."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    zero = bytes(MiB)
    out = [z.compress(zero) for _ in range(raw_size // MiB)]
    out.append(z.flush())
    return b"".join(out)


# ---- HTTP over raw sockets ----

def head(ctype, length=None, extra=(), path="/v1/traces"):
    h = ["POST %s HTTP/1.1" % path, "Host: 127.0.0.1", "Content-Type: " + ctype]
    if length is not None:
        h.append("Content-Length: %d" % length)
    h += list(extra)
    return ("\r\n".join(h) + "\r\n\r\n").encode()


def read_answer(s, timeout=20.0):
    """Read one HTTP answer: (status, headers text, body); status 0 when the
    connection closed (or reset) before an answer."""
    s.settimeout(timeout)
    buf = b""
    try:
        while b"\r\n\r\n" not in buf:
            d = s.recv(65536)
            if not d:
                return 0, "", buf
            buf += d
        hdr, body = buf.split(b"\r\n\r\n", 1)
        m = re.search(rb"(?im)^content-length:\s*(\d+)", hdr)
        want = int(m.group(1)) if m else 0
        while len(body) < want:
            d = s.recv(65536)
            if not d:
                break
            body += d
    except (ConnectionError, socket.timeout):
        return 0, "", buf
    status = int(hdr.split(b" ", 2)[1])
    return status, hdr.decode("latin-1"), body


def post(port, ctype, body, extra=(), timeout=20.0, path="/v1/traces"):
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(head(ctype, len(body), extra, path) + body)
        return read_answer(s, timeout)


def post_metrics(port, body, timeout=60.0):
    """A protobuf ExportMetricsServiceRequest to /v1/metrics."""
    return post(port, "application/x-protobuf", body, timeout=timeout, path="/v1/metrics")


def post_streamed(port, ctype, total, chunked):
    """Send a body of TOTAL zero bytes in 64 KiB pieces (with Content-Length,
    or chunked), stopping early once the agent answers; (status, headers,
    bytes of the body sent)."""
    piece = bytes(64 << 10)
    extra = ("Transfer-Encoding: chunked",) if chunked else ()
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    sent = 0
    try:
        s.sendall(head(ctype, None if chunked else total, extra))
        while sent < total:
            r, _, _ = select.select([s], [], [], 0)
            if r:
                break           # an answer (or a close) before the whole body
            if chunked:
                s.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
            else:
                s.sendall(piece)
            sent += len(piece)
        else:
            if chunked:
                s.sendall(b"0\r\n\r\n")
    except ConnectionError:
        # The agent answered and closed while the body was coming: the
        # reset of its close can reach a send before the answer was read,
        # which is still there to read.
        pass
    try:
        status, hdr, _ = read_answer(s, 30)
    finally:
        s.close()
    return status, hdr, sent


# ---- the agent and pmcd ----

class Agent:
    def __init__(self, pmcd_host, port, pid):
        self.pmcd_host, self.port, self.pid = pmcd_host, port, pid

    def status(self, key):
        """VmHWM, VmRSS... of the agent in KiB."""
        with open("/proc/%d/status" % self.pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
        return -1

    def reset_peak(self):
        with open("/proc/%d/clear_refs" % self.pid, "w") as f:
            f.write("5")

    def metric(self, name):
        """{instance or "": value} of NAME, through pmcd."""
        out = subprocess.run(["pminfo", "-h", self.pmcd_host, "-f", name],
                             capture_output=True, text=True).stdout
        got = {m.group(1): int(m.group(2))
               for m in re.finditer(r'inst \[\d+ or "([^"]*)"\] value (\d+)', out)}
        m = re.search(r'^    value (\d+)', out, re.M)
        if m:
            got[""] = int(m.group(1))
        return got

    def counts(self):
        """{instance: value} of trace.span.count, through pmcd."""
        out = subprocess.run(["pminfo", "-h", self.pmcd_host, "-f", "trace.span.count"],
                             capture_output=True, text=True).stdout
        return {m.group(1): int(m.group(2))
                for m in re.finditer(r'inst \[\d+ or "([^"]*)"\] value (\d+)', out)}

    def sockets(self):
        """How many sockets the agent has open."""
        n = 0
        for fd in os.listdir("/proc/%d/fd" % self.pid):
            try:
                n += os.readlink("/proc/%d/fd/%s" % (self.pid, fd)).startswith("socket:")
            except OSError:
                pass
        return n

    def accept_queue(self):
        """Connections waiting in the receiver's listen backlog (ss's Recv-Q)."""
        out = subprocess.run(["ss", "-Htln", "sport = :%d" % self.port],
                             capture_output=True, text=True).stdout.split()
        return int(out[1]) if len(out) > 1 else -1

    def alive(self):
        return os.path.exists("/proc/%d" % self.pid)


class Report:
    def __init__(self):
        self.cases = []         # (name, start, end)

    def check(self, what, cond, why=""):
        print(("PASS " if cond else "FAIL ") + what + ("" if cond or not why else " (" + why + ")"),
              flush=True)
        return cond

    def diag(self, msg):
        print("# " + msg, flush=True)


# ---- OpenTelemetry metrics (common/otlp_metrics.proto's numbers) ----

T0 = 1700000000 * 10**9


def kv(key, val):
    """A KeyValue {key 1, value 2: AnyValue {string_value 1}}."""
    return ld(1, key.encode()) + ld(2, ld(1, val.encode()))


def metrics_request(metrics):
    """ExportMetricsServiceRequest {resource_metrics 1: {resource 1:
    {attributes 1: service.name}, scope_metrics 2: {scope 1, metrics 2}}}."""
    res = ld(1, ld(1, kv("service.name", "hostile")))
    return ld(1, res + ld(2, ld(1, ld(1, b"hostile")) + b"".join(ld(2, m) for m in metrics)))


def counter(name, points):
    """A Metric {name 1, sum 7: {data_points 1, temporality 2 cumulative,
    is_monotonic 3}} of POINTS (attribute value, int value): NumberDataPoint
    {attributes 7, start 2, time 3, as_int 6 (sfixed64)}."""
    dps = b"".join(
        ld(1, ld(7, kv("k", a)) + b"\x11" + struct.pack("<Q", T0) +
           b"\x19" + struct.pack("<Q", T0 + 10**9) + b"\x31" + struct.pack("<q", v))
        for a, v in points)
    return ld(1, name.encode()) + ld(7, dps + b"\x10\x02\x18\x01")


def huge_histogram(name, attr, nbuckets):
    """A Metric {name 1, histogram 9: {data_points 1: HistogramDataPoint
    {attributes 9, start 2, time 3, count 4, bucket_counts 6 and
    explicit_bounds 7 packed, NBUCKETS + 1 counts of 1}, temporality 2}}."""
    counts = struct.pack("<%dQ" % (nbuckets + 1), *([1] * (nbuckets + 1)))
    bounds = struct.pack("<%dd" % nbuckets, *range(nbuckets))
    dp = (ld(9, kv("k", attr)) + b"\x11" + struct.pack("<Q", T0) + b"\x19" +
          struct.pack("<Q", T0 + 10**9) + b"\x21" + struct.pack("<Q", nbuckets + 1) +
          ld(6, counts) + ld(7, bounds))
    return ld(1, name.encode()) + ld(9, ld(1, dp) + b"\x10\x02")


def rejected_points(ans):
    """ExportMetricsServiceResponse's partial_success.rejected_data_points
    (field 1 of field 1); 0 without one."""
    if len(ans) < 2 or ans[0] != 0x0a:
        return 0
    inner = ans[2:] if ans[1] < 0x80 else ans[3:]
    if not inner or inner[0] != 0x08:
        return 0
    n, shift = 0, 0
    for b in inner[1:]:
        n |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return n
    return 0


# ---- the cases ----

def good_body(n):
    return request("good", [span("ok") for _ in range(n)])


class Cases:
    def __init__(self, agent, rep):
        self.a, self.r = agent, rep
        self.good = 0           # spans of good:unspecified/ok answered 200

    def good_request(self, what, n=1):
        st, _, _ = post(self.a.port, "application/x-protobuf", good_body(n))
        if st == 200:
            self.good += n
        return self.r.check(what, st == 200, "answer %d" % st)

    def bomb(self):
        body = gzip_bomb(1024 * MiB)
        t = time.monotonic()
        st, _, _ = post(self.a.port, "application/x-protobuf", body, ("Content-Encoding: gzip",))
        t = time.monotonic() - t
        self.r.check("compression bomb: gzip of 1 GiB of zeros (%d bytes sent) is 413" % len(body),
                     st == 413, "answer %d" % st)
        self.r.diag("compression bomb answered in %.2f s" % t)
        # the same bomb in a JSON request
        st, _, _ = post(self.a.port, "application/json", body, ("Content-Encoding: gzip",))
        self.r.check("compression bomb as JSON is 413", st == 413, "answer %d" % st)

    def nesting(self):
        body = nested_pb(100000)
        st, _, msg = post(self.a.port, "application/x-protobuf", body)
        self.r.check("AnyValue nested 100,000 deep in protobuf (%d bytes) is 400" % len(body),
                     st == 400, "answer %d" % st)
        body = nested_json(100000)
        st, _, msg = post(self.a.port, "application/json", body)
        self.r.check("AnyValue nested 100,000 deep in JSON (%d bytes) is 400" % len(body),
                     st == 400 and b"nested deeper" in msg, "answer %d %r" % (st, msg[:100]))
        body = b"[" * 100000 + b"]" * 100000
        st, _, _ = post(self.a.port, "application/json", body)
        self.r.check("JSON arrays nested 100,000 deep are 400", st == 400, "answer %d" % st)
        # the deepest a request may nest (OTLP_DEPTH_MAX: 32 AnyValues, the
        # attribute's value and 31 inside) is taken, one more is not
        st, _, _ = post(self.a.port, "application/x-protobuf", nested_pb(31))
        self.r.check("AnyValue nested 32 deep in protobuf is 200", st == 200, "answer %d" % st)
        st, _, _ = post(self.a.port, "application/x-protobuf", nested_pb(32))
        self.r.check("AnyValue nested 33 deep in protobuf is 400", st == 400, "answer %d" % st)

    def million(self):
        # A million empty spans are 2 MB of protobuf (2 bytes a span), within
        # the 16 MiB body cap. protobuf-c would unpack each into a Span struct
        # (over 200 MiB in all, over the decoder's 64 MiB budget: 413); the
        # walker (pmda_trace/otlp/pbwalk.c) reads them in place, allocating
        # nothing, so the request decodes: each span is refused alone, for an
        # empty span has no start time (docs/trace-protocol.md §11.2), in a
        # partial_success with rejected_spans 1000000 (varint c0 84 3d), and
        # none of them is counted.
        before = self.a.counts().get("unknown_service:unspecified/unnamed", 0)
        body = empty_spans(1000000)
        t = time.monotonic()
        st, _, ans = post(self.a.port, "application/x-protobuf", body)
        t = time.monotonic() - t
        self.r.check("a million empty spans in one request (%d bytes) are 200, all refused "
                     "in partial success (no start time)" % len(body),
                     st == 200 and b"\x08\xc0\x84\x3d" in ans and b"no start time" in ans,
                     "answer %d %r" % (st, ans[:60]))
        self.r.diag("a million empty spans answered in %.2f s" % t)
        # 100,000 likewise: rejected_spans 100000 (varint a0 8d 06)
        st, _, ans = post(self.a.port, "application/x-protobuf", empty_spans(100000))
        after = self.a.counts().get("unknown_service:unspecified/unnamed", 0)
        self.r.check("100,000 empty spans in one request are 200, all refused in partial "
                     "success (no start time)",
                     st == 200 and b"\x08\xa0\x8d\x06" in ans and b"no start time" in ans,
                     "answer %d %r" % (st, ans[:60]))
        self.r.check("and none of them is counted",
                     after == before, "%d then %d" % (before, after))

    def prepare_metrics(self):
        # The metrics cases' bodies, made before the cases (making them is
        # seconds of this process's CPU, which would compete with the
        # agent and pmcd on a small machine during the timed cases)
        self.huge_bodies = [metrics_request([huge_histogram("hostile.hist", "h%d" % i, 900000)])
                     for i in range(6)]
        self.flood_bodies = [metrics_request([counter("hostile.flood",
                                               [("f%07d" % (r * 100000 + j), j)
                                                for j in range(100000)])])
                      for r in range(10)]
        self.set_bodies = [metrics_request([counter("hostile.set.m%04d" % (r * 100 + m),
                                              [("s%04d" % j, j) for j in range(1000)])
                                      for m in range(100)])
                     for r in range(10)]

    def post_all(self, bodies, what):
        """POST each of BODIES to /v1/metrics: the points refused in their
        partial_success, all together; None (a failed check) if one is
        not answered 200."""
        refused = 0
        for body in bodies:
            st, _, ans = post_metrics(self.a.port, body)
            if st != 200:
                self.r.check("%s are answered 200" % what, False, "answer %d" % st)
                return None
            refused += rejected_points(ans)
        return refused

    def metrics_huge(self):
        # Histograms of 900,000 buckets (14.4 MB bodies, within the 16 MiB
        # cap): each series holds its bounds and counts, so the metrics'
        # 64 MiB budget takes a few and refuses the rest ("memory"), the
        # store's count never over the budget
        refused = self.post_all(self.huge_bodies, "histograms of 900,000 buckets")
        if refused is None:
            return
        mem = self.a.metric("trace.otlp.metrics.memory").get("")
        cap = self.a.metric("trace.otlp.metrics.memory_max").get("")
        rej = self.a.metric("trace.otlp.points.rejected").get("memory", 0)
        self.r.check("six histograms of 900,000 buckets: 200, %d refused for memory in "
                     "partial_success and counted (%d), the store within its budget (%s of %s "
                     "bytes)" % (refused, rej, mem, cap),
                     0 < refused < 6 and rej == refused and mem is not None and cap and
                     mem <= cap, "refused %d, counted %d" % (refused, rej))

    def metrics_flood(self):
        # A million points of one counter in ten requests, each point a new
        # attribute set: the first 1,000 series are taken (-E), every other
        # point refused in partial_success as series_cap and counted
        before = self.a.metric("trace.otlp.points.rejected").get("series_cap", 0)
        t = time.monotonic()
        refused = self.post_all(self.flood_bodies, "100,000 points of a counter")
        if refused is None:
            return
        self.r.diag("a million points of one counter answered in %.2f s" % (time.monotonic() - t))
        series = len(self.a.metric("trace.otel.hostile.flood"))
        after = self.a.metric("trace.otlp.points.rejected").get("series_cap", 0)
        self.r.check("a million points, each a new series of one counter: 1,000 series kept (%d), "
                     "999,000 refused in partial_success (%d) and counted as series_cap (%d)"
                     % (series, refused, after - before),
                     series == 1000 and refused == 999000 and after - before == 999000)

    def metrics_sets(self):
        # A million attribute sets over 1,000 counters (1,000 series each,
        # within -X and -E): the 64 MiB budget stops them, the rest refused
        # as "memory"; the agent's memory stays bounded
        hwm0 = self.a.status("VmHWM")
        before = self.a.metric("trace.otlp.points.rejected").get("memory", 0)
        refused = self.post_all(self.set_bodies, "100,000 points of 100 counters")
        if refused is None:
            return
        mem = self.a.metric("trace.otlp.metrics.memory").get("")
        cap = self.a.metric("trace.otlp.metrics.memory_max").get("")
        after = self.a.metric("trace.otlp.points.rejected").get("memory", 0)
        hwm = self.a.status("VmHWM")
        self.r.diag("a million attribute sets: %d refused, store %s of %s bytes, agent VmHWM "
                    "%d -> %d KiB" % (refused, mem, cap, hwm0, hwm))
        self.r.check("a million attribute sets over 1,000 counters: refused for memory once the "
                     "budget is full (%d, counted %d), the store within it (%s of %s bytes)"
                     % (refused, after - before, mem, cap),
                     refused > 0 and after - before == refused and mem is not None and cap and
                     mem <= cap)
        # a known series still takes its points
        st, _, ans = post_metrics(self.a.port,
                                  metrics_request([counter("hostile.flood", [("f0000000", 42)])]))
        got = self.a.metric("trace.otel.hostile.flood").get("hostile{k=f0000000}")
        self.r.check("a known series still takes a point (42: %s)" % got,
                     st == 200 and rejected_points(ans) == 0 and got == 42)

    def big_body(self):
        self.a.reset_peak()
        rss = self.a.status("VmRSS")
        st, hdr, sent = post_streamed(self.a.port, "application/x-protobuf", 64 * MiB, False)
        grow = self.a.status("VmHWM") - rss
        self.r.check("Content-Length 64 MiB, streamed: 413 (after %d KiB of the body)"
                     % (sent >> 10), st == 413, "answer %d" % st)
        self.r.check("and the agent's peak RSS grew by less than 48 MiB (%d KiB)" % grow,
                     grow < 48 * 1024)
        self.r.diag("64 MiB with Content-Length: peak RSS +%d KiB over %d KiB" % (grow, rss))
        self.a.reset_peak()
        rss = self.a.status("VmRSS")
        st, hdr, sent = post_streamed(self.a.port, "application/x-protobuf", 64 * MiB, True)
        grow = self.a.status("VmHWM") - rss
        self.r.check("64 MiB chunked (no length): 413 (after %d KiB of the body)" % (sent >> 10),
                     st == 413, "answer %d" % st)
        self.r.check("and the agent's peak RSS grew by less than 48 MiB (%d KiB)" % grow,
                     grow < 48 * 1024)
        self.r.diag("64 MiB chunked: peak RSS +%d KiB over %d KiB" % (grow, rss))
        self.good_request("a good request after the 64 MiB bodies is 200")

    def slow(self):
        # 12 clients trickle a whole request a byte each 100 ms (about 11 s:
        # never idle 15 s, the agent's -k here, so served; their bodies take
        # little of the byte budget); 36 send half their headers and stop
        # (closed by the agent after 15 s idle); a good client posts twice a
        # second meanwhile.
        nslow, nhalf = 12, 36
        body = request("slow", [span("trickle")])
        req = head("application/x-protobuf", len(body)) + body
        slow_st = [None] * nslow
        half_closed = [None] * nhalf
        t0 = time.monotonic()

        def trickle(i):
            try:
                with socket.create_connection(("127.0.0.1", self.a.port), timeout=30) as s:
                    for b in req:
                        s.sendall(bytes([b]))
                        time.sleep(0.1)
                    slow_st[i] = read_answer(s, 30)[0]
            except OSError as e:
                slow_st[i] = str(e)

        def half(i):
            try:
                with socket.create_connection(("127.0.0.1", self.a.port), timeout=40) as s:
                    hb = head("application/x-protobuf", 100)
                    s.sendall(hb[:len(hb) // 2])
                    try:
                        d = s.recv(4096)
                    except ConnectionError:
                        d = b""
                    half_closed[i] = (time.monotonic() - t0, d)
            except OSError as e:
                half_closed[i] = (-1.0, str(e).encode())

        th = [threading.Thread(target=trickle, args=(i,)) for i in range(nslow)]
        th += [threading.Thread(target=half, args=(i,)) for i in range(nhalf)]
        for t in th:
            t.start()
        good_ok = good_n = 0
        while any(t.is_alive() for t in th[:nslow]):
            st, _, _ = post(self.a.port, "application/x-protobuf", good_body(1))
            good_n += 1
            if st == 200:
                good_ok += 1
                self.good += 1
            time.sleep(0.5)
        for t in th:
            t.join(60)
        self.r.check("slow clients (a byte each 100 ms): all %d answered 200" % nslow,
                     slow_st == [200] * nslow, "answers %r" % slow_st)
        self.r.check("a good client meanwhile: %d of %d requests answered 200" % (good_ok, good_n),
                     good_n > 0 and good_ok == good_n)
        closed = [c for c in half_closed if c is not None]
        when = [c[0] for c in closed]
        self.r.check("half-open connections (half the headers): all %d closed by the agent, "
                     "none answered" % nhalf,
                     len(closed) == nhalf and all(c[1] == b"" for c in closed) and min(when) > 0,
                     "%r" % half_closed[:3])
        if when:
            self.r.diag("half-open connections closed after %.1f to %.1f s (idle timeout 15 s)"
                        % (min(when), max(when)))
        c = self.a.counts()
        self.r.check("slow:unspecified/trickle counts exactly %d" % nslow,
                     c.get("slow:unspecified/trickle") == nslow,
                     "%r" % c.get("slow:unspecified/trickle"))

    def flood(self):
        # 1000 connections held open, as fast as they connect. libmicrohttpd
        # accepts up to its limit (256) and then stops accepting: the rest
        # wait in the kernel's accept queue (the listen backlog), connected
        # but unserved, until a slot is freed (a close, or the 15 s idle
        # timeout). A request sent meanwhile waits there too, and is answered
        # once the flood goes.
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
        base = self.a.sockets()
        conns, refused = [], 0
        t = time.monotonic()
        for _ in range(1000):
            try:
                conns.append(socket.create_connection(("127.0.0.1", self.a.port), timeout=5))
            except OSError:
                refused += 1
        t = time.monotonic() - t
        time.sleep(1.0)
        held = self.a.sockets() - base
        closed = 0
        for s in conns:
            r, _, _ = select.select([s], [], [], 0)
            if r:
                try:
                    closed += s.recv(1) == b""
                except ConnectionError:
                    closed += 1
        self.r.diag("flood: 1000 connects in %.2f s, %d refused, %d closed by the agent, "
                    "%d held by it, %d in its accept queue"
                    % (t, refused, closed, held, self.a.accept_queue()))
        self.r.check("a flood of 1000 connections held open: the agent holds 256 of them "
                     "(%d), no more" % held, held == 256)
        self.r.check("the agent is up during the flood", self.a.alive())
        g = socket.create_connection(("127.0.0.1", self.a.port), timeout=5)
        body = good_body(1)
        g.sendall(head("application/x-protobuf", len(body)) + body)
        time.sleep(1.0)
        for s in conns:
            s.close()
        st = read_answer(g, 10)[0]
        g.close()
        if st == 200:
            self.good += 1
        self.r.check("a good request sent during the flood is answered 200 once it goes",
                     st == 200, "answer %d" % st)
        self.good_request("a good request after the flood is 200")
        # connect and close, as fast as possible
        t = time.monotonic()
        for _ in range(1000):
            try:
                socket.create_connection(("127.0.0.1", self.a.port), timeout=5).close()
            except OSError:
                pass
        self.r.diag("1000 connects and closes in %.2f s" % (time.monotonic() - t))
        time.sleep(0.5)
        self.good_request("a good request after 1000 connects and closes is 200", 5)


def fetch_loop(pmcd_host, log):
    from pcp import pmapi
    import cpmapi as c_api
    ctx = pmapi.pmContext(c_api.PM_CONTEXT_HOST, pmcd_host)
    pmids = ctx.pmLookupName(("trace.span.count", "trace.transact.count"))
    # pmcd's own metric, which the agent does not serve: its time is the
    # machine's and pmcd's, so a slow fetch of both is load, not the agent
    control = ctx.pmLookupName(("pmcd.numagents",))

    def timed(ids):
        t = time.monotonic()
        try:
            r = ctx.pmFetch(ids)
            ok = all(r.contents.get_numval(i) >= 0 for i in range(len(ids)))
            ctx.pmFreeResult(r)
        except pmapi.pmErr:
            ok = False
        return t, (time.monotonic() - t) if ok else -1.0

    with open(log, "w", buffering=1) as f:
        while True:
            t, d = timed(pmids)
            _, dc = timed(control)
            f.write("%.6f %.6f %.6f\n" % (t, d, dc))
            time.sleep(0.01)


def drive(pmcd_host, port, pid, fetch_log):
    rep = Report()
    a = Agent(pmcd_host, port, pid)
    cs = Cases(a, rep)
    cs.prepare_metrics()
    cs.good_request("a good request first is 200", 3)
    for name, fn in (("compression bomb", cs.bomb), ("nesting", cs.nesting),
                     ("a million spans", cs.million),
                     ("huge histograms", cs.metrics_huge), ("a million metric points", cs.metrics_flood),
                     ("a million attribute sets", cs.metrics_sets), ("64 MiB bodies", cs.big_body),
                     ("slow and half-open", cs.slow), ("flood", cs.flood)):
        t0 = time.monotonic()
        fn()
        # at least a second a case, so that fetches overlap the short ones
        time.sleep(max(0.0, t0 + 1.0 - time.monotonic()))
        rep.cases.append((name, t0, time.monotonic()))
        rep.check("%s: the agent is the same process, alive" % name, a.alive())
    c = a.counts()
    rep.check("good:unspecified/ok counts exactly the %d spans answered 200" % cs.good,
              c.get("good:unspecified/ok") == cs.good, "%r" % c.get("good:unspecified/ok"))
    # the pmcd side: every fetch of every case answered, within 100 ms
    rows = []
    with open(fetch_log) as f:
        for line in f:
            p = line.split()
            if len(p) == 3:
                rows.append((float(p[0]), float(p[1]), float(p[2])))
    for name, t0, t1 in rep.cases:
        # the fetches that overlap the case (one under way when it began too)
        lat = [d for t, d, _ in rows if t0 <= t + max(d, 0.0) and t <= t1]
        ctl = [c for t, d, c in rows if t0 <= t + max(d, 0.0) and t <= t1]
        errs = sum(1 for d in lat if d < 0)
        mx = max(lat) if lat else 0.0
        rep.diag("%s: %d fetches in %.1f s, max %.1f ms (pmcd.numagents alone: max %.1f ms)"
                 % (name, len(lat), t1 - t0, mx * 1e3, max(ctl, default=0.0) * 1e3))
        rep.check("%s: fetches went on (%d), none failed, each answered within 100 ms "
                  "(max %.1f ms)" % (name, len(lat), mx * 1e3),
                  len(lat) >= 5 and errs == 0 and mx < 0.1)


if __name__ == "__main__":
    if sys.argv[1] == "fetch":
        fetch_loop(sys.argv[2], sys.argv[3])
    else:
        drive(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
