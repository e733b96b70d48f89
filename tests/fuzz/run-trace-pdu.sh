#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace agent's PDU decoding, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh trace_pdu 20000 4096
