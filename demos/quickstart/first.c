/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * first.c - a pretend web server that publishes its metrics (mmv.quickstart.*)
 * and traces each request (trace.transact.*). usage: first [seconds, 30]
 */
#define _POSIX_C_SOURCE 200809L	/* for nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_histogram.h>
#include <pcp/trace.h>

enum { METHODS = 1, BUCKETS = 2 };	/* instance domain serials */

int main(int argc, char **argv)
{
	int seconds = argc > 1 ? atoi(argv[1]) : 30;
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	mmv_histogram_spec_t latency = {	/* 256 us to 16 ms, +-25% */
		.name = "latency", .item = 4, .bucket_serial = BUCKETS,
		.lo = 256, .hi = 16384, .sub_buckets = 4, .units = usec,
		.shorttext = "Request latency",
	};

	/* Describe the metrics; every call returns 0 or a negative value. */
	mmv_registry_t *reg = mmv_stats_registry("quickstart", 0, 0);
	int err = mmv_stats_add_indom(reg, METHODS, "HTTP methods", NULL);
	err |= mmv_stats_add_instance(reg, METHODS, 0, "GET");
	err |= mmv_stats_add_instance(reg, METHODS, 1, "POST");
	err |= mmv_stats_add_metric(reg, "requests", 1, MMV_TYPE_U64,
		MMV_SEM_COUNTER, count, METHODS, "Requests served", NULL);
	err |= mmv_stats_add_metric(reg, "queue", 2, MMV_TYPE_U32,
		MMV_SEM_INSTANT, count, 0, "Requests waiting", NULL);
	err |= mmv_stats_add_metric(reg, "busy", 3, MMV_TYPE_ELAPSED,
		MMV_SEM_COUNTER, usec, 0, "Time spent serving", NULL);
	err |= mmv_stats_add_histogram_spec(reg, &latency);
	err |= mmv_stats_add_registry_label(reg, "app", "\"shop\"",
		MMV_STRING_TYPE, 0);

	/* Create $PCP_TMP_DIR/mmv/quickstart. On failure mmv is NULL and
	 * every update below does nothing: the server runs on, unmeasured. */
	void *mmv = err ? NULL : mmv_stats_start(reg);
	if (mmv == NULL)
		perror("quickstart: no metrics");
	pmAtomValue *served[2] = {	/* value handles: look up once */
		mmv_lookup_value_desc(mmv, "requests", "GET"),
		mmv_lookup_value_desc(mmv, "requests", "POST"),
	};
	pmAtomValue *queue = mmv_lookup_value_desc(mmv, "queue", NULL);
	pmAtomValue *busy = mmv_lookup_value_desc(mmv, "busy", NULL);
	mmv_histogram_t *lat = mmv_stats_histogram(mmv, "latency", NULL);

	unsigned long total[2] = { 0, 0 }, traced = 0;
	for (time_t end = time(NULL) + seconds; time(NULL) < end;) {
		int post = rand() % 4 == 0;	/* one request in four */
		long work = (post ? 2000 : 400) + rand() % 400;	/* us */
		uint64_t start = mmv_histogram_now();

		mmv_set_value(mmv, queue, rand() % 8);	/* a gauge: set */
		mmv_stats_interval_start(mmv, busy, NULL, NULL);
		pmtracebegin("request");	/* no trace agent? no matter */
		nanosleep(&(struct timespec){ .tv_nsec = work * 1000 }, NULL);
		if (pmtraceend("request") >= 0)
			traced++;
		mmv_stats_interval_end(mmv, busy);
		mmv_histogram_record_since(lat, start);
		mmv_inc(mmv, served[post]);
		total[post]++;
	}
	printf("served %lu GET and %lu POST requests, %lu traced\n",
	       total[0], total[1], traced);
	mmv_stats_free(reg);	/* unmaps; the file stays for the agent */
	return 0;
}
