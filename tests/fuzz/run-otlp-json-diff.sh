#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The OTLP JSON walker against json-c's path, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh otlp_json_diff 50000 65536
