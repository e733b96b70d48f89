/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_dso.h - an MMV agent DSO loaded (dlopen) and initialised as pmcd
 * does, for benchmarks and tests that call it through its pmdaInterface.
 * Include after <pcp/pmapi.h> and <pcp/pmda.h>.
 */
#ifndef SDK_PMDA_DSO_H
#define SDK_PMDA_DSO_H

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

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

#endif
