#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# References lead somewhere. No file cites what lives outside the
# repository: the specs ("spec 7.11", "Spec 4.9", "the spec", mmv.md,
# trace.md), a path outside it (/work/, ../shared), plan items
# ("CONTRACT13"), branches ("as amended by branch hist") or people ("the
# lead's change"), or "the reference" (say whose: PCP's library, agent,
# pmtrace). And every "docs/NAME.md §N" names a section that docs/NAME.md
# has (a heading "## N." or a paragraph starting "§N ").
. tests/lib/tap.sh
. tests/lib/tree.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# this file and tests/docs/man_pages.sh hold the patterns themselves
tree_files | grep -vxE 'tests/style/refs\.sh|tests/docs/man_pages\.sh|tests/style/bad/.*' |
	while read -r f; do [ -f "$f" ] && echo "$f"; done > "$tmp/files"

OUTSIDE='\bspec [0-9]|\bthe spec\b|/work/|\.\./shared|mmv\.md|trace\.md|CONTRACT[0-9]|by branch [a-z]|the lead.?s\b|\bthe reference\b'
xargs grep -niIE "$OUTSIDE" < "$tmp/files" > "$tmp/out"
sort -u "$tmp/out" > "$tmp/bad"
if [ -s "$tmp/bad" ]; then
	not_ok "no reference outside the repository"
	sed 's/^/# /' "$tmp/bad" | head -40
else
	ok "no reference outside the repository ($(wc -l < "$tmp/files") files)"
fi

# every docs/X.md §N.M cited exists in docs/X.md
xargs grep -ohIE 'docs/[a-z-]+\.md §[0-9.]+(, §[0-9.]+)*' < "$tmp/files" |
	awk '{ doc = $1; for (i = 2; i <= NF; i++) { s = $i; gsub(/[§,]/, "", s); sub(/\.$/, "", s); print doc, s } }' |
	sort -u > "$tmp/cites"
n=0
missing=
while read -r doc sec; do
	n=$((n + 1))
	if [ ! -f "$doc" ] ||
	   ! grep -qE "^## $sec\. |^§$sec " "$doc"; then
		missing="$missing $doc§$sec"
	fi
done < "$tmp/cites"
if [ "$n" -gt 0 ] && [ -z "$missing" ]; then
	ok "every docs/ § citation names a section ($n distinct)"
else
	not_ok "docs/ § citations name sections ($n distinct); missing:$missing"
fi

# the check can fail: a planted outside reference and a missing section
printf 'see Spec 4.9\nas the spec says\nCONTRACT13 fixes\nas amended by branch hist\nuntil the lead'"'"'s change\nas the reference does\n' > "$tmp/p1"
check "planted outside references of each kind are found (6)" \
	test "$(grep -ciE "$OUTSIDE" "$tmp/p1")" -eq 6
check "docs/mmv-format.md has no §99" sh -c '! grep -qE "^## 99\. |^§99 " docs/mmv-format.md'
done_testing
