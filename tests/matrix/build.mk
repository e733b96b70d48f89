# SPDX-License-Identifier: GPL-2.0-or-later
# make check-matrix: the tree built and tested against the PCP of each
# Debian suite in MATRIX_SUITES, in throw-away roots (tests/matrix/run.sh).
# By default the suites this machine is not: make check covers its own.
SUPPORTED_SUITES := bookworm trixie sid
HOST_SUITE := $(shell . /etc/os-release 2>/dev/null; echo $$VERSION_CODENAME)
MATRIX_SUITES ?= $(filter-out $(HOST_SUITE),$(SUPPORTED_SUITES))
.PHONY: check-matrix matrix-roots
check-matrix:
	@MATRIX_SUITES="$(MATRIX_SUITES)" sh tests/matrix/run.sh

# Only the suites' roots with their dependencies (cached in build/roots),
# which check-matrix then starts from: .ci/run makes them while make check runs.
matrix-roots:
	@MATRIX_SUITES="$(MATRIX_SUITES)" sh tests/matrix/run.sh --roots
