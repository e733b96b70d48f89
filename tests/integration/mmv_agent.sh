#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Our MMV agent (build/lib/pmda_mmv.so, build/pmdas/mmv/pmdammv) against
# Debian's pmdammv 6.0.3 on the same files: names, PMIDs, descriptors,
# values, help and labels as `pminfo -dfmtTl mmv` shows them, in a local
# context (both agents as DSOs inside pminfo) and through a private pmcd
# (ours as a DSO and as a daemon). The files come from one writer built
# against PCP's libpcp_mmv, run once on PCP's library and once on ours.
# Then ours alone, in a private pmcd while a client keeps fetching: files
# appearing, vanishing and coming back, and hostile files beside good ones.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/debian.sh"
W=$(mktemp -d /tmp/mmv-agent.XXXXXX)
writer="$top/build/tests/integration/mmv_writer_pcp"
acme="$top/build/tests/compat/acme-pcp"
ours_so="$top/build/lib/pmda_mmv.so"
ours_bin="$top/build/pmdas/mmv/pmdammv"
theirs_so="$PCP_PMDAS_DIR/mmv/pmda_mmv.so"
pmns="$top/build/pmdas/mmv/root_mmv"
kids=
need_debian mmv_agent "$theirs_so" "$(loaded_lib "$writer" libpcp_mmv.so.1)" \
	"$(loaded_lib "$acme" libpcp_mmv.so.1)"
cleanup() {
	for p in $kids; do kill "$p" 2>/dev/null; done
	pmcd_stop
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT

CASES="v1 v2 v3 v3auto strings elapsed noprefix procdead sentinel"

# write_set DIR [LIBDIR]: every case into DIR/mmv, with PCP's library or,
# given LIBDIR, ours; plus a live PROCESS writer and a stopped acme.
write_set() {
	dir=$1
	lib=${2:-}
	mkdir -p "$dir/mmv"
	for c in $CASES; do
		PCP_TMP_DIR=$dir LD_LIBRARY_PATH=$lib "$writer" $c || return 1
	done
	PCP_TMP_DIR=$dir LD_LIBRARY_PATH=$lib "$writer" proclive > "$dir/live.out" &
	kids="$kids $!"
	PCP_TMP_DIR=$dir LD_LIBRARY_PATH=$lib timeout 0.5 "$acme" > /dev/null 2>&1
	i=0
	while ! grep -q ready "$dir/live.out" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$dir/mmv/acme" ] && [ -s "$dir/mmv/proclive" ]
}

# pminfo output with one record per paragraph, records sorted: the order
# of names in a dynamic namespace is the agents' tree order, not meaning.
sorted() {
	awk 'BEGIN { RS = ""; ORS = "\0" } { print }' | sort -z |
		sed -z 's/$/\n\n/' | tr -d '\0'
}

# local_view OUT SO DIR: pminfo in a local context with agent SO on DIR
local_view() {
	PCP_TMP_DIR=$3 pminfo -L -K clear -K add,70,"$2",mmv_init -n "$pmns" \
		-dfmtTl mmv 2> "$1.err" | sorted > "$1"
}

# The deliberate differences of ours from PCP 6's pmdammv, taken out of a
# pair of outputs (theirs, ours) after checking ours does what it should:
#  - mmv.control.metrics is PCP 7's fourth control metric; PCP 6 lacks it
#    (compared where theirs has it).
#  - SENTINEL float/double NaN is "no value" (PCP 7); PCP 6 compares NaN
#    with NaN and exports "nan" (docs/mmv-format.md §9.4).
#  - an automatic cluster's file keeps its cluster labels: the writer
#    stores the requested cluster (0) as the label identity, which PCP
#    compares with the assigned cluster and so never matches (docs/mmv-format.md §9.6).
deliberate() {
	name=$1 theirs=$2 ours=$3
	metrics=$(grep -c '^mmv\.' "$ours")
	check "$name: mmv.control.metrics counts the file metrics" \
		sh -c "awk 'BEGIN{RS=\"\"} /^mmv.control.metrics /' '$ours' |
			grep -qx '    value $((metrics - 4))'"
	check "$name: SENTINEL NaN gives no value" \
		sh -c "awk 'BEGIN{RS=\"\"} /^mmv.sentinel.[fd]nan /' '$ours' |
			grep -c 'No value' | grep -qx 2"
	check "$name: the automatic cluster keeps its cluster labels" \
		sh -c "awk 'BEGIN{RS=\"\"} /^mmv.v3auto.bytes /' '$ours' |
			grep -q '\"app\":\"writer\".*\"ver\":3'"
	filter "$theirs" "$ours"
}

# filter THEIRS OURS: the deliberate differences out, into *.cmp
filter() {
	awk -v theirs_has="$(grep -c '^mmv\.control\.metrics ' "$1")" '
		BEGIN { RS = ""; ORS = "\n\n" }
		/^mmv\.control\.metrics / && !theirs_has { next }
		/^mmv\.v3auto\./ { gsub(/"app":"writer",/, ""); gsub(/,"ver":3/, "") }
		{ print }' "$2" > "$2.cmp"
	awk 'BEGIN { RS = ""; ORS = "\n\n" }
		/^mmv\.sentinel\.[fd]nan / { sub(/    value nan/, "No value(s) available!") }
		{ print }' "$1" > "$1.cmp"
}

# compare NAME THEIRS OURS: the whole outputs, deliberate differences out
compare() {
	deliberate "$1" "$2" "$3"
	same "$1: pminfo -dfmtTl mmv equals Debian's pmdammv" "$2.cmp" "$3.cmp"
}

if ! write_set "$W/pcplib" || ! write_set "$W/ourlib" "$top/build/lib"; then
	not_ok "the writer made every file"
	done_testing
	exit 1
fi

for set in pcplib ourlib; do
	local_view "$W/$set.theirs" "$theirs_so" "$W/$set"
	local_view "$W/$set.ours" "$ours_so" "$W/$set"
	compare "local, files by $set" "$W/$set.theirs" "$W/$set.ours"
	# What both must show, so an empty or broken pair cannot pass.
	check "local, files by $set: every case is exported" \
		sh -c "for m in v1.counter v2.inst.value v3.jobs v3auto.jobs strings.name \
			elapsed.set np_value proclive.alive sentinel.fine acme.products.count; do
			grep -q \"^mmv.\$m \" '$W/$set.ours' || exit 1; done"
	check "local, files by $set: a dead PROCESS writer's file is not" \
		sh -c "! grep -q '^mmv.procdead' '$W/$set.ours'"
	check "local, files by $set: the logs name no agent failure" \
		sh -c "! grep -qi 'segv\|abort\|fatal' '$W/$set.theirs.err' '$W/$set.ours.err'"
done
check "v1 values as written" grep -q '^    inst \[7 or "blue"\] value 99$' "$W/pcplib.ours"
check "ELAPSED is a 64-bit counter in microseconds" sh -c \
	"awk 'BEGIN{RS=\"\"} /^mmv.elapsed.set /' '$W/pcplib.ours' | grep -q 'Data Type: 64-bit int'"
check "SENTINEL all-ones is no value, -1 by value is kept" sh -c \
	"awk 'BEGIN{RS=\"\"} /^mmv.sentinel.ones /' '$W/pcplib.ours' | grep -q 'No value' &&
	 awk 'BEGIN{RS=\"\"} /^mmv.sentinel.minus1 /' '$W/pcplib.ours' | grep -q 'value -1$'"

# A file whose writer is mid-update (g2 != g1) is not ready: skipped, and
# mmv.control.reload reads 1 (docs/mmv-format.md §9.2, §9.7).
mkdir -p "$W/unready/mmv"
cp "$W/pcplib/mmv/v1" "$W/unready/mmv/v1"
cp "$W/pcplib/mmv/v3" "$W/unready/mmv/busy"
printf '\0\0\0\0\0\0\0\0' | dd of="$W/unready/mmv/busy" bs=1 seek=16 conv=notrunc 2>/dev/null
local_view "$W/unready.theirs" "$theirs_so" "$W/unready"
local_view "$W/unready.ours" "$ours_so" "$W/unready"
filter "$W/unready.theirs" "$W/unready.ours"
same "a file not ready: as Debian's" "$W/unready.theirs.cmp" "$W/unready.ours.cmp"
check "... not served, and mmv.control.reload reads 1" sh -c "! grep -q '^mmv.busy' '$W/unready.ours' &&
	awk 'BEGIN{RS=\"\"} /^mmv.control.reload /' '$W/unready.ours' | grep -qx '    value 1'"

# The pmproxy instance (domain 4, $PCP_TMP_DIR/pmproxy, prefix pmproxy).
mkdir -p "$W/proxy/pmproxy"
cp "$W/pcplib/mmv/v1" "$W/pcplib/mmv/v3" "$W/proxy/pmproxy/"
printf 'root {\n\tpmproxy\t4:*:*\n}\n' > "$W/proxy/pmns"
for who in theirs ours; do
	[ $who = theirs ] && so=$theirs_so || so=$ours_so
	PCP_TMP_DIR=$W/proxy pminfo -L -K clear -K add,4,"$so",pmproxy_init \
		-n "$W/proxy/pmns" -dfmtTl pmproxy.v1 pmproxy.v3 2>&1 | sorted > "$W/proxy.$who"
done
same "pmproxy_init: pmproxy.* equals Debian's" "$W/proxy.theirs" "$W/proxy.ours"
check "... and serves both files" sh -c "grep -q '^pmproxy.v1.counter PMID: 4.11.1 ' '$W/proxy.ours' &&
	grep -q '^pmproxy.v3.jobs PMID: 4.13.1 ' '$W/proxy.ours'"

# Indom requests through the PMDA interface (dbpmda). Instances must be
# Debian's; indom help is a deliberate difference: PCP 6 never serves it,
# PCP 7 looks it up with the cluster bits left in and so misses
# (docs/mmv-format.md §9.5); ours strips them and serves the indom's texts. v1's indom is
# serial 3 of cluster 11: 11 << 11 | 3 = 22531.
indom_view() {
	printf 'open dso %s mmv_init 70\ninstance 70.22531\ntext indom 70.22531\n' "$1" |
		PCP_TMP_DIR=$W/pcplib dbpmda -n "$pmns" -e 2>&1 | grep -v '^open dso'
}
indom_view "$theirs_so" > "$W/indom.theirs"
indom_view "$ours_so" > "$W/indom.ours"
grep '^\[ *[0-9]\] inst' "$W/indom.theirs" > "$W/inst.theirs"
grep '^\[ *[0-9]\] inst' "$W/indom.ours" > "$W/inst.ours"
same "instances of an indom equal Debian's" "$W/inst.theirs" "$W/inst.ours"
check "... and there are three" sh -c "[ \$(wc -l < '$W/inst.ours') = 3 ]"
check "indom help: Debian's has none" grep -qE 'text is not available|Unknown or illegal instance domain' "$W/indom.theirs"
check "indom help: ours serves the indom's texts" \
	sh -c "grep -qx '\[Colours\]' '$W/indom.ours' && grep -qx 'Three colours, ids 0, 1, 7' '$W/indom.ours'"

# stores: pmstore to each kind of metric, then what the controls read
stores() {
	for m in mmv.control.files mmv.v1.counter mmv.control.reload mmv.control.debug; do
		pmstore -h "$PMCD_HOST" $m 5 2>&1
		pmstore -h "$PMCD_HOST" $m 0 2>&1
	done
	pmstore -h "$PMCD_HOST" mmv.control.reload 5 2>&1
	pminfo -h "$PMCD_HOST" -f mmv.control.reload mmv.control.debug
}

# fresh NAME: files renamed into the directory one after another, each
# read at once through pmcd (no polling, no wait): the request that finds
# the directory changed must answer from the new files, names included.
# Then a served file is replaced by another and must show at once.
# shrink_big WHO: a served file of several pages truncated in place, then
# read at once: the last value's page is gone from the agent's mapping
# (SIGBUS, which kills PCP's agent, and pmcd with it as a DSO). Ours reads
# through a guard: no value, and the agent and the other files stay.
shrink_big() {
	bdir="$PCP_TMP_DIR/mmv"
	rm -f "$bdir/big"
	"$writer" big || not_ok "$1: writing the big file"
	i=0
	until pminfo -h "$PMCD_HOST" -f mmv.big.m299 2>&1 | grep -q 'value 299' ||
	    [ $i -ge 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	check "$1: a file of several pages is served" [ $i -lt 50 ]
	truncate -s 200 "$bdir/big"
	pmprobe -h "$PMCD_HOST" -v mmv.big.m299 > "$W/big.out" 2>&1
	check "$1: its last value, read at once after a truncation in place, is not served" \
		sh -c "! grep -q 'mmv.big.m299 1 299' '$W/big.out'"
	check "$1: ... pmcd and the agent are still up" pmcd_ready
	check "$1: ... serving the other files" \
		sh -c "pminfo -h '$PMCD_HOST' -f mmv.v1.counter | grep -q 'value 42'"
	rm -f "$bdir/big"
}

fresh() {
	fdir="$PCP_TMP_DIR/mmv" got=0
	for i in 1 2 3 4 5 6; do
		cp "$fdir/v3auto" "$fdir/.fresh$i" && mv "$fdir/.fresh$i" "$fdir/fresh$i"
		pminfo -h "$PMCD_HOST" -f mmv.fresh$i.jobs 2>&1 | grep -q 'value 8$' &&
			got=$((got + 1))
	done
	check "$1: 6 of 6 new files answered by the next request" [ $got = 6 ]
	# v1's contents at an automatic cluster: a copy of v1 itself would
	# ask for the cluster v1 holds and be refused.
	mkdir -p "$W/gen/mmv"
	PCP_TMP_DIR=$W/gen "$writer" v1auto &&
		cp "$W/gen/mmv/v1auto" "$fdir/.fresh1" && mv "$fdir/.fresh1" "$fdir/fresh1"
	check "$1: a replaced file is answered from its new contents" \
		sh -c "pminfo -h '$PMCD_HOST' -f mmv.fresh1.counter 2>&1 | grep -q 'value 42$' &&
			pminfo -h '$PMCD_HOST' -f mmv.fresh1.jobs 2>&1 | grep -q 'Unknown metric name'"
	rm -f "$fdir"/fresh*
	check "$1: removed files are gone from the next answer" \
		sh -c "pminfo -h '$PMCD_HOST' -f mmv.fresh2.jobs 2>&1 | grep -q 'Unknown metric name'"
}

# Through a private pmcd: Debian's DSO, then ours as a DSO and as a
# daemon, on the files PCP's library wrote. (A remote context has other
# context labels than a local one, hence Debian's through pmcd too.)
pmcd_init "$W/theirs"
export PCP_TMP_DIR="$W/pcplib"
pmcd_agent mmv 70 dso mmv_init "$theirs_so"
pmcd_pmns "$pmns"
if pmcd_start; then
	pminfo -h "$PMCD_HOST" -dfmtTl mmv 2>&1 | sorted > "$W/pmcd.theirs"
	stores > "$W/stores.theirs"
else
	not_ok "pmcd with Debian's DSO started"
fi
pmcd_stop

pmcd_init "$W/dso"
export PCP_TMP_DIR="$W/pcplib"
pmcd_agent mmv 70 dso mmv_init "$ours_so"
pmcd_pmns "$pmns"
if pmcd_start; then
	pminfo -h "$PMCD_HOST" -dfmtTl mmv 2>&1 | sorted > "$W/pmcd-dso.ours"
	compare "pmcd, ours as a DSO" "$W/pmcd.theirs" "$W/pmcd-dso.ours"
	stores > "$W/stores.ours"
	same "pmstore to the control and file metrics as Debian's" \
		"$W/stores.theirs" "$W/stores.ours"
	check "... files and file metrics: no permission" \
		sh -c "grep -c 'No permission' '$W/stores.ours' | grep -qx 4"
	check "... reload 5: a rescan, then it reads 0" \
		grep -q 'mmv.control.reload old value=0 new value=5' "$W/stores.ours"
	fresh "ours as a DSO"
	shrink_big "ours as a DSO"
else
	not_ok "pmcd with our DSO started"
fi
pmcd_stop

pmcd_init "$W/daemon"
export PCP_TMP_DIR="$W/pcplib"
pmcd_agent mmv 70 pipe binary "$ours_bin" -U "$(id -un)" -l "$W/daemon/log/mmv.log"
pmcd_pmns "$pmns"
if ! pmcd_start; then
	not_ok "pmcd with our daemon started"
	done_testing
	exit 1
fi
H=$PMCD_HOST
pminfo -h "$H" -dfmtTl mmv 2>&1 | sorted > "$W/pmcd-daemon.ours"
compare "pmcd, ours as a daemon" "$W/pmcd.theirs" "$W/pmcd-daemon.ours"

# Dynamic files, with a client fetching every 50 ms all along. The daemon
# rescans on its own thread, so each step polls (up to 5 s) for the view.
D="$W/pcplib/mmv"
pmval -h "$H" -t 0.05 -s 2000 mmv.control.files > "$W/pmval.out" 2>&1 &
pmval_pid=$!
kids="$kids $pmval_pid"
files() { pminfo -h "$H" -f mmv.control.files | awk '/value/ { print $2 }'; }
# poll COMMAND...: true once the command succeeds within 5 s
poll() {
	i=0
	while [ $i -lt 50 ]; do
		"$@" > /dev/null 2>&1 && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# until_ok DESCRIPTION COMMAND...: ok once the command succeeds within 5 s
until_ok() {
	d=$1; shift
	if poll "$@"; then ok "$d"; else not_ok "$d"; fi
}
has_value() { pminfo -h "$H" -f "$1" 2>&1 | grep -q "value $2"; }
unknown() { pminfo -h "$H" -f "$1" 2>&1 | grep -q 'Unknown metric name'; }
# PMCD_NAMES_CHANGE as a client sees it: pmFetch's positive status.
/usr/bin/python3 - "$H" > "$W/names.out" 2>&1 <<'PY' &
import ctypes, ctypes.util, sys, time
pcp = ctypes.CDLL(ctypes.util.find_library("pcp"))	# libpcp.so.3 or .4 (PCP 7)
pcp.pmNewContext(1, sys.argv[1].encode())	# PM_CONTEXT_HOST
pmid = (ctypes.c_uint * 1)()
pcp.pmLookupName(1, (ctypes.c_char_p * 1)(b"mmv.control.files"), pmid)
res = ctypes.c_void_p()
while True:
    sts = pcp.pmFetch(1, pmid, ctypes.byref(res))
    if sts < 0:
        print("error", sts, flush=True)
    else:
        if sts & 16:	# PMCD_NAMES_CHANGE
            print("names change", flush=True)
        pcp.pmFreeResult(res)
    time.sleep(0.05)
PY
names_pid=$!
kids="$kids $names_pid"
sleep 0.3
check "no names change reported while nothing changes" \
	sh -c "! grep -q 'names change' '$W/names.out'"
n0=$(files)
# told K: wait (up to 5 s) until the names client has seen K changes, so
# that changes made in quick succession are not merged into one flag.
untold=
seen() { [ "$(grep -c 'names change' "$W/names.out")" -ge "$1" ]; }
told() { poll seen "$1" || untold="$untold $1"; }
# An automatic cluster: the copy can sit beside its original.
cp "$D/v3auto" "$D/.dyn" && mv "$D/.dyn" "$D/dyn"
until_ok "a new file appears: mmv.dyn.jobs" has_value mmv.dyn.jobs 8
told 1
sleep 0.2	# answers are immediate now: give pmval (every 50 ms) time to see
check "... and mmv.control.files went up by one" [ "$(files)" = $((n0 + 1)) ]
rm "$D/dyn"
until_ok "a removed file vanishes: mmv.dyn.jobs unknown" unknown mmv.dyn.jobs
told 2
sleep 0.2
check "... and mmv.control.files is back" [ "$(files)" = "$n0" ]
cp "$D/v3auto" "$D/.dyn" && mv "$D/.dyn" "$D/dyn"
until_ok "a recreated file is served again" has_value mmv.dyn.jobs 8
told 3

# Hostile: a truncated copy of a good file beside it, and a served file
# truncated in place (PCP's mapping would SIGBUS there, docs/mmv-format.md §7.1, §7.2).
head -c 300 "$D/v3auto" > "$D/cut"
cp "$D/v3auto" "$D/.shrink" && mv "$D/.shrink" "$D/shrink"
until_ok "a file to shrink is served" has_value mmv.shrink.jobs 8
told 4
truncate -s 200 "$D/shrink"
until_ok "a file truncated in place stops being served" unknown mmv.shrink.jobs
told 5
check "the truncated files are not served" sh -c "! pminfo -h '$H' mmv | grep -q 'mmv.cut\.'"
shrink_big "ours as a daemon"
# An instance label cut short ({"a": where {"cpu":0} was): PCP's label
# parser gives no label for it, and pmdaLabel then took our count of one
# and crashed the agent (pmcd too, as a DSO). It is dropped, logged.
cut_label() {	# FROM TO
	off=$(grep -obUa '{"cpu":0}' "$1" | head -1 | cut -d: -f1)
	cp "$1" "$2.tmp" && printf '{"a":\0\0\0\0' |
		dd of="$2.tmp" bs=1 seek="$off" conv=notrunc 2>/dev/null &&
		mv "$2.tmp" "$2"
}
cut_label "$D/v3auto" "$D/lab"
until_ok "a file with a cut-short instance label is served" has_value mmv.lab.jobs 8
told 6
pminfo -h "$H" -l mmv.lab.jobs > "$W/lab.out" 2>&1
check "its instance labels are asked for: the agent answers" \
	sh -c "grep -q 'inst \[20 or \"w20\"\] labels .*\"cpu\":1' '$W/lab.out' &&
		! grep -q '\"a\"' '$W/lab.out'"
check "... and is still up" pmcd_ready
check "... having logged the label it dropped" \
	grep -q 'lab: label\[[0-9]*\] refused: not a label set' "$W/daemon/log/mmv.log"
mkdir -p "$W/lab/mmv"
cut_label "$W/pcplib/mmv/v3auto" "$W/lab/mmv/lab"
PCP_TMP_DIR=$W/lab pminfo -L -K clear -K add,70,"$ours_so",mmv_init -n "$pmns" \
	-l mmv > "$W/lab-dso.out" 2>&1
dso_sts=$?
check "as a DSO too: the labels of every metric, no crash" \
	sh -c "[ $dso_sts = 0 ] && grep -q 'inst \[20 or \"w20\"\] labels' '$W/lab-dso.out'"
check "the good files keep being served" has_value mmv.v1.counter 42
check "the agent is still up" pmcd_ready
sleep 0.2
kill "$pmval_pid" 2>/dev/null
wait "$pmval_pid" 2>/dev/null
check "the fetching client saw the file count change" \
	sh -c "grep -qx ' *$((n0 + 1))' '$W/pmval.out' && grep -qx ' *$n0' '$W/pmval.out'"
kill "$names_pid" 2>/dev/null
check "clients were told each of the 6 names changes (none missing:$untold)" \
	sh -c "[ -z '$untold' ] && [ \$(grep -c 'names change' '$W/names.out') -ge 6 ] && ! grep -q error '$W/names.out'"
[ -z "$untold" ] || { echo "# names client:"; sort "$W/names.out" | uniq -c | sed 's/^/# /'; }
check "... and never lost the agent" sh -c "! grep -qi 'error\|fail' '$W/pmval.out'"
check "the daemon logged the hostile file" grep -q 'cut' "$W/daemon/log/mmv.log"
fresh "ours as a daemon"
pmcd_stop
done_testing
