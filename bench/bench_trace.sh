#!/bin/sh
# Trace client throughput, PCP's library vs ours, against the same agent
# on a private loopback port, driven by dbpmda: first Debian's pmdatrace
# (on Debian's library), then ours. Prints one line per (mode, op,
# library), and per agent what it counted against the successful calls.
# usage: sh bench/bench_trace.sh [SECONDS]   (from the top directory)
. "${PCP_CONF:-/etc/pcp.conf}"
. tests/lib/pmcd.sh
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
	sent_point=0 sent_obs=0 sent_txn=0
	tally() {	# tally OP OK: what the agent should have counted
		case $1 in
		point) sent_point=$((sent_point + $2)) ;;
		obs) sent_obs=$((sent_obs + $2)) ;;
		txn) sent_txn=$((sent_txn + $2)) ;;
		esac
	}
	for mode in sync async; do
		for op in point obs txn; do
			for lib in pcp ours; do
				[ $lib = ours ] && export LD_LIBRARY_PATH=$TOP/build/lib
				set -- $("$BIN" $mode $op "$SECS")
				unset LD_LIBRARY_PATH
				printf '%-6s %-6s %-9s %12s %8s\n' $mode $op $lib "$3" "$4"
				tally $op "$5"
			done
		done
		# two processes at once, point events: the sum of their rates
		for lib in pcp ours; do
			[ $lib = ours ] && export LD_LIBRARY_PATH=$TOP/build/lib
			"$BIN" $mode point "$SECS" > "$T/p1" &
			other=$!
			"$BIN" $mode point "$SECS" > "$T/p2"
			wait "$other"	# not dbpmda, also a child of this shell
			unset LD_LIBRARY_PATH
			set -- $(cat "$T/p1") $(cat "$T/p2")
			printf '%-6s %-6s %-9s %12s %8s\n' $mode point "$lib x2" $(($3 + $8)) $(($4 + $9))
			tally point $(($5 + ${10}))
		done
	done
	# what the agent counted, against the successful calls of every run above
	sleep 1
	echo "fetch trace.point.count trace.observe.count trace.transact.count" >&3
	sleep 1
	echo quit >&3
	exec 3>&-
	wait "$DB"
	DB=
	echo "$label counted / successful calls: points $(counted trace.point.count) / $sent_point," \
		"observations $(counted trace.observe.count) / $sent_obs," \
		"transactions $(counted trace.transact.count) / $sent_txn"
	echo
}
counted() { grep -A1 "($1)" "$T/db.out" | sed -n 's/.*value \([0-9]*\).*/\1/p' | tail -1; }

theirs=$PCP_PMDAS_DIR/trace/pmdatrace
if ! dpkg -S "$(readlink -f "$theirs")" > /dev/null 2>&1; then
	echo "bench_trace: $theirs is not Debian's (dpkg -S); not measuring" >&2
	exit 1
fi
bench_agent debian "Debian's pmdatrace" "$theirs"
bench_agent ours "our pmda_trace" "$TOP/build/pmdas/trace/pmdatrace"
