#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# mypy --strict (Debian's, python3 -m mypy) over the Python binding
# (bindings/python/pcpsdk) and over tests/python/typed_use.py, a small
# typed program using the public API as the README does: both must be
# clean. Then the check must be able to fail: a copy of typed_use.py with
# planted mistakes (a str where an int is wanted; a float from a function
# under both decorators returned as a str) must get exactly those errors.
# Settings: bindings/python/pyproject.toml [tool.mypy], nothing else; the
# package is the tree's (MYPYPATH), never one installed on the machine.
. tests/lib/tap.sh
top=$(pwd)
py=${PYTHON:-/usr/bin/python3}
W=$(mktemp -d /tmp/mypy.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM

if ! "$py" -m mypy --version > "$W/version" 2>&1; then
	echo "ok 1 # SKIP $py has no mypy (make deps installs Debian's)"
	echo "1..1"
	exit 0
fi
diag "$(cat "$W/version")"

# mypy_run OUT ARGS...: mypy --strict with our settings; OUT gets its output
mypy_run() {
	_out=$1
	shift
	MYPYPATH=$top/bindings/python "$py" -m mypy --strict \
		--config-file "$top/bindings/python/pyproject.toml" \
		--cache-dir "$W/cache" "$@" > "$_out" 2>&1
}
# ran OUT: mypy got to its summary (it checked something, found or not)
ran() { grep -Eq '^(Success: no issues found|Found [0-9]+ errors?) in ' "$1"; }
# show OUT: its lines as TAP comments
show() { sed 's/^/# /' "$1" | head -40; }

mypy_run "$W/pkg" -p pcpsdk
rc=$?
if [ $rc = 0 ] && ran "$W/pkg"; then
	ok "mypy --strict -p pcpsdk: no issue ($(tail -1 "$W/pkg"))"
else
	not_ok "mypy --strict -p pcpsdk: no issue (exit $rc)"
	show "$W/pkg"
fi

# typed_use.py's own lines, whatever mypy says of the package it imports
# (the check above reports those)
use=tests/python/typed_use.py
mypy_run "$W/use" "$use"
if ran "$W/use" && ! grep -q "^$use:" "$W/use"; then
	ok "mypy --strict $use: no issue in it"
else
	not_ok "mypy --strict $use: no issue in it"
	show "$W/use"
fi

# The planted mistakes, at known lines after typed_use.py's.
n=$(wc -l < "$use")
planted=$W/planted.py
{
	cat "$use"
	echo
	echo
	echo 'def mistyped(reg: pcpsdk.Registry) -> str:'
	echo '    reg.histogram("h", lo=1, hi=2).observe("12")'
	echo
	echo '    @pcpsdk.transaction("t")'
	echo '    @reg.histogram("t", lo=1, hi=2)'
	echo '    def price() -> float:'
	echo '        return 1.0'
	echo '    return price()'
} > "$planted"
mypy_run "$W/planted" "$planted"
rc=$?
# "FILE:LINE: error: TEXT" (or FILE:LINE:COLUMN:) -> "LINE: TEXT"
grep "^$planted:" "$W/planted" | grep -v ': note: ' |
	sed -E 's/^[^:]*:([0-9]+):([0-9]+:)? error: /\1: /' > "$W/got"
{
	echo "$((n + 4)): Argument 1 to \"observe\" of \"Histogram\" has incompatible type \"str\"; expected \"int\"  [arg-type]"
	echo "$((n + 10)): Incompatible return value type (got \"float\", expected \"str\")  [return-value]"
} > "$W/want"
if [ $rc != 0 ] && cmp -s "$W/want" "$W/got"; then
	ok "mypy --strict fails on planted mistakes, each at its line"
else
	not_ok "mypy --strict fails on planted mistakes, each at its line (exit $rc)"
	diag "want:"
	show "$W/want"
	diag "got:"
	show "$W/got"
fi
done_testing
