/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The C calls that tests/python/test_bytes.py's Python writer makes through
 * the binding (the order bindings/python/pcpsdk/mmv.py documents), writing
 * $PCP_TMP_DIR/mmv/bytes with our libpcp_mmv. The test compares the two
 * files byte for byte, but for what mmvmask says varies (generations, pid).
 * Exits 1 with a message if any call fails.
 */
#include <stdio.h>
#include <pcp/mmv_histogram.h>

#define METHODS		1
#define REGIONS		2

static int failed(const char *what)
{
	perror(what);
	return 1;
}

int main(void)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	pmUnits byte = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	static const uint64_t lat[] = { 5, 16, 19, 255, 256, 1000 };
	mmv_registry_t *r = mmv_stats_registry("bytes", 7, 0);
	void *a;

	if (r == NULL ||
	    mmv_stats_add_registry_label(r, "service", "\"web\"", MMV_STRING_TYPE, 0) ||
	    mmv_stats_add_registry_label(r, "tier", "2", MMV_NUMBER_TYPE, 0) ||
	    mmv_stats_add_indom(r, METHODS, "HTTP methods", "Methods seen") ||
	    mmv_stats_add_instance(r, METHODS, 0, "GET") ||
	    mmv_stats_add_instance(r, METHODS, 1, "POST") ||
	    mmv_stats_add_indom_label(r, METHODS, "proto", "\"http\"", MMV_STRING_TYPE, 0) ||
	    mmv_stats_add_instance_label(r, METHODS, 0, "safe", "true", MMV_BOOLEAN_TYPE, 0) ||
	    mmv_stats_add_metric(r, "requests", 0, MMV_TYPE_U64, MMV_SEM_COUNTER, count,
				 METHODS, "Requests served", NULL) ||
	    mmv_stats_add_metric_label(r, 0, "kind", "\"total\"", MMV_STRING_TYPE, 0) ||
	    mmv_stats_add_metric(r, "bytes", 1, MMV_TYPE_U64, MMV_SEM_COUNTER, byte,
				 METHODS, "Bytes sent", NULL) ||
	    mmv_stats_add_metric(r, "temperature", 2, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT,
				 none, 0, "Core temperature", NULL) ||
	    mmv_stats_add_indom(r, REGIONS, NULL, NULL) ||
	    mmv_stats_add_instance(r, REGIONS, 0, "eu") ||
	    mmv_stats_add_instance(r, REGIONS, 1, "us") ||
	    mmv_stats_add_metric(r, "users", 3, MMV_TYPE_I64, MMV_SEM_INSTANT, none,
				 REGIONS, NULL, NULL) ||
	    mmv_stats_add_metric(r, "version", 4, MMV_TYPE_STRING, MMV_SEM_DISCRETE,
				 none, 0, "Build", NULL) ||
	    mmv_stats_add_metric(r, "busy", 5, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER, usec,
				 0, "Time busy", NULL) ||
	    mmv_stats_add_histogram(r, "latency", 6, 3, 0, 16, 256, 4, usec,
				    "Request latency", NULL) ||
	    mmv_stats_add_histogram(r, "build", 100, 4, METHODS, 1, 8, 1, usec,
				    NULL, NULL) ||
	    mmv_stats_add_metric_label(r, 100, "team", "\"a\"", MMV_STRING_TYPE, 0) ||
	    mmv_stats_add_metric_label(r, 101, "team", "\"a\"", MMV_STRING_TYPE, 0) ||
	    mmv_stats_add_metric_label(r, 102, "team", "\"a\"", MMV_STRING_TYPE, 0))
		return failed("writer: declaring");
	if ((a = mmv_stats_start(r)) == NULL)
		return failed("writer: mmv_stats_start");

	mmv_inc(a, mmv_lookup_value_desc(a, "requests", "GET"));
	mmv_inc_value(a, mmv_lookup_value_desc(a, "requests", "POST"), 3);
	mmv_inc_value(a, mmv_lookup_value_desc(a, "bytes", "GET"), 1500);
	mmv_set_value(a, mmv_lookup_value_desc(a, "temperature", NULL), 36.6);
	mmv_set_value(a, mmv_lookup_value_desc(a, "users", "eu"), -5);
	mmv_inc_value(a, mmv_lookup_value_desc(a, "users", "us"), 7);
	mmv_set_string(a, mmv_lookup_value_desc(a, "version", NULL), "1.2.3", 5);
	mmv_inc_value(a, mmv_lookup_value_desc(a, "busy", NULL), 1234);
	for (size_t i = 0; i < sizeof(lat) / sizeof(lat[0]); i++)
		mmv_histogram_record(mmv_stats_histogram(a, "latency", NULL), lat[i]);
	mmv_histogram_record(mmv_stats_histogram(a, "build", "GET"), 8);
	mmv_histogram_record(mmv_stats_histogram(a, "build", "POST"), 0);
	mmv_stats_free(r);
	return 0;
}
