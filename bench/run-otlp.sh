#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# OTLP/HTTP and OTLP/gRPC spans into our trace agent (make bench-otlp;
# issues 30 and 36): a private pmcd with our trace agent and its receivers
# on private ports, fed by bench/bench_otlp.c (requests of 512 spans,
# pre-encoded): the plain shape (4 attributes) over 1 and 4 keep-alive
# connections in protobuf, 1 in JSON and 1 gzip'd; the real shape (20
# attributes, 3 events, 2 links) over 1 and 4 in protobuf and 1 in JSON;
# when the agent has an OTLP/gRPC listener (-G), both shapes over 1 h2c
# connection as gRPC unary calls; then
# the stock Node SDK (bench/otlp_sdk.js, BatchSpanProcessor defaults) for
# one row; then, in a fresh agent, its memory at 10,000 instances; then
# the span table alone (bench/bench_trace_spans.c); then OpenTelemetry
# metrics (issue 38): bench_otlp's metrics load, data points of 1 and
# 1,000 series a request (a cumulative Sum; 1,000 different Sums; a
# Histogram of the SDK's 15 bounds), over OTLP/HTTP protobuf and OTLP/gRPC, in an agent of their
# own. Prints Markdown tables; raw "key value" lines stay in
# build/bench/otlp.*.out. OTLP_BENCH_PARTS: "spans", "metrics" or both
# (the default).
# OTLP_BENCH_SECONDS sets each row's length (default 10); OTLP_BENCH_AGENT
# another build of the agent (default ours, build/pmdas/trace/pmdatrace).
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
gen="$top/build/bench/bench_otlp"
ours=${OTLP_BENCH_AGENT:-$top/build/pmdas/trace/pmdatrace}
secs=${OTLP_BENCH_SECONDS:-10}
out=build/bench
W=$(mktemp -d /tmp/otlp-bench.XXXXXX)
trap 'pmcd_stop; rm -rf "$W"' EXIT INT TERM
for f in "$gen" "$ours"; do
	[ -x "$f" ] || { echo "run-otlp: $f missing (make bench-otlp builds it)" >&2; exit 1; }
done

# The OTLP/gRPC listener, where the agent has one (-G)
grpc=
"$ours" --help 2>&1 | grep -q -- '-G ' && grpc=yes

# start NAME ARGS...: a private pmcd with our trace agent and its receivers
# on free ports (oport, and gport for gRPC); sets apid, the agent's process
start() {
	pmcd_init "$W/$1"
	shift
	oport=$(pmcd_free_port)
	gport=$(pmcd_free_port)
	while [ "$gport" = "$oport" ]; do gport=$(pmcd_free_port); done
	pmcd_trace_agent "$ours" -O "127.0.0.1:$oport" ${grpc:+-G "127.0.0.1:$gport"} "$@"
	{ pmcd_start && pmcd_wait_port "$port" && pmcd_wait_port "$oport" &&
	  { [ -z "$grpc" ] || pmcd_wait_port "$gport"; }; } ||
		{ echo "run-otlp: pmcd with our trace agent did not start" >&2; exit 1; }
	apid=$(ps -o pid=,comm= --ppid "$PMCD_PID" | awk '$2 == "pmdatrace" { print $1 }')
	[ -n "$apid" ] || { echo "run-otlp: no pmdatrace under pmcd $PMCD_PID" >&2; exit 1; }
}

# cpu: the agent's utime + stime, clock ticks
cpu() { sed 's/.*) //' "/proc/$apid/stat" | awk '{ print $12 + $13 }'; }
kib() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$apid/status"; }

v() { awk -v k="$2" '$1 == k { print $2 }' "$out/otlp.$1.out"; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
parts=${OTLP_BENCH_PARTS:-spans metrics}
case " $parts " in *" spans "*) ;; *) parts_spans=no ;; esac
if [ "${parts_spans:-yes}" = yes ]; then
start load
timeout 120 "$gen" load "$oport" "$apid" proto 1 "$secs" > $out/otlp.proto1.out
timeout 120 "$gen" load "$oport" "$apid" proto 4 "$secs" > $out/otlp.proto4.out
timeout 120 "$gen" load "$oport" "$apid" json 1 "$secs" > $out/otlp.json1.out
timeout 120 "$gen" load "$oport" "$apid" gzip 1 "$secs" > $out/otlp.gzip1.out
timeout 120 "$gen" load "$oport" "$apid" proto 1 "$secs" real > $out/otlp.real1.out
timeout 120 "$gen" load "$oport" "$apid" proto 4 "$secs" real > $out/otlp.real4.out
timeout 120 "$gen" load "$oport" "$apid" json 1 "$secs" real > $out/otlp.jsonreal1.out
rm -f $out/otlp.grpc1.out $out/otlp.grpcreal1.out
if [ -n "$grpc" ]; then
	timeout 120 "$gen" load "$gport" "$apid" grpc 1 "$secs" > $out/otlp.grpc1.out
	timeout 120 "$gen" load "$gport" "$apid" grpc 1 "$secs" real > $out/otlp.grpcreal1.out
else
	echo "run-otlp: $ours has no OTLP/gRPC listener (-G): the gRPC rows are left out" >&2
fi
: > $out/otlp.sdk.out
if otlp_sdk_install "$W/npm.log"; then
	c0=$(cpu)
	NODE_PATH="$OTLP_SDK_PATH" timeout 120 node bench/otlp_sdk.js "http://127.0.0.1:$oport" \
		"$secs" > $out/otlp.sdk.out 2> "$W/sdk.err" || sed 's/^/run-otlp: sdk: /' "$W/sdk.err" >&2
	c1=$(cpu)
	ns=$(awk -v c="$((c1 - c0))" -v hz="$(getconf CLK_TCK)" '$1 == "spans" && $2 > 0 {
		printf("%.0f", c / hz * 1e9 / $2) }' $out/otlp.sdk.out)
	{ echo "agent_cpu_ns_per_span $ns"; echo "rss_kib_after $(kib VmRSS)"
	  echo "hwm_kib_after $(kib VmHWM)"; } >> $out/otlp.sdk.out
else
	echo "run-otlp: no node/npm or no SDK in build/npm: the SDK row is left out" >&2
fi
pminfo -h "$PMCD_HOST" -f trace.span.count > "$W/count"
pmcd_stop

# Memory at 10,000 instances: a fresh agent, 100 services x 100 names, 5
# requests of 512 spans a service (25 or 26 spans a name, log-uniform
# durations, in one or two sub-intervals of the window).
start mem -S 20000 -T 60 -N 5
r0=$(kib VmRSS)
timeout 120 "$gen" names "$oport" "$apid" 10000 5 > $out/otlp.mem.out
ninst=$(pminfo -h "$PMCD_HOST" -f trace.span.count | grep -c '^ *inst ')
echo "instances $ninst" >> $out/otlp.mem.out
pmcd_stop

row() {	# row LABEL FILE
	echo "| $1 | $(v "$2" spans_per_sec) | $(v "$2" p50_ms) | $(v "$2" p99_ms) | $(v "$2" max_ms) |" \
	     "$(v "$2" agent_cpu_ns_per_span) | $(v "$2" agent_cpu_util) | $(v "$2" non200)/$(v "$2" partial) |" \
	     "$(v "$2" rss_kib_after) / $(v "$2" hwm_kib_after) |"
}
echo "Machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //');" \
	"load average before $load0"
echo
echo "| client, ${secs} s | spans/s | p50 ms | p99 ms | max ms | agent CPU ns/span | agent CPU, cores | non-200 / partial | agent VmRSS / VmHWM KiB after |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
row "bench_otlp, protobuf, 1 connection ($(v proto1 body_bytes) B/request)" proto1
row "bench_otlp, protobuf, 4 connections" proto4
row "bench_otlp, JSON, 1 connection ($(v json1 body_bytes) B/request)" json1
row "bench_otlp, protobuf gzip'd, 1 connection ($(v gzip1 body_bytes) B/request)" gzip1
row "bench_otlp, real spans, protobuf, 1 connection ($(v real1 bytes_per_span) B/span)" real1
row "bench_otlp, real spans, protobuf, 4 connections" real4
row "bench_otlp, real spans, JSON, 1 connection ($(v jsonreal1 bytes_per_span) B/span)" jsonreal1
if [ -s $out/otlp.grpc1.out ]; then
	row "bench_otlp, OTLP/gRPC, 1 h2c connection ($(v grpc1 bytes_per_span) B/span)" grpc1
	row "bench_otlp, real spans, OTLP/gRPC, 1 h2c connection" grpcreal1
fi
if [ -s $out/otlp.sdk.out ]; then
	echo "| Node SDK (BatchSpanProcessor, exporter-trace-otlp-proto), 1 process: $(v sdk spans) of" \
	     "$(v sdk spans_created) spans exported | $(v sdk spans_per_sec) | $(v sdk p50_ms) | $(v sdk p99_ms) |" \
	     "$(v sdk max_ms) | $(v sdk agent_cpu_ns_per_span) | | $(v sdk spans_failed) failed |" \
	     "$(v sdk rss_kib_after) / $(v sdk hwm_kib_after) |"
fi
echo
awk -v p="$(v proto1 agent_cpu_ns_per_span)" -v r="$(v real1 agent_cpu_ns_per_span)" 'BEGIN {
	if (p > 0 && r > 0) printf("real/plain CPU ratio (protobuf, 1 conn): %.1f (%s / %s ns a span)\n", r / p, r, p) }'
awk -v j="$(v jsonreal1 agent_cpu_ns_per_span)" 'BEGIN {
	if (j > 0) printf("real spans per CPU-second (JSON): %.0f\n", 1e9 / j) }'
awk -v r="$(v real1 agent_cpu_ns_per_span)" 'BEGIN {
	if (r > 0) printf("real spans per CPU-second (protobuf): %.0f\n", 1e9 / r) }'
echo
echo "| memory, 10,000 SERVICE/SPAN names (-S 20000 -T 60 -N 5) | value |"
echo "|---|---:|"
echo "| instances | $(v mem instances) |"
echo "| spans sent | $(v mem spans) |"
echo "| agent VmRSS before, KiB | $r0 |"
echo "| agent VmRSS after, KiB | $(v mem rss_kib_after) |"
echo "| agent VmHWM after, KiB | $(v mem hwm_kib_after) |"
awk -v a="$r0" -v b="$(v mem rss_kib_after)" -v n="$(v mem instances)" \
	'BEGIN { if (n > 0) printf("| VmRSS growth per instance, KiB | %.2f |\n", (b - a) / n) }'
if [ -x "$top/build/bench/bench_trace_spans" ]; then
	echo
	echo "The span table alone (bench_trace_spans, one thread, no HTTP, no decoding):" \
	     "$("$top/build/bench/bench_trace_spans" | awk '{ print $2, $3 }') per known name."
fi
fi

case " $parts " in *" metrics "*) ;; *) exit 0 ;; esac
# OpenTelemetry metrics: a fresh agent (-E 2000: a request's 1,000 series
# all taken), each row one client connection for $secs s
start metrics -E 2000
for shape in "proto 1 sum" "proto 1000 sum" "proto 1000 metrics" "proto 1000 hist" "grpc 1000 sum"; do
	set -- $shape
	[ "$1" = grpc ] && [ -z "$grpc" ] && continue
	p=$oport
	[ "$1" = grpc ] && p=$gport
	timeout 120 "$gen" metrics "$p" "$apid" "$1" "$2" "$secs" "$3" > "$out/otlp.m$1$2$3.out"
done
pminfo -h "$PMCD_HOST" -f trace.otlp.points > "$W/points"
pmcd_stop
mrow() {	# mrow LABEL FILE
	echo "| $1 | $(v "$2" bytes_per_point) | $(v "$2" points_per_sec) | $(v "$2" p50_ms) |" \
	     "$(v "$2" p99_ms) | $(v "$2" agent_cpu_ns_per_point) |" \
	     "$(awk -v n="$(v "$2" agent_cpu_ns_per_point)" 'BEGIN { if (n > 0) printf("%.0f", 1e9 / n) }') |" \
	     "$(v "$2" non200)/$(v "$2" partial) | $(v "$2" rss_kib_after) / $(v "$2" hwm_kib_after) |"
}
echo
echo "OpenTelemetry metrics (bench_otlp metrics, 1 connection, ${secs} s a row; a request holds one point of each series):"
echo
echo "| request | bytes/point | points/s | p50 ms | p99 ms | agent CPU ns/point | points per agent CPU-second | non-200 / partial | agent VmRSS / VmHWM KiB after |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
mrow "1 series, cumulative Sum, OTLP/HTTP protobuf" mproto1sum
mrow "1,000 series, cumulative Sum, OTLP/HTTP protobuf" mproto1000sum
mrow "1,000 different metrics of one series, Sums, OTLP/HTTP protobuf" mproto1000metrics
mrow "1,000 series, Histogram (15 bounds), OTLP/HTTP protobuf" mproto1000hist
[ -s "$out/otlp.mgrpc1000sum.out" ] && mrow "1,000 series, cumulative Sum, OTLP/gRPC" mgrpc1000sum
sed -n 's/^ *\(value\|inst.*\) /&/p' "$W/points" | head -3 > /dev/null
