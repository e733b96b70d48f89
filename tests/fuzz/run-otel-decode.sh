#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The OpenTelemetry metrics decoder, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh otel_decode 50000 65536
