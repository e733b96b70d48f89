# SPDX-License-Identifier: GPL-2.0-or-later
# What the OTLP tests that run in a private network namespace share
# (otlp_access.sh, otlp_tls.sh). Source after tests/lib/tap.sh, pmcd.sh and
# otlp_sdk.sh, with top and ours set:
#
#   netns_enter FLAG [TOOL...]  outside the namespace: skip (TAP) inside a
#                          root of make check-matrix, when not root, or
#                          without unshare, ip or a TOOL; install the SDK
#                          (npm needs the network); then run this test
#                          again in a new network namespace with FLAG=1 in
#                          its environment. Inside (FLAG set) it returns.
#   export_as SERVICE URL ENCODING [VAR=VALUE...]
#                          two spans from the stock Node SDK
#                          (tests/integration/otlp/export.js) with the
#                          environment given; 0 when every export
#                          succeeded; its output in $W/SERVICE.log
#   run_agent LOG ARG...   our agent alone, no pmcd, to see whether it
#                          starts with ARGs (its log in LOG)
#   listening N DESC ARG...
#                          a private pmcd ($W/pmcdN) with our agent and
#                          ARGs, listening on $hp and $gp: "ok DESC", or
#                          "not ok DESC" and the agent's log; 0 or 1
#   fails CMD...           CMD failed
#   denied REASON          trace.otlp.denied's count of REASON

netns_skip() {
	echo "ok 1 # SKIP $*"
	echo "1..1"
	exit 0
}

netns_enter() {
	_nf=$1
	shift
	eval "[ -z \"\${$_nf:-}\" ]" || return 0
	[ -z "${SDK_IN_MATRIX:-}" ] ||
		netns_skip "inside a root of make check-matrix (no network for npm); the host's make check runs it"
	[ "$(id -u)" = 0 ] || netns_skip "not root: a network namespace needs unshare --net"
	for _t in unshare ip "$@"; do
		command -v "$_t" > /dev/null || netns_skip "no $_t"
	done
	_nw=$(mktemp -d /tmp/otlp_netns.XXXXXX)
	otlp_sdk_need "$_nw/npm.log"
	rm -rf "$_nw"
	exec env "$_nf=1" unshare --net sh "$0"
}

export_as() {
	_svc=$1 _url=$2 _enc=$3
	shift 3
	env NODE_PATH="$top/build/npm/node_modules" "$@" timeout 60 \
		node "$top/tests/integration/otlp/export.js" "$_url" "$_enc" none \
		"[{\"service\":\"$_svc\",\"name\":\"op\",\"kind\":\"server\",\"ms\":[10,20],\"errors\":0}]" \
		> "$W/$_svc.log" 2>&1
	_rc=$?
	sed "s/^/# $_svc: /" "$W/$_svc.log" | head -5
	return $_rc
}

run_agent() {
	_log=$1
	shift
	timeout 10 "$ours" -M "$(id -un)" -l "$_log" -I "$(pmcd_free_port)" -P "$W/otel.state" \
		"$@" < /dev/null > /dev/null 2>&1
}

listening() {
	_ln=$1 _ld=$2
	shift 2
	if start_agent "$_ln" "$@" && pmcd_wait_port "$hp" && pmcd_wait_port "$gp"; then
		ok "$_ld"
		return 0
	fi
	not_ok "$_ld"
	sed 's/^/# /' "$W/pmcd$_ln/log/trace.log" 2>/dev/null
	return 1
}

fails() { ! "$@"; }

denied() { value trace.otlp.denied "$1"; }
