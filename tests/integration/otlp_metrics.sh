#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# OpenTelemetry metrics into the trace agent (/v1/metrics and
# MetricsService/Export), served below trace.otel as
# pmda_trace/otel/otel.h maps them, with the real client: the stock Node
# metrics SDK (tests/integration/otlp/metrics.js: MeterProvider,
# PeriodicExportingMetricReader, the OTLP metrics exporters; npm ci into
# build/npm as otlp.sh does) in each protocol (http/json, http/protobuf,
# grpc) and temporality (cumulative, delta; once more with the
# UpDownCounter delta too), a service each, three exports in a row: a
# Counter, an UpDownCounter, a Histogram and two ObservableGauges of known
# values. Through a private pmcd, with pminfo -f, -d, -l and -t (compared
# by tests/integration/otlp_metrics.py, itself tested on a wrong
# expectation): every value exact (deltas added up), each descriptor's
# type, semantics and units, the instance labels (attributes, resource,
# le) and the item label otel_name. Then the stock NodeSDK configured by
# OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME alone
# (tests/integration/otlp/nodesdk.js): its span in trace.span.count, its
# counter under trace.otel. Every request answered 200, every point
# accepted.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/otlp_metrics.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
trap 'pmcd_stop; rm -rf "$W"' EXIT

# The matrix's roots have no network and no Node: the host runs this test.
. "$top/tests/lib/otlp_sdk.sh"
otlp_sdk_need "$W/npm.log"
sdk="$OTLP_SDK_PATH/@opentelemetry"
check "the OpenTelemetry metrics SDK, its three OTLP exporters and sdk-node are installed in build/npm" \
	test -d "$sdk/sdk-metrics" -a -d "$sdk/exporter-metrics-otlp-http" -a \
		-d "$sdk/exporter-metrics-otlp-proto" -a -d "$sdk/exporter-metrics-otlp-grpc" -a -d "$sdk/sdk-node"

oport=$(pmcd_free_port)
gport=$(pmcd_free_port)
if ! start_agent 1 -O "127.0.0.1:$oport" -G "127.0.0.1:$gport" ||
   ! pmcd_wait_port "$oport" || ! pmcd_wait_port "$gport"; then
	not_ok "pmcd with our trace agent, OTLP/HTTP on port $oport and OTLP/gRPC on $gport"
	sed 's/^/# /' "$W/pmcd1/log/trace.log" 2>/dev/null
	done_testing
	exit 1
fi
ok "pmcd with our trace agent, OTLP/HTTP on port $oport and OTLP/gRPC on $gport"

# compare EXPECTED TITLE: otlp_metrics.py's lines as this test's TAP
compare() {
	/usr/bin/python3 "$cmp_py" "$PMCD_HOST" "$1" "$2" > "$W/cmp" 2>&1
	_rc=$?
	while IFS= read -r _l; do
		case $_l in
		"ok - "*) ok "${_l#ok - }" ;;
		"not ok - "*) not_ok "${_l#not ok - }" ;;
		"#"*) echo "$_l" ;;
		*) echo "# $_l" ;;
		esac
	done < "$W/cmp"
	return $_rc
}

# The comparator, on metrics the agent always has: right expectations
# pass, and a wrong value and a wrong semantics are each reported alone.
cmp_py="$top/tests/integration/otlp_metrics.py"
help=$(pminfo -h "$PMCD_HOST" -t trace.control.port | sed -n 's/^trace.control.port \[\(.*\)\]$/\1/p')
tab=$(printf '\t')
cat > "$W/self.exp" <<EOF
value${tab}trace.control.port${tab}${tab}$port
value${tab}trace.otlp.listening${tab}${tab}2
desc${tab}trace.control.port${tab}32-bit unsigned int${tab}discrete${tab}none
desc${tab}trace.otlp.requests${tab}64-bit unsigned int${tab}counter${tab}count
mlabel${tab}trace.otlp.requests${tab}agent${tab}"trace"
ilabel${tab}trace.otlp.requests${tab}200${tab}agent${tab}"trace"
text${tab}trace.control.port${tab}$help
EOF
sed "s/^\(value${tab}trace.control.port${tab}${tab}\).*/\1$((port + 1))/; s/${tab}discrete${tab}/${tab}instant${tab}/" \
	"$W/self.exp" > "$W/wrong.exp"
/usr/bin/python3 "$cmp_py" "$PMCD_HOST" "$W/self.exp" self > "$W/self" 2>&1
rc=$?
sed 's/^/#   /' "$W/self"
check "the comparator passes right expectations of trace.control.port and trace.otlp.*" \
	sh -c "test $rc = 0 && test -n '$help' && test \$(grep -c '^ok - ' '$W/self') = 5"
/usr/bin/python3 "$cmp_py" "$PMCD_HOST" "$W/wrong.exp" wrong > "$W/wrong" 2>&1
rc=$?
sed 's/^/#   /' "$W/wrong"
check "the comparator fails a wrong value ($((port + 1))) and a wrong semantics, each alone" \
	sh -c "test $rc = 1 && test \$(grep -c '^not ok - ' '$W/wrong') = 2 &&
		grep -q '^not ok - wrong: values as recorded (pminfo -f): 1 of 2 differ' '$W/wrong' &&
		grep -q '^not ok - wrong: descriptors: type, semantics, units (pminfo -d): 1 of 2 differ' '$W/wrong' &&
		grep -qF 'trace.control.port \"\": want $((port + 1)), got $port' '$W/wrong' &&
		grep -qF 'trace.control.port: want 32-bit unsigned int/instant/none, got 32-bit unsigned int/discrete/none' '$W/wrong'"

# metrics SERVICE PROTOCOL TEMPORALITY [VAR=VALUE...]: metrics.js to our
# receiver; its expectations in $W/SERVICE.exp
metrics() {
	_svc=$1 _proto=$2 _temp=$3
	shift 3
	case $_proto in grpc) _url="http://127.0.0.1:$gport" ;; *) _url="http://127.0.0.1:$oport" ;; esac
	env "$@" NODE_PATH="$OTLP_SDK_PATH" PROTOCOL="$_proto" TEMPORALITY="$_temp" ENDPOINT="$_url" \
		SERVICE="$_svc" node "$top/tests/integration/otlp/metrics.js" > "$W/$_svc.exp" 2> "$W/$_svc.log"
	_rc=$?
	sed 's/^/# /' "$W/$_svc.log"
	return $_rc
}

# Each protocol and temporality, a service each: http/json plain,
# http/protobuf with a namespace, grpc with a namespace and an instance id
# (the instance names' three forms); the delta runs gzip'd.
for run in "m-json-cumulative http/json cumulative" \
	   "m-json-delta http/json delta COMPRESSION=gzip" \
	   "m-proto-cumulative http/protobuf cumulative NAMESPACE=pcptest" \
	   "m-proto-delta http/protobuf delta NAMESPACE=pcptest COMPRESSION=gzip" \
	   "m-proto-deltaall http/protobuf deltaall NAMESPACE=pcptest" \
	   "m-grpc-cumulative grpc cumulative NAMESPACE=pcptest INSTANCE_ID=node-1" \
	   "m-grpc-delta grpc delta NAMESPACE=pcptest INSTANCE_ID=node-1 COMPRESSION=gzip"; do
	set -- $run
	svc=$1 proto=$2 temp=$3
	check "$svc: the stock $proto exporter ($temp) exports three times, every point taken" \
		metrics "$@"
	if [ -s "$W/$svc.exp" ]; then
		compare "$W/$svc.exp" "$svc"
	else
		not_ok "$svc: metrics.js printed its expectations"
	fi
done

# A fleet starting together: 20 SDK processes, each its own service, all
# exporting at once (http/protobuf, cumulative), every value exact.
BURST=20
i=0 pids=
while [ $i -lt $BURST ]; do
	i=$((i + 1))
	svc=$(printf 'm-burst-%02d' $i)
	( metrics "$svc" http/protobuf cumulative > "$W/$svc.diag" 2>&1; echo $? > "$W/$svc.rc" ) &
	pids="$pids $!"
done
for p in $pids; do wait "$p"; done	# (pmcd is a child too: wait for these alone)
fails=$(cat "$W"/m-burst-*.rc | grep -vc '^0$')
check "$BURST stock exporters started together: every one's three exports taken ($fails failed)" \
	test "$fails" = 0 -a "$(ls "$W"/m-burst-*.rc | wc -l)" = $BURST
cat "$W"/m-burst-*.exp > "$W/burst.exp"
compare "$W/burst.exp" "$BURST services together"

# PCP's clients find the instances by name (unique up to the first space).
check "pmval -i 'm-json-cumulative{sensor.location=rack_1}' reads trace.otel.pcptest.temperature (22.75)" \
	sh -c "pmval -h '$PMCD_HOST' -s 1 -f 4 -i 'm-json-cumulative{sensor.location=rack_1}' \
		trace.otel.pcptest.temperature 2>&1 | awk 'NF == 1 && \$1 ~ /^[0-9.]+\$/ { v = \$1 } END { exit !(v == 22.75) }'"
check "pmval -r -i 'pcptest/m-grpc-delta:node-1{http.route=/users/:id}' reads the histogram's count (17)" \
	sh -c "pmval -r -h '$PMCD_HOST' -s 1 -i 'pcptest/m-grpc-delta:node-1{http.route=/users/:id}' \
		trace.otel.pcptest.request.duration.count 2>&1 | awk 'NF == 1 && \$1 ~ /^[0-9]+\$/ { v = \$1 } END { exit !(v == 17) }'"
pminfo -h "$PMCD_HOST" -f trace.otel.pcptest.http.requests 2>/dev/null | sed -n 's/.*inst \[[0-9]* or "\([^"]*\)"\].*/\1/p' > "$W/names"
check "instance names have no space, unique up to the first space" \
	sh -c "test -s '$W/names' && ! grep -q ' ' '$W/names' && test \"\$(sed 's/ .*//' '$W/names' | sort | uniq -d)\" = ''"

# Every data point the SDK exported was taken, none refused.
points=$(cat "$W"/m-*.exp | awk -F '\t' '$1 == "points" { n += $2 } END { print n + 0 }')
pminfo -h "$PMCD_HOST" -f trace.otlp.points.accepted trace.otlp.points.rejected > "$W/points" 2>&1
sed 's/^/# /' "$W/points"
check "trace.otlp.points.accepted counts the $points data points exported, rejected none" \
	sh -c "awk '/^trace.otlp.points.accepted/ { m = 1; next } /^trace.otlp.points.rejected/ { m = 2; next }
		m == 1 && /value/ { a = \$NF } m == 2 && /value/ { r += \$NF; n++ }
		END { exit !(a == $points && n > 0 && r == 0) }' '$W/points'"

# The NodeSDK by its environment alone: spans and metrics to one endpoint.
env -i PATH="$PATH" HOME="${HOME:-/tmp}" NODE_PATH="$OTLP_SDK_PATH" \
	OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$oport" OTEL_SERVICE_NAME=nodesvc \
	node "$top/tests/integration/otlp/nodesdk.js" > "$W/nodesdk.exp" 2> "$W/nodesdk.log"
rc=$?
sed 's/^/# /' "$W/nodesdk.log"
check "NodeSDK with OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_SERVICE_NAME alone: its exports succeed" test "$rc" = 0
if [ -s "$W/nodesdk.exp" ]; then
	compare "$W/nodesdk.exp" nodesdk
else
	not_ok "nodesdk: nodesdk.js printed its expectations"
fi

# The receiver's counts: 200s for all of it (27 runs x 3 exports, the
# NodeSDK's span export and two metrics exports), no 4xx or 5xx.
pminfo -h "$PMCD_HOST" -f trace.otlp.requests trace.otlp.transport > "$W/req"
sed 's/^/# /' "$W/req"
ok200=$(sed -n '/^trace.otlp.requests/,/^$/s/.*"200"] value //p' "$W/req")
others=$(sed -n '/^trace.otlp.requests/,/^$/p' "$W/req" | grep value | grep -v '"200"]' | grep -vc 'value 0$')
check "trace.otlp.requests: 200 counts at least 84 requests ($ok200), every other code 0 ($others not)" \
	test "${ok200:-0}" -ge 84 -a "$others" = 0
check "trace.otlp.transport: grpc counts the two gRPC runs' 6 exports" \
	test "$(value trace.otlp.transport grpc)" = 6
check "the agent answered pmcd throughout (trace.control.port)" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.control.port | grep -q 'value $port'"
pmcd_stop
done_testing
