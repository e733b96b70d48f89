/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_mmv.h - the PMDA front end over the reader core: shared by the
 * DSO entry points (pmda.c, agent.h) and the daemon's main.c.
 */
#ifndef PMDA_MMV_PMDA_H
#define PMDA_MMV_PMDA_H

#include <stdbool.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "pcp_compat.h"

#define MMV_PMDA_PROXY_DOMAIN	4	/* PMPROXY in PCP's stdpmid */

/*
 * mmv_pmda_setup - finish a pmdaInterface already set up by pmdaDSO or
 * pmdaDaemon: scan $PCP_TMP_DIR/@prefix once and install the callbacks.
 * @threaded (daemon mode) rescans on a background thread and publishes
 * snapshots with RCU; the caller must have done rcu_register_thread().
 * Returns 0, or a negative PCP error (logged).
 */
int mmv_pmda_setup(pmdaInterface *dp, const char *prefix, bool threaded);

/*
 * mmv_pmda_percentiles - sampling step and window, in seconds, of the
 * percentiles of histograms (docs/mmv-format.md §9.8) for agents set up
 * after the call. Without it: $PCP_MMV_PCT_STEP and $PCP_MMV_PCT_WINDOW,
 * else 1 s and 60 s. Returns 0, or -EINVAL (step outside 0.001..3600,
 * window below the step, over a day or over 10000 steps).
 */
int mmv_pmda_percentiles(double step, double window);

/* Stop the background thread of a threaded setup (daemon exit). */
void mmv_pmda_shutdown(pmdaInterface *dp);

/* PMDA DSO entry points (pmcd.conf: mmv 70 dso mmv_init .../pmda_mmv.so). */
void mmv_init(pmdaInterface *dp);
void pmproxy_init(pmdaInterface *dp);

#endif /* PMDA_MMV_PMDA_H */
