/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes $PCP_TMP_DIR/mmv/hist with our libpcp_mmv and records known values
 * (tests/integration/mmv_histogram.sh checks what PCP's agent serves):
 *   lat (one histogram, 16..256 usec, 4 sub-buckets): 5 16 19 255 256 1000
 *   build (per product, 1..8 usec, 1 sub-bucket): anvil 8 1, rocket 5 0
 * The file stays after exit (no MMV_FLAG_PROCESS).
 */
#include <stdio.h>
#include <pcp/mmv_histogram.h>

#define PRODUCTS	5

int main(void)
{
	static const uint64_t lat[] = { 5, 16, 19, 255, 256, 1000 };
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	mmv_registry_t *reg = mmv_stats_registry("hist", 0, 0);
	mmv_histogram_t *h, *anvil, *rocket;
	void *addr;

	if (reg == NULL ||
	    mmv_stats_add_indom(reg, PRODUCTS, "Products", NULL) < 0 ||
	    mmv_stats_add_instance(reg, PRODUCTS, 0, "anvil") < 0 ||
	    mmv_stats_add_instance(reg, PRODUCTS, 1, "rocket") < 0 ||
	    mmv_stats_add_histogram(reg, "lat", 0, 100, 0, 16, 256, 4, usec,
				    "Latency", "Request latency") < 0 ||
	    mmv_stats_add_histogram(reg, "build", 3, 101, PRODUCTS, 1, 8, 1, usec,
				    "Build time", NULL) < 0 ||
	    (addr = mmv_stats_start(reg)) == NULL) {
		perror("mmv_hist_writer");
		return 1;
	}
	h = mmv_stats_histogram(addr, "lat", NULL);
	anvil = mmv_stats_histogram(addr, "build", "anvil");
	rocket = mmv_stats_histogram(addr, "build", "rocket");
	if (h == NULL || anvil == NULL || rocket == NULL) {
		perror("mmv_hist_writer: mmv_stats_histogram");
		return 1;
	}
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		mmv_histogram_record(h, lat[i]);
	mmv_histogram_record(anvil, 8);
	mmv_histogram_record(anvil, 1);
	mmv_histogram_record(rocket, 5);
	mmv_histogram_record(rocket, 0);
	mmv_stats_free(reg);
	return 0;
}
