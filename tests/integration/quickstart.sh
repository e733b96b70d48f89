#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The C guide's programs (demos/quickstart, built by make all into
# build/demos/quickstart) run against a private pmcd with our MMV agent
# (a daemon, as ./Install makes it) and our trace agent, and read back
# with PCP's clients, pminfo, pmval and pmrep, as docs/c.md shows them.
#
# first N serves requests for N seconds: each sleeps 400..800 us (GET, 3
# in 4) or 2000..2400 us (POST), inside a timer interval, a trace
# transaction and a latency measurement; it prints what it served. So,
# from the program's own totals G and P and its sleeps alone:
#   mmv.quickstart.requests       GET = G, POST = P (exactly)
#   mmv.quickstart.latency.count  G + P; its buckets add up to it, none
#                                 below 384 us, at least P from 1792 us
#   .latency.sum, .busy           at least 400 G + 2000 P us; .busy at
#                                 most the run's wall-clock time
#   percentiles                   384 <= p50 <= p90 <= p99, p90 >= 1792
#                                 (a quarter of the requests are POSTs)
#   trace.transact.count          G + P for tag "request", all traced
# tiny counts to 1000000, threads to 4 x 1000000. first also runs with no
# trace agent and with no MMV directory: it serves on and exits 0.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/quickstart.XXXXXX)
Q=$top/build/demos/quickstart
mmv_bin=$top/build/pmdas/mmv/pmdammv
trace_bin=$top/build/pmdas/trace/pmdatrace
FIRST_PID=
cleanup() {
	[ -z "$FIRST_PID" ] || kill "$FIRST_PID" 2> /dev/null
	pmcd_stop
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bail() { not_ok "$*"; done_testing; exit 1; }
show() { sed 's/^/# /' "$1" 2> /dev/null | head -${2:-30}; }
# pmrep is Python: Debian's python3 has the pcp module, a pyenv's may not
pmrep() { PATH=/usr/bin:$PATH command pmrep "$@"; }

for f in "$Q/first" "$Q/tiny" "$Q/threads" "$mmv_bin" "$trace_bin" \
		"$top/build/pmdas/mmv/root_mmv"; do
	[ -x "$f" ] || [ -f "$f" ] || bail "$f is built (make all)"
done

# val METRIC [INSTANCE]: the value pminfo -f shows (of that instance)
val() {
	pminfo -h "$H" -f "$1" 2> /dev/null | awk -v i="\"${2:-}\"]" '
		NF == 2 && $1 == "value" { print $2 }
		$1 == "inst" && $4 == i { print $6 }'
}
# is METRIC INSTANCE WANT: its value is WANT
is() { [ "$(val "$1" "$2")" = "$3" ]; }
# refuse DESCRIPTION COMMAND...: ok if the command fails (planted checks)
refuse() { d=$1; shift; if "$@"; then not_ok "$d"; else ok "$d"; fi; }
# awk_ok EXPR VAR=VALUE...: EXPR holds
awk_ok() {
	_e=$1
	shift
	awk -v "$@" "BEGIN { exit !($_e) }" 2> /dev/null
}
# on_fail FILE...: show the files if a check failed since the last call
_seen=0
on_fail() { [ $_tap_fail = $_seen ] || for f; do show "$f"; done; _seen=$_tap_fail; }
now_us() { echo $(($(date +%s%N) / 1000)); }

pmcd_init "$W/pmcd"
pmcd_agent mmv 70 pipe binary "$mmv_bin" -U "$(id -un)" -l "$PMCD_DIR/log/mmv.log"
pmcd_pmns "$top/build/pmdas/mmv/root_mmv"
pmcd_trace_agent "$trace_bin"
pmcd_start 3>&- && pmcd_wait_port "$port" || bail "pmcd with our MMV and trace agents starts"
H=$PMCD_HOST
ok "pmcd with our MMV agent (daemon) and trace agent (port $port)"

# --- first: run for 8 s; pmval and pmrep watch it while it runs ---------
t0=$(now_us)
PCP_TRACE_PORT=$port "$Q/first" 8 > "$W/first.out" 2> "$W/first.err" 3>&- &
FIRST_PID=$!
if poll 5 sh -c "pminfo -h '$H' -f mmv.quickstart.requests | grep -q 'POST\"\] value [1-9]'"; then
	ok "first's metrics are served while it runs (mmv.quickstart.requests)"
else
	not_ok "first's metrics are served while it runs (mmv.quickstart.requests)"
	show "$PMCD_DIR/log/mmv.log"
fi
pmrep -h "$H" -s 3 -t 1 -o csv mmv.quickstart.requests mmv.quickstart.queue \
	mmv.quickstart.busy > "$W/pmrep.csv" 2> "$W/pmrep.err" &
rep=$!
pmval -h "$H" -s 3 -t 1 mmv.quickstart.requests > "$W/pmval.out" 2>&1
wait $rep
wait "$FIRST_PID"
rc=$?
FIRST_PID=
t1=$(now_us)
summary=$(cat "$W/first.out")
diag "first: $summary"
set -- $(echo "$summary" | sed -n 's/^served \([0-9]*\) GET and \([0-9]*\) POST requests, \([0-9]*\) traced$/\1 \2 \3/p')
G=${1:-} P=${2:-} T=${3:-}
check "first 8 exits 0 and prints its totals (served G GET and P POST requests, T traced)" \
	test $rc = 0 -a -n "$P" -a ! -s "$W/first.err"
[ -n "$P" ] || { show "$W/first.err"; bail "first's totals"; }
N=$((G + P))
wall=$((t1 - t0))

# pmval: a rate per second for each method, three samples
check "pmval: columns GET and POST, three rates of requests per second" \
	sh -c "grep -q 'units:.*count / sec' '$W/pmval.out' &&
		grep -Eq '^ *GET +POST *\$' '$W/pmval.out' &&
		[ \$(awk 'NF == 2 && \$1 ~ /^[0-9.]+\$/ && \$1 > 0 && \$2 > 0' '$W/pmval.out' | wc -l) -eq 3 ]"
on_fail "$W/pmval.out"
# pmrep (CSV): Time, GET/s, POST/s, queue, busy us/s; the first row has no rates
check "pmrep: queue length within 0..7, requests and busy time as rates (busy <= 1 s/s)" \
	awk -F, 'NR == 1 { ok = $2 ~ /GET/ && $3 ~ /POST/ && $4 ~ /queue/ && $5 ~ /busy/; next }
		NR == 2 { next }
		{ rows++; if (!($4 >= 0 && $4 <= 7 && $2 > 0 && $3 > 0 && $5 > 0 && $5 <= 1.05e6)) ok = 0 }
		END { exit !(ok && rows == 2) }' "$W/pmrep.csv"
on_fail "$W/pmrep.csv" "$W/pmrep.err"

# The counter's instances count what first served, exactly.
pminfo -h "$H" -f mmv.quickstart.requests > "$W/requests" 2>&1
check "mmv.quickstart.requests: GET $G, POST $P (first's totals)" \
	sh -c "grep -c -e 'GET\"\] value $G\$' -e 'POST\"\] value $P\$' '$W/requests' | grep -qx 2"
both() { is mmv.quickstart.requests GET "$G" && is mmv.quickstart.requests POST "$P"; }
check "... read back one by one" both
refuse "planted: the same read with GET $((G + 1)) fails" is mmv.quickstart.requests GET $((G + 1))
on_fail "$W/requests"

# Descriptors (pminfo -d): what each kind of metric is.
pminfo -h "$H" -d mmv.quickstart.requests mmv.quickstart.queue mmv.quickstart.busy \
	mmv.quickstart.latency.bucket mmv.quickstart.latency.count mmv.quickstart.latency.sum \
	mmv.percentile.quickstart.latency.p50 > "$W/desc" 2>&1
# desc METRIC PATTERN: the two descriptor lines of METRIC match PATTERN
desc() { grep -A2 "^$1\$" "$W/desc" | tr '\n' ' ' | grep -Eq "$2"; }
check "requests: a 64-bit unsigned counter of count, over an instance domain" \
	desc mmv.quickstart.requests 'Data Type: 64-bit unsigned int +InDom: [0-9]+\.[0-9]+ .*Semantics: counter +Units: count'
check "queue: instant (a gauge), count" \
	desc mmv.quickstart.queue 'Data Type: 32-bit unsigned int +InDom: PM_INDOM_NULL .*Semantics: instant +Units: count'
check "busy (MMV_TYPE_ELAPSED): a 64-bit counter of microseconds" \
	desc mmv.quickstart.busy 'Data Type: 64-bit int +InDom: PM_INDOM_NULL .*Semantics: counter +Units: microsec'
hist_desc() {
	desc mmv.quickstart.latency.bucket 'InDom: [0-9]+\.[0-9]+ .*Semantics: counter +Units: count' &&
	desc mmv.quickstart.latency.count 'Semantics: counter +Units: count' &&
	desc mmv.quickstart.latency.sum 'Semantics: counter +Units: microsec'
}
check "latency.bucket: counters of count per bucket; .count count; .sum microsec" hist_desc
check "percentile p50: a double, instant, in microsec" \
	desc mmv.percentile.quickstart.latency.p50 'Data Type: double .*Semantics: instant +Units: microsec'
on_fail "$W/desc"

# Values derived from the program's sleeps, not from a run.
q=$(val mmv.quickstart.queue)
check "queue: $q, within 0..7" awk_ok 'q != "" && q >= 0 && q <= 7' q="$q"
busy=$(val mmv.quickstart.busy)
sum=$(val mmv.quickstart.latency.sum)
min=$((400 * G + 2000 * P))
check "busy $busy us: at least the sleeps' $min us, at most the run's $wall us" \
	awk_ok 'b >= m && b <= w' b="$busy" -v m=$min -v w=$wall
check "latency.sum $sum us: at least $min us" awk_ok 's >= m && s <= w' s="$sum" -v m=$min -v w=$wall
check "latency.count: $N, every request measured" is mmv.quickstart.latency.count "" $N
pminfo -h "$H" -f mmv.quickstart.latency.bucket > "$W/buckets" 2>&1
# buckets: "LO HI COUNT" (HI "inf" for the overflow bucket)
sed -n 's/.*or "\([0-9]*\)-\([0-9a-z]*\)"\] value \([0-9]*\)$/\1 \2 \3/p' "$W/buckets" > "$W/b"
check "latency.bucket: 26 buckets, 0-256 .. 16384-inf (256 .. 16384 us, 4 a power of two)" \
	sh -c "[ \$(wc -l < '$W/b') = 26 ] && head -1 '$W/b' | grep -qx '0 256 [0-9]*' &&
		tail -1 '$W/b' | grep -qx '16384 inf [0-9]*' && grep -qx '1792 2048 [0-9]*' '$W/b'"
check "... they add up to $N, none below 384 us, at least $P (the POSTs) from 1792 us" \
	awk -v n=$N -v p=$P '{ all += $3; if ($2 != "inf" && $2 <= 384) low += $3; if ($1 >= 1792) high += $3 }
		END { exit !(all == n && low == 0 && high >= p) }' "$W/b"
on_fail "$W/buckets"

# Our agent's percentiles of the histogram (a 60 s window, sampled every 1 s).
P50=$(val mmv.percentile.quickstart.latency.p50)
P90=$(val mmv.percentile.quickstart.latency.p90)
P99=$(val mmv.percentile.quickstart.latency.p99)
# pct LOW: the percentiles are ordered, p50 >= LOW and p90 >= 1792
pct() { awk_ok 'a != "" && a >= l && a <= b && b <= c && b >= 1792' a="$P50" -v b="$P90" -v c="$P99" -v l="$1"; }
check "percentiles: p50 $P50, p90 $P90, p99 $P99: 384 <= p50 <= p90 <= p99, p90 >= 1792" pct 384
refuse "planted: with p50 >= 1e9 required, the same check fails" pct 1e9
check "cumulative buckets: le +Inf holds all $N" is mmv.percentile.quickstart.latency.bucket +Inf $N

# Labels: the registry's on every metric of the file; the histogram's own.
pminfo -h "$H" -l mmv.quickstart.requests mmv.quickstart.latency.bucket > "$W/labels" 2>&1
check "pminfo -l: the registry label app=shop on requests and its GET and POST" \
	sh -c "[ \$(grep -c '\"app\":\"shop\"' '$W/labels') -ge 4 ] &&
		grep -q 'inst \[1 or \"POST\"\] labels {.*\"app\":\"shop\"' '$W/labels'"
check "... the histogram's scheme on latency.bucket, lo and hi on each bucket" \
	sh -c "grep -A1 '^mmv.quickstart.latency.bucket' '$W/labels' | grep -q '\"high\":16384.*\"low\":256.*\"scheme\":\"log-linear\",\"sub_buckets\":4' &&
		grep -q '\"1792-2048\"\] labels {.*\"hi\":2048.*\"lo\":1792' '$W/labels'"
on_fail "$W/labels"

# The trace transactions: one per request, all seen by the agent.
check "first traced every request ($T of $N)" test "$T" = $N
if poll 5 is trace.transact.count request $N; then
	ok "trace.transact.count[request] = $N"
else
	not_ok "trace.transact.count[request] = $N (got $(val trace.transact.count request))"
fi
tt=$(val trace.transact.total_time request)
check "trace.transact.total_time $tt s: at least the sleeps' $min us, at most the run's $wall us" \
	awk_ok 't >= m / 1e6 && t <= w / 1e6' t="$tt" -v m=$min -v w=$wall
check "trace.transact.bucket[request:+Inf] = $N" is trace.transact.bucket request:+Inf $N

# --- tiny and threads ---------------------------------------------------
"$Q/tiny" > "$W/tiny.out" 2>&1
check "tiny exits 0, silent" test $? = 0 -a ! -s "$W/tiny.out"
check "mmv.tiny.loops = 1000000" poll 5 is mmv.tiny.loops "" 1000000
"$Q/threads" > "$W/threads.out" 2>&1
rc=$?
check "threads exits 0: work 4000000 (4 threads x 1000000, none lost)" \
	sh -c "[ $rc = 0 ] && grep -qx 'work 4000000' '$W/threads.out'"
check "mmv.threads.work = 4000000" poll 5 is mmv.threads.work "" 4000000

# --- first without its telemetry ------------------------------------------
# No trace agent: a port nothing listens on. The program serves on, fast.
dead=$(pmcd_free_port)
t0=$(now_us)
PCP_TRACE_PORT=$dead "$Q/first" 2 > "$W/notrace.out" 2> "$W/notrace.err"
rc=$?
t1=$(now_us)
check "no trace agent: first 2 exits 0 within 4 s, served requests, 0 traced" \
	sh -c "[ $rc = 0 ] && [ $((t1 - t0)) -lt 4000000 ] &&
		grep -Eqx 'served [0-9]+ GET and [1-9][0-9]* POST requests, 0 traced' '$W/notrace.out' &&
		[ ! -s '$W/notrace.err' ]"
on_fail "$W/notrace.out" "$W/notrace.err"
# No $PCP_TMP_DIR/mmv: one line on stderr, then it serves on, unmeasured.
PCP_TMP_DIR=$W/none PCP_TRACE_PORT=$dead "$Q/first" 1 > "$W/nommv.out" 2> "$W/nommv.err"
rc=$?
check "no MMV directory: first 1 says so once, serves on and exits 0" \
	sh -c "[ $rc = 0 ] && grep -qx 'quickstart: no metrics: No such file or directory' '$W/nommv.err' &&
		[ \$(wc -l < '$W/nommv.err') = 1 ] && grep -Eq 'served [1-9][0-9]* GET' '$W/nommv.out'"
on_fail "$W/nommv.out" "$W/nommv.err"

pmcd_stop
done_testing
