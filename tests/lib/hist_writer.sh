# SPDX-License-Identifier: GPL-2.0-or-later
# build/tests/integration/hist_writer driven through a fifo on fd 3, for
# the percentile and off-host tests. Source after tap.sh, with W set.
#
#   hw_start                 start it in $W (w.in, w.out, w.err); false
#                            unless it says "ready" within 5 s
#   hw_cmd WORD...           one command; false unless answered in 5 s
#   hw_stop                  close its input; the writer's exit status
#   hw_kill                  for the caller's EXIT trap
#   (poll SECONDS COMMAND..., which these use, is tests/lib/tap.sh's)
# Start pmcd and other daemons with 3>&- so the writer sees EOF.
HW_PID=
_hw_sent=0

# _hw_answered: every command sent has its "done"
_hw_answered() { test "$(grep -c '^done$' "$W/w.out")" -ge $_hw_sent; }

hw_start() {
	mkfifo "$W/w.in" || return 1
	"$(pwd)/build/tests/integration/hist_writer" < "$W/w.in" > "$W/w.out" 2> "$W/w.err" &
	HW_PID=$!
	exec 3> "$W/w.in"
	poll 5 grep -q '^ready$' "$W/w.out"
}

hw_cmd() {
	echo "$*" >&3
	_hw_sent=$((_hw_sent + 1))
	poll 5 _hw_answered
}

hw_stop() {
	exec 3>&-
	wait "$HW_PID"
	_hw_sts=$?
	HW_PID=
	return $_hw_sts
}

hw_kill() {
	exec 3>&-
	[ -z "$HW_PID" ] || { kill "$HW_PID" 2>/dev/null; wait "$HW_PID" 2>/dev/null; }
	HW_PID=
}
