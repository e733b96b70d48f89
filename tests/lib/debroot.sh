# SPDX-License-Identifier: GPL-2.0-or-later
# Throw-away Debian roots of any suite (bookworm, trixie, sid), made with
# debootstrap and cached as tarballs under build/roots/SUITE/, so tests build
# and run against the PCP each suite ships without touching the machine's.
# Source this file, then:
#
#   debroot_base SUITE LOG             # prints the minbase root's tarball
#   debroot_layer TAR NAME LOG SCRIPT  # prints TAR + what SCRIPT (a file, run
#                                      # as root inside, with network) adds;
#                                      # keyed by TAR and SCRIPT's text
#   debroot_unpack TAR DIR             # a fresh copy of a root in DIR
#   debroot_sh DIR CMD                 # CMD in DIR as root, clean environment
#   debroot_ns DIR CMD                 # CMD in DIR in private mount, pid and
#                                      # network namespaces (/proc, /dev/shm, lo)
#
# Each returns non-zero when it fails, with the reason in LOG.
# Internal names are _dr_*: sh functions share the caller's variables.

DEBROOT_CACHE=${DEBROOT_CACHE:-$(pwd)/build/roots}

# The mirror this machine's apt uses (CI machines point at a local one).
debroot_mirror() {
	sed -n -e 's|^URIs: *\(http[^ ]*/debian\)/*$|\1|p' \
		-e 's|^deb \(\[[^]]*\] *\)\{0,1\}\(http[^ ]*/debian\)/* .*|\2|p' \
		/etc/apt/sources.list /etc/apt/sources.list.d/* 2> /dev/null | head -1 |
		grep . || echo http://deb.debian.org/debian
}

debroot_sh() {
	chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
		DEBIAN_FRONTEND=noninteractive sh -c "$2"
}

debroot_unpack() {
	rm -rf "$2" && mkdir -p "$2" && tar -C "$2" -xf "$1" && chmod 755 "$2"
}

# _dr_make TAR LOG CMD...: unless TAR exists, run CMD with a new empty root
# folder as its last argument and save that folder as TAR.
_dr_make() {
	_dr_tar=$1 _dr_log=$2
	shift 2
	[ -f "$_dr_tar" ] && return 0
	mkdir -p "$(dirname "$_dr_tar")"
	_dr_dir=$(mktemp -d "$_dr_tar.XXXXXX") && chmod 755 "$_dr_dir"
	if "$@" "$_dr_dir" >> "$_dr_log" 2>&1 &&
	   tar -C "$_dr_dir" -cf "$_dr_tar.tmp" . && mv "$_dr_tar.tmp" "$_dr_tar"; then
		rm -rf "$_dr_dir"
		return 0
	fi
	rm -rf "$_dr_dir" "$_dr_tar.tmp"
	return 1
}

# Settings of every apt-get in a root: pcp's maintainer scripts call
# systemctl, which a root has no use for, so a no-op one comes first on
# dpkg's PATH (DESIGN.md, machine notes); a mirror snapshot may carry an
# expired Release file (sid's is valid for a week), which a root accepts.
_dr_minbase() {
	debootstrap --variant=minbase "$1" "$2" "$(debroot_mirror)" || return 1
	mkdir -p "$2/tmp/shim"
	printf '#!/bin/sh\nexit 0\n' > "$2/tmp/shim/systemctl"
	chmod +x "$2/tmp/shim/systemctl"
	cat > "$2/etc/apt/apt.conf.d/99debroot" <<-EOC
	DPkg::Path "/tmp/shim:/usr/sbin:/usr/bin:/sbin:/bin";
	Acquire::Check-Valid-Until "false";
	APT::Install-Recommends "false";
	APT::Get::Assume-Yes "true";
	quiet "1";
	EOC
}

debroot_base() {
	_dr_t=$DEBROOT_CACHE/$1/minbase.tar
	_dr_make "$_dr_t" "$2" _dr_minbase "$1" && echo "$_dr_t"
}

_dr_layer() {
	debroot_unpack "$1" "$3" && cp "$2" "$3/tmp/layer.sh" &&
		debroot_sh "$3" "sh -e /tmp/layer.sh && apt-get clean && rm -f /tmp/layer.sh"
}

debroot_layer() {
	_dr_k=$( { echo "$1"; cat "$4"; } | cksum | cut -d' ' -f1)
	_dr_t=${1%/*}/$2-$_dr_k.tar
	_dr_make "$_dr_t" "$3" _dr_layer "$1" "$4" && echo "$_dr_t"
}

# The namespaces keep what runs inside off the host: its pmcd ports, its
# processes (all gone when CMD ends) and its mounts. Only lo is up there,
# so this machine's name must lead to it (clients default to it).
debroot_ns() {
	grep -qw "$(hostname)" "$1/etc/hosts" ||
		printf '127.0.1.1\t%s\n' "$(hostname)" >> "$1/etc/hosts"
	unshare -m -p -n -f sh -c '
		mount -t proc proc "$1/proc" && mount -t tmpfs tmpfs "$1/dev/shm" &&
		ip link set lo up &&
		chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
			LANG=C.UTF-8 USER=root LOGNAME=root sh -c "$2"' debroot_ns "$1" "$2"
}
