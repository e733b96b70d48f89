#!/bin/sh
# MMV agent head-to-head (part of make bench): Debian's pmdammv and ours,
# each as a DSO and as a daemon in a private pmcd, serving 1, 10 and 100
# files of 1,000 metrics (bench_mmv_agent.c says what is timed), and the
# first fetch after one file is rewritten (the agent rescans; median of 5).
# MMV_BENCH_FILES, MMV_BENCH_MODES and MMV_BENCH_REPS narrow a run.
cd "$(dirname "$0")/.."
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
need_debian run-mmv-agent "$PCP_PMDAS_DIR/mmv/pmda_mmv.so" "$PCP_VAR_DIR/pmns/root_mmv"
W=$(mktemp -d /tmp/mmv-bench.XXXXXX)
trap 'pmcd_stop; rm -rf "$W"' EXIT INT TERM
out=build/bench
reps=${MMV_BENCH_REPS:-200}
rm -f "$out/mmv_agent.theirs.out.new" "$out/mmv_agent.ours.out.new"

run() {	# run MODE AGENT NFILES: MODE dso (AGENT a .so) or daemon (a binary)
	rm -rf "$W/run"
	pmcd_init "$W/run"
	"$out/mmv_files" 0 "$3" || exit 1
	if [ "$1" = dso ]; then
		pmcd_agent mmv 70 dso mmv_init "$2"
	else
		pmcd_agent mmv 70 pipe binary "$2" -d 70 -U "$(id -un)" -l "$W/run/log/mmv.log"
	fi
	pmcd_pmns "$PCP_VAR_DIR/pmns/root_mmv"
	pmcd_start || { echo "run-mmv-agent: pmcd with $2 did not start" >&2; exit 1; }
	mkfifo "$W/go" "$W/rd"
	# whose CPU is the agent's: pmcd's for a DSO, the daemon's own
	cpu_pid=$PMCD_PID
	[ "$1" = daemon ] && cpu_pid=$(pgrep -P "$PMCD_PID" -f "$2" | head -1)
	MMV_BENCH_CPU_PID=$cpu_pid \
	"$out/bench_mmv_agent" "$PMCD_HOST" "$3" "$reps" < "$W/go" > "$W/rd" &
	driver=$!
	exec 4> "$W/go" 5< "$W/rd"
	: > "$W/out"
	# rescans: five times, one file rewritten, then the next fetch timed.
	# While it runs this shell waits in read, a builtin: a process started
	# meanwhile (a grep, a sleep) made the rescan inside pmcd twice as
	# long on this VM.
	for r in 1 2 3 4 5; do
		ready=
		while read -r line <&5; do
			[ "$line" = ready ] && { ready=1; break; }
			echo "$line" >> "$W/out"
		done
		[ -n "$ready" ] || break	# the client stopped (it says why)
		sleep 1.1	# a new directory mtime second (Debian's compares seconds)
		"$out/mmv_files" $(($3 / 2)) 1
		echo go >&4
	done
	exec 4>&-
	while read -r line <&5; do
		echo "$line" >> "$W/out"
	done
	exec 5<&-
	wait "$driver"	# not pmcd, also a child of this shell
	sed "s/^/$1_/" "$W/out"
	rm -f "$W/go" "$W/rd"
	pmcd_stop
}

theirs_dir=$PCP_PMDAS_DIR/mmv
for mode in ${MMV_BENCH_MODES:-dso daemon}; do
	[ $mode = dso ] && t=$theirs_dir/pmda_mmv.so o=$top/build/lib/pmda_mmv.so
	[ $mode = daemon ] && t=$theirs_dir/pmdammv o=$top/build/pmdas/mmv/pmdammv
	for n in ${MMV_BENCH_FILES:-1 10 100}; do
		run $mode "$t" $n >> "$out/mmv_agent.theirs.out.new"
		run $mode "$o" $n >> "$out/mmv_agent.ours.out.new"
	done
done
mv "$out/mmv_agent.theirs.out.new" "$out/mmv_agent.theirs.out"
mv "$out/mmv_agent.ours.out.new" "$out/mmv_agent.ours.out"

val() { awk -v k="$2" '$1 == k { print $3 }' "$out/mmv_agent.$1.out"; }
echo "| MMV agent case (through pmcd) | Debian pmdammv, us | ours, us | ours/Debian |"
echo "|---|---:|---:|---:|"
row() {	# row KEY THEIRS OURS
	echo "| $1 | ${2:-n/a} | ${3:-n/a} | $(awk -v a="$2" -v b="$3" 'BEGIN { if (a > 0 && b > 0) printf("%.2f", b / a); else print "–" }') |"
}
for key in $(awk '{ print $1 }' "$out/mmv_agent.ours.out"); do
	row $key "$(val theirs $key)" "$(val ours $key)"
	# a daemon's wall time less its CPU: pmcd, the client and the pipe,
	# which no agent can make shorter
	case $key in daemon_*_cpu) ;; daemon_*)
		t=$(awk -v a="$(val theirs $key)" -v b="$(val theirs ${key}_cpu)" 'BEGIN { printf("%.1f", a - b) }')
		o=$(awk -v a="$(val ours $key)" -v b="$(val ours ${key}_cpu)" 'BEGIN { printf("%.1f", a - b) }')
		row ${key}_rest "$t" "$o" ;;
	esac
done
