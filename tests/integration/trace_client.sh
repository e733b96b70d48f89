#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# libpcp_trace against Debian's real pmdatrace, driven by dbpmda on a
# private port (loopback only; pmdatrace is dbpmda's child and exits with
# it; no system pmcd is touched). Run A: Debian's agent on Debian's
# library, our library as the client. Run B: Debian's agent and Debian's
# pmtrace both on our library (LD_LIBRARY_PATH). Every call type must
# arrive with its tag and value, and the agent's counts must equal what
# was sent, sync and async, one and several threads.
. tests/lib/tap.sh
. tests/lib/pmcd.sh
. tests/lib/dbpmda_trace.sh
. tests/lib/debian.sh
. "${PCP_CONF:-/etc/pcp.conf}"
TOP=$(pwd)
OURLIB=$TOP/build/lib
T=$(mktemp -d /tmp/trace_client.XXXXXX)
DB=
cleanup() {
	# KEEP=1 keeps the work files (dbpmda output, agent log) for debugging
	[ -n "$KEEP" ] && cp -r "$T" /tmp/trace_keep
	[ -n "$DB" ] && kill "$DB" 2>/dev/null
	exec 3>&- 2>/dev/null
	[ -n "$DB" ] && wait "$DB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
AGENT=$PCP_PMDAS_DIR/trace/pmdatrace
USER_NAME=$(id -un)
need_debian trace_client "$AGENT" "$PCP_PMDAS_DIR/trace/pmns" /usr/bin/pmtrace \
	"$(env -u LD_LIBRARY_PATH ldd /usr/bin/pmtrace | awk '$1 == "libpcp_trace.so.2" { print $3 }')"

{ echo 'root { trace }'
  sed -n '/^trace {/,$p' "$PCP_PMDAS_DIR/trace/pmns" | sed 's/TRACE:/10:/'
} > "$T/trace.pmns"

cc -std=c11 -D_GNU_SOURCE -Wall -Werror -Iinclude -o "$T/client" \
	tests/integration/trace_client.c -L"$OURLIB" -lpcp_trace -lpthread
check "test client builds" test -x "$T/client"

# symbols: every one Debian's binaries import, at PCP_TRACE_2.0
objdump -T build/lib/libpcp_trace.so.2 | awk 'NF > 2 && $NF != "PCP_TRACE_2.0" && $(NF-1) == "PCP_TRACE_2.0" {print $NF}' | sort > "$T/ours.sym"
for b in /usr/bin/pmtrace "$AGENT"; do
	objdump -T "$b" | awk '/PCP_TRACE_2.0/ {print $NF}'
done | sort -u > "$T/needed.sym"
check "exports everything pmtrace and pmdatrace import at PCP_TRACE_2.0" \
	sh -c "[ -s '$T/needed.sym' ] && [ -z \"\$(comm -23 '$T/needed.sym' '$T/ours.sym')\" ]"
PCPLIB=$(dpkg -L libpcp-trace2 2>/dev/null | grep 'libpcp_trace\.so\.2$' | head -1)
objdump -T "${PCPLIB:-/usr/lib/libpcp_trace.so.2}" | awk 'NF > 2 && $NF != "PCP_TRACE_2.0" && $(NF-1) == "PCP_TRACE_2.0" {print $NF}' | sort > "$T/pcp.sym"
same "same exported symbols as PCP's libpcp_trace.so.2" "$T/pcp.sym" "$T/ours.sym"
check "no libpcp dependency" sh -c "! ldd build/lib/libpcp_trace.so.2 | grep -q 'libpcp\\.so'"
check "Debian's pmtrace resolves to our library" \
	sh -c "LD_LIBRARY_PATH='$OURLIB' ldd /usr/bin/pmtrace | grep -q '$OURLIB/libpcp_trace.so.2'"

# start_agent LIBDIR|"" : dbpmda + pmdatrace on a fresh port
start_agent() {
	PORT=$(pmcd_free_port)
	rm -f "$T/ctl" "$T/db.out" "$T/trace.log"
	mkfifo "$T/ctl"
	if [ -n "$1" ]; then
		LD_LIBRARY_PATH=$1 timeout 60 dbpmda -n "$T/trace.pmns" -e < "$T/ctl" > "$T/db.out" 2>&1 &
	else
		timeout 60 dbpmda -n "$T/trace.pmns" -e < "$T/ctl" > "$T/db.out" 2>&1 &
	fi
	DB=$!
	exec 3> "$T/ctl"
	echo "open pipe $AGENT -I $PORT -M $USER_NAME -l $T/trace.log" >&3
	i=0
	while [ $i -lt 50 ] && ! (exec 4<>/dev/tcp/127.0.0.1/$PORT) 2>/dev/null; do
		sleep 0.1; i=$((i + 1))
	done 2>/dev/null
	export PCP_TRACE_HOST=127.0.0.1 PCP_TRACE_PORT=$PORT
}

# stop_agent: fetch everything, quit, turn the output into "metric tag value"
stop_agent() {
	sleep 0.5
	for m in point.count observe.count observe.value counter.count counter.value \
		 transact.count transact.total_time; do
		echo "fetch trace.$m" >&3
	done
	for d in 0 1 2 3; do echo "instance 10.$d" >&3; done
	echo quit >&3
	exec 3>&-
	wait "$DB"
	DB=
	dbpmda_trace_values "$T/db.out" | sort > "$T/values"
}

# expect_run PREFIX THREADS N: the expected lines for one client run
expect_run() {
	t=0
	while [ $t -lt "$2" ]; do
		echo "point.count $1.p.$t $3"
		echo "observe.count $1.o.$t $3"
		echo "observe.value $1.o.$t $3"
		echo "counter.count $1.c.$t $3"
		echo "counter.value $1.c.$t $(($3 * 10))"
		echo "transact.count $1.t.$t $3"
		t=$((t + 1))
	done
}

# run_client LIBDIR|"" MODE THREADS N PREFIX
run_client() {
	if [ -n "$1" ]; then
		LD_LIBRARY_PATH=$1 "$T/client" "$2" "$3" "$4" "$5" > "$T/out" 2>&1
	else
		"$T/client" "$2" "$3" "$4" "$5" > "$T/out" 2>&1
	fi
	rc=$?
	expect_run "$5" "$3" "$4" >> "$T/expected"
	if [ $rc -eq 0 ]; then ok "$2 client, $3 thread(s), $([ -n "$1" ] && echo our || echo "PCP's") library: every call returned its code"
	else not_ok "$2 client, $3 thread(s): $(head -3 "$T/out")"; fi
}

compare() {
	grep -v total_time "$T/values" | sort > "$T/got"
	sort "$T/expected" > "$T/want"
	same "$1" "$T/want" "$T/got"
}

# Run A: Debian's agent and library; clients on ours (and one on PCP's)
: > "$T/expected"
start_agent ""
run_client "" sync 1 200 r0		# reference: PCP's own library
run_client "$OURLIB" sync 1 200 s1
run_client "$OURLIB" sync 4 100 s4
run_client "$OURLIB" async 1 200 a1
run_client "$OURLIB" async 4 100 a4
# 124 characters is the agent's limit: ours sends it, refuses 125 visibly
T124=$(printf '%0124d' 0 | tr 0 x)
"$TOP/build/bin/pmtrace" -q "$T124" > "$T/long.out" 2>&1
"$TOP/build/bin/pmtrace" -q "${T124}y" >> "$T/long.out" 2>&1
check "125-character tag refused with PCP's -12005 text" \
	grep -q '^pmtrace: point error: Tag name is too long (maximum 256 characters)$' "$T/long.out"
echo "point.count $T124 1" >> "$T/expected"
stop_agent
compare "run A: Debian's agent counts and values equal what was sent"
check "run A: transaction times are positive" \
	sh -c "awk '\$1 == \"transact.total_time\" && !(\$3 > 0) { bad = 1 } END { exit bad }' '$T/values'"

# Run B: Debian's agent and pmtrace on our library
: > "$T/expected"
start_agent "$OURLIB"
run_client "" sync 1 100 r0
run_client "$OURLIB" sync 4 100 s4
run_client "$OURLIB" async 4 100 a4
LD_LIBRARY_PATH=$OURLIB pmtrace -q pt.point > "$T/pmtrace.out" 2>&1
LD_LIBRARY_PATH=$OURLIB pmtrace -q -v 2.5 pt.obs >> "$T/pmtrace.out" 2>&1
LD_LIBRARY_PATH=$OURLIB pmtrace -q -c 7 pt.ctr >> "$T/pmtrace.out" 2>&1
LD_LIBRARY_PATH=$OURLIB pmtrace -q -e 'sleep 0.05' pt.tx >> "$T/pmtrace.out" 2>&1
$TOP/build/bin/pmtrace -v 4.5 pt.obs >> "$T/pmtrace.out" 2>&1
check "pmtrace (Debian's and ours) ran without error messages" \
	sh -c "! grep -q error '$T/pmtrace.out'"
check "our pmtrace prints PCP's success message" \
	grep -q '^pmtrace: observation complete (tag="pt.obs", value=4.500000)$' "$T/pmtrace.out"
cat >> "$T/expected" <<EOT
point.count pt.point 1
observe.count pt.obs 2
observe.value pt.obs 4.5
counter.count pt.ctr 1
counter.value pt.ctr 7
transact.count pt.tx 1
EOT
stop_agent
compare "run B: agent on our library, counts and values equal what was sent"
check "run B: agent log has no errors" sh -c "! grep -qi 'error' '$T/trace.log'"
# pmtrace's options and exit status: ours must behave as Debian's (no agent
# listening now, so only the command-line behaviour is compared)
pmtrace_cases() {
	for args in "-c abc t" "-c 1 -v 2 t" "-e 'exit 3' t" "-e 'kill -TERM \$\$' t" \
		    "-q -e true t" "-x t" "t extra"; do
		eval "$1 $args" > "$T/o" 2> "$T/e"
		echo "[$args] exit=$? $(grep -c . "$T/o") $(grep -o 'only one of -c, -v or -e allowed\|requires a numeric argument\|Usage' "$T/e" | head -1)"
	done
}
pmtrace_cases pmtrace > "$T/pcp.cases"
pmtrace_cases "$TOP/build/bin/pmtrace" > "$T/our.cases"
same "our pmtrace: same exit status, output and messages as Debian's" "$T/pcp.cases" "$T/our.cases"
check "pmtrace -e passes the raw wait status (SIGTERM gives 15)" grep -q 'TERM.*exit=15' "$T/our.cases"
done_testing
