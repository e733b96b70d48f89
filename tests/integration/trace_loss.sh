#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing lost in silence (issue: libpcp_trace beside Debian's pmdatrace).
# Async (and sync) floods from processes on our libpcp_trace, against
# Debian's pmdatrace (on Debian's library), against our pmda_trace, and
# against Debian's pmdatrace running on our library with PCP's client
# library as the client: every call that returned success must be counted
# by the agent, for 1, 2 and 10 processes, tags of 1 to 124 characters,
# and processes that exit, _exit or are killed right after their last
# call. Each agent runs in a private pmcd on a loopback port.
# TRACE_LOSS_ROUNDS (default 2) repeats the whole set against Debian's
# agent; TRACE_LOSS_PRESSURE (default 20) is the runs of the pressure loop
# against ours and of PCP's client against Debian's agent on our library;
# TRACE_LOSS_N (default 100000) is the events per process.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
W=$(mktemp -d /tmp/trace-loss.XXXXXX)
flood="$top/build/tests/integration/trace_flood_pcp"
ours="$top/build/pmdas/trace/pmdatrace"
theirs="$PCP_PMDAS_DIR/trace/pmdatrace"
OURLIB="$top/build/lib"
ROUNDS=${TRACE_LOSS_ROUNDS:-2}
N=${TRACE_LOSS_N:-100000}
PRESSURE_RUNS=${TRACE_LOSS_PRESSURE:-20}
trap 'pmcd_stop; rm -rf "$W"' EXIT

# Tags of 1, 7, 32, 61 and 124 characters: PDUs of every size class.
T1=a
T7=abcdefg
T32=$(printf '%032d' 0 | tr 0 b)
T61=$(printf '%061d' 0 | tr 0 c)
T124=$(printf '%0124d' 0 | tr 0 d)

need_debian trace_loss "$theirs" "$(loaded_lib "$flood" libpcp_trace.so.2)"

# start_agent NAME BINARY [LIBDIR]: pmcd with that trace agent
start_agent() {
	pmcd_init "$W/$1"
	pmcd_trace_agent "$2"
	if [ -n "$3" ]; then
		LD_LIBRARY_PATH=$3 pmcd_start && pmcd_wait_port "$port"
	else
		pmcd_start && pmcd_wait_port "$port"
	fi || { not_ok "$1: pmcd with the trace agent started"; return 1; }
	export PCP_TRACE_HOST=127.0.0.1 PCP_TRACE_PORT=$port
}

# counted METRIC PREFIX: the sum over instances whose tag starts with PREFIX
counted() {
	pminfo -h "$PMCD_HOST" -f "trace.$1" 2>/dev/null |
		awk -v p="$2" '$1 == "inst" && index($0, "\"" p) { s += $NF } END { print s + 0 }'
}

# settle METRIC PREFIX WANT: wait (up to 20 s) until the count reaches WANT
# or stops moving, and print it
settle() {
	last=-1 i=0
	while [ $i -lt 40 ]; do
		got=$(counted "$1" "$2")
		[ "$got" -ge "$3" ] && break
		[ "$got" = "$last" ] && [ $i -ge 4 ] && break
		last=$got i=$((i + 1))
		sleep 0.5
	done
	echo "$got"
}

# flood_case AGENT LIB MODE KIND PROCS N EXIT PREFIX: PROCS processes,
# each N events over the five tag lengths (prefixed), then compare.
flood_case() {
	agent=$1 lib=$2 mode=$3 kind=$4 procs=$5 n=$6 how=$7 pre=$8
	: > "$W/out"
	p=0 pids=
	while [ $p -lt "$procs" ]; do
		if [ -n "$lib" ]; then
			LD_LIBRARY_PATH=$lib "$flood" "$mode" "$kind" "$n" "$how" \
				"$pre$p$T1" "$pre$p$T7" "$pre$p$T32" "$pre$p$T61" \
				"$(echo "$pre$p$T124" | cut -c1-124)" >> "$W/out" 2>> "$W/err" &
		else
			"$flood" "$mode" "$kind" "$n" "$how" "$pre$p$T1" "$pre$p$T7" \
				"$pre$p$T32" "$pre$p$T61" \
				"$(echo "$pre$p$T124" | cut -c1-124)" >> "$W/out" 2>> "$W/err" &
		fi
		pids="$pids $!"
		p=$((p + 1))
	done
	wait $pids 2>/dev/null	# not pmcd (also a child); no "Killed" lines
	sent=$(awk '{ s += $2 } END { print s + 0 }' "$W/out")
	eagain=$(awk '{ s += $4 } END { print s + 0 }' "$W/out")
	other=$(awk '{ s += $6 } END { print s + 0 }' "$W/out")
	lost=$(awk '$8 > 0 { s += $8 } END { print s + 0 }' "$W/out")
	case $kind in point) m=point.count ;; obs) m=observe.count ;; txn) m=transact.count ;; esac
	got=$(settle "$m" "$pre" "$sent")
	what="$agent: $mode $kind, $procs x $n, $how: counted $got of $sent successful calls ($eagain EAGAIN, $other other errors, $lost reported lost)"
	if [ "$got" -eq "$sent" ] && [ "$sent" -gt 0 ] && [ "$other" -eq 0 ] && [ "$lost" -eq 0 ]; then
		ok "$what"
	else
		not_ok "$what"
		sed 's/^/# /' "$W/err" | sort | uniq -c | head -5
		tail -5 "$PMCD_DIR/log/trace.log" | sed 's/^/# agent: /'
	fi
	: > "$W/err"
	echo "$agent $mode $kind $procs $n $how $sent $got $eagain" >> "$W/summary"
}

# the full set against one agent; LIB is the client's library
flood_set() {
	agent=$1 lib=$2 r=$3
	flood_case "$agent" "$lib" async point 1 "$N" exit "r${r}a"
	flood_case "$agent" "$lib" async point 2 "$N" exit "r${r}b"
	flood_case "$agent" "$lib" async point 10 "$N" exit "r${r}c"
	flood_case "$agent" "$lib" async obs 2 "$N" exit "r${r}d"
	flood_case "$agent" "$lib" async txn 2 "$((N / 2))" exit "r${r}e"
	flood_case "$agent" "$lib" sync point 2 2000 exit "r${r}f"
	for k in 1 2 3 4 5; do
		flood_case "$agent" "$lib" async point 1 20000 _exit "r${r}g$k"
		flood_case "$agent" "$lib" async obs 1 20000 kill "r${r}h$k"
	done
}

start_agent theirs "$theirs" && {
	r=1
	while [ $r -le "$ROUNDS" ]; do
		flood_set "Debian's pmdatrace, our client" "$OURLIB" "$r"
		r=$((r + 1))
	done
	pmcd_stop
}
start_agent ours "$ours" && {
	flood_set "our pmda_trace, our client" "$OURLIB" 1
	# 20 runs with the kernel buffers full (10 writers): EAGAIN, no loss
	r=1
	while [ $r -le "$PRESSURE_RUNS" ]; do
		flood_case "our pmda_trace, our client, under pressure" "$OURLIB" \
			async point 10 "$((N / 2))" exit "r${r}x"
		r=$((r + 1))
	done
	pmcd_stop
}
# Debian's agent binary on our library (its __pmtrace* calls), PCP's
# client. PCP's library resets its connection at exit (SO_LINGER 0), so
# the kernel discards what it had not yet transmitted: that loss is the
# client's, with any agent; these clients wait a second before exiting.
start_agent theirs-ourlib "$theirs" "$OURLIB" && {
	r=1
	while [ $r -le "$PRESSURE_RUNS" ]; do
		flood_case "Debian's pmdatrace on our library, PCP's client" "" \
			async point 2 20000 linger "r${r}p"
		r=$((r + 1))
	done
	flood_case "Debian's pmdatrace on our library, PCP's client" "" sync obs 2 2000 exit q
	pmcd_stop
}
[ -n "$KEEP" ] && cp "$W/summary" /tmp/trace-loss.summary
done_testing
