#!/bin/sh
# The trace agent's PDU decoding, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh trace_pdu 50000 4096
