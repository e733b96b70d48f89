#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Our trace agent's percentiles (docs/trace-protocol.md §9) through a
# private pmcd and PCP's clients: the six metrics' descriptors and help as
# pminfo shows them; 1000 transactions of 1..1000 ms and 1000 observations
# of 1..1000, sent as DATA PDUs with exact values (trace_pdus.py), give
# p50/p90/p99 within the scheme's 1/64 of the true 500, 900, 990 (ms) and
# equal to the scheme's bucket midpoints, computed here with awk from
# common/trace_hist.h's definition; observations 1..20 from PCP's pmtrace
# the same way; an empty window gives no values. Then the cumulative
# buckets of the same reports, by le, with their labels.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/trace-pct.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
send="$top/tests/integration/trace_pdus.py"
trap 'pmcd_stop; [ -n "$KEEP" ] || rm -rf "$W"' EXIT
PCT="trace.transact.p50_time trace.transact.p90_time trace.transact.p99_time
trace.observe.p50 trace.observe.p90 trace.observe.p99"

# start_agent DIR ARGS...: a private pmcd with our agent; sets $port
start_agent() {
	dir=$1
	shift
	pmcd_init "$W/$dir"
	pmcd_trace_agent "$ours" "$@"
	pmcd_start && pmcd_wait_port "$port"
}

# value METRIC INST: the value pminfo -f shows for that instance name
value() {
	pminfo -h "$PMCD_HOST" -f "$1" | awk -v i="\"$2\"]" '$4 == i { print $6 }'
}

# the bucket midpoint of V: binade 2^e split in 32 (common/trace_hist.h)
midpoint() {
	awk -v v="$1" 'BEGIN { e = 0; p = 1
		while (p * 2 <= v) { p *= 2; e++ }
		while (p > v) { p /= 2; e-- }
		w = p / 32; printf "%.9g\n", int(v / w) * w + w / 2 }'
}

# near GOT WANT TRUE: GOT equals WANT (to 1e-9) and is within 1/64 of TRUE
near() {
	awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN {
		d = g - w; if (d < 0) d = -d
		r = g - t; if (r < 0) r = -r
		exit !(g != "" && d <= 1e-9 * w && r <= t / 64) }'
}

if ! start_agent run -T 6 -N 3; then
	not_ok "pmcd with our trace agent started"
	done_testing
	exit 1
fi
pminfo -h "$PMCD_HOST" -dT $PCT > "$W/desc" 2>&1
for m in p50_time p90_time p99_time; do
	check "trace.transact.$m: double, instant, seconds, over the transaction tags" \
		sh -c "grep -A2 '^trace.transact.$m\$' '$W/desc' | grep -q 'Data Type: double  InDom: 10.0 ' &&
			grep -A2 '^trace.transact.$m\$' '$W/desc' | grep -q 'Semantics: instant  Units: sec\$'"
done
for m in p50 p90 p99; do
	check "trace.observe.$m: double, instant, units none (-U), over the observation tags" \
		sh -c "grep -A2 '^trace.observe.$m\$' '$W/desc' | grep -q 'Data Type: double  InDom: 10.2 ' &&
			grep -A2 '^trace.observe.$m\$' '$W/desc' | grep -q 'Semantics: instant  Units: none\$'"
done
check "each has its help text (6 x 'percentile')" \
	sh -c "[ \$(grep -c 'Help:' '$W/desc') -eq 6 ] && [ \$(grep -ci 'percentile of\|^Median' '$W/desc') -ge 6 ]"
check "PCP's items keep cluster 0; ours are cluster 1" \
	sh -c "pminfo -h '$PMCD_HOST' -m trace.transact.p50_time trace.observe.p99 trace.transact.count |
		tr '\n' ' ' | grep -q 'p50_time PMID: 10.1.0 .*p99 PMID: 10.1.5 .*count PMID: 10.0.0'"

# 1..1000 in a shuffled order (awk's default seed: the same every run)
awk 'BEGIN { for (i = 1; i <= 1000; i++) a[i] = i
	for (i = 1000; i > 1; i--) { j = int(rand() * i) + 1; t = a[i]; a[i] = a[j]; a[j] = t }
	for (i = 1; i <= 1000; i++) printf "1 lat %.3f\n3 size %d\n", a[i] / 1000, a[i] }' > "$W/pdus"
check "2000 reports sent and acknowledged" "$send" "$port" < "$W/pdus"
# and 1..20 through PCP's own client, pmtrace (sync: recorded on return)
i=20
while [ $i -ge 1 ]; do
	PCP_TRACE_PORT=$port pmtrace -v $i pmt > /dev/null || not_ok "pmtrace -v $i pmt"
	i=$((i - 1))
done
# the reports span at most 2 of the 2 s sub-intervals; after one more
# boundary the 3-sub-interval window holds them all (rate = count / 6)
i=0
while [ $i -lt 60 ]; do
	r=$(value trace.transact.rate lat) q=$(value trace.observe.rate pmt)
	[ -n "$r" ] && [ -n "$q" ] &&
		awk -v r="$r" -v q="$q" 'BEGIN { exit !(r * 6 > 999.5 && q * 6 > 19.5) }' && break
	sleep 0.1
	i=$((i + 1))
done
check "the window holds all 1000 transactions and pmtrace's 20" \
	awk -v r="$r" -v q="$q" 'BEGIN { exit !(r * 6 > 999.5 && r * 6 < 1000.5 && q * 6 > 19.5 && q * 6 < 20.5) }'
pminfo -h "$PMCD_HOST" -f $PCT > "$W/values"
diag "$(tr '\n' ' ' < "$W/values")"
for p in 50 90 99; do
	t=$(awk -v p=$p 'BEGIN { printf "%g", p * 10 }')	# the true percentile (ms, units)
	g=$(value trace.transact.p${p}_time lat)
	w=$(midpoint "$(awk -v t="$t" 'BEGIN { printf "%.3f", t / 1000 }')")
	check "transactions 1..1000 ms: p$p = $g s, the midpoint $w of $t ms's bucket, within 1/64" \
		near "$g" "$w" "$(awk -v t="$t" 'BEGIN { print t / 1000 }')"
	g=$(value trace.observe.p$p size)
	w=$(midpoint "$t")
	check "observations 1..1000: p$p = $g, the midpoint $w of $t's bucket, within 1/64" \
		near "$g" "$w" "$t"
done
# pmtrace's 1..20: ranks 10, 18, 20; buckets [10, 10.25), [18, 18.5) and
# [20, 20.5), whose midpoint is clamped to the maximum, 20
check "pmtrace -v 1..20: p50, p90, p99 = 10.125, 18.25, 20" \
	sh -c "[ '$(value trace.observe.p50 pmt) $(value trace.observe.p90 pmt) $(value trace.observe.p99 pmt)' = '10.125 18.25 20' ]"
# The cumulative buckets of the same reports (docs/trace-protocol.md §8.8):
# 1..1000 ms below le = i s are those under it (0.125 s: 124); the first
# served bucket is the empty one below 1 ms (le 2^-10), the last finite
# one ends at 1.25 s; +Inf has all 1000. Labelled le and tag.
pminfo -h "$PMCD_HOST" -f trace.transact.bucket trace.observe.bucket > "$W/buckets" 2>&1
pminfo -h "$PMCD_HOST" -l trace.transact.bucket > "$W/labels" 2>&1
check "trace.transact.bucket[lat]: 0 below 2^-10 s, 124 below 0.125 s, 499 below 0.5 s, 1000 in all" \
	sh -c "[ '$(value trace.transact.bucket lat:0.0009765625) $(value trace.transact.bucket lat:0.125) $(value trace.transact.bucket lat:0.5) $(value trace.transact.bucket lat:+Inf)' = '0 124 499 1000' ]"
check "... its buckets run from le 2^-10 to 1.25 s, then +Inf" \
	sh -c "grep -o '\"lat:[^\"]*\"' '$W/buckets' | sed -n '1p;\$p' | tr '\n' ' ' | grep -qx '\"lat:0.0009765625\" \"lat:+Inf\" ' &&
		grep -B1 'lat:+Inf' '$W/buckets' | grep -q 'lat:1.25\"'"
check "trace.observe.bucket[size]: 1..1000 below 64: 63" \
	sh -c "[ '$(value trace.observe.bucket size:64)' = 63 ]"
check "each bucket labelled le and tag" \
	grep -q 'or "lat:0.5"\] labels {.*"le":"0.5".*"tag":"lat"' "$W/labels"
pmcd_stop

# An hour-long sub-interval: the window stays empty, so no values, while
# the tags exist (their counts show).
if start_agent empty -T 3600 -N 1; then
	printf '1 lat 0.5\n3 size 7\n' | "$send" "$port" || not_ok "reports sent to the second agent"
	pminfo -h "$PMCD_HOST" -f trace.transact.count trace.observe.count $PCT > "$W/empty.out" 2>&1
	check "the tags exist (counts 1)" sh -c "[ \$(grep -c '\] value 1\$' '$W/empty.out') -eq 2 ]"
	check "an empty window: no percentile values" sh -c "! grep -A1 '^trace.*p[0-9]' '$W/empty.out' | grep -q '\] value'"
	check "... each says so" sh -c "[ \$(grep -c 'No value' '$W/empty.out') -eq 6 ]"
else
	not_ok "second pmcd started"
fi
done_testing
