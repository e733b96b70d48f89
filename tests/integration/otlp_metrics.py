# SPDX-License-Identifier: GPL-2.0-or-later
"""The comparator of tests/integration/otlp_metrics.sh: what
tests/integration/otlp/metrics.js (or nodesdk.js) expects against what
pminfo shows through pmcd.

  otlp_metrics.py HOST EXPECTED TITLE

EXPECTED holds tab-separated lines (metrics.js's header):
  value  METRIC INSTANCE VALUE   pminfo -f: integers exact, doubles within
                                 1e-9 (pminfo prints 15 digits); INSTANCE
                                 empty: a metric without instances
  desc   METRIC TYPE SEM UNITS   pminfo -d's words
  ilabel METRIC INSTANCE KEY JSON  the instance's labels (pminfo -l); "le"
                                 may be a number equal to the string's
  mlabel METRIC KEY JSON         the metric's labels (pminfo -l, first line)
  text   METRIC TEXT             pminfo -t's one-line help contains TEXT
  series PREFIX                  every instance of a value line's metric
                                 named PREFIX, PREFIX{... or PREFIX:... is
                                 expected (no stray series or bucket)
  points N                       (for the shell: data points exported)
Prints TAP lines without numbers ("ok - ...", "not ok - ...", "# ...")
for the shell to number, one per kind of line; exits 1 if any differs."""
import json
import re
import subprocess
import sys

INST = re.compile(r'^\s+inst \[(-?\d+) or "(.*)"\] (value|labels) (.*)$')
SINGLE = re.compile(r'^\s+(value|labels) (.*)$')


def pminfo(host, flag, names):
    """pminfo FLAG over NAMES: {name: [lines]} and its standard error."""
    p = subprocess.run(["pminfo", "-h", host, flag] + names, capture_output=True, text=True)
    blocks, cur = {}, None
    for line in p.stdout.splitlines():
        if not line.strip():
            continue
        if not line[0].isspace():
            if flag == "-t":
                m = re.match(r"^(\S+) \[(.*)\]$", line)
                if m:
                    blocks[m.group(1)] = [m.group(2)]
                    continue
            cur = line.split()[0]
            blocks.setdefault(cur, [])
        elif cur is not None:
            blocks[cur].append(line)
    return blocks, p.stderr.strip()


def instances(lines, what):
    """{instance name or None: text} for pminfo -f (value) or -l (labels) lines."""
    out = {}
    for line in lines:
        m = INST.match(line)
        if m and m.group(3) == what:
            out[m.group(2)] = m.group(4)
            continue
        m = SINGLE.match(line)
        if m and m.group(1) == what:
            out[None] = m.group(2)
    return out


def same_value(want, got):
    if got is None:
        return False
    if re.fullmatch(r"-?\d+", want) and re.fullmatch(r"-?\d+", got):
        return int(want) == int(got)
    try:
        w, g = float(want), float(got)
    except ValueError:
        return want == got
    return abs(w - g) <= 1e-9 * max(abs(w), 1e-3)


def same_label(key, want, got):
    if want == got:
        return True
    return key == "le" and isinstance(want, str) and isinstance(got, (int, float)) and \
        want not in ("+Inf", "-Inf") and float(want) == got


def main():
    host, expected, title = sys.argv[1:4]
    rows = [line.rstrip("\n").split("\t") for line in open(expected) if line.strip()]
    rows = [r for r in rows if r[0] != "points"]
    names = sorted({r[1] for r in rows if r[0] != "series"})
    prefixes = [r[1] for r in rows if r[0] == "series"]
    values, verr = pminfo(host, "-f", names)
    descs, _ = pminfo(host, "-d", names)
    labels, _ = pminfo(host, "-l", names)
    texts, _ = pminfo(host, "-t", names)
    bad = {k: [] for k in ("value", "desc", "ilabel", "mlabel", "text", "series")}
    count = {k: 0 for k in bad}

    for r in rows:
        kind = r[0]
        count[kind] += 1
        if kind == "value":
            _, name, inst, want = r
            got = instances(values.get(name, []), "value").get(inst or None)
            if not same_value(want, got):
                bad[kind].append(f'{name} "{inst}": want {want}, got {got}')
        elif kind == "desc":
            _, name, dtype, sem, units = r
            text = " ".join(descs.get(name, []))
            m = re.search(r"Data Type: (.*?)\s+InDom:.*Semantics: (\S+)\s+Units: (.*)$", text)
            got = (m.group(1), m.group(2), m.group(3).strip()) if m else None
            if got != (dtype, sem, units):
                bad[kind].append(f"{name}: want {dtype}/{sem}/{units}, got "
                                 f"{'/'.join(got) if got else text or 'nothing'}")
        elif kind == "ilabel":
            _, name, inst, key, want = r
            text = instances(labels.get(name, []), "labels").get(inst or None)
            got = json.loads(text).get(key, "(none)") if text else "(no such instance)"
            if not same_label(key, json.loads(want), got):
                bad[kind].append(f'{name} "{inst}": label {key} want {want}, got {json.dumps(got)}')
        elif kind == "mlabel":
            _, name, key, want = r
            text = instances(labels.get(name, []), "labels").get(None)
            got = json.loads(text).get(key, "(none)") if text else "(no labels)"
            if json.loads(want) != got:
                bad[kind].append(f"{name}: label {key} want {want}, got {json.dumps(got)}")
        elif kind == "text":
            _, name, want = r
            got = (texts.get(name) or [""])[0]
            if want not in got:
                bad[kind].append(f"{name}: help text [{got}] lacks [{want}]")
        elif kind == "series":
            prefix = r[1]
            for name in sorted({v[1] for v in rows if v[0] == "value"}):
                want = {v[2] for v in rows if v[0] == "value" and v[1] == name}
                for inst in instances(values.get(name, []), "value"):
                    if inst is None or inst in want:
                        continue
                    if inst == prefix or inst.startswith(prefix + "{") or inst.startswith(prefix + ":"):
                        bad[kind].append(f'{name}: instance "{inst}" not expected')

    what = {"value": "values as recorded (pminfo -f)",
            "desc": "descriptors: type, semantics, units (pminfo -d)",
            "ilabel": "instance labels (pminfo -l)",
            "mlabel": "metric labels otel_name, otel_unit (pminfo -l)",
            "text": "help text has the description (pminfo -t)",
            "series": "no instance of this service but those expected"}
    failed = False
    for k, lines in bad.items():
        if not count[k]:
            continue
        if lines:
            failed = True
            print(f"not ok - {title}: {what[k]}: {len(lines)} of {count[k]} differ")
            for line in lines[:40]:
                print("# " + line)
            if k == "value" and verr:
                for line in verr.splitlines()[:10]:
                    print("# pminfo: " + line)
        elif k == "series":
            print(f"ok - {title}: {what[k]}")
        else:
            print(f"ok - {title}: {what[k]}: {count[k]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
