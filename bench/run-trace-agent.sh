#!/bin/sh
# Trace agent head-to-head (part of make bench): Debian's pmdatrace and
# ours, each alone in a private pmcd, fed by bench_trace_agent: ingest rate
# from 1, 10 and 100 async connections, and fetch latency with 10,000 tags.
# Prints a Markdown table; raw lines stay in build/bench/trace_agent.*.out.
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
	port=$(pmcd_free_port)
	pmcd_agent trace 10 pipe binary "$2" -M "$(id -un)" -l "$W/$1/log/trace.log" -I "$port"
	pmcd_pmns "$top/build/pmdas/trace/root_trace"
	{ pmcd_start && pmcd_wait_port "$port"; } ||
		{ echo "run-trace-agent: pmcd with $2 did not start" >&2; exit 1; }
	# an agent that stalls (PCP's blocks on partial PDUs) must not hang the run
	for c in 1 10 100; do
		timeout 60 "$drv" ingest "$port" "$PMCD_HOST" "$c" "$total" ||
			echo "ingest_$c stalled 1"
	done
	timeout 60 "$drv" tags "$port" "$PMCD_HOST" 10000 || echo "fetch_10000_tags stalled 1"
	pmcd_stop
}

run theirs "$PCP_PMDAS_DIR/trace/pmdatrace" > build/bench/trace_agent.theirs.out
run ours "$top/build/pmdas/trace/pmdatrace" > build/bench/trace_agent.ours.out

val() { awk -v k="$2" -v f="$3" '$1 == k && $2 == f { print $3 }' "build/bench/trace_agent.$1.out"; }
echo "| trace agent case | Debian pmdatrace | ours | ours/Debian |"
echo "|---|---:|---:|---:|"
for c in 1 10 100; do
	t=$(val theirs "ingest_$c" events_per_sec) o=$(val ours "ingest_$c" events_per_sec)
	echo "| ingest, $c async connection(s), events/s | ${t:-stalled} | ${o:-stalled} | $(awk -v a="$t" -v b="$o" 'BEGIN { if (a > 0 && b > 0) printf("%.1f", b / a); else print "–" }') |"
done
for c in 1 10 100; do
	echo "| events counted / sent, $c connection(s) | $(val theirs "ingest_$c" counted) / $(val theirs "ingest_$c" sent) | $(val ours "ingest_$c" counted) / $(val ours "ingest_$c" sent) | |"
done
t=$(val theirs fetch_10000_tags usec) o=$(val ours fetch_10000_tags usec)
echo "| fetch trace.point.count with 10,000 tags, us | ${t:-stalled} | ${o:-stalled} | $(awk -v a="$t" -v b="$o" 'BEGIN { if (a > 0 && b > 0) printf("%.2f", b / a); else print "–" }') |"
