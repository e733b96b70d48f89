#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/python/pytest.sh turns pytest's results into TAP and fails when
# pytest fails: run it on planted tests, one passing and one failing.
top=$(pwd)
. "$top/tests/lib/tap.sh"
W=$(mktemp -d /tmp/pytest-wrapper.XXXXXX)
trap 'rm -rf "$W"' EXIT
printf 'def test_good():\n    assert 1\n' > "$W/test_good.py"
PYTEST_DIR=$W sh "$top/tests/python/pytest.sh" > "$W/good.out" 2>&1
check "a passing suite: status 0" test $? -eq 0
check "a passing suite: an ok line" grep -q '^ok 1 - .*test_good' "$W/good.out"
printf 'def test_bad():\n    assert 0\n' > "$W/test_bad.py"
PYTEST_DIR=$W sh "$top/tests/python/pytest.sh" > "$W/bad.out" 2>&1
check "a failing test: non-zero status" test $? -ne 0
check "a failing test: its not ok line" grep -q '^not ok .*test_bad (FAILED)' "$W/bad.out"
check "a failing test: the passing one still ok" grep -q '^ok .*test_good' "$W/bad.out"
done_testing
