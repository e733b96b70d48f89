/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * floor_pmda - the cheapest agent libpcp_pmda allows, for
 * run-mmv-agent.sh: it answers for the benchmark's names (mmv.fNNN.mIIII,
 * U64 counters, cluster NNN + 1, item IIII) without reading any file.
 * What this agent costs through pmcd is what every agent pays (pmcd, the
 * client, libpcp's PDU work, and for a daemon the pipe): no MMV agent
 * can be faster, so its ratio to Debian's bounds ours.
 *
 * As a daemon (floor_pmda) a fetch stores each requested PMID into a
 * reply built once and hands it to pmdaMain, which encodes and writes it
 * as for any agent; nothing is freed afterwards.
 *
 *   floor_pmda -d DOMAIN [-l LOG] [-U USER]
 *
 * As a DSO (floor_pmda.so, built with -DFLOOR_DSO; its entry is called
 * mmv_init so pmcd.conf names it as the MMV agents' DSOs) pmcd frees each
 * reply's value sets, so a fetch lays them out in a PDU buffer kept from
 * setup, with a pin for each reply (taken 64 at a time) that pmcd's
 * release gives back, as ours does: one value set per PMID pointing at
 * one value block, and nothing else.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "../common/pcp_compat.h"

#define MAXPMIDS	1000	/* the benchmark's largest request */

static int domain = 70;
static pmdaResult *reply;
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

#ifdef FLOOR_DSO
extern void *__pmFindPDUBuf(int need);
extern void __pmPinPDUBuf(void *addr);

static pmValueSet *sets;	/* MAXPMIDS value sets, one pin ours */
static int spare;		/* pins taken ahead, one a reply (as ours:
				 * SETS_PINS in pmda_mmv/pmda.c) */

static int floor_fetch(int n, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
	pmValueSet *vs = sets;

	(void)pmda;
	if (n > MAXPMIDS)
		return PM_ERR_TOOBIG;
	if (n > 0 && spare == 0)
		for (; spare < 64; spare++)
			__pmPinPDUBuf(vs);
	if (n > 0)
		spare--;
	for (int i = 0; i < n; i++) {
		vs[i].pmid = pmids[i];
		vs[i].numval = 1;
		vs[i].valfmt = PM_VAL_SPTR;	/* pmcd frees no such block */
		vs[i].vlist[0].inst = PM_IN_NULL;
		vs[i].vlist[0].value.pval = block;
		reply->vset[i] = &vs[i];
	}
	reply->numpmid = n;
	*resp = reply;
	return 0;
}
#else
static int floor_fetch(int n, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
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
static void floor_keep(pmdaResult *r)
{
	(void)r;
}
#endif

static int floor_setup(void)
{
	reply = calloc(1, sizeof(*reply) + MAXPMIDS * sizeof(pmValueSet *));
	block = calloc(1, PM_VAL_HDR_SIZE + sizeof(__uint64_t));
	if (reply == NULL || block == NULL)
		return -1;
	block->vtype = PM_TYPE_U64;
	block->vlen = PM_VAL_HDR_SIZE + sizeof(__uint64_t);
#ifdef FLOOR_DSO
	if ((sets = __pmFindPDUBuf(MAXPMIDS * (int)sizeof(*sets))) == NULL)
		return -1;
#else	/* a daemon's value sets, built once */
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
#endif
	return 0;
}

#ifdef FLOOR_DSO
void mmv_init(pmdaInterface *dp);

void mmv_init(pmdaInterface *dp)
{
	pmdaDSO(dp, PMDA_INTERFACE_7, "floor DSO", NULL);
	if (dp->status != 0)
		return;
	if (floor_setup() < 0) {
		dp->status = -ENOMEM;
		return;
	}
	domain = dp->domain;
	dp->version.seven.pmid = floor_pmid;
	dp->version.seven.desc = floor_desc;
	dp->version.seven.fetch = floor_fetch;
	pmdaInit(dp, NULL, 0, NULL, 0);
}
#else
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
#endif
