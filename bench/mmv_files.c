/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mmv_files - write MMV files for the agent benchmark with our library:
 *   mmv_files FIRST COUNT   files fFIRST.. each with 1,000 U64 counters
 *                           m0000..m0999 (items 0..999), left in place.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pcp/mmv_stats.h>

int main(int argc, char **argv)
{
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	int first = argc > 2 ? atoi(argv[1]) : 0, n = argc > 2 ? atoi(argv[2]) : 1;

	for (int f = first; f < first + n; f++) {
		char file[16], name[16];
		mmv_registry_t *r;
		void *addr;

		snprintf(file, sizeof(file), "f%03d", f);
		r = mmv_stats_registry(file, 0, 0);
		for (int i = 0; i < 1000 && r; i++) {
			snprintf(name, sizeof(name), "m%04d", i);
			if (mmv_stats_add_metric(r, name, i, MMV_TYPE_U64, MMV_SEM_COUNTER,
						 count, 0, "a counter", NULL) < 0)
				return 1;
		}
		if (r == NULL || (addr = mmv_stats_start(r)) == NULL) {
			perror("mmv_files");
			return 1;
		}
		for (int i = 0; i < 1000; i++) {
			snprintf(name, sizeof(name), "m%04d", i);
			mmv_stats_add(addr, name, NULL, i);
		}
		mmv_stats_free(r);	/* no PROCESS flag: the file stays */
	}
	return 0;
}
