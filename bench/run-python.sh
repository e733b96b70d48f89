#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Counter increments from Python (part of make bench): bench/bench_python.py
# "sdk" (our binding, raw cffi and ctypes calls, prometheus_client, PCP's
# pcp.mmv on our library; LD_LIBRARY_PATH=build/lib) and "pcp" (PCP's
# pcp.mmv on Debian's libpcp_mmv) turn about for BENCH_ROUNDS rounds
# (default 3), each with a private PCP_TMP_DIR; prints a Markdown table of
# the medians over the rounds. Debian's python3 (it has python3-cffi,
# python3-prometheus-client and python3-pcp). Reports; never asserts.
cd "$(dirname "$0")/.."
rounds=${BENCH_ROUNDS:-3}
py=${PYTHON:-/usr/bin/python3}
unset LD_LIBRARY_PATH LD_PRELOAD
. tests/lib/debian.sh
W=$(mktemp -d /tmp/python-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
mkdir "$W/mmv"
i=1
while [ "$i" -le "$rounds" ]; do
	PCP_TMP_DIR=$W LD_LIBRARY_PATH=build/lib PYTHONPATH=bindings/python \
		"$py" bench/bench_python.py sdk > "$W/sdk.$i.out" || exit 1
	PCP_TMP_DIR=$W "$py" bench/bench_python.py pcp > "$W/pcp.$i.out" || exit 1
	i=$((i + 1))
done
need_debian run-python "$(awk '$1 == "library" { print $3; exit }' "$W/pcp.1.out")"
get() {	# get sdk|pcp KEY -> median over the rounds
	cat "$W"/"$1".*.out | awk -v k="$2" '
		$1 == k { v[n++] = $2 + 0 }
		END {
			if (n == 0) { print "n/a"; exit }
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			printf("%.0f\n", v[int(n / 2)])
		}'
}
# our library's path relative to the tree, so RESULTS.md names no checkout
echo "Python $("$py" -c 'import sys; print(sys.version.split()[0])');" \
	"ours: $(awk -v top="$(pwd)/" '$1 == "library" { sub("^" top, "", $3); print $3; exit }' "$W/sdk.1.out");" \
	"PCP's: $(awk '$1 == "library" { print $3; exit }' "$W/pcp.1.out"); $rounds rounds"
echo
echo "| case | ns/op | vs prometheus_client |"
echo "|---|---:|---:|"
prom=$(get sdk prometheus_counter_inc)
while read -r who key label; do
	v=$(get "$who" "$key")
	r=$(awk -v a="$prom" -v b="$v" 'BEGIN { if (a > 0 && b > 0) printf("%.2f", b / a); else print "–" }')
	echo "| $label | $v | $r |"
done <<'CASES'
sdk sdk_counter_inc pcpsdk `Counter.inc()` (cffi ABI mode, `mmv_inc`)
sdk sdk_instance_inc pcpsdk `counter["a"].inc()` (the instance's value object)
sdk raw_cffi_inc raw cffi ABI-mode call of `mmv_inc(addr, handle)`
sdk raw_ctypes_inc raw ctypes call of `mmv_inc(addr, handle)` (argtypes set)
sdk prometheus_counter_inc prometheus_client `Counter.inc()` (python3-prometheus-client)
pcp pcp_mmv_inc PCP's `pcp.mmv` `MemoryMappedValues.inc(mapping)` on Debian's libpcp_mmv
sdk pcp_mmv_inc_ours PCP's `pcp.mmv` `inc` on our libpcp_mmv
sdk sdk_gauge_set pcpsdk `Gauge.set(2.5)`
sdk sdk_histogram_observe pcpsdk `Histogram.observe(1000)`
sdk builtin_call `abs(0)`, a call of a C builtin: the loop's own cost and the floor for any call
CASES
