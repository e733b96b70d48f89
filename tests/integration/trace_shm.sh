#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The PDU path and the shared segment give the same numbers
# (docs/trace-protocol.md §10.8): our pmda_trace in a private pmcd, the same
# deterministic workload on our libpcp_trace twice, once with
# PCP_TRACE_SHM=0 (tags a_*, PDUs) and once with the segment (tags b_*).
# The agent's trace.* counts, values, window rates (and percentiles of
# the observations, where the agent has them) must be equal tag for tag;
# then again with four threads on each tag (c_*, d_*; a transaction tag
# each, as transactions are per tag in a process), counts. While each
# workload runs, the agent has a memfd of ours mapped for the segment run
# only.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/trace-shm.XXXXXX)
workload="$top/build/tests/integration/trace_shm_workload"
ours="$top/build/pmdas/trace/pmdatrace"
trap 'pmcd_stop; rm -rf "$W"' EXIT
N=500

pmcd_init "$W/pmcd"
pmcd_trace_agent "$ours" -T 10 -N 2
if ! pmcd_start || ! pmcd_wait_port "$port"; then
	not_ok "pmcd with our trace agent started and listening"
	done_testing
	exit 1
fi
export PCP_TRACE_HOST=localhost PCP_TRACE_PORT=$port
agent=$(pgrep -f -- "$ours .*-I $port" | head -1)

# mapped PID: the agent maps a segment of ours now
mapped() { grep -q 'memfd:pcp-trace' "/proc/$1/maps"; }

# values METRIC...: "metric tag value" lines, the tag's a_/b_/c_/d_ prefix as X_
values() {
	pminfo -h "$PMCD_HOST" -f "$@" | awk '
		/^trace\./ { m = $1 }
		/inst \[/ { t = $0; sub(/.*or "/, "", t); sub(/".*/, "", t)
			    v = $0; sub(/.* value /, "", v); print m, t, v }'
}
only() { grep " $1" | sed "s/ $1/ X_/" | sort; }

run() {	# run PREFIX THREADS SHM(0/1)
	if [ "$3" = 0 ]; then
		PCP_TRACE_SHM=0 "$workload" "$1" $N "$2" 2 &
	else
		"$workload" "$1" $N "$2" 2 &
	fi
	pid=$!
	sleep 1
	if [ "$3" = 1 ]; then
		check "$1: the agent maps the client's segment" mapped "$agent"
	else
		check "$1: PCP_TRACE_SHM=0: the agent maps no segment" sh -c "! grep -q memfd:pcp-trace /proc/$agent/maps"
	fi
	wait $pid
	check "$1: workload ran without errors" test $? = 0
}

run a_ 1 0
run b_ 1 1
COUNTS="trace.transact.count trace.point.count trace.observe.count trace.observe.value
trace.counter.count trace.counter.value"
i=0
while [ $i -lt 50 ]; do
	values $COUNTS > "$W/counts"
	[ "$(only b_ < "$W/counts" | wc -l)" -ge 6 ] && break
	sleep 0.1; i=$((i + 1))
done
only a_ < "$W/counts" > "$W/a.counts"
only b_ < "$W/counts" > "$W/b.counts"
check "PDU path: counts are the workload's ($N)" grep -q "trace.point.count X_pt $N" "$W/a.counts"
check "PDU path: latest observation 1.5 x $N" grep -q "trace.observe.value X_obs $(awk "BEGIN{print 1.5*$N}")" "$W/a.counts"
same "shared segment: the same counts and latest values as the PDU path" "$W/a.counts" "$W/b.counts"

# the window: T = 10 s in two sub-intervals; both runs are in it once the
# later one's sub-interval is complete
RATES="trace.transact.rate trace.point.rate trace.observe.rate trace.counter.rate"
PCT=$(pminfo -h "$PMCD_HOST" trace.observe 2>/dev/null | grep -E 'p[0-9]+$' | tr '\n' ' ')
i=0
while [ $i -lt 150 ]; do
	values $RATES $PCT > "$W/window"
	only a_ < "$W/window" > "$W/a.window"
	only b_ < "$W/window" > "$W/b.window"
	grep -q "trace.point.rate X_pt 50$" "$W/a.window" &&
		grep -q "trace.point.rate X_pt 50$" "$W/b.window" && break
	sleep 0.1; i=$((i + 1))
done
check "PDU path: window rate = count / T ($N / 10)" grep -q "trace.point.rate X_pt 50$" "$W/a.window"
same "shared segment: the same window rates${PCT:+ and observation percentiles} as the PDU path" \
	"$W/a.window" "$W/b.window"
values trace.transact.ave_time trace.transact.min_time trace.transact.max_time > "$W/txn"
check "both paths: transaction ave, min and max in the window" \
	test "$(only a_ < "$W/txn" | wc -l)" = 3 -a "$(only b_ < "$W/txn" | wc -l)" = 3
awk '$2 ~ /^[ab]_txn$/ { v[$1 "," substr($2, 1, 1)] = $3 }
     END { for (p in v) n++; ok = n == 6
	   split("a b", s, " ")
	   for (i in s) { k = s[i]; ok = ok && v["trace.transact.min_time," k] <= v["trace.transact.ave_time," k] &&
		 v["trace.transact.ave_time," k] <= v["trace.transact.max_time," k] }
	   exit !ok }' "$W/txn"
check "both paths: transaction min <= ave <= max" test $? = 0

run c_ 4 0
run d_ 4 1
i=0
while [ $i -lt 50 ]; do
	values trace.transact.count trace.point.count trace.observe.count trace.counter.count > "$W/counts4"
	[ "$(only d_ < "$W/counts4" | grep -c " $((4 * N))$")" = 3 ] && break
	sleep 0.1; i=$((i + 1))
done
only c_ < "$W/counts4" > "$W/c.counts"
only d_ < "$W/counts4" > "$W/d.counts"
check "four threads, PDU path: points, observations, counters $((4 * N)), four transaction tags $N" \
	test "$(grep -c " $((4 * N))$" "$W/c.counts")" = 3 -a "$(grep -c "transact.count X_txn.* $N$" "$W/c.counts")" = 4
same "four threads: the shared segment's counts equal the PDU path's" "$W/c.counts" "$W/d.counts"
check "the agent logged no refusal" sh -c "! grep -q 'refused\|dropped' '$W/pmcd/log/trace.log'"
done_testing
