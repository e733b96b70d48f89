#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Debian's pmdammv (PCP 6.0.3, as a DSO in a local context) serves a
# histogram file written by our libpcp_mmv unchanged: the bucket instances
# with the counts recorded, .count and .sum, and the labels of the layout
# (include/pcp/mmv_histogram.h). What build/tests/integration/mmv_hist_writer
# records is in its header; the expected values below follow from it and
# the bucket scheme by hand.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
writer="$top/build/tests/integration/mmv_hist_writer"
theirs_so="$PCP_PMDAS_DIR/mmv/pmda_mmv.so"
pmns="$top/build/pmdas/mmv/root_mmv"
need_debian mmv_histogram "$theirs_so" "$(command -v pminfo)" "$(command -v pmprobe)"
W=$(mktemp -d /tmp/mmv-hist.XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
mkdir -p "$W/mmv"

agent() {	# TOOL ARGS...: a PCP tool over Debian's agent on $W
	_t=$1
	shift
	PCP_TMP_DIR=$W "$_t" -L -K clear -K add,70,"$theirs_so",mmv_init -n "$pmns" "$@"
}

check "the writer runs" env PCP_TMP_DIR="$W" "$writer"

# values: pminfo -f, one "inst [id or name] value N" line per bucket
agent pminfo -f mmv.hist.lat.bucket mmv.hist.lat.count mmv.hist.lat.sum \
	mmv.hist.build.bucket mmv.hist.build.count mmv.hist.build.sum > "$W/f.out" 2> "$W/f.err"
cat > "$W/f.want" <<'WANT'

mmv.hist.lat.bucket
    inst [0 or "0-16"] value 1
    inst [1 or "16-20"] value 2
    inst [2 or "20-24"] value 0
    inst [3 or "24-28"] value 0
    inst [4 or "28-32"] value 0
    inst [5 or "32-40"] value 0
    inst [6 or "40-48"] value 0
    inst [7 or "48-56"] value 0
    inst [8 or "56-64"] value 0
    inst [9 or "64-80"] value 0
    inst [10 or "80-96"] value 0
    inst [11 or "96-112"] value 0
    inst [12 or "112-128"] value 0
    inst [13 or "128-160"] value 0
    inst [14 or "160-192"] value 0
    inst [15 or "192-224"] value 0
    inst [16 or "224-256"] value 1
    inst [17 or "256-inf"] value 2

mmv.hist.lat.count
    value 6

mmv.hist.lat.sum
    value 1551

mmv.hist.build.bucket
    inst [0 or "anvil:0-1"] value 0
    inst [1 or "anvil:1-2"] value 1
    inst [2 or "anvil:2-4"] value 0
    inst [3 or "anvil:4-8"] value 0
    inst [4 or "anvil:8-inf"] value 1
    inst [5 or "rocket:0-1"] value 1
    inst [6 or "rocket:1-2"] value 0
    inst [7 or "rocket:2-4"] value 0
    inst [8 or "rocket:4-8"] value 1
    inst [9 or "rocket:8-inf"] value 0

mmv.hist.build.count
    inst [0 or "anvil"] value 2
    inst [1 or "rocket"] value 2

mmv.hist.build.sum
    inst [0 or "anvil"] value 9
    inst [1 or "rocket"] value 5
WANT
same "Debian's pmdammv: bucket counts, .count and .sum (pminfo -f)" "$W/f.out" "$W/f.want"
[ -s "$W/f.err" ] && sed 's/^/# /' "$W/f.err"

# descriptors: counters, the bucket indom, units
agent pminfo -d mmv.hist.lat.bucket mmv.hist.lat.sum > "$W/d.out" 2>&1
check "pminfo -d: buckets are u64 values of an indom" \
	sh -c "grep -A3 '^mmv.hist.lat.bucket' '$W/d.out' | grep -q 'Data Type: 64-bit unsigned int  InDom: 70\\.'"
check "pminfo -d: bucket semantics counter, units count" \
	sh -c "grep -A3 '^mmv.hist.lat.bucket' '$W/d.out' | grep -q 'Semantics: counter  Units: count'"
check "pminfo -d: .sum in microseconds" \
	sh -c "grep -A3 '^mmv.hist.lat.sum' '$W/d.out' | grep -q 'Units: microsec'"

# labels: the scheme on the metric, lo/hi/of on each bucket instance
agent pminfo -l mmv.hist.lat.bucket mmv.hist.build.bucket > "$W/l.out" 2>&1
label_line() {	# METRIC INSTANCE-NAME: that instance's labels line
	awk -v m="$1" -v i="\"$2\"]" '$1 == m { on = 1; next } /^$/ { on = 0 }
		on && $1 == "inst" && $4 == i && $5 == "labels" { print }' "$W/l.out"
}
has() {	# DESCRIPTION LINE STRING...: ok when LINE holds every STRING
	_d=$1 _l=$2
	shift 2
	for _s in "$@"; do
		case "$_l" in *"$_s"*) ;; *) not_ok "$_d (no $_s in: $_l)"; return ;; esac
	done
	ok "$_d"
}
scheme=$(awk '$1 == "mmv.hist.lat.bucket" { getline; print; exit }' "$W/l.out")
has "metric labels: the scheme" "$scheme" '"histogram.scheme":"log-linear"' \
	'"histogram.low":16' '"histogram.high":256' '"histogram.sub_buckets":4'
has "bucket 16-20: lo 16, hi 20" "$(label_line mmv.hist.lat.bucket 16-20)" '"lo":16' '"hi":20'
has "bucket 0-16: lo 0, hi 16" "$(label_line mmv.hist.lat.bucket 0-16)" '"lo":0,' '"hi":16'
l=$(label_line mmv.hist.lat.bucket 256-inf)
has "bucket 256-inf: lo 256" "$l" '"lo":256'
case "$l" in *'"hi":'*) not_ok "bucket 256-inf has no hi label" ;; *) ok "bucket 256-inf has no hi label" ;; esac
has "bucket rocket:4-8: lo 4, hi 8, of rocket" \
	"$(label_line mmv.hist.build.bucket rocket:4-8)" '"lo":4' '"hi":8' '"of":"rocket"'

# pmprobe: the instance names a tool selects from
agent pmprobe -I mmv.hist.build.bucket > "$W/p.out" 2>&1
echo 'mmv.hist.build.bucket 10 "anvil:0-1" "anvil:1-2" "anvil:2-4" "anvil:4-8" "anvil:8-inf" "rocket:0-1" "rocket:1-2" "rocket:2-4" "rocket:4-8" "rocket:8-inf"' > "$W/p.want"
same "pmprobe -I: ten bucket instances, product:lo-hi" "$W/p.out" "$W/p.want"
done_testing
