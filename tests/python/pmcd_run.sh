#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# pmcd_run.sh CMD...: run CMD with a private pmcd (demos/acme/demo_pmcd.sh:
# our MMV agent DSO and our trace agent) at $PMCD_HOST, $PCP_TMP_DIR its
# MMV folder, PCP_TRACE_HOST/PORT its trace agent; stop it all afterwards.
# Exits with CMD's status. For test_agents.py.
top=$(pwd)
. "$top/demos/acme/demo_pmcd.sh"
demo_pmcd pytest-pmcd "$top/build/lib/pmda_mmv.so" > /dev/null
export PMCD_HOST PCP_TMP_DIR
"$@"
