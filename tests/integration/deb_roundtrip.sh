#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make deb, then install, upgrade and purge the packages with apt-get in a
# throw-away root (tests/lib/debroot.sh, Debian's pcp installed first):
# purging must give back exactly Debian's files, symlinks and pmcd.conf.
# python3-pcpsdk is installed with the others: the binding imports from
# the package, writes an MMV file through our libpcp_mmv (not Debian's),
# works in a venv made with --system-site-packages, and goes with the purge.
# Then the same with a pmcd running in the root and the agents' ./Install
# and ./Remove run as an administrator would (tests/integration/
# deb_agents.sh: Remove twice and without Install, without systemd, an
# upgrade with the agents running, purges). The host is not touched.
#   SUITE  the root's Debian suite (default: this machine's)
#   DEBS   a folder with v1/ and v2/ (packages of two versions, v2 the
#          higher) built against SUITE's PCP; without it, make deb builds
#          them here, which is right only for this machine's suite.
# make check-matrix runs it for each suite with packages built in that
# suite's root.
. tests/lib/tap.sh
. tests/lib/debroot.sh
top=$(pwd)
W=$(mktemp -d /tmp/deb_roundtrip.XXXXXX)
root=$W/root
# KEEP=1 keeps the root and logs in $W for debugging
trap '[ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT INT TERM

# Without what it needs it skips; but given packages to test (DEBS, as
# make check-matrix does) it must run, so not running is a failure.
skip() {
	[ -z "${DEBS:-}" ] || { echo "not ok 1 - $*"; echo "1..1"; exit 1; }
	echo "ok 1 # SKIP $*"; echo "1..1"; exit 0
}
[ -z "${SDK_IN_MATRIX:-}" ] || skip "inside a root of make check-matrix, which runs it from outside"
[ "$(id -u)" = 0 ] || skip "needs root for chroot"
for t in debootstrap dpkg-buildpackage dh lintian chroot; do
	command -v $t > /dev/null || skip "$t not installed (make deps)"
done
host_suite=$(. /etc/os-release; echo "${VERSION_CODENAME:-}")
suite=${SUITE:-$host_suite}
[ -n "${DEBS:-}" ] || [ "$suite" = "$host_suite" ] ||
	skip "packages for $suite are built in a $suite root: make check-matrix"

in_root() { debroot_sh "$root" "$1"; }
apt_get() { in_root "apt-get $1"; }

# A root of the suite with Debian's pcp, cached.
cat > "$W/pcp-layer.sh" <<'EOS'
apt-get update
apt-get install pcp libpcp3-dev pkg-config
EOS
base=$(debroot_base "$suite" "$W/debootstrap.log") ||
	skip "debootstrap $suite failed: $(tail -1 "$W/debootstrap.log")"
base=$(debroot_layer "$base" pcp "$W/apt.log" "$W/pcp-layer.sh") ||
	skip "apt-get install pcp in the $suite root failed: $(tail -1 "$W/apt.log")"
# and a C compiler, for the guide's programs (a layer of its own, so the
# pcp layer's cache stays valid)
cat > "$W/cc-layer.sh" <<'EOS'
apt-get install gcc libc6-dev make
EOS
base=$(debroot_layer "$base" cc "$W/apt-cc.log" "$W/cc-layer.sh") ||
	skip "apt-get install gcc in the $suite root failed: $(tail -1 "$W/apt-cc.log")"
debroot_unpack "$base" "$root"

# Two versions: the changelog's and a higher one for the upgrade.
debs=${DEBS:-}
if [ -z "$debs" ]; then
	debs=$top/build/deb-test
	v1=$(dpkg-parsechangelog -S Version)
	for v in v1 v2; do
		ver=$v1
		[ $v = v1 ] || ver=$v1+rt1
		make -s deb DEB_DIR="$debs/$v" DEB_VERSION="$ver" > "$W/deb-$v.log" 2>&1 ||
			{ not_ok "make deb $ver"; sed 's/^/# /' "$W/deb-$v.log" | tail -30; done_testing; exit 1; }
	done
	ok "make deb builds the packages, lintian reports no error ($v1, $v1+rt1)"
	grep '^[WE]: ' "$W/deb-v1.log" | sed 's/^/# lintian: /'
fi
for v in v1 v2; do
	mkdir -p "$root/tmp/$v" && cp "$debs/$v"/*.deb "$root/tmp/$v/" && rm -f "$root/tmp/$v"/*-dbgsym_*
done
pkgs=$(cd "$root/tmp/v1" && ls *.deb | sed 's/_.*//' | tr '\n' ' ')
v2=$(dpkg-deb -f "$(ls "$root/tmp/v2"/*.deb | head -1)" Version)

# What our packages need from the suite is there before the first
# snapshot, so the snapshots differ only by what ours do.
needs=$(for d in "$root/tmp/v1"/*.deb; do dpkg-deb -f "$d" Depends; done |
	tr ',' '\n' | sed 's/|.*//; s/(.*//; s/[[:space:]]//g' | grep . | sort -u |
	grep -vx "$(echo $pkgs | tr ' ' '\n')" | tr '\n' ' ')
# (python3-venv: python3 -m venv needs its ensurepip, as on any Debian)
apt_get "install $needs python3-venv" > "$W/apt-deps.log" 2>&1 ||
	skip "apt-get install $needs python3-venv in the $suite root failed: $(tail -1 "$W/apt-deps.log")"

# What Debian's pcp put on the system: files, symlinks and their targets.
state() {
	in_root "find /usr/bin /usr/lib /usr/include /var/lib/pcp /etc/pcp -printf '%p %y %l %m\n' | sort"
}
state > "$W/before"
# the diversions of our packages (dpkg-divert --list ends a line with its package)
ours_div=' by [a-z0-9-]*-sdk\(-[a-z]*\)*\$'
# loaded_from PROGRAM SONAME: the package of the file PROGRAM loads for SONAME
loaded_from() {
	in_root "p=\$(ldd $1 | awk '\$1 == \"$2\" { print \$3 }') &&
		dpkg -S \"\$(readlink -f \$p)\" | grep -v '^diversion' | sed 's/[:,].*//'"
}
# aside: every diverted path that a package other than ours has is at its
# diverted-to name (Debian's file moved, not overwritten by ours)
aside() {
	in_root "dpkg-divert --list | grep '$ours_div' | while read -r _ _ path _ to _ pkg; do
		theirs=\$(dpkg -S \$path 2> /dev/null | grep -v '^diversion' | sed 's/: .*//' |
			tr ',' '\n' | sed 's/^ *//; s/:.*//' | grep -vx \$pkg)
		[ -z \"\$theirs\" ] || [ -e \$to ] || [ -L \$to ] ||
			{ echo \"# \$path of \$theirs is not at \$to\"; exit 1; }
	done"
}
cp "$root/etc/pcp/pmcd/pmcd.conf" "$W/pmcd.conf"
trace=/var/lib/pcp/pmdas/trace

apt_get "install --no-install-recommends $(ls "$root/tmp/v1"/*.deb | sed "s|^$root||" | tr '\n' ' ')" > "$W/install.log" 2>&1
check "apt-get installs $pkgs" in_root "dpkg -s $pkgs | grep -c '^Status: install ok installed' | grep -qx $(echo $pkgs | wc -w)"
check "Debian's libraries, -dev files, trace agent files and pmtrace are diverted (12)" \
	in_root "[ \$(dpkg-divert --list | grep -c \"$ours_div\") = 12 ]"
check "each of them that a package of Debian's has is aside, not overwritten" aside
check "ours at $trace/pmdatrace, Debian's symlink kept as .distrib" \
	in_root "dpkg -S $trace/pmdatrace | grep -Eq '(^|, )pcp-sdk-pmda-trace[:,]' &&
		[ \$(readlink $trace/pmdatrace.distrib) = /usr/lib/pcp/pmdas/trace/pmdatrace ]"
check "Debian's pmtrace loads our libpcp_trace" \
	test "$(loaded_from /usr/bin/pmtrace.distrib libpcp_trace.so.2)" = libpcp-trace2-sdk
check "the loader finds our libpcp_mmv.so.1 before Debian's" \
	in_root "p=\$(ldconfig -p | awk '\$1 == \"libpcp_mmv.so.1\" { print \$NF; exit }') &&
		dpkg -S \"\$(readlink -f \$p)\" | grep -q '^libpcp-mmv1-sdk[:,]'"
check "pkg-config libpcp_mmv: our headers, and libpcp's for pcp/pmapi.h" \
	in_root "pkg-config --cflags libpcp_mmv | grep -q -- '-I/usr/include/pcp-sdk .*-I/usr/include/pcp'"
check "pmcd.conf untouched by the install" cmp -s "$W/pmcd.conf" "$root/etc/pcp/pmcd/pmcd.conf"

# The C guide's programs (demos/quickstart), built as a user builds them
# on the -dev packages: its Makefile (pkg-config --cflags and --libs of
# libpcp_mmv and libpcp_trace), and the guide's one-line command; then
# run with a private PCP_TMP_DIR and no trace agent (a network namespace
# of their own), their MMV files read back with Debian's mmvdump.
qs=/tmp/quickstart
mkdir -p "$root$qs" && cp demos/quickstart/*.c demos/quickstart/Makefile "$root$qs/"
in_root "make -C $qs CFLAGS='-std=c11 -Wall -Wextra -Werror -O2 -g' &&
	cd $qs && cc \$(pkg-config --cflags libpcp_mmv libpcp_trace) first.c \$(pkg-config --libs libpcp_mmv libpcp_trace)" \
	> "$W/quickstart.log" 2>&1
rc=$?
check "demos/quickstart/Makefile builds first, tiny, threads with -Werror; cc \$(pkg-config ...) first.c builds a.out (exit $rc)" \
	sh -c "[ $rc = 0 ] && grep -q -- '-I/usr/include/pcp-sdk .*first.c .*-lpcp_mmv -lpcp_trace' '$W/quickstart.log' &&
		for p in first tiny threads a.out; do [ -x '$root$qs'/\$p ] || exit 1; done"
[ $rc = 0 ] || sed 's/^/# /' "$W/quickstart.log" | tail -20
for p in first a.out; do
	check "$p loads our libraries: libpcp_mmv.so.1 from libpcp-mmv1-sdk, libpcp_trace.so.2 from libpcp-trace2-sdk" \
		test "$(loaded_from $qs/$p libpcp_mmv.so.1) $(loaded_from $qs/$p libpcp_trace.so.2)" = \
			"libpcp-mmv1-sdk libpcp-trace2-sdk"
done
# (/lib is /usr/lib on a merged-/usr system: the folder, resolved)
lib=$(in_root "ldd $qs/first" | awk '$1 == "libpcp_mmv.so.1" { print $3 }')
dir=$(in_root "readlink -f \$(dirname $lib)")
check "... $lib, from the multiarch folder $dir" \
	test "$dir" = "/usr/lib/$(in_root 'gcc -print-multiarch')"
debroot_ns "$root" "rm -rf /tmp/qs && mkdir -p /tmp/qs/mmv && cd /tmp/qs && export PCP_TMP_DIR=/tmp/qs &&
	$qs/first 2 > first.out && $qs/tiny && $qs/threads > threads.out &&
	for f in quickstart tiny threads; do /var/lib/pcp/pmdas/mmv/mmvdump mmv/\$f > \$f.dump || exit 1; done" \
	> "$W/quickstart-run.log" 2>&1
rc=$?
# first's totals, and what PCP's mmvdump reads in its file
set -- $(sed -n 's/^served \([0-9]*\) GET and \([0-9]*\) POST requests, \([0-9]*\) traced$/\1 \2 \3/p' "$root/tmp/qs/first.out" 2> /dev/null)
check "first 2, tiny, threads run with no trace agent (exit $rc): first served ${1:-?} GET and ${2:-?} POST, traced ${3:-?}" \
	test $rc = 0 -a -n "${2:-}" -a "${3:-}" = 0
check "... their MMV files, read with Debian's mmvdump: requests GET and POST as first said, loops 1000000, work 4000000" \
	sh -c "grep -q 'requests\[0 or \"GET\"\] = ${1:-x}\$' '$root/tmp/qs/quickstart.dump' &&
		grep -q 'requests\[1 or \"POST\"\] = ${2:-x}\$' '$root/tmp/qs/quickstart.dump' &&
		grep -q '\] latency.count = $((${1:-0} + ${2:-0}))\$' '$root/tmp/qs/quickstart.dump' &&
		grep -q '\] loops = 1000000\$' '$root/tmp/qs/tiny.dump' &&
		grep -q '\] work = 4000000\$' '$root/tmp/qs/threads.dump' &&
		grep -qx 'work 4000000' '$root/tmp/qs/threads.out'"
[ $rc = 0 ] || sed 's/^/# /' "$W/quickstart-run.log" | tail -20

# The Python binding, from python3-pcpsdk, as a user runs it.
pydir=/usr/lib/python3/dist-packages/pcpsdk
check "apt-get installs python3-pcpsdk beside the libraries, byte-compiled by py3compile" \
	in_root "dpkg -s python3-pcpsdk 2> /dev/null | grep -qx 'Status: install ok installed' &&
		for f in __init__ _lib mmv trace; do ls $pydir/__pycache__/\$f.cpython-*.pyc || exit 1; done > /dev/null"
# py_use PYTHON: as root, a Registry with a counter in a private
# PCP_TMP_DIR; checks the file it wrote (magic, the counter's value in it),
# then prints whether PYTHON is a venv's (venv or system) and where pcpsdk
# and both libraries came from.
cat > "$root/tmp/py_use.py" <<'EOP'
import os, struct, sys
import pcpsdk
reg = pcpsdk.Registry("rt")
n = reg.counter("n", "a counter")
reg.start()
n.inc(0x5eed5eed)
with open(os.path.join(os.environ["PCP_TMP_DIR"], "mmv", "rt"), "rb") as f:
    data = f.read()
assert data[:4] == b"MMV\0", data[:4]
assert struct.pack("=Q", 0x5eed5eed) in data, "the counter's value"
libs = pcpsdk.loaded_libraries()
reg.stop()
print("venv" if sys.prefix != sys.base_prefix else "system", pcpsdk.__file__,
      libs["libpcp_mmv.so.1"], libs["libpcp_trace.so.2"])
EOP
# (in debroot_ns, for its /proc: loaded_libraries() reads /proc/self/maps)
py_use() {
	debroot_ns "$root" "rm -rf /tmp/pyt && mkdir -p /tmp/pyt/mmv &&
		PCP_TMP_DIR=/tmp/pyt $1 /tmp/py_use.py" 2> "$W/py_use.err"
}
# from_sdk WANT KIND PYFILE MMV TRACE (WANT, then py_use's line): the
# python of kind WANT ran it, with the package's module and the -sdk
# packages' libraries, not Debian's (in /usr/lib on PCP 6, moved to
# pcp-sdk-distrib/ by our diversion on PCP 7)
from_sdk() {
	[ "$1" = "$2" ] && [ "$3" = $pydir/__init__.py ] &&
		in_root "dpkg -L libpcp-mmv1-sdk | grep -qx '$4' && dpkg -L libpcp-trace2-sdk | grep -qx '$5'" &&
		case "$4 $5" in *distrib*) false ;; esac
}
# py_check DESCRIPTION KIND PYTHON: check from_sdk KIND on py_use PYTHON,
# with py_use's errors when it fails
py_check() {
	if from_sdk "$2" $(py_use "$3"); then ok "$1"
	else not_ok "$1"; sed 's/^/# /' "$W/py_use.err" | tail -5; fi
}
py_check "python3: a Registry with a counter writes its MMV file, on the -sdk packages' libraries" \
	system python3
in_root "python3 -m venv --system-site-packages /tmp/venv" > "$W/venv.log" 2>&1
py_check "the same in a venv made with python3 -m venv --system-site-packages" \
	venv /tmp/venv/bin/python

apt_get "install --no-install-recommends $(ls "$root/tmp/v2"/*.deb | sed "s|^$root||" | tr '\n' ' ')" > "$W/upgrade.log" 2>&1
check "apt-get upgrades to $v2, diversions kept" \
	in_root "[ \$(dpkg-query -W -f='\${Version}\n' $pkgs | sort -u) = '$v2' ] &&
		[ \$(dpkg-divert --list | grep -c \"$ours_div\") = 12 ] &&
		dpkg -S $trace/pmdatrace | grep -Eq '(^|, )pcp-sdk-pmda-trace[:,]'"

# (what was there before: the check fails if the package never came)
had_py=$(in_root "ls $pydir/__init__.py $pydir/__pycache__/*.pyc 2> /dev/null | wc -l")
apt_get "purge $pkgs" > "$W/purge.log" 2>&1
check "apt-get purges them" in_root "! dpkg -l $pkgs 2>/dev/null | grep -q '^[a-z][a-z] '"
check "the purge takes $pydir, compiled files too ($had_py files before)" \
	in_root "[ $had_py -ge 5 ] && [ ! -e $pydir ]"
state > "$W/after"
same "Debian's files, symlinks and targets are back as they were" "$W/before" "$W/after"
check "dpkg -V pcp libpcp-mmv1 libpcp-trace2 is clean" \
	in_root "[ -z \"\$(dpkg -V pcp libpcp-mmv1 libpcp-trace2)\" ]"
check "no diversion left" in_root "[ -z \"\$(dpkg-divert --list | grep \"$ours_div\")\" ]"
check "Debian's pmcd.conf is back byte for byte" cmp -s "$W/pmcd.conf" "$root/etc/pcp/pmcd/pmcd.conf"
check "Debian's pmtrace loads Debian's libpcp_trace again" \
	test "$(loaded_from /usr/bin/pmtrace libpcp_trace.so.2)" = libpcp-trace2

# make install-pmda's local diversions (scripts/divert.sh) on the same files.
cp scripts/divert.sh "$root/tmp/"
in_root "for f in pmdatrace pmns; do sh /tmp/divert.sh add $trace/\$f && echo ours > $trace/\$f; done"
check "divert.sh add: Debian's files aside as .distrib, ours in their place" \
	in_root "[ \$(readlink $trace/pmns.distrib) = /usr/lib/pcp/pmdas/trace/pmns ] &&
		grep -qx ours $trace/pmdatrace && dpkg-divert --list | grep -q 'local diversion of $trace/pmns'"
in_root "for f in pmdatrace pmns; do sh /tmp/divert.sh remove $trace/\$f; done"
state > "$W/after-divert"
same "divert.sh remove: Debian's files back as they were" "$W/before" "$W/after-divert"

# Again, now with a pmcd (in its own network, pid and mount namespaces, so
# nothing on the host sees it), as an administrator runs things:
# tests/integration/deb_agents.sh inside the root (v1 installed first: it
# upgrades to v2 while pmcd runs the agents); its results are reported here.
if command -v unshare > /dev/null && command -v ip > /dev/null; then
	apt_get "install --no-install-recommends $(ls "$root/tmp/v1"/*.deb | sed "s|^$root||" | tr '\n' ' ')" > "$W/install2.log" 2>&1
	cp tests/integration/deb_agents.sh "$root/tmp/"
	debroot_ns "$root" "sh /tmp/deb_agents.sh $pkgs" > "$W/agents.log" 2>&1
	rc=$?
	check "the pmcd phase ran to its end (exit $rc)" test $rc = 0 -a -s "$root/tmp/agents/tap"
	[ $rc = 0 ] || sed 's/^/# /' "$W/agents.log" | tail -20
	while IFS= read -r l; do
		case $l in
		"ok - "*) ok "${l#ok - }" ;;
		"not ok - "*) not_ok "${l#not ok - }" ;;
		*) echo "$l" ;;
		esac
	done < "$root/tmp/agents/tap"
	state > "$W/after2"
	grep -v -e '^/var/lib/pcp/pmns/' -e '^/var/lib/pcp/tmp/' -e '^/var/lib/pcp/config/' "$W/before" > "$W/before2"
	grep -v -e '^/var/lib/pcp/pmns/' -e '^/var/lib/pcp/tmp/' -e '^/var/lib/pcp/config/' "$W/after2" > "$W/after2f"
	same "Debian's files back after agents and pmcd (outside pmns, tmp, config)" "$W/before2" "$W/after2f"
else
	_tap_n=$((_tap_n + 1)); echo "ok $_tap_n # SKIP pmcd phase: unshare or ip missing"
fi

done_testing
