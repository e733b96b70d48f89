/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmv_fg.c - a PCP fetchgroup client for tests/integration/mmv_derived.sh.
 *
 * usage: mmv_fg host[:port]
 *
 * One fetchgroup (one context) holding, over indom "Acme products":
 *   mmv.acme.products.count    scale NULL: rate-converted (count/s), double
 *   mmv.acme.products.count    "instant": the raw counter, u64
 *   mmv.acme.products.time     "instant": the raw counter, u64
 *   mmv.acme.products.avgtime  scale NULL, double: the derived metric
 *                              (PCP_DERIVED_CONFIG must define it)
 * and the fetch timestamp. Fetches once, prints what it got and "fetched 1",
 * waits for one line on stdin, fetches again and prints, per instance,
 *   fetch2 NAME count=N time=N rate=R rate_sts=S avg=A avg_sts=S
 * then "elapsed=SECONDS" (between the two fetch timestamps) and
 * "fetched 2". A value whose status is negative prints as "-".
 */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <pcp/pmapi.h>
#include "pcp_compat.h"

#define MAXINST 8

struct column {
	const char *metric, *scale;
	int type;
	int codes[MAXINST], stss[MAXINST], sts;
	char *names[MAXINST];
	pmAtomValue values[MAXINST];
	unsigned int num;
};

enum { RATE, COUNT, TIME, AVG, NCOLUMNS };

static struct column columns[NCOLUMNS] = {
	[RATE] = { "mmv.acme.products.count", NULL, PM_TYPE_DOUBLE },
	[COUNT] = { "mmv.acme.products.count", "instant", PM_TYPE_U64 },
	[TIME] = { "mmv.acme.products.time", "instant", PM_TYPE_U64 },
	[AVG] = { "mmv.acme.products.avgtime", NULL, PM_TYPE_DOUBLE },
};

/* index of instance @code in @col, or -1 */
static int find(const struct column *col, int code)
{
	if (col->sts < 0)
		return -1;
	for (unsigned int i = 0; i < col->num; i++)
		if (col->codes[i] == code)
			return (int)i;
	return -1;
}

/* print " KEY=VALUE KEY_sts=STATUS" for instance @code of @col */
static void show(const char *key, const struct column *col, int code)
{
	int i = find(col, code);
	int sts = i < 0 ? (col->sts < 0 ? col->sts : PM_ERR_INST) : col->stss[i];

	if (sts < 0)
		printf(" %s=-", key);
	else if (col->type == PM_TYPE_U64)
		printf(" %s=%llu", key, (unsigned long long)col->values[i].ull);
	else
		printf(" %s=%.9g", key, col->values[i].d);
	printf(" %s_sts=%d", key, sts);
}

static void report(int n)
{
	const struct column *raw = &columns[COUNT];

	for (unsigned int i = 0; i < raw->num; i++) {
		int code = raw->codes[i];

		printf("fetch%d %s", n, raw->names[i] ? raw->names[i] : "?");
		show("count", raw, code);
		show("time", &columns[TIME], code);
		show("rate", &columns[RATE], code);
		show("avg", &columns[AVG], code);
		printf(" avg_num=%u\n", columns[AVG].num);
	}
}

int main(int argc, char **argv)
{
	sdk_pmapi_time_t t1, t2, stamp;
	char line[64];
	pmFG fg;
	int sts;

	if (argc != 2) {
		fprintf(stderr, "usage: %s host\n", argv[0]);
		return 2;
	}
	if ((sts = pmCreateFetchGroup(&fg, PM_CONTEXT_HOST, argv[1])) < 0) {
		fprintf(stderr, "mmv_fg: %s: %s\n", argv[1], pmErrStr(sts));
		return 1;
	}
	for (int c = 0; c < NCOLUMNS; c++) {
		struct column *col = &columns[c];

		sts = pmExtendFetchGroup_indom(fg, col->metric, col->scale,
				col->codes, col->names, col->values, col->type,
				col->stss, MAXINST, &col->num, &col->sts);
		if (sts < 0) {
			fprintf(stderr, "mmv_fg: %s: %s\n", col->metric, pmErrStr(sts));
			return 1;
		}
	}
	if ((sts = sdk_fetchgroup_time(fg, &stamp)) < 0) {
		fprintf(stderr, "mmv_fg: timestamp: %s\n", pmErrStr(sts));
		return 1;
	}

	if ((sts = pmFetchGroup(fg)) < 0) {
		fprintf(stderr, "mmv_fg: fetch 1: %s\n", pmErrStr(sts));
		return 1;
	}
	t1 = stamp;
	report(1);
	printf("fetched 1\n");
	fflush(stdout);

	if (fgets(line, sizeof(line), stdin) == NULL) {
		fprintf(stderr, "mmv_fg: no go-ahead on stdin\n");
		return 1;
	}
	if ((sts = pmFetchGroup(fg)) < 0) {
		fprintf(stderr, "mmv_fg: fetch 2: %s\n", pmErrStr(sts));
		return 1;
	}
	t2 = stamp;
	report(2);
	printf("elapsed=%.6f\n", sdk_pmapi_seconds(&t2) - sdk_pmapi_seconds(&t1));
	printf("fetched 2\n");
	fflush(stdout);
	pmDestroyFetchGroup(fg);
	return 0;
}
