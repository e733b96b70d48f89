# SPDX-License-Identifier: GPL-2.0-or-later
# tree_files: the files of the tree, relative to its top, one a line: what
# git tracks, or without git (a copy in a throw-away root) every file
# outside build/ and .git/ (and Python's __pycache__/, which a test's
# import may have written).
tree_files() {
	git ls-files 2> /dev/null ||
		find . -path ./build -prune -o -path ./.git -prune -o -name __pycache__ -prune \
			-o -type f -print | sed 's|^\./||'
}
