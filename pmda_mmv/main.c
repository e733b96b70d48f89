/*
 * main.c - pmdammv as a daemon PMDA (a pipe to pmcd), docs/mmv-format.md §9.1.
 * Invoked as pmdapmproxy it serves the pmproxy instance instead.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "reader/reader.h"
#include "pmda_mmv.h"

static pmLongOptions longopts[] = {
	PMDA_OPTIONS_HEADER("Options"),
	PMOPT_DEBUG,
	PMDAOPT_DOMAIN,
	PMDAOPT_LOGFILE,
	PMDAOPT_USERNAME,
	PMOPT_HELP,
	PMDA_OPTIONS_END
};

static pmdaOptions opts = {
	.short_options = "D:d:l:U:?",
	.long_options = longopts,
};

int main(int argc, char **argv)
{
	static pmdaInterface dispatch;
	static char logfile[64];
	const char *prefix = "mmv";
	int domain = MMVR_DOMAIN;
	char *user = NULL;
	int c;

	pmSetProgname(argv[0]);
	if (strcmp(pmGetProgname(), "pmdapmproxy") == 0) {
		prefix = "pmproxy";
		domain = MMV_PMDA_PROXY_DOMAIN;
	}
	snprintf(logfile, sizeof(logfile), "%s.log", prefix);
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, (char *)pmGetProgname(), domain,
			logfile, NULL);
	while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF)
		opts.errors++;	/* pmdaGetOptions handled every option we have */
	if (opts.errors) {
		pmdaUsageMessage(&opts);
		exit(1);
	}
	user = opts.username;
	pmdaOpenLog(&dispatch);
	if (user || pmGetUsername(&user) > 0)
		pmSetProcessIdentity(user);

	rcu_register_thread();
	if (mmv_pmda_setup(&dispatch, prefix, true) < 0)
		exit(1);
	pmdaConnect(&dispatch);
	pmdaMain(&dispatch);	/* returns when pmcd goes away */
	mmv_pmda_shutdown(&dispatch);
	rcu_unregister_thread();
	exit(0);
}
