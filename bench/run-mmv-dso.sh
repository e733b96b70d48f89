#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# MMV agents alone (part of make bench): Debian's pmda_mmv.so and ours
# loaded into one process by bench_mmv_dso, their fetch callbacks called
# through pmdaInterface on the same 1, 10 and 100 files of 1,000 metrics
# (no pmcd, no client), plus the first fetch after a file is rewritten.
# MMV_BENCH_FILES and MMV_BENCH_REPS narrow a run.
cd "$(dirname "$0")/.."
top=$(pwd)
theirs=/var/lib/pcp/pmdas/mmv/pmda_mmv.so
. "$top/tests/lib/debian.sh"
need_debian run-mmv-dso "$theirs"	# not ours installed over it
W=$(mktemp -d /tmp/mmv-dso.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
echo "| MMV agent case (DSO fetch callback, CPU us/request) | Debian pmda_mmv.so | ours | ours/Debian |"
echo "|---|---:|---:|---:|"
for n in ${MMV_BENCH_FILES:-1 10 100}; do
	rm -rf "$W/mmv" && mkdir -p "$W/mmv"
	PCP_TMP_DIR=$W build/bench/mmv_files 0 "$n" || exit 1
	PCP_TMP_DIR=$W build/bench/bench_mmv_dso "$theirs" "$top/build/lib/pmda_mmv.so" \
		"$n" "${MMV_BENCH_REPS:-200}" "$top/build/bench/mmv_files" 2>&1
done
