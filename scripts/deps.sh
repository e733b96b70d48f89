#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages the project builds and tests with.
# A no-op when everything is present. Needs root (apt-get).
#   deps.sh           what make all, make check and make deb need (make deps)
#   deps.sh build     only what make all and make deb need (make deps-build):
#                     a user who wants the packages, not the tests
#   deps.sh --list [build]   print the package names, install nothing
set -e
list=
[ "${1:-}" = --list ] && { list=1; shift; }
# What debian/control's Build-Depends names (tests/style/deps.sh keeps
# the two lists together), plus the tools of make deb (lintian).
BUILD_PKGS="build-essential pkg-config libpcp3-dev libpcp-pmda3-dev
liburcu-dev libprotobuf-c-dev protobuf-c-compiler libjson-c-dev zlib1g-dev libmicrohttpd-dev libnghttp2-dev
libgnutls28-dev
debhelper dpkg-dev fakeroot lintian dh-python python3"
if [ "${1:-}" = build ]; then
	PKGS=$BUILD_PKGS
	keys_wanted=
else
	PKGS="$BUILD_PKGS clang libclang-rt-dev iproute2 man-db groff-base
	pcp libpcp-mmv1-dev libpcp-trace2-dev libcmocka-dev
	debootstrap curl python3-prometheus-client prometheus
	python3-cffi python3-pytest python3-pcp python3-setuptools python3-pip mypy
	python3-requests openssl"
	# openssl: tests/lib/tls.sh makes the OTLP listeners' certificates.
	# python3-requests: PCP 7's pcp2opentelemetry and pmdaopentelemetry
	# (in Debian's pcp package from 7.2, Debian unstable) import it, and
	# Debian's pcp does not depend on it; tests/integration/pcp2otel.sh
	# runs both. Every suite has it (PCP 6's pcp has neither tool).
	# and a key server for tests/integration/fleet.sh (below)
	keys_wanted=1
	# Node.js and npm for tests/integration/otlp.sh (the OpenTelemetry
	# SDK's exporters), only when no node is on PATH: a Node installed
	# otherwise (CI's Node 20 from nodesource, with its own npm) is not
	# overlaid with Debian's npm.
	command -v node > /dev/null 2>&1 || PKGS="$PKGS nodejs npm"
	# Chromium for tests/integration/otlp_browser.sh (the OpenTelemetry
	# web SDK in a headless browser), on the host only: the roots of make
	# check-matrix (tests/matrix/run.sh, which runs this script in each
	# with SDK_IN_MATRIX set) skip that test, and Chromium is large.
	[ -n "${SDK_IN_MATRIX:-}" ] || PKGS="$PKGS chromium"
fi
[ -z "$list" ] || { echo $PKGS; exit 0; }

installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]; }
missing=""
for p in $PKGS; do
	installed "$p" || missing="$missing $p"
done
# The key server of tests/integration/fleet.sh (pmproxy's time series):
# Valkey where the suite has it (Debian 13 on), else Redis (Debian 12),
# chosen below once the package lists are fresh; one installed stays.
keys=
[ -z "$keys_wanted" ] || installed valkey-server || installed redis-server || keys="valkey-server (or redis-server)"
[ -z "$missing" ] && [ -z "$keys" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing${keys:+ $keys} (run as root: make deps)" >&2
	exit 1
fi
# pcp's post-install calls systemctl; without systemd that fails and leaves
# dpkg half-configured, so give dpkg a no-op systemctl first on its PATH.
shim=$(mktemp -d)
printf '#!/bin/sh\nexit 0\n' > "$shim/systemctl"
chmod +x "$shim/systemctl"
export DEBIAN_FRONTEND=noninteractive
dpath="$shim:/usr/sbin:/usr/bin:/sbin:/bin"
PATH="$dpath" dpkg --configure -a || true
apt-get update -qq
[ -z "$missing" ] || apt-get -o DPkg::Path="$dpath" install -y -qq --no-install-recommends $missing
if [ -n "$keys" ]; then
	keys=redis-server
	apt-cache policy valkey-server 2>/dev/null | grep -q 'Candidate: [0-9]' && keys=valkey-server
	# valkey-tools' post-install runs systemd-tmpfiles, which refuses to
	# run without /proc in Debian unstable (systemd 262), as in a
	# chroot (make check-matrix's roots): there it gets a no-op one; the
	# directories it makes are the system service's, which no test uses.
	[ -e /proc/self ] || printf '#!/bin/sh\nexit 0\n' > "$shim/systemd-tmpfiles"
	chmod +x "$shim"/*
	apt-get -o DPkg::Path="$dpath" install -y -qq --no-install-recommends $keys
fi
rm -rf "$shim"
