# SPDX-License-Identifier: GPL-2.0-or-later
# Certificates made at test time (openssl), for the OTLP listeners' TLS.
# tls_make DIR [HOST...]: in DIR a CA (ca.pem, ca.key), a server
# certificate signed by it for HOSTs (default 127.0.0.1 and localhost:
# IP and DNS names in subjectAltName) (server.pem, server.key), a client
# certificate signed by it (client.pem, client.key), and a second CA with
# a client certificate of its own (other-ca.pem, other-client.pem,
# other-client.key) that the first CA does not vouch for. ECDSA P-256,
# valid one day. Keys are 0600.

# _tls_cert DIR NAME CA SUBJ EXT: NAME.key and NAME.pem signed by CA.
_tls_cert() {
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
		-keyout "$1/$2.key" -subj "/CN=$4" -out "$1/$2.csr" 2> /dev/null &&
	printf '%s\n' "$5" > "$1/$2.ext" &&
	openssl x509 -req -in "$1/$2.csr" -CA "$1/$3.pem" -CAkey "$1/$3.key" \
		-CAcreateserial -days 1 -extfile "$1/$2.ext" -out "$1/$2.pem" 2> /dev/null &&
	chmod 600 "$1/$2.key" && rm -f "$1/$2.csr" "$1/$2.ext"
}

tls_make() {
	_d=$1
	shift
	[ $# -gt 0 ] || set -- 127.0.0.1 localhost
	_san=""
	for _h in "$@"; do
		case $_h in
		*[!0-9.:]*) _san="$_san${_san:+,}DNS:$_h" ;;
		*) _san="$_san${_san:+,}IP:$_h" ;;
		esac
	done
	mkdir -p "$_d" &&
	for _ca in ca other-ca; do
		openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
			-keyout "$_d/$_ca.key" -subj "/CN=test $_ca" -days 1 \
			-addext basicConstraints=critical,CA:TRUE \
			-addext keyUsage=critical,keyCertSign,cRLSign \
			-out "$_d/$_ca.pem" 2> /dev/null || return 1
	done &&
	_tls_cert "$_d" server ca "$1" "subjectAltName=$_san
extendedKeyUsage=serverAuth" &&
	_tls_cert "$_d" client ca "client" "extendedKeyUsage=clientAuth" &&
	_tls_cert "$_d" other-client other-ca "intruder" "extendedKeyUsage=clientAuth"
}
