#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Histogram record cost (part of make bench): build/bench/bench_mmv_hist_pcp
# (Debian's libpcp_mmv: mmv_inc_value only) and bench_mmv_hist_ours turn
# about for BENCH_ROUNDS rounds (default 3), each with a private
# PCP_TMP_DIR; prints a Markdown table of the medians over the rounds.
cd "$(dirname "$0")/.."
bin=build/bench
rounds=${BENCH_ROUNDS:-3}
unset LD_LIBRARY_PATH LD_PRELOAD
. tests/lib/debian.sh
need_debian run-mmv-hist "$(loaded_lib "$bin/bench_mmv_hist_pcp" libpcp_mmv.so.1)"
W=$(mktemp -d /tmp/mmv-hist-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
mkdir "$W/mmv"
i=1
while [ "$i" -le "$rounds" ]; do
	for v in pcp ours; do
		PCP_TMP_DIR=$W "$bin/bench_mmv_hist_$v" > "$W/$v.$i.out" || exit 1
	done
	i=$((i + 1))
done
get() {	# get pcp|ours KEY -> median over the rounds, or na
	cat "$W"/"$1".*.out | awk -v k="$2" '
		$1 == k { if ($2 == "na") na = 1; else v[n++] = $2 + 0 }
		END {
			if (na || n == 0) { print "n/a"; exit }
			for (i = 1; i < n; i++)
				for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
					t = v[j]; v[j] = v[j - 1]; v[j - 1] = t
				}
			printf("%.2f\n", v[int(n / 2)])
		}'
}
echo "| case (ns/op; 2t: per call as each thread sees it) | PCP 6.0.3 | ours |"
echo "|---|---:|---:|"
while read -r key label; do
	echo "| $label | $(get pcp "$key") | $(get ours "$key") |"
done <<'CASES'
inc_value_1t mmv_inc_value, U64, 1 thread
inc_value_2t_same mmv_inc_value, U64, 2 threads, one value
inc_value_2t_own mmv_inc_value, U64, 2 threads, a value each
record_1t mmv_histogram_record, 1 thread
record_2t_same mmv_histogram_record, 2 threads, one histogram
record_2t_own mmv_histogram_record, 2 threads, a histogram each
now_1t mmv_histogram_now (clock_gettime), 1 thread
record_since_now_1t mmv_histogram_record_since(h, mmv_histogram_now()), 1 thread
CASES
