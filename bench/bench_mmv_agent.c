/*
 * bench_mmv_agent HOST NFILES REPS - MMV agent latency through pmcd, with
 * NFILES files f000.. of 1,000 metrics m0000..m0999 served:
 *   many_<N>_order   one pmFetch of 1,000 different metrics, spread evenly
 *                    over the files (how pmlogger and pmrep fetch), PMIDs
 *                    in file order (by file, then item)
 *   many_<N>_shuf    the same PMIDs shuffled
 *   one_<N>          one metric (mmv.f000.m0000)
 * each the mean over REPS fetches, in microseconds. With MMV_BENCH_CPU_PID
 * set (the daemon agent's pid, or pmcd's for a DSO), also that process's
 * CPU time per fetch from /proc/PID/schedstat (<case>_cpu): the agent's
 * own cost, without the client's and (for a daemon) pmcd's. Then, up to
 * RESCANS times, "ready" and, after a line on stdin (the caller has
 * rewritten one file meanwhile), the first fetch, which includes the
 * agent's rescan: their median (rescan_<N>), and the first one after the
 * agent started (rescan_first_<N>), which finds no memory kept yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pcp/pmapi.h>
#include "bench_util.h"

#define NMETRICS 1000
#ifndef RESCANS
#define RESCANS	5
#endif

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

/* Nanoseconds on CPU of process @pid so far (0: unknown). */
static double cpu_ns(const char *pid)
{
	char path[64];
	double ns = 0;
	FILE *f;

	if (pid == NULL)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/schedstat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fscanf(f, "%lf", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

/* Mean microseconds of REPS fetches of @pmids, after one checked fetch. */
static int timed(const char *what, int nfiles, int n, pmID *pmids, int reps)
{
	const char *pid = getenv("MMV_BENCH_CPU_PID");
	double t0, c0;
	int sts;

	if ((sts = fetch(n, pmids)) != n) {
		fprintf(stderr, "bench_mmv_agent: %s: %d of %d values\n", what, sts, n);
		return -1;
	}
	c0 = cpu_ns(pid);
	t0 = now();
	for (int i = 0; i < reps; i++)
		fetch(n, pmids);
	printf("%s_%d usec %.1f\n", what, nfiles, (now() - t0) / reps * 1e6);
	if (c0 > 0)
		printf("%s_%d_cpu usec %.1f\n", what, nfiles,
				(cpu_ns(pid) - c0) / reps / 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	static char names[NMETRICS][32];
	const char *np[NMETRICS];
	pmID pmids[NMETRICS], shuf[NMETRICS];
	char line[16];
	const char *pid = getenv("MMV_BENCH_CPU_PID");
	int sts, nfiles, reps, n = 0;
	double t0, c0, t[RESCANS], c[RESCANS];

	if (argc < 4 || (sts = pmNewContext(PM_CONTEXT_HOST, argv[1])) < 0) {
		fprintf(stderr, "usage: bench_mmv_agent HOST NFILES REPS\n");
		return 2;
	}
	nfiles = atoi(argv[2]);
	reps = atoi(argv[3]);
	if (nfiles < 1 || nfiles > NMETRICS || reps < 1)
		return 2;
	/* File order: file f, then items f's share of the 1,000. */
	for (int i = 0; i < NMETRICS; i++) {
		int per = NMETRICS / nfiles;
		int f = i / per < nfiles ? i / per : nfiles - 1;

		snprintf(names[i], sizeof(names[i]), "mmv.f%03d.m%04d", f, i - f * per);
		np[i] = names[i];
	}
	if ((sts = pmLookupName(NMETRICS, np, pmids)) < 0) {
		fprintf(stderr, "bench_mmv_agent: lookup: %s\n", pmErrStr(sts));
		return 1;
	}
	srand(1);
	for (int i = 0; i < NMETRICS; i++)
		shuf[i] = pmids[i];
	for (int i = NMETRICS - 1; i > 0; i--) {
		int j = rand() % (i + 1);
		pmID t = shuf[i];

		shuf[i] = shuf[j];
		shuf[j] = t;
	}
	if (timed("many_order", nfiles, NMETRICS, pmids, reps) < 0 ||
	    timed("many_shuf", nfiles, NMETRICS, shuf, reps) < 0 ||
	    timed("one", nfiles, 1, pmids, reps * 10) < 0)
		return 1;
	/* Each line: one file was rewritten; the first fetch after it. */
	for (int r = 0; r < RESCANS; r++) {
		printf("ready\n");
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			break;
		c0 = cpu_ns(pid);
		t0 = now();
		sts = fetch(NMETRICS, pmids);
		t[r] = (now() - t0) * 1e6;
		c[r] = (cpu_ns(pid) - c0) / 1e3;
		if (sts != NMETRICS)
			fprintf(stderr, "bench_mmv_agent: rescan: %d of %d values\n",
					sts, NMETRICS);
		n = r + 1;
	}
	if (n == 0)
		return 0;
	t0 = t[0];	/* the first: median() sorts */
	c0 = c[0];
	printf("rescan_%d usec %.1f\n", nfiles, median(t, n));
	if (pid != NULL)
		printf("rescan_%d_cpu usec %.1f\n", nfiles, median(c, n));
	printf("rescan_first_%d usec %.1f\n", nfiles, t0);
	if (pid != NULL)
		printf("rescan_first_%d_cpu usec %.1f\n", nfiles, c0);
	return 0;
}
