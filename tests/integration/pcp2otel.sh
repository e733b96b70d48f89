#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# PCP 7's own OpenTelemetry tools beside our OTLP metrics receiver
# (docs/otlp-metrics.md, "Beside PCP 7's pmdaopentelemetry and
# pcp2opentelemetry"), through one private pmcd with our trace agent
# (-O), Debian's pmdalinux (a DSO) and Debian's pmdaopentelemetry (a
# private agent: its configuration and state in this test's directory,
# never its Install script, never the system pmcd):
#  (a) Debian's pcp2opentelemetry pushes kernel.all.load,
#      kernel.all.sysfork, trace.control.port and trace.otlp.requests
#      twice, through a capture proxy (tests/integration/pcp2otel.py,
#      which keeps what it pushed), to our /v1/metrics; each value is read
#      back below trace.otel, each as the last push (pcp2opentelemetry
#      marks its counters DELTA but sends their totals with no start time,
#      which ours takes for running totals);
#  (b) the same OTLP JSON documents (pcp2otel.py: gauges, Sums monotonic
#      or not, cumulative or delta, histograms, several series; a point
#      without "attributes", an integer attribute) POSTed to ours and
#      given to pmdaopentelemetry as files, and pcp2opentelemetry's last
#      push given to it too: values, types, semantics and units side by
#      side (a table of "#" lines), each difference one that a paragraph
#      of docs/otlp-metrics.md explains, each side exactly as expected.
# Skipped where PCP has neither tool (Debian 12's and 13's PCP 6); never
# skipped in the sid root of make check-matrix (SDK_IN_MATRIX=sid) nor on
# a PCP 7.2 or later, whose Debian package ships both: there it fails.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
W=$(mktemp -d /tmp/pcp2otel.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
py="$top/tests/integration/pcp2otel.py"
cap=
trap '[ -z "$cap" ] || kill "$cap" 2> /dev/null; pmcd_stop; rm -rf "$W"' EXIT

p2o=$(command -v pcp2opentelemetry 2> /dev/null)
otel_pmda="${PCP_PMDAS_DIR:-/var/lib/pcp/pmdas}/opentelemetry/pmdaopentelemetry.python"
pmpython=$(command -v pmpython 2> /dev/null)
linux_so="${PCP_PMDAS_DIR:-/var/lib/pcp/pmdas}/linux/pmda_linux.so"
ver=${PCP_VERSION:-0.0}
major=${ver%%.*}
minor=${ver#*.}
minor=${minor%%.*}
must=
[ "${SDK_IN_MATRIX:-}" = sid ] && must="the sid root of make check-matrix"
[ "$major" -gt 7 ] 2> /dev/null || { [ "$major" -eq 7 ] && [ "$minor" -ge 2 ]; } 2> /dev/null &&
	must="${must:+$must, }PCP $ver (Debian's pcp package ships both from 7.2)"
if [ -z "$p2o" ] || [ ! -e "$otel_pmda" ]; then
	if [ -n "$must" ]; then
		echo "not ok 1 - pcp2opentelemetry ('${p2o}') and pmdaopentelemetry ($otel_pmda) are installed: $must must have both (make deps)"
		echo "1..1"
		exit 1
	fi
	echo "ok 1 # SKIP PCP $ver has no pcp2opentelemetry or pmdaopentelemetry (PCP 7.2 on, Debian unstable's pcp)"
	echo "1..1"
	exit 0
fi
need_debian pcp2otel "$p2o" "$otel_pmda" "$pmpython" "$linux_so" "$PCP_BINADM_DIR/pmcd" "$(command -v pminfo)"
ok "Debian's pcp2opentelemetry ($p2o), pmdaopentelemetry, pmpython, pmdalinux, pmcd and pminfo (PCP $ver; must run: ${must:-no})"
if ! "$pmpython" -c 'import requests' > "$W/requests.log" 2>&1; then
	sed 's/^/# /' "$W/requests.log"
	not_ok "both tools' Python module requests is installed (python3-requests: make deps)"
	done_testing
	exit 1
fi

# ours_inst METRIC TEXT: the instance of METRIC (ours) whose name has TEXT
ours_inst() {
	pminfo -h "$PMCD_HOST" -f "$1" 2> /dev/null |
		sed -n 's/^ *inst \[[0-9]* or "\(.*\)"\] value .*/\1/p' | grep -F -- "$2" | head -1
}
# ours_value METRIC INSTANCE: its value (pminfo -f)
ours_value() {
	pminfo -h "$PMCD_HOST" -f "$1" 2> /dev/null | grep -F "or \"$2\"] value " | sed 's/.*"] value //'
}
# near A B: the same number (doubles within 1e-9, relative)
near() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; if (m < 1) m = 1
		exit !(a != "" && b != "" && d <= 1e-9 * m) }'
}

# One private pmcd: ours with OTLP/HTTP on a free port, pmdalinux,
# pmdaopentelemetry reading the fixture's files (its PMID and instance
# tables in $W/otel/var by PCP_VAR_DIR, its dynamic root "opentelemetry").
oport=$(pmcd_free_port)
now=$(date +%s)000000000
docs="fixture collide delta noattrs intattr"
mkdir -p "$W/otel/conf" "$W/otel/var/config/pmda" "$W/cap"
for f in $docs; do
	/usr/bin/python3 "$py" $f "$now" > "$W/$f.json" || { not_ok "pcp2otel.py writes $f.json"; done_testing; exit 1; }
	echo "file://$W/$f.json" > "$W/otel/conf/$f.url"
done
printf 'root {\n\topentelemetry\t164:*:*\n}\n' > "$W/otel.pmns"
pmcd_init "$W/pmcd"
pmcd_trace_agent "$ours" -O "127.0.0.1:$oport"
pmcd_agent linux 60 dso linux_init "$linux_so"
pmcd_pmns "$PCP_VAR_DIR/pmns/root_linux"
pmcd_agent opentelemetry 164 pipe binary notready /usr/bin/env PCP_VAR_DIR="$W/otel/var" "$pmpython" "$otel_pmda" \
	-c "$W/otel/conf" -l "$W/otel/otel.log" -u "$(id -un)"
pmcd_pmns "$W/otel.pmns"
if ! pmcd_start || ! pmcd_wait_port "$oport"; then
	not_ok "pmcd with our trace agent (OTLP/HTTP on $oport), pmdalinux and pmdaopentelemetry"
	sed 's/^/# trace: /' "$PMCD_DIR/log/trace.log" 2> /dev/null
	sed 's/^/# opentelemetry: /' "$W/otel/otel.log" 2> /dev/null
	done_testing
	exit 1
fi
ok "pmcd with our trace agent (OTLP/HTTP on $oport), pmdalinux and pmdaopentelemetry, every agent ready"

# (b), ours' half: the same documents POSTed to /v1/metrics (the delta
# one twice: ours adds it up).
for f in $docs delta; do
	code=$(curl -s -o "$W/$f.answer" -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary "@$W/$f.json" "http://127.0.0.1:$oport/v1/metrics")
	check "$f.json POSTed to our /v1/metrics: 200, every point taken ($code $(cat "$W/$f.answer" 2> /dev/null))" \
		sh -c "test '$code' = 200 && ! grep -q rejected '$W/$f.answer'"
done

# (a) pcp2opentelemetry -> the capture proxy -> our /v1/metrics, twice.
cport=$(pmcd_free_port)
/usr/bin/python3 "$py" capture "$cport" "http://127.0.0.1:$oport/v1/metrics" "$W/cap" 2> "$W/cap.log" &
cap=$!
pmcd_wait_port "$cport" || { not_ok "the capture proxy listens on $cport"; sed 's/^/# /' "$W/cap.log"; done_testing; exit 1; }
HOME=$W "$p2o" -h "$PMCD_HOST" -s 2 -t 1 -u "http://127.0.0.1:$cport/v1/metrics" \
	kernel.all.load kernel.all.sysfork trace.control.port trace.otlp.requests > "$W/p2o.log" 2>&1
rc=$?
sed 's/^/# pcp2opentelemetry: /' "$W/p2o.log"
check "pcp2opentelemetry -s 2 -t 1 -u .../v1/metrics exits 0, with nothing to say" \
	test "$rc" = 0 -a ! -s "$W/p2o.log"
kill "$cap" 2> /dev/null
wait "$cap" 2> /dev/null
cap=
/usr/bin/python3 "$py" describe "$W"/cap/push-*.json > "$W/describe" 2>&1
sed 's/^/# pushed /' "$W/describe"
sed 's/^/# our answer to /' "$W"/cap/push-*.status 2> /dev/null
check "it pushed twice, each answered 200 by ours with no rejected point" \
	sh -c "test -s '$W/cap/push-1.json' -a -s '$W/cap/push-2.json' -a ! -e '$W/cap/push-3.json' &&
		test \$(cat '$W'/cap/push-*.status | grep -c '^200 ') = 2 &&
		! grep -q rejected '$W'/cap/push-*.status"

# A gauge reads back as its last push: trace.control.port ($port) and
# kernel.all.load's three instances (instname with its space as '_').
pushed() { /usr/bin/python3 "$py" pushed "$W/cap" "$@"; }
last=$(pushed trace.control.port | tail -1)
pinst=$(ours_inst trace.otel.trace.control.port "pmid=")
got=$(ours_value trace.otel.trace.control.port "$pinst")
diag "trace.otel.trace.control.port [$pinst] = $got"
check "trace.control.port pushed as $last (the agent's port $port), read back from trace.otel.trace.control.port: $got" \
	test -n "$got" -a "$got" = "$last" -a "$last" = "$port"
for i in 1 5 15; do
	last=$(pushed kernel.all.load "$i minute" | tail -1)
	inst=$(ours_inst trace.otel.kernel.all.load "instname=${i}_minute,")
	got=$(ours_value trace.otel.kernel.all.load "$inst")
	check "kernel.all.load [$i minute] pushed as $last, read back as $got ([$inst])" near "$got" "$last"
done
pminfo -h "$PMCD_HOST" -d trace.otel.kernel.all.load trace.otel.trace.control.port > "$W/desc" 2>&1
sed 's/^/# /' "$W/desc"
check "gauges: kernel.all.load a double, trace.control.port a 64-bit int, both instant, no units" \
	sh -c "grep -A2 '^trace.otel.kernel.all.load' '$W/desc' | grep -q 'Data Type: double ' &&
		grep -A2 '^trace.otel.trace.control.port' '$W/desc' | grep -q 'Data Type: 64-bit int ' &&
		test \$(grep -c 'Semantics: instant  Units: none' '$W/desc') = 2"

# A counter pcp2opentelemetry marks DELTA (aggregationTemporality 1) though
# each push has the counter's value since PCP's start, and no start time:
# a delta without a start has no interval to be the change of, and ours
# takes it for the running total it is (docs/otlp-metrics.md), so the
# counter reads as PCP's own, the last push, not the pushes added up.
check "pcp2opentelemetry sends kernel.all.sysfork and trace.otlp.requests as monotonic Sums of temporality 1 (DELTA), without a start time" \
	sh -c "grep -q 'push-2.json: kernel.all.sysfork sum, temporality 1, isMonotonic True' '$W/describe' &&
		grep -q 'push-2.json: trace.otlp.requests sum, temporality 1, isMonotonic True' '$W/describe' &&
		! grep -q startTimeUnixNano '$W/cap/push-2.json'"
sysfork=$(pushed kernel.all.sysfork | tr '\n' ' ')
sum=$(pushed kernel.all.sysfork | awk '{ s += $1 } END { print s }')
last=$(pushed kernel.all.sysfork | tail -1)
inst=$(ours_inst trace.otel.kernel.all.sysfork "pmid=")
got=$(ours_value trace.otel.kernel.all.sysfork "$inst")
check "kernel.all.sysfork pushed as $sysfork(totals marked DELTA, no start): ours serves the last $last (not their sum $sum), got $got" \
	test -n "$got" -a "$got" = "$last" -a "$last" != "$sum"
req=$(pushed trace.otlp.requests 200 | tr '\n' ' ')
rlast=$(pushed trace.otlp.requests 200 | tail -1)
inst=$(ours_inst trace.otel.trace.otlp.requests "instname=200,")
got=$(ours_value trace.otel.trace.otlp.requests "$inst")
check "trace.otlp.requests [200] pushed as $req: ours serves the last $rlast, got $got" \
	test -n "$got" -a "$got" = "$rlast"
sysfork_inst=$(ours_inst trace.otel.kernel.all.sysfork "pmid=")
load_inst=$(ours_inst trace.otel.kernel.all.load "instname=1_minute,")

# (b), pmdaopentelemetry's half: the last push as one more source.
cp "$W/cap/push-2.json" "$W/pushed.json"
echo "file://$W/pushed.json" > "$W/otel/conf/pushed.url"
theirs_ready() { pminfo -h "$PMCD_HOST" -f opentelemetry.pushed.trace.control.port 2> /dev/null | grep -q 'value '; }
check "pmdaopentelemetry finds pcp2opentelemetry's push as a new source (opentelemetry.pushed)" poll 30 theirs_ready
pminfo -h "$PMCD_HOST" -f opentelemetry.control.status > "$W/status" 2>&1
sed 's/^/# /' "$W/status"
check "pmdaopentelemetry read the six files (opentelemetry.control.status: success each)" \
	test "$(grep -c 'value "success"' "$W/status")" = 6
li=$(/usr/bin/python3 "$py" index "$W/pushed.json" kernel.all.load "1 minute")
load=$(pushed kernel.all.load "1 minute" | tail -1)

# The table: WHAT OURS OURS_INST THEIRS THEIRS_INST OURS_WANT THEIRS_WANT NOTE
# (pcp2otel.py compare; each NOTE a paragraph of docs/otlp-metrics.md).
G=trace.otel T=opentelemetry.fixture C=opentelemetry.collide P=opentelemetry.pushed O=opentelemetry S=acme/shop:node-1
I64="64-bit int" U64="64-bit unsigned int"
R="$S{http.route=/cart}"
tab=$(printf '\t')
while IFS='|' read -r what o oi t ti ow tw note; do
	printf '%s\n' "$what$tab$o$tab$oi$tab$t$tab$ti$tab$ow$tab$tw$tab$note"
done > "$W/spec" <<EOF
Gauge By [used]|$G.system.memory.usage|$S{system.memory.state=used}|$T.system.memory.usage|0 inst-0|1048576/$I64/instant/byte|1048576/$I64/instant/none|Units
Gauge By [free]|$G.system.memory.usage|$S{system.memory.state=free}|$T.system.memory.usage|1 inst-1|3145728/$I64/instant/byte|3145728/$I64/instant/none|Units
Gauge 1|$G.system.cpu.utilization|$S|$T.system.cpu.utilization||0.25/double/instant/none|0.25/double/instant/none|same
Gauge By/s|$G.network.io.rate|$S|$T.network.io.rate||1536.5/double/instant/byte / sec|1536.5/double/instant/sec|Units
Sum monotonic|$G.http.server.requests|$R|$T.http.server.requests||42/$I64/counter/count|42/$I64/counter/count|same
Sum not monotonic|$G.db.client.connections.usage|$S|$T.db.client.connections.usage||7/$I64/instant/count|7/$I64/counter/count|Not monotonic Sums
Histogram count|$G.http.server.request.duration.count|$R|$T.http.server.request.duration_count||10/$U64/counter/count|10/$I64/counter/sec|A histogram's counts
Histogram sum|$G.http.server.request.duration.sum|$R|$T.http.server.request.duration_sum||2.5/double/counter/sec|2.5/double/counter/sec|same
Histogram le 0.1|$G.http.server.request.duration.bucket|$R:0.1|$T.http.server.request.duration|le=0.1|4/$U64/counter/count|4/$I64/counter/sec|A histogram's counts
Histogram le 0.5|$G.http.server.request.duration.bucket|$R:0.5|$T.http.server.request.duration|le=0.5|7/$U64/counter/count|3/$I64/counter/sec|Buckets; A histogram's counts
Histogram le 1|$G.http.server.request.duration.bucket|$R:1|$T.http.server.request.duration|le=1|9/$U64/counter/count|2/$I64/counter/sec|Buckets; A histogram's counts
Histogram le +Inf|$G.http.server.request.duration.bucket|$R:+Inf|$T.http.server.request.duration|le=inf|10/$U64/counter/count|1/$I64/counter/sec|Buckets; A histogram's counts
Gauge, service shop|$G.queue.depth|$S|$C.queue.depth||3/$I64/instant/none|5/$I64/instant/none|One series
Gauge, service billing|$G.queue.depth|acme/billing:node-2|$C.queue.depth||5/$I64/instant/none|5/$I64/instant/none|same
Histogram count [get]|$G.rpc.duration.count|$S{rpc.method=get}|$C.rpc.duration_count||3/$U64/counter/count|5/$I64/counter/millisec|One series; A histogram's counts
Histogram count [put]|$G.rpc.duration.count|$S{rpc.method=put}|$C.rpc.duration_count||5/$U64/counter/count|5/$I64/counter/millisec|A histogram's counts
Sum delta, sent twice|$G.jobs.done|$S|$O.delta.jobs.done||10/$I64/counter/count|5/$I64/counter/count|Deltas
No attributes member|$G.probe.noattrs|$S|$O.noattrs.probe.noattrs||1/$I64/instant/none|-/?/?/?|Documents refused
Before an int attribute|$G.probe.first|$S|$O.intattr.probe.first||1/$I64/instant/none|1/$I64/instant/none|same
An int attribute|$G.probe.int|$S{http.status_code=200}|$O.intattr.probe.int||2/$I64/instant/none|-/?/?/?|Documents refused
After an int attribute|$G.probe.after|$S|$O.intattr.probe.after||3/$I64/instant/none|-/?/?/?|Documents refused
pushed trace.control.port|$G.trace.control.port|$pinst|$P.trace.control.port||$port/$I64/instant/none|$port/$I64/instant/none|same
pushed kernel.all.load [1 minute]|$G.kernel.all.load|$load_inst|$P.kernel.all.load|$li inst-$li|$load/double/instant/none|$load/double/instant/none|same
pushed kernel.all.sysfork|$G.kernel.all.sysfork|$sysfork_inst|$P.kernel.all.sysfork||$last/$I64/counter/count|$last/$I64/counter/count|same
EOF
/usr/bin/python3 "$py" compare "$PMCD_HOST" "$W/spec" > "$W/cmp" 2>&1
while IFS= read -r l; do
	case $l in
	"ok - "*) ok "${l#ok - }" ;;
	"not ok - "*) not_ok "${l#not ok - }" ;;
	"#"*) echo "$l" ;;
	*) echo "# $l" ;;
	esac
done < "$W/cmp"

# The comparator can fail: a wrong value, and a difference no paragraph explains.
cat > "$W/wrong.spec" <<EOF
wrong value${tab}$G.http.server.requests${tab}$R${tab}$T.http.server.requests${tab}${tab}43/$I64/counter/count${tab}42/$I64/counter/count${tab}same
undocumented${tab}$G.db.client.connections.usage${tab}$S${tab}$T.db.client.connections.usage${tab}${tab}7/$I64/instant/count${tab}7/$I64/counter/count${tab}No such paragraph
EOF
/usr/bin/python3 "$py" compare "$PMCD_HOST" "$W/wrong.spec" > "$W/wrong" 2>&1
rc=$?
sed 's/^/#   /' "$W/wrong"
check "the comparator fails a wrong value and an undocumented difference, each alone" \
	sh -c "test $rc = 1 && grep -q '^not ok - side by side: 2 rows, .* (2 not)' '$W/wrong' &&
		grep -qF '# wrong value: ours: want 43/' '$W/wrong' &&
		grep -qF 'has no paragraph **No such paragraph.**' '$W/wrong'"

# Labels: ours has the resource's and the point's attributes as instance
# labels; pmdaopentelemetry has no service_name, and a series' attributes
# under a label named after its index.
pminfo -h "$PMCD_HOST" -l "$G.system.memory.usage" "$T.system.memory.usage" > "$W/labels" 2>&1
sed 's/^/# /' "$W/labels"
check "ours: each series' labels have service_name, service_namespace and its system_memory_state" \
	sh -c "grep -F '$S{system.memory.state=free}\"] labels' '$W/labels' |
		grep -F '\"service_name\":\"shop\"' | grep -F '\"service_namespace\":\"acme\"' | grep -qF '\"system_memory_state\":\"free\"'"
sed -n '/^opentelemetry/,$p' "$W/labels" > "$W/theirs.labels"
check "pmdaopentelemetry: no service_name label; series 1's attributes as the text of a label named \"1\"" \
	sh -c "test -s '$W/theirs.labels' && ! grep -q service_name '$W/theirs.labels' &&
		grep -F '\"1 inst-1\"] labels' '$W/theirs.labels' | grep -qF '\"1\":\"{'"

check "ours: the integer attribute is the label http_status_code, the number 200" \
	sh -c "pminfo -h '$PMCD_HOST' -l trace.otel.probe.int | grep -F '$S{http.status_code=200}\"] labels' |
		grep -qF '\"http_status_code\":200'"

pminfo -h "$PMCD_HOST" -f trace.otlp.points.rejected > "$W/rej" 2>&1
check "our receiver rejected no point (trace.otlp.points.rejected)" \
	sh -c "grep -q value '$W/rej' && ! grep value '$W/rej' | grep -qv 'value 0$'"
# pmdaopentelemetry's errors: the two documents it refuses, nothing else.
grep -i error "$W/otel/otel.log" > "$W/otel.err"
sed 's/^/# pmdaopentelemetry: /' "$W/otel.err"
check "pmdaopentelemetry logged KeyError 'attributes' (noattrs) and 'stringValue' (intattr), no other error" \
	sh -c "grep -q \"Cannot refresh2 cluster [0-9]*: 'attributes'\" '$W/otel.err' &&
		grep -q \"Cannot refresh2 cluster [0-9]*: 'stringValue'\" '$W/otel.err' &&
		! grep -v -e \"Cannot refresh2 cluster [0-9]*: 'attributes'\" -e \"Cannot refresh2 cluster [0-9]*: 'stringValue'\" '$W/otel.err' | grep -q ."
check "both agents answered pmcd throughout (pmcd.agent.status)" pmcd_ready
pmcd_stop
done_testing
