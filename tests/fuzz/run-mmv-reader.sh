#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The MMV reader core, briefly (make check).
exec sh tests/fuzz/run-fuzz.sh mmv_reader 8000 8192
