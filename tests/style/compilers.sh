#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree builds with -Werror under clang as well as gcc (make check
# builds with cc, gcc on Debian): libraries, agents, demo, tools and
# benchmarks, into build/clang, against the machine's PCP headers (make
# check-matrix runs this against each suite's, with its clang).
. tests/lib/tap.sh
B=build/clang
command -v clang > /dev/null || { echo "ok 1 # SKIP clang not installed (make deps)"; echo "1..1"; exit 0; }
if make -s -j2 B=$B CC=clang all bench-build > $B.log 2>&1; then
	ok "clang $(clang -dumpversion): make all bench-build, -Wall -Wextra -Werror"
else
	not_ok "clang $(clang -dumpversion): make all bench-build, -Wall -Wextra -Werror"
	grep -E 'error|warning' $B.log | grep -v -- -Werror | head -20 | sed 's/^/# /'
fi
done_testing
