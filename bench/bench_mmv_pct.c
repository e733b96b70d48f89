/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mmv_pct THEIRS_SO OURS_SO NFILES REPS - the cost of our MMV
 * agent's percentiles (docs/mmv-format.md §9.8), agent alone: both DSOs
 * loaded in this process as bench_mmv_dso does, over NFILES files h000..
 * of one histogram each (hist_files, running meanwhile), step 1 s and
 * window 60 s (the defaults). Per request, CPU time of this thread
 * (median of 9 rounds of REPS fetches, microseconds):
 *   buckets_<N>  every histogram's bucket counters (N metrics x 74
 *                instances): what a client fetches to compute the
 *                percentiles itself; both agents
 *   pct_<N>      p50, p90 and p99 of every histogram (3N values), no
 *                sample due: the window's delta and the estimate; ours
 *   pct_1        the three of one histogram; ours
 *   sample_<N>   one sampling step of the N histograms (the first fetch
 *                of pct_<N> after a step, minus pct_<N>; median of 5)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "bench_util.h"
#include "bench_dso.h"

#define MAXH	100
#define ROUNDS	9

struct agent {
	const char *name;
	pmdaInterface dp;
	pmID buckets[MAXH], pct[3 * MAXH];
};

static int load(struct agent *a, const char *path)
{
	return dso_load(&a->dp, path, "bench_mmv_pct");
}

static int fetch(struct agent *a, int n, pmID *pmids)
{
	return dso_fetch(&a->dp, n, pmids);
}

/* PMIDs of mmv.h<i>.lat.bucket (@pct false) or of its three percentiles. */
static int lookup(struct agent *a, bool pct, int n, pmID *out)
{
	static const char *const q[3] = { "p50", "p90", "p99" };
	char name[64];

	for (int i = 0; i < (pct ? 3 * n : n); i++) {
		if (pct)
			snprintf(name, sizeof(name), "mmv.percentile.h%03d.lat.%s",
					i / 3, q[i % 3]);
		else
			snprintf(name, sizeof(name), "mmv.h%03d.lat.bucket", i);
		if (a->dp.version.seven.pmid(name, &out[i], a->dp.version.seven.ext) < 0) {
			fprintf(stderr, "bench_mmv_pct: %s: no %s\n", a->name, name);
			return -1;
		}
	}
	return 0;
}

static double round_us(struct agent *a, int n, pmID *pmids, int reps)
{
	double t0 = cpu_ns();

	for (int i = 0; i < reps; i++)
		fetch(a, n, pmids);
	return (cpu_ns() - t0) / reps / 1e3;
}

static double timed(struct agent *a, int n, pmID *pmids, int reps)
{
	double t[ROUNDS];

	for (int r = 0; r < ROUNDS; r++)
		t[r] = round_us(a, n, pmids, reps);
	return median(t, ROUNDS);
}

int main(int argc, char **argv)
{
	struct agent ag[2] = { { .name = "theirs" }, { .name = "ours" } };
	double b[2], p, p1, s[5], t0;
	int n, reps;

	if (argc < 5 || (n = atoi(argv[3])) < 1 || n > MAXH ||
	    (reps = atoi(argv[4])) < 1) {
		fprintf(stderr, "usage: bench_mmv_pct THEIRS_SO OURS_SO NFILES REPS\n");
		return 2;
	}
	if (load(&ag[0], argv[1]) != 0 || load(&ag[1], argv[2]) != 0)
		return 1;
	for (int k = 0; k < 2; k++)
		if (lookup(&ag[k], false, n, ag[k].buckets) < 0)
			return 1;
	if (lookup(&ag[1], true, n, ag[1].pct) < 0)
		return 1;
	/* two samples a step apart: every percentile has a value */
	fetch(&ag[1], 3 * n, ag[1].pct);
	usleep(1050000);
	if (fetch(&ag[1], 3 * n, ag[1].pct) != 3 * n) {
		fprintf(stderr, "bench_mmv_pct: percentiles without values\n");
		return 1;
	}
	for (int k = 0; k < 2; k++)
		b[k] = timed(&ag[k], n, ag[k].buckets, reps);
	p = timed(&ag[1], 3 * n, ag[1].pct, reps * 10);
	p1 = timed(&ag[1], 3, ag[1].pct, reps * 100);
	for (int r = 0; r < 5; r++) {
		usleep(1050000);
		t0 = cpu_ns();
		fetch(&ag[1], 3 * n, ag[1].pct);
		s[r] = (cpu_ns() - t0) / 1e3 - p;
	}
	printf("| buckets_%d (%d values) | %.1f | %.1f | %.2f |\n", n, n * 74,
			b[0], b[1], b[1] / b[0]);
	printf("| pct_%d (%d values) | – | %.1f | – |\n", n, 3 * n, p);
	printf("| pct_1 (3 values) | – | %.2f | – |\n", p1);
	printf("| sample_%d (one step, %d counters read) | – | %.1f | – |\n", n,
			n * 74, median(s, 5));
	return 0;
}
