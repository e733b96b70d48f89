#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Trace client throughput, PCP's library vs ours, against the same agent
# on a private loopback port, driven by dbpmda: first Debian's pmdatrace
# (on Debian's library), then ours. Prints one line per (mode, op,
# library), and per agent what it counted against the successful calls.
# usage: sh bench/bench_trace.sh [SECONDS]   (from the top directory)
. "${PCP_CONF:-/etc/pcp.conf}"
. tests/lib/debian.sh
. tests/lib/pmcd.sh
. tests/lib/dbpmda_trace.sh
SECS=${1:-2}
TOP=$(pwd)
BIN=$TOP/build/bench/bench_trace
[ -x "$BIN" ] || make -s -f Makefile -f bench/trace.mk build/bench/bench_trace || exit 1
T=$(mktemp -d /tmp/bench_trace.XXXXXX)
DB=
cleanup() { exec 3>&- 2>/dev/null; [ -n "$DB" ] && kill "$DB" 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT INT TERM
{ echo 'root { trace }'
  sed -n '/^trace {/,$p' "$PCP_PMDAS_DIR/trace/pmns" | sed 's/TRACE:/10:/'
} > "$T/trace.pmns"
# bench_agent SLUG LABEL BINARY: the whole set against one agent under dbpmda
bench_agent() {
	slug=$1 label=$2 agent=$3
	PORT=$(pmcd_free_port)
	rm -f "$T/ctl" "$T/db.out"
	mkfifo "$T/ctl"
	dbpmda -n "$T/trace.pmns" -e < "$T/ctl" > "$T/db.out" 2>&1 &
	DB=$!
	exec 3> "$T/ctl"
	echo "open pipe $agent -I $PORT -M $(id -un) -l $T/trace-$slug.log" >&3
	sleep 1
	export PCP_TRACE_HOST=127.0.0.1 PCP_TRACE_PORT=$PORT
	echo "agent: $label"
	printf '%-6s %-6s %-9s %12s %8s\n' mode op lib ok-calls/s failed
	sent_pcp=0 sent_ours=0
	tally() {	# tally LIB OK: what the agent should have counted
		case $1 in
		pcp) sent_pcp=$((sent_pcp + $2)) ;;
		ours) sent_ours=$((sent_ours + $2)) ;;
		esac
	}
	for mode in sync async; do
		for op in point obs txn; do
			for lib in pcp ours; do
				[ $lib = ours ] && export LD_LIBRARY_PATH=$TOP/build/lib
				set -- $("$BIN" $mode $op "$SECS" "b$lib")
				unset LD_LIBRARY_PATH
				printf '%-6s %-6s %-9s %12s %8s\n' $mode $op $lib "$3" "$4"
				tally $lib "$5"
			done
		done
		# two processes at once, point events: the sum of their rates
		for lib in pcp ours; do
			[ $lib = ours ] && export LD_LIBRARY_PATH=$TOP/build/lib
			"$BIN" $mode point "$SECS" "b$lib" > "$T/p1" &
			other=$!
			"$BIN" $mode point "$SECS" "b$lib" > "$T/p2"
			wait "$other"	# not dbpmda, also a child of this shell
			unset LD_LIBRARY_PATH
			set -- $(cat "$T/p1") $(cat "$T/p2")
			printf '%-6s %-6s %-9s %12s %8s\n' $mode point "$lib x2" $(($3 + $8)) $(($4 + $9))
			tally $lib $(($5 + ${10}))
		done
	done
	# what the agent counted, against the successful calls of every run above
	sleep 1
	echo "fetch trace.point.count trace.observe.count trace.transact.count" >&3
	for d in 0 1 2; do echo "instance 10.$d" >&3; done
	sleep 1
	echo quit >&3
	exec 3>&-
	wait "$DB"
	DB=
	echo "$label counted / successful calls: PCP's library $(counted bpcp) / $sent_pcp," \
		"ours $(counted bours) / $sent_ours"
	echo
}
# counted PREFIX: the agent's counts of every kind for the tags PREFIX.*
counted() {
	dbpmda_trace_values "$T/db.out" |
		awk -v p="$1." '$1 ~ /\.count$/ && index($2, p) == 1 { s += $3 } END { print s + 0 }'
}

theirs=$PCP_PMDAS_DIR/trace/pmdatrace
need_debian bench_trace "$theirs"
bench_agent debian "Debian's pmdatrace" "$theirs"
bench_agent ours "our pmda_trace" "$TOP/build/pmdas/trace/pmdatrace"
