#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of our MMV agent's percentiles (part of make bench): 100
# histograms of 74 buckets in 100 files, written and recorded into by
# hist_files meanwhile; bench_mmv_pct loads Debian's pmda_mmv.so and ours
# and calls their fetch callbacks (bench_mmv_pct.c says what is timed).
# MMV_BENCH_HISTS and MMV_BENCH_REPS narrow a run.
cd "$(dirname "$0")/.."
top=$(pwd)
. "$top/tests/lib/debian.sh"
theirs=/var/lib/pcp/pmdas/mmv/pmda_mmv.so
need_debian run-mmv-pct "$theirs"
W=$(mktemp -d /tmp/mmv-pct.XXXXXX)
writer=
trap 'exec 3>&-; [ -z "$writer" ] || wait "$writer"; rm -rf "$W"' EXIT INT TERM
n=${MMV_BENCH_HISTS:-100}
mkdir -p "$W/mmv"
mkfifo "$W/in"
PCP_TMP_DIR=$W build/bench/hist_files "$n" < "$W/in" > "$W/out" &
writer=$!
exec 3> "$W/in"
for i in 1 2 3 4 5 6 7 8 9 10; do grep -q ready "$W/out" && break; sleep 0.2; done
echo "| MMV agent case (DSO fetch callback, CPU us/request) | Debian pmda_mmv.so | ours | ours/Debian |"
echo "|---|---:|---:|---:|"
PCP_TMP_DIR=$W build/bench/bench_mmv_pct "$theirs" "$top/build/lib/pmda_mmv.so" \
	"$n" "${MMV_BENCH_REPS:-50}"
