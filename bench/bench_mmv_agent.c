/*
 * bench_mmv_agent HOST NFILES REPS - MMV agent latency through pmcd:
 * the mean time to fetch all 1,000 metrics of file f000 (mmv.f000.*)
 * with NFILES files served; then, after a line on stdin (the caller has
 * rewritten one file meanwhile), the time of the first fetch, which
 * includes the agent's rescan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pcp/pmapi.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int fetch(int n, pmID *pmids)
{
	pmResult *r;
	int sts = pmFetch(n, pmids, &r), got = 0;

	if (sts < 0)
		return sts;
	for (int i = 0; i < r->numpmid; i++)
		got += r->vset[i]->numval > 0;
	pmFreeResult(r);
	return got;
}

int main(int argc, char **argv)
{
	static char names[1000][32];
	const char *np[1000];
	pmID pmids[1000];
	char line[16];
	int sts, reps = argc > 3 ? atoi(argv[3]) : 100;
	double t0;

	if (argc < 4 || (sts = pmNewContext(PM_CONTEXT_HOST, argv[1])) < 0) {
		fprintf(stderr, "usage: bench_mmv_agent HOST NFILES REPS\n");
		return 2;
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(names[i], sizeof(names[i]), "mmv.f000.m%04d", i);
		np[i] = names[i];
	}
	if ((sts = pmLookupName(1000, np, pmids)) < 0) {
		fprintf(stderr, "bench_mmv_agent: lookup: %s\n", pmErrStr(sts));
		return 1;
	}
	if ((sts = fetch(1000, pmids)) != 1000) {
		fprintf(stderr, "bench_mmv_agent: %d of 1000 values\n", sts);
		return 1;
	}
	t0 = now();
	for (int i = 0; i < reps; i++)
		fetch(1000, pmids);
	printf("fetch_%s_files usec %.1f\n", argv[2], (now() - t0) / reps * 1e6);
	printf("ready\n");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 0;
	t0 = now();
	sts = fetch(1000, pmids);
	printf("rescan_%s_files usec %.1f values %d\n", argv[2], (now() - t0) * 1e6, sts);
	return 0;
}
