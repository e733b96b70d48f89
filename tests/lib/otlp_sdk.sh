# SPDX-License-Identifier: GPL-2.0-or-later
# The stock OpenTelemetry SDK for Node in build/npm, installed by npm ci
# from tests/integration/otlp's committed package-lock.json, for the OTLP
# tests (otlp.sh, otlp_burst.sh, otlp_browser.sh, otlp_ipv6.sh,
# otlp_metrics.sh), the OTLP benchmark and the demo. Source it with top
# set to the tree:
#
#   otlp_sdk_install LOG   node and npm on PATH and the SDK in
#                          $top/build/npm (npm ci again when the lock
#                          file changed); npm's output goes to LOG.
#                          Returns 1 when there is no node or the install
#                          failed. Sets OTLP_SDK_PATH (for NODE_PATH).
#   otlp_sdk_need LOG      the test's preamble (after tests/lib/tap.sh):
#                          skipped inside a root of make check-matrix (no
#                          network for npm, no Node: the host's make check
#                          runs it), else otlp_sdk_install or a failure
#                          with npm's log; exits the test in both cases
#   start_agent N ARGS...  a private pmcd ($W/pmcdN) with our trace agent
#                          ($ours) and ARGS; sets port (tests/lib/pmcd.sh)
#   value METRIC INSTANCE  the value pminfo -f shows for the instance
#   within GOT WANT        |GOT - WANT| <= WANT / 64 (a percentile's error)
#   hold_port PORT         another process listens on 127.0.0.1:PORT for
#                          60 s (a port taken); sets holder, its pid
otlp_sdk_install() {
	OTLP_SDK_PATH="$top/build/npm/node_modules"
	command -v node > /dev/null && command -v npm > /dev/null || return 1
	if ! cmp -s "$top/tests/integration/otlp/package-lock.json" "$top/build/npm/package-lock.json" ||
	   [ ! -d "$OTLP_SDK_PATH/@opentelemetry/exporter-trace-otlp-proto" ]; then
		mkdir -p "$top/build/npm"
		cp "$top/tests/integration/otlp/package.json" \
			"$top/tests/integration/otlp/package-lock.json" "$top/build/npm/"
		(cd "$top/build/npm" && npm ci --no-audit --no-fund --loglevel=error) > "$1" 2>&1 ||
			{ rm -f "$top/build/npm/package-lock.json"; return 1; }
	fi
	test -d "$OTLP_SDK_PATH/@opentelemetry/exporter-trace-otlp-proto"
}

otlp_sdk_need() {
	if [ -n "${SDK_IN_MATRIX:-}" ]; then
		echo "ok 1 # SKIP inside a root of make check-matrix (no network for npm, no Node); the host's make check runs it"
		echo "1..1"
		exit 0
	fi
	if ! otlp_sdk_install "$1"; then
		sed 's/^/# /' "$1" 2>/dev/null
		not_ok "node, npm and the OpenTelemetry SDK in build/npm (npm ci; Node 20: make deps)"
		done_testing
		exit 1
	fi
}

start_agent() {
	pmcd_init "$W/pmcd$1"
	shift
	pmcd_trace_agent "$ours" "$@"
	pmcd_start && pmcd_wait_port "$port"
}

value() {
	pminfo -h "$PMCD_HOST" -f "$1" | sed -n "s|.*\"$2\"] value ||p"
}

within() {
	awk -v g="$1" -v w="$2" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(g != "" && d <= w / 64) }'
}

hold_port() {
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1); time.sleep(60)' "$1" &
	holder=$!
	sleep 0.3
}
