#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Contention-free counters (include/pcp/mmv_counter.h) read through a
# private pmcd, by our MMV agent (a DSO) and by Debian's pmdammv:
# N threads of M increments, never flushed, read as one total. While the
# threads run, the values fetched never decrease; once they are joined,
# pminfo -f shows exactly N*M (3*N*M for req[put]); a forked child's K
# makes hits N*M+K. The writer is build/tests/integration/mmv_counter_writer
# (what it adds is in its header); the expected values are that
# arithmetic, done here.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
writer="$top/build/tests/integration/mmv_counter_writer"
ours_so="$top/build/lib/pmda_mmv.so"
theirs_so="$PCP_PMDAS_DIR/mmv/pmda_mmv.so"
pmns="$top/build/pmdas/mmv/root_mmv"
need_debian mmv_counter "$theirs_so" "$(command -v pminfo)"
N=4
M=250000
K=12345
PAUSE=5000	# microseconds after every 1000 rounds: about 1.3 s of updates
W=$(mktemp -d /tmp/mmv-counter.XXXXXX)
WPID=
cleanup() {
	exec 3>&-
	[ -z "$WPID" ] || { kill "$WPID" 2>/dev/null; wait "$WPID" 2>/dev/null; }
	pmcd_stop
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT

# the writer on a fifo (fd 3); pmcd and the tools are started with 3>&-
sent=0
answered() { test "$(grep -c '^done$' "$W/w.out")" -ge $sent; }
w_start() {
	rm -f "$W/w.in" "$W/tmp/mmv/ctr"
	mkfifo "$W/w.in" || return 1
	PCP_TMP_DIR=$W/tmp "$writer" < "$W/w.in" > "$W/w.out" 2> "$W/w.err" &
	WPID=$!
	exec 3> "$W/w.in"
	sent=0
	poll 5 grep -q '^ready$' "$W/w.out"
}
w_cmd() {
	echo "$*" >&3
	sent=$((sent + 1))
	poll 30 answered && ! grep -q '^fail$' "$W/w.out"
}
w_stop() {
	exec 3>&-
	wait "$WPID"
	_sts=$?
	WPID=
	return $_sts
}

hits() { pminfo -h "$PMCD_HOST" -f mmv.ctr.hits 3>&- | awk '$1 == "value" { print $2 }'; }
is_zero() { [ "$(hits)" = 0 ]; }

# monotonic END FILE: the samples, one a line, are all numbers, never
# decrease, and end at END
monotonic() {
	awk -v end="$1" '$1 !~ /^[0-9]+$/ || (NR > 1 && $1 + 0 < prev + 0) { bad = 1 } { prev = $1 }
		END { exit bad || prev != end }' "$2"
}
# between END FILE: a sample strictly between 0 and END (read while running)
between() {
	awk -v end="$1" '$1 + 0 > 0 && $1 + 0 < end + 0 { n++ } END { exit !n }' "$2"
}

total=$((N * M))
expected() {	# HITS: pminfo -f of the file after the join
	cat <<EOF

mmv.ctr.hits
    value $1

mmv.ctr.small
    value $total

mmv.ctr.req
    inst [0 or "get"] value $total
    inst [1 or "put"] value $((3 * total))
EOF
}

mkdir -p "$W/tmp/mmv"
for who in ours theirs; do
	[ $who = ours ] && so=$ours_so || so=$theirs_so
	if ! w_start; then
		not_ok "$who: the writer starts"
		sed 's/^/# /' "$W/w.err"
		continue
	fi
	pmcd_init "$W/pmcd-$who"
	export PCP_TMP_DIR="$W/tmp"
	pmcd_agent mmv 70 dso mmv_init "$so"
	pmcd_pmns "$pmns"
	if ! pmcd_start 3>&-; then
		not_ok "$who: pmcd starts"
		w_stop
		continue
	fi
	check "$who: hits reads 0 before any update" is_zero

	# fetched while the threads run: up to 20 s of samples, until N*M
	: > "$W/$who.samples"
	w_cmd run $N $M $PAUSE || not_ok "$who: the threads start"
	i=0
	while [ $i -lt 400 ]; do
		v=$(hits)
		echo "${v:-none}" >> "$W/$who.samples"
		[ "$v" = "$total" ] && break
		i=$((i + 1))
	done
	w_cmd join || not_ok "$who: the threads join"
	hits >> "$W/$who.samples"
	diag "$who: $(wc -l < "$W/$who.samples") samples, $(awk -v e=$total \
		'$1 + 0 > 0 && $1 + 0 < e + 0' "$W/$who.samples" | wc -l) strictly between 0 and $total"
	check "$who: hits fetched while the threads run never decrease and end at N*M = $total" \
		monotonic $total "$W/$who.samples"
	check "$who: ... and some were fetched while the threads ran" between $total "$W/$who.samples"

	pminfo -h "$PMCD_HOST" -f mmv.ctr.hits mmv.ctr.small mmv.ctr.req > "$W/$who.f" 2>&1 3>&-
	expected $total > "$W/$who.want"
	same "$who: pminfo -f after the join: exactly N*M (req[put] 3*N*M)" "$W/$who.f" "$W/$who.want"

	w_cmd fork $K || not_ok "$who: the forked child adds K and exits"
	pminfo -h "$PMCD_HOST" -f mmv.ctr.hits mmv.ctr.small mmv.ctr.req > "$W/$who.fk" 2>&1 3>&-
	expected $((total + K)) > "$W/$who.fkwant"
	same "$who: a forked child's K: hits N*M+K = $((total + K))" "$W/$who.fk" "$W/$who.fkwant"

	check "$who: the writer exits normally, no update fell back" w_stop
	[ -s "$W/w.err" ] && sed 's/^/# /' "$W/w.err"
	pmcd_stop
done
done_testing
