#!/bin/sh
# A short, fixed fuzzing run of the trace agent's PDU decoding for
# `make check` (TAP). New inputs go to a scratch directory.
. tests/lib/tap.sh
bin=build/tests/fuzz/fuzz_trace_pdu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if "$bin" -runs=50000 -max_len=4096 -seed=1 -artifact_prefix="$work/" "$work" \
		tests/fuzz/corpus/trace_pdu > "$work/log" 2>&1; then
	ok "fuzz_trace_pdu: 50000 runs, no crash"
else
	not_ok "fuzz_trace_pdu crashed"
	tail -40 "$work/log" | sed 's/^/# /'
fi
done_testing
