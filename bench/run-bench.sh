#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016  # backquotes in the table labels are Markdown, not commands
# Runs the head-to-head benchmarks (make bench): build/bench/bench_mmv_pcp
# (Debian's libpcp_mmv.so.1) and build/bench/bench_mmv_ours (ours),
# alternately for BENCH_ROUNDS rounds (default 3), each with a private
# PCP_TMP_DIR, and prints Markdown tables: case, PCP, ours, ratio ours/PCP
# (each figure the median over the rounds), then the lost updates.
# Reports; never asserts. Raw "key value unit" lines stay in
# build/bench/bench_mmv_{pcp,ours}.N.out.
set -e
cd "$(dirname "$0")/.."
bin=build/bench
rounds=${BENCH_ROUNDS:-3}

for b in "$bin/bench_mmv_pcp" "$bin/bench_mmv_ours"; do
	[ -x "$b" ] || { echo "run-bench: $b missing (run make bench)" >&2; exit 1; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/mmv"
# Each binary must load its own library: no LD_LIBRARY_PATH detours.
unset LD_LIBRARY_PATH LD_PRELOAD
. tests/lib/debian.sh
need_debian run-bench "$(loaded_lib "$bin/bench_mmv_pcp" libpcp_mmv.so.1)"
rm -f "$bin"/bench_mmv_pcp.*.out "$bin"/bench_mmv_ours.*.out
i=1
while [ "$i" -le "$rounds" ]; do
	PCP_TMP_DIR=$tmp "$bin/bench_mmv_pcp" > "$bin/bench_mmv_pcp.$i.out"
	PCP_TMP_DIR=$tmp "$bin/bench_mmv_ours" > "$bin/bench_mmv_ours.$i.out"
	i=$((i + 1))
done

get() {	# get pcp|ours KEY [min|max] -> median (or min, max) over the rounds, or "na"
	cat "$bin"/bench_mmv_"$1".*.out | awk -v k="$2" -v agg="${3:-median}" '
		$1 == k { if ($2 == "na") na = 1; else v[n++] = $2 + 0 }
		END {
			if (na || n == 0) { print "na"; exit }
			for (i = 1; i < n; i++)		# insertion sort, n is tiny
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			print (agg == "min" ? v[0] : agg == "max" ? v[n - 1] : v[int(n / 2)])
		}'
}

why() {	# why pcp|ours KEY -> the reason printed with "na"
	awk -v k="$2" '$1 == k && $2 == "na" { print $3; exit }' "$bin/bench_mmv_$1.1.out"
}

fmt() {	# fmt VALUE -> 2 decimals below 100, else whole
	case "$1" in
	na) echo "n/a" ;;
	*) awk -v v="$1" 'BEGIN { printf(v < 100 ? "%.2f" : "%.0f", v) }' ;;
	esac
}

ratio() {	# ratio A B -> B/A, 2 decimals, or 2 significant digits below 0.1
	case "$1$2" in
	*na*) echo "–" ;;
	*) awk -v a="$1" -v b="$2" 'BEGIN { if (a <= 0) { print "–"; exit }
		r = b / a; printf(r >= 0.1 ? "%.2f" : "%.2g", r) }' ;;
	esac
}

row() {	# row LABEL UNIT PCP_KEY OURS_KEY
	p=$(get pcp "$3")
	o=$(get ours "$4")
	pr=$(fmt "$p")
	or=$(fmt "$o")
	[ "$p" = na ] && pr="n/a ($(why pcp "$3"))"
	[ "$o" = na ] && or="n/a ($(why ours "$4"))"
	echo "| $1 | $2 | $pr | $or | $(ratio "$p" "$o") |"
}

lost() {	# lost pcp|ours KEY
	n=$(get "$1" "${2}_lost")
	case "$n" in
	na) echo "n/a" ;;
	*) printf '%s (%s%%; runs %s-%s%%)\n' \
		"$(awk -v v="$n" 'BEGIN { printf("%.0f", v) }')" \
		"$(fmt "$(get "$1" "${2}_lost_pct")")" \
		"$(fmt "$(get "$1" "${2}_lost_pct_min" min)")" \
		"$(fmt "$(get "$1" "${2}_lost_pct_max" max)")" ;;
	esac
}

calls=$(get ours mt_calls_per_thread)
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')," \
	"family $(grep -m1 'cpu family' /proc/cpuinfo | sed 's/.*: //')," \
	"model $(grep -m1 '^model[[:space:]]' /proc/cpuinfo | sed 's/.*: //');" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg); $rounds alternating rounds"
echo "PCP library: $(awk '$1 == "library" { print $2; exit }' "$bin/bench_mmv_pcp.1.out")"
echo "Our library: $(awk '$1 == "library" { print $2; exit }' "$bin/bench_mmv_ours.1.out")"
echo
echo "| case | unit | PCP | ours | ours/PCP |"
echo "|---|---|---:|---:|---:|"
row '`mmv_inc_value` U64' ns/call inc_value_u64 inc_value_u64
row '`mmv_inc` U64' ns/call inc_u64 inc_u64
row '`mmv_set_value` U64' ns/call set_value_u64 set_value_u64
row '`mmv_set_value` DOUBLE' ns/call set_value_double set_value_double
row 'inline `mmv_fast_add_u64` (ours) vs PCP `mmv_inc_value` U64' ns/call inc_value_u64 fast_add_u64
row 'inline `mmv_fast_set_double` (ours) vs PCP `mmv_set_value` DOUBLE' ns/call set_value_double fast_set_double
row 'plain C `+=` on the U64 value, no library' ns/op plain_add_u64 plain_add_u64
row 'plain C store to the DOUBLE value, no library' ns/op plain_store_double plain_store_double
row 'elapsed pair: `mmv_stats_interval_start(addr, h, NULL, NULL)` + `mmv_stats_interval_end`' ns/pair elapsed_pair elapsed_pair
row 'two `gettimeofday` calls, no library (the clock part of a pair)' ns/pair clock_pair clock_pair
row '`mmv_lookup_value_desc`, middle of 10 singular metrics' ns/call lookup_10 lookup_10
row '`mmv_lookup_value_desc`, middle of 1,000 singular metrics' ns/call lookup_1000 lookup_1000
row '`mmv_lookup_value_desc`, middle of 10,000 singular metrics' ns/call lookup_10000_singular lookup_10000_singular
row '`mmv_lookup_value_desc`, middle of 10,000 values (100 metrics x 100 instances)' ns/call lookup_10000_values lookup_10000_values
row '`mmv_stats_start`, 1,000 singular metrics with help (mean of 5)' ms start_1000 start_1000
row '`mmv_stats_start`, 1,000 singular metrics, over the file of the run before (restart)' ms start_1000_replace start_1000_replace
row '`mmv_stats_start`, 10,000 singular metrics with help (mean of 5)' ms start_10000_singular start_10000_singular
row '`mmv_stats_start`, 10,000 values (100 metrics with help x 100 instances, mean of 5)' ms start_10000_values start_10000_values
row '`mmv_stats_start`, 10,000 values, over the file of the run before (restart)' ms start_10000_values_replace start_10000_values_replace
row '2 threads, one counter, `mmv_inc_value`: wall time / calls per thread' ns/call mt2_inc_value_ns mt2_inc_value_ns
row '2 threads, one counter, inline `mmv_fast_add_u64` (ours) vs PCP `mmv_inc_value`' ns/call mt2_inc_value_ns mt2_fast_add_u64_ns
echo
echo "Lost updates: 2 threads x $(fmt "$calls") calls on one U64 counter; expected total minus final value, median over the rounds of each round's median of 5 runs, and the range over all runs:"
echo
echo "| case | PCP | ours |"
echo "|---|---:|---:|"
echo "| \`mmv_inc_value\` | $(lost pcp mt2_inc_value) | $(lost ours mt2_inc_value) |"
echo "| inline \`mmv_fast_add_u64\` | – | $(lost ours mt2_fast_add_u64) |"
echo
fa=$(get ours fast_add_u64); pa=$(get ours plain_add_u64)
fs=$(get ours fast_set_double); ps=$(get ours plain_store_double)
echo "Inline path against plain C in the same binary (bench_mmv_ours):" \
	"mmv_fast_add_u64 / plain += = $(ratio "$pa" "$fa")," \
	"mmv_fast_set_double / plain store = $(ratio "$ps" "$fs")."

# The start as an application does it, both libraries in one process.
echo
echo "MMV start cycles (registry, adds, start, free, unlink or restart), PCP's library and ours turn about:"
echo
# It loads PCP's library by path, not through the loader: check that path.
need_debian bench_mmv_cycle "$(debian_lib libpcp-mmv1 libpcp_mmv.so.1)"
[ -x "$bin/bench_mmv_cycle" ] && PCP_TMP_DIR=$tmp "$bin/bench_mmv_cycle" 

# Trace client libraries against Debian's pmdatrace, then the agents.
echo
echo "Trace client: calls/s, PCP's libpcp_trace vs ours, against Debian's pmdatrace:"
echo
sh bench/bench_trace.sh "${TRACE_BENCH_SECONDS:-2}"
echo
echo "Trace clients, ns per call: PCP's library, our PDU path, our shared segment:"
echo
sh bench/run-trace-shm.sh
echo
echo "Trace agents: Debian's pmdatrace vs ours, raw async clients:"
echo
sh bench/run-trace-agent.sh

echo
echo "MMV agents: Debian's pmdammv vs ours:"
echo
sh bench/run-mmv-agent.sh

echo
echo "MMV agents alone (DSO fetch callbacks in one process):"
echo
sh bench/run-mmv-dso.sh

echo
echo "Histogram record cost beside mmv_inc_value:"
echo
sh bench/run-mmv-hist.sh

echo
echo "MMV agent: percentiles of 100 histograms (DSO fetch callbacks in one process):"
echo
sh bench/run-mmv-pct.sh

echo
echo "Trace agent aggregation alone: per-event cost and memory, before and with histograms:"
echo
sh bench/run-trace-agg.sh
echo
echo "Python: a counter increment through the binding, prometheus_client and PCP's pcp.mmv:"
echo
sh bench/run-python.sh
echo
echo "Trace agent: OTLP/HTTP spans (requests of 512 spans), CPU per span, memory at 10,000 instances:"
echo
sh bench/run-otlp.sh
