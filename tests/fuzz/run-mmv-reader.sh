#!/bin/sh
# A short, fixed fuzzing run of the MMV reader core for `make check`
# (TAP). New inputs go to a scratch directory, never into the seed corpus.
. tests/lib/tap.sh
bin=build/tests/fuzz/fuzz_mmv_reader
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if "$bin" -runs=20000 -max_len=8192 -seed=1 -artifact_prefix="$work/" "$work" \
		tests/fuzz/corpus/mmv_reader > "$work/log" 2>&1; then
	ok "fuzz_mmv_reader: 20000 runs, no crash"
else
	not_ok "fuzz_mmv_reader crashed"
	tail -40 "$work/log" | sed 's/^/# /'
fi
done_testing
