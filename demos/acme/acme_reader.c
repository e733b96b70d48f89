/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * acme_reader - read the Acme factory's metrics from a pmcd with PCP's
 * fetchgroup API: products per second and build-time utilisation per
 * product (rate conversion done by the fetchgroup), and the average build
 * time per product through the derived metric mmv.acme.products.avgtime
 * when PCP_DERIVED_CONFIG defines it.
 *
 * usage: acme_reader host[:port] samples interval-seconds
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pcp/pmapi.h>

#define MAXINST 8

struct column {
	const char *metric, *scale, *title;
	int codes[MAXINST], stss[MAXINST], sts;
	char *names[MAXINST];
	pmAtomValue values[MAXINST];
	unsigned int num;
	double factor;
};

static struct column columns[] = {
	{ .metric = "mmv.acme.products.count", .scale = "count/s",
	  .title = "built/s", .factor = 1 },
	{ .metric = "mmv.acme.products.time", .scale = NULL,
	  .title = "busy", .factor = 1e-6 },	/* usec/s -> utilisation */
	{ .metric = "mmv.acme.products.avgtime", .scale = NULL,
	  .title = "avg build ms", .factor = 1e-3 },	/* usec/count */
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

int main(int argc, char **argv)
{
	unsigned int ncols = 0;
	pmFG fg;
	int sts;

	if (argc != 4) {
		fprintf(stderr, "usage: %s host samples interval\n", argv[0]);
		return 2;
	}
	if ((sts = pmCreateFetchGroup(&fg, PM_CONTEXT_HOST, argv[1])) < 0) {
		fprintf(stderr, "acme_reader: %s: %s\n", argv[1], pmErrStr(sts));
		return 1;
	}
	for (unsigned int c = 0; c < NCOLUMNS; c++, ncols++) {
		struct column *col = &columns[c];

		sts = pmExtendFetchGroup_indom(fg, col->metric, col->scale,
				col->codes, col->names, col->values, PM_TYPE_DOUBLE,
				col->stss, MAXINST, &col->num, &col->sts);
		if (sts < 0) {
			fprintf(stderr, "acme_reader: %s: %s\n", col->metric, pmErrStr(sts));
			if (c < 2)
				return 1;
			break;	/* the derived metric is optional */
		}
	}
	pmFetchGroup(fg);	/* rates need a previous sample */
	for (int s = 0; s < atoi(argv[2]); s++) {
		sleep((unsigned)atoi(argv[3]));
		if ((sts = pmFetchGroup(fg)) < 0) {
			fprintf(stderr, "acme_reader: fetch: %s\n", pmErrStr(sts));
			return 1;
		}
		printf("%-20s", "product");
		for (unsigned int c = 0; c < ncols; c++)
			printf(" %14s", columns[c].title);
		printf("\n");
		for (unsigned int i = 0; i < columns[0].num; i++) {
			printf("%-20s", columns[0].names[i]);
			for (unsigned int c = 0; c < ncols; c++) {
				struct column *col = &columns[c];

				if (col->sts < 0 || i >= col->num || col->stss[i] < 0)
					printf(" %14s", "?");
				else
					printf(" %14.3f", col->values[i].d * col->factor);
			}
			printf("\n");
		}
		printf("\n");
		fflush(stdout);
	}
	pmDestroyFetchGroup(fg);
	return 0;
}
