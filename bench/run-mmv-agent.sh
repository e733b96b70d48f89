#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# MMV agent head-to-head (part of make bench): Debian's pmdammv and ours,
# each as a DSO and as a daemon in a private pmcd, serving 1, 10 and 100
# files of 1,000 metrics (bench_mmv_agent.c says what is timed). Both
# pmcds run at once and the client takes turns between them, round after
# round, so the ratio is of the same moments; a third pmcd runs
# bench/floor_pmda.c, the cheapest agent libpcp_pmda allows (it reads no
# file), in the same mode: what pmcd, the client (and the pipe) cost any
# agent.
# Then, one agent at a time, the first fetch after one file is rewritten
# (the agent rescans; median of 5, and the first). Printed: one table of
# every case, then per daemon case the ratio an agent costing nothing
# would reach against Debian's daemon.
# MMV_BENCH_FILES, MMV_BENCH_MODES and MMV_BENCH_REPS narrow a run.
# MMV_BENCH_THEIRS=PATH puts another daemon in Debian's column (ours as
# built otherwise, say: build/bench/pmdammv_rcu_calls); run it with
# MMV_BENCH_MODES=daemon.
cd "$(dirname "$0")/.."
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
[ -n "${MMV_BENCH_THEIRS:-}" ] ||
	need_debian run-mmv-agent "$PCP_PMDAS_DIR/mmv/pmda_mmv.so" "$PCP_PMDAS_DIR/mmv/pmdammv"
need_debian run-mmv-agent "$PCP_VAR_DIR/pmns/root_mmv"
W=$(mktemp -d /tmp/mmv-bench.XXXXXX)
trap 'stop_all; rm -rf "$W"' EXIT INT TERM
out=build/bench
reps=${MMV_BENCH_REPS:-200}
started=

# start TAG MODE AGENT NFILES: a pmcd in $W/TAG serving NFILES files with
# AGENT (a .so for MODE dso, a binary for daemon); appends TAG=HOST to
# $hosts and the pid whose CPU is the agent's to $pids
start() {
	pmcd_init "$W/$1"
	"$out/mmv_files" 0 "$4" || exit 1
	if [ "$2" = dso ]; then
		pmcd_agent mmv 70 dso mmv_init "$3"
	else
		pmcd_agent mmv 70 pipe binary "$3" -d 70 -U "$(id -un)" -l "$W/$1/log/mmv.log"
	fi
	pmcd_pmns "$PCP_VAR_DIR/pmns/root_mmv"
	pmcd_start || { echo "run-mmv-agent: pmcd with $3 did not start" >&2; exit 1; }
	started="$started $PMCD_PID"
	hosts="$hosts${hosts:+,}$1=$PMCD_HOST"
	# whose CPU is the agent's: pmcd's for a DSO, the daemon's own
	cpu_pid=$PMCD_PID
	[ "$2" = daemon ] && cpu_pid=$(pgrep -P "$PMCD_PID" -f "$3" | head -1)
	pids="$pids${pids:+,}$cpu_pid"
}

stop_all() {
	for PMCD_PID in $started; do
		pmcd_stop
	done
	started=
	rm -rf "$W"/theirs "$W"/ours "$W"/floor
}

# timed MODE NFILES THEIRS OURS [FLOOR]: the agents' pmcds at once, the
# client turning about between them
timed() {
	hosts= pids=
	start theirs "$1" "$3" "$2"
	start ours "$1" "$4" "$2"
	[ -n "$5" ] && start floor "$1" "$5" "$2"
	MMV_BENCH_CPU_PIDS=$pids "$out/bench_mmv_agent" "$hosts" "$2" "$reps" |
		sed "s/ / $1_/" >> "$W/all.out"
	stop_all
}

# rescans MODE TAG AGENT NFILES: five times, one file rewritten, then the
# next fetch timed. While the fetch runs this shell waits in read, a
# builtin: a process started meanwhile (a grep, a sleep) made the rescan
# inside pmcd twice as long on this VM.
rescans() {
	hosts= pids=
	start "$2" "$1" "$3" "$4"
	mkfifo "$W/go" "$W/rd"
	MMV_BENCH_CPU_PIDS=$pids "$out/bench_mmv_agent" "$hosts" "$4" 0 \
		< "$W/go" > "$W/rd" &
	driver=$!
	exec 4> "$W/go" 5< "$W/rd"
	r=0
	while [ $r -lt 5 ]; do
		r=$((r + 1))
		ready=
		while read -r line <&5; do
			[ "$line" = ready ] && { ready=1; break; }
			echo "$line" >> "$W/rescan.out"
		done
		[ -n "$ready" ] || break	# the client stopped (it says why)
		sleep 1.1	# a new directory mtime second (Debian's compares seconds)
		PCP_TMP_DIR=$W/$2/tmp "$out/mmv_files" $(($4 / 2)) 1
		echo go >&4
	done
	exec 4>&-
	while read -r line <&5; do
		[ "$line" = ready ] || echo "$line" >> "$W/rescan.out"
	done
	exec 5<&-
	wait "$driver"	# not pmcd, also a child of this shell
	sed "s/ / $1_/" "$W/rescan.out" >> "$W/all.out"
	rm -f "$W/go" "$W/rd" "$W/rescan.out"
	stop_all
}

: > "$W/all.out"
theirs_dir=$PCP_PMDAS_DIR/mmv
for mode in ${MMV_BENCH_MODES:-dso daemon}; do
	[ $mode = dso ] && t=$theirs_dir/pmda_mmv.so o=$top/build/lib/pmda_mmv.so \
		floor=$top/build/bench/floor_pmda.so
	[ $mode = daemon ] && t=${MMV_BENCH_THEIRS:-$theirs_dir/pmdammv} \
		o=$top/build/pmdas/mmv/pmdammv floor=$top/build/bench/floor_pmda
	for n in ${MMV_BENCH_FILES:-1 10 100}; do
		timed $mode $n "$t" "$o" $floor
		rescans $mode theirs "$t" $n
		rescans $mode ours "$o" $n
	done
done
for who in theirs ours floor; do
	awk -v w=$who '$1 == w { $1 = ""; sub(/^ /, ""); print }' "$W/all.out" \
		> "$out/mmv_agent.$who.out"
done

val() { awk -v k="$2" '$1 == k { print $3 }' "$out/mmv_agent.$1.out"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf("%.2f", b / a); else print "–" }'; }
echo "| MMV agent case (through pmcd) | Debian pmdammv, us | ours, us | ours/Debian | floor, us | floor/Debian |"
echo "|---|---:|---:|---:|---:|---:|"
row() {	# row KEY THEIRS OURS FLOOR
	echo "| $1 | ${2:-n/a} | ${3:-n/a} | $(ratio "$2" "$3") | ${4:-n/a} | $(ratio "$2" "$4") |"
}
rest() { awk -v a="$(val $1 $2)" -v b="$(val $1 ${2}_cpu)" 'BEGIN { if (a != "") printf("%.1f", a - b) }'; }
for key in $(awk '{ print $1 }' "$out/mmv_agent.ours.out"); do
	row $key "$(val theirs $key)" "$(val ours $key)" "$(val floor $key)"
	# a daemon's wall time less its CPU: pmcd, the client and the pipe,
	# which no agent can make shorter
	case $key in daemon_*_cpu) ;; daemon_*)
		row ${key}_rest "$(rest theirs $key)" "$(rest ours $key)" "$(rest floor $key)" ;;
	esac
done
# What an agent costing nothing would reach against Debian's daemon: its
# wall time less its own CPU (the `_rest` row), over its wall time. A
# bound on every daemon's ratio, ours and the floor's alike.
echo
echo "| daemon case | Debian pmdammv, us | less its CPU, us | an agent costing nothing/Debian |"
echo "|---|---:|---:|---:|"
for key in $(awk '$1 ~ /^daemon_/ && $1 !~ /_cpu$/ && $1 !~ /^daemon_rescan/ { print $1 }' \
		"$out/mmv_agent.theirs.out"); do
	r=$(rest theirs $key)
	[ -n "$r" ] && echo "| ${key}_bound | $(val theirs $key) | $r | $(ratio "$(val theirs $key)" "$r") |"
done
