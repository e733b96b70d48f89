#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace agent's OTLP/HTTP receiver (docs/trace-protocol.md §12) with the
# real client: a Node.js program on the stock OpenTelemetry SDK
# (tests/integration/otlp/export.js; npm ci into build/npm from the
# committed package-lock.json) exports spans of planned durations and
# statuses in protobuf, in JSON and gzip'd; trace.span.* must show the
# planned counts and errors exactly, percentiles within the histogram's
# 1/64, and the instance labels. Then every error answer with curl, a
# chunked body on a kept-alive connection, 503 under a saturated receiver,
# a port taken and -O off.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/otlp.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
holder=
trap 'pmcd_stop; [ -z "$holder" ] || kill "$holder" 2>/dev/null; rm -rf "$W"' EXIT

# The matrix's roots have no network and no Node: the host runs this test.

# The SDK, installed once into build/npm (again when the lock file changes);
# skipped in the matrix's roots.
. "$top/tests/lib/otlp_sdk.sh"
otlp_sdk_need "$W/npm.log"
ok "the OpenTelemetry SDK is installed in build/npm (npm ci)"

# export ENCODING COMPRESSION PLAN: run the SDK against our receiver
export_spans() {
	NODE_PATH="$OTLP_SDK_PATH" node "$top/tests/integration/otlp/export.js" \
		"http://127.0.0.1:$oport" "$@" > "$W/export.log" 2>&1
	_rc=$?
	sed 's/^/# /' "$W/export.log"
	return $_rc
}

oport=$(pmcd_free_port)
if ! start_agent 1 -T 8 -N 4 -O "127.0.0.1:$oport" || ! pmcd_wait_port "$oport"; then
	not_ok "pmcd with our trace agent and its OTLP receiver on port $oport"
	sed 's/^/# /' "$W/pmcd1/log/trace.log" 2>/dev/null
	done_testing
	exit 1
fi
ok "pmcd with our trace agent and its OTLP receiver on port $oport"

# The plan: 2 services x 2 span names in protobuf, one in JSON, one gzip'd.
PLAN='[{"service":"shop","name":"GET-cart","kind":"server","ms":[10,20,30,40,50,60,70,80,90,100],"errors":2},
{"service":"shop","name":"checkout","kind":"client","ms":[250,250,250,250,250],"errors":1},
{"service":"billing","name":"charge","kind":"internal","ms":[1000,1000,1000,1000],"errors":0},
{"service":"billing","name":"refund","kind":"producer","ms":[5,5,5],"errors":3},
{"service":"shop","name":"GET /users/:id","kind":"server","ms":[15,15],"errors":0},
{"service":"shop","name":"GET /orders/:id","kind":"server","ms":[25,25,25],"errors":0},
{"service":"shop","name":"checkout","kind":"server","ms":[300],"errors":1},
{"service":"api","namespace":"ns1","name":"list","kind":"server","ms":[7],"errors":0},
{"service":"api","namespace":"ns2","name":"list","kind":"server","ms":[9,9],"errors":0}]'
check "the SDK's protobuf exporter (exporter-trace-otlp-proto) succeeds" export_spans proto none "$PLAN"
check "the SDK's JSON exporter (exporter-trace-otlp-http) succeeds" export_spans json none \
	'[{"service":"jsonsvc","name":"op-json","kind":"consumer","ms":[40,40,40,40,40,40],"errors":1}]'
check "the SDK's protobuf exporter with gzip compression succeeds" export_spans proto gzip \
	'[{"service":"gzsvc","name":"op-gz","kind":"server","ms":[30,30,30,30,30,30,30],"errors":3}]'

pminfo -h "$PMCD_HOST" -f trace.span.count trace.span.errors > "$W/counts"
sed 's/^/# /' "$W/counts"
# instances "[NAMESPACE/]SERVICE:KIND/SPAN" (docs/trace-protocol.md §12.4):
# a span's kind and namespace are part of its identity, spaces become '_'
for e in shop:server/GET-cart=10=2 shop:client/checkout=5=1 billing:internal/charge=4=0 \
	 billing:producer/refund=3=3 jsonsvc:consumer/op-json=6=1 gzsvc:server/op-gz=7=3 \
	 shop:server/GET_/users/:id=2=0 shop:server/GET_/orders/:id=3=0 \
	 shop:server/checkout=1=1 ns1/api:server/list=1=0 ns2/api:server/list=2=0; do
	inst=${e%%=*} rest=${e#*=}
	check "$inst: trace.span.count ${rest%%=*}, trace.span.errors ${rest#*=}" \
		test "$(value trace.span.count "$inst")/$(value trace.span.errors "$inst")" = \
		"${rest%%=*}/${rest#*=}"
done
# PCP's rule: instance names unique up to their first space (pmdaCache(3)),
# so pmval -i finds each route's own instance
pminfo -h "$PMCD_HOST" -f trace.span.count | sed -n 's/.*inst \[[0-9]* or "\([^"]*\)"\].*/\1/p' > "$W/names"
check "span instance names have no space and are unique up to the first space" \
	sh -c "! grep -q ' ' '$W/names' && test \"\$(sed 's/ .*//' '$W/names' | sort | uniq -d)\" = ''"
check "pmval -i 'shop:server/GET_/users/:id' reads that route's count (2)" \
	sh -c "pmval -r -h '$PMCD_HOST' -s 1 -i 'shop:server/GET_/users/:id' trace.span.count |
		awk 'NF == 1 && \$1 ~ /^[0-9]+\$/ { v = \$1 } END { exit !(v == 2) }'"

# the window: every span in a completed sub-interval (2 s) of the 8 s window
sleep 2.2
pminfo -h "$PMCD_HOST" -f trace.span.p50_time trace.span.p90_time trace.span.p99_time \
	trace.span.max_time trace.span.ave_time trace.span.rate > "$W/window"
sed 's/^/# /' "$W/window"
p() { value "trace.span.$1" "$2"; }
# nearest rank of 10, 20, ... 100 ms: p50 the 5th, p90 the 9th, p99 the 10th
check "shop:server/GET-cart: p50 50 ms, p90 90 ms, p99 100 ms (within 1/64)" \
	sh -c "$(printf 'within() { %s; }; ' "awk -v g=\"\$1\" -v w=\"\$2\" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != \"\" && d <= w / 64) }'")
	within '$(p p50_time shop:server/GET-cart)' 0.050 && within '$(p p90_time shop:server/GET-cart)' 0.090 &&
	within '$(p p99_time shop:server/GET-cart)' 0.100"
check "shop:server/GET-cart: max_time 0.1 s, ave_time 0.055 s, rate 10 / 8 s" \
	sh -c "test '$(p max_time shop:server/GET-cart)' = 0.1 && test '$(p ave_time shop:server/GET-cart)' = 0.055 &&
	test '$(p rate shop:server/GET-cart)' = 1.25"
for e in shop:client/checkout=0.250 billing:internal/charge=1 billing:producer/refund=0.005 \
	 jsonsvc:consumer/op-json=0.040 gzsvc:server/op-gz=0.030; do
	inst=${e%%=*} want=${e#*=}
	check "$inst: p50, p90 and p99 are its one duration, $want s (within 1/64)" \
		sh -c "for g in '$(p p50_time "$inst")' '$(p p90_time "$inst")' '$(p p99_time "$inst")'; do
			awk -v g=\"\$g\" -v w=$want 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != \"\" && d <= w / 64) }' || exit 1; done"
done
# cumulative buckets: GET-cart's +Inf is its count, the 0.0625 bucket holds 10..60 ms (6)
check "shop:server/GET-cart: trace.span.bucket +Inf 10, le 0.0625 counts 6" \
	sh -c "test '$(value trace.span.bucket 'shop:server/GET-cart:+Inf')' = 10 &&
	test '$(value trace.span.bucket 'shop:server/GET-cart:0.0625')' = 6"

pminfo -h "$PMCD_HOST" -l trace.span.count > "$W/labels"
sed 's/^/# /' "$W/labels"
# INSTANCE=SERVICE=SPAN NAME=KIND: the labels carry the exact names
for e in "shop:server/GET-cart=shop=GET-cart=server" "billing:producer/refund=billing=refund=producer" \
	 "jsonsvc:consumer/op-json=jsonsvc=op-json=consumer" "shop:client/checkout=shop=checkout=client" \
	 "shop:server/GET_/users/:id=shop=GET /users/:id=server"; do
	inst=${e%%=*} rest=${e#*=}
	svc=${rest%%=*} rest=${rest#*=}
	check "$inst: labels service_name $svc, span_name ${rest%%=*}, span_kind ${rest#*=}" \
		sh -c "grep -F '\"$inst\"' '$W/labels' | grep -F '\"service_name\":\"$svc\"' |
			grep -F '\"span_name\":\"${rest%%=*}\"' | grep -qF '\"span_kind\":\"${rest#*=}\"'"
done
check "ns2/api:server/list: labels service_namespace ns2, service_name api" \
	sh -c "grep -F '\"ns2/api:server/list\"' '$W/labels' | grep -F '\"service_namespace\":\"ns2\"' |
		grep -qF '\"service_name\":\"api\"'"
pminfo -h "$PMCD_HOST" -l trace.span.bucket > "$W/blabels"
check "shop:server/GET-cart:+Inf bucket: labels le, tag, service_name shop, span_name GET-cart" \
	sh -c "grep -F '\"shop:server/GET-cart:+Inf\"' '$W/blabels' | grep -F '\"le\":\"+Inf\"' |
		grep -F '\"tag\":\"shop:server/GET-cart\"' | grep -F '\"service_name\":\"shop\"' |
		grep -qF '\"span_name\":\"GET-cart\"'"

# Error answers, with curl.
url="http://127.0.0.1:$oport"
code() { curl -s -o "$W/body" -D "$W/headers" -w '%{http_code}' "$@"; }
check "400 for a protobuf body that is not a request" \
	test "$(code -H 'Content-Type: application/x-protobuf' --data-binary 'garbage' "$url/v1/traces")" = 400
check "400 for JSON that is not a request" \
	test "$(code -H 'Content-Type: application/json' --data-binary '{"resourceSpans":' "$url/v1/traces")" = 400
check "400 answer is a google.rpc.Status in JSON with a message" grep -q '"message"' "$W/body"
check "400 for a gzip body that is not gzip" \
	test "$(code -H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' --data-binary 'garbage' "$url/v1/traces")" = 400
check "404 for another path (/v1/logs: OTLP logs are not taken)" \
	test "$(code -H 'Content-Type: application/x-protobuf' --data-binary '' "$url/v1/logs")" = 404
check "405 for GET, with Allow: POST" \
	sh -c "test \"\$(curl -s -o /dev/null -D '$W/h405' -w '%{http_code}' '$url/v1/traces')\" = 405 &&
		grep -qi '^Allow: POST' '$W/h405'"
check "415 for Content-Type text/plain" \
	test "$(code -H 'Content-Type: text/plain' --data-binary 'x' "$url/v1/traces")" = 415
check "415 for Content-Encoding br" \
	test "$(code -H 'Content-Type: application/json' -H 'Content-Encoding: br' --data-binary '{}' "$url/v1/traces")" = 415
head -c $((17 * 1024 * 1024)) /dev/zero > "$W/big"
check "413 for a body over 16 MiB" \
	test "$(code -H 'Content-Type: application/x-protobuf' --data-binary @"$W/big" "$url/v1/traces")" = 413
gzip -c "$W/big" > "$W/big.gz"
check "413 for a gzip body over 16 MiB once inflated ($(wc -c < "$W/big.gz") bytes sent)" \
	test "$(code -H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' --data-binary @"$W/big.gz" "$url/v1/traces")" = 413
check "200 for an empty request (no spans), charset parameter ignored" \
	test "$(code -H 'Content-Type: application/json; charset=utf-8' --data-binary '{}' "$url/v1/traces")" = 200

# A chunked JSON body, twice over one kept-alive connection: one span each,
# the second ERROR.
span() {
	printf '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"curl"}}]},'
	printf '"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174",'
	printf '"name":"chunked","kind":2,"startTimeUnixNano":"1000000000","endTimeUnixNano":"1002000000","status":{"code":%s}}]}]}]}' "$1"
}
span 1 > "$W/s1.json"
span 2 > "$W/s2.json"
curl -s -o /dev/null -w '%{http_code} %{num_connects}\n' -H 'Content-Type: application/json' \
	-H 'Transfer-Encoding: chunked' --data-binary @"$W/s1.json" "$url/v1/traces" \
	--next -o /dev/null -w '%{http_code} %{num_connects}\n' -H 'Content-Type: application/json' \
	-H 'Transfer-Encoding: chunked' --data-binary @"$W/s2.json" "$url/v1/traces" > "$W/keepalive"
check "two chunked requests on one kept-alive connection, both 200" \
	test "$(tr '\n' ' ' < "$W/keepalive")" = "200 1 200 0 "
check "curl:server/chunked: count 2, errors 1" \
	test "$(value trace.span.count curl:server/chunked)/$(value trace.span.errors curl:server/chunked)" = 2/1

# A span with no start time is refused alone, in partial_success, by reason.
printf '{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"curl"}}]},%s' \
	'"scopeSpans":[{"spans":[{"name":"nostart","endTimeUnixNano":"1002000000"}]}]}]}' > "$W/nostart.json"
check "a span with no start time: 200 with partialSuccess rejectedSpans 1" \
	sh -c "test \"\$(curl -s -o '$W/nostart' -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary @'$W/nostart.json' '$url/v1/traces')\" = 200 &&
		grep -q '\"rejectedSpans\":\"1\"' '$W/nostart' && grep -q 'no start time' '$W/nostart'"

# hold N LENGTH [FINAL]: N requests whose headers promise LENGTH bytes and
# send 10, then one more with a valid JSON body of FINAL bytes (default
# 16): its status line and Retry-After.
hold() {
	/usr/bin/python3 - "$oport" "$1" "$2" "${3:-16}" 2>&1 <<'PY'
import socket, sys, time
port, n, length, final = (int(a) for a in sys.argv[1:5])
held = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-protobuf\r\n"
              b"Content-Length: %d\r\n\r\n0123456789" % length)
    held.append(s)
time.sleep(0.3)
s = socket.create_connection(("127.0.0.1", port))
body = b"{}" + b" " * (final - 2)
s.sendall(b"POST /v1/traces HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
          b"Content-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
s.settimeout(5)
answer = b""
while True:
    d = s.recv(4096)
    if not d:
        break
    answer += d
print(answer.split(b"\r\n\r\n")[0].decode().replace("\r", ""))
PY
}
# Admission is by bytes: 40 requests receiving small bodies at once take
# little of the budget, and one more is taken.
hold 40 100 > "$W/40"
check "40 requests receiving their bodies at once: one more is answered 200 (no count cap)" \
	sh -c "head -1 '$W/40' | grep -q '^HTTP/1.1 200'"
check "the receiver counts what it took (trace.otlp.spans.accepted = the spans counted, 200s)" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.spans.accepted trace.span.count trace.otlp.requests > '$W/otlp' &&
		awk '/^trace.otlp.spans.accepted/ { m = 1; next } /^trace.span.count/ { m = 2; next }
			/^trace.otlp.requests/ { m = 3; next }
			m == 1 && /value/ { acc = \$2 } m == 2 && /value/ { sum += \$NF }
			m == 3 && /\"200\"/ { ok = \$NF }
			END { exit !(acc == sum && acc > 40 && ok >= 8) }' '$W/otlp'"
sed 's/^/# /' "$W/otlp"
check "trace.otlp.spans.rejected no_start_time counts the span refused above" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.spans.rejected | grep -q '\"no_start_time\"] value 1'"
check "trace.otlp.requests counts the 404, 405, 413 and 415 answers above" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.requests > '$W/req' &&
		grep -q '\"404\"] value 1' '$W/req' && grep -q '\"405\"] value 1' '$W/req' &&
		grep -q '\"413\"] value 2' '$W/req' && grep -q '\"415\"] value 2' '$W/req'"
check "refusals are logged (415, once in 10 s with the count)" \
	grep -q 'OTLP receiver: 1 request answered 415' "$W/pmcd1/log/trace.log"
check "the start-up line is informational, not a warning" \
	sh -c "grep 'OTLP/HTTP receiver listening' '$W/pmcd1/log/trace.log' | grep -qv Warning"
check "trace.otlp.listening 1 and trace.otlp.buffer_max 64 MiB" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.listening trace.otlp.buffer_max | tr '\n' ' ' |
		grep -q 'listening *value 1 *trace.otlp.buffer_max *value 67108864'"
check "the agent answered pmcd throughout (trace.control.port)" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.control.port | grep -q 'value $port'"
pmcd_stop

# The limits: a count cap (-Q 4) answers 429, the byte budget (-b 1M) 503,
# both with a Retry-After in -R's range, counted and logged.
oport=$(pmcd_free_port)
if start_agent 4 -O "127.0.0.1:$oport" -b 1M -Q 4 -R 2-4 && pmcd_wait_port "$oport"; then
	url="http://127.0.0.1:$oport"
	hold 4 100 > "$W/429"
	sed 's/^/# /' "$W/429"
	check "-Q 4: a fifth request receiving its body is answered 429, Retry-After 2..4" \
		sh -c "head -1 '$W/429' | grep -q '^HTTP/1.1 429' && grep -qi '^Retry-After: [234]\$' '$W/429'"
	hold 1 1040000 10000 > "$W/503"
	sed 's/^/# /' "$W/503"
	check "-b 1M: with 1,040,000 bytes reserved, a 10,000-byte request is answered 503, Retry-After 2..4" \
		sh -c "head -1 '$W/503' | grep -q '^HTTP/1.1 503' && grep -qi '^Retry-After: [234]\$' '$W/503'"
	hold 1 1030000 10000 > "$W/fits"
	check "-b 1M: with 1,030,000 bytes reserved, a 10,000-byte request is answered 200" \
		sh -c "head -1 '$W/fits' | grep -q '^HTTP/1.1 200'"
	check "and 200 again once they are gone" \
		test "$(code -H 'Content-Type: application/json' --data-binary '{}' "$url/v1/traces")" = 200
	check "trace.otlp.requests counts one 429 and one 503; buffered back to 0" \
		sh -c "pminfo -h '$PMCD_HOST' -f trace.otlp.requests trace.otlp.buffered trace.otlp.inflight > '$W/req4' &&
			grep -q '\"429\"] value 1' '$W/req4' && grep -q '\"503\"] value 1' '$W/req4' &&
			tr '\n' ' ' < '$W/req4' | grep -q 'buffered *value 0 *trace.otlp.inflight *value 0'"
	check "the 429 and the 503 are logged" \
		sh -c "grep -q 'answered 429' '$W/pmcd4/log/trace.log' && grep -q 'answered 503' '$W/pmcd4/log/trace.log'"
else
	not_ok "pmcd with the trace agent, -b 1M -Q 4 -R 2-4"
fi
pmcd_stop

# A port taken: logged once, the agent runs on and serves trace.*.
oport=$(pmcd_free_port)
hold_port "$oport"
if start_agent 2 -O "127.0.0.1:$oport"; then
	sleep 0.3
	check "a port taken: the agent serves trace.* through pmcd" \
		sh -c "pminfo -h '$PMCD_HOST' -f trace.control.port | grep -q 'value $port'"
	check "a port taken: logged once" \
		test "$(grep -c "OTLP/HTTP receiver off: cannot listen on 127.0.0.1:$oport" "$W/pmcd2/log/trace.log")" = 1
else
	not_ok "a port taken: pmcd with the trace agent started"
fi
pmcd_stop
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=

# -O off: the agent listens on its trace port alone.
if start_agent 3 -O off; then
	apid=$(ps -o pid= --ppid "$PMCD_PID" | while read -r p; do
		[ "$(readlink "/proc/$p/exe")" = "$ours" ] && echo "$p"; done)
	ss -Htlnp > "$W/listen"
	check "-O off: the agent's only listening socket is the trace port" \
		test "$(grep -c "pid=$apid," "$W/listen")/$(grep "pid=$apid," "$W/listen" | grep -c ":$port ")" = 1/1
	check "-O off: no OTLP line in the log" sh -c "! grep -q OTLP '$W/pmcd3/log/trace.log'"
else
	not_ok "-O off: pmcd with the trace agent started"
fi
pmcd_stop
done_testing
