/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_dso.h - an MMV agent DSO loaded into a benchmark (dlopen),
 * initialised as pmcd does and called through its pmdaInterface; shared
 * by bench_mmv_dso.c and bench_mmv_pct.c. Needs bench_util.h's headers,
 * pcp/pmapi.h and pcp/pmda.h.
 */
#ifndef BENCH_DSO_H
#define BENCH_DSO_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "../common/pcp_compat.h"

/* This thread's CPU time so far, nanoseconds. */
static inline double cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Load @path and run its mmv_init on @dp, domain 70: 0 or -1 (said). */
static inline int dso_load(pmdaInterface *dp, const char *path, const char *prog)
{
	void (*init)(pmdaInterface *);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (h == NULL || (init = (void (*)(pmdaInterface *))dlsym(h, "mmv_init")) == NULL) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, dlerror());
		return -1;
	}
	memset(dp, 0, sizeof(*dp));
	dp->domain = 70;
	dp->comm.pmda_interface = PMDA_INTERFACE_7;
	dp->comm.pmapi_version = PMAPI_VERSION;
	init(dp);
	if (dp->status != 0) {
		fprintf(stderr, "%s: %s: init %d\n", prog, path, dp->status);
		return -1;
	}
	return 0;
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
