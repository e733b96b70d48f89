# SPDX-License-Identifier: GPL-2.0-or-later
# Style: checks on the tree itself (exported names of internal archives,
# the C style of scripts/checksrc, the build under clang, SPDX lines).
TEST_SCRIPTS += tests/style/exports.sh
TEST_SCRIPTS += tests/style/checksrc.sh
TEST_SCRIPTS += tests/style/refs.sh
TEST_SCRIPTS += tests/style/compilers.sh
TEST_SCRIPTS += tests/style/spdx.sh
TEST_SCRIPTS += tests/style/deps.sh
