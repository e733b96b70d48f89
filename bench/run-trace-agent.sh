#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Trace agent head-to-head (part of make bench): Debian's pmdatrace, ours
# as it was before histograms (TRACE_AGG_BASE, bench/build.mk; skipped if
# not built) and ours, each alone in a private pmcd, fed by
# bench_trace_agent: ingest rate of points from 1, 10 and 100 async
# connections and of observations with spread values (histogram work)
# from 1 and 10, and fetch latency with 10,000 tags. Prints a Markdown
# table; raw lines stay in build/bench/trace_agent.*.out.
cd "$(dirname "$0")/.."
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
need_debian run-trace-agent "$PCP_PMDAS_DIR/trace/pmdatrace"
drv="$top/build/bench/bench_trace_agent"
total=${TRACE_BENCH_EVENTS:-400000}
W=$(mktemp -d /tmp/trace-bench.XXXXXX)
trap 'pmcd_stop; rm -rf "$W"' EXIT INT TERM

run() {	# run NAME AGENT
	pmcd_init "$W/$1"
	pmcd_trace_agent "$2"
	{ pmcd_start && pmcd_wait_port "$port"; } ||
		{ echo "run-trace-agent: pmcd with $2 did not start" >&2; exit 1; }
	# an agent that stalls (PCP's blocks on partial PDUs) must not hang the run
	for c in 1 10 100; do
		timeout 60 "$drv" ingest "$port" "$PMCD_HOST" "$c" "$total" ||
			echo "ingest_$c stalled 1"
	done
	for c in 1 10; do
		timeout 60 "$drv" ingest_obs "$port" "$PMCD_HOST" "$c" "$total" ||
			echo "ingest_obs_$c stalled 1"
	done
	timeout 60 "$drv" tags "$port" "$PMCD_HOST" 10000 || echo "fetch_10000_tags stalled 1"
	pmcd_stop
}

base="$top/build/bench/base/build/pmdas/trace/pmdatrace"
run theirs "$PCP_PMDAS_DIR/trace/pmdatrace" > build/bench/trace_agent.theirs.out
if [ -x "$base" ]; then
	run base "$base" > build/bench/trace_agent.base.out
else
	: > build/bench/trace_agent.base.out
fi
run ours "$top/build/pmdas/trace/pmdatrace" > build/bench/trace_agent.ours.out

val() { awk -v k="$2" -v f="$3" '$1 == k && $2 == f { print $3 }' "build/bench/trace_agent.$1.out"; }
ratio() { awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { if (a > 0 && b > 0) printf(f, b / a); else print "–" }'; }
row() {	# row LABEL KEY FIELD FORMAT
	t=$(val theirs "$2" "$3") b=$(val base "$2" "$3") o=$(val ours "$2" "$3")
	echo "| $1 | ${t:-stalled} | ${b:-–} | ${o:-stalled} | $(ratio "$t" "$o" "$4") | $(ratio "$b" "$o" "$4") |"
}
echo "| trace agent case | Debian pmdatrace | ours before histograms | ours | ours/Debian | ours/before |"
echo "|---|---:|---:|---:|---:|---:|"
for c in 1 10 100; do
	row "ingest points, $c async connection(s), events/s" "ingest_$c" events_per_sec %.1f
done
for c in 1 10; do
	row "ingest observations (spread values), $c async connection(s), events/s" "ingest_obs_$c" events_per_sec %.2f
done
for k in ingest_1 ingest_10 ingest_100 ingest_obs_1 ingest_obs_10; do
	echo "| events counted / sent, $k | $(val theirs $k counted) / $(val theirs $k sent) | $(val base $k counted) / $(val base $k sent) | $(val ours $k counted) / $(val ours $k sent) | | |"
done
row "fetch trace.point.count with 10,000 tags, us" fetch_10000_tags usec %.2f
