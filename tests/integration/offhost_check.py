#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""offhost_check.py MODE FILE DUMP [P99]: compare what an off-host reader
got (pmproxy's /metrics text, its /pmapi/fetch JSON, or pmrep's CSV of a
pmlogger archive) with the tallies hist_writer kept itself (its "dump":
bucket/count/sum lines) and, given P99, with the agent's p99 of
shop.lat for anvils. MODE: prom, json or csv. Exit 0 when everything
matches; otherwise the differences on stderr, as "# " lines.

The Prometheus text is parsed with Debian's python3-prometheus-client.
"""
import csv
import json
import sys

# hist_writer's instance ids of indom "products"
PRODUCTS = {"anvils": 0, "rockets": 1}


def want_from(dump):
    """{(metric, instance name or None): value} from the writer's dump."""
    want = {}
    for line in open(dump):
        f = line.split()
        if not f or f[0] not in ("bucket", "count", "sum"):
            continue
        metric = "mmv." + f[1] + "." + f[0]
        inst = None if f[2] == "-" else f[2]
        if f[0] == "bucket":
            bucket = f[3] + "-" + f[4]
            inst = bucket if inst is None else inst + ":" + bucket
            want[(metric, inst)] = int(f[5])
        else:
            want[(metric, inst)] = int(f[3])
    return want


def got_prom(path):
    from prometheus_client.parser import text_string_to_metric_families
    got = {}
    for family in text_string_to_metric_families(open(path).read()):
        # the family's name: the parser adds _total to counter samples
        for s in family.samples:
            got[(prom_name(family.name), s.labels.get("instname"))] = s.value
    return got


def prom_name(name):
    # pmproxy maps "." to "_"; names here have "_" nowhere else
    return name.replace("_", ".")


def got_json(path):
    ids = {v: k for k, v in PRODUCTS.items()}
    got = {}
    for v in json.load(open(path))["values"]:
        for i in v["instances"]:
            inst = i.get("instance")
            inst = None if inst is None or inst == -1 else ids.get(inst, str(inst))
            got[(v["name"], inst)] = i["value"]
    return got


def got_csv(path):
    rows = list(csv.reader(open(path)))
    if len(rows) < 2:
        return {}
    got = {}
    for col, value in zip(rows[0][1:], rows[-1][1:]):
        # "metric[instance]" (pmrep 7) or "metric-instance" (pmrep 6) or
        # "metric"; metric names have neither "[" nor "-"
        if col.endswith("]") and "[" in col:
            metric, _, inst = col[:-1].partition("[")
        else:
            metric, _, inst = col.partition("-")
        if value != "":
            got[(metric, inst or None)] = float(value)
    return got


def main():
    mode, path, dump = sys.argv[1:4]
    p99 = float(sys.argv[4]) if len(sys.argv) > 4 else None
    got = {"prom": got_prom, "json": got_json, "csv": got_csv}[mode](path)
    want = want_from(dump)
    if mode == "json":  # the fetch names the counters, not the buckets
        want = {k: v for k, v in want.items() if not k[0].endswith(".bucket")}
    bad = 0
    for key, value in sorted(want.items(), key=str):
        if key not in got or float(got[key]) != value:
            print("# %s[%s]: want %s, got %s" % (key[0], key[1], value,
                  got.get(key)), file=sys.stderr)
            bad += 1
    if len(want) < 6:
        print("# only %d values to compare" % len(want), file=sys.stderr)
        bad += 1
    if p99 is not None:
        key = ("mmv.percentile.shop.lat.p99", "anvils")
        if key not in got or abs(float(got[key]) - p99) > 1e-6:
            print("# %s[%s]: want %s, got %s" % (key[0], key[1], p99,
                  got.get(key)), file=sys.stderr)
            bad += 1
    print("# %s: %d values compared, %d differ" % (mode, len(want), bad),
          file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
