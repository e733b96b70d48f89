# SPDX-License-Identifier: GPL-2.0-or-later
"""The helpers of tests/integration/pcp2otel.sh: PCP 7's pcp2opentelemetry
and pmdaopentelemetry beside our OTLP metrics receiver.

  pcp2otel.py fixture NOW_NS
      the OTLP JSON both agents are given: a Gauge of integers in By with
      two series, a Gauge of doubles in 1, one in By/s, a monotonic
      cumulative Sum, a cumulative Sum not monotonic and a Histogram, of
      one resource; its points' time NOW_NS
  pcp2otel.py collide|delta|noattrs|intattr NOW_NS
      more: a Gauge of two resources and a Histogram of two series; a
      delta Sum; a point without "attributes"; three Gauges, the second's
      attribute an integer
  pcp2otel.py capture PORT UPSTREAM DIR
      an HTTP server on 127.0.0.1:PORT that keeps each POST's body as
      DIR/push-N.json, forwards it to UPSTREAM (our /v1/metrics) and
      answers with UPSTREAM's status and body (kept in DIR/push-N.status);
      it stops by itself after 120 s
  pcp2otel.py pushed DIR METRIC [INSTNAME]
      the values pcp2opentelemetry pushed for METRIC (its point whose
      attribute instname is INSTNAME), one line a push, in order
  pcp2otel.py index FILE METRIC INSTNAME
      the index of that point among METRIC's points in the push FILE
  pcp2otel.py describe FILE...
      each metric of the pushes FILE...: name, kind, temporality,
      monotonicity, unit, points, first value; last "points N", all of
      their points
  pcp2otel.py compare HOST SPEC
      the side-by-side table: SPEC has tab-separated lines
        WHAT OURS OURS_INST THEIRS THEIRS_INST OURS_WANT THEIRS_WANT NOTE
      (an instance empty: none; a WANT is VALUE/TYPE/SEM/UNITS in
      pminfo -d's words, VALUE "-" for no value); each side must be as
      wanted; where the two differ in value, semantics or units, NOTE
      ("A; B" for more than one) must name paragraphs "**A.**" of
      docs/otlp-metrics.md, and NOTE "same" says they agree. Prints TAP
      lines without numbers ("ok - ...", "not ok - ...", "# ...") for
      the shell to number, the table as "#" lines; exits 1 if anything
      is not as wanted.
"""
import http.server
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request


def fixture(now_ns, which):
    """The OTLP JSON both agents read. pmdaopentelemetry needs every
    point's "attributes" (an empty list included: without it the whole
    document is dropped, noattrs), string attributes only (the rest of
    the document is dropped at the first other one, intattr) and a scope
    name."""
    now = str(now_ns)
    start = str(now_ns - 60 * 10**9)

    def s(k, v):
        return {"key": k, "value": {"stringValue": v}}

    def gauge(name, desc, unit, points):
        return {"name": name, "description": desc, "unit": unit, "gauge": {"dataPoints": points}}

    def point(attrs, **value):
        p = {"attributes": attrs, "startTimeUnixNano": start, "timeUnixNano": now}
        p.update(value)
        return p

    def resource(service, instance, metrics):
        return {"resource": {"attributes": [s("service.name", service), s("service.namespace", "acme"),
                                            s("service.instance.id", instance), s("host.name", "web1")]},
                "scopeMetrics": [{"scope": {"name": "pcp2otel.fixture", "version": "1.0"},
                                  "metrics": metrics}]}

    route = [s("http.route", "/cart")]
    if which == "fixture":
        return {"resourceMetrics": [resource("shop", "node-1", [
            gauge("system.memory.usage", "Memory in use, by state.", "By", [
                point([s("system.memory.state", "used")], asInt="1048576"),
                point([s("system.memory.state", "free")], asInt="3145728")]),
            gauge("system.cpu.utilization", "CPU busy fraction.", "1", [point([], asDouble=0.25)]),
            gauge("network.io.rate", "Bytes received a second.", "By/s", [point([], asDouble=1536.5)]),
            {"name": "http.server.requests", "description": "Requests served.", "unit": "{request}",
             "sum": {"aggregationTemporality": 2, "isMonotonic": True,
                     "dataPoints": [point(route, asInt="42")]}},
            {"name": "db.client.connections.usage", "description": "Connections open.",
             "unit": "{connection}",
             "sum": {"aggregationTemporality": 2, "isMonotonic": False,
                     "dataPoints": [point([], asInt="7")]}},
            {"name": "http.server.request.duration", "description": "Time to answer a request.",
             "unit": "s",
             "histogram": {"aggregationTemporality": 2, "dataPoints": [
                 point(route, count="10", sum=2.5, bucketCounts=["4", "3", "2", "1"],
                       explicitBounds=[0.1, 0.5, 1])]}}])]}
    if which == "delta":
        return {"resourceMetrics": [resource("shop", "node-1", [
            {"name": "jobs.done", "description": "Jobs finished.", "unit": "{job}",
             "sum": {"aggregationTemporality": 1, "isMonotonic": True,
                     "dataPoints": [point([], asInt="5")]}}])]}
    if which == "noattrs":
        bare = point([], asInt="1")
        del bare["attributes"]
        return {"resourceMetrics": [resource("shop", "node-1", [
            gauge("probe.noattrs", "A point without attributes.", "1", [bare])])]}
    if which == "intattr":
        code = [{"key": "http.status_code", "value": {"intValue": "200"}}]
        return {"resourceMetrics": [resource("shop", "node-1", [
            gauge("probe.first", "Before.", "1", [point([], asInt="1")]),
            gauge("probe.int", "An integer attribute.", "1", [point(code, asInt="2")]),
            gauge("probe.after", "After.", "1", [point([], asInt="3")])])]}
    # collide: what pmdaopentelemetry keeps one series of
    return {"resourceMetrics": [
        resource("shop", "node-1", [
            gauge("queue.depth", "Items queued.", "1", [point([], asInt="3")]),
            {"name": "rpc.duration", "description": "Time of a call.", "unit": "ms",
             "histogram": {"aggregationTemporality": 2, "dataPoints": [
                 point([s("rpc.method", "get")], count="3", sum=30.0, bucketCounts=["1", "2"],
                       explicitBounds=[10]),
                 point([s("rpc.method", "put")], count="5", sum=90.0, bucketCounts=["4", "1"],
                       explicitBounds=[10])]}}]),
        resource("billing", "node-2", [
            gauge("queue.depth", "Items queued.", "1", [point([], asInt="5")])])]}


def capture(port, upstream, out):
    """Keep and forward each POST (pcp2opentelemetry's pushes)."""
    lock = threading.Lock()
    seq = [0]

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with lock:
                seq[0] += 1
                n = seq[0]
            with open(os.path.join(out, "push-%d.json" % n), "wb") as f:
                f.write(body)
            req = urllib.request.Request(upstream, data=body, method="POST", headers={
                "Content-Type": self.headers.get("Content-Type", "application/json")})
            try:
                with urllib.request.urlopen(req, timeout=10) as r:
                    code, answer = r.status, r.read()
            except urllib.error.HTTPError as e:
                code, answer = e.code, e.read()
            except OSError as e:
                code, answer = 502, str(e).encode()
            with open(os.path.join(out, "push-%d.status" % n), "w") as f:
                f.write("%d %s\n" % (code, answer.decode("utf-8", "replace")))
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Timer(120, srv.shutdown).start()
    srv.serve_forever()


def push_files(out):
    """The pushes kept in OUT, in order."""
    pushes = sorted((int(f[5:-5]), f) for f in os.listdir(out)
                    if f.startswith("push-") and f.endswith(".json"))
    return [os.path.join(out, f) for _, f in pushes]


def points(path, metric=None):
    """(metric, body, [(attributes, point)]) of each metric in the push PATH."""
    with open(path) as fh:
        doc = json.load(fh)
    for rm in doc.get("resourceMetrics", []):
        for sm in rm.get("scopeMetrics", []):
            for m in sm.get("metrics", []):
                if metric is not None and m.get("name") != metric:
                    continue
                kind = next((k for k in ("gauge", "sum", "histogram", "exponentialHistogram",
                                         "summary") if k in m), "?")
                body = m.get(kind, {})
                pts = [({a["key"]: a["value"].get("stringValue") for a in p.get("attributes", [])}, p)
                       for p in body.get("dataPoints", [])]
                yield m, kind, body, pts


def pushed(out, metric, instname):
    """The values of METRIC (its point of instname INSTNAME) in each push."""
    for path in push_files(out):
        for _, _, _, pts in points(path, metric):
            for attrs, p in pts:
                if not instname or attrs.get("instname") == instname:
                    print(p.get("asInt", p.get("asDouble")))


def index(path, metric, instname):
    for _, _, _, pts in points(path, metric):
        for i, (attrs, _) in enumerate(pts):
            if attrs.get("instname") == instname:
                print(i)
                return


def describe(paths):
    n = 0
    for path in paths:
        for m, kind, body, pts in points(path):
            n += len(pts)
            first = pts[0][1] if pts else {}
            print("%s: %s %s, temporality %s, isMonotonic %s, unit %s, %d points, first %s" % (
                os.path.basename(path), m.get("name"), kind, body.get("aggregationTemporality", "-"),
                body.get("isMonotonic", "-"), json.dumps(m.get("unit")), len(pts),
                json.dumps(first.get("asInt", first.get("asDouble")))))
    print("points %d" % n)


INST = re.compile(r'^\s+inst \[(-?\d+) or "(.*)"\] value (.*)$')
SINGLE = re.compile(r'^\s+value (.*)$')
DESC = re.compile(r'^\s+Data Type: (.*?)\s+InDom:.*$')
SEMU = re.compile(r'^\s+Semantics: (\S+)\s+Units: (.*)$')


def pminfo(host, names):
    """{metric: {"values": {inst or "": text}, "type", "sem", "units"}}"""
    p = subprocess.run(["pminfo", "-h", host, "-fd"] + names, capture_output=True, text=True)
    out, cur = {}, None
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            cur = out.setdefault(line.split()[0], {"values": {}})
            continue
        if cur is None:
            continue
        m = DESC.match(line)
        if m:
            cur["type"] = m.group(1)
            continue
        m = SEMU.match(line)
        if m:
            cur["sem"], cur["units"] = m.group(1), m.group(2).strip()
            continue
        m = INST.match(line)
        if m:
            cur["values"][m.group(2)] = m.group(3)
            continue
        m = SINGLE.match(line)
        if m:
            cur["values"][""] = m.group(1)
    return out, p.stderr.strip()


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def same_value(a, b):
    x, y = number(a), number(b)
    if x is None or y is None:
        return a == b
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def compare(host, spec):
    rows = []
    with open(spec) as f:
        for line in f:
            line = line.rstrip("\n")
            if line and not line.startswith("#"):
                rows.append(line.split("\t"))
    names = sorted({r[1] for r in rows} | {r[3] for r in rows})
    info, err = pminfo(host, names)
    if err:
        print("# pminfo: " + err.replace("\n", "\n# "))
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", "otlp-metrics.md")) as f:
        doc = f.read()

    def side(metric, inst):
        m = info.get(metric, {})
        v = m.get("values", {}).get(inst, "-")
        return [v, m.get("type", "?"), m.get("sem", "?"), m.get("units", "?")]

    bad = 0
    table = [("what", "ours", "type/sem/units", "pmdaopentelemetry", "type/sem/units", "")]
    names = []
    for what, ours, oi, theirs, ti, owant, twant, note in rows:
        got_o, got_t = side(ours, oi), side(theirs, ti)
        want_o, want_t = owant.split("/", 3), twant.split("/", 3)
        agree = same_value(got_o[0], got_t[0]) and got_o[2:] == got_t[2:]
        problems = []
        if not same_value(got_o[0], want_o[0]) or got_o[1:] != want_o[1:]:
            problems.append("ours: want %s, got %s" % ("/".join(want_o), "/".join(got_o)))
        if not same_value(got_t[0], want_t[0]) or got_t[1:] != want_t[1:]:
            problems.append("theirs: want %s, got %s" % ("/".join(want_t), "/".join(got_t)))
        if agree and note != "same":
            problems.append("the two agree, but the line says they differ (%s)" % note)
        if not agree:
            for key in note.split("; "):
                if key == "same" or ("**%s.**" % key) not in doc:
                    problems.append("they differ, and docs/otlp-metrics.md has no paragraph **%s.**" % key)
        for p in problems:
            print("# %s: %s" % (what, p))
        bad += bool(problems)
        table.append((what, got_o[0], "/".join(got_o[1:]), got_t[0], "/".join(got_t[1:]),
                      "same" if agree else note))
        names.append("%s: %s%s and %s%s" % (what, ours, "[%s]" % oi if oi else "",
                                            theirs, "[%s]" % ti if ti else ""))
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        print("# " + " | ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    for line in names:
        print("#   " + line)
    n = len(rows)
    print("%s - side by side: %d rows, each side as wanted, every difference documented%s"
          % ("ok" if bad == 0 else "not ok", n, "" if bad == 0 else " (%d not)" % bad))
    return 1 if bad else 0


def main(argv):
    if len(argv) == 3 and argv[1] in ("fixture", "collide", "delta", "noattrs", "intattr"):
        json.dump(fixture(int(argv[2]), argv[1]), sys.stdout, indent=1)
        print()
        return 0
    if len(argv) == 5 and argv[1] == "capture":
        capture(int(argv[2]), argv[3], argv[4])
        return 0
    if len(argv) in (4, 5) and argv[1] == "pushed":
        pushed(argv[2], argv[3], argv[4] if len(argv) == 5 else "")
        return 0
    if len(argv) == 5 and argv[1] == "index":
        index(argv[2], argv[3], argv[4])
        return 0
    if len(argv) >= 3 and argv[1] == "describe":
        describe(argv[2:])
        return 0
    if len(argv) == 4 and argv[1] == "compare":
        return compare(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
