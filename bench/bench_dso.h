/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_dso.h - an MMV agent DSO loaded into a benchmark (dlopen),
 * initialised as pmcd does and called through its pmdaInterface; shared
 * by bench_mmv_dso.c and bench_mmv_pct.c. Needs bench_util.h's headers,
 * pcp/pmapi.h and pcp/pmda.h.
 */
#ifndef BENCH_DSO_H
#define BENCH_DSO_H

#include <stdio.h>
#include <string.h>
#include <time.h>
#include "../common/pcp_compat.h"
#include "../tests/lib/pmda_dso.h"

/* This thread's CPU time so far, nanoseconds. */
static inline double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* One fetch: the number of values, or an error. The reply is released
 * as pmcd releases a DSO's (pcp_compat.h). */
static inline int dso_fetch(pmdaInterface *dp, int n, pmID *pmids)
{
	pmdaResult *r;
	int got = 0, sts;

	sts = dp->version.seven.fetch(n, pmids, &r, dp->version.seven.ext);
	if (sts < 0)
		return sts;
	for (int i = 0; i < r->numpmid; i++)
		got += r->vset[i]->numval > 0 ? r->vset[i]->numval : 0;
	sdk_free_pmda_result_values(r);
	return got;
}

#endif
