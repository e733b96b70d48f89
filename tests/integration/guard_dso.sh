#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The MMV agent's SIGBUS guard in its DSO build (pmda_mmv.so, as pmcd
# loads it): its own thread-local data is initial-exec, and a SIGBUS that
# is not the guard's, raised in a thread that never armed it, reaches the
# handler the host installed before (tests/integration/guard_dso.c).
. tests/lib/tap.sh
so=build/lib/pmda_mmv.so
W=$(mktemp -d /tmp/guard-dso.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM

# a dynamic TLS reference against the DSO itself has no symbol name
case "$(uname -m)" in
x86_64)
	check "pmda_mmv.so's own thread-local data is initial-exec (no DTPMOD64 of its own)" \
		sh -c "! readelf -rW $so | awk '\$3 == \"R_X86_64_DTPMOD64\" && NF == 4' | grep -q ." ;;
*)	ok "# SKIP the relocation check knows x86_64's names only" ;;
esac
mkdir -p "$W/mmv"
PCP_TMP_DIR=$W build/tests/integration/mmv_writer_pcp v1 ||
	{ not_ok "a file for the agent to load"; done_testing; exit 1; }
PCP_TMP_DIR=$W build/tests/integration/guard_dso "$so" > "$W/out" 2>&1
rc=$?
sed 's/^/# /' "$W/out"
check "a foreign SIGBUS in a thread that never armed the guard, and in main, reach the host's handler" \
	sh -c "[ $rc = 0 ] && [ \$(grep -c '^ok ' '$W/out') = 3 ]"
done_testing
