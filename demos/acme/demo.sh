#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: the Acme factory on our libpcp_mmv, served by an MMV agent in
# a private pmcd (own port, config, PMNS and PCP_TMP_DIR; the system pmcd
# is never touched), read live with PCP's own clients. Everything started
# here is stopped on exit, Ctrl-C or failure.
top=$(pwd)
. "$top/demos/acme/demo_pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
seconds=${DEMO_SECONDS:-30}

# Our agent once it is built; PCP's own otherwise.
agent="$top/build/lib/pmda_mmv.so"
[ -f "$agent" ] || agent="$PCP_PMDAS_DIR/mmv/pmda_mmv.so"
demo_pmcd acme-demo "$agent"
echo "private pmcd on $h: MMV agent $agent, trace agent on port $trace_port (OTLP/HTTP on $otlp_port), PCP_TMP_DIR=$PCP_TMP_DIR"

"$top/build/bin/acme" "$seconds" &
acme_pid=$!
# Acme's web shop: a Node service on the stock OpenTelemetry SDK, its spans
# sent over OTLP/HTTP to the trace agent (demos/acme/otel/shop.js)
if otlp_sdk_install "$work/npm.log"; then
	NODE_PATH="$OTLP_SDK_PATH" node "$top/demos/acme/otel/shop.js" \
		"http://127.0.0.1:$otlp_port" "$seconds" > "$work/shop.log" 2>&1 &
	otel_pid=$!
	echo "Acme's web shop (Node, OpenTelemetry SDK) sends its spans and metrics to http://127.0.0.1:$otlp_port"
elif ! command -v node > /dev/null || ! command -v npm > /dev/null; then
	echo "no node/npm on PATH (make deps): the demo runs without Acme's Node web shop"
else
	echo "the OpenTelemetry SDK did not install in build/npm (npm ci; log below):" \
		"the demo runs without Acme's Node web shop"
	sed 's/^/  /' "$work/npm.log" | tail -5
fi
sleep 1

# Derived metric: average build time per product over each interval.
cat > "$work/derived" <<'DERIVED'
mmv.acme.products.avgtime = delta(mmv.acme.products.time) / delta(mmv.acme.products.count)
DERIVED
export PCP_DERIVED_CONFIG="$work/derived"

echo; echo "== the Acme metrics (pminfo: descriptors and help) =="
pminfo -h "$h" -dt mmv.acme || exit 1
# pmrep is Python: Debian's python3 has the pcp module, another python3 on PATH may not
echo; echo "== products built per second (pmrep, rate-converted) =="
PATH=/usr/bin:$PATH pmrep -h "$h" -t 1 -s 4 -p mmv.acme.products.count || exit 1
if [ -n "$otel_pid" ]; then
	echo; echo "== Acme's web shop beside the factory: OpenTelemetry spans over OTLP/HTTP (trace.span.*) =="
	echo "== and products built per second (pmrep: spans/s and builds/s rate-converted; rate, p99 over 10 s) =="
	PATH=/usr/bin:$PATH pmrep -h "$h" -t 2 -s 3 -X 'product, or service:kind/span' mmv.acme.products.count \
		trace.span.count trace.span.rate trace.span.p99_time || exit 1
	echo; echo "== the shop's spans: count, errors and percentiles, s (pminfo) =="
	pminfo -h "$h" -f trace.span.count trace.span.errors trace.span.p50_time trace.span.p99_time || exit 1
	pminfo -h "$h" -l trace.span.count | grep -F '"acme-shop:server/checkout"' | sed 's/^ */labels: /'
	echo; echo "== the shop's OpenTelemetry metrics over OTLP (trace.otel.*): requests/s by route and outcome, p99 s =="
	PATH=/usr/bin:$PATH pmrep -h "$h" -t 1 -s 2 -X 'service{http.route=ROUTE,outcome=OUTCOME}      ' \
		trace.otel.acme.shop.requests trace.otel.acme.shop.request.duration.p99 || exit 1
	echo; echo "== and the latency histogram's cumulative buckets, as Prometheus reads them (pminfo) =="
	pminfo -h "$h" -f trace.otel.acme.shop.request.duration.bucket || exit 1
fi
echo; echo "== build-time histogram of the Rockets (pmrep: builds so far per bucket; bounds in usec) =="
PATH=/usr/bin:$PATH pmrep -h "$h" -r -s 1 -X 'Rockets:lo-hi (usec)' -i 'Rockets:.*' \
	mmv.acme.products.buildtime.bucket || exit 1
echo; echo "== builds recorded and their total time, usec, per product (pminfo) =="
pminfo -h "$h" -f mmv.acme.products.buildtime.count mmv.acme.products.buildtime.sum || exit 1
pct=mmv.percentile.acme.products.buildtime
echo; echo "== our MMV agent's percentiles of build time over the last minute, usec (pmrep) =="
PATH=/usr/bin:$PATH pmrep -h "$h" -t 1 -s 3 $pct.p50 $pct.p90 $pct.p99 || exit 1
echo; echo "== off the machine: pmproxy's /metrics and /pmapi/fetch, a pmlogger archive (demos/acme/offhost.sh) =="
sh "$top/demos/acme/offhost.sh" "$h" "$work/offhost" mmv.acme.products.buildtime.count \
	mmv.acme.products.buildtime.sum $pct.p99 || exit 1
echo; echo "== time spent building, as utilisation per product (pmval) =="
pmval -h "$h" -t 1 -s 3 -f 3 mmv.acme.products.time || exit 1
echo; echo "== derived: average build time per product, usec (pmval) =="
pmval -h "$h" -t 1 -s 3 -f 0 mmv.acme.products.avgtime || exit 1
echo; echo "== fetchgroup reader (demos/acme/acme_reader.c) =="
"$top/build/bin/acme_reader" "$h" 2 1 || exit 1
echo; echo "== the same builds traced as transactions (pmda_trace: trace.transact.*, 10 s window) =="
pminfo -h "$h" -f trace.transact.count trace.transact.rate trace.transact.ave_time \
	trace.transact.max_time trace.point.rate || exit 1
echo; echo "== and their percentiles, s, from the trace agent's histograms (no PCP agent has these) =="
pminfo -h "$h" -f trace.transact.p50_time trace.transact.p90_time trace.transact.p99_time || exit 1
echo "Next: docs/demo.md says what to look at; docs/c.md instruments a program of your own."
