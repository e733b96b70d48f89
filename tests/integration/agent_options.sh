#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Both agents' command lines through one helper (common/pmda_options.h):
# a numeric option that is not a whole number in range is refused with a
# message naming it and exit 1, and an agent whose pmcd goes away (its
# input closed) ends with 0, the same codes for both. Numbers are decimal:
# "010" is ten, as PCP's pmdatrace reads -I and -N (strtol, base 10), not
# eight; byte sizes take k, M, G (powers of 1024).
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
refused $mmv -s 1e3 seconds

# said AGENT OPTION VALUE TEXT: exit 1 and a message "-O needs TEXT"
said() {
	"$1" "$2" "$3" > "$W/out" 2>&1
	rc=$?
	check "${1##*/} $2 $3: exit 1, '$2 needs $4'" \
		sh -c "[ $rc = 1 ] && grep -qF -- '$2 needs $4' '$W/out'"
}
said $trace -I 0x10 "a port number, 0..65535"
said $trace -b 64KB "a byte size (k, M, G: powers of 1024), 1M..1024G"
said $trace -B 1.5M "a byte size"
said $trace -R 5-1 "seconds as MIN or MIN-MAX, MIN <= MAX, 1..3600"
said $trace -U 1,0,0 "six integers separated by commas"

# the agent's start-up lines; its pmcd is gone at once (input closed)
started() {
	rm -f "$W/t.log"
	timeout 20 $trace -l "$W/t.log" -M "$(id -un)" -O off "$@" < /dev/null > /dev/null 2>&1
}
port=$(pmcd_free_port)
started -I "0$port"
check "pmdatrace -I 0$port: decimal, port $port (PCP reads -I base 10)" \
	grep -aq "listening for trace clients on port $port\$" "$W/t.log"
port=$(pmcd_free_port)
PCP_TRACE_PORT="0$port" started
check "PCP_TRACE_PORT=0$port: decimal as -I, port $port" \
	grep -aq "listening for trace clients on port $port\$" "$W/t.log"
started -I 0 -N 010 -b 32M -Q 8 -R 2-5 -B 65536k -m 1GiB -U 1,-1,0,0,3,0
check "pmdatrace takes -N 010, -b 32M, -B 65536k, -m 1GiB, -R 2-5, -U: ends with 0" test $? = 0

mkdir -p "$W/mmv"
PCP_TMP_DIR=$W timeout 20 $mmv -l "$W/mmv.log" -U "$(id -un)" < /dev/null > /dev/null 2>&1
check "pmdammv ends with 0 when pmcd goes away" test $? = 0
timeout 20 $trace -I "$(pmcd_free_port)" -l "$W/trace.log" -M "$(id -un)" < /dev/null > /dev/null 2>&1
check "pmdatrace ends with 0 when pmcd goes away, as pmdammv" test $? = 0
done_testing
