#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 35: a burst of the stock OpenTelemetry Node SDK's exporters
# starting together must lose no spans. P Node processes x K exporters
# (tests/integration/otlp/burst.js: OTLPTraceExporter of
# exporter-trace-otlp-proto with its default timeout and retries), each
# exporting B batches of 512 spans of 20 attributes one after another,
# all released at one moment by a start file, against our trace agent's
# OTLP/HTTP receiver in a private pmcd (a fresh one a shape). Checks for
# each shape: no span lost (no FAILED export result); the sum of
# trace.span.count over its instances, and trace.otlp.spans.accepted, are
# the spans the SDKs exported; trace.otlp.requests["200"] is the 2xx the
# SDKs got, ["503"] + ["429"] their 503s and 429s. Then a planted
# regression: the 40 x 1 shape against the receiver's old policy (-Q 16:
# at most 16 bodies at once, 429 beyond; -R 1: Retry-After always 1 s,
# which the SDK obeys to the millisecond, so every refused exporter comes
# back in the same instant): that run must lose spans, or this test could
# not see the bug. On an agent without -Q and -R the old policy is its
# default and the options are not passed.
#
# Sizes: OTLP_BURST_SHAPES="PxKxB[:OPTIONS] ..." (default "10x4x10 40x1x64
# 40x1x16:-b,2M": the issue's 200k spans at 10 x 4, 1.3M at 40 x 1, and
# 40 x 1 again under a 2 MiB body budget, a tenth of what the load needs,
# where one request in six to ten is refused with 503 and the spread
# Retry-After: there the counters must still match what the SDKs saw,
# and their retries recover all but, in one run of five, a batch),
# OTLP_BURST_OLD="PxKxB" (default 40x1x64; "none" skips it),
# OTLP_BURST_OLD_TRIES (default 5).
# On 2 cores the Node processes (serializing 512 spans takes each some
# 25 ms of CPU), not the receiver, are the bottleneck, so the old policy
# loses far less than the issue's 73 %: 0 to 1 % of the batches a run,
# when waves of refused exporters, back together a second later, stay
# above 16 six times in a row. Hence 64 batches an exporter, about a
# minute a shape, and the old policy's run is tried again (up to 5 runs)
# when it lost nothing (2 runs of 9 lost nothing: 5 in a row, 1 in 2000).
# Figures (spans, statuses, wall and agent CPU time) are TAP comments.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
W=$(mktemp -d /tmp/otlp_burst.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
nodes=
cleanup() {
	for _p in $nodes; do kill "$_p" 2>/dev/null; done
	for _p in $nodes; do wait "$_p" 2>/dev/null; done
	nodes=
	pmcd_stop
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP PIPE

# The matrix's roots have no network and no Node: the host runs this test.
if [ -n "${SDK_IN_MATRIX:-}" ]; then
	echo "ok 1 # SKIP inside a root of make check-matrix (no network for npm, no Node); the host's make check runs it"
	echo "1..1"
	exit 0
fi

SHAPES=${OTLP_BURST_SHAPES:-"10x4x10 40x1x64 40x1x16:-b,2M"}
OLD=${OTLP_BURST_OLD:-40x1x64}
READY_S=180	# most seconds for every process to make its spans
RUN_S=300	# most seconds for a burst (the SDK gives up on a batch in 10 s)

if ! otlp_sdk_install "$W/npm.log"; then
	sed 's/^/# /' "$W/npm.log" 2>/dev/null
	not_ok "node, npm and the OpenTelemetry SDK in build/npm (npm ci)"
	done_testing
	exit 1
fi
ok "the OpenTelemetry SDK is installed in build/npm (npm ci)"

# The old admission policy: options the agent may not have yet.
old_opts=
if "$ours" -\? 2>&1 | grep -qE '^ +-Q[ ,]' && "$ours" -\? 2>&1 | grep -qE '^ +-R[ ,]'; then
	old_opts="-Q 16 -R 1"
fi
diag "old policy: ${old_opts:-the defaults of an agent without -Q and -R}"

# cpu_ticks PID: user + system time of a process, in clock ticks
cpu_ticks() {
	sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 }'
}

# metric_sum METRIC: the sum of its values over every instance (empty if none)
metric_sum() {
	pminfo -h "$PMCD_HOST" -f "$1" 2>/dev/null |
		awk '/ value / { s += $NF; n++ } END { if (n) printf "%.0f\n", s }'
}

# metric_inst METRIC NAME: the value of one instance (empty if none)
metric_inst() {
	pminfo -h "$PMCD_HOST" -f "$1" 2>/dev/null | sed -n "s|.*\"$2\"] value ||p"
}

# ready_count DIR: how many processes have made their spans (DIR/ready.*)
ready_count() {
	set -- "$1"/ready.*
	[ -e "$1" ] && echo $# || echo 0
}

# wait_all: wait for the Node processes in $nodes, at most RUN_S seconds,
# then kill what is left; returns 1 if it had to.
wait_all() {
	_end=$(( $(date +%s) + RUN_S ))
	while :; do
		_alive=
		for _p in $nodes; do kill -0 "$_p" 2>/dev/null && _alive="$_alive $_p"; done
		[ -n "$_alive" ] || break
		if [ "$(date +%s)" -ge "$_end" ]; then
			for _p in $_alive; do kill "$_p" 2>/dev/null; done
			for _p in $nodes; do wait "$_p" 2>/dev/null; done
			nodes=
			return 1
		fi
		sleep 0.2
	done
	for _p in $nodes; do wait "$_p" 2>/dev/null; done
	nodes=
	return 0
}

# burst NAME P K B [AGENT OPTIONS...]: run one shape against a fresh agent;
# leaves the SDKs' totals in $W/NAME/sdk (key=value) and the agent's
# metrics in $W/NAME/pm. Returns 1 if the burst could not run.
burst() {
	_name=$1 _P=$2 _K=$3 _B=$4
	shift 4
	_d="$W/$_name"
	oport=$(pmcd_free_port)
	pmcd_init "$_d"
	pmcd_trace_agent "$ours" -O "127.0.0.1:$oport" "$@"
	# shellcheck disable=SC2154 # port: set by pmcd_trace_agent
	if ! pmcd_start || ! pmcd_wait_port "$port" || ! pmcd_wait_port "$oport"; then
		sed 's/^/# /' "$_d/log/trace.log" 2>/dev/null
		pmcd_stop
		return 1
	fi
	_apid=$(ps -o pid= --ppid "$PMCD_PID" | while read -r _p; do
		[ "$(readlink "/proc/$_p/exe")" = "$ours" ] && echo "$_p"; done)
	mkdir -p "$_d/sync"
	_i=0
	while [ $_i -lt "$_P" ]; do
		NODE_PATH="$OTLP_SDK_PATH" node "$top/tests/integration/otlp/burst.js" \
			"http://127.0.0.1:$oport" $_i "$_K" "$_B" "$_d/sync" $((READY_S + 30)) \
			> "$_d/out.$_i" 2> "$_d/err.$_i" &
		nodes="$nodes $!"
		_i=$((_i + 1))
	done
	# every process has made its spans, then all go at once
	_end=$(( $(date +%s) + READY_S ))
	while [ "$(ready_count "$_d/sync")" -lt "$_P" ]; do
		_alive=0
		for _p in $nodes; do kill -0 "$_p" 2>/dev/null && _alive=$((_alive + 1)); done
		if [ "$(date +%s)" -ge "$_end" ] || [ "$_alive" -lt "$_P" ]; then
			diag "$_name: $(ready_count "$_d/sync") of $_P processes ready," \
				"$_alive running, after $(( $(date +%s) - _end + READY_S )) s"
			wait_all
			cat "$_d"/err.* | sort | uniq -c | sort -rn | head -10 | sed 's/^/# stderr: /'
			pmcd_stop
			return 1
		fi
		sleep 0.2
	done
	_c0=$(cpu_ticks "$_apid")
	_t0=$(date +%s.%N)
	: > "$_d/sync/go"
	wait_all || diag "$_name: processes still running after $RUN_S s were killed"
	_t1=$(date +%s.%N)
	_c1=$(cpu_ticks "$_apid")
	cat "$_d"/err.* | sort | uniq -c | sort -rn | head -5 | sed 's/^/# stderr: /'
	# the SDKs' totals over every exporter
	cat "$_d"/out.* | awk -v want=$((_P * _K)) '
		$2 ~ /^exporter=[0-9]/ { n++ }
		{ for (i = 1; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "ms") { if (kv[2] > ms) ms = kv[2] }
			else if (kv[1] == "rss_mb") { if (kv[2] > rss) rss = kv[2] }
			else if (kv[1] != "proc" && kv[1] != "exporter") t[kv[1]] += kv[2] } }
		END { t["reports"] = n; t["want"] = want; t["slowest_ms"] = ms + 0; t["rss_mb"] = rss + 0
			for (k in t) print k "=" t[k] }' | sort > "$_d/sdk"
	awk -v t0="$_t0" -v t1="$_t1" -v c0="${_c0:-0}" -v c1="${_c1:-0}" -v hz="$(getconf CLK_TCK)" \
		'BEGIN { printf "wall_s=%.1f\nagent_cpu_s=%.2f\n", t1 - t0, (c1 - c0) / hz }' >> "$_d/sdk"
	pminfo -h "$PMCD_HOST" -f trace.otlp.requests trace.otlp.spans.accepted \
		trace.otlp.spans.rejected trace.otlp.bytes trace.otlp.inflight \
		trace.otlp.buffered > "$_d/pm" 2>&1
	{
		echo "span_count=$(metric_sum trace.span.count)"
		echo "accepted=$(metric_sum trace.otlp.spans.accepted)"
		echo "rejected=$(metric_sum trace.otlp.spans.rejected)"
		echo "bytes=$(metric_sum trace.otlp.bytes)"
		for _c in 200 400 404 405 413 415 429 500 503; do
			echo "r$_c=$(metric_inst trace.otlp.requests "$_c")"
		done
		echo "inflight=$(metric_sum trace.otlp.inflight)"
		echo "buffered=$(metric_sum trace.otlp.buffered)"
	} > "$_d/agent"
	pmcd_stop
	return 0
}

# get NAME FILE KEY: a key's value (0 when absent in the SDK's totals)
get() {
	_v=$(sed -n "s/^$3=//p" "$W/$1/$2")
	if [ "$2" = sdk ]; then echo "${_v:-0}"; else echo "$_v"; fi
}

# report NAME: the figures of a shape as TAP comments
report() {
	diag "$1: $(get "$1" sdk reports) of $(get "$1" sdk want) exporters reported," \
		"$(get "$1" sdk batches) batches," \
		"spans exported $(get "$1" sdk exported), lost $(get "$1" sdk lost)"
	diag "$1: SDK requests $(get "$1" sdk requests):" \
		"$(grep '^code_' "$W/$1/sdk" | sed 's/^code_//' | tr '\n' ' ')no answer=$(get "$1" sdk noresp)"
	diag "$1: wall $(get "$1" sdk wall_s) s (slowest exporter $(get "$1" sdk slowest_ms) ms)," \
		"agent CPU $(get "$1" sdk agent_cpu_s) s, largest Node RSS $(get "$1" sdk rss_mb) MB"
	diag "$1: agent: trace.span.count sum $(get "$1" agent span_count)," \
		"trace.otlp.spans.accepted $(get "$1" agent accepted)" \
		"rejected $(get "$1" agent rejected), bytes $(get "$1" agent bytes)," \
		"requests 200=$(get "$1" agent r200) 429=$(get "$1" agent r429) 503=$(get "$1" agent r503)" \
		"413=$(get "$1" agent r413) 500=$(get "$1" agent r500)"
}

for shape in $SHAPES; do
	# PxKxB, or PxKxB:OPTIONS with the agent's options comma-separated
	opts=
	case $shape in *:*) opts=$(echo "${shape#*:}" | tr ',' ' ') shape=${shape%%:*} ;; esac
	P=${shape%%x*} rest=${shape#*x}
	K=${rest%%x*} B=${rest#*x}
	name="burst_${P}x${K}${opts:+_$(echo "$opts" | tr -d ' -')}"
	# shellcheck disable=SC2086 # options, word-split on purpose
	if ! burst "$name" "$P" "$K" "$B" $opts; then
		not_ok "$name: the burst of $P x $K exporters ran"
		continue
	fi
	report "$name"
	exp=$(get "$name" sdk exported)
	s2xx=$(awk -F= '/^code_2/ { s += $2 } END { print s + 0 }' "$W/$name/sdk")
	refused=$(( $(get "$name" sdk code_503) + $(get "$name" sdk code_429) ))
	check "$name: every exporter reported, $B batches of 512 spans each" \
		test "$(get "$name" sdk reports)/$(get "$name" sdk batches)" = \
			"$((P * K))/$((P * K * B))"
	if [ -z "$opts" ]; then
		check "$name: no span lost ($(get "$name" sdk lost) of $((P * K * B * 512)) FAILED)" \
			test "$(get "$name" sdk lost)/$exp" = "0/$((P * K * B * 512))"
	else
		# a budget far below the load: refusals are the point, and an
		# exporter refused six times in a row may give a batch up; what
		# it gave up is what the agent refused, seen in its counters
		check "$name: the agent refused requests ($refused), and the SDKs' exported + lost spans are all they made" \
			test "$refused" -gt 0 -a "$(( exp + $(get "$name" sdk lost) ))" = "$((P * K * B * 512))"
	fi
	check "$name: trace.span.count over its instances = spans exported ($exp)" \
		test "$(get "$name" agent span_count)" = "$exp"
	check "$name: trace.otlp.spans.accepted = spans exported ($exp), none rejected" \
		test "$(get "$name" agent accepted)/$(get "$name" agent rejected)" = "$exp/0"
	check "$name: trace.otlp.requests[\"200\"] = the SDKs' 2xx ($s2xx)" \
		test "$(get "$name" agent r200)" = "$s2xx"
	check "$name: trace.otlp.requests[\"503\"] + [\"429\"] = the SDKs' 503s and 429s ($refused)" \
		test "$(( $(get "$name" agent r503 | grep . || echo -1000000) + $(get "$name" agent r429 | grep . || echo -1000000) ))" = "$refused"
done

# The planted regression: the old policy must lose spans at 40 x 1. On
# 2 cores a run of it loses a few batches or, now and then, none: up to
# OLD_TRIES runs, until one loses.
OLD_TRIES=${OTLP_BURST_OLD_TRIES:-5}
if [ "$OLD" != none ]; then
	P=${OLD%%x*} rest=${OLD#*x}
	K=${rest%%x*} B=${rest#*x}
	try=1
	ran=
	while [ $try -le "$OLD_TRIES" ]; do
		name="old_${P}x${K}_run$try"
		# shellcheck disable=SC2086 # two options, word-split on purpose
		if burst "$name" "$P" "$K" "$B" $old_opts; then
			ran=$name runs=$try
			report "$name"
			[ "$(get "$name" sdk lost)" -eq 0 ] || break
		fi
		try=$((try + 1))
	done
	if [ -n "$ran" ]; then
		check "old_${P}x${K}: the old policy (${old_opts:-defaults}) loses spans, as issue 35 reported ($(get "$ran" sdk lost) lost in run $runs of at most $OLD_TRIES)" \
			test "$(get "$ran" sdk lost)" -gt 0
		check "old_${P}x${K}: and the agent answered 429s (trace.otlp.requests[\"429\"] = $(get "$ran" agent r429))" \
			test "$(get "$ran" agent r429 | grep . || echo 0)" -gt 0
	else
		not_ok "old_${P}x${K}: the burst of $P x $K exporters ran"
	fi
fi
done_testing
