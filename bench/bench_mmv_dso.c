/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mmv_dso THEIRS_SO OURS_SO NFILES REPS [WRITER] - the MMV agents
 * alone: both DSOs loaded in this process (dlopen), initialised as pmcd
 * does, serving the same NFILES files f000.. of 1,000 metrics from
 * $PCP_TMP_DIR/mmv. Their fetch callbacks are called directly through
 * pmdaInterface, turn about, so neither pmcd nor a client is in the
 * times. Cases as in bench_mmv_agent.c (many_order, many_shuf, one), each
 * the median of 9 rounds of REPS fetches, in microseconds of this
 * thread's CPU time per fetch; many_miss, many_order's PMIDs in five lists
 * that differ only in their last few, in turn (more lists than our agent
 * keeps lookups of, each compared nearly whole before it misses: the
 * worst case of that reuse); cold_order, cold_shuf and cold_one,
 * many_order, many_shuf and one after 50 ms idle each time (cold() says
 * how). With WRITER (mmv_files) and 100 files:
 * rescan, f050 rewritten by WRITER and the first 1,000-PMID fetch timed,
 * wall clock (what pmcd waits), median of 5 rewrites per agent.
 * The value sets are freed after each fetch as pmcd frees a DSO's.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "bench_util.h"
#include "bench_dso.h"

#define NMETRICS	1000
#define ROUNDS		9
#define NMISS		5	/* lists of many_miss: above our agent's NPLAN */

extern char **environ;

struct agent {
	const char *name;
	pmdaInterface dp;
	pmID pmids[NMETRICS], shuf[NMETRICS];
	pmID miss[NMISS][NMETRICS];	/* pmids, last and k-th last swapped */
};

static int load(struct agent *a, const char *path)
{
	return dso_load(&a->dp, path, "bench_mmv_dso");
}

static int fetch(struct agent *a, int n, pmID *pmids)
{
	return dso_fetch(&a->dp, n, pmids);
}

static int lookup(struct agent *a, int nfiles)
{
	pmdaExt *ext = a->dp.version.seven.ext;
	char name[32];

	/* File order: file f, then items f's share of the 1,000. */
	for (int i = 0; i < NMETRICS; i++) {
		int per = NMETRICS / nfiles;
		int f = i / per < nfiles ? i / per : nfiles - 1;

		snprintf(name, sizeof(name), "mmv.f%03d.m%04d", f, i - f * per);
		if (a->dp.version.seven.pmid(name, &a->pmids[i], ext) < 0) {
			fprintf(stderr, "bench_mmv_dso: %s: no %s\n", a->name, name);
			return -1;
		}
	}
	srand(1);
	memcpy(a->shuf, a->pmids, sizeof(a->shuf));
	for (int i = NMETRICS - 1; i > 0; i--) {
		int j = rand() % (i + 1);
		pmID t = a->shuf[i];

		a->shuf[i] = a->shuf[j];
		a->shuf[j] = t;
	}
	for (int k = 0; k < NMISS; k++) {
		memcpy(a->miss[k], a->pmids, sizeof(a->miss[k]));
		a->miss[k][NMETRICS - 1] = a->pmids[NMETRICS - 2 - k];
		a->miss[k][NMETRICS - 2 - k] = a->pmids[NMETRICS - 1];
	}
	return fetch(a, NMETRICS, a->pmids) == NMETRICS ? 0 : -1;
}

static double round_us(struct agent *a, int n, pmID *pmids, int reps)
{
	double t0 = cpu_ns();

	for (int i = 0; i < reps; i++)
		fetch(a, n, pmids);
	return (cpu_ns() - t0) / reps / 1e3;
}

/* many_miss: the NMISS lists in turn, @reps fetches in all. */
static double miss_round_us(struct agent *a, int reps)
{
	double t0 = cpu_ns();

	for (int i = 0; i < reps; i++)
		fetch(a, NMETRICS, a->miss[i % NMISS]);
	return (cpu_ns() - t0) / reps / 1e3;
}

static void row(const char *what, int nfiles, const double *t, const double *o)
{
	printf("| %s_%d | %.1f | %.1f | %.2f |\n", what, nfiles, t[0], o[0],
			o[0] / t[0]);
	fflush(stdout);
}

/* Rounds turn about between the agents; medians. */
static void timed(const char *what, struct agent *ag, int nfiles, int shuf,
		int n, int reps)
{
	double t[2][ROUNDS], med[2];

	for (int r = 0; r < ROUNDS; r++)
		for (int k = 0; k < 2; k++)
			t[k][r] = round_us(&ag[k], n, shuf ? ag[k].shuf : ag[k].pmids,
					reps);
	med[0] = median(t[0], ROUNDS);
	med[1] = median(t[1], ROUNDS);
	row(what, nfiles, &med[0], &med[1]);
}

/*
 * Fetches as pmlogger makes them: each after 50 ms of idleness, so what
 * the agent touches is out of the caches (and the TLB) again; the
 * median over ROUNDS x 4 fetches per agent, turn about.
 */
static void cold(const char *what, struct agent *ag, int nfiles, int shuf,
		int n)
{
	double t[2][ROUNDS * 4], med[2];

	for (int r = 0; r < ROUNDS * 4; r++)
		for (int k = 0; k < 2; k++) {
			usleep(50000);
			t[k][r] = round_us(&ag[k], n,
					shuf ? ag[k].shuf : ag[k].pmids, 1);
		}
	med[0] = median(t[0], ROUNDS * 4);
	med[1] = median(t[1], ROUNDS * 4);
	row(what, nfiles, &med[0], &med[1]);
}

/*
 * The writer is started with posix_spawn, not fork: a fork write-protects
 * every page of this process, and each agent's first writes after it
 * would fault (a rescan of 100 files took 9.5 ms that way against 2 ms
 * without), a cost pmcd, which does not fork, never has.
 */
static int rewrite(const char *writer)
{
	char *argv[] = { (char *)writer, "50", "1", NULL };
	int status;
	pid_t pid;

	if (posix_spawn(&pid, writer, NULL, NULL, argv, environ) != 0)
		return -1;
	return waitpid(pid, &status, 0) == pid && status == 0 ? 0 : -1;
}

/* Debian's agent compares the directory mtime in whole seconds. */
static void rescans(struct agent *ag, const char *writer)
{
	double t[2][5], med[2];

	for (int r = 0; r < 5; r++)
		for (int k = 0; k < 2; k++) {
			double t0;

			usleep(1100000);
			if (rewrite(writer) < 0) {
				fprintf(stderr, "bench_mmv_dso: %s failed\n", writer);
				exit(1);
			}
			t0 = now_ns();
			if (fetch(&ag[k], NMETRICS, ag[k].pmids) != NMETRICS)
				fprintf(stderr, "bench_mmv_dso: %s: rescan fetch "
						"short\n", ag[k].name);
			t[k][r] = (now_ns() - t0) / 1e3;
			/* the other agent has not seen the change: let it */
			fetch(&ag[!k], 1, ag[!k].pmids);
		}
	med[0] = median(t[0], 5);
	med[1] = median(t[1], 5);
	row("rescan_wall", 100, &med[0], &med[1]);
}

int main(int argc, char **argv)
{
	struct agent ag[2] = { { .name = "theirs" }, { .name = "ours" } };
	int nfiles, reps;

	if (argc < 5) {
		fprintf(stderr, "usage: bench_mmv_dso THEIRS_SO OURS_SO NFILES "
				"REPS [WRITER]\n");
		return 2;
	}
	nfiles = atoi(argv[3]);
	reps = atoi(argv[4]);
	if (nfiles < 1 || nfiles > NMETRICS || reps < 1)
		return 2;
	if (load(&ag[0], argv[1]) < 0 || load(&ag[1], argv[2]) < 0 ||
	    lookup(&ag[0], nfiles) < 0 || lookup(&ag[1], nfiles) < 0)
		return 1;
	timed("many_order", ag, nfiles, 0, NMETRICS, reps);
	timed("many_shuf", ag, nfiles, 1, NMETRICS, reps);
	{
		double t[2][ROUNDS], med[2];

		for (int r = 0; r < ROUNDS; r++)
			for (int k = 0; k < 2; k++)
				t[k][r] = miss_round_us(&ag[k], reps);
		med[0] = median(t[0], ROUNDS);
		med[1] = median(t[1], ROUNDS);
		row("many_miss", nfiles, &med[0], &med[1]);
	}
	timed("one", ag, nfiles, 0, 1, reps * 10);
	cold("cold_order", ag, nfiles, 0, NMETRICS);
	cold("cold_shuf", ag, nfiles, 1, NMETRICS);
	cold("cold_one", ag, nfiles, 0, 1);
	if (argc > 5 && nfiles == 100)
		rescans(ag, argv[5]);
	return 0;
}
