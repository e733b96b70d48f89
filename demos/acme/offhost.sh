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
. "$top/tests/lib/pmproxy.sh"
[ $# -ge 3 ] || { echo "usage: $0 HOST DIR METRIC..." >&2; exit 2; }
host=$1
dir=$2
shift 2
samples=${OFFHOST_SAMPLES:-4}
interval=${OFFHOST_INTERVAL:-1}
names=$(echo "$*" | tr ' ' ',')
logger_pid=
stop_all() {
	if [ -n "$logger_pid" ]; then
		kill "$logger_pid" 2>/dev/null && wait "$logger_pid" 2>/dev/null
	fi
	logger_pid=
	pmproxy_stop
}
trap stop_all EXIT
trap 'exit 130' INT TERM
mkdir -p "$dir/run" "$dir/log"

pmproxy_start "$dir" "pmapi/context?hostspec=$host" ||
	{ echo "offhost: pmproxy did not start" >&2; exit 1; }
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
