# SPDX-License-Identifier: GPL-2.0-or-later
# The private pmcd the demos read through (demos/acme/demo.sh and
# demos/acme-python/demo.sh). Source it with top set to the tree:
#
#   demo_pmcd NAME AGENT   a work dir /tmp/NAME.XXXXXX ($work), stopped and
#                          removed on exit, Ctrl-C or failure with the
#                          process $acme_pid; a private pmcd (tests/lib/pmcd.sh)
#                          with the MMV agent DSO AGENT and our trace agent
#                          (a 10 s window moving every 2 s) with its
#                          OTLP/HTTP receiver on a free port ($otlp_port);
#                          sets h (the pmcd's host:port) and exports
#                          PCP_TRACE_PORT and PCP_TRACE_HOST for the writer.
#                          Exits on failure. $otel_pid, if set, is stopped
#                          on exit too (demos/acme's Node service).
. "$top/tests/lib/pmcd.sh"
acme_pid=
otel_pid=
demo_cleanup() {
	[ -n "$acme_pid" ] && kill "$acme_pid" 2>/dev/null && wait "$acme_pid" 2>/dev/null
	[ -n "$otel_pid" ] && kill "$otel_pid" 2>/dev/null && wait "$otel_pid" 2>/dev/null
	pmcd_stop
	rm -rf "$work"
}

demo_pmcd() {
	work=$(mktemp -d "/tmp/$1.XXXXXX")
	trap demo_cleanup EXIT
	trap 'exit 130' INT TERM
	pmcd_init "$work"
	pmcd_agent mmv 70 dso mmv_init "$2"
	pmcd_pmns "$PCP_VAR_DIR/pmns/root_mmv"
	otlp_port=$(pmcd_free_port)
	pmcd_trace_agent "$top/build/pmdas/trace/pmdatrace" -T 10 -N 5 -O "127.0.0.1:$otlp_port"
	trace_port=$port
	{ pmcd_start && pmcd_wait_port "$trace_port" && pmcd_wait_port "$otlp_port"; } || exit 1
	h=$PMCD_HOST
	export PCP_TRACE_PORT=$trace_port PCP_TRACE_HOST=127.0.0.1
}
