#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace agent's OTLP/gRPC receiver (docs/trace-protocol.md §12.7) with
# the real client: the stock OpenTelemetry gRPC exporter
# (@opentelemetry/exporter-trace-otlp-grpc through
# tests/integration/otlp/export.js; npm ci into build/npm as otlp.sh does)
# exports spans of planned durations and statuses, identity and gzip;
# trace.span.* must show the planned counts and errors exactly and the
# percentiles within 1/64. Then every refusal from Node's http2 module and
# raw frames (tests/integration/otlp/grpc_cases.js): another content-type,
# path and grpc-encoding, an oversize message, a full byte budget (with
# its RetryInfo), framing errors, rapid resets, a flood of streams, a slow
# client; each counted in trace.otlp.requests. Throughout, a PMAPI client
# fetches trace.* through pmcd (otlp_hostile.py fetch): each fetch answered
# within 100 ms, as otlp_hostile.sh requires. Then a port taken and -G off.
# TRACE_AGENT=san runs the agent built with ASan and UBSan.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/otlp_grpc.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
if [ "${TRACE_AGENT:-}" = san ]; then
	ours="$top/build/san/pmdas/trace/pmdatrace"
	export ASAN_OPTIONS="log_path=$W/asan:halt_on_error=1:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$W/ubsan:halt_on_error=1:print_stacktrace=1"
	export LSAN_OPTIONS="suppressions=$top/tests/lib/lsan_pcp.supp:print_suppressions=0"
fi
holder= fetcher=
trap 'pmcd_stop; for p in $holder $fetcher; do kill "$p" 2>/dev/null; done; rm -rf "$W"' EXIT

. "$top/tests/lib/otlp_sdk.sh"
otlp_sdk_need "$W/npm.log"
check "the OpenTelemetry gRPC exporter is installed in build/npm (npm ci)" \
	test -d "$OTLP_SDK_PATH/@opentelemetry/exporter-trace-otlp-grpc"

# export COMPRESSION PLAN: the stock gRPC exporter against our receiver
export_spans() {
	NODE_PATH="$OTLP_SDK_PATH" node "$top/tests/integration/otlp/export.js" \
		"http://127.0.0.1:$gport" grpc "$@" > "$W/export.log" 2>&1
	_rc=$?
	sed 's/^/# /' "$W/export.log"
	return $_rc
}

# cases CASE...: grpc_cases.js's JSON lines into $W/cases
cases() {
	NODE_PATH="$OTLP_SDK_PATH" node "$top/tests/integration/otlp/grpc_cases.js" \
		"$gport" "$@" > "$W/cases" 2>&1
	sed 's/^/# /' "$W/cases"
}

# field CASE KEY: a value of CASE's line (a number, a string unquoted, null)
field() {
	sed -n "s/^{\"case\":\"$1\",.*\"$2\":\"\{0,1\}\([^\",}]*\).*/\1/p" "$W/cases"
}

oport=$(pmcd_free_port)
gport=$(pmcd_free_port)
# -k 3: a stalled call's connection closed after 3 s
if ! start_agent 1 -T 8 -N 4 -O "127.0.0.1:$oport" -G "127.0.0.1:$gport" -k 3 ||
   ! pmcd_wait_port "$gport"; then
	not_ok "pmcd with our trace agent and its OTLP/gRPC receiver on port $gport"
	sed 's/^/# /' "$W/pmcd1/log/trace.log" 2>/dev/null
	done_testing
	exit 1
fi
ok "pmcd with our trace agent and its OTLP/gRPC receiver on port $gport"
apid=$(ps -o pid= --ppid "$PMCD_PID" | while read -r p; do
	[ "$(readlink "/proc/$p/exe")" = "$ours" ] && echo "$p"; done)
/usr/bin/python3 tests/integration/otlp_hostile.py fetch "$PMCD_HOST" "$W/fetch.log" \
	2> "$W/fetch.err" &
fetcher=$!

PLAN='[{"service":"shop","name":"GET-cart","kind":"server","ms":[10,20,30,40,50,60,70,80,90,100],"errors":2},
{"service":"shop","name":"checkout","kind":"client","ms":[250,250,250,250,250],"errors":1},
{"service":"billing","name":"charge","kind":"internal","ms":[1000,1000,1000,1000],"errors":0},
{"service":"api","namespace":"ns1","name":"list","kind":"server","ms":[7],"errors":0}]'
check "the stock gRPC exporter (exporter-trace-otlp-grpc) succeeds" export_spans none "$PLAN"
check "the stock gRPC exporter with gzip compression succeeds" export_spans gzip \
	'[{"service":"gzsvc","name":"op-gz","kind":"server","ms":[30,30,30,30,30,30,30],"errors":3}]'
pminfo -h "$PMCD_HOST" -f trace.span.count trace.span.errors > "$W/counts"
for e in shop:server/GET-cart=10=2 shop:client/checkout=5=1 billing:internal/charge=4=0 \
	 ns1/api:server/list=1=0 gzsvc:server/op-gz=7=3; do
	inst=${e%%=*} rest=${e#*=}
	check "$inst: trace.span.count ${rest%%=*}, trace.span.errors ${rest#*=}" \
		test "$(value trace.span.count "$inst")/$(value trace.span.errors "$inst")" = \
		"${rest%%=*}/${rest#*=}"
done
sleep 2.2
p() { value "trace.span.$1" "$2"; }
check "shop:server/GET-cart: p50 50 ms, p90 90 ms, p99 100 ms (within 1/64)" \
	sh -c "$(printf 'within() { %s; }; ' "awk -v g=\"\$1\" -v w=\"\$2\" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != \"\" && d <= w / 64) }'")
	within '$(p p50_time shop:server/GET-cart)' 0.050 && within '$(p p90_time shop:server/GET-cart)' 0.090 &&
	within '$(p p99_time shop:server/GET-cart)' 0.100"
check "gzsvc:server/op-gz: p50 30 ms (within 1/64)" within "$(p p50_time gzsvc:server/op-gz)" 0.030

# The answers, one case at a time.
cases good good_gzip ctype path encoding oversize none two short garbage
check "a call of one span: 200, grpc-status 0, an empty ExportTraceServiceResponse" \
	test "$(field good status)/$(field good grpc)/$(field good data)" = 200/0/0000000000
check "the same gzip'd (grpc-encoding gzip, compressed flag 1): grpc-status 0" \
	test "$(field good_gzip status)/$(field good_gzip grpc)" = 200/0
check "content-type application/json: HTTP 415, no grpc-status" \
	test "$(field ctype status)/$(field ctype grpc)" = 415/null
check "another path (LogsService/Export): grpc-status 12 UNIMPLEMENTED, Trailers-Only" \
	test "$(field path status)/$(field path grpc)/$(field path data)" = 200/12/
check "grpc-encoding deflate: grpc-status 12, grpc-accept-encoding gzip,identity" \
	sh -c "test '$(field encoding grpc)' = 12 && grep -q '\"accept\":\"gzip,identity\"' '$W/cases'"
check "a prefix announcing 20 MiB (over body_max): grpc-status 8 RESOURCE_EXHAUSTED before the body" \
	test "$(field oversize grpc)" = 8
check "no message, two messages, a truncated one, not a request: grpc-status 3 INVALID_ARGUMENT" \
	test "$(field none grpc)/$(field two grpc)/$(field short grpc)/$(field garbage grpc)" = 3/3/3/3
check "rawsvc:unspecified/raw-op counts the two calls answered 0" \
	test "$(value trace.span.count rawsvc:unspecified/raw-op)" = 2

# Hostile ones: resets, a flood of streams, a slow client.
e0=$(pminfo -h "$PMCD_HOST" -f trace.otlp.errors | sed -n 's/.*value //p')
cases resets flood slow
check "1000 streams opened and reset at once: the connection closed with GOAWAY" \
	test "$(field resets closed)" = true -a "$(field resets goaway)" != null
check "300 streams held open on one connection: beyond 100, REFUSED_STREAM (200 refused)" \
	test "$(field flood refused)" -ge 200
check "half a message then silence: the connection closed after -k 3 s (3-5 s)" \
	test "$(field slow closed)" = true -a "$(field slow seconds)" -ge 3 -a "$(field slow seconds)" -le 5
sleep 1
check "the resets and the stall are counted in trace.otlp.errors (2 more)" \
	test "$(pminfo -h "$PMCD_HOST" -f trace.otlp.errors | sed -n 's/.*value //p')" -ge $((e0 + 2))
check "trace.otlp.buffered and trace.otlp.inflight back to 0 once the streams are gone" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.buffered trace.otlp.inflight | tr '\n' ' ' |
		grep -q 'buffered *value 0 *trace.otlp.inflight *value 0'"
pminfo -h "$PMCD_HOST" -f trace.otlp.requests > "$W/req"
sed 's/^/# /' "$W/req"
check "trace.otlp.requests counts the answers: 200, 400 x 4, 404, 413, 415 x 2" \
	sh -c "grep -q '\"400\"] value 4' '$W/req' && grep -q '\"404\"] value 1' '$W/req' &&
		grep -q '\"413\"] value 1' '$W/req' && grep -q '\"415\"] value 2' '$W/req'"

pminfo -h "$PMCD_HOST" -f trace.otlp.transport | sed 's/^/# /'
answered=$(sed -n 's/.*] value //p' "$W/req" | awk '{ n += $1 } END { print n + 0 }')
check "trace.otlp.transport: grpc counts every answer above ($answered), http none" \
	test "$(value trace.otlp.transport grpc)" = "$answered" -a "$answered" -ge 14 -a \
		"$(value trace.otlp.transport http)" = 0
# the pmcd side: every fetch since the start answered, within 100 ms
kill "$fetcher" 2>/dev/null
wait "$fetcher" 2>/dev/null
fetcher=
awk 'NF == 3 { n++; if ($2 < 0) e++; if ($2 > m) m = $2 }
	END { printf "%d %d %.1f\n", n, e, m * 1000 }' "$W/fetch.log" > "$W/lat"
read -r nf ef mf < "$W/lat"
check "the agent answered pmcd throughout: $nf fetches, $ef failed, max $mf ms (< 100)" \
	awk -v n="$nf" -v e="$ef" -v m="$mf" 'BEGIN { exit !(n >= 20 && e == 0 && m < 100) }'
check "the agent is the process it was (pid $apid, not restarted)" \
	test "$(ps -o pid= --ppid "$PMCD_PID" | tr -d ' ' | grep -x "$apid")" = "$apid"
check "the start-up line names the address" \
	grep -q "OTLP/gRPC receiver listening on 127.0.0.1:$gport" "$W/pmcd1/log/trace.log"
pmcd_stop

# The byte budget: -b 1M refuses a 2 MiB message with UNAVAILABLE and a RetryInfo in -R's range.
gport=$(pmcd_free_port)
if start_agent 2 -O off -G "127.0.0.1:$gport" -b 1M -R 2-4 && pmcd_wait_port "$gport"; then
	cases big good
	check "-b 1M: a message announcing 2 MiB: grpc-status 14 UNAVAILABLE, RetryInfo 2..4 s" \
		sh -c "test '$(field big grpc)' = 14 && test '$(field big retry)' -ge 2 && test '$(field big retry)' -le 4"
	check "and the next call is answered 0" test "$(field good grpc)" = 0
	check "trace.otlp.requests counts the 503" \
		sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.requests | grep -q '\"503\"] value 1'"
else
	not_ok "pmcd with the trace agent, -G and -b 1M"
fi
pmcd_stop

# A port taken: logged once, the agent serves the rest.
gport=$(pmcd_free_port)
hold_port "$gport"
oport=$(pmcd_free_port)
if start_agent 3 -O "127.0.0.1:$oport" -G "127.0.0.1:$gport" && pmcd_wait_port "$oport"; then
	sleep 0.3
	check "a gRPC port taken: the agent serves trace.* through pmcd" \
		sh -c "pminfo -h '$PMCD_HOST' -f trace.control.port | grep -q 'value $port'"
	check "a gRPC port taken: logged once" \
		test "$(grep -c "OTLP/gRPC receiver off: cannot listen on 127.0.0.1:$gport" "$W/pmcd3/log/trace.log")" = 1
else
	not_ok "a gRPC port taken: pmcd with the trace agent started"
fi
pmcd_stop
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=

# -G off: no gRPC listener.
oport=$(pmcd_free_port)
if start_agent 4 -O "127.0.0.1:$oport" -G off && pmcd_wait_port "$oport"; then
	apid=$(ps -o pid= --ppid "$PMCD_PID" | while read -r p; do
		[ "$(readlink "/proc/$p/exe")" = "$ours" ] && echo "$p"; done)
	ss -Htlnp > "$W/listen"
	check "-G off: the agent listens on the trace port and OTLP/HTTP's alone" \
		test "$(grep -c "pid=$apid," "$W/listen")" = 2
	check "-G off: no gRPC line in the log" sh -c "! grep -q gRPC '$W/pmcd4/log/trace.log'"
else
	not_ok "-G off: pmcd with the trace agent started"
fi
pmcd_stop
if [ "${TRACE_AGENT:-}" = san ]; then
	reports=$(find "$W" -maxdepth 1 \( -name 'asan.*' -o -name 'ubsan.*' \) -type f)
	check "the sanitizers reported nothing" test -z "$reports"
	[ -z "$reports" ] || sed 's/^/# /' $reports | head -40
fi
done_testing
