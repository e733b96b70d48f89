#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The programs the guides quote are the files the build compiles and the
# tests run: in README.md and docs/*.md a line
#	<!-- quote FILE -->		(or <!-- quote FILE FIRST-LAST -->)
# is followed on the next line by a fenced code block (```c ... ```) whose
# text equals FILE (or its lines FIRST to LAST) byte for byte; FILE is a
# path from the top of the tree. Fails on a difference (with the diff), a
# FILE that does not exist, a bad range, or a marker with no fence or an
# unclosed one. The checker is first shown to fail on planted mistakes.
. tests/lib/tap.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# quotes TOP MARKDOWN...: one ok / not ok per marker (FILE relative to TOP)
quotes() {
	_top=$1
	shift
	[ $# -gt 0 ] || return 0
	_q=$tmp/q.$$.$_tap_n
	rm -rf "$_q" && mkdir -p "$_q"
	# each marker: $_q/N.meta "MD LINE FILE [RANGE]" and $_q/N.body, the
	# fence's text; N.err instead when there is no fence or it never ends
	awk -v q="$_q" '
	function fail(why) { print why > (q "/" n ".err"); close(q "/" n ".err"); state = 0 }
	function unfinished() {
		if (state == 1)
			fail("not followed by a fenced code block on the next line")
		else
			fail("the file ends inside the quoted block")
	}
	FNR == 1 && state { unfinished() }	# the previous file ended early
	state == 2 {
		line = $0
		if (line ~ ("^ *" fence "[" ch "]*[ \t]*$")) {	# the closing fence
			close(q "/" n ".body"); state = 0; next
		}
		for (i = 0; i < indent && substr(line, 1, 1) == " "; i++)
			line = substr(line, 2)
		printf "%s\n", line > (q "/" n ".body")
		next
	}
	state == 1 {
		if (match($0, /^ *(```+|~~~+)/)) {
			indent = match($0, /[`~]/) - 1
			fence = substr($0, indent + 1)
			ch = substr(fence, 1, 1)
			sub("[^" ch "].*", "", fence)
			printf "" > (q "/" n ".body")
			state = 2; next
		}
		fail("not followed by a fenced code block on the next line")
	}
	/^[ \t]*<!--[ \t]*quote[ \t]/ {
		n++
		m = $0
		sub(/^[ \t]*<!--[ \t]*quote[ \t]+/, "", m)
		if (!sub(/[ \t]*-->[ \t]*$/, "", m)) { fail("marker not closed by -->"); next }
		print FILENAME, FNR, m > (q "/" n ".meta"); close(q "/" n ".meta")
		state = 1
	}
	END { if (state) unfinished() }
	' "$@"
	for _m in "$_q"/*.meta; do
		[ -e "$_m" ] || continue
		_n=${_m%.meta}
		read -r _md _line _file _range _extra < "$_m"
		_d="$_md:$_line quotes $_file${_range:+ lines $_range}"
		if [ -e "$_n.err" ]; then
			not_ok "$_d: $(cat "$_n.err")"
			continue
		fi
		if [ -n "$_extra" ] || [ -z "$_file" ]; then
			not_ok "$_d: the marker is <!-- quote FILE --> or <!-- quote FILE FIRST-LAST -->"
			continue
		fi
		if [ ! -f "$_top/$_file" ]; then
			not_ok "$_d: no such file"
			continue
		fi
		if [ -z "$_range" ]; then
			cp "$_top/$_file" "$_n.want"
		else
			_a=${_range%-*} _b=${_range#*-}
			_len=$(wc -l < "$_top/$_file")
			case "$_a$_b" in
			*[!0-9]* | "") _a=0 ;;
			esac
			if [ "$_a" -lt 1 ] 2> /dev/null || [ "$_b" -lt "$_a" ] || [ "$_b" -gt "$_len" ] ||
			   [ "$_range" != "$_a-$_b" ]; then
				not_ok "$_d: the range is not FIRST-LAST within the file's $_len lines"
				continue
			fi
			sed -n "${_a},${_b}p" "$_top/$_file" > "$_n.want"
		fi
		if cmp -s "$_n.want" "$_n.body"; then
			ok "$_d"
		else
			not_ok "$_d: the block differs from the file (- file, + $_md)"
			diff -u "$_n.want" "$_n.body" | sed -n '3,$s/^/# /p' | head -40
		fi
	done
}
# count_markers MARKDOWN...: how many markers they hold
count_markers() { grep -c '^[[:space:]]*<!--[[:space:]]*quote[[:space:]]' "$@" 2> /dev/null | awk -F: '{ n += $NF } END { print n + 0 }'; }

# --- the checker itself, on a small tree of its own -----------------------
S=$tmp/self
mkdir -p "$S/src"
printf '/* a */\nint main(void)\n{\n\treturn 0;\n}\n' > "$S/src/p.c"
fence='```'
{
	echo "# Good"
	echo "<!-- quote src/p.c -->"
	echo "${fence}c"
	cat "$S/src/p.c"
	echo "$fence"
	echo "A range, in a list item:"
	echo "  <!-- quote src/p.c 2-3 -->"
	echo "  ${fence}c"
	printf '  int main(void)\n  {\n'
	echo "  $fence"
} > "$S/good.md"
# self NAME WANT MD-TEXT: quotes on a file with MD-TEXT reports WANT
# ("ok" or "not ok"), and for "not ok" the extra line PATTERN in its output
self() {
	printf '%s\n' "$3" > "$S/$1.md"
	( _tap_n=0 _tap_fail=0; quotes "$S" "$S/$1.md" ) > "$tmp/self.out" 2>&1
	case $2 in
	ok) ! grep -q '^not ok' "$tmp/self.out" && grep -q '^ok' "$tmp/self.out" ;;
	*) grep -q '^not ok' "$tmp/self.out" && grep -q -- "${4:-.}" "$tmp/self.out" ;;
	esac || { sed 's/^/#   /' "$tmp/self.out"; return 1; }
}
( _tap_n=0 _tap_fail=0; quotes "$S" "$S/good.md" ) > "$tmp/good.out" 2>&1
check "checker: a whole file and an indented range, as written, pass (2 ok)" \
	sh -c "[ \$(grep -c '^ok' '$tmp/good.out') = 2 ] && ! grep -q '^not ok' '$tmp/good.out'"
check "checker: a planted difference (one tab turned into spaces) fails, with the diff" \
	self tab "not ok" "$(printf '<!-- quote src/p.c -->\n%sc\n/* a */\nint main(void)\n{\n        return 0;\n}\n%s' "$fence" "$fence")" \
	'^# +        return 0;'
check "checker: a missing last line fails" \
	self short "not ok" "$(printf '<!-- quote src/p.c -->\n%sc\n/* a */\nint main(void)\n{\n\treturn 0;\n%s' "$fence" "$fence")" \
	'^# -}'
check "checker: a marker naming a missing file fails" \
	self missing "not ok" "$(printf '<!-- quote src/nosuch.c -->\n%sc\nx\n%s' "$fence" "$fence")" 'no such file'
check "checker: a marker not followed by a fence fails" \
	self nofence "not ok" "$(printf '<!-- quote src/p.c -->\n\n%sc\n/* a */\n%s' "$fence" "$fence")" 'not followed'
check "checker: a marker on the last line fails" \
	self last "not ok" "text
<!-- quote src/p.c -->" 'not followed'
check "checker: a block never closed fails" \
	self open "not ok" "$(printf '<!-- quote src/p.c 1-1 -->\n%sc\n/* a */' "$fence")" 'ends inside'
check "checker: a range past the end fails" \
	self range "not ok" "$(printf '<!-- quote src/p.c 4-9 -->\n%sc\n\treturn 0;\n}\n%s' "$fence" "$fence")" 'range'
check "checker: a right range passes" \
	self range2 ok "$(printf '<!-- quote src/p.c 4-5 -->\n%sc\n\treturn 0;\n}\n%s' "$fence" "$fence")"

# --- the guides -----------------------------------------------------------
mds=$(ls README.md docs/*.md 2> /dev/null)
n=$(count_markers $mds)
before=$_tap_n
quotes . $mds
check "every marker in README.md and docs/*.md was checked ($n)" test $((_tap_n - before)) = "$n"
done_testing
