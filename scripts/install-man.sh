#!/bin/sh
# install-man.sh MANDIR PAGE...: installs each page in MANDIR/manN and, for
# every other name its NAME section lists, a one-line ".so" page that
# points at it, so `man mmv_inc_value` finds the family's page.
set -e
dir=$1
shift
for page in "$@"; do
	base=${page##*/}
	sec=${base##*.}
	install -d "$dir/man$sec"
	install -m 0644 "$page" "$dir/man$sec/$base"
	for name in $(sh "$(dirname "$0")/man-names.sh" "$page"); do
		[ "$name.$sec" = "$base" ] && continue
		printf '.so man%s/%s\n' "$sec" "$base" > "$dir/man$sec/$name.$sec"
		chmod 0644 "$dir/man$sec/$name.$sec"
	done
done
