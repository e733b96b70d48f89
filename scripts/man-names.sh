#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# man-names.sh PAGE: the names the page's NAME section lists, one a line.
sed -n '/^\.SH NAME/{n;p;q;}' "$1" | sed 's/ \\-.*//' | tr -d ' ' | tr ',' '\n'
