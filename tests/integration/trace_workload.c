/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A deterministic trace workload for the agent tests, written against
 * PCP's <pcp/trace.h> API (built with PCP's headers and library).
 *   trace_workload sync|async N    N rounds of: begin/end "txn", point
 *                                  "pt", obs "obs" = 1.5*i, counter
 *                                  "ctr" = 10*i; exits 1 on any error;
 *                                  async waits 1 s before exiting, since
 *                                  PCP's library resets the connection
 *                                  at exit and the kernel then discards
 *                                  what it had not yet transmitted
 *   trace_workload die             a point, then begin "open", then killed
 *   trace_workload points TAG...   a sync point per TAG; prints "TAG status"
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcp/trace.h>

static int check(const char *what, int sts)
{
	if (sts < 0) {
		fprintf(stderr, "trace_workload: %s: %s\n", what, pmtraceerrstr(sts));
		exit(1);
	}
	return sts;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "die") == 0) {
		check("point", pmtracepoint("before_death"));
		check("begin", pmtracebegin("open"));
		raise(SIGKILL);
	}
	if (argc >= 2 && strcmp(argv[1], "points") == 0) {
		for (int i = 2; i < argc; i++)
			printf("%s %d\n", argv[i], pmtracepoint(argv[i]));
		return 0;
	}
	if (argc != 3)
		return 2;
	if (strcmp(argv[1], "async") == 0)
		pmtracestate(PMTRACE_STATE_ASYNC);
	for (int i = 1; i <= atoi(argv[2]); i++) {
		check("begin", pmtracebegin("txn"));
		check("end", pmtraceend("txn"));
		check("point", pmtracepoint("pt"));
		check("obs", pmtraceobs("obs", 1.5 * i));
		check("counter", pmtracecounter("ctr", 10.0 * i));
	}
	if (strcmp(argv[1], "async") == 0)
		sleep(1);
	return 0;
}
