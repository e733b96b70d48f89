/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * acme - the Acme factory: builds Anvils, Rockets and Giant_Rubber_Bands
 * and publishes, per product, how many were built (a contention-free
 * counter, <pcp/mmv_counter.h>: a factory with many building threads
 * would not have them wait for each other), the time spent
 * building them, the time they waited in the queue and the distribution
 * of build times (a histogram per product: products.buildtime.bucket,
 * .count, .sum), all through libpcp_mmv (file "acme" in
 * $PCP_TMP_DIR/mmv, read as mmv.acme.*).
 * It also traces each build as a transaction and each arrival in the
 * queue as a point through libpcp_trace (trace.transact.*, trace.point.*,
 * instances named after the products), asynchronously so a missing or
 * slow trace agent never holds up the factory.
 *
 * usage: acme [seconds]   (default: run until SIGINT or SIGTERM)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_inline.h>
#include <pcp/mmv_counter.h>
#include <pcp/mmv_histogram.h>
#include <pcp/trace.h>

#define ACME_CLUSTER	321
#define ACME_INDOM	61
#define ACME_BUCKETS	62	/* build time buckets of every product */

static const char *products[] = { "Anvils", "Rockets", "Giant_Rubber_Bands" };
#define NPRODUCTS (sizeof(products) / sizeof(products[0]))

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static mmv_registry_t *describe(void)
{
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	pmUnits usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
	/* 1 ms .. 32 ms, 4 buckets per power of two: within 25% */
	mmv_histogram_spec_t buildtime = {
		.name = "products.buildtime", .item = 11,
		.bucket_serial = ACME_BUCKETS, .serial = ACME_INDOM,
		.lo = 1024, .hi = 32768, .sub_buckets = 4, .units = usec,
		.shorttext = "Build time distribution",
		.helptext = "Builds per build-time bucket (microseconds), per product.",
	};
	mmv_registry_t *reg = mmv_stats_registry("acme", ACME_CLUSTER, MMV_FLAG_PROCESS);

	if (reg == NULL)
		return NULL;
	if (mmv_stats_add_indom(reg, ACME_INDOM, "Acme products",
			"The products the Acme Corporation factory builds") < 0)
		goto fail;
	for (size_t i = 0; i < NPRODUCTS; i++)
		if (mmv_stats_add_instance(reg, ACME_INDOM, (int)i, products[i]) < 0)
			goto fail;
	if (mmv_stats_add_metric(reg, "products.count", 7, MMV_TYPE_U64,
			MMV_SEM_COUNTER, count, ACME_INDOM, "Products built",
			"Number of products built by the factory since it started.") < 0 ||
	    mmv_stats_add_metric(reg, "products.time", 8, MMV_TYPE_U64,
			MMV_SEM_COUNTER, usec, ACME_INDOM, "Build time",
			"Microseconds spent building products since the factory started.") < 0 ||
	    mmv_stats_add_metric(reg, "products.queuetime", 10, MMV_TYPE_U64,
			MMV_SEM_COUNTER, usec, ACME_INDOM, "Queue time",
			"Microseconds products waited in the queue before being built.") < 0)
		goto fail;
	if (mmv_stats_add_histogram_spec(reg, &buildtime) < 0)
		goto fail;
	return reg;
fail:
	mmv_stats_free(reg);
	return NULL;
}

static void sleep_usec(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	pmAtomValue *busy[NPRODUCTS], *queued[NPRODUCTS];
	mmv_counter_t *built[NPRODUCTS];
	mmv_histogram_t *buildtime[NPRODUCTS];
	double seconds = argc > 1 ? atof(argv[1]) : 0;
	struct sigaction sa;
	struct timespec t0, now;
	mmv_registry_t *reg;
	void *addr;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if ((reg = describe()) == NULL || (addr = mmv_stats_start(reg)) == NULL) {
		perror("acme: cannot create the MMV file");
		return 1;
	}
	for (size_t i = 0; i < NPRODUCTS; i++) {
		/* NULL (never here) would only make its updates do nothing */
		built[i] = mmv_counter_open(addr, mmv_lookup_value_desc(addr,
					    "products.count", products[i]));
		busy[i] = mmv_lookup_value_desc(addr, "products.time", products[i]);
		queued[i] = mmv_lookup_value_desc(addr, "products.queuetime", products[i]);
		buildtime[i] = mmv_stats_histogram(addr, "products.buildtime", products[i]);
	}
	pmtracestate(PMTRACE_STATE_ASYNC);
	printf("acme: building products; metrics in mmv.acme.products.*, trace.*\n");
	fflush(stdout);

	srandom((unsigned)time(NULL));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stopping) {
		size_t p = (size_t)random() % NPRODUCTS;
		/* Rockets take longest to build, anvils wait longest. */
		long build = 2000 + random() % (4000 * (long)(p + 1));
		long wait = 1000 + random() % (p == 0 ? 8000 : 2000);
		uint64_t started;

		/* trace results are ignored: tracing is best effort here */
		(void)pmtracepoint(products[p]);
		sleep_usec(wait);
		mmv_fast_add_u64(queued[p], (uint64_t)wait);
		started = mmv_histogram_now();
		(void)pmtracebegin(products[p]);
		sleep_usec(build);
		(void)pmtraceend(products[p]);
		mmv_histogram_record_since(buildtime[p], started);
		mmv_fast_add_u64(busy[p], (uint64_t)build);
		mmv_counter_inc(built[p]);

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (seconds > 0 && (now.tv_sec - t0.tv_sec) +
		    (now.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
	}
	for (size_t i = 0; i < NPRODUCTS; i++)
		mmv_counter_close(built[i]);
	mmv_stats_free(reg);	/* MMV_FLAG_PROCESS: the file goes too */
	return 0;
}
