/*
 * floor_pmda - the cheapest daemon agent libpcp_pmda allows, for
 * run-mmv-agent.sh: it answers for the benchmark's names (mmv.fNNN.mIIII,
 * U64 counters, cluster NNN + 1, item IIII) without reading any file. A
 * fetch stores each requested PMID into a reply built once and hands it
 * to pmdaMain, which encodes and writes it as for any agent; nothing is
 * freed afterwards. What this agent costs through pmcd is what every
 * daemon agent pays (pmcd, the client, the pipe, libpcp's PDU work):
 * no MMV agent can be faster, so its ratio to Debian's bounds ours.
 *
 *   floor_pmda -d DOMAIN [-l LOG] [-U USER]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#define MAXPMIDS	1000	/* the benchmark's largest request */

static int domain = 70;
static pmResult *reply;
static pmValueBlock *block;

/* "mmv.fNNN.mIIII" to its PMID; the benchmark's only names. */
static int floor_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
	unsigned int f, m;
	int end = 0;

	(void)pmda;
	if (sscanf(name, "mmv.f%3u.m%4u%n", &f, &m, &end) != 2 ||
	    name[end] != '\0' || f > 998 || m > 999)
		return PM_ERR_NAME;
	*pmid = pmID_build(domain, f + 1, m);
	return 0;
}

static int floor_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
	(void)pmda;
	memset(desc, 0, sizeof(*desc));
	desc->pmid = pmid;
	desc->type = PM_TYPE_U64;
	desc->indom = PM_INDOM_NULL;
	desc->sem = PM_SEM_COUNTER;
	desc->units.dimCount = 1;
	desc->units.scaleCount = PM_COUNT_ONE;
	return 0;
}

static int floor_fetch(int n, pmID *pmids, pmResult **resp, pmdaExt *pmda)
{
	(void)pmda;
	if (n > MAXPMIDS)
		return PM_ERR_TOOBIG;
	for (int i = 0; i < n; i++)
		reply->vset[i]->pmid = pmids[i];
	reply->numpmid = n;
	*resp = reply;
	return 0;
}

/* pmdaMain releases a reply through this: ours is kept. */
static void floor_keep(pmResult *r)
{
	(void)r;
}

static int floor_setup(void)
{
	reply = calloc(1, sizeof(*reply) + MAXPMIDS * sizeof(pmValueSet *));
	block = calloc(1, PM_VAL_HDR_SIZE + sizeof(__uint64_t));
	if (reply == NULL || block == NULL)
		return -1;
	block->vtype = PM_TYPE_U64;
	block->vlen = PM_VAL_HDR_SIZE + sizeof(__uint64_t);
	for (int i = 0; i < MAXPMIDS; i++) {
		pmValueSet *vs = calloc(1, sizeof(*vs));

		if (vs == NULL)
			return -1;
		vs->numval = 1;
		vs->valfmt = PM_VAL_DPTR;
		vs->vlist[0].inst = PM_IN_NULL;
		vs->vlist[0].value.pval = block;
		reply->vset[i] = vs;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static pmdaInterface dispatch;
	static pmdaOptions opts = {
		.short_options = "D:d:l:U:?",
	};
	char *user = NULL;
	int c;

	pmSetProgname(argv[0]);
	pmdaDaemon(&dispatch, PMDA_INTERFACE_7, (char *)pmGetProgname(), domain,
			"floor.log", NULL);
	while ((c = pmdaGetOptions(argc, argv, &opts, &dispatch)) != EOF)
		opts.errors++;
	if (opts.errors || floor_setup() < 0) {
		pmdaUsageMessage(&opts);
		exit(1);
	}
	domain = dispatch.domain;
	user = opts.username;
	pmdaOpenLog(&dispatch);
	if (user || pmGetUsername(&user) > 0)
		pmSetProcessIdentity(user);
	dispatch.version.seven.pmid = floor_pmid;
	dispatch.version.seven.desc = floor_desc;
	dispatch.version.seven.fetch = floor_fetch;
	pmdaSetResultCallBack(&dispatch, floor_keep);
	pmdaInit(&dispatch, NULL, 0, NULL, 0);
	pmdaConnect(&dispatch);
	pmdaMain(&dispatch);
	exit(0);
}
