#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every source file of the tree names its license in an SPDX line within
# its first three lines, and it is the license debian/copyright (DEP-5,
# the one list) gives its path: LGPL-2.1-or-later for the libraries,
# public headers, shared code and bindings, GPL-2.0-or-later for the rest.
. tests/lib/tap.sh
. tests/lib/tree.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tree_files > "$tmp/files"

# check_files LIST: "path: why" for each file of LIST that fails; a line
# of LIST is a path in the tree, and optionally the file to read for it.
check_files() {
	/usr/bin/python3 - "$1" <<'PY'
import sys
sys.path.insert(0, "tests/style")
from spdx_lib import expected, is_source, spdx_of, paragraphs
paras = paragraphs()
for line in open(sys.argv[1]):
    path, _, real = line.strip().partition(" ")
    if not path or not is_source(path):
        continue
    want, got = expected(path, paras), spdx_of(real or path)
    if got != want:
        print("%s: %s, debian/copyright says %s" % (path, got or "no SPDX line", want))
PY
}

check_files "$tmp/files" > "$tmp/bad"
n=$(wc -l < "$tmp/files")
if [ -s "$tmp/bad" ]; then
	not_ok "every source file has the SPDX line of its license ($n files)"
	sed 's/^/# /' "$tmp/bad" | head -40
else
	ok "every source file has the SPDX line of its license ($n files)"
fi

# The check can fail: a file without the line, and one with the other license.
printf 'int x;\n' > "$tmp/none.c"
printf '/* SPDX-License-Identifier: GPL-2.0-or-later */\n' > "$tmp/gpl.c"
printf 'libpcp_mmv/planted.c %s\nlibpcp_mmv/planted2.c %s\n' "$tmp/none.c" "$tmp/gpl.c" > "$tmp/planted"
check_files "$tmp/planted" > "$tmp/found"
check "a planted file without the line, and one under the wrong license, are found" \
	test "$(wc -l < "$tmp/found")" -eq 2
check "the libraries are LGPL-2.1-or-later and the agents GPL-2.0-or-later" \
	sh -c "grep -q 'LGPL-2.1-or-later' libpcp_mmv/update.c && grep -q 'GPL-2.0-or-later' pmda_mmv/pmda.c &&
		grep -q 'GPL-2.0-or-later' pmtrace/pmtrace.c"
done_testing
