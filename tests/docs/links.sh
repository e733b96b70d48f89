#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The project's Markdown leads somewhere (tests/docs/links.py): every
# relative link names a file of the tree, every #fragment a heading of
# it, every `path/in/backquotes` under a top-level folder exists. And the
# README stays a front page: under 200 lines, the rest in docs/.
. tests/lib/tap.sh
. tests/lib/tree.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

tree_files | grep '\.md$' | grep -v '/node_modules/' |
	while read -r f; do [ -f "$f" ] && echo "$f"; done > "$tmp/files"
check "the tree has Markdown files to check ($(wc -l < "$tmp/files"))" \
	grep -qx 'README.md' "$tmp/files"
if xargs python3 tests/docs/links.py < "$tmp/files" > "$tmp/out" 2>&1; then
	ok "$(tail -n 1 "$tmp/out")"
else
	not_ok "every link, fragment and path of the Markdown files leads somewhere"
	sed 's/^/# /' "$tmp/out" | head -40
fi

# The checker can fail: a missing file, a missing heading, a stale path,
# one each, in a planted file (outside the tree; paths in backquotes are
# read from the top of the tree, links from the file's folder).
mkdir -p "$tmp/docs"
cat > "$tmp/docs/planted.md" <<'EOP'
# Planted

See [the guide](no-such-guide.md), [a section](planted.md#no-such-heading),
[this heading](#planted) and `tests/docs/no-such-test.sh`.
EOP
python3 tests/docs/links.py "$tmp/docs/planted.md" > "$tmp/planted" 2>&1
rc=$?
check "a planted missing file, heading and path are each found (3 bad, exit 1)" \
	sh -c "[ $rc -eq 1 ] && grep -q ', 3 bad\$' '$tmp/planted'"

n=$(wc -l < README.md)
check "README.md is under 200 lines ($n)" test "$n" -lt 200
done_testing
