#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Rows of one query's latest values, for tests/integration/fleet.sh.

usage:
  fleet_series.py pmseries KEYHOST KEYPORT QUERY   through Debian's pmseries
  fleet_series.py rest URL QUERY                   through pmproxy's REST API
  fleet_series.py pminfo HOSTNAME PMCD METRIC      what a pmcd serves now
  fleet_series.py recorded HOSTNAME FILE LE        what a writer was told to
                                                   record (FILE: "SET VALUE
                                                   TIMES" lines): per SET, the
                                                   count of values below LE
                                                   ("+Inf": all)
  fleet_series.py check WANT GOT WHERE HOSTS       compare two row files
Each of the first four prints rows "HOST<TAB>INSTANCE<TAB>VALUE<TAB>LABELS"
(LABELS the instance's labels as JSON), HOST the series' label hostname
(pminfo and recorded: the HOSTNAME given). The REST rows come as the
Grafana PCP data source gets them: /series/query for the series, then
/series/values, /series/instances and /series/labels.

check: WHERE is "-" or NAME=VALUE (rows whose labels have it), HOSTS a
comma-separated list. Succeeds when GOT has rows of every host of HOSTS
and none of another host, and GOT's rows, filtered by WHERE, are WANT's
filtered rows, matched by host and instance (or, where WANT has no
instance names, "-", by host and the label "of") with equal values; with
instance names in WANT (pminfo's rows), every row of GOT must also have
WANT's value. (A label of instances selects the metric's series; PCP 6
and 7 then give the values of all its instances.)
"""
import http.client
import json
import re
import subprocess
import sys
import urllib.parse

HEX40 = re.compile(r"^[0-9a-f]{40}$")


def emit(rows):
    for host, inst, value, labels in sorted(rows, key=lambda r: (r[0], r[1])):
        print("%s\t%s\t%s\t%s" % (host, inst, value,
                                  json.dumps(labels, sort_keys=True)))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, check=False)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (" ".join(cmd), p.returncode,
                                      p.stderr.strip()))
    return p.stdout


def via_pmseries(keyhost, keyport, query):
    base = ["pmseries", "-h", keyhost, "-p", keyport]
    ids = [w for w in run(base + [query]).split() if HEX40.match(w)]
    if not ids:
        return []
    # latest value of each instance series: "[TIME] VALUE INSTSERIES"
    values = {}
    for line in run(base + [query + "[samples:1]"]).splitlines():
        m = re.match(r"^\s*\[[^]]*\]\s+(\S+)\s+([0-9a-f]{40})\s*$", line)
        if m:
            values.setdefault(m.group(2), m.group(1))
    # instance names: 'inst [ID or "NAME"] series INSTSERIES'
    names = {}
    for line in run(base + ["-a"] + ids).splitlines():
        m = re.match(r'^\s*inst \[\d+ or "(.*)"\] series ([0-9a-f]{40})\s*$',
                     line)
        if m:
            names[m.group(2)] = m.group(1)
    # labels of each instance series: "INSTSERIES" then "labels {...}"
    labels, cur = {}, None
    if values:
        for line in run(base + ["-l"] + sorted(values)).splitlines():
            s = line.strip()
            if HEX40.match(s):
                cur = s
            elif s.startswith("labels ") and cur:
                labels[cur] = json.loads(s[len("labels "):])
    return rows_of(values, names, labels)


def rows_of(values, names, labels):
    """(hostname, instance name, value, labels) of each instance series."""
    rows = []
    for inst, value in values.items():
        lab = labels.get(inst, {})
        rows.append((lab.get("hostname", "?"), names.get(inst, "?"), value,
                     lab))
    return rows


_conn = {}


def get(url, path, **params):
    """GET url/path?params as JSON, on one kept-alive connection as a
    browser's (pmproxy 6.0 cuts a chunked reply after its first chunk
    when the request says "Connection: close", as urllib's do)."""
    u = urllib.parse.urlsplit(url)
    if url not in _conn:
        _conn[url] = http.client.HTTPConnection(u.hostname, u.port,
                                                timeout=10)
    c = _conn[url]
    c.request("GET", "/%s?%s" % (path, urllib.parse.urlencode(params)))
    r = c.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit("%s: HTTP %d: %s" % (path, r.status, body[:200]))
    return json.loads(body)


def via_rest(url, query):
    ids = get(url, "series/query", expr=query)
    if not ids:
        return []
    if not all(isinstance(i, str) and HEX40.match(i) for i in ids):
        sys.exit("/series/query: not a list of series: %r" % ids)
    series = ",".join(ids)
    values = {}
    for v in get(url, "series/values", series=series, samples=1):
        values.setdefault(v["instance"], v["value"])
    names = {i["instance"]: i["name"]
             for i in get(url, "series/instances", series=series)}
    labels = {}
    if values:
        for lab in get(url, "series/labels", series=",".join(sorted(values))):
            labels[lab["series"]] = lab["labels"]
    return rows_of(values, names, labels)


def via_pminfo(hostname, pmcd, metric):
    values, labels = {}, {}
    for line in run(["pminfo", "-h", pmcd, "-f", metric]).splitlines():
        m = re.match(r'^\s*inst \[\d+ or "(.*)"\] value (\S+)\s*$', line)
        if m:
            values[m.group(1)] = m.group(2)
    for line in run(["pminfo", "-h", pmcd, "-l", metric]).splitlines():
        m = re.match(r'^\s*inst \[\d+ or "(.*)"\] labels (\{.*\})\s*$', line)
        if m:
            labels[m.group(1)] = json.loads(m.group(2))
    return [(hostname, inst, value, labels.get(inst, {}))
            for inst, value in values.items()]


def recorded(hostname, path, le):
    bound = float("inf") if le == "+Inf" else float(le)
    counts = {}
    with open(path) as f:
        for line in f:
            what, value, times = line.split()
            counts.setdefault(what, 0)
            if float(value) < bound:
                counts[what] += int(times)
    return [(hostname, "-", n, {"of": what, "le": le})
            for what, n in counts.items()]


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            host, inst, value, labels = line.rstrip("\n").split("\t")
            rows.append((host, inst, float(value), json.loads(labels)))
    return rows


def check(want_path, got_path, where, hosts):
    want, got = load(want_path), load(got_path)
    hosts = set(hosts.split(","))
    seen = {r[0] for r in got}
    ok = True
    if seen != hosts:
        print("hosts in the answer: %s, wanted %s"
              % (sorted(seen), sorted(hosts)))
        ok = False
    by_of = all(r[1] == "-" for r in want)
    if not by_of:
        # every value in the answer, WHERE or not, is the pmcd's
        w = {(r[0], r[1]): r[2] for r in want}
        for r in got:
            if w.get((r[0], r[1])) != r[2]:
                print("%s %s: %s in the answer, %s from pminfo"
                      % (r[0], r[1], r[2], w.get((r[0], r[1]))))
                ok = False
    if where != "-":
        name, value = where.split("=", 1)
        want = [r for r in want if str(r[3].get(name)) == value]
        got = [r for r in got if str(r[3].get(name)) == value]

    def key(r):
        return (r[0], r[3].get("of") if by_of else r[1])
    w = {key(r): r[2] for r in want}
    g = {key(r): r[2] for r in got}
    if not w:
        print("nothing to compare with (%s)" % where)
        ok = False
    if w != g:
        for k in sorted(set(w) | set(g), key=str):
            if w.get(k) != g.get(k):
                print("%s: wanted %s, got %s" % (k, w.get(k), g.get(k)))
        ok = False
    return ok


def main():
    a = sys.argv[1:]
    if a[:1] == ["pmseries"] and len(a) == 4:
        emit(via_pmseries(a[1], a[2], a[3]))
    elif a[:1] == ["rest"] and len(a) == 3:
        emit(via_rest(a[1], a[2]))
    elif a[:1] == ["pminfo"] and len(a) == 4:
        emit(via_pminfo(a[1], a[2], a[3]))
    elif a[:1] == ["recorded"] and len(a) == 4:
        emit(recorded(a[1], a[2], a[3]))
    elif a[:1] == ["check"] and len(a) == 5:
        sys.exit(0 if check(a[1], a[2], a[3], a[4]) else 1)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
