#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The OTLP protobuf walker against protobuf-c, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh otlp_pb_diff 50000 65536
