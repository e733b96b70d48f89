/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - pmdammv as a daemon PMDA (a pipe to pmcd), docs/mmv-format.md §9.1.
 * Invoked as pmdapmproxy it serves the pmproxy instance instead.
 */
#include <libgen.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "reader/reader.h"
#include "pmda_mmv.h"
#include "pmda_options.h"

static pmLongOptions longopts[] = {
	PMDA_OPTIONS_HEADER("Options"),
	PMOPT_DEBUG,
	PMDAOPT_DOMAIN,
	PMDAOPT_LOGFILE,
	PMDAOPT_USERNAME,
	{ "pct-step", 1, 's', "SEC", "sample histograms every SEC seconds [1]" },
	{ "pct-window", 1, 'w', "SEC", "percentiles over the last SEC seconds [60]" },
	PMOPT_HELP,
	PMDA_OPTIONS_END
};

static pmdaOptions opts = {
	.short_options = "D:d:l:U:s:w:?",
	.long_options = longopts,
};

int main(int argc, char **argv)
{
	static pmdaInterface dispatch;
	static char logfile[64];
	const char *prefix = "mmv";
	int domain = MMVR_DOMAIN;
	char *user = NULL;
	double step = MMVR_PCT_STEP_MS / 1000.0, window = MMVR_PCT_WINDOW_MS / 1000.0;
	bool set_pct = false;
	int c;

	pmSetProgname(argv[0]);
	if (strcmp(pmGetProgname(), "pmdapmproxy") == 0) {
		prefix = "pmproxy";
		domain = MMV_PMDA_PROXY_DOMAIN;
	}
	snprintf(logfile, sizeof(logfile), "%s.log", prefix);
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, (char *)pmGetProgname(), domain,
			logfile, NULL);
	while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF) {
		switch (c) {
		case 's':
			step = sdk_opt_decimal(&opts, c, 0.001, 3600, "seconds");
			set_pct = true;
			break;
		case 'w':
			window = sdk_opt_decimal(&opts, c, 0.001, 86400, "seconds");
			set_pct = true;
			break;
		default:
			opts.errors++;
		}
	}
	/* Without options the environment (or the defaults) decide. */
	if (!opts.errors && set_pct && mmv_pmda_percentiles(step, window) < 0) {
		fprintf(stderr, "%s: bad percentile step or window\n",
				pmGetProgname());
		opts.errors++;
	}
	sdk_opts_done(&opts);
	user = opts.username;
	pmdaOpenLog(&dispatch);
	if (user || pmGetUsername(&user) > 0)
		pmSetProcessIdentity(user);

	rcu_register_thread();
	if (mmv_pmda_setup(&dispatch, prefix, true) < 0)
		exit(SDK_PMDA_EXIT_FAIL);
	pmdaConnect(&dispatch);
	pmdaMain(&dispatch);	/* returns when pmcd goes away */
	mmv_pmda_shutdown(&dispatch);
	rcu_unregister_thread();
	exit(SDK_PMDA_EXIT_DONE);
}
