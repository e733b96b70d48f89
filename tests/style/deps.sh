#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make deps-build (scripts/deps.sh build) installs what debian/control's
# Build-Depends names, so that make deb works after it on a fresh
# machine; and make deps installs all of that too. Virtual and versioned
# names are read as the package that provides them (debhelper-compat:
# debhelper; dh-sequence-python3: dh-python; python3:any: python3).
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

sed -n '/^Build-Depends:/,/^[A-Z][A-Za-z-]*:/p' debian/control | sed '$d' |
	sed 's/^Build-Depends://' | tr ',' '\n' | sed 's/([^)]*)//g; s/:any//; s/[[:space:]]//g' |
	sed 's/^debhelper-compat$/debhelper/; s/^dh-sequence-python3$/dh-python/' |
	grep -v '^$' | sort -u > "$tmp/control"
sh scripts/deps.sh --list build | tr ' ' '\n' | sort -u > "$tmp/build"
sh scripts/deps.sh --list | tr ' ' '\n' | sort -u > "$tmp/all"
check "debian/control names build dependencies ($(wc -l < "$tmp/control"))" test -s "$tmp/control"
comm -23 "$tmp/control" "$tmp/build" > "$tmp/missing"
if [ -s "$tmp/missing" ]; then
	not_ok "make deps-build installs every Build-Depends; missing: $(tr '\n' ' ' < "$tmp/missing")"
else
	ok "make deps-build installs every Build-Depends ($(wc -l < "$tmp/build") packages)"
fi
comm -23 "$tmp/build" "$tmp/all" > "$tmp/missing"
check "make deps installs everything make deps-build does" test ! -s "$tmp/missing"
# the check can fail: a name the build list lacks
echo "libnosuch-dev" | comm -23 - "$tmp/build" | grep -q libnosuch-dev
check "a planted Build-Depends the list lacks is found" test $? -eq 0
done_testing
