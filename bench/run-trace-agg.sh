#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck disable=SC2016  # backquotes in the table labels are Markdown, not commands
# The trace agent's aggregation alone (part of make bench): the PDU path's
# per-event cost once a PDU is decoded, and memory per tag, with
# histograms (the current core) against before them (TRACE_AGG_BASE's
# agg.[ch], bench/build.mk), one thread, alternately for
# TRACE_AGG_ROUNDS rounds (default 5); each figure is the median over
# the rounds. Then what only the histograms have: a batch merge and a
# percentile fetch. Prints Markdown; raw lines stay in
# build/bench/trace_agg.{base,hist}.N.out. Reports; never asserts.
set -e
cd "$(dirname "$0")/.."
bin=build/bench
rounds=${TRACE_AGG_ROUNDS:-5}
[ -x "$bin/bench_trace_agg" ] || { echo "run-trace-agg: $bin/bench_trace_agg missing (run make bench)" >&2; exit 1; }
[ -x "$bin/bench_trace_agg_base" ] ||
	{ echo "run-trace-agg: no base tree to compare with (bench/build.mk, BENCH_BASE_OK)"; exit 0; }
rm -f "$bin"/trace_agg.*.out
i=1
while [ "$i" -le "$rounds" ]; do
	"$bin/bench_trace_agg_base" > "$bin/trace_agg.base.$i.out"
	"$bin/bench_trace_agg" > "$bin/trace_agg.hist.$i.out"
	i=$((i + 1))
done

get() {	# get base|hist KEY -> the median over the rounds, or "na"
	cat "$bin"/trace_agg."$1".*.out | awk -v k="$2" '
		$1 == k { v[n++] = $2 + 0 }
		END {
			if (n == 0) { print "na"; exit }
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			print v[int(n / 2)]
		}'
}

row() {	# row LABEL UNIT KEY
	b=$(get base "$3")
	h=$(get hist "$3")
	echo "| $1 | $2 | $b | $h | $(awk -v a="$b" -v b="$h" 'BEGIN { if (a > 0 && b > 0) printf("%.2f", b / a); else print "–" }') |"
}

echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //');" \
	"load average $(cut -d' ' -f1-3 /proc/loadavg); $rounds alternating rounds, medians"
echo
echo "| \`tra_agg_record_in\`, -T 60 -N 5, one thread | unit | before histograms | with histograms | with/before |"
echo "|---|---|---:|---:|---:|"
row 'points, 1 tag' ns/event point_1tag
row 'points, 100 tags round robin' ns/event point_100tags
row 'transactions, 100 tags, times within 1 binade (1-2 ms)' ns/event transact_narrow_100tags
row 'transactions, 100 tags, times log-uniform 1 us - 1 s' ns/event transact_wide_100tags
row 'observations, 100 tags, values log-uniform 1e-6 - 1' ns/event observe_wide_100tags
row 'heap per tag, points (6 sub-intervals x 1000 reports)' bytes mem_point
row 'heap per tag, transactions within 1 binade (same)' bytes mem_transact_narrow
row 'heap per tag, transactions log-uniform 1 us - 1 s (same)' bytes mem_transact_wide
echo
echo "| with histograms only | unit | median |"
echo "|---|---|---:|"
echo "| \`tra_agg_merge_in\`, a batch of 1000 transactions (log-uniform), 100 tags | ns/batch | $(get hist merge_batch_1000_wide) |"
echo "| \`tra_agg_percentiles\` p50, p90, p99 of a full window (5 x 1000 times within 1 binade) | ns/call | $(get hist pct3_narrow) |"
echo "| \`tra_agg_percentiles\` p50, p90, p99 of a full window (5 x 1000 times log-uniform) | ns/call | $(get hist pct3_wide) |"
