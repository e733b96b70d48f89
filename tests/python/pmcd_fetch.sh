#!/bin/sh
# pmcd_fetch.sh DIR ARGS...: start a private pmcd (tests/lib/pmcd.sh) in
# DIR with our MMV agent (build/lib/pmda_mmv.so, a DSO) on DIR/tmp/mmv,
# run `pminfo -h <that pmcd> ARGS...`, stop the pmcd. For test_agents.py.
top=$(pwd)
. "$top/tests/lib/pmcd.sh"
pmcd_init "$1"
shift
trap pmcd_stop EXIT
pmcd_agent mmv 70 dso mmv_init "$top/build/lib/pmda_mmv.so"
pmcd_pmns "$top/build/pmdas/mmv/root_mmv"
pmcd_start || exit 1
pminfo -h "$PMCD_HOST" "$@"
