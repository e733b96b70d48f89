#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# install-man.sh [-n] MANDIR [-e EXT] PAGE...: installs each page in MANDIR/manN
# and, for every other name its NAME section lists, a one-line ".so" page
# that points at it, so `man mmv_inc_value` finds the family's page. With
# -e EXT the files are named NAME.N<EXT> (e.g. pmtrace.1sdk, read with
# `man 1sdk pmtrace`), so they sit beside a package's pages of the same
# names instead of replacing them (the Debian packages use -e sdk). With
# -n nothing is written: the files it would write are printed, one a line
# (make uninstall removes them).
set -e
list=
if [ "$1" = -n ]; then
	list=1
	shift
fi
dir=$1
shift
ext=
if [ "$1" = -e ]; then
	ext=$2
	shift 2
fi
for page in "$@"; do
	base=${page##*/}
	sec=${base##*.}
	if [ -n "$list" ]; then
		echo "$dir/man$sec/$base$ext"
	else
		install -d "$dir/man$sec"
		# the page's own section (.TH) names the extension too
		sed "1,/^\.TH/s/^\(\.TH [^ ]*\) $sec /\1 $sec$ext /" "$page" > "$dir/man$sec/$base$ext"
		chmod 0644 "$dir/man$sec/$base$ext"
	fi
	for name in $(sh "$(dirname "$0")/man-names.sh" "$page"); do
		[ "$name.$sec" = "$base" ] && continue
		if [ -n "$list" ]; then
			echo "$dir/man$sec/$name.$sec$ext"
			continue
		fi
		printf '.so man%s/%s\n' "$sec" "$base$ext" > "$dir/man$sec/$name.$sec$ext"
		chmod 0644 "$dir/man$sec/$name.$sec$ext"
	done
done
