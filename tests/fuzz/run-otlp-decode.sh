#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The trace agent's OTLP decoder, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh otlp_decode 50000 65536
