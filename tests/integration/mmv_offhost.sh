#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Our histograms and percentiles off one machine: Debian's pmproxy (its
# Prometheus /metrics text, parsed with Debian's python3-prometheus-client,
# and a JSON /pmapi/fetch) and a pmlogger archive read back with pmrep,
# all through demos/acme/offhost.sh (the demo's own path) against a
# private pmcd with our MMV agent. Bucket counts, .count and .sum must be
# what hist_writer recorded (its own tallies, not read from the file),
# and the agent's p99 of shop.lat for anvils 96 + 16 * 0.99 = 111.84
# (100 values of 100 usec in [96,112); see mmv_pct.sh).
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
. "$top/tests/lib/hist_writer.sh"
W=$(mktemp -d /tmp/mmv-offhost.XXXXXX)
ours_so="$top/build/lib/pmda_mmv.so"
pmns="$top/build/pmdas/mmv/root_mmv"
checker="$top/tests/integration/offhost_check.py"
need_debian mmv_offhost "$PCP_BINADM_DIR/pmproxy" "$(command -v pmlogger)" \
	/usr/bin/pmrep /usr/bin/python3 \
	/usr/lib/python3/dist-packages/prometheus_client/parser.py
cleanup() {
	hw_kill
	pmcd_stop
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
bail() { not_ok "$*"; done_testing; exit 1; }
for f in "$top/build/tests/integration/hist_writer" "$ours_so" "$pmns"; do
	[ -e "$f" ] || bail "$f is built (make all check)"
done

pmcd_init "$W"
hw_start || bail "writer starts"

# Step 0.25 s, a window long enough for the whole test.
export PCP_MMV_PCT_STEP=0.25 PCP_MMV_PCT_WINDOW=120
pmcd_agent mmv 70 dso mmv_init "$ours_so"
pmcd_pmns "$pmns"
pmcd_start 3>&- || bail "pmcd with our DSO starts"
H=$PMCD_HOST
P=mmv.percentile.shop.lat.p99

# The DSO samples when asked: a first sample, then the records.
poll 5 sh -c "pminfo -h '$H' -f $P 2>&1 | grep -q 'No value'" || not_ok "percentile metric served"
sleep 0.3
pminfo -h "$H" -f $P > /dev/null 2>&1
hw_cmd rec shop.lat anvils 100 100 && hw_cmd rec shop.lat rockets 20 50 &&
	hw_cmd rec shop.lat rockets 300 50 && hw_cmd rec shop.size - 3 4 &&
	hw_cmd rec shop.size - 100 2 || bail "writer records"
check "the agent's p99 of anvils is 111.84" poll 5 sh -c \
	"pminfo -h '$H' -f $P | grep -q 'anvils\"] value 111.84$'"
hw_cmd dump || bail "writer dumps its tallies"

names="mmv.shop.lat.bucket mmv.shop.lat.count mmv.shop.lat.sum mmv.shop.size.bucket mmv.shop.size.count mmv.shop.size.sum $P"
OFFHOST_SAMPLES=3 OFFHOST_INTERVAL=0.5 sh "$top/demos/acme/offhost.sh" "$H" "$W/off" $names \
	> "$W/offhost.out" 2> "$W/offhost.err" 3>&-
check "demos/acme/offhost.sh runs pmproxy, pmlogger and pmrep" test $? -eq 0
sed 's/^/# /' "$W/offhost.err" | head -20

check "pmproxy /metrics, parsed by prometheus_client: buckets, counts, sums as recorded, p99" \
	/usr/bin/python3 "$checker" prom "$W/off/metrics.txt" "$W/w.out" 111.84
check "pmproxy /metrics: the overflow bucket of size holds the two 100-byte values" \
	grep -q '^mmv_shop_size_bucket{.*instname="64-inf".*} 2$' "$W/off/metrics.txt"
# pmproxy flattens the "histogram" map into the bucket's own labels: the
# scheme's bounds must not pass for a bucket's (the overflow bucket has no hi).
check "pmproxy /metrics: the overflow bucket carries lo 64 and no hi" \
	sh -c 'l=$(grep "^mmv_shop_size_bucket{.*instname=\"64-inf\"" "$1") &&
		case "$l" in *[{,]hi=*) exit 1 ;; *[{,]lo=\"64\"*) exit 0 ;; *) exit 1 ;; esac' \
	sh "$W/off/metrics.txt"
check "pmproxy /pmapi/fetch JSON: counts and sums as recorded, p99" \
	/usr/bin/python3 "$checker" json "$W/off/fetch.json" "$W/w.out" 111.84
check "pmlogger archive read with pmrep: buckets, counts, sums as recorded, p99" \
	/usr/bin/python3 "$checker" csv "$W/off/pmrep.csv" "$W/w.out" 111.84
check "pmrep read 3 samples from the archive" \
	test "$(grep -c '^[0-9]' "$W/off/pmrep.csv")" -eq 3
pmcd_stop

hw_stop
check "writer exits 0 on EOF" test $? -eq 0
done_testing
