# SPDX-License-Identifier: GPL-2.0-or-later
# A private pmcd for tests and the demo: own directory, config, PMNS, port,
# unix socket, run dir and PCP_TMP_DIR. Never touches a system pmcd.
#
#   . tests/lib/pmcd.sh
#   pmcd_init DIR                       # DIR/{run,log,tmp/mmv}; exports PCP_TMP_DIR
#   pmcd_agent NAME DOMAIN dso INIT SO   # or: NAME DOMAIN pipe binary CMD...
#   pmcd_pmns FILE...                    # PMNS fragments besides pmcd's own
#   pmcd_start                           # sets PMCD_PORT, PMCD_PID, PMCD_HOST
#   pmcd_free_port                       # prints a free TCP port (for agents)
#   pmcd_trace_agent CMD [ARG...]        # a trace agent on a free port: sets port
#   pmcd_stop                            # call it from the caller's EXIT trap
#
# PMCD_WRAP, if set, is a command (words, unquoted) that pmcd_start runs
# pmcd under, with pmcd's command line as its arguments; it must exec it,
# so that PMCD_PID stays pmcd's (tests/integration/fleet.sh gives each
# pmcd a hostname of its own with unshare --uts).
#
# Internal variables are named _pmcd_*: sh functions share the caller's.
# Agents inherit this shell's environment (PMCD_ROOT_AGENT=0 keeps the
# system pmdaroot out of it), so PCP_TMP_DIR reaches them.
. /etc/pcp.env 2>/dev/null || true
: "${PCP_BINADM_DIR:=/usr/lib/pcp/bin}"
: "${PCP_VAR_DIR:=/var/lib/pcp}"

pmcd_init() {
	PMCD_DIR=$1
	mkdir -p "$PMCD_DIR/run" "$PMCD_DIR/log" "$PMCD_DIR/tmp/mmv"
	chmod 1777 "$PMCD_DIR/tmp/mmv"
	: > "$PMCD_DIR/pmcd.conf"
	printf 'pmcd\t2\tdso\tpmcd_init\t%s\n' "$PCP_VAR_DIR/pmdas/pmcd/pmda_pmcd.so" >> "$PMCD_DIR/pmcd.conf"
	PMCD_PMNS_PARTS="$PCP_VAR_DIR/pmns/root_pmcd"
	export PCP_TMP_DIR="$PMCD_DIR/tmp"
}

pmcd_agent() {
	printf '%s\n' "$*" | sed 's/ /\t/; s/ /\t/; s/ /\t/; s/ /\t/' >> "$PMCD_DIR/pmcd.conf"
}

pmcd_pmns() {
	PMCD_PMNS_PARTS="$PMCD_PMNS_PARTS $*"
}

# pmcd_free_port: a TCP port no socket uses, below the kernel's ephemeral
# range, so an outgoing connection cannot take it between choice and bind
# (a port chosen inside that range once collided in CI).
pmcd_free_port() {
	_pmcd_lo=$(awk '{print $1}' /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	[ "${_pmcd_lo:-0}" -gt 12000 ] 2>/dev/null || _pmcd_lo=32768
	_pmcd_used=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
	while :; do
		_pmcd_p=$(( 10000 + $(od -An -N2 -tu2 /dev/urandom) % (_pmcd_lo - 10000) ))
		echo "$_pmcd_used" | grep -qx "$_pmcd_p" || { echo "$_pmcd_p"; return; }
	done
}

# pmcd_trace_agent CMD [ARG...]: after pmcd_init, the trace agent CMD (ours
# or Debian's pmdatrace; domain 10, our build's PMNS, so $top must be the
# tree) listening on a free TCP port, which it sets in $port; its log is
# $PMCD_DIR/log/trace.log. Start with: pmcd_start && pmcd_wait_port "$port".
pmcd_trace_agent() {
	port=$(pmcd_free_port)
	_pmcd_cmd=$1
	shift
	# ours listens for OTLP on 4318 and 4317 by default: private agents do
	# not, unless the caller names ports (-O, -G: the last one given wins);
	# and keeps its OpenTelemetry metrics' PMIDs in the private directory,
	# never in the system's $PCP_VAR_DIR (-P)
	_pmcd_otlp=
	case "$_pmcd_cmd" in "$top"/build/*)
		_pmcd_otlp="-O off -G off -P $PMCD_DIR/trace.otel" ;;
	esac
	pmcd_agent trace 10 pipe binary "$_pmcd_cmd" -M "$(id -un)" \
		-l "$PMCD_DIR/log/trace.log" -I "$port" $_pmcd_otlp "$@"
	if [ -n "$_pmcd_otlp" ]; then
		pmcd_pmns "$top/build/pmdas/trace/root_trace"
	else
		# Debian's agent names nothing below our dynamic trace.otel, and
		# PCP 6.3 and later fail a walk of trace through a subtree whose
		# agent refuses it: its PMNS is ours without that node
		sed '/TRACE:\*:\*/d' "$top/build/pmdas/trace/root_trace" > "$PMCD_DIR/root_trace"
		pmcd_pmns "$PMCD_DIR/root_trace"
	fi
}

# pmcd_ready: every agent reports status 0
pmcd_ready() {
	_pmcd_st=$(pminfo -h "$PMCD_HOST" -f pmcd.agent.status 2>/dev/null) || return 1
	echo "$_pmcd_st" | grep -q 'value' || return 1
	! echo "$_pmcd_st" | grep 'value' | grep -qv 'value 0$'
}

# pmcd_start: up to three tries, each on a fresh port, in case another
# process binds the chosen port first.
pmcd_start() {
	rm -f "$PMCD_DIR/root"
	"$PCP_BINADM_DIR/pmnsmerge" $PMCD_PMNS_PARTS "$PMCD_DIR/root" > "$PMCD_DIR/log/pmnsmerge.log" 2>&1 || return 1
	for _pmcd_try in 1 2 3; do
		_pmcd_start_once && return 0
		pmcd_stop
		grep -q 'err.*inet' "$PMCD_DIR/log/pmcd.log" 2>/dev/null || break
		echo "# pmcd could not bind port $PMCD_PORT; trying another" >&2
	done
	echo "# pmcd did not become ready; log follows" >&2
	sed 's/^/# /' "$PMCD_DIR/log/pmcd.log" >&2
	return 1
}

_pmcd_start_once() {
	PMCD_PORT=$(pmcd_free_port)
	PMCD_HOST="localhost:$PMCD_PORT"
	rm -f "$PMCD_DIR/log/pmcd.log"
	PMCD_ROOT_AGENT=0 PCP_RUN_DIR="$PMCD_DIR/run" ${PMCD_WRAP:-} "$PCP_BINADM_DIR/pmcd" -f -A \
		-p "$PMCD_PORT" -c "$PMCD_DIR/pmcd.conf" -n "$PMCD_DIR/root" \
		-s "$PMCD_DIR/run/pmcd.socket" -l "$PMCD_DIR/log/pmcd.log" \
		-U "$(id -un)" > "$PMCD_DIR/log/pmcd.out" 2>&1 &
	PMCD_PID=$!
	_pmcd_i=0
	while [ $_pmcd_i -lt 100 ]; do
		pmcd_ready && return 0
		kill -0 "$PMCD_PID" 2>/dev/null || break
		sleep 0.1
		_pmcd_i=$((_pmcd_i + 1))
	done
	return 1
}

pmcd_stop() {
	if [ -n "${PMCD_PID:-}" ]; then
		kill "$PMCD_PID" 2>/dev/null
		wait "$PMCD_PID" 2>/dev/null
		PMCD_PID=
	fi
}

# pmcd_wait_port PORT: wait (up to 5 s) until something listens on the TCP
# port, e.g. a trace agent, which may open it after pmcd calls it ready.
pmcd_wait_port() {
	_pmcd_i=0
	while [ $_pmcd_i -lt 50 ]; do
		ss -Htln "sport = :$1" 2>/dev/null | grep -q . && return 0
		sleep 0.1
		_pmcd_i=$((_pmcd_i + 1))
	done
	return 1
}
