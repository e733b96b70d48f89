# SPDX-License-Identifier: GPL-2.0-or-later
# A private pmproxy for tests and demos: Debian's, with its REST API only
# (no Redis, no discovery, no TLS), its own port, config, log and run
# directory. Source after tests/lib/pmcd.sh (pmcd_free_port).
#
#   pmproxy_start DIR [PATH]   # DIR/{pmproxy.conf,run,log}; sets PROXY_PORT
#                              # and PROXY_PID once http://localhost:PORT/PATH
#                              # answers (default pmapi/context); 3 tries
#   pmproxy_stop               # for the caller's EXIT trap
#
# PROXY_CONF, if set, is a pmproxy.conf of the caller's to use instead
# (tests/integration/fleet.sh: time series and discovery on), and
# PROXY_ARGS more pmproxy arguments (words, unquoted: -i 127.0.0.1).
#
# pmproxy fetches from the pmcd a request names (hostspec=), else from the
# local one on $PMCD_PORT (set it in pmproxy_start's environment).
# Internal variables are named _pp_*.
PROXY_PID=

pmproxy_start() {
	_pp_dir=$1
	_pp_path=${2:-pmapi/context}
	mkdir -p "$_pp_dir/run" "$_pp_dir/log"
	if [ -n "${PROXY_CONF:-}" ]; then
		cp "$PROXY_CONF" "$_pp_dir/pmproxy.conf" || return 1
	else
		printf '%s\n' '[pmproxy]' 'pcp.enabled = true' 'http.enabled = true' \
			'redis.enabled = false' 'secure.enabled = false' \
			'[redis]' 'enabled = false' '[discover]' 'enabled = false' \
			'[pmsearch]' 'enabled = false' '[pmseries]' 'enabled = false' \
			> "$_pp_dir/pmproxy.conf"
	fi
	for _pp_try in 1 2 3; do
		PROXY_PORT=$(pmcd_free_port)
		PCP_RUN_DIR="$_pp_dir/run" "$PCP_BINADM_DIR/pmproxy" -f -A ${PROXY_ARGS:-} -p "$PROXY_PORT" \
			-c "$_pp_dir/pmproxy.conf" -l "$_pp_dir/log/pmproxy.log" \
			-s "$_pp_dir/run/pmproxy.socket" -U "$(id -un)" \
			> "$_pp_dir/log/pmproxy.out" 2>&1 3>&- &
		PROXY_PID=$!
		_pp_i=0
		while [ $_pp_i -lt 40 ]; do
			curl -sf "http://localhost:$PROXY_PORT/$_pp_path" > /dev/null 2>&1 && return 0
			kill -0 "$PROXY_PID" 2>/dev/null || break
			sleep 0.25
			_pp_i=$((_pp_i + 1))
		done
		pmproxy_stop
	done
	sed 's/^/# /' "$_pp_dir/log/pmproxy.log" >&2
	return 1
}

pmproxy_stop() {
	if [ -n "$PROXY_PID" ]; then
		kill "$PROXY_PID" 2>/dev/null
		wait "$PROXY_PID" 2>/dev/null
		PROXY_PID=
	fi
}
