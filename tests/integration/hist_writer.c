/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist_writer.c - histograms that move only when told to, for the
 * percentile and off-host tests (tests/integration/mmv_pct.sh,
 * mmv_offhost.sh). Built on our libpcp_mmv with its registry calls only
 * (tests/lib/hist_layout.h lays the histograms out as
 * docs/mmv-format.md §10.5 says).
 *
 * Creates $PCP_TMP_DIR/mmv/shop (indom 1: anvils 0, rockets 1) with
 *   shop.lat   per product, usec, log-linear 8..1024 with 4 sub-buckets
 *              (items 10..12, bucket indom 2);
 *   shop.size  singular, bytes, 1..64 with 1 sub-bucket (items 20..22,
 *              bucket indom 3);
 * prints "ready", then reads commands on stdin:
 *   rec HIST SET VALUE TIMES  record VALUE TIMES times (SET "-" for size)
 *   dump                      what it recorded, from its own tallies (not
 *                             the file): "bucket HIST SET LO HI N" per
 *                             bucket (HI "inf" for the overflow),
 *                             "count HIST SET N", "sum HIST SET S"
 * each answered by a last line "done". Exits on EOF.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../lib/hist_layout.h"

static hl_hist_t lat, size;
static uint64_t tally[2][HL_MAX_SETS][HL_MAX_EDGES + 1];
static uint64_t tcount[2][HL_MAX_SETS], tsum[2][HL_MAX_SETS];

static void dump_one(const hl_hist_t *h, int which)
{
	unsigned int p, k;

	for (p = 0; p < h->nsets; p++) {
		const char *set = h->nsets > 1 ? h->sets[p] : "-";

		for (k = 0; k <= h->nedges; k++) {
			printf("bucket %s %s %llu ", h->name, set,
					(unsigned long long)(k ? h->edges[k - 1] : 0));
			if (k < h->nedges)
				printf("%llu", (unsigned long long)h->edges[k]);
			else
				printf("inf");
			printf(" %llu\n", (unsigned long long)tally[which][p][k]);
		}
		printf("count %s %s %llu\n", h->name, set,
				(unsigned long long)tcount[which][p]);
		printf("sum %s %s %llu\n", h->name, set,
				(unsigned long long)tsum[which][p]);
	}
}

static int rec(const char *hist, const char *set, uint64_t value,
		uint64_t times)
{
	hl_hist_t *h = strcmp(hist, "shop.lat") == 0 ? &lat :
		strcmp(hist, "shop.size") == 0 ? &size : NULL;
	unsigned int p = 0, k = 0;
	int which = h == &size;

	if (h == NULL)
		return -1;
	while (h->nsets > 1 && p < h->nsets && strcmp(h->sets[p], set) != 0)
		p++;
	if (p == h->nsets)
		return -1;
	while (k < h->nedges && value >= h->edges[k])
		k++;
	tally[which][p][k] += times;
	tcount[which][p] += times;
	tsum[which][p] += value * times;
	hl_record(h, p, value, times);
	return 0;
}

int main(void)
{
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	pmUnits bytes = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);
	char line[256], hist[64], set[64];
	unsigned long long value, times;
	mmv_registry_t *reg;
	void *addr;

	snprintf(lat.name, sizeof(lat.name), "lat");
	lat.nedges = hl_edges(8, 1024, 4, lat.edges);
	lat.nsets = 2;
	snprintf(lat.sets[0], sizeof(lat.sets[0]), "anvils");
	snprintf(lat.sets[1], sizeof(lat.sets[1]), "rockets");
	snprintf(size.name, sizeof(size.name), "size");
	size.nedges = hl_edges(1, 64, 1, size.edges);
	size.nsets = 1;
	reg = mmv_stats_registry("shop", 0, 0);
	if (reg == NULL ||
	    mmv_stats_add_indom(reg, 1, "products", NULL) < 0 ||
	    mmv_stats_add_instance(reg, 1, 0, "anvils") < 0 ||
	    mmv_stats_add_instance(reg, 1, 1, "rockets") < 0 ||
	    hl_declare(reg, &lat, 10, 2, 1, 4, usec) < 0 ||
	    hl_declare(reg, &size, 20, 3, 0, 1, bytes) < 0 ||
	    (addr = mmv_stats_start(reg)) == NULL ||
	    hl_bind(addr, &lat, 1) < 0 || hl_bind(addr, &size, 0) < 0) {
		perror("hist_writer: cannot create the MMV file");
		return 1;
	}
	/* the names the dump uses */
	snprintf(lat.name, sizeof(lat.name), "shop.lat");
	snprintf(size.name, sizeof(size.name), "shop.size");
	printf("ready\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "rec %63s %63s %llu %llu", hist, set, &value,
				&times) == 4) {
			if (rec(hist, set, value, times) < 0) {
				fprintf(stderr, "hist_writer: bad %s", line);
				return 2;
			}
		} else if (strcmp(line, "dump\n") == 0) {
			dump_one(&lat, 0);
			dump_one(&size, 1);
		} else {
			fprintf(stderr, "hist_writer: unknown command %s", line);
			return 2;
		}
		printf("done\n");
		fflush(stdout);
	}
	mmv_stats_free(reg);
	return 0;
}
