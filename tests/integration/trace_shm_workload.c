/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A deterministic trace workload on our libpcp_trace, for the equivalence
 * of the PDU path and the shared segment (tests/integration/trace_shm.sh):
 *   trace_shm_workload PREFIX N THREADS HOLD
 * Each of THREADS threads makes N rounds of: begin/end PREFIX"txn" (thread
 * t > 0: PREFIX"txn"t, as a transaction is one per tag per process), point
 * PREFIX"pt", observation PREFIX"obs" = 1.5 * i, counter PREFIX"ctr" =
 * 10 * i; then the process waits HOLD seconds (the test looks at the
 * agent meanwhile) and exits. Exit status 1 on any error.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcp/trace.h>
#include <pcp/trace_ext.h>

static const char *prefix;
static int rounds;

static void tag(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "%s%s", prefix, name);
}

static void *work(void *arg)
{
	char txn[64], pt[64], obs[64], ctr[64];
	long bad = 0;

	tag(txn, sizeof(txn), "txn");
	if ((long)arg > 0)
		snprintf(txn + strlen(txn), sizeof(txn) - strlen(txn), "%ld", (long)arg);
	tag(pt, sizeof(pt), "pt");
	tag(obs, sizeof(obs), "obs");
	tag(ctr, sizeof(ctr), "ctr");
	for (int i = 1; i <= rounds; i++) {
		bad += pmtracebegin(txn) != 0;
		bad += pmtraceend(txn) != 0;
		bad += pmtracepoint(pt) != 0;
		bad += pmtraceobs(obs, 1.5 * i) != 0;
		bad += pmtracecounter(ctr, 10.0 * i) != 0;
	}
	return (void *)bad;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int nthreads;
	void *bad;
	long errors = 0;

	if (argc != 5)
		return 2;
	prefix = argv[1];
	rounds = atoi(argv[2]);
	nthreads = atoi(argv[3]);
	if (nthreads < 1 || nthreads > 64)
		return 2;
	for (int t = 0; t < nthreads; t++)
		if (pthread_create(&th[t], NULL, work, (void *)(long)t) != 0)
			return 1;
	for (int t = 0; t < nthreads; t++) {
		pthread_join(th[t], &bad);
		errors += (long)bad;
	}
	if (errors || pmtraceagent() != PMTRACE_AGENT_SDK) {
		fprintf(stderr, "trace_shm_workload: %ld errors, agent %d\n", errors, pmtraceagent());
		return 1;
	}
	sleep((unsigned)atoi(argv[4]));
	return 0;
}
