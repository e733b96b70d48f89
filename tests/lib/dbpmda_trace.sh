# SPDX-License-Identifier: GPL-2.0-or-later
# dbpmda_trace_values FILE: dbpmda's output of "fetch trace.*" and
# "instance 10.N" commands as lines "metric tag value" (metric without its
# "trace." prefix), for the trace agent under dbpmda (tests and bench).
dbpmda_trace_values() {
	awk '
	/^pmInDom: 10\./ { split($2, a, "."); dom = a[2] }
	/^\[ *[0-9]+\] inst: / { n = $0; sub(/.*name: "/, "", n); sub(/"$/, "", n);
		s = $0; sub(/.*inst: /, "", s); split(s, q, " "); name[dom "," q[1]] = n }
	/^ *10\.0\.[0-9]+ \(trace\./ { m = $2; gsub(/[():]/, "", m); sub(/^trace\./, "", m) }
	/^ *inst \[/ { i = $2; sub(/\[/, "", i); v[++nv] = m; iv[nv] = i; val[nv] = $NF }
	END {
		d["transact"] = 0; d["point"] = 1; d["observe"] = 2; d["counter"] = 3
		for (k = 1; k <= nv; k++) {
			split(v[k], p, "."); print v[k], name[d[p[1]] "," iv[k]], val[k]
		}
	}' "$1"
}
