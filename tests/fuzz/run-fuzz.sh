#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# run-fuzz.sh NAME RUNS MAXLEN: a short, fixed fuzzing run of
# build/tests/fuzz/fuzz_NAME over tests/fuzz/corpus/NAME for `make check`
# (TAP). New inputs and crash artifacts go to a scratch directory.
. tests/lib/tap.sh
bin=build/tests/fuzz/fuzz_$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if "$bin" -runs="$2" -max_len="$3" -seed=1 -artifact_prefix="$work/" "$work" \
		"tests/fuzz/corpus/$1" > "$work/log" 2>&1; then
	ok "fuzz_$1: $2 runs, no crash"
else
	not_ok "fuzz_$1 crashed"
	tail -40 "$work/log" | sed 's/^/# /'
fi
done_testing
