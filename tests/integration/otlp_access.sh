#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 40, the OTLP receiver off the loopback (docs/trace-protocol.md
# §12.9), in a private network namespace whose loopback also carries
# 10.77.0.1 (a host the access list admits), 10.77.0.2 (one it refuses)
# and 10.77.0.3 (one allowed a single connection): a client's source
# address is the address it connects to (the stock Node SDK) or the one
# curl binds (--interface).
#  1. Off the loopback with no protection the agent does not start (-O
#     and -G); with the word insecure it does, and says it is unprotected.
#     A token file group or others may read, or another user's, stops it.
#  2. "A container network" (-A allow:10.77.0.1:0 -A disallow:*): the
#     Node SDK's exporters (OTLP/HTTP protobuf, OTLP/gRPC) succeed from
#     the admitted address and fail from the other; curl sees 403 with a
#     google.rpc.Status (PERMISSION_DENIED), 429 with a Retry-After for a
#     host at its MAXCONN, and grpc-js (the SDK's gRPC library) gRPC's
#     PERMISSION_DENIED; a flood of
#     connections from the refused address leaves pmcd's fetches of
#     trace.* within 100 ms.
#  3. "A token" (-a FILE): the exporters with OTEL_EXPORTER_OTLP_HEADERS=
#     "Authorization=Bearer%20TOKEN" (OpenTelemetry's percent-encoded value)
#     succeed, with another token or none they fail; 401 carries
#     WWW-Authenticate: Bearer; a CORS preflight needs no token and may
#     ask for the Authorization header.
# Every refusal is read back through pmcd (trace.otlp.denied, requests).
# Needs root (unshare --net, ip addr), Node and the SDK (build/npm), curl.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
. "$top/tests/lib/otlp_netns.sh"
ours="$top/build/pmdas/trace/pmdatrace"
OK_IP=10.77.0.1
BAD_IP=10.77.0.2
ONE_IP=10.77.0.3

# Outside the namespace: the SDK (npm needs the network), then the test again inside.
netns_enter OTLP_ACCESS_NS curl

W=$(mktemp -d /tmp/otlp_access.XXXXXX)
fetcher=
trap '[ -z "$fetcher" ] || kill "$fetcher" 2>/dev/null; pmcd_stop; rm -rf "$W"' EXIT
OTLP_SDK_PATH="$top/build/npm/node_modules"

ip link set lo up && ip addr add "$OK_IP/32" dev lo && ip addr add "$BAD_IP/32" dev lo &&
	ip addr add "$ONE_IP/32" dev lo
check "a network namespace with $OK_IP, $BAD_IP and $ONE_IP on its loopback" \
	sh -c "ip -4 addr show lo | grep -q '$BAD_IP/32' && ! ip -4 addr show lo | grep -q ' eth'"

# answered CODE: trace.otlp.requests's count of CODE
answered() { value trace.otlp.requests "$1"; }

# curl_post FROM URL [CURL ARG...]: a JSON POST of no span from source FROM;
# prints the status code, the headers in $W/h, the body in $W/b
curl_post() {
	_from=$1 _url=$2
	shift 2
	curl -sS --interface "$_from" -D "$W/h" -o "$W/b" -w '%{http_code}' \
		-H 'Content-Type: application/json' --data '{}' "$@" "$_url"
}

# grpc_call FROM PORT [AUTHORIZATION]: an empty TraceService/Export call by
# grpc-js (tests/integration/otlp/grpc_status.js) to FROM, so from FROM;
# prints the status code it ends with
grpc_call() {
	NODE_PATH="$OTLP_SDK_PATH" timeout 30 node "$top/tests/integration/otlp/grpc_status.js" \
		"$1:$2" ${3:+"$3"} 2> "$W/grpc_call.err"
}

# --- 1. listening off the loopback -------------------------------------------
hp=$(pmcd_free_port)
gp=$(pmcd_free_port)
run_agent "$W/bare.log" -O "0.0.0.0:$hp" -G off
check "-O 0.0.0.0:$hp with no -A or -a: the agent does not start (exit $?)" test $? -ne 0
check "and its log says why and what would do" \
	grep -q "refusing to listen for OTLP/HTTP on 0.0.0.0, off the loopback, with no protection.*-O insecure:0.0.0.0:$hp" \
	"$W/bare.log"
sed 's/^/# /' "$W/bare.log" | grep -i refusing
run_agent "$W/bare_g.log" -O off -G "$OK_IP:$gp"
check "-G $OK_IP:$gp with no -A or -a: the agent does not start either" \
	grep -q "refusing to listen for OTLP/gRPC on $OK_IP" "$W/bare_g.log"
run_agent "$W/open.log" -O "0.0.0.0:$hp" -G off -A "allow:$OK_IP:0"
check "a list that admits the rest (-A allow:$OK_IP:0 alone) is no protection: refused" \
	grep -q "refusing to listen" "$W/open.log"

printf 'tok-%s\n' "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" > "$W/token"
TOKEN=$(cat "$W/token")
chmod 640 "$W/token"
run_agent "$W/mode.log" -O off -G off -a "$W/token"
check "a token file its group may read (0640): the agent does not start" \
	grep -q "OTLP bearer token (-a).*readable or writable by group or others (mode 0640" "$W/mode.log"
chmod 600 "$W/token"
chown nobody "$W/token" 2>/dev/null &&
	run_agent "$W/owner.log" -O off -G off -a "$W/token"
check "a token file of another user: the agent does not start" \
	grep -q "OTLP bearer token (-a).*not by the agent's user" "$W/owner.log"
chown "$(id -un)" "$W/token"

if listening 1 "-O insecure:0.0.0.0:$hp -G insecure:0.0.0.0:$gp: the agent starts and listens" \
	-O "insecure:0.0.0.0:$hp" -G "insecure:0.0.0.0:$gp"; then
	check "its log says each listener is unprotected" sh -c \
		"grep -q 'OTLP/HTTP on 0.0.0.0, off the loopback, UNPROTECTED (-O insecure:)' '$W/pmcd1/log/trace.log' &&
		 grep -q 'OTLP/gRPC on 0.0.0.0, off the loopback, UNPROTECTED (-G insecure:)' '$W/pmcd1/log/trace.log'"
	check "the Node SDK's protobuf exporter from $BAD_IP succeeds (no protection)" \
		export_as insecure_http "http://$BAD_IP:$hp" proto
	check "and its gRPC exporter" export_as insecure_grpc "http://$BAD_IP:$gp" grpc
	check "trace.otlp.denied: nobody turned away" \
		test "$(denied host)$(denied no_token)" = 00
fi
pmcd_stop

# --- 2. a container network: the access list ---------------------------------
hp=$(pmcd_free_port)
gp=$(pmcd_free_port)
if listening 2 "-A allow:$OK_IP:0 -A allow:$ONE_IP:1 -A disallow:* -O 0.0.0.0:$hp -G 0.0.0.0:$gp" \
	-A "allow:$OK_IP:0" -A "allow:$ONE_IP:1" -A "disallow:*" \
	-O "0.0.0.0:$hp" -G "0.0.0.0:$gp"; then
	check "its log names the protection" \
		grep -q "OTLP/HTTP on 0.0.0.0, off the loopback; protection: host access list (-A)" \
		"$W/pmcd2/log/trace.log"
	check "the Node SDK's protobuf exporter from $OK_IP succeeds" \
		export_as net_http "http://$OK_IP:$hp" proto
	check "its gRPC exporter from $OK_IP succeeds" export_as net_grpc "http://$OK_IP:$gp" grpc
	check "the protobuf exporter from $BAD_IP fails" fails export_as bad_http "http://$BAD_IP:$hp" proto
	check "the gRPC exporter from $BAD_IP fails" fails export_as bad_grpc "http://$BAD_IP:$gp" grpc
	check "net_http and net_grpc landed (trace.span.count 2 each), nothing from $BAD_IP" \
		test "$(value trace.span.count net_http:server/op)/$(value trace.span.count net_grpc:server/op)/$(value trace.span.count bad_http:server/op)" = "2/2/"
	h0=$(denied host) a0=$(answered 403)
	code=$(curl_post "$BAD_IP" "http://$OK_IP:$hp/v1/traces")
	check "curl from $BAD_IP: 403 ($code), a google.rpc.Status PERMISSION_DENIED, connection closed" \
		sh -c "test '$code' = 403 && grep -q '\"code\":7' '$W/b' && grep -qi '^connection: close' '$W/h'"
	sed 's/^/# body: /' "$W/b"; echo
	check "trace.otlp.denied host and trace.otlp.requests 403 count it (+1, +1)" \
		test "$(denied host)/$(answered 403)" = "$((h0 + 1))/$((a0 + 1))"
	check "gRPC from $BAD_IP by grpc-js: status 7 (PERMISSION_DENIED)" \
		test "$(grpc_call "$BAD_IP" "$gp")" = 7
	check "trace.otlp.denied host counts it (+2 in all)" test "$(denied host)" = "$((h0 + 2))"
	check "curl from $OK_IP: 200" test "$(curl_post "$OK_IP" "http://$OK_IP:$hp/v1/traces")" = 200
	# a host at its MAXCONN: one connection of $ONE_IP held open, then another
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.bind((sys.argv[1], 0)); s.connect((sys.argv[2], int(sys.argv[3])))
time.sleep(4)' "$ONE_IP" "$OK_IP" "$hp" &
	holder=$!
	sleep 0.5
	l0=$(denied host_limit)
	code=$(curl_post "$ONE_IP" "http://$OK_IP:$hp/v1/traces")
	check "curl from $ONE_IP while its one connection is held: 429 ($code) with a Retry-After" \
		sh -c "test '$code' = 429 && grep -qi '^retry-after: [1-9]' '$W/h'"
	check "trace.otlp.denied host_limit counts it" test "$(denied host_limit)" = "$((l0 + 1))"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
	sleep 0.3
	check "once it closed, curl from $ONE_IP: 200" \
		test "$(curl_post "$ONE_IP" "http://$OK_IP:$hp/v1/traces")" = 200
	pminfo -h "$PMCD_HOST" -f trace.otlp.denied trace.otlp.requests | sed 's/^/# /'

	# a flood of connections from the refused address, pmcd fetching throughout
	/usr/bin/python3 "$top/tests/integration/otlp_hostile.py" fetch "$PMCD_HOST" "$W/fetch.log" \
		2> "$W/fetch.err" &
	fetcher=$!
	sleep 1
	# the flood's start and end on the fetcher's clock (CLOCK_MONOTONIC)
	/usr/bin/python3 -c 'import resource, socket, sys, time
t0 = time.monotonic()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 4096)), hard))
held = []
for port in (int(sys.argv[2]), int(sys.argv[3])):
    for _ in range(600):
        s = socket.socket(); s.bind((sys.argv[1], 0)); s.settimeout(5)
        try:
            s.connect((sys.argv[4], port)); held.append(s)
        except OSError:
            s.close()
print("# flood: %d connections from %s held" % (len(held), sys.argv[1]))
time.sleep(2)
for s in held:
    s.close()
time.sleep(1)
with open(sys.argv[5], "w") as f:
    f.write("%.6f %.6f\n" % (t0, time.monotonic()))' "$BAD_IP" "$hp" "$gp" "$OK_IP" "$W/flood.t"
	read -r t0 t1 < "$W/flood.t"
	kill "$fetcher" 2>/dev/null
	wait "$fetcher" 2>/dev/null
	fetcher=
	res=$(awk -v t0="$t0" -v t1="$t1" '$1 >= t0 && $1 <= t1 { n++; if ($2 < 0) e++; if ($2 > m) m = $2 }
		END { printf "%d %d %.1f", n, e, m * 1000 }' "$W/fetch.log")
	set -- $res
	check "during the flood pmcd's fetches of trace.* went on ($1), none failed ($2), each within 100 ms (max $3 ms)" \
		awk -v n="$1" -v e="$2" -v m="$3" 'BEGIN { exit !(n >= 5 && e == 0 && m < 100) }'
	check "the flood is counted (trace.otlp.denied host $(denied host))" \
		test "$(denied host)" -ge "$((h0 + 100))"
	check "after it, curl from $OK_IP: 200" \
		poll 10 test "$(curl_post "$OK_IP" "http://$OK_IP:$hp/v1/traces")" = 200
fi
pmcd_stop

# --- 3. a token ---------------------------------------------------------------
hp=$(pmcd_free_port)
gp=$(pmcd_free_port)
ORIGIN=http://app.example:8080
if listening 3 "-a TOKENFILE -O 0.0.0.0:$hp -G 0.0.0.0:$gp" \
	-a "$W/token" -C "$ORIGIN" -O "0.0.0.0:$hp" -G "0.0.0.0:$gp"; then
	check "its log names the protection" \
		grep -q "OTLP/gRPC on 0.0.0.0, off the loopback; protection: bearer token (-a)" \
		"$W/pmcd3/log/trace.log"
	check "the log does not show the token" sh -c "! grep -q '$TOKEN' '$W/pmcd3/log/trace.log'"
	good="OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20$TOKEN"
	wrong="OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20not-$TOKEN"
	check "protobuf exporter, OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20TOKEN: succeeds" \
		export_as tok_http "http://$BAD_IP:$hp" proto "$good"
	check "JSON exporter, the same: succeeds" export_as tok_json "http://$BAD_IP:$hp" json "$good"
	check "gRPC exporter, the same: succeeds" export_as tok_grpc "http://$BAD_IP:$gp" grpc "$good"
	check "protobuf exporter with another token fails" \
		fails export_as wrong_http "http://$BAD_IP:$hp" proto "$wrong"
	check "gRPC exporter with another token fails" \
		fails export_as wrong_grpc "http://$BAD_IP:$gp" grpc "$wrong"
	check "protobuf exporter with none fails" fails export_as none_http "http://$BAD_IP:$hp" proto
	check "gRPC exporter with none fails" fails export_as none_grpc "http://$BAD_IP:$gp" grpc
	check "the spans with the token landed (2 each), none of the others" \
		test "$(value trace.span.count tok_http:server/op)/$(value trace.span.count tok_json:server/op)/$(value trace.span.count tok_grpc:server/op)/$(value trace.span.count wrong_http:server/op)$(value trace.span.count none_grpc:server/op)" = "2/2/2/"
	check "trace.otlp.denied: no_token 2 and bad_token 2 (one a transport each)" \
		test "$(denied no_token)/$(denied bad_token)" = 2/2
	check "trace.otlp.requests 401: 4" test "$(answered 401)" = 4
	code=$(curl_post "$BAD_IP" "http://$OK_IP:$hp/v1/traces")
	check "curl without a token: 401 ($code), WWW-Authenticate: Bearer, UNAUTHENTICATED" \
		sh -c "test '$code' = 401 && grep -qi '^www-authenticate: Bearer' '$W/h' && grep -q '\"code\":16' '$W/b'"
	code=$(curl_post "$BAD_IP" "http://$OK_IP:$hp/v1/traces" -H "Authorization: Basic $TOKEN")
	check "curl with another scheme: 401 ($code)" test "$code" = 401
	code=$(curl_post "$BAD_IP" "http://$OK_IP:$hp/v1/traces" -H "Authorization: Bearer $TOKEN")
	check "curl with the token: 200 ($code)" test "$code" = 200
	check "gRPC by grpc-js without a token: status 16 (UNAUTHENTICATED)" \
		test "$(grpc_call "$BAD_IP" "$gp")" = 16
	check "gRPC by grpc-js with the token: status 0" \
		test "$(grpc_call "$BAD_IP" "$gp" "Bearer $TOKEN")" = 0
	check "trace.otlp.denied: no_token 4, bad_token 3" \
		test "$(denied no_token)/$(denied bad_token)" = 4/3
	# a browser's preflight carries no token; its answer lets the page send one
	code=$(curl -sS --interface "$BAD_IP" -D "$W/h" -o /dev/null -w '%{http_code}' -X OPTIONS \
		-H "Origin: $ORIGIN" -H 'Access-Control-Request-Method: POST' \
		-H 'Access-Control-Request-Headers: authorization, content-type' \
		"http://$OK_IP:$hp/v1/traces")
	check "a CORS preflight from $ORIGIN without a token: 204 ($code)" test "$code" = 204
	check "its Access-Control-Allow-Headers has authorization" \
		grep -qi '^access-control-allow-headers:.*authorization' "$W/h"
	code=$(curl_post "$BAD_IP" "http://$OK_IP:$hp/v1/traces" -H "Origin: $ORIGIN")
	check "a browser's POST without the token: 401 ($code) the page can read (Access-Control-Allow-Origin)" \
		sh -c "test '$code' = 401 && grep -qi '^access-control-allow-origin: $ORIGIN' '$W/h'"
	pminfo -h "$PMCD_HOST" -f trace.otlp.denied trace.otlp.requests | sed 's/^/# /'
fi
pmcd_stop
done_testing
