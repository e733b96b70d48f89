#!/bin/sh
# make demo: run the Acme factory on our libpcp_mmv in a private
# PCP_TMP_DIR and read it live with PCP's own tools through the MMV agent
# in a local context (no pmcd is touched). Stops everything on exit.

. /etc/pcp.env
top=$(pwd)
work=$(mktemp -d /tmp/acme-demo.XXXXXX)
mkdir -p "$work/tmp/mmv"
export PCP_TMP_DIR="$work/tmp"
acme_pid=
cleanup() {
	[ -n "$acme_pid" ] && kill "$acme_pid" 2>/dev/null && wait "$acme_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

"$top/build/bin/acme" 20 &
acme_pid=$!
sleep 1
printf 'root {\n\tmmv\t70:*:*\n}\n' > "$work/pmns"
agent="-n $work/pmns -L -K clear -K add,70,$PCP_PMDAS_DIR/mmv/pmda_mmv.so,mmv_init"

echo "== metrics, descriptors and help (pminfo) =="
pminfo $agent -dt mmv.acme
echo
echo "== products built per second (pmval, rate-converted) =="
pmval $agent -t 1 -s 5 mmv.acme.products.count
echo
echo "== share of time spent building, per product (pmval: usec/s as utilisation) =="
pmval $agent -t 1 -s 3 -f 3 mmv.acme.products.time
echo
echo "Next: README.md (Demo) says what else to look at."
