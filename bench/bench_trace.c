/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_trace - trace client throughput: calls per second for point,
 * observation and begin+end pairs, sync or async, against whatever agent
 * PCP_TRACE_HOST/PCP_TRACE_PORT name. Linked against <pcp/trace.h> only
 * (no rpath), so the same binary measures PCP's library or ours by
 * switching LD_LIBRARY_PATH (see bench/bench_trace.sh).
 * usage: bench_trace sync|async point|obs|txn SECONDS [TAGPREFIX]
 * (TAGPREFIX, default "bench", 5 characters keep 32-byte PDUs: the agent's
 * counts per prefix then tell apart the runs of each library)
 * prints: <mode> <op> <successful calls/s> <failed calls> <successful calls,
 * the connecting probe included: what the agent must count>
 * (an async call fails with -EAGAIN when the agent falls behind and the
 * queue is full: such events never leave the process, so they do not count)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/trace.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static char tag_p[32] = "bench.p", tag_o[32] = "bench.o", tag_t[32] = "bench.t";

/* one event of the chosen kind; tags of 7 characters make 32-byte PDUs */
static int one(const char *op, long i)
{
	if (strcmp(op, "point") == 0)
		return pmtracepoint(tag_p);
	if (strcmp(op, "obs") == 0)
		return pmtraceobs(tag_o, (double)i);
	if (pmtracebegin(tag_t) < 0)
		return -1;
	return pmtraceend(tag_t);
}

int main(int argc, char **argv)
{
	double secs, start, end;
	long calls = 0, failed = 0;
	int async;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s sync|async point|obs|txn SECONDS [TAGPREFIX]\n", argv[0]);
		return 2;
	}
	if (argc == 5) {
		snprintf(tag_p, sizeof(tag_p), "%.20s.p", argv[4]);
		snprintf(tag_o, sizeof(tag_o), "%.20s.o", argv[4]);
		snprintf(tag_t, sizeof(tag_t), "%.20s.t", argv[4]);
	}
	async = strcmp(argv[1], "async") == 0;
	secs = atof(argv[3]);
	if (async && pmtracestate(PMTRACE_STATE_ASYNC) < 0)
		return 1;
	if (one(argv[2], 0) < 0) {	/* connect outside the timed loop */
		fprintf(stderr, "%s: cannot reach the trace agent\n", argv[0]);
		return 1;
	}
	start = now();
	end = start + secs;
	while ((calls & 255) != 0 || now() < end) {
		failed += one(argv[2], calls) < 0;
		calls++;
	}
	printf("%s %s %.0f %ld %ld\n", argv[1], argv[2], (calls - failed) / (now() - start),
	       failed, calls - failed + 1);
	return 0;
}
