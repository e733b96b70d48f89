#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Prometheus reads our agents' histograms (docs/mmv-format.md §9.8,
# docs/trace-protocol.md §8.8): Debian's prometheus scrapes Debian's
# pmproxy, which fetches from a private pmcd with our MMV and trace
# agents, while a steady load repeats one distribution every 0.25 s:
#   MMV shop.lat (usec, log-linear 8..1024, 4 a binade)
#     anvils:  20 values from 9 to 240, 5 of each
#     rockets: 20 usec x 10 and 300..900 by 100, 5 of each
#   trace transactions  checkout 1..100 ms, search 200..398 ms by 2
#   trace observations  size 1..100
# histogram_quantile(q, sum by (of|tag, le) (rate(...[8s]))) must give
# p50, p90 and p99 within one bucket (a quarter binade, both schemes) of
# the percentile the agent serves itself (mmv.percentile.shop.lat.pNN,
# trace.transact.pNN_time, trace.observe.pNN). Both sets are printed.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/pmproxy.sh"
W=$(mktemp -d /tmp/prometheus.XXXXXX)
mmv_bin="$top/build/pmdas/mmv/pmdammv"
trace_bin="$top/build/pmdas/trace/pmdatrace"
writer="$top/build/tests/integration/hist_writer"
send="$top/tests/integration/trace_pdus.py"
PROM_PID= LOAD_PIDS=
cleanup() {
	: > "$W/stop"	# the load loops end
	for p in $LOAD_PIDS $PROM_PID; do
		kill "$p" 2> /dev/null
	done
	pmproxy_stop
	pmcd_stop
	# (only these: a bare wait would also wait for what pmcd_stop ended)
	for p in $LOAD_PIDS $PROM_PID; do
		wait "$p" 2> /dev/null
	done
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bail() { not_ok "$*"; done_testing; exit 1; }
show() { sed 's/^/# /' "$1" 2> /dev/null | tail -20; }

for f in "$mmv_bin" "$trace_bin" "$writer" "$PCP_BINADM_DIR/pmproxy"; do
	[ -x "$f" ] || bail "$f is there (make all check; Debian's pcp)"
done
command -v prometheus > /dev/null || bail "Debian's prometheus is installed (make deps)"
PROM_VERSION=$(prometheus --version 2>&1 | awk 'NR == 1 { print $3 }')
diag "prometheus $PROM_VERSION, $(dpkg -S "$(readlink -f "$(command -v prometheus)")" 2>&1)"

# pmcd with our two agents; the MMV agent computes percentiles every
# 0.25 s over 2 s, the trace agent over 3 sub-intervals of 2 s.
pmcd_init "$W"
pmcd_agent mmv 70 pipe binary "$mmv_bin" -U "$(id -un)" -l "$W/log/mmv.log" -s 0.25 -w 2
pmcd_pmns "$top/build/pmdas/mmv/root_mmv"
pmcd_trace_agent "$trace_bin" -T 6 -N 3
pmcd_start && pmcd_wait_port "$port" || bail "pmcd with our MMV and trace agents starts"

# pmproxy (tests/lib/pmproxy.sh), fetching from our pmcd (PMCD_PORT)
NAMES=mmv.percentile,trace.transact,trace.observe	# as docs/prometheus.md says
metrics_up() { curl -sf "http://127.0.0.1:$PROXY_PORT/metrics?names=trace.control.period" | grep -q '^trace_control_period'; }
PMCD_PORT=${PMCD_HOST#*:} pmproxy_start "$W/proxy" "metrics?names=pmcd.version" &&
	poll 10 metrics_up || { show "$W/proxy/log/pmproxy.log"; bail "pmproxy serves /metrics"; }

# the load, until the end of the test (or a reader gone)
(
	while [ ! -e "$W/stop" ]; do
		for v in 9 11 13 15 18 22 26 30 36 44 52 60 72 88 104 120 144 176 208 240; do
			echo "rec shop.lat anvils $v 5"
		done
		echo "rec shop.lat rockets 20 10"
		for v in 300 400 500 600 700 800 900; do
			echo "rec shop.lat rockets $v 5"
		done || exit
		sleep 0.25
	done
) | "$writer" > "$W/w.out" 2> "$W/w.err" 3>&- &
LOAD_PIDS=$!
(
	while [ ! -e "$W/stop" ]; do
		awk 'BEGIN { for (i = 1; i <= 100; i++)
			printf "1 checkout %.3f\n1 search %.3f\n3 size %d\n", i / 1000, (198 + 2 * i) / 1000, i }' || exit
		sleep 0.25
	done
) | "$send" "$port" > "$W/send.out" 2>&1 3>&- &
LOAD_PIDS="$LOAD_PIDS $!"

# Prometheus, scraping pmproxy every second. Prometheus 3 refuses a reply
# without a version in its Content-Type unless told what to assume.
PROM_PORT=$(pmcd_free_port)
{
	printf 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
	printf 'scrape_configs:\n  - job_name: pcp\n    metrics_path: /metrics\n'
	printf '    params:\n      names: ["%s"]\n' "$NAMES"
	case $PROM_VERSION in
	[0-2].*) ;;
	*) printf '    fallback_scrape_protocol: PrometheusText0.0.4\n' ;;
	esac
	printf '    static_configs:\n      - targets: ["127.0.0.1:%s"]\n' "$PROXY_PORT"
} > "$W/prometheus.yml"
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/prom" \
	--web.listen-address="127.0.0.1:$PROM_PORT" > "$W/log/prometheus.log" 2>&1 3>&- &
PROM_PID=$!

# query PROMQL: "labelvalue value" lines of an instant query's vector
query() {
	curl -s "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode "query=$1" |
		python3 -c '
import json, sys
try:
    r = json.load(sys.stdin)
except ValueError:
    sys.exit("no JSON from Prometheus")
if r.get("status") != "success":
    sys.exit("query failed: %s" % r.get("error"))
for s in r["data"]["result"]:
    m = s["metric"]
    print(m.get("of", m.get("tag", "-")), s["value"][1])'
}
up() { [ "$(query 'up{job="pcp"}' 2> /dev/null)" = "- 1" ]; }
poll 20 up || { show "$W/log/prometheus.log"; bail "Prometheus scrapes pmproxy (up == 1)"; }
ok "Prometheus $PROM_VERSION scrapes pmproxy's /metrics (up == 1)"

# 12 s of load: every agent window is full, the rate range holds 8 s
sleep 12
check "the load runs (writer and sender alive)" kill -0 $LOAD_PIDS

curl -sf "http://127.0.0.1:$PROXY_PORT/metrics?names=$NAMES" > "$W/metrics.txt"
check "pmproxy: trace_transact_bucket for checkout with le 0.1 and +Inf" \
	sh -c "grep -q '^trace_transact_bucket{.*tag=\"checkout\".*le=\"+Inf\"' '$W/metrics.txt' &&
		grep -q '^trace_transact_bucket{.*le=\"0.001953125\".*' '$W/metrics.txt'"
check "pmproxy: mmv_percentile_shop_lat_bucket with of and le" \
	grep -q '^mmv_percentile_shop_lat_bucket{.*of="rockets".*le="320"' "$W/metrics.txt"

# width V: a quarter of V's binade, the bucket width near V in both schemes
# agent METRIC INST: the agent's own value
agent() {
	pminfo -h "$PMCD_HOST" -f "$1" | awk -v i="\"$2\"]" '$4 == i { print $6 }'
}
# compare WHAT PROMQL AGENTMETRIC INST
compare() {
	_p=$(query "$2" | awk -v i="$4" '$1 == i { print $2 }')
	_a=$(agent "$3" "$4")
	diag "$1: Prometheus $_p, agent $_a"
	check "$1: Prometheus's histogram_quantile within a bucket of the agent's value" \
		awk -v p="$_p" -v a="$_a" 'BEGIN {
			if (p == "" || a == "" || p == "NaN") exit 1
			b = 1; while (b * 2 <= a) b *= 2; while (b > a) b /= 2
			d = p - a; if (d < 0) d = -d
			exit !(d <= b / 4) }'
}
for q in 50 90 99; do
	f=$(awk -v q=$q 'BEGIN { print q / 100 }')
	for i in anvils rockets; do
		compare "MMV shop.lat[$i] p$q (usec)" \
			"histogram_quantile($f, sum by (of, le) (rate(mmv_percentile_shop_lat_bucket[8s])))" \
			mmv.percentile.shop.lat.p$q $i
	done
	for i in checkout search; do
		compare "trace $i p$q (s)" \
			"histogram_quantile($f, sum by (tag, le) (rate(trace_transact_bucket[8s])))" \
			trace.transact.p${q}_time $i
	done
	compare "trace observation size p$q" \
		"histogram_quantile($f, sum by (tag, le) (rate(trace_observe_bucket[8s])))" \
		trace.observe.p$q size
done
done_testing
