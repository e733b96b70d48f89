#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Man pages: each renders with groff's warnings on and none is given; a
# staged install gives every public call of include/pcp/ a page that
# renders by its own name; docs/ and man/ point nowhere outside the tree.
. tests/lib/tap.sh
export LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# render FILE-OR-NAME ARGS...: ok when man writes nothing on stderr
render() {
	d=$1
	shift
	if ! man --warnings -E UTF-8 "$@" > "$tmp/out" 2> "$tmp/err"; then
		echo "man exited with status $?" >> "$tmp/err"
	fi
	[ -s "$tmp/out" ] || echo "no output" >> "$tmp/err"
	if [ -s "$tmp/err" ]; then
		not_ok "$d"
		sed 's/^/# /' "$tmp/err" | head -20
	else
		ok "$d"
	fi
}

pages=${MAN_PAGES:-$(ls man/man[1-8]/*.[1-8])}
for p in $pages; do
	render "$p renders without warnings" -l "$p"
done

sh scripts/install-man.sh "$tmp/man" $pages

# Every function the public headers declare, by its page's link.
calls=$(sed -n -e 's/^extern [^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' \
	-e 's/^static inline [^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' \
	-e 's/^[a-z][a-z ]* \**\(pmtrace[a-z]*\)(void);/\1/p' \
	include/pcp/mmv_stats.h include/pcp/mmv_inline.h include/pcp/mmv_histogram.h include/pcp/mmv_counter.h \
	include/pcp/trace.h include/pcp/trace_ext.h include/pcp/trace_handle.h | sort -u)
n=0
for c in $calls; do
	n=$((n + 1))
	if [ -f "$tmp/man/man3/$c.3" ]; then
		render "man 3 $c" -M "$tmp/man" 3 "$c"
	else
		not_ok "man 3 $c: no page names it"
	fi
done
check "the headers declare the calls looked for ($n)" [ "$n" -ge 59 ]
for c in pmtrace pmdammv pmdatrace; do
	render "man 1 $c" -M "$tmp/man" 1 "$c"
done
render "man 5 mmv" -M "$tmp/man" 5 mmv

# Nothing in docs/ or man/ refers to files outside the repository.
if grep -rnE '\.\./|/work/|shared/spec' docs man > "$tmp/refs"; then
	not_ok "docs/ and man/ stay inside the repository"
	sed 's/^/# /' "$tmp/refs"
else
	ok "docs/ and man/ stay inside the repository"
fi
done_testing
