#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# PCP's derived metrics and fetchgroups over acme-like counters written with
# our libpcp_mmv and served by our MMV agent (build/lib/pmda_mmv.so as a DSO)
# in a private pmcd, as the Acme demo wires them.
#
# build/tests/integration/mmv_stepper publishes mmv.acme.products.{count,time}
# for Anvils and Rockets, all 0, and adds exactly, per "step":
#     Anvils:  count +2, time +8000 usec
#     Rockets: count +4, time +24000 usec
# build/tests/integration/mmv_fg (a fetchgroup client: count as a rate and
# raw, time raw, the derived avgtime, the timestamp) fetches at known points:
#     step, fetch 1, step, fetch 2
# so at fetch 1 the raw values are one step's, at fetch 2 two steps', and
# over the interval the derived metric
#     mmv.acme.products.avgtime = delta(time) / delta(count)
# is 8000/2 = 4000 usec for Anvils and 24000/4 = 6000 usec for Rockets,
# exactly. The rate depends on elapsed time, so it is checked as
# rate * elapsed (from the fetch timestamps) = the step's count, within 1%.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
W=$(mktemp -d /tmp/mmv-derived.XXXXXX)
stepper="$top/build/tests/integration/mmv_stepper"
fg="$top/build/tests/integration/mmv_fg"
agent="$top/build/lib/pmda_mmv.so"
stepper_pid=
fg_pid=
cleanup() {
	exec 3>&- 4>&-
	for p in $stepper_pid $fg_pid; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	pmcd_stop
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Every wait below shares one budget of 10 s (sleeping 0.1 s a turn), so
# the test stays well under 20 s even when everything times out.
ticks=100
# wait_for FILE COUNT PATTERN: until PATTERN matches COUNT lines of FILE
wait_for() {
	while [ "$(grep -c -- "$3" "$1" 2>/dev/null)" -lt "$2" ]; do
		[ $ticks -gt 0 ] || return 1
		sleep 0.1
		ticks=$((ticks - 1))
	done
}
# show FILE: as TAP diagnostics
show() { sed 's/^/# /' "$1" 2>/dev/null | head -40; }
bail() { not_ok "$*"; done_testing; exit 1; }
# blanks FILE: drop pminfo's leading and trailing blank lines
blanks() { sed -i -e '/./,$!d' -e '${/^$/d}' "$1"; }

for f in "$stepper" "$fg" "$agent"; do
	[ -x "$f" ] || [ -f "$f" ] || bail "$f is built (make all $stepper $fg)"
done

pmcd_init "$W"
pmcd_agent mmv 70 dso mmv_init "$agent"
pmcd_pmns "$PCP_VAR_DIR/pmns/root_mmv"

# The writer, driven through a fifo on fd 3.
mkfifo "$W/step.in" "$W/fg.in"
"$stepper" < "$W/step.in" > "$W/step.out" 2> "$W/step.err" &
stepper_pid=$!
exec 3> "$W/step.in"
wait_for "$W/step.out" 1 '^ready$' || { show "$W/step.err"; bail "stepper starts"; }
check "stepper wrote \$PCP_TMP_DIR/mmv/acme with our libpcp_mmv" test -s "$PCP_TMP_DIR/mmv/acme"
echo step >&3
wait_for "$W/step.out" 1 '^done$' || bail "stepper takes step 1"

# fd 3 stays with this shell: the stepper sees EOF when it closes
pmcd_start 3>&- || bail "private pmcd with our MMV agent starts"
ok "private pmcd with our MMV agent starts on $PMCD_HOST"
h=$PMCD_HOST

# The agent serves the first step's values (it may need a moment to find
# the file).
cat > "$W/raw.want" <<'EOF'
mmv.acme.products.count
    inst [0 or "Anvils"] value 2
    inst [1 or "Rockets"] value 4

mmv.acme.products.time
    inst [0 or "Anvils"] value 8000
    inst [1 or "Rockets"] value 24000
EOF
while :; do
	pminfo -h "$h" -f mmv.acme.products.count mmv.acme.products.time \
		> "$W/raw.got" 2>&1
	blanks "$W/raw.got"
	cmp -s "$W/raw.want" "$W/raw.got" && break
	[ $ticks -gt 0 ] || break
	sleep 0.1
	ticks=$((ticks - 1))
done
same "pminfo -f through pmcd shows the step-1 counters" "$W/raw.got" "$W/raw.want"

# The demo's derived metric; PCP applies it in the client.
cat > "$W/derived" <<'DERIVED'
mmv.acme.products.avgtime = delta(mmv.acme.products.time) / delta(mmv.acme.products.count)
DERIVED
export PCP_DERIVED_CONFIG="$W/derived"

# Its descriptor: usec per count, instantaneous (so a fetchgroup with no
# scale does not rate-convert it), on the counters' instance domain.
pminfo -h "$h" -d mmv.acme.products.avgtime > "$W/desc.got" 2>&1
indom=$(pminfo -h "$h" -d mmv.acme.products.count | sed -n 's/.*InDom: \([^ ]*\).*/\1/p')
serial=${indom#70.}
case $serial in ''|*[!0-9]*) serial=0 ;; esac	# then the comparison fails
cat > "$W/desc.want" <<EOF
mmv.acme.products.avgtime
    Data Type: double  InDom: $indom 0x$(printf %x $((70 << 22 | serial)))
    Semantics: instant  Units: microsec / count
EOF
blanks "$W/desc.got"
same "pminfo -d: avgtime is a double, instant, microsec / count, InDom ${indom:-?}" \
	"$W/desc.got" "$W/desc.want"

# The fetchgroup client, its go-ahead on fd 4: fetch 1 now.
"$fg" "$h" < "$W/fg.in" > "$W/fg.out" 2> "$W/fg.err" 3>&- &
fg_pid=$!
exec 4> "$W/fg.in"
if wait_for "$W/fg.out" 1 '^fetched 1$'; then
	ok "fetchgroup client set up and fetched once"
else
	not_ok "fetchgroup client set up and fetched once"
	show "$W/fg.err"
fi

# fetch1 NAME COUNT TIME: raw values exact; no rate and no derived value yet
fetch1() {
	grep -Eqx "fetch1 $1 count=$2 count_sts=0 time=$3 time_sts=0 rate=- rate_sts=-[0-9]+ avg=- avg_sts=-?[0-9]+ avg_num=[0-9]+" "$W/fg.out"
}
check "fetch 1, Anvils: count 2, time 8000; no rate and no avgtime yet" fetch1 Anvils 2 8000
check "fetch 1, Rockets: count 4, time 24000; no rate and no avgtime yet" fetch1 Rockets 4 24000

echo step >&3
wait_for "$W/step.out" 2 '^done$' || not_ok "stepper takes step 2"
echo go >&4
wait_for "$W/fg.out" 1 '^fetched 2$' || { not_ok "fetchgroup fetches again"; show "$W/fg.err"; }
show "$W/fg.out"

# fetch2 NAME COUNT TIME AVG: raw values and the derived average, exact
fetch2() {
	grep -Eqx "fetch2 $1 count=$2 count_sts=0 time=$3 time_sts=0 rate=[0-9.e+-]+ rate_sts=0 avg=$4 avg_sts=0 avg_num=2" "$W/fg.out"
}
check "fetch 2, Anvils: count 4, time 16000, avgtime 4000 usec" fetch2 Anvils 4 16000 4000
check "fetch 2, Rockets: count 8, time 48000, avgtime 6000 usec" fetch2 Rockets 8 48000 6000

# rate NAME DELTA: the fetchgroup's count/s times the elapsed time between
# the two fetch timestamps is the step's count, within 1%
rate() {
	awk -v name="$1" -v want="$2" '
		/^elapsed=/ { split($0, e, "="); elapsed = e[2] }
		$1 == "fetch2" && $2 == name {
			for (i = 3; i <= NF; i++) if ($i ~ /^rate=/) { split($i, r, "="); rate = r[2] }
		}
		END {
			if (elapsed <= 0 || rate == "" || rate == "-") exit 1
			got = rate * elapsed
			printf "# %s: rate %s/s * elapsed %s s = %.6f, want %s\n", name, rate, elapsed, got, want
			d = got - want; if (d < 0) d = -d
			exit !(d <= want * 0.01)
		}' "$W/fg.out"
}
check "fetch 2, Anvils: count rate * elapsed = 2 (within 1%)" rate Anvils 2
check "fetch 2, Rockets: count rate * elapsed = 4 (within 1%)" rate Rockets 4

# Both programs end cleanly when their input closes.
exec 4>&-
wait "$fg_pid"
check "fetchgroup client exits 0" test $? -eq 0
fg_pid=
exec 3>&-
wait "$stepper_pid"
check "stepper exits 0 on EOF after 2 steps" test $? -eq 0
stepper_pid=
check "stepper reported exactly 2 steps" test "$(grep -c '^done$' "$W/step.out")" -eq 2

done_testing
