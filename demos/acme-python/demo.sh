#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo-python: the Acme factory as a Python service (acme.py, on the
# pcpsdk binding over our libpcp_mmv and libpcp_trace) in a private pmcd with
# our MMV agent and our trace agent (tests/lib/pmcd.sh, as demos/acme/demo.sh:
# own port, config, PMNS and PCP_TMP_DIR), read live with pminfo and pmrep.
# Everything started here is stopped on exit, Ctrl-C or failure.
top=$(pwd)
. "$top/demos/acme/demo_pmcd.sh"
seconds=${DEMO_SECONDS:-20}
demo_pmcd acme-python "$top/build/lib/pmda_mmv.so"
echo "private pmcd on $h: our MMV agent and trace agent (port $trace_port), PCP_TMP_DIR=$PCP_TMP_DIR"

# Debian's python3 (python3-cffi); our libraries by LD_LIBRARY_PATH
LD_LIBRARY_PATH="$top/build/lib" PYTHONPATH="$top/bindings/python" \
	/usr/bin/python3 "$top/demos/acme-python/acme.py" "$seconds" &
acme_pid=$!
i=0
until pminfo -h "$h" mmv.acmepy.status > /dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 50 ] || { echo "acme.py did not publish its metrics" >&2; exit 1; }
	sleep 0.1
done

# pmrep and pminfo: Debian's (Debian's python3 has the pcp module)
export PATH=/usr/bin:$PATH
echo; echo "== the Python Acme's metrics (pminfo: descriptors and help) =="
pminfo -h "$h" -dt mmv.acmepy || exit 1
echo; echo "== products built per second, and the queue (pmrep) =="
pmrep -h "$h" -t 1 -s 4 -p mmv.acmepy.products.count mmv.acmepy.queue.length || exit 1
echo; echo "== machine time as utilisation per product (pmrep) =="
pmrep -h "$h" -t 1 -s 3 mmv.acmepy.products.time || exit 1
echo; echo "== build time of the Rockets per bucket, usec (pmrep) =="
pmrep -h "$h" -r -s 1 -X 'Rockets:lo-hi (usec)' -i 'Rockets:.*' \
	mmv.acmepy.products.buildtime.bucket || exit 1
pct=mmv.percentile.acmepy.products.buildtime
echo; echo "== our MMV agent's percentiles of build time, usec (pmrep) =="
pmrep -h "$h" -t 1 -s 2 $pct.p50 $pct.p99 || exit 1
echo; echo "== labels and status (pminfo) =="
pminfo -h "$h" -l mmv.acmepy.status || exit 1
pminfo -h "$h" -f mmv.acmepy.status || exit 1
echo; echo "== the same builds as trace transactions (our trace agent, 10 s window) =="
pminfo -h "$h" -f trace.transact.count trace.transact.ave_time trace.point.count || exit 1
echo "Next: docs/python.md (the binding), demos/acme-python/acme.py."
