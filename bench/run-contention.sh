#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-contention: build/bench/bench_contention in a private
# PCP_TMP_DIR, after checking that the library it compares against is
# Debian's. Prints its "contention: WAY THREADS NS_PER_UPDATE LOST" lines
# (bench/bench_contention.c says how they are measured). Never asserts.
set -e
cd "$(dirname "$0")/.."
bin=build/bench/bench_contention
[ -x "$bin" ] || { echo "run-contention: $bin missing (make bench-contention)" >&2; exit 1; }
unset LD_LIBRARY_PATH LD_PRELOAD
. tests/lib/debian.sh
need_debian run-contention "$(debian_lib libpcp-mmv1 libpcp_mmv.so.1)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/mmv"
PCP_TMP_DIR=$tmp "$bin" "$@"
