#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Installs the Debian packages the project builds and tests with.
# A no-op when everything is present. Needs root (apt-get).
set -e
PKGS="build-essential pkg-config clang libclang-rt-dev iproute2 man-db groff-base
pcp libpcp3-dev libpcp-pmda3-dev libpcp-mmv1-dev libpcp-trace2-dev
liburcu-dev libcmocka-dev libprotobuf-c-dev protobuf-c-compiler libjson-c-dev zlib1g-dev libmicrohttpd-dev libnghttp2-dev
debhelper dpkg-dev fakeroot lintian debootstrap curl python3-prometheus-client prometheus
python3-cffi python3-pytest python3-pcp python3-setuptools python3-pip
dh-python mypy"
# Node.js and npm for tests/integration/otlp.sh (the OpenTelemetry SDK's
# exporters), only when no node is on PATH: a Node installed otherwise
# (CI's Node 20 from nodesource, with its own npm) is not overlaid with
# Debian's npm.
command -v node > /dev/null 2>&1 || PKGS="$PKGS nodejs npm"

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages:$missing (run as root: make deps)" >&2
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
apt-get -o DPkg::Path="$dpath" install -y -qq --no-install-recommends $missing
rm -rf "$shim"
