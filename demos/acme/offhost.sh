#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# offhost.sh HOST DIR METRIC...: the metrics of the pmcd at HOST as a
# user off the machine reads them: through Debian's pmproxy (its
# Prometheus /metrics text and a JSON /pmapi/fetch) and through a
# pmlogger archive read back with pmrep. Run from the top of the tree.
#
# pmproxy runs privately (own port, config, log and run directory in
# DIR; no Redis, no discovery); pmlogger writes DIR/archive. Both are
# stopped before the script returns. DIR keeps what was shown:
#   metrics.txt  the /metrics answer
#   fetch.json   the /pmapi/fetch answer
#   archive.*    the pmlogger archive
#   pmrep.csv    the archive read with pmrep (raw values, CSV)
# OFFHOST_SAMPLES (default 4) samples are logged OFFHOST_INTERVAL (1)
# seconds apart. Exits non-zero when a step fails.
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
[ $# -ge 3 ] || { echo "usage: $0 HOST DIR METRIC..." >&2; exit 2; }
host=$1
dir=$2
shift 2
samples=${OFFHOST_SAMPLES:-4}
interval=${OFFHOST_INTERVAL:-1}
names=$(echo "$*" | tr ' ' ',')
proxy_pid=
logger_pid=
stop_all() {
	for p in $logger_pid $proxy_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	logger_pid=
	proxy_pid=
}
trap stop_all EXIT
trap 'exit 130' INT TERM
mkdir -p "$dir/run" "$dir/log"

cat > "$dir/pmproxy.conf" <<'EOF'
[pmproxy]
pcp.enabled = true
http.enabled = true
redis.enabled = false
secure.enabled = false
[redis]
enabled = false
[discover]
enabled = false
[pmsearch]
enabled = false
[pmseries]
enabled = false
EOF

# start_proxy: a private pmproxy on a free port; sets PROXY_PORT
start_proxy() {
	for _try in 1 2 3; do
		PROXY_PORT=$(pmcd_free_port)
		PCP_RUN_DIR="$dir/run" "$PCP_BINADM_DIR/pmproxy" -f -A -p "$PROXY_PORT" \
			-c "$dir/pmproxy.conf" -l "$dir/log/pmproxy.log" \
			-s "$dir/run/pmproxy.socket" -U "$(id -un)" \
			> "$dir/log/pmproxy.out" 2>&1 &
		proxy_pid=$!
		for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
			curl -sf "http://localhost:$PROXY_PORT/pmapi/context?hostspec=$host" \
				> /dev/null 2>&1 && return 0
			kill -0 "$proxy_pid" 2>/dev/null || break
			sleep 0.25
		done
		stop_all
	done
	sed 's/^/# /' "$dir/log/pmproxy.log" >&2
	return 1
}

start_proxy || { echo "offhost: pmproxy did not start" >&2; exit 1; }
base="http://localhost:$PROXY_PORT"
echo "pmproxy ($PCP_BINADM_DIR/pmproxy) on port $PROXY_PORT, reading pmcd $host"

echo; echo "== $base/metrics?names=$names (Prometheus text) =="
curl -sf "$base/metrics?names=$names&hostspec=$host" > "$dir/metrics.txt" || exit 1
grep -v '^#' "$dir/metrics.txt" | sed 's/,machineid="[^"]*"//; s/,domainname="[^"]*"//' | head -20
echo "... $(grep -vc '^#' "$dir/metrics.txt") samples in all"

echo; echo "== $base/pmapi/fetch?names=$names (JSON) =="
curl -sf "$base/pmapi/fetch?names=$names&hostspec=$host" > "$dir/fetch.json" || exit 1
/usr/bin/python3 -m json.tool "$dir/fetch.json" | head -40
stop_all

echo; echo "== pmlogger archive: $samples samples $interval s apart, read back with pmrep =="
{
	echo "log mandatory on default {"
	for m in "$@"; do echo "	$m"; done
	echo "}"
} > "$dir/pmlogger.conf"
rm -f "$dir"/archive.*
pmlogger -h "$host" -c "$dir/pmlogger.conf" -l "$dir/log/pmlogger.log" \
	-t "$interval" -s "$samples" "$dir/archive" || {
	sed 's/^/# /' "$dir/log/pmlogger.log" >&2
	exit 1
}
# pmrep is Python: Debian's python3 has the pcp module
PATH=/usr/bin:$PATH pmrep -a "$dir/archive" -u -r -o csv "$@" > "$dir/pmrep.csv" || exit 1
PATH=/usr/bin:$PATH pmrep -a "$dir/archive" -u -r "$@" | head -20
