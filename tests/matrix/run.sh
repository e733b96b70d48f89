#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check-matrix: for each suite of $MATRIX_SUITES, in a throw-away root
# of that suite (tests/lib/debroot.sh) with that suite's PCP:
#   1. make deps (the root starts as debootstrap minbase + make),
#   2. make check: every test of the tree, compared with that suite's PCP,
#   3. make deb (two versions), then the package round trip of
#      tests/integration/deb_roundtrip.sh on those packages in a second,
#      clean root of the suite.
# Prints each step's summary, keeps the logs in build/matrix/SUITE/, and
# ends with one line "N passed, M failed" over all suites.
# KEEP=1 keeps the roots (build/matrix/SUITE/root) for a look inside.
# With --roots it only builds (or finds cached) each suite's root with
# its dependencies (build/roots), nothing else: .ci/run does that while
# the host's make check runs, so that the matrix starts from them.
. tests/lib/debroot.sh
top=$(pwd)
suites=${MATRIX_SUITES:-trixie sid}
passed=0
failed=0

[ "$(id -u)" = 0 ] || { echo "check-matrix: needs root (debootstrap, chroot, unshare)"; exit 1; }
for t in debootstrap chroot unshare ip; do
	command -v $t > /dev/null || { echo "check-matrix: $t not installed (make deps)"; exit 1; }
done

# count LOG: add the "N passed, M failed" line of LOG to the totals
# (a step without one counts as one failure).
count() {
	_l=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$1" | tail -1)
	if [ -z "$_l" ]; then
		failed=$((failed + 1))
		echo "  no summary; last lines of $1:"
		tail -15 "$1" | sed 's/^/    /'
		return
	fi
	set -- $_l
	passed=$((passed + $1))
	failed=$((failed + $3))
}

# step NAME LOG CMD...: run a step, show its result and duration
step() {
	_n=$1 _log=$2
	shift 2
	_t0=$(date +%s)
	"$@" > "$_log" 2>&1
	_rc=$?
	printf '%s %s: %s (%ss, rc %s)\n' "$suite" "$_n" \
		"$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$_log" | tail -1)" \
		$(( $(date +%s) - _t0 )) $_rc
	grep -E '^(FAIL|not ok)' "$_log" | head -20 | sed 's/^/  /'
	return $_rc
}

# deps_root SUITE M: SUITE's root with make deps done (a tar kept in
# build/roots, made once for the same scripts/deps.sh); prints its path.
# SDK_IN_MATRIX: scripts/deps.sh leaves the host's own (chromium) out.
deps_root() {
	mkdir -p "$2"
	{ echo "SDK_IN_MATRIX=$1; export SDK_IN_MATRIX"
	  echo 'apt-get update && apt-get install make'; cat scripts/deps.sh; } > "$2/deps-layer.sh"
	_base=$(debroot_base "$1" "$2/root.log") &&
		debroot_layer "$_base" deps "$2/root.log" "$2/deps-layer.sh"
}

if [ "${1:-}" = --roots ]; then
	rc=0
	for suite in $suites; do
		t0=$(date +%s)
		if deps_root "$suite" "$top/build/matrix/$suite" > /dev/null; then
			echo "$suite: root ready ($(( $(date +%s) - t0 ))s)"
		else
			echo "$suite: no root (log: build/matrix/$suite/root.log)"
			rc=1
		fi
	done
	exit $rc
fi

for suite in $suites; do
	M=$top/build/matrix/$suite
	root=$M/root
	mkdir -p "$M"
	rm -rf "$root" "$M/deb"
	# the tree as a clean clone has it, so nothing built here leaks in
	# (nor Python's and mypy's caches a developer's runs leave behind)
	src=$M/src.tar
	tar -cf "$src" --exclude=./build --exclude=./.git --exclude=.mypy_cache \
		--exclude=__pycache__ .
	t0=$(date +%s)
	if ! deps=$(deps_root "$suite" "$M") || ! debroot_unpack "$deps" "$root"; then
		echo "$suite: no root (log: $M/root.log)"
		tail -5 "$M/root.log" | sed 's/^/  /'
		failed=$((failed + 1))
		continue
	fi
	echo "$suite: root ready ($(( $(date +%s) - t0 ))s): $(debroot_sh "$root" \
		"dpkg-query -W -f='\${Package} \${Version}, ' pcp libpcp-mmv1 gcc clang libcmocka-dev python3")"
	mkdir -p "$root/src" && tar -C "$root/src" -xf "$src"

	step "make deps" "$M/deps.log" debroot_sh "$root" "cd /src && SDK_IN_MATRIX=$suite make deps && echo '1 passed, 0 failed'"
	count "$M/deps.log"
	step "make check" "$M/check.log" debroot_ns "$root" \
		"cd /src && mkdir -p build && make -j2 all bench-build > build/build-all.log 2>&1 || { tail -30 build/build-all.log; exit 1; }
		SDK_IN_MATRIX=$suite make check"
	count "$M/check.log"
	cp -r "$root/src/build/test-logs" "$M/" 2> /dev/null

	# Packages against this suite's PCP, then their round trip in a clean root.
	v1=$(debroot_sh "$root" "cd /src && dpkg-parsechangelog -S Version")
	step "make deb" "$M/deb.log" debroot_ns "$root" \
		"cd /src && make deb DEB_DIR=/tmp/deb/v1 DEB_VERSION=$v1 &&
		make deb DEB_DIR=/tmp/deb/v2 DEB_VERSION=$v1+rt1 && echo '1 passed, 0 failed'"
	count "$M/deb.log"
	mkdir -p "$M/deb" && cp -r "$root/tmp/deb/v1" "$root/tmp/deb/v2" "$M/deb/" 2> /dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$root"
	step "package round trip" "$M/roundtrip.log" env SUITE="$suite" DEBS="$M/deb" \
		TEST_LOG_DIR="$M/test-logs" sh tests/run-tests.sh tests/integration/deb_roundtrip.sh
	count "$M/roundtrip.log"
	echo "$suite: $(( $(date +%s) - t0 ))s in all; logs in $M"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
