/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist_files NFILES - histograms for bench_mmv_pct: files h000.. in
 * $PCP_TMP_DIR/mmv, each with one histogram "lat" (usec, log-linear
 * 4..2^20 with 4 sub-buckets: 74 buckets), laid out with the registry
 * calls as tests/lib/hist_layout.h does. Prints "ready", then
 * records values spread over the buckets (a few thousand a second per
 * histogram) until stdin closes.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "../tests/lib/hist_layout.h"

#define MAXFILES	100

static hl_hist_t h[MAXFILES];

int main(int argc, char **argv)
{
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	mmv_registry_t *reg[MAXFILES];
	int n = argc > 1 ? atoi(argv[1]) : 0;
	struct pollfd in = { .fd = 0, .events = POLLIN };
	unsigned int seed = 1;
	char name[16];
	void *addr;

	if (n < 1 || n > MAXFILES) {
		fprintf(stderr, "usage: hist_files NFILES (1..%d)\n", MAXFILES);
		return 2;
	}
	for (int f = 0; f < n; f++) {
		snprintf(name, sizeof(name), "h%03d", f);
		snprintf(h[f].name, sizeof(h[f].name), "lat");
		h[f].nedges = hl_edges(4, 1 << 20, 4, h[f].edges);
		h[f].nsets = 1;
		if ((reg[f] = mmv_stats_registry(name, 0, 0)) == NULL ||
		    hl_declare(reg[f], &h[f], 1, 1, 0, 4, usec) < 0 ||
		    (addr = mmv_stats_start(reg[f])) == NULL ||
		    hl_bind(addr, &h[f], 0) < 0) {
			perror("hist_files");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	/* until stdin has something (EOF included) */
	while (poll(&in, 1, 1) == 0)
		for (int f = 0; f < n; f++)
			for (int k = 0; k < 8; k++)
				hl_record(&h[f], 0, 1u << (rand_r(&seed) % 21), 1);
	for (int f = 0; f < n; f++)
		mmv_stats_free(reg[f]);
	return 0;
}
