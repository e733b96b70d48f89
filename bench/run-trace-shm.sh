#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# ns per trace call (make bench): our pmda_trace in a private pmcd, and
# build/bench/bench_trace_shm on three client paths in one run: PCP's
# libpcp_trace (Debian's, async PDUs), ours with PCP_TRACE_SHM=0 (async
# PDUs) and ours with the shared segment (sync: the default; no round trip
# on this path), then ours through tag handles (bench_trace_shm_ours).
# Prints a Markdown table (median and fastest of TRACE_SHM_BLOCKS timed
# blocks, default 9; bench_trace_shm.c); reports, never asserts.
# usage: sh bench/run-trace-shm.sh [CALLS]   (from the top directory)
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
BIN=$top/build/bench/bench_trace_shm
N=${1:-${TRACE_SHM_CALLS:-2000000}}
W=$(mktemp -d /tmp/bench-trace-shm.XXXXXX)
trap 'pmcd_stop; rm -rf "$W"' EXIT INT TERM
unset LD_LIBRARY_PATH LD_PRELOAD
need_debian run-trace-shm "$(loaded_lib "$BIN" libpcp_trace.so.2)"
pmcd_init "$W/pmcd"
pmcd_trace_agent "$top/build/pmdas/trace/pmdatrace"
pmcd_start && pmcd_wait_port "$port" || { echo "run-trace-shm: agent did not start" >&2; exit 1; }
export PCP_TRACE_HOST=localhost PCP_TRACE_PORT=$port

# one PATH MODE OP THREADS CALLS: "median/min failed" (PCP's calls are 1000x slower: fewer)
one() {
	case $1 in
	pcp) "$BIN" "$2" "$3" "$4" "$5" ;;
	pdu) PCP_TRACE_SHM=0 LD_LIBRARY_PATH=$top/build/lib "$BIN" "$2" "$3" "$4" "$5" ;;
	shm) LD_LIBRARY_PATH=$top/build/lib "$BIN" "$2" "$3" "$4" "$5" ;;
	handle) LD_LIBRARY_PATH=$top/build/lib "${BIN}_ours" "$2" "$3" "$4" "$5" ;;
	esac | awk '{ printf "%s/%s %s", $3, $6, $4 }'
}
# a cell: "median / min"
ns() { r=${1% *}; echo "${r%/*} / ${r#*/}"; }
echo "Each thread's calls in ${TRACE_SHM_BLOCKS:-9} timed blocks: ns per call, median / fastest block."
echo
echo "| case | PCP's library (async PDUs) | ours, PDU path (async) | ours, shared segment | failed calls (PCP / PDU / segment) |"
echo "|---|---|---|---|---|"
for c in "point 1" "obs 1" "txn 1" "point 2" "obs 2" "txn 2"; do
	set -- $c
	p=$(one pcp async "$1" "$2" $((N / 100)))
	d=$(one pdu async "$1" "$2" $((N / 10)))
	s=$(one shm sync "$1" "$2" "$N")
	label="\`$1\`, $2 thread$([ "$2" = 1 ] || echo s)$([ "$2" = 1 ] || echo ', one tag')"
	[ "$1" = txn ] && label="\`pmtracebegin\`+\`pmtraceend\`, $2 thread$([ "$2" = 1 ] || echo 's, a tag each')"
	echo "| $label, ns | $(ns "$p") | $(ns "$d") | $(ns "$s") | ${p#* } / ${d#* } / ${s#* } |"
done
for t in 1 2; do
	s=$(one shm sync clock $t "$N")
	echo "| two \`clock_gettime(CLOCK_MONOTONIC)\`, no trace call (begin+end's floor), $t thread$([ $t = 1 ] || echo s), ns | | | $(ns "$s") | - / - / ${s#* } |"
done
for c in "hpoint 1" "hobs 1" "hpoint 2"; do
	set -- $c
	s=$(one handle sync "$1" "$2" "$N")
	echo "| tag handle, \`${1#h}\`, $2 thread$([ "$2" = 1 ] || echo 's, one handle'), ns | | | $(ns "$s") | - / - / ${s#* } |"
done
