/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda.c - set-up of a pmda_mmv agent and its entry points: the DSO's
 * (mmv_init, pmproxy_init) and what the daemon's main.c calls
 * (docs/mmv-format.md §9.1). agent.h says how the front end is laid out.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "parse_number.h"
#include "agent.h"

/* Percentile step and window (§9.8): 0 until set, then defaults or env. */
static uint64_t pct_step_ms, pct_window_ms;

int mmv_pmda_percentiles(double step, double window)
{
	if (!(step >= 0.001 && step <= 3600) || !(window >= step &&
	    window <= 86400) || window / step > 10000)
		return -EINVAL;
	pct_step_ms = (uint64_t)(step * 1000 + 0.5);
	pct_window_ms = (uint64_t)(window * 1000 + 0.5);
	return 0;
}

/* Seconds from the environment, or @dflt. */
static double env_seconds(const char *name, double dflt)
{
	const char *s = getenv(name);
	double v;

	if (s == NULL || *s == '\0')
		return dflt;
	/* the range is mmv_pmda_percentiles's to check */
	return sdk_parse_decimal(s, -1e300, 1e300, &v) == 0 ? v : -1;
}

static mmvr_pct_t *pct_new(const char *prefix, unsigned int domain)
{
	if (pct_step_ms == 0 && mmv_pmda_percentiles(
			env_seconds("PCP_MMV_PCT_STEP", MMVR_PCT_STEP_MS / 1000.0),
			env_seconds("PCP_MMV_PCT_WINDOW", MMVR_PCT_WINDOW_MS / 1000.0)) < 0) {
		pmNotifyErr(LOG_WARNING, "%s: PCP_MMV_PCT_STEP or "
				"PCP_MMV_PCT_WINDOW not usable: defaults taken",
				prefix);
		mmv_pmda_percentiles(MMVR_PCT_STEP_MS / 1000.0,
				MMVR_PCT_WINDOW_MS / 1000.0);
	}
	return mmvr_pct_new(prefix, domain, pct_window_ms, pct_step_ms);
}

int mmv_pmda_setup(pmdaInterface *dp, const char *prefix, bool threaded)
{
	struct agent *a;
	int sts;

	if (dp->status != 0)
		return dp->status;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return dp->status = -ENOMEM;
	if ((a->pct = pct_new(prefix, (unsigned int)dp->domain)) == NULL) {
		free(a);
		return dp->status = -ENOMEM;
	}
	a->dp = dp;
	a->threaded = threaded;
	snprintf(a->prefix, sizeof(a->prefix), "%s", prefix);
	/* Looked up once (docs/mmv-format.md §9.1); PCP_TMP_DIR in the environment wins. */
	snprintf(a->dir, sizeof(a->dir), "%s/%s", pmGetConfig("PCP_TMP_DIR"),
			prefix);
	a->cfg.dir = a->dir;
	a->cfg.prefix = a->prefix;
	a->cfg.domain = (unsigned int)dp->domain;
	a->cfg.log = mmvp_log_line;
	a->cfg.log_arg = a;
	for (sts = 0; sts < NCONTROL; sts++)
		mmvp_control_name(a, sts, a->ctl_names[sts], sizeof(a->ctl_names[sts]));
	pthread_mutex_init(&a->scan_lock, NULL);
	if ((a->view = mmvp_view_scan(a)) == NULL) {
		mmvr_pct_free(a->pct);
		free(a);
		return dp->status = -ENOMEM;
	}
	/* the first rescans then fault no fresh pages (§7.12) */
	mmvr_snapshot_reserve(a->view->snap);
	dp->version.seven.fetch = mmvp_fetch;
	dp->version.seven.desc = mmvp_desc;
	dp->version.seven.instance = mmvp_instance;
	dp->version.seven.text = mmvp_text;
	dp->version.seven.store = mmvp_store;
	dp->version.seven.pmid = mmvp_pmid;
	dp->version.seven.name = mmvp_name;
	dp->version.seven.children = mmvp_children;
	dp->version.seven.label = mmvp_label;
	pmdaSetLabelCallBack(dp, mmvp_instance_labels);
	pmdaSetFlags(dp, PMDA_EXT_FLAG_HASHED);
	pmdaSetData(dp, a);
	pmdaInit(dp, NULL, 0, NULL, 0);
	if (threaded && (sts = mmvp_start_thread(a)) < 0) {
		pmNotifyErr(LOG_ERR, "%s: rescan thread: %s", prefix, pmErrStr(sts));
		return dp->status = sts;
	}
	return 0;
}

void mmv_pmda_shutdown(pmdaInterface *dp)
{
	struct agent *a = pmdaExtGetData(dp->version.seven.ext);

	if (a != NULL)
		mmvp_stop_thread(a);
}

/* @name must outlive the agent: the library keeps the pointer. */
static void dso_init(pmdaInterface *dp, const char *prefix, char *name)
{
	/* pmcd has set dp->domain from pmcd.conf. */
	pmdaDSO(dp, PMDA_INTERFACE_7, name, NULL);
	mmv_pmda_setup(dp, prefix, false);
}

__attribute__((visibility("default")))
void mmv_init(pmdaInterface *dp)
{
	dso_init(dp, "mmv", "mmv DSO");
}

__attribute__((visibility("default")))
void pmproxy_init(pmdaInterface *dp)
{
	dso_init(dp, "pmproxy", "pmproxy DSO");
}
