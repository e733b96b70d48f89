#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Internal archives export only prefixed names: every global symbol an
# archive defines starts with one of its prefixes, so a reader of the
# front end (or of a backtrace) can tell where a function lives.
# Run by make check after the archives are built.
. tests/lib/tap.sh
B=${B:-build}

# archive, prefixes (space separated); a last word TODO marks a listed gap
while read -r archive prefixes; do
	case "$archive" in ''|'#'*) continue ;; esac
	todo=
	case "$prefixes" in *' TODO') todo=' # TODO'; prefixes=${prefixes% TODO} ;; esac
	a="$B/lib/$archive"
	if [ ! -f "$a" ]; then
		not_ok "$archive: built"
		continue
	fi
	ok "$archive: built"
	bad=$(nm -g --defined-only "$a" | awk 'NF == 3 { print $3 }' | sort -u |
		while read -r sym; do
			hit=
			for p in $prefixes; do
				case "$sym" in "$p"*) hit=1 ;; esac
			done
			[ -n "$hit" ] || echo "$sym"
		done)
	if [ -z "$bad" ]; then
		ok "$archive: every exported name starts with $prefixes"
	else
		if [ -n "$todo" ]; then
			_tap_n=$((_tap_n + 1))
			echo "not ok $_tap_n - $archive: names without a prefix ($prefixes)$todo"
		else
			not_ok "$archive: names without a prefix ($prefixes)"
		fi
		echo "$bad" | sed 's/^/# /' | head -40
	fi
done <<'LIST'
libmmv_reader.a		mmvr_ sdk_
libpmda_trace_core.a	tra_ sdk_
LIST
done_testing
