#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Issue 40, TLS on the OTLP listeners (docs/otlp-access.md, "Another host:
# TLS"), in a private network namespace whose loopback also carries
# $SRV_IP, the address the certificates name. Certificates are made here
# (tests/lib/tls.sh: a CA, the server's, a client's, and a client of
# another CA).
#  1. A certificate that does not load (no file, a key of another
#     certificate, a CA file with no certificate) stops the agent with a
#     log line naming the file: never cleartext in its place.
#  2. "Another host with TLS" (-j -J, listeners on 0.0.0.0, which TLS
#     alone makes acceptable): the stock Node SDK's protobuf, JSON and gRPC
#     exporters with https:// and OTEL_EXPORTER_OTLP_CERTIFICATE succeed;
#     a cleartext client (the SDK with http://, curl) and TLS 1.1 fail, and
#     are counted in trace.otlp.denied "tls". 20 exporters starting
#     together over TLS lose nothing.
#  3. Client certificates (-K): the SDK with OTEL_EXPORTER_OTLP_CLIENT_
#     CERTIFICATE/_KEY succeeds over HTTP and gRPC; without one, or with
#     one of another CA, it fails, counted.
#  4. Hostile: connections that start a handshake and stall are closed,
#     and 400 handshakes at once leave pmcd's fetches of trace.* within
#     100 ms throughout.
# Needs root (unshare --net, ip addr), openssl, curl, Node and the SDK.
top=$(pwd)
. "$top/tests/lib/tap.sh"
. "$top/tests/lib/pmcd.sh"
. "$top/tests/lib/otlp_sdk.sh"
. "$top/tests/lib/tls.sh"
. "$top/tests/lib/otlp_netns.sh"
ours="$top/build/pmdas/trace/pmdatrace"
SRV_IP=10.78.0.1

netns_enter OTLP_TLS_NS curl openssl

W=$(mktemp -d /tmp/otlp_tls.XXXXXX)
fetcher=
trap '[ -z "$fetcher" ] || kill "$fetcher" 2>/dev/null; pmcd_stop; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT
C=$W/tls

ip link set lo up && ip addr add "$SRV_IP/32" dev lo
check "a network namespace with $SRV_IP on its loopback" \
	sh -c "ip -4 addr show lo | grep -q '$SRV_IP/32'"
check "certificates made (a CA, server for $SRV_IP, client, another CA's client)" \
	tls_make "$C" "$SRV_IP" localhost

# spans SERVICE: trace.span.count of SERVICE's span
spans() { value trace.span.count "$1:server/op"; }
CA="OTEL_EXPORTER_OTLP_CERTIFICATE=$C/ca.pem"
CLIENT="OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE=$C/client.pem"
CLIENT_KEY="OTEL_EXPORTER_OTLP_CLIENT_KEY=$C/client.key"

# --- 1. certificates that do not load ----------------------------------------
hp=$(pmcd_free_port)
run_agent "$W/nofile.log" -O "0.0.0.0:$hp" -G off -j "$C/none.pem" -J "$C/server.key"
check "-j a missing file: the agent does not start, and says which file ($?)" \
	grep -q "OTLP's TLS certificate.*$C/none.pem: No such file" "$W/nofile.log"
run_agent "$W/mismatch.log" -O "0.0.0.0:$hp" -G off -j "$C/server.pem" -J "$C/client.key"
check "a key of another certificate: the agent does not start" \
	grep -q "OTLP's TLS certificate.*$C/server.pem and $C/client.key" "$W/mismatch.log"
sed 's/^/# /' "$W/mismatch.log" | grep -i tls
echo "not a certificate" > "$W/junk.pem"
run_agent "$W/junk.log" -O "0.0.0.0:$hp" -G off -j "$C/server.pem" -J "$C/server.key" \
	-K "$W/junk.pem"
check "a CA file with no certificate: the agent does not start" \
	grep -q "OTLP's TLS certificate.*$W/junk.pem" "$W/junk.log"
run_agent "$W/nokey.log" -O "0.0.0.0:$hp" -G off -j "$C/server.pem"
check "-j without -J: the agent does not start" grep -q "(-J FILE)" "$W/nokey.log"

# --- 2. another host with TLS ------------------------------------------------
hp=$(pmcd_free_port)
gp=$(pmcd_free_port)
if listening 1 "-j -J -O 0.0.0.0:$hp -G 0.0.0.0:$gp: TLS alone lets the listeners off the loopback" \
	-j "$C/server.pem" -J "$C/server.key" -O "0.0.0.0:$hp" -G "0.0.0.0:$gp"; then
	check "its log names the protection" \
		grep -q "OTLP/gRPC on 0.0.0.0, off the loopback; protection: TLS (-j)" \
		"$W/pmcd1/log/trace.log"
	check "the Node SDK's protobuf exporter, https:// with the CA, succeeds" \
		export_as tls_proto "https://$SRV_IP:$hp" proto "$CA"
	check "its JSON exporter succeeds" export_as tls_json "https://$SRV_IP:$hp" json "$CA"
	check "its gRPC exporter, https://, succeeds" \
		export_as tls_grpc "https://$SRV_IP:$gp" grpc "$CA"
	check "the spans landed (trace.span.count 2 each)" \
		test "$(spans tls_proto)/$(spans tls_json)/$(spans tls_grpc)" = 2/2/2
	# 20 stock exporters starting together, half over HTTPS, half over gRPC with TLS
	i=0 pids=
	while [ $i -lt 20 ]; do
		if [ $((i % 2)) = 0 ]; then
			export_as "burst$i" "https://$SRV_IP:$hp" proto "$CA" > /dev/null &
		else
			export_as "burst$i" "https://$SRV_IP:$gp" grpc "$CA" > /dev/null &
		fi
		pids="$pids $!"
		i=$((i + 1))
	done
	for p in $pids; do
		wait "$p"	# not pmcd, this shell's child too
	done
	n=0 i=0
	while [ $i -lt 20 ]; do
		[ "$(spans "burst$i")" = 2 ] && n=$((n + 1))
		i=$((i + 1))
	done
	check "20 exporters starting together over TLS: every span landed ($n of 20 services with 2)" \
		test "$n" = 20
	check "and nothing was refused (trace.otlp.denied tls $(denied tls))" test "$(denied tls)" = 0
	check "without the CA the SDK refuses the agent's certificate" \
		fails export_as tls_noca "https://$SRV_IP:$hp" proto
	t0=$(denied tls)
	check "the SDK in cleartext (http://) to the HTTPS port fails" \
		fails export_as clear_http "http://$SRV_IP:$hp" proto
	check "the SDK in cleartext (h2c) to the gRPC port fails" \
		fails export_as clear_grpc "http://$SRV_IP:$gp" grpc
	check "curl with at most TLS 1.1 fails on both" sh -c \
		"! curl -sS --cacert '$C/ca.pem' --tlsv1 --tls-max 1.1 -o /dev/null https://$SRV_IP:$hp/v1/traces 2>/dev/null &&
		 ! curl -sS --cacert '$C/ca.pem' --http2 --tlsv1 --tls-max 1.1 -o /dev/null https://$SRV_IP:$gp/ 2>/dev/null"
	sleep 1
	t1=$(denied tls)
	check "trace.otlp.denied tls counts the cleartext and old clients ($t0 -> $t1, at least 4 more)" \
		test "$t1" -ge $((t0 + 4))
	check "a TLS 1.3 client (curl) gets its answer" \
		test "$(curl -sS --cacert "$C/ca.pem" --tlsv1.3 -o /dev/null -w '%{http_code}' \
			-H 'Content-Type: application/json' --data '{}' "https://$SRV_IP:$hp/v1/traces")" = 200
	check "gRPC without ALPN h2 (curl --http1.1) is refused in the handshake" \
		fails curl -sS --cacert "$C/ca.pem" --http1.1 -o /dev/null "https://$SRV_IP:$gp/"
	pminfo -h "$PMCD_HOST" -f trace.otlp.denied | sed 's/^/# /'
fi
pmcd_stop

# --- 3. client certificates --------------------------------------------------
hp=$(pmcd_free_port)
gp=$(pmcd_free_port)
OTHER="OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE=$C/other-client.pem"
OTHER_KEY="OTEL_EXPORTER_OTLP_CLIENT_KEY=$C/other-client.key"
if listening 2 "-j -J -K: client certificates required" \
	-j "$C/server.pem" -J "$C/server.key" -K "$C/ca.pem" \
	-O "$SRV_IP:$hp" -G "$SRV_IP:$gp"; then
	check "the SDK with a client certificate of the CA: protobuf succeeds" \
		export_as mtls_proto "https://$SRV_IP:$hp" proto "$CA" "$CLIENT" "$CLIENT_KEY"
	check "and gRPC succeeds" \
		export_as mtls_grpc "https://$SRV_IP:$gp" grpc "$CA" "$CLIENT" "$CLIENT_KEY"
	check "their spans landed" test "$(spans mtls_proto)/$(spans mtls_grpc)" = 2/2
	t0=$(denied tls)
	check "without a client certificate: protobuf fails" \
		fails export_as nocert_proto "https://$SRV_IP:$hp" proto "$CA"
	check "and gRPC fails" fails export_as nocert_grpc "https://$SRV_IP:$gp" grpc "$CA"
	check "with another CA's certificate: protobuf fails" \
		fails export_as other_proto "https://$SRV_IP:$hp" proto "$CA" "$OTHER" "$OTHER_KEY"
	check "and gRPC fails" \
		fails export_as other_grpc "https://$SRV_IP:$gp" grpc "$CA" "$OTHER" "$OTHER_KEY"
	code=$(curl -sS --cacert "$C/ca.pem" -o "$W/b" -w '%{http_code}' \
		-H 'Content-Type: application/json' --data '{}' "https://$SRV_IP:$hp/v1/traces")
	check "curl without a certificate: 403 ($code) with a google.rpc.Status" \
		sh -c "test '$code' = 403 && grep -q '\"code\":7' '$W/b'"
	sleep 1
	check "none of their spans landed" test "$(spans nocert_proto)$(spans other_grpc)" = ""
	check "trace.otlp.denied tls counts every refusal (at least 5 more: $t0 -> $(denied tls))" \
		test "$(denied tls)" -ge $((t0 + 5))
fi
pmcd_stop

# --- 4. slow and many handshakes ---------------------------------------------
hp=$(pmcd_free_port)
gp=$(pmcd_free_port)
if listening 3 "-j -J -k 4: TLS, connections idle 4 s at most" \
	-j "$C/server.pem" -J "$C/server.key" -k 4 \
	-O "$SRV_IP:$hp" -G "$SRV_IP:$gp"; then
	# fetches of trace.* through pmcd throughout (otlp_hostile.py's fetcher)
	/usr/bin/python3 "$top/tests/integration/otlp_hostile.py" fetch "$PMCD_HOST" "$W/fetch.log" \
		2> "$W/fetch.err" &
	fetcher=$!
	# slow: 50 connections to each port that send half a ClientHello, then nothing;
	# many: 400 handshakes at once, each closed at once
	sleep 1
	apid=$(pgrep -P "$PMCD_PID" -x pmdatrace | head -1)
	/usr/bin/python3 - "$SRV_IP" "$hp" "$gp" "$C/ca.pem" "${apid:-0}" > "$W/hostile.out" 2>&1 <<'EOF'
import socket, ssl, sys, time, threading
ip, hp, gp, ca, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
def rss():  # the agent's resident kB
    try:
        with open("/proc/%s/status" % pid) as f:
            return int(next(l for l in f if l.startswith("VmRSS")).split()[1])
    except Exception:
        return 0
t0 = time.monotonic()
r0 = rss()
slow = []
for port in (hp, gp):
    for _ in range(50):
        s = socket.create_connection((ip, port))
        s.send(b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03")  # a ClientHello's start
        slow.append(s)
time.sleep(0.5)
print("rss before %d kB, with 100 handshakes pending %d kB" % (r0, rss()))
ctx = ssl.create_default_context(cafile=ca)
ctx.set_alpn_protocols(["h2"])
done = [0, 0]
def shake(port):
    try:
        with socket.create_connection((ip, port), timeout=10) as s:
            with ctx.wrap_socket(s, server_hostname=ip):
                done[0] += 1
    except Exception:
        done[1] += 1
ts = [threading.Thread(target=shake, args=(hp if i % 2 else gp,)) for i in range(400)]
for t in ts: t.start()
for t in ts: t.join()
print("handshakes", done[0], "failed", done[1])
time.sleep(6)
closed = {hp: 0, gp: 0}
for s in slow:
    port = s.getpeername()[1]
    s.settimeout(0.5)
    try:  # an alert (libmicrohttpd sends one), then the end
        while s.recv(64):
            pass
        closed[port] += 1
    except (ConnectionResetError, BrokenPipeError):
        closed[port] += 1
    except socket.timeout:
        pass
print("slow closed", closed[hp] + closed[gp], "of", len(slow), "(HTTP", closed[hp], "gRPC", closed[gp], ")")
print("window %.6f %.6f" % (t0, time.monotonic()))
EOF
	kill "$fetcher" 2>/dev/null
	wait "$fetcher" 2>/dev/null
	fetcher=
	sed 's/^/# /' "$W/hostile.out"
	check "the 400 handshakes completed" grep -q "^handshakes 400 failed 0" "$W/hostile.out"
	check "the 100 stalled handshakes were closed by the agent" \
		grep -q "^slow closed 100 of 100" "$W/hostile.out"
	set -- $(sed -n 's/^window //p' "$W/hostile.out")
	res=$(awk -v t0="${1:-0}" -v t1="${2:-0}" '$1 >= t0 && $1 <= t1 { n++; if ($2 < 0) e++; if ($2 > m) m = $2 }
		END { printf "%d %d %.1f", n, e, m * 1000 }' "$W/fetch.log")
	set -- $res
	check "meanwhile pmcd's fetches of trace.* went on ($1), none failed ($2), each within 100 ms (max $3 ms)" \
		awk -v n="$1" -v e="$2" -v m="$3" 'BEGIN { exit !(n >= 5 && e == 0 && m < 100) }'
	check "a client still gets through afterwards" \
		export_as after "https://$SRV_IP:$hp" proto "$CA"
fi
pmcd_stop
done_testing
