#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The OTLP/HTTP receiver (docs/trace-protocol.md §12) under hostile clients,
# with the trace agent built with ASan and UBSan (build/san/pmdas/trace/
# pmdatrace) in a private pmcd: a compression bomb, AnyValue nested 100,000
# deep, a million empty spans, OpenTelemetry metrics (histograms of
# 900,000 buckets past the byte budget, a million points of one counter
# past its series cap, a million attribute sets over 1,000 counters past
# the budget), 64 MiB bodies, slow and half-open connections, a flood of
# connections (tests/integration/otlp_hostile.py, which checks each answer). Throughout, a PMAPI client fetches trace.*
# through pmcd; every fetch must be answered within 100 ms. That bound is
# a liveness check, not a speed one (speed is the benchmarks' business): a
# fetch takes about a millisecond, and 100 ms, a hundred times that, is
# only reached when the agent's PDU loop is blocked behind the receiver
# (issue 30: "the pmcd-facing PDU loop answering fetches within 100 ms
# throughout"). At the end the agent is the same process, pmcd serves
# trace.*, and the sanitizers reported nothing.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/otlp_hostile.XXXXXX)
san="$top/build/san/pmdas/trace/pmdatrace"
fetcher=
trap '[ -z "$fetcher" ] || kill "$fetcher" 2>/dev/null; pmcd_stop; rm -rf "$W"' EXIT

# Any report goes to a log of its own (ASAN_OPTIONS and UBSAN_OPTIONS reach
# the agent through pmcd's environment) and ends the agent: the test fails
# on a log or on a new process.
export ASAN_OPTIONS="log_path=$W/asan:halt_on_error=1:detect_leaks=1:abort_on_error=0"
export UBSAN_OPTIONS="log_path=$W/ubsan:halt_on_error=1:print_stacktrace=1"
# LeakSanitizer runs where the agent exits normally at the end (PCP 6.3,
# 7.2); what PCP's libraries keep for the process's life is not ours
export LSAN_OPTIONS="suppressions=$top/tests/lib/lsan_pcp.supp:print_suppressions=0"

if [ ! -x "$san" ]; then
	not_ok "the sanitizer build of the agent is built ($san: make check builds it)"
	done_testing
	exit 1
fi
pmcd_init "$W/pmcd"
oport=$(pmcd_free_port)
# -k 15: idle connections closed after 15 s (65 by default), so the slow
# and half-open clients' closes come within the test's waits
pmcd_trace_agent "$san" -O "127.0.0.1:$oport" -k 15
if ! pmcd_start || ! pmcd_wait_port "$port" || ! pmcd_wait_port "$oport"; then
	not_ok "pmcd with the ASan agent and its OTLP receiver on port $oport"
	sed 's/^/# /' "$W/pmcd/log/trace.log" "$W"/asan.* "$W"/ubsan.* 2>/dev/null
	done_testing
	exit 1
fi
apid=$(ps -o pid= --ppid "$PMCD_PID" | while read -r p; do
	[ "$(readlink "/proc/$p/exe")" = "$san" ] && echo "$p"; done)
check "pmcd with the ASan agent (pid $apid) and its OTLP receiver on port $oport" test -n "$apid"

/usr/bin/python3 tests/integration/otlp_hostile.py fetch "$PMCD_HOST" "$W/fetch.log" \
	2> "$W/fetch.err" &
fetcher=$!
sleep 0.5
check "the fetcher fetches trace.* through pmcd" test -s "$W/fetch.log"

/usr/bin/python3 tests/integration/otlp_hostile.py drive "$PMCD_HOST" "$oport" "$apid" \
	"$W/fetch.log" > "$W/results" 2> "$W/drive.err"
rc=$?
kill "$fetcher" 2>/dev/null
wait "$fetcher" 2>/dev/null
fetcher=
while IFS= read -r line; do
	case $line in
	"PASS "*) ok "${line#PASS }" ;;
	"FAIL "*) not_ok "${line#FAIL }" ;;
	*) echo "$line" ;;
	esac
done < "$W/results"
check "the driver ran to its end" test "$rc" = 0
[ "$rc" = 0 ] || sed 's/^/# /' "$W/drive.err" | tail -20
sed 's/^/# fetcher: /' "$W/fetch.err" | tail -5

check "the agent is the process it was (pid $apid, not restarted)" \
	test "$(ps -o pid= --ppid "$PMCD_PID" | tr -d ' ' | grep -x "$apid")" = "$apid"
check "the agent's log: no complaint of libmicrohttpd's about its options" \
	sh -c "! grep -q 'is not the first option' '$W/pmcd/log/trace.log'"
check "pmcd serves trace.* (trace.control.port, trace.span.count)" \
	sh -c "pminfo -h '$PMCD_HOST' -f trace.control.port | grep -q 'value $port' &&
		pminfo -h '$PMCD_HOST' -f trace.span.count | grep -q '\"good:unspecified/ok\"'"
diag "agent's peak RSS (VmHWM, since the last reset): $(sed -n 's/^VmHWM:[[:space:]]*//p' /proc/"$apid"/status)"
# the agent exits with pmcd: the leak check runs then
pmcd_stop
i=0
while [ -d "/proc/$apid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
reports=$(find "$W" -maxdepth 1 \( -name 'asan.*' -o -name 'ubsan.*' \) -type f)
if [ -n "$reports" ]; then
	not_ok "ASan and UBSan reported nothing ($(echo $reports | wc -w) reports)"
	cat $reports | sed 's/^/# /' | head -60
else
	ok "ASan and UBSan reported nothing"
fi
done_testing
