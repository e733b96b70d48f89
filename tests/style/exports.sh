#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every archive we build exports only its public names and names under an
# internal prefix: the archive's own (mmv__, trace__, mmvr_, tra_) or the
# shared code's (sdk_). Public names are those of the library's version
# script (map:FILE); the trace core's OTLP decoder adds otlp_ and its
# generated protobuf-c code the schema's package, opentelemetry__ (common/
# otlp_trace.proto), so a static link of a program with a name of its own
# under a public prefix (trace_debug, mmv_create) cannot collide with
# ours, and a reader of a backtrace can tell where a function lives.
# Run by make check after the archives are built.
. tests/lib/tap.sh
B=${B:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# public_names MAP: the names a version script makes global
public_names() {
	sed -e 's|/\*.*\*/||g' -e '/local:/d' "$1" | tr ' ;{}\t' '\n\n\n\n\n' |
		grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | grep -vE '^(global|PCP_[A-Z_0-9.]*)$' | tr '\n' ' '
}

# bad_names ARCHIVE PREFIX...: the global names ARCHIVE defines that are
# neither public (map:FILE) nor under one of the prefixes
bad_names() {
	_a=$1
	shift
	_public=
	for _p in "$@"; do
		case "$_p" in map:*) _public="$_public $(public_names "${_p#map:}")" ;; esac
	done
	nm -g --defined-only "$_a" | awk 'NF == 3 { print $3 }' | sort -u |
		while read -r sym; do
			case " $_public " in *" $sym "*) continue ;; esac
			for _p in "$@"; do
				case "$_p" in map:*) continue ;; esac
				case "$sym" in "$_p"*) continue 2 ;; esac
			done
			echo "$sym"
		done
}

# archive, its prefixes and public names
cat > "$tmp/list" <<'LIST'
libpcp_mmv.a		mmv__ sdk_ map:libpcp_mmv/exports.map
libpcp_trace.a		trace__ tra__ sdk_ map:libpcp_trace/exports.map
libmmv_reader.a		mmvr_ sdk_
libpmda_trace_core.a	tra_ sdk_ otlp_ otel_ opentelemetry__
libpmda_trace_otlp.a	otlp_
LIST
while read -r archive prefixes; do
	a="$B/lib/$archive"
	if [ ! -f "$a" ]; then
		not_ok "$archive: built"
		continue
	fi
	bad=$(bad_names "$a" $prefixes)
	if [ -z "$bad" ]; then
		ok "$archive: every exported name is public or starts with an internal prefix ($prefixes)"
	else
		not_ok "$archive: names neither public nor internal ($prefixes)"
		echo "$bad" | sed 's/^/# /' | head -40
	fi
done < "$tmp/list"

# every archive of the build is listed
unlisted=$(for a in "$B"/lib/*.a; do
	grep -q "^${a##*/}[[:space:]]" "$tmp/list" || echo "${a##*/}"
done)
check "every archive in $B/lib is listed here${unlisted:+ (not: $unlisted)}" test -z "$unlisted"

# the check finds an internal name under a public prefix
printf 'int mmv_create(void) { return 0; }\nint mmv__create(void) { return 0; }\n' > "$tmp/p.c"
cc -c -o "$tmp/p.o" "$tmp/p.c" && ar rcs "$tmp/p.a" "$tmp/p.o"
check "a planted mmv_create is found, mmv__create is not" \
	test "$(bad_names "$tmp/p.a" mmv__ sdk_ map:libpcp_mmv/exports.map)" = mmv_create
done_testing
