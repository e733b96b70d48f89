#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The fleet path: many hosts' metrics in one place, as PCP scales past a
# machine (pmproxy, a key server, pmseries, Grafana's PCP data source).
# Two private pmcds stand in for two hosts, fleet-alpha and fleet-beta.
# Each runs in a UTS namespace of its own (unshare --uts) with that
# hostname, since PCP's context label "hostname", which series are told
# apart by, is gethostname()'s (a "hostname" in a labels file does not
# win, and pmcd -H, which each also gets, sets only the pmcd.hostname
# metric that pmlogger writes into the archive label; so on PCP 6.0,
# 6.3 and 7). Each serves our MMV agent (the daemon) and our trace agent;
# on each, hist_writer records a distribution of its own into shop.lat
# (the counter mmv.shop.lat.count, the instance label "of", the agent's
# cumulative buckets mmv.percentile.shop.lat.bucket with their "le"
# label) and our pmtrace sends a trace counter.
# Then the path a central host runs: a pmlogger per host writes its
# archive under ARCHIVES/HOSTNAME/ (pmlogger_farm's layout); Debian's
# pmproxy, private, with discovery and time series on and ARCHIVES as its
# PCP_ARCHIVE_DIR, log-tails both into a private key server (Valkey where
# installed, else Redis; loopback only, no persistence). pmproxy starts
# once both archives hold a record, as on a farm that runs: a host folder
# made while pmproxy runs, with pmlogger writing into it at once, was
# missed every time on PCP 6.0 and 6.3, one run in two on 7.2, and
# archives begun in the second pmproxy started were missed once on 6.0
# (docs/fleet.md). The key server is set in pmproxy.conf's [keys] where
# pmproxy knows --keyhost (PCP 6.3, 7), else in [redis] (PCP 6.0).
# Checks, against what each pmcd serves (pminfo) and what the test told
# the writers to record, never against pmseries' own output:
#   - pmseries by metric name and by the labels hostname, of and le gives
#     both hosts' series (one host's, by hostname), with their values;
#   - pmproxy's REST API, called as Grafana's PCP data source calls it
#     (/series/query, then /series/values, /series/instances and
#     /series/labels), gives the same;
#   - a host that does not exist and an le no bucket has match nothing,
#     and the two hosts' records swapped fail the comparison.
# Needs root (unshare), as make check and the matrix roots have.
# FLEET_KEYS=redis (or valkey) picks the key server where both are.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/pmproxy.sh"
. "$top/tests/lib/debian.sh"
W=$(mktemp -d /tmp/fleet.XXXXXX)
mmv_bin="$top/build/pmdas/mmv/pmdammv"
trace_bin="$top/build/pmdas/trace/pmdatrace"
writer="$top/build/tests/integration/hist_writer"
pmtrace_bin="$top/build/bin/pmtrace"
HOSTS="fleet-alpha fleet-beta"
KEYS_PID= PROXY_PID= PIDS= LOGGERS=
T0=$(date +%s)

cleanup() {
	touch "$W/stop" 2> /dev/null	# the writers' input loops end
	for p in $LOGGERS $PIDS $PROXY_PID $KEYS_PID; do
		kill "$p" 2> /dev/null
	done
	for h in $HOSTS; do
		eval "PMCD_PID=\${pid_$(echo "$h" | tr - _):-}"
		pmcd_stop
	done
	for p in $LOGGERS $PIDS $PROXY_PID $KEYS_PID; do
		wait "$p" 2> /dev/null
	done
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM
bail() { not_ok "$*"; done_testing; exit 1; }
show() { [ -f "$1" ] && sed 's/^/# /' "$1" | tail -${2:-20}; }

for f in "$mmv_bin" "$trace_bin" "$writer" "$pmtrace_bin"; do
	[ -x "$f" ] || bail "$f is built (make all check)"
done
[ "$(id -u)" = 0 ] || bail "runs as root (unshare --uts gives each pmcd its hostname)"
# the key server: Valkey where installed (make deps prefers it), else Redis
KEYS_SRV=
for k in ${FLEET_KEYS:-valkey redis}; do
	command -v "$k-server" > /dev/null || continue
	KEYS_SRV=$(command -v "$k-server") KEYS_CLI=$k-cli
	break
done
[ -n "$KEYS_SRV" ] || bail "${FLEET_KEYS:-valkey or redis}-server is installed (make deps)"
PMSERIES=$(command -v pmseries)
need_debian fleet "$PCP_BINADM_DIR/pmproxy" "$PCP_BINADM_DIR/pmcd" "$(command -v pmlogger)" \
	"$PMSERIES" "$KEYS_SRV" "$(command -v "$KEYS_CLI")" /usr/bin/python3
diag "$("$KEYS_SRV" --version | cut -d' ' -f1-3), pcp $(dpkg-query -W -f='${Version}' pcp)"

# 1. The key server: private port, no persistence, loopback only.
mkdir -p "$W/keys"
KEYS_PORT=$(pmcd_free_port)
"$KEYS_SRV" --port "$KEYS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
	--dir "$W/keys" --logfile "$W/keys/server.log" --daemonize no > /dev/null 2>&1 3>&- &
KEYS_PID=$!
keys() { "$KEYS_CLI" -h 127.0.0.1 -p "$KEYS_PORT" "$@"; }
keys_up() { [ "$(keys ping 2> /dev/null)" = PONG ]; }
poll 10 keys_up || { show "$W/keys/server.log"; bail "$KEYS_SRV answers PING on port $KEYS_PORT"; }
ok "$(basename "$KEYS_SRV") on 127.0.0.1:$KEYS_PORT, no persistence"

# 2. Two hosts: a pmcd each in its own UTS namespace, our two agents, a
# writer. Distributions (value x times) differ so that a host's series
# cannot pass for the other's.
cat > "$W/as_host" <<-'EOF'
	# as_host NAME PMCD ARG... (under unshare --uts): pmcd as host NAME
	hostname "$1" || exit 1
	n=$1
	shift
	p=$1
	shift
	exec "$p" -H "$n" "$@"
EOF
rec_fleet_alpha="anvils 100 30
rockets 20 5
rockets 300 10"
rec_fleet_beta="anvils 40 7
rockets 700 40"
ctr_fleet_alpha=17
ctr_fleet_beta=42
for h in $HOSTS; do
	v=$(echo "$h" | tr - _)
	pmcd_init "$W/$h"
	mkdir -p "$W/$h/tmp/pmlogger"
	eval "recs=\$rec_$v"
	# the writer records, dumps its tallies, and keeps its file until the end
	( echo "$recs" | sed 's/^/rec shop.lat /'; echo dump
	  i=0; while [ ! -e "$W/stop" ] && [ $i -lt 1500 ]; do sleep 0.2; i=$((i + 1)); done ) |
		"$writer" > "$W/$h/w.out" 2> "$W/$h/w.err" &
	PIDS="$PIDS $!"
	pmcd_agent mmv 70 pipe binary "$mmv_bin" -U "$(id -un)" -l "$W/$h/log/mmv.log" -s 0.25 -w 60
	pmcd_pmns "$top/build/pmdas/mmv/root_mmv"
	pmcd_trace_agent "$trace_bin"
	PMCD_WRAP="unshare --uts sh $W/as_host $h"
	pmcd_start 3>&-
	eval "pid_$v=\$PMCD_PID host_$v=\$PMCD_HOST"	# for cleanup, whatever follows
	[ -n "$PMCD_PID" ] && pmcd_wait_port "$port" || bail "$h: pmcd with our MMV and trace agents starts"
	PMCD_PID=
	eval "ctr=\$ctr_$v"
	PCP_TRACE_PORT=$port "$pmtrace_bin" -h localhost -q -c "$ctr" jobs ||
		not_ok "$h: our pmtrace sends a counter to our trace agent"
done
PMCD_WRAP=

# each writer answered its records and the dump
for h in $HOSTS; do
	v=$(echo "$h" | tr - _)
	eval "n=\$(echo \"\$rec_$v\" | wc -l)"
	poll 5 sh -c "[ \$(grep -c '^done\$' '$W/$h/w.out') -ge $((n + 1)) ]" ||
		{ show "$W/$h/w.err"; bail "$h: the writer recorded its $n distributions"; }
done

# what each host says of itself, through pminfo (what the series below are held to)
for h in $HOSTS; do
	v=$(echo "$h" | tr - _)
	eval "H=\$host_$v"
	pminfo -h "$H" -f pmcd.hostname mmv.shop.lat.count mmv.percentile.shop.lat.bucket \
		trace.counter.value > "$W/$h/pminfo.txt" 2>&1
	pminfo -h "$H" -l pmcd.hostname > "$W/$h/labels.txt" 2>&1
	check "$h: pmcd.hostname and the context label hostname are $h" \
		sh -c "grep -q 'value \"$h\"' '$W/$h/pminfo.txt' && grep -q '\"hostname\":\"$h\"' '$W/$h/labels.txt'"
done

# 3. A pmlogger per host, as pmlogger_farm runs them: ARCHIVES/HOST/DATE
ARCH="$W/archives"
for h in $HOSTS; do mkdir -p "$ARCH/$h"; done
cat > "$W/pmlogger.conf" <<-EOF
	log mandatory on every 500 msec {
	    mmv.shop.lat.count
	    mmv.shop.lat.bucket
	    mmv.percentile.shop.lat.bucket
	    trace.counter.value
	}
EOF
for h in $HOSTS; do
	v=$(echo "$h" | tr - _)
	eval "H=\$host_$v"
	PCP_TMP_DIR="$W/$h/tmp" pmlogger -h "$H" -c "$W/pmlogger.conf" -l "$W/$h/log/pmlogger.log" \
		-T 60sec "$ARCH/$h/$(date +%Y%m%d.%H.%M)" > /dev/null 2>&1 3>&- &
	LOGGERS="$LOGGERS $!"
done

# pmproxy starts on archives that pmlogger is writing, as a central
# host's does: each has the counts in a record before pmproxy starts
logged() {
	set -- "$1"/*.meta
	[ -f "$1" ] && pmdumplog "${1%.meta}" 2> /dev/null | grep -q '(mmv.shop.lat.count):'
}
for h in $HOSTS; do
	poll 20 logged "$ARCH/$h" ||
		{ show "$W/$h/log/pmlogger.log"; bail "$h: pmlogger logs the counts"; }
done

# 4. pmproxy: time series and discovery on, the archives' top directory
# its PCP_ARCHIVE_DIR; the key server's section by what it knows.
if "$PCP_BINADM_DIR/pmproxy" --help 2>&1 | grep -q -- '--keyhost'; then
	KSECT=keys
else
	KSECT=redis
fi
diag "pmproxy.conf: key server in [$KSECT]"
printf '%s\n' '[pmproxy]' 'pcp.enabled = true' 'http.enabled = true' \
	'redis.enabled = false' 'resp.enabled = false' 'secure.enabled = false' \
	"[$KSECT]" 'enabled = true' "servers = 127.0.0.1:$KEYS_PORT" \
	'[discover]' 'enabled = true' \
	'[pmsearch]' 'enabled = false' \
	'[pmseries]' 'enabled = true' > "$W/series.conf"
PCP_ARCHIVE_DIR=$ARCH PROXY_CONF=$W/series.conf PROXY_ARGS="-i 127.0.0.1" \
	pmproxy_start "$W/proxy" series/ping 2> "$W/proxy.err" ||
	{ show "$W/proxy.err"; bail "pmproxy answers /series/ping"; }
URL="http://127.0.0.1:$PROXY_PORT"
ok "pmproxy on port $PROXY_PORT with time series, discovering $ARCH"

# pmseries against the private key server
series() { "$PMSERIES" -h 127.0.0.1 -p "$KEYS_PORT" "$@"; }
# both hosts' counts ingested: four series (2 hosts x 2 products) with values
ingested() {
	[ "$(series 'mmv.shop.lat.count[samples:1]' 2> /dev/null | grep -c '^ *\[')" -ge 4 ]
}
poll 30 ingested || {
	show "$W/proxy/log/pmproxy.log" 40
	for h in $HOSTS; do show "$W/$h/log/pmlogger.log"; done
	ls -lR "$ARCH" | sed 's/^/# /'
	diag "key server: $(keys dbsize 2>&1) keys; pmseries: $(series 'mmv.shop.lat.count' 2>&1 | head -3)"
	bail "pmproxy ingests both hosts' archives into the key server"
}
ok "pmproxy discovered both pmloggers' archives and loaded values"

# The references: what each pmcd serves (pminfo), what each writer was
# told to record (the counts below an le bound, from the test's own lines).
fs() { /usr/bin/python3 "$top/tests/integration/fleet_series.py" "$@"; }
for h in $HOSTS; do
	v=$(echo "$h" | tr - _)
	eval "H=\$host_$v; recs=\$rec_$v; ctr=\$ctr_$v"
	for m in mmv.shop.lat.count mmv.percentile.shop.lat.bucket trace.counter.value; do
		fs pminfo "$h" "$H" "$m" >> "$W/want.$m" || bail "$h: pminfo reads $m"
	done
	echo "$recs" > "$W/$h/recs"
	for le in 112 +Inf; do
		fs recorded "$h" "$W/$h/recs" "$le" >> "$W/rec.$le"
	done
	check "$h: trace.counter.value[jobs] is the $ctr pmtrace sent" \
		grep -q "^$h	jobs	$ctr	" "$W/want.trace.counter.value"
done
check "the pmcds serve the counts recorded (mmv.shop.lat.count)" \
	sh -c "cut -f1,3 '$W/want.mmv.shop.lat.count' | sort > '$W/a' &&
		cut -f1,3 '$W/rec.+Inf' | sort > '$W/b' && cmp -s '$W/a' '$W/b'"

# query VIA NAME QUERY WANT WHERE HOSTS: QUERY's rows through VIA
# (pmseries or rest) are WANT's rows (filtered by WHERE), of HOSTS
n_q=0
query() {
	n_q=$((n_q + 1))
	case $1 in
	pmseries) fs pmseries 127.0.0.1 "$KEYS_PORT" "$3" > "$W/got.$n_q" 2> "$W/got.$n_q.err" ;;
	rest) fs rest "$URL" "$3" > "$W/got.$n_q" 2> "$W/got.$n_q.err" ;;
	esac || { not_ok "$1 $2: $3 (fails)"; show "$W/got.$n_q.err"; return; }
	fs check "$4" "$W/got.$n_q" "$5" "$6" > "$W/check.$n_q"
	if [ $? -eq 0 ]; then
		_m=
		[ "$5" = - ] || _m=", $(grep -c "\"${5%%=*}\": \"${5#*=}\"" "$W/got.$n_q") with $5"
		ok "$1 $2: $3 gives $(wc -l < "$W/got.$n_q") values$_m, of $6, as they should be"
	else
		not_ok "$1 $2: $3"
		show "$W/check.$n_q"
		show "$W/got.$n_q" 10
	fi
}
# nothing VIA QUERY: no series at all
nothing() {
	n_q=$((n_q + 1))
	case $1 in
	pmseries) fs pmseries 127.0.0.1 "$KEYS_PORT" "$2" ;;
	rest) fs rest "$URL" "$2" ;;
	esac > "$W/got.$n_q" 2>&1
	check "$1: $2 matches nothing" test $? -eq 0 -a ! -s "$W/got.$n_q"
}
both=fleet-alpha,fleet-beta
for via in pmseries rest; do
	query $via "by name" 'mmv.shop.lat.count' "$W/want.mmv.shop.lat.count" - $both
	query $via "by name" 'trace.counter.value' "$W/want.trace.counter.value" - $both
	for h in $HOSTS; do
		query $via "by hostname" "mmv.shop.lat.count{hostname == \"$h\"}" \
			"$W/want.mmv.shop.lat.count" "hostname=$h" $h
	done
	query $via "by instance label" 'mmv.percentile.shop.lat.bucket{of == "rockets"}' \
		"$W/want.mmv.percentile.shop.lat.bucket" of=rockets $both
	query $via "by le, against pminfo" 'mmv.percentile.shop.lat.bucket{le == "112"}' \
		"$W/want.mmv.percentile.shop.lat.bucket" le=112 $both
	query $via "by le, against the records" 'mmv.percentile.shop.lat.bucket{le == "112"}' \
		"$W/rec.112" le=112 $both
	query $via "by le, against the records" 'mmv.percentile.shop.lat.bucket{le == "+Inf"}' \
		"$W/rec.+Inf" le=+Inf $both
	inf_got="$W/got.$n_q"
	nothing $via 'mmv.shop.lat.count{hostname == "fleet-gamma"}'
	nothing $via 'mmv.percentile.shop.lat.bucket{le == "113"}'
done

# The comparison can fail: the two hosts' records swapped must not pass.
fs recorded fleet-alpha "$W/fleet-beta/recs" +Inf > "$W/swapped"
fs recorded fleet-beta "$W/fleet-alpha/recs" +Inf >> "$W/swapped"
check "the hosts' records swapped do not pass for the answer" \
	sh -c "[ -s '$inf_got' ] && ! /usr/bin/python3 '$top/tests/integration/fleet_series.py' check '$W/swapped' '$inf_got' le=+Inf $both > /dev/null"
for p in $LOGGERS; do kill "$p" 2> /dev/null; done
diag "$(($(date +%s) - T0)) s"
done_testing
