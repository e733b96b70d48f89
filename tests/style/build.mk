# Style: checks on the tree itself (exported names of internal archives).
TEST_SCRIPTS += tests/style/exports.sh
