#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The percentiles our MMV agent serves for histograms (docs/mmv-format.md
# §9.8), through a private pmcd, ours as a DSO and as a daemon; then
# Debian's pmdammv on the same file, which serves the buckets and no
# percentile.
#
# build/tests/integration/hist_writer keeps histograms shop.lat (usec,
# per product, log-linear 8..1024 with 4 sub-buckets) and shop.size
# (bytes, 1..64, 1 sub-bucket) and records what it is told. Each agent
# sees, inside one window, exactly:
#   anvils:  100 values of 100 usec, bucket [96,112)
#   rockets:  50 of 20 usec, [20,24), and 50 of 300 usec, [256,320)
#   size:      4 of 3 bytes, [2,4)
# so (rank q * total, linear inside the bucket holding it):
#   anvils   p50 96 + 16 * 0.5 = 104, p90 110.4, p99 111.84
#   rockets  p50 24 (rank 50 ends [20,24)), p90 256 + 64 * 40/50 = 307.2,
#            p99 256 + 64 * 49/50 = 318.72
#   size     p50 2 + 2 * 2/4 = 3, p99 2 + 2 * 3.96/4 = 3.98
# Before anything is recorded in its window, and a window after the
# last record, a percentile has no value. Step 0.25 s, window 2 s.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
. "$top/tests/lib/hist_writer.sh"
W=$(mktemp -d /tmp/mmv-pct.XXXXXX)
ours_so="$top/build/lib/pmda_mmv.so"
ours_bin="$top/build/pmdas/mmv/pmdammv"
theirs_so="$PCP_PMDAS_DIR/mmv/pmda_mmv.so"
pmns="$top/build/pmdas/mmv/root_mmv"
need_debian mmv_pct "$theirs_so"
cleanup() {
	hw_kill
	pmcd_stop
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bail() { not_ok "$*"; done_testing; exit 1; }
show() { sed 's/^/# /' "$1" 2>/dev/null | head -30; }

for f in "$top/build/tests/integration/hist_writer" "$ours_so" "$ours_bin" "$pmns"; do
	[ -e "$f" ] || bail "$f is built (make all check)"
done

pmcd_init "$W"
hw_start || { show "$W/w.err"; bail "writer starts"; }

# values METRIC: "inst value" lines of pminfo -f (inst "-" when singular)
values() {
	pminfo -h "$H" -f "$1" 2>&1 | awk '
		/inst \[/ { sub(/.*or "/, ""); n = $0; sub(/".*/, "", n); print n, $NF; next }
		/ value / { print "-", $NF }'
}
# near METRIC INST WANT: the value within 1e-6
near() {
	values "$1" | awk -v i="$2" -v w="$3" '
		$1 == i { d = $2 - w; if (d < 0) d = -d; ok = d <= 1e-6 }
		END { exit !ok }'
}
novalue() { pminfo -h "$H" -f "$1" 2>&1 | grep -q 'No value(s) available'; }
P=mmv.percentile.shop

# expect WHO: the percentiles of the distribution above
expect() {
	_who=$1
	all() {
		near $P.lat.p50 anvils 104 && near $P.lat.p90 anvils 110.4 &&
		near $P.lat.p99 anvils 111.84 && near $P.lat.p50 rockets 24 &&
		near $P.lat.p90 rockets 307.2 && near $P.lat.p99 rockets 318.72 &&
		near $P.size.p50 - 3 && near $P.size.p99 - 3.98
	}
	if poll 5 all; then
		ok "$_who: p50, p90, p99 of anvils, rockets and size as computed by hand"
	else
		not_ok "$_who: p50, p90, p99 of anvils, rockets and size as computed by hand"
		for m in $P.lat.p50 $P.lat.p90 $P.lat.p99 $P.size.p50 $P.size.p99; do
			values $m | sed "s/^/# $m /"
		done
	fi
}

# le_val INSTANCE: its value in $W/le.got (pminfo -f of the cumulative buckets)
le_val() {
	sed -n "s/^ *inst \[[0-9]* or \"$1\"\] value //p" "$W/le.got"
}
# cumulative N: after N rounds of records (the buckets are counters, since
# the file began): anvils' 100 a round at 112 and none at 96; rockets'
# first 50 at 24, none at 20, no more by 256, all 100 at 320 and +Inf
cumulative() {
	[ "$(le_val anvils:96)" = 0 ] && [ "$(le_val anvils:112)" = $((100 * $1)) ] &&
	[ "$(le_val anvils:+Inf)" = $((100 * $1)) ] && [ "$(le_val rockets:20)" = 0 ] &&
	[ "$(le_val rockets:24)" = $((50 * $1)) ] && [ "$(le_val rockets:256)" = $((50 * $1)) ] &&
	[ "$(le_val rockets:320)" = $((100 * $1)) ] && [ "$(le_val rockets:+Inf)" = $((100 * $1)) ]
}
round=0

# agent_case WHO: the checks, against the pmcd on $H
agent_case() {
	_who=$1
	check "$_who: percentile names for both histograms" \
		poll 5 sh -c "pminfo -h '$H' $P | sort | tr '\n' ' ' | grep -qx '$P.lat.bucket $P.lat.p50 $P.lat.p90 $P.lat.p99 $P.size.bucket $P.size.p50 $P.size.p90 $P.size.p99 '"
	# Descriptor: double, instant, the products indom of .count, .sum's units;
	# PMID in cluster 0 from item 16 (files never get cluster 0).
	indom=$(pminfo -h "$H" -d mmv.shop.lat.count | sed -n 's/.*InDom: \([^ ]*\).*/\1/p')
	pminfo -h "$H" -d $P.lat.p90 > "$W/d.got" 2>&1
	check "$_who: $P.lat.p90 is a double, instant, microsec, InDom $indom" \
		grep -q "Data Type: double  InDom: $indom .*" "$W/d.got"
	check "$_who: ... semantics instant, units microsec" \
		grep -q "Semantics: instant  Units: microsec$" "$W/d.got"
	check "$_who: size percentiles are singular, in bytes" \
		sh -c "pminfo -h '$H' -d $P.size.p50 | grep -q 'InDom: PM_INDOM_NULL' &&
			pminfo -h '$H' -d $P.size.p50 | grep -q 'Units: byte'"
	check "$_who: PMIDs 70.0.16 and up" \
		sh -c "pminfo -h '$H' -m $P | awk '{ split(\$3, p, \".\"); if (p[1] != 70 || p[2] != 0 || p[3] < 16) bad = 1 } END { exit bad || NR != 8 }'"
	check "$_who: help text names the histogram and the window" \
		sh -c "pminfo -h '$H' -t $P.lat.p99 | grep -q '99th percentile of mmv.shop.lat over the last 2 s'"
	check "$_who: no value before anything is recorded in the window" \
		sh -c "sleep 0.5; pminfo -h '$H' -f $P.lat.p50 > /dev/null; sleep 0.5; pminfo -h '$H' -f $P.lat.p50 | grep -q 'No value'"
	hw_cmd rec shop.lat anvils 100 100 && hw_cmd rec shop.lat rockets 20 50 &&
		hw_cmd rec shop.lat rockets 300 50 && hw_cmd rec shop.size - 3 4 ||
		not_ok "$_who: writer records"
	expect "$_who"
	# The buckets again, cumulative with "le" (Prometheus's form): anvils'
	# 100 in [96,112), rockets' 50 in [20,24) and 50 in [256,320).
	pminfo -h "$H" -f $P.lat.bucket > "$W/le.got" 2>&1
	pminfo -h "$H" -l $P.lat.bucket > "$W/le.labels" 2>&1
	round=$((round + 1))
	if cumulative $round; then
		ok "$_who: cumulative buckets by le: 0 below a value, all of them at and above it"
	else
		not_ok "$_who: cumulative buckets by le: 0 below a value, all of them at and above it"
		show "$W/le.got"
	fi
	check "$_who: ... each labelled le and of, as PromQL needs" \
		grep -q 'inst \[[0-9]* or "rockets:320"\] labels {.*"le":"320".*"of":"rockets"' "$W/le.labels"
	check "$_who: no value again once the window has passed the records" \
		poll 6 novalue $P.lat.p50
}

# Ours as a DSO: step and window from the environment.
export PCP_MMV_PCT_STEP=0.25 PCP_MMV_PCT_WINDOW=2
pmcd_agent mmv 70 dso mmv_init "$ours_so"
pmcd_pmns "$pmns"
pmcd_start 3>&- || bail "pmcd with our DSO starts"
H=$PMCD_HOST
agent_case "ours, DSO"
pmcd_stop
unset PCP_MMV_PCT_STEP PCP_MMV_PCT_WINDOW

# Ours as a daemon: step and window as options; it samples on its own.
pmcd_init "$W"
pmcd_agent mmv 70 pipe binary "$ours_bin" -U "$(id -un)" -l "$W/log/mmv.log" -s 0.25 -w 2
pmcd_pmns "$pmns"
pmcd_start 3>&- || bail "pmcd with our daemon starts"
H=$PMCD_HOST
agent_case "ours, daemon"
pmcd_stop

# Debian's pmdammv: the buckets, .count and .sum as recorded, no percentile.
hw_cmd dump || not_ok "writer dumps"
pmcd_init "$W"
pmcd_agent mmv 70 dso mmv_init "$theirs_so"
pmcd_pmns "$PCP_VAR_DIR/pmns/root_mmv"
pmcd_start 3>&- || bail "pmcd with Debian's pmdammv starts"
H=$PMCD_HOST
awk '$1 == "bucket" && $2 == "shop.lat" && $6 > 0 { print $3 ":" $4 "-" $5, $6 }' "$W/w.out" | sort > "$W/b.want"
values mmv.shop.lat.bucket | awk '$2 > 0' | sort > "$W/b.got"
check "Debian's pmdammv: the writer's tallies, bucket by bucket (2 rounds each)" \
	sh -c "test -s '$W/b.want' && grep -q '^anvils:96-112 200$' '$W/b.want'"
same "Debian's pmdammv serves mmv.shop.lat.bucket as recorded" "$W/b.want" "$W/b.got"
check "Debian's pmdammv: mmv.shop.lat.sum[rockets] = 2 * (50 * 20 + 50 * 300)" \
	sh -c "pminfo -h '$H' -f mmv.shop.lat.sum | grep -q 'rockets\"] value 32000$'"
check "Debian's pmdammv serves no percentile" \
	sh -c "! pminfo -h '$H' $P > /dev/null 2>&1"
pmcd_stop

hw_stop
check "writer exits 0 on EOF" test $? -eq 0
done_testing
