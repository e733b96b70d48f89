#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make install / uninstall and install-pmda / uninstall-pmda into a DESTDIR:
# the .pc files name the PREFIX of this install (not of the build) and
# libpcp for mmv_stats.h's pcp/pmapi.h; uninstall leaves no file behind.
. tests/lib/tap.sh
W=$(mktemp -d /tmp/install.XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
dest=$W/root
pre=/opt/pcp-sdk-test
make -s install DESTDIR="$dest" PREFIX=$pre > "$W/install.log" 2>&1
check "make install PREFIX=$pre into a DESTDIR" test -e "$dest$pre/lib/libpcp_mmv.so.1"
pc=$dest$pre/lib/pkgconfig
check "libpcp_mmv.pc and libpcp_trace.pc name $pre" \
	sh -c "grep -qx 'prefix=$pre' '$pc/libpcp_mmv.pc' && grep -qx 'libdir=$pre/lib' '$pc/libpcp_trace.pc'"
check "pkg-config: our include dir, libpcp's cflags (pcp/pmapi.h), -lpcp_mmv" \
	sh -c "PKG_CONFIG_PATH='$pc' pkg-config --cflags --libs libpcp_mmv |
		grep -q -- '^-I$pre/include -I/usr/include/pcp -L$pre/lib -lpcp_mmv *$'"
check "no ldconfig into a DESTDIR" sh -c "! grep -q ldconfig '$W/install.log'"
py=$dest$pre/lib/python$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')/dist-packages
mkdir -p "$W/tmp/mmv"
check "the Python binding: installed, imports, loads the installed libpcp_mmv" \
	sh -c "PYTHONPATH='$py' LD_LIBRARY_PATH='$dest$pre/lib' PCP_TMP_DIR='$W/tmp' /usr/bin/python3 -c '
import pcpsdk
assert pcpsdk.__file__ == \"$py/pcpsdk/__init__.py\", pcpsdk.__file__
assert pcpsdk.loaded_libraries()[\"libpcp_mmv.so.1\"].startswith(\"$dest$pre/lib/\")
pcpsdk.Registry(\"inst\").start().stop()'"
make -s uninstall DESTDIR="$dest" PREFIX=$pre > /dev/null 2>&1
check "make uninstall leaves no file" sh -c "[ -d '$dest' ] && [ -z \"\$(find '$dest' ! -type d)\" ]"
check "make uninstall takes pcpsdk's folder, compiled files and all (no empty namespace package left)" \
	sh -c "[ -d '$py' ] && [ ! -e '$py/pcpsdk' ]"

make -s install-pmda DESTDIR="$dest" PCP_PMDAS_DIR=/var/lib/pcp/pmdas > /dev/null 2>&1
check "make install-pmda into a DESTDIR" \
	test -x "$dest/var/lib/pcp/pmdas/trace/pmdatrace" -a -x "$dest/var/lib/pcp/pmdas/mmv-sdk/pmdammv"
make -s uninstall-pmda DESTDIR="$dest" PCP_PMDAS_DIR=/var/lib/pcp/pmdas > /dev/null 2>&1
check "make uninstall-pmda leaves no file" sh -c "[ -d '$dest' ] && [ -z \"\$(find '$dest' ! -type d)\" ]"
done_testing
