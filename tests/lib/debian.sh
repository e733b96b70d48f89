# SPDX-License-Identifier: GPL-2.0-or-later
# What tests and benchmarks run as "Debian's" must be Debian's: not ours
# installed over it (a pcp-sdk package, a diversion, make install). Source
# this file, then call need_debian.

# is_debian PATH: PATH, symlinks resolved, is a file of a Debian package
# that nothing diverts and that is not one of our packages.
is_debian() {
	_f=$(readlink -f "$1") && [ -e "$_f" ] || return 1
	_o=$(dpkg -S "$_f" 2> /dev/null) || return 1
	! printf '%s\n' "$_o" | grep -q -e 'diversion' -e '-sdk\(-dev\)\{0,1\}[:,]' -e '\(^\|, \)pcp-sdk-'
}

# debian_lib PACKAGE SONAME: where Debian's PACKAGE has SONAME (/usr/lib
# before PCP 7, the multiarch folder from PCP 7 on); empty if it has not.
debian_lib() {
	dpkg -L "$1" 2> /dev/null | grep "/$2\$" | head -1
}

# loaded_lib PROGRAM SONAME: where the loader takes SONAME from for PROGRAM
# (empty, so not Debian's, when it does not load it).
loaded_lib() { ldd "$1" 2> /dev/null | awk -v n="$2" '$1 == n { print $3 }'; }

# need_debian WHO PATH...: stop WHO (a test or benchmark) with a clear
# message unless every PATH is Debian's.
need_debian() {
	_who=$1
	shift
	for _p in "$@"; do
		is_debian "$_p" && continue
		echo "$_who: '$_p' is not Debian's (dpkg -S: $(dpkg -S "$(readlink -f "$_p")" 2>&1 | tr '\n' ' '))." \
			"It compares against Debian's PCP: reinstall Debian's packages, remove ours" \
			"(apt-get purge the pcp-sdk packages, make uninstall-pmda), or unset LD_LIBRARY_PATH." >&2
		echo "Bail out! $_who: $_p is not Debian's"
		exit 1
	done
}
