#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The binding's pytest suite (tests/python/test_*.py) as TAP for
# tests/run-tests.sh: one "ok"/"not ok" line per pytest test, and the exit
# status of pytest, so a failing pytest fails make check. Our libraries are
# the ones loaded (LD_LIBRARY_PATH=build/lib; test_api.py asserts it), the
# package is the tree's (PYTHONPATH=bindings/python), and Python is
# Debian's, which has python3-cffi, python3-pytest and python3-pcp.
# PYTEST_DIR runs another folder of tests (tests/python/wrapper.sh).
top=$(pwd)
py=${PYTHON:-/usr/bin/python3}
out=$(mktemp /tmp/pytest-tap.XXXXXX)
trap 'rm -f "$out"' EXIT
LD_LIBRARY_PATH="$top/build/lib" PYTHONPATH="$top/bindings/python" \
PCPSDK_TOP="$top" PYTHONDONTWRITEBYTECODE=1 \
	"$py" -m pytest -v -rA --tb=short -p no:cacheprovider "${PYTEST_DIR:-$top/tests/python}" "$@" > "$out" 2>&1
rc=$?
n=0
# "tests/python/test_x.py::test_y PASSED [ 10%]" -> TAP
grep -E '^[^ ]+::[^ ]+ (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)' "$out" |
while read -r name res _; do
	n=$((n + 1))
	case $res in
	PASSED|XFAIL) echo "ok $n - $name" ;;
	SKIPPED) echo "ok $n - $name # SKIP" ;;
	*) echo "not ok $n - $name ($res)" ;;
	esac
done
# pytest's failure report as TAP comments
if [ "$rc" -eq 0 ]; then tail -1 "$out" | sed 's/^/# /'
else sed 's/^/# /' "$out" | tail -80; fi
exit "$rc"
