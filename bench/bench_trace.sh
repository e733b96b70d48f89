#!/bin/sh
# Trace client throughput, PCP's library vs ours, against the same real
# pmdatrace (Debian's, on Debian's library) on a private loopback port,
# driven by dbpmda. Prints one line per (mode, op, library).
# usage: sh bench/bench_trace.sh [SECONDS]   (from the top directory)
. "${PCP_CONF:-/etc/pcp.conf}"
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
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkfifo "$T/ctl"
dbpmda -n "$T/trace.pmns" -e < "$T/ctl" > "$T/db.out" 2>&1 &
DB=$!
exec 3> "$T/ctl"
echo "open pipe $PCP_PMDAS_DIR/trace/pmdatrace -I $PORT -M $(id -un) -l $T/trace.log" >&3
sleep 1
export PCP_TRACE_HOST=127.0.0.1 PCP_TRACE_PORT=$PORT
printf '%-6s %-6s %-5s %12s %8s\n' mode op lib ok-calls/s failed
for mode in sync async; do
	for op in point obs txn; do
		set -- $("$BIN" $mode $op "$SECS")
		printf '%-6s %-6s %-5s %12s %8s\n' $mode $op pcp "$3" "$4"
		set -- $(LD_LIBRARY_PATH=$TOP/build/lib "$BIN" $mode $op "$SECS")
		printf '%-6s %-6s %-5s %12s %8s\n' $mode $op ours "$3" "$4"
	done
done
echo quit >&3
