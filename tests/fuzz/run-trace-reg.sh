#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace agent's registration decoder, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh trace_reg 50000 1024
