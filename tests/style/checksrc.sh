#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree's C style (scripts/checksrc): no finding over the tree, and the
# checker can fail: every rule flags its bad file in tests/style/bad/ (and
# nothing else there), and a waiver silences one finding and is counted.
. tests/lib/tap.sh
C="python3 scripts/checksrc"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if $C > "$tmp/tree" 2> "$tmp/sum"; then
	ok "checksrc: no finding in the tree ($(cat "$tmp/sum"))"
else
	not_ok "checksrc: findings in the tree ($(cat "$tmp/sum"))"
	sed 's/^/# /' "$tmp/tree" | head -40
fi

for rule in $($C --rules); do
	f=tests/style/bad/$(echo "$rule" | tr 'A-Z' 'a-z').c
	if [ ! -f "$f" ]; then
		not_ok "$rule: $f exists"
		continue
	fi
	$C "$f" > "$tmp/out" 2>/dev/null
	rc=$?
	hits=$(grep -c "^$f:[0-9]*:[0-9]*: $rule:" "$tmp/out")
	other=$(grep "^$f:" "$tmp/out" | grep -vc ": $rule:")
	if [ "$rc" -eq 1 ] && [ "$hits" -gt 0 ] && [ "$other" -eq 0 ]; then
		ok "$rule: flags $f"
	else
		not_ok "$rule: flags $f (status $rc, $hits of $rule, $other others)"
		sed 's/^/# /' "$tmp/out"
	fi
done

# A waiver on the line before silences exactly one finding of its rule.
printf '/* Waiver test. */\n/* !checksrc! disable CALLSPACE */\nint a = f (1);\n' > "$tmp/w.c"
$C "$tmp/w.c" > "$tmp/out" 2> "$tmp/sum"
check "waiver: silences its finding and is counted" \
	grep -q ' 0 findings, 1 waived' "$tmp/sum"
printf 'int b = f (2);\n' >> "$tmp/w.c"
$C "$tmp/w.c" > "$tmp/out" 2>&1
check "waiver: only the next finding" grep -q ':4:[0-9]*: CALLSPACE' "$tmp/out"
done_testing
