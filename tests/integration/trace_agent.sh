#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Our pmda_trace against Debian's pmdatrace, each in a private pmcd, under
# the same scripted workload from PCP's own client library and pmtrace:
# the same names, PMIDs and descriptors; the same counts, values and
# window rates (-T 4 -N 2: after one sub-interval every report is in the
# window, so rate = count / 4 whatever the phase); the same reset
# behaviour. Then robustness cases for ours alone.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
W=$(mktemp -d /tmp/trace-agent.XXXXXX)
workload="$top/build/tests/integration/trace_workload_pcp"
ours="$top/build/pmdas/trace/pmdatrace"
theirs="$PCP_PMDAS_DIR/trace/pmdatrace"
trap 'pmcd_stop; rm -rf "$W"' EXIT

METRICS="trace.transact.count trace.point.count trace.observe.count trace.observe.value
trace.counter.count trace.counter.value trace.control.period trace.control.interval
trace.control.buckets trace.control.reset"
RATES="trace.transact.rate trace.point.rate trace.observe.rate trace.counter.rate"

# Our metrics PCP's agent lacks: percentiles and cumulative buckets (cluster 1),
# the OpenTelemetry spans trace.span.* (cluster 2), the OTLP receiver's
# trace.otlp.* and the memory budgets' trace.control.memory, memory_max and
# refused, the OpenTelemetry metrics' trace.otlp.points.* and
# trace.otlp.metrics.* (cluster 3); the dynamic trace.otel (empty here,
# which PCP 6.3 and later list as a name of its own)
OURS_ONLY='\.p[0-9][0-9]\(_time\)\?$\|\.bucket$\|^trace\.span\.\|^trace\.otlp\.\|^trace\.otel\|^trace\.control\.\(memory\|memory_max\|refused\)$'

# run_agent NAME BINARY: start a pmcd with that agent, run the workload,
# and save what PCP's clients see in $W/NAME.*
run_agent() {
	name=$1 bin=$2
	pmcd_init "$W/$name"
	pmcd_trace_agent "$bin" -T 4 -N 2
	if ! pmcd_start || ! pmcd_wait_port "$port"; then
		not_ok "$name: pmcd with the trace agent started and listening"
		return 1
	fi
	export PCP_TRACE_PORT=$port
	# the greeting's value (the last 4 of its 16 bytes)
	/usr/bin/python3 -c 'import socket, sys; s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); print(s.recv(16)[12:].hex())' \
		"$port" > "$W/$name.greeting" 2>&1
	# sync only: Debian's agent drops async streams at some PDU sizes (docs/trace-protocol.md §5.1)
	"$workload" sync 20 || not_ok "$name: workload ran without errors"
	pmtrace -v 2.5 aobs >/dev/null && pmtrace -c 7 actr >/dev/null && pmtrace apoint >/dev/null
	# PCP's metrics only: the percentiles (cluster 1) are ours alone (trace_pct.sh)
	pminfo -h "$PMCD_HOST" -md $(pminfo -h "$PMCD_HOST" trace | grep -v "$OURS_ONLY") \
		> "$W/$name.desc"
	# (both run under our PMNS: count the names the agent gives a descriptor)
	pminfo -h "$PMCD_HOST" -d $(pminfo -h "$PMCD_HOST" trace | grep "$OURS_ONLY") \
		2>/dev/null | grep -c 'Data Type' > "$W/$name.npct"
	pminfo -h "$PMCD_HOST" -f $METRICS > "$W/$name.values"
	pminfo -h "$PMCD_HOST" -f trace.transact.total_time | grep -c 'value 0\.' > "$W/$name.total"
	sleep 2.3
	pminfo -h "$PMCD_HOST" -f $RATES > "$W/$name.rates"
	pminfo -h "$PMCD_HOST" -f trace.transact.ave_time trace.transact.min_time \
		trace.transact.max_time | grep -c 'value' > "$W/$name.window"
	pmstore -h "$PMCD_HOST" trace.control.reset 1 > /dev/null
	pminfo -h "$PMCD_HOST" -f trace.point.count > "$W/$name.after_reset"
	pmtrace apoint >/dev/null && pmtrace newtag >/dev/null && pmtrace pt >/dev/null
	pminfo -h "$PMCD_HOST" -f trace.point.count > "$W/$name.reappear"
	pmcd_stop
}

need_debian trace_agent "$(loaded_lib "$workload" libpcp_trace.so.2)" /usr/bin/pmtrace \
	"$(loaded_lib /usr/bin/pmtrace libpcp_trace.so.2)" "$theirs"
run_agent theirs "$theirs"
run_agent ours "$ours"
check "Debian's agent greets with 1 (the PDU version)" grep -qx 00000001 "$W/theirs.greeting"
check "ours greets with 0x53440002, which PCP's client and pmtrace accepted above" \
	grep -qx 53440002 "$W/ours.greeting"
same "names, PMIDs and descriptors equal Debian's pmdatrace" "$W/theirs.desc" "$W/ours.desc"
check "Debian's has no percentile, bucket, span, receiver or budget metrics, ours its forty" \
	sh -c "grep -qx 0 '$W/theirs.npct' && grep -qx 40 '$W/ours.npct'"
same "counts, values and controls equal Debian's" "$W/theirs.values" "$W/ours.values"
check "counts are the workload's (20 transactions)" \
	grep -q '"txn"] value 20' "$W/ours.values"
same "window rates equal Debian's" "$W/theirs.rates" "$W/ours.rates"
check "window rate is count / T (20/4)" grep -q '"txn"] value 5$' "$W/ours.rates"
same "transaction totals present like Debian's" "$W/theirs.total" "$W/ours.total"
same "ave/min/max present like Debian's" "$W/theirs.window" "$W/ours.window"
same "reset empties the instance domains like Debian's" "$W/theirs.after_reset" "$W/ours.after_reset"
same "re-appearing tags keep their numbers like Debian's" "$W/theirs.reappear" "$W/ours.reappear"

# Ours alone: an async stream arrives whole (Debian's drops it partway);
# a client that sends half a PDU and stalls blocks nobody; a client
# killed mid-transaction loses nothing it delivered.
pmcd_init "$W/robust"
pmcd_trace_agent "$ours"
{ pmcd_start && pmcd_wait_port "$port"; } || not_ok "robustness pmcd started"
export PCP_TRACE_PORT=$port
# (on our client library: PCP's takes a partial write of a full socket
# buffer for success and leaves half a PDU on the wire)
LD_LIBRARY_PATH="$top/build/lib" "$workload" async 3000 || not_ok "async workload ran without errors"
# wait (up to 10 s on a loaded machine) for the agent to count them all
i=0
while [ $i -lt 100 ]; do
	pminfo -h "$PMCD_HOST" -f trace.counter.count trace.counter.value > "$W/async"
	grep -q '"ctr"] value 3000$' "$W/async" && break
	sleep 0.1
	i=$((i + 1))
done
if grep -q '"ctr"] value 3000$' "$W/async" && grep -q '"ctr"] value 30000$' "$W/async"; then
	ok "an async stream of 15,000 reports arrives whole"
else
	not_ok "an async stream of 15,000 reports arrives whole"
	sed 's/^/# /' "$W/async" "$W/robust/log/trace.log"
fi
/usr/bin/python3 - "$port" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.recv(16)
s.send(bytes.fromhex("0000001c000070510000257b01040180"))  # 16 of 28 bytes
time.sleep(6)
PY
stall=$!
sleep 0.5
start=$(date +%s%N)
timeout 4 pmtrace still_served > /dev/null
pminfo -h "$PMCD_HOST" -f trace.point.count > "$W/stall" 2>&1
end=$(date +%s%N)
check "a half-sent PDU blocks neither other clients nor pmcd" grep -q '"still_served"' "$W/stall"
check "... and the fetch took under 1 s" [ $(( (end - start) / 1000000 )) -lt 1000 ]
kill "$stall" 2>/dev/null
"$workload" die 2>/dev/null
pminfo -h "$PMCD_HOST" -f trace.point.count > "$W/death"
check "a client killed mid-transaction keeps what it delivered" grep -q '"before_death"] value 1' "$W/death"
check "... and the agent is still up" pmcd_ready
pmcd_stop

# Ours alone: -t caps the tags of each kind; a tag past the cap is refused
# with an error to a sync sender, known tags keep counting, the agent
# logs it; a bad -t value is refused with a message.
check "-t with a bad value is refused with a message" \
	sh -c "'$ours' -t 1x > '$W/badt' 2>&1; [ \$? -eq 1 ] && grep -q 'needs a number of tags' '$W/badt'"
pmcd_init "$W/cap"
pmcd_trace_agent "$ours" -t 2
{ pmcd_start && pmcd_wait_port "$port"; } || not_ok "tag-cap pmcd started"
export PCP_TRACE_PORT=$port
"$workload" points cap_a cap_b cap_c cap_a > "$W/cap/sts"
pminfo -h "$PMCD_HOST" -f trace.point.count > "$W/cap/count"
check "the tag past the cap (2) is refused to its sync sender (-ENOSPC)" grep -qx 'cap_c -28' "$W/cap/sts"
check "... while known tags succeed" sh -c "[ \$(grep -c ' 0\$' '$W/cap/sts') -eq 3 ]"
check "... and not recorded" sh -c "! grep -q cap_c '$W/cap/count'"
check "known tags keep counting" grep -q '"cap_a"] value 2$' "$W/cap/count"
check "the agent logged the refusal" grep -q "cap_c.*not recorded" "$W/cap/log/trace.log"
pmcd_stop
done_testing
