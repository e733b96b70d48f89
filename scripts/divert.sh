#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# divert.sh add|remove PATH: make install-pmda's dpkg diversions.
# add: a PATH some package owns is renamed to PATH.distrib (a local
# diversion, so a package upgrade writes there too); remove: our file goes
# and the package's comes back. No-op where dpkg is absent or owns nothing.
set -e
op=$1 path=$2
command -v dpkg-divert > /dev/null || exit 0
case $op in
add)
	dpkg-divert --list "$path" | grep -q . && exit 0
	dpkg -S "$path" > /dev/null 2>&1 || exit 0
	dpkg-divert --local --rename --divert "$path.distrib" --add "$path"
	;;
remove)
	dpkg-divert --list "$path" | grep -q '^local diversion' || exit 0
	rm -f "$path"
	dpkg-divert --local --rename --remove "$path"
	;;
esac
