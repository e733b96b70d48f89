#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Browsers and the OTLP/HTTP receiver's CORS (docs/trace-protocol.md §12.8):
# a page on the stock OpenTelemetry web SDK (tests/integration/otlp/browser.js,
# bundled here with esbuild from build/npm), served from another loopback
# port than the receiver's, loaded by Debian's Chromium headless. With the
# page's origin allowed (-C), its 15 spans land exactly, with the JSON and
# the protobuf exporter; without -C the preflight is answered 405 without
# Access-Control-Allow-Origin and nothing lands; with -C naming another
# origin, the preflight is refused (403) and nothing lands. Each answer is
# counted in trace.otlp.requests. curl checks the headers themselves.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
W=$(mktemp -d /tmp/otlp_browser.XXXXXX)
ours="$top/build/pmdas/trace/pmdatrace"
web=
trap 'pmcd_stop; [ -z "$web" ] || kill "$web" 2>/dev/null; rm -rf "$W"' EXIT

# The matrix's roots have no network for npm and no Chromium: the host runs this test.
if [ -n "${SDK_IN_MATRIX:-}" ]; then
	echo "ok 1 # SKIP inside a root of make check-matrix (no network for npm, no Chromium); the host's make check runs it"
	echo "1..1"
	exit 0
fi
chromium=$(command -v chromium)
if [ -z "$chromium" ]; then
	echo "ok 1 # SKIP no chromium on PATH (Debian's package chromium; make deps installs it)"
	echo "1..1"
	exit 0
fi
check "the chromium on PATH is Debian's ($(dpkg -S "$(readlink -f "$chromium")" 2>/dev/null | cut -d: -f1))" \
	sh -c "dpkg -S \"\$(readlink -f '$chromium')\" > /dev/null 2>&1"
diag "$("$chromium" --version 2>/dev/null)"

if ! otlp_sdk_install "$W/npm.log"; then
	sed 's/^/# /' "$W/npm.log" 2>/dev/null
	not_ok "node, npm and the OpenTelemetry SDK in build/npm (npm ci)"
	done_testing
	exit 1
fi
mkdir -p "$W/web"
printf '<!doctype html>\n<html><head><meta charset="utf-8"><title>spans</title></head>%s\n' \
	'<body><script src="page.js"></script></body></html>' > "$W/web/index.html"
check "the page bundled with esbuild (sdk-trace-web, exporter-trace-otlp-http and -proto)" \
	sh -c "NODE_PATH='$OTLP_SDK_PATH' '$OTLP_SDK_PATH/.bin/esbuild' '$top/tests/integration/otlp/browser.js' \
		--bundle --format=iife --platform=browser --log-level=warning \
		--outfile='$W/web/page.js' > '$W/esbuild.log' 2>&1"
sed 's/^/# /' "$W/esbuild.log"

# The page's server, on its own loopback port: the page's origin.
wport=$(pmcd_free_port)
origin="http://127.0.0.1:$wport"
/usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$W/web" "$wport" > "$W/web.log" 2>&1 &
web=$!
check "the page served at $origin" pmcd_wait_port "$wport"

# start_agent N ARGS...: a private pmcd with our trace agent, its receiver on $oport
start_agent() {
	oport=$(pmcd_free_port)
	pmcd_init "$W/pmcd$1"
	shift
	pmcd_trace_agent "$ours" -O "127.0.0.1:$oport" "$@"
	pmcd_start && pmcd_wait_port "$port" && pmcd_wait_port "$oport"
}

# browse ENC SVC: the page in headless Chromium, exporting to our receiver;
# prints the page's outcome ("exported 15" or "failed: WHY")
browse() {
	rm -rf "$W/profile"
	timeout 90 "$chromium" --headless=new --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$W/profile" --virtual-time-budget=20000 --dump-dom \
		"$origin/index.html?enc=$1&svc=$2&url=http://127.0.0.1:$oport/v1/traces" \
		> "$W/dom" 2> "$W/chromium.log"
	sed -n 's|.*<pre id="outcome">\([^<]*\)</pre>.*|\1|p' "$W/dom"
}

# answers CODE: trace.otlp.requests's count of CODE (empty when none)
answers() {
	value trace.otlp.requests "$1"
}

# landed SVC: the page's 15 spans, by instance, count and errors
landed() {
	for e in "$1:internal/page-load=5=1" "$1:client/GET_/api/cart=6=2" "$1:internal/click-buy=4=0"; do
		inst=${e%%=*} rest=${e#*=}
		check "$inst: trace.span.count ${rest%%=*}, trace.span.errors ${rest#*=}" \
			test "$(value trace.span.count "$inst")/$(value trace.span.errors "$inst")" = \
			"${rest%%=*}/${rest#*=}"
	done
}

# none: no span of the page's in the span table
none() {
	! pminfo -h "$PMCD_HOST" -f trace.span.count | grep -q '"web-'
}

# preflight ORIGIN [HEADERS]: curl's preflight; the code, the headers in $W/pre
preflight() {
	curl -s -o /dev/null -D "$W/pre" -w '%{http_code}' -X OPTIONS -H "Origin: $1" \
		-H 'Access-Control-Request-Method: POST' \
		-H "Access-Control-Request-Headers: ${2:-content-type}" "http://127.0.0.1:$oport/v1/traces"
}

# 1. The page's origin allowed, exactly.
if start_agent 1 -C "http://127.0.0.1:9,$origin"; then
	ok "pmcd with our trace agent, -C http://127.0.0.1:9,$origin"
	out=$(browse json web-json)
	check "Chromium, JSON exporter: the page says '$out' (exported 15)" test "$out" = "exported 15"
	out=$(browse proto web-proto)
	check "Chromium, protobuf exporter: the page says '$out' (exported 15)" test "$out" = "exported 15"
	pminfo -h "$PMCD_HOST" -f trace.span.count trace.span.errors trace.otlp.requests | sed 's/^/# /'
	landed web-json
	landed web-proto
	check "trace.otlp.spans.accepted 30" test "$(pminfo -h "$PMCD_HOST" -f trace.otlp.spans.accepted |
		sed -n 's/.*value //p')" = 30
	check "the preflights and the exports counted: 204 and 200 (at least one each)" \
		sh -c "test '$(answers 204)' -ge 1 && test '$(answers 200)' -ge 2"
	n204=$(answers 204)
	check "curl: preflight from $origin answered 204" test "$(preflight "$origin" 'content-type,x-custom')" = 204
	sed 's/^/# /' "$W/pre"
	check "  with Access-Control-Allow-Origin: $origin and Vary: Origin" \
		sh -c "grep -qi '^Access-Control-Allow-Origin: $origin' '$W/pre' && grep -qi '^Vary: Origin' '$W/pre'"
	check "  with Access-Control-Allow-Methods: POST, Max-Age 7200" \
		sh -c "grep -qi '^Access-Control-Allow-Methods: POST' '$W/pre' &&
			grep -qi '^Access-Control-Max-Age: 7200' '$W/pre'"
	check "  with Access-Control-Allow-Headers: Content-Type and the headers asked for" \
		sh -c "grep -i '^Access-Control-Allow-Headers:' '$W/pre' | grep -qi 'Content-Type.*x-custom'"
	check "  counted under 204" test "$(answers 204)" = $((n204 + 1))
	check "curl: a preflight asking for an overlong header list: 204, Allow-Headers Content-Type alone" \
		sh -c "test \"\$(curl -s -o /dev/null -D '$W/long' -w '%{http_code}' -X OPTIONS -H 'Origin: $origin' \
			-H 'Access-Control-Request-Method: POST' \
			-H 'Access-Control-Request-Headers: $(printf 'x%.0s' $(seq 300))' \
			'http://127.0.0.1:$oport/v1/traces')\" = 204 &&
			grep -i '^Access-Control-Allow-Headers:' '$W/long' | grep -qi '^[^:]*: Content-Type.\$'"
	n403=$(answers 403)
	check "curl: preflight from http://127.0.0.1:1 (not allowed) answered 403" \
		test "$(preflight http://127.0.0.1:1)" = 403
	check "  without Access-Control-Allow-Origin" sh -c "! grep -qi '^Access-Control-Allow-Origin' '$W/pre'"
	check "  counted under 403, and logged" \
		sh -c "test '$(answers 403)' = $((${n403:-0} + 1)) && grep -q 'answered 403' '$W/pmcd1/log/trace.log'"
	check "curl: a POST from $origin: 200 with Access-Control-Allow-Origin and Vary: Origin" \
		sh -c "test \"\$(curl -s -o /dev/null -D '$W/post' -w '%{http_code}' -H 'Origin: $origin' \
			-H 'Content-Type: application/json' --data-binary '{}' 'http://127.0.0.1:$oport/v1/traces')\" = 200 &&
			grep -qi '^Access-Control-Allow-Origin: $origin' '$W/post' && grep -qi '^Vary: Origin' '$W/post'"
	check "curl: a POST from $origin refused (415) carries them too" \
		sh -c "test \"\$(curl -s -o /dev/null -D '$W/post' -w '%{http_code}' -H 'Origin: $origin' \
			-H 'Content-Type: text/plain' --data-binary 'x' 'http://127.0.0.1:$oport/v1/traces')\" = 415 &&
			grep -qi '^Access-Control-Allow-Origin: $origin' '$W/post' && grep -qi '^Vary: Origin' '$W/post'"
	check "curl: a POST from another origin: 200 without Access-Control-Allow-Origin" \
		sh -c "test \"\$(curl -s -o /dev/null -D '$W/post' -w '%{http_code}' -H 'Origin: http://evil.test' \
			-H 'Content-Type: application/json' --data-binary '{}' 'http://127.0.0.1:$oport/v1/traces')\" = 200 &&
			! grep -qi '^Access-Control-Allow-Origin' '$W/post'"
	check "curl: OPTIONS that is no preflight (no Access-Control-Request-Method): 405" \
		test "$(curl -s -o /dev/null -w '%{http_code}' -X OPTIONS -H "Origin: $origin" \
			"http://127.0.0.1:$oport/v1/traces")" = 405
else
	not_ok "pmcd with our trace agent, -C $origin"
	sed 's/^/# /' "$W/pmcd1/log/trace.log" 2>/dev/null
fi
pmcd_stop

# 2. Without -C: closed, as before.
if start_agent 2; then
	ok "pmcd with our trace agent, no -C"
	out=$(browse json web-json)
	check "Chromium: the export fails ('$out')" sh -c "echo '$out' | grep -q '^failed'"
	check "no span of the page's landed" none
	check "Chromium's preflight counted under 405, nothing under 204 or 200" \
		sh -c "test '$(answers 405)' -ge 1 && test '$(answers 204)' = 0 && test '$(answers 200)' = 0"
	check "curl: preflight answered 405, without Access-Control-Allow-Origin" \
		sh -c "test \"\$(curl -s -o /dev/null -D '$W/pre' -w '%{http_code}' -X OPTIONS -H 'Origin: $origin' \
			-H 'Access-Control-Request-Method: POST' 'http://127.0.0.1:$oport/v1/traces')\" = 405 &&
			! grep -qi '^Access-Control' '$W/pre' && grep -qi '^Allow: POST' '$W/pre'"
	check "curl: a POST with an Origin: 200 without Access-Control-Allow-Origin" \
		sh -c "test \"\$(curl -s -o /dev/null -D '$W/post' -w '%{http_code}' -H 'Origin: $origin' \
			-H 'Content-Type: application/json' --data-binary '{}' 'http://127.0.0.1:$oport/v1/traces')\" = 200 &&
			! grep -qi '^Access-Control' '$W/post'"
else
	not_ok "pmcd with our trace agent, no -C"
fi
pmcd_stop

# 3. -C naming other origins (a wildcard among them): refused.
if start_agent 3 -C 'https://*.example.com,http://localhost:8080'; then
	ok "pmcd with our trace agent, -C 'https://*.example.com,http://localhost:8080'"
	out=$(browse proto web-proto)
	check "Chromium: the export fails ('$out')" sh -c "echo '$out' | grep -q '^failed'"
	check "no span of the page's landed" none
	check "Chromium's preflight counted under 403, nothing under 200" \
		sh -c "test '$(answers 403)' -ge 1 && test '$(answers 200)' = 0"
	code=$(preflight https://shop.example.com)
	check "curl: https://shop.example.com matches https://*.example.com: $code (204), origin echoed" \
		sh -c "test $code = 204 && grep -qi '^Access-Control-Allow-Origin: https://shop.example.com' '$W/pre'"
	check "curl: https://example.com does not (the wildcard is before a dot): 403" \
		test "$(preflight https://example.com)" = 403
	check "curl: http://shop.example.com does not (scheme): 403" \
		test "$(preflight http://shop.example.com)" = 403
else
	not_ok "pmcd with our trace agent, -C 'https://*.example.com,http://localhost:8080'"
fi
pmcd_stop

# 4. -C '*': any origin.
if start_agent 4 -C '*'; then
	out=$(browse json web-any)
	check "-C '*': Chromium's export lands ('$out')" test "$out" = "exported 15"
	code=$(preflight http://anything.test:1234)
	check "-C '*': a preflight from http://anything.test:1234 answered $code (204), origin echoed" \
		sh -c "test $code = 204 && grep -qi '^Access-Control-Allow-Origin: http://anything.test:1234' '$W/pre'"
else
	not_ok "pmcd with our trace agent, -C '*'"
fi
pmcd_stop

"$ours" -C 'http://a,,http://b' > "$W/out" 2>&1
check "-C with an empty origin in its list: exit 1, '-C needs'" \
	sh -c "[ $? = 1 ] && grep -q -- '-C needs' '$W/out'"
done_testing
