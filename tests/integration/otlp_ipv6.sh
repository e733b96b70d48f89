#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# "localhost" that resolves to ::1 first (Debian's /etc/hosts has
# "::1 localhost"; Node 18 and later and Go's gRPC dial ::1 first): the
# stock Node SDK exporter (tests/integration/otlp/export.js) sends to
# http://localhost:PORT from a mount namespace whose /etc/hosts maps
# localhost to ::1 alone, so that Node's own fallback to the other family
# (autoSelectFamily, happy eyeballs) has nothing to fall back to. Against
# the agent with -O PORT (no host: both loopbacks, docs/trace-protocol.md
# §12) its spans land exactly; against -O 127.0.0.1:PORT (IPv4 alone) the
# same client fails and nothing lands: the difference the default makes.
# Needs root (unshare --mount, mount --bind) and an IPv6 loopback.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
W=$(mktemp -d /tmp/otlp_ipv6.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
trap 'pmcd_stop; rm -rf "$W"' EXIT

skip() {
	echo "ok 1 # SKIP $*"
	echo "1..1"
	exit 0
}
[ -z "${SDK_IN_MATRIX:-}" ] ||
	skip "inside a root of make check-matrix (no network for npm); the host's make check runs it"
[ "$(id -u)" = 0 ] || skip "not root: a private /etc/hosts needs unshare --mount and mount --bind"
ip -6 addr show lo 2>/dev/null | grep -q 'inet6 ::1/128' || skip "the host has no IPv6 loopback (ip -6 addr show lo)"
command -v unshare > /dev/null || skip "no unshare (util-linux)"

if ! otlp_sdk_install "$W/npm.log"; then
	sed 's/^/# /' "$W/npm.log" 2>/dev/null
	not_ok "node, npm and the OpenTelemetry SDK in build/npm (npm ci)"
	done_testing
	exit 1
fi

# The hosts file of the exporter's namespace: localhost is ::1, nothing else.
printf '::1\tlocalhost ip6-localhost ip6-loopback\n' > "$W/hosts"
chmod 644 "$W/hosts"

# in_v6_ns CMD...: CMD with $W/hosts as /etc/hosts, in a private mount namespace
in_v6_ns() {
	unshare --mount --propagation private sh -c 'mount --bind "$0" /etc/hosts && exec "$@"' "$W/hosts" "$@"
}
check "in the namespace, localhost resolves to ::1 alone ($(in_v6_ns getent ahosts localhost | awk '{print $1}' | sort -u | tr '\n' ' '))" \
	test "$(in_v6_ns getent ahosts localhost | awk '{print $1}' | sort -u)" = "::1"
check "in the namespace, Node resolves localhost to ::1 alone" \
	test "$(in_v6_ns node -e 'require("dns").lookup("localhost", { all: true }, (e, a) =>
		console.log(e ? e.code : a.map((x) => x.address).join(" ")))')" = "::1"
check "outside it, the host's /etc/hosts is untouched" sh -c "! cmp -s /etc/hosts '$W/hosts'"

# export SERVICE: 8 spans (2 ERROR) to http://localhost:$oport from the namespace
export_spans() {
	in_v6_ns env NODE_PATH="$OTLP_SDK_PATH" timeout 60 node "$top/tests/integration/otlp/export.js" \
		"http://localhost:$oport" proto none \
		"[{\"service\":\"$1\",\"name\":\"op\",\"kind\":\"server\",\"ms\":[10,10,10,10,20,20,20,20],\"errors\":2}]" \
		> "$W/export.log" 2>&1
	_rc=$?
	sed 's/^/# /' "$W/export.log"
	return $_rc
}

# start_agent N ADDRESS: a private pmcd with our trace agent, -O ADDRESS
start_agent() {
	pmcd_init "$W/pmcd$1"
	pmcd_trace_agent "$ours" -O "$2"
	pmcd_start && pmcd_wait_port "$port" && pmcd_wait_port "$oport"
}

# 1. -O PORT: both loopbacks.
oport=$(pmcd_free_port)
if start_agent 1 "$oport"; then
	ok "pmcd with our trace agent, -O $oport (no host)"
	ss -Htln "sport = :$oport" | awk '{print "# listening: " $4}'
	check "the receiver listens on 127.0.0.1:$oport and [::1]:$oport" \
		sh -c "ss -Htln 'sport = :$oport' | grep -q '127.0.0.1:$oport' &&
			ss -Htln 'sport = :$oport' | grep -q '\[::1\]:$oport'"
	check "the Node SDK's exporter to http://localhost:$oport (::1) succeeds" export_spans v6svc
	check "v6svc:server/op: trace.span.count 8, trace.span.errors 2" \
		test "$(value trace.span.count v6svc:server/op)/$(value trace.span.errors v6svc:server/op)" = 8/2
else
	not_ok "pmcd with our trace agent, -O $oport (no host)"
	sed 's/^/# /' "$W/pmcd1/log/trace.log" 2>/dev/null
fi
pmcd_stop

# 2. -O 127.0.0.1:PORT: IPv4 alone; the same client finds nobody at ::1.
oport=$(pmcd_free_port)
if start_agent 2 "127.0.0.1:$oport"; then
	ok "pmcd with our trace agent, -O 127.0.0.1:$oport"
	check "the receiver listens on 127.0.0.1:$oport alone" \
		test "$(ss -Htln "sport = :$oport" | awk '{print $4}')" = "127.0.0.1:$oport"
	if export_spans v4only; then
		not_ok "the Node SDK's exporter to http://localhost:$oport (::1) fails"
	else
		ok "the Node SDK's exporter to http://localhost:$oport (::1) fails"
	fi
	check "and nothing lands (no v4only span, no request counted)" \
		sh -c "! pminfo -h '$PMCD_HOST' -f trace.span.count | grep -q v4only &&
			! pminfo -h '$PMCD_HOST' -f trace.otlp.requests | grep -qv 'value 0\$\|^\$\|^trace'"
else
	not_ok "pmcd with our trace agent, -O 127.0.0.1:$oport"
fi
pmcd_stop
done_testing
