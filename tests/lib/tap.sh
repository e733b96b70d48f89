# SPDX-License-Identifier: GPL-2.0-or-later
# TAP helpers for shell tests: source this file, call ok/not_ok/check,
# end with done_testing. tests/run-tests.sh counts "ok"/"not ok" lines.
_tap_n=0
_tap_fail=0
ok() { _tap_n=$((_tap_n + 1)); echo "ok $_tap_n - $*"; }
not_ok() { _tap_n=$((_tap_n + 1)); _tap_fail=$((_tap_fail + 1)); echo "not ok $_tap_n - $*"; }
diag() { echo "# $*"; }
# check DESCRIPTION COMMAND...: ok if the command succeeds
check() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# poll SECONDS COMMAND...: until the command succeeds, every 0.1 s; false
# if it has not within SECONDS (whole seconds)
poll() {
	_poll_n=$(($1 * 10))
	shift
	while ! "$@"; do
		[ $_poll_n -gt 0 ] || return 1
		sleep 0.1
		_poll_n=$((_poll_n - 1))
	done
}
# same DESCRIPTION FILE1 FILE2: ok if identical, else show the diff
same() {
	if diff -u "$2" "$3" > "$2.diff" 2>&1; then ok "$1"; rm -f "$2.diff"
	else not_ok "$1"; sed 's/^/# /' "$2.diff" | head -40; fi
}
done_testing() { echo "1..$_tap_n"; [ "$_tap_fail" -eq 0 ]; }
