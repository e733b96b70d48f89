#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs every test program and script given, each speaking TAP on stdout
# (cmocka with CMOCKA_MESSAGE_OUTPUT=TAP, shell tests through tests/lib/tap.sh),
# and ends with the one summary line "N passed, M failed".
# A program that exits non-zero without reporting a failure counts as one failure.
# Each test's line ends with its wall time in seconds: where make check's
# (and CI's) time goes.
export CMOCKA_MESSAGE_OUTPUT=TAP
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
passed=0
failed=0
logdir=${TEST_LOG_DIR:-build/test-logs}
mkdir -p "$logdir"
for t in "$@"; do
	name=$(echo "$t" | tr '/' '_')
	log="$logdir/$name.log"
	t0=$(date +%s)
	case "$t" in
	*.sh) sh "$t" > "$log" 2>&1 ;;
	*) "./$t" > "$log" 2>&1 ;;
	esac
	rc=$?
	secs=$(( $(date +%s) - t0 ))
	p=$(grep -c '^ok ' "$log")
	# TAP: "not ok ... # TODO" is a known, listed gap, not a failure
	todo=$(grep '^not ok ' "$log" | grep -c '# TODO')
	f=$(( $(grep -c '^not ok ' "$log") - todo ))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $t exited with status $rc" >> "$log"
	fi
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "not ok - $t ran no test" >> "$log"
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$f" -ne 0 ]; then
		echo "FAIL $t ($p passed, $f failed, ${secs}s); log: $log"
		grep -E '^not ok|^# ' "$log" | head -40
	else
		echo "ok   $t ($p passed$( [ "$todo" -gt 0 ] && echo ", $todo todo"), ${secs}s)"
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
