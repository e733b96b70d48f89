#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Both agents' command lines through one helper (common/pmda_options.h):
# a numeric option that is not a whole number in range is refused with a
# message naming it and exit 1, and an agent whose pmcd goes away (its
# input closed) ends with 0, the same codes for both.
. tests/lib/tap.sh
. tests/lib/pmcd.sh
W=$(mktemp -d /tmp/agent-options.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
trace=build/pmdas/trace/pmdatrace
mmv=build/pmdas/mmv/pmdammv

# refused AGENT OPTION VALUE WORDS: exit 1 and a message "-O needs ... WORDS"
refused() {
	"$1" "$2" "$3" > "$W/out" 2>&1
	rc=$?
	check "${1##*/} $2 $3: exit 1, '$2 needs a number of $4'" \
		sh -c "[ $rc = 1 ] && grep -q -- '$2 needs a number of $4' '$W/out'"
}
refused $trace -t 1x tags
refused $trace -c 0 clients
refused $mmv -s 1x seconds
refused $mmv -w 0 seconds

mkdir -p "$W/mmv"
PCP_TMP_DIR=$W timeout 20 $mmv -l "$W/mmv.log" -U "$(id -un)" < /dev/null > /dev/null 2>&1
check "pmdammv ends with 0 when pmcd goes away" test $? = 0
timeout 20 $trace -I "$(pmcd_free_port)" -l "$W/trace.log" -M "$(id -un)" < /dev/null > /dev/null 2>&1
check "pmdatrace ends with 0 when pmcd goes away, as pmdammv" test $? = 0
done_testing
