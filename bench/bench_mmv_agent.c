/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_mmv_agent AGENTS NFILES REPS - MMV agent latency through pmcd.
 * AGENTS is TAG=HOST[,TAG=HOST...]: one pmcd per agent, each serving
 * NFILES files f000.. of 1,000 metrics m0000..m0999. Timed:
 *   many_order_<N>  one pmFetch of 1,000 different metrics, spread evenly
 *                   over the files (how pmlogger and pmrep fetch), PMIDs
 *                   in file order (by file, then item)
 *   many_shuf_<N>   the same PMIDs shuffled
 *   one_<N>         one metric (mmv.f000.m0000)
 *   cold_order_<N>  many_order as pmlogger asks: each fetch after 50 ms
 *                   of idleness, timed alone (cold() says how)
 *   cold_shuf_<N>   many_shuf the same way
 *   cold_one_<N>    one the same way (pmval's shape)
 * REPS fetches a case and agent (ten times as many for one metric), in
 * ROUNDS blocks: each round runs one block per agent, in an order that
 * turns about, so the agents share whatever the machine does meanwhile.
 * A block starts with WARM untimed fetches: the first ones after a turn
 * of idleness were a third slower for every agent on this VM.
 * Printed per agent: "TAG CASE usec X", the median over the rounds of a
 * block's microseconds per fetch. With MMV_BENCH_CPU_PIDS (one pid per
 * agent, in order: the daemon agent's, or pmcd's for a DSO), also that
 * process's CPU per fetch from /proc/PID/schedstat (CASE_cpu): the
 * agent's own cost, without the client's and (for a daemon) pmcd's.
 *
 * REPS 0 skips the timed cases. With one agent, then, up to RESCANS
 * times: "ready" and, after a line on stdin (the caller has rewritten
 * one file meanwhile), the first fetch, which includes the agent's
 * rescan: their median (rescan_<N>), and the first one after the agent
 * started (rescan_first_<N>), which finds no memory kept yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>
#include "bench_util.h"

#define NMETRICS	1000
#define MAXAGENTS	4
#define ROUNDS		9
#define WARM		5	/* untimed fetches at the start of a block */
#define COLD_FETCHES	4	/* a turn of a cold case */
/* One metric: pmcd, the client and the pipe are most of its time and
 * spread by a fifth from one fetch to the next, so four times as many. */
#define COLD_ONE_FETCHES	(4 * COLD_FETCHES)
#define COLD_GAP_US	50000	/* idle before each of them */
#ifndef RESCANS
#define RESCANS		5
#endif

static struct agent {
	const char *tag;
	int ctx;
	char pid[16];		/* "": CPU not measured */
	pmID pmids[NMETRICS];
	pmID shuf[NMETRICS];
} ag[MAXAGENTS];
static int nag;

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

	if (pid[0] == '\0')
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/schedstat", pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	if (fscanf(f, "%lf", &ns) != 1)
		ns = 0;
	fclose(f);
	return ns;
}

static pmID *request(struct agent *a, int shuf)
{
	return shuf ? a->shuf : a->pmids;
}

/* "TAG CASE_N usec X" for the median of @n times @t, and of CPU @c. */
static void report(const struct agent *a, const char *what, int nfiles,
		double *t, double *c, int n)
{
	printf("%s %s_%d usec %.1f\n", a->tag, what, nfiles, median(t, n));
	if (a->pid[0] != '\0')
		printf("%s %s_%d_cpu usec %.1f\n", a->tag, what, nfiles,
				median(c, n));
}

/* One case, all agents: after one checked fetch each, ROUNDS rounds. */
static int timed(const char *what, int nfiles, int n, int shuf, int reps)
{
	static double t[MAXAGENTS][ROUNDS], c[MAXAGENTS][ROUNDS];
	int block = reps / ROUNDS > 0 ? reps / ROUNDS : 1, sts;

	for (int k = 0; k < nag; k++) {
		pmUseContext(ag[k].ctx);
		if ((sts = fetch(n, request(&ag[k], shuf))) != n) {
			fprintf(stderr, "bench_mmv_agent: %s %s: %d of %d values\n",
					ag[k].tag, what, sts, n);
			return -1;
		}
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int j = 0; j < nag; j++) {
			struct agent *a = &ag[(r + j) % nag];
			int k = (int)(a - ag);
			pmID *pmids = request(a, shuf);
			double t0, c0;

			pmUseContext(a->ctx);
			for (int i = 0; i < WARM; i++)	/* back from idle */
				fetch(n, pmids);
			c0 = cpu_ns(a->pid);
			t0 = now();
			for (int i = 0; i < block; i++)
				fetch(n, pmids);
			t[k][r] = (now() - t0) / block * 1e6;
			c[k][r] = (cpu_ns(a->pid) - c0) / block / 1e3;
		}
	for (int k = 0; k < nag; k++)
		report(&ag[k], what, nfiles, t[k], c[k], ROUNDS);
	return 0;
}

/*
 * @n PMIDs (in file order, or shuffled) as pmlogger or pmval asks for
 * them: one fetch now and then, every process idle in between
 * (COLD_GAP_US). Each fetch timed alone; per agent the median of ROUNDS
 * x @turn (COLD_FETCHES, or COLD_ONE_FETCHES).
 */
static int cold(const char *what, int nfiles, int n, int shuf, int turn)
{
	static double t[MAXAGENTS][ROUNDS * COLD_ONE_FETCHES];
	static double c[MAXAGENTS][ROUNDS * COLD_ONE_FETCHES];
	int m = 0;

	for (int r = 0; r < ROUNDS; r++, m += turn)
		for (int j = 0; j < nag; j++) {
			struct agent *a = &ag[(r + j) % nag];
			int k = (int)(a - ag);

			pmUseContext(a->ctx);
			for (int i = 0; i < turn; i++) {
				double t0, c0;

				usleep(COLD_GAP_US);
				c0 = cpu_ns(a->pid);
				t0 = now();
				if (fetch(n, request(a, shuf)) != n) {
					fprintf(stderr, "bench_mmv_agent: %s %s: "
							"short\n", a->tag, what);
					return -1;
				}
				t[k][m + i] = (now() - t0) * 1e6;
				c[k][m + i] = (cpu_ns(a->pid) - c0) / 1e3;
			}
		}
	for (int k = 0; k < nag; k++)
		report(&ag[k], what, nfiles, t[k], c[k], m);
	return 0;
}

/* One agent: each line on stdin, a file was rewritten; time the next fetch. */
static void rescans(struct agent *a, int nfiles)
{
	double t[RESCANS], c[RESCANS], t0, c0;
	char line[16];
	int n = 0, sts;

	pmUseContext(a->ctx);
	fetch(NMETRICS, a->pmids);	/* as after the timed cases */
	for (int r = 0; r < RESCANS; r++) {
		printf("ready\n");
		fflush(stdout);
		if (fgets(line, sizeof(line), stdin) == NULL)
			break;
		c0 = cpu_ns(a->pid);
		t0 = now();
		sts = fetch(NMETRICS, a->pmids);
		t[r] = (now() - t0) * 1e6;
		c[r] = (cpu_ns(a->pid) - c0) / 1e3;
		if (sts != NMETRICS)
			fprintf(stderr, "bench_mmv_agent: rescan: %d of %d values\n",
					sts, NMETRICS);
		n = r + 1;
	}
	if (n == 0)
		return;
	t0 = t[0];	/* the first: median() sorts */
	c0 = c[0];
	printf("%s rescan_%d usec %.1f\n", a->tag, nfiles, median(t, n));
	if (a->pid[0] != '\0')
		printf("%s rescan_%d_cpu usec %.1f\n", a->tag, nfiles, median(c, n));
	printf("%s rescan_first_%d usec %.1f\n", a->tag, nfiles, t0);
	if (a->pid[0] != '\0')
		printf("%s rescan_first_%d_cpu usec %.1f\n", a->tag, nfiles, c0);
}

/* TAG=HOST,... and the pids of MMV_BENCH_CPU_PIDS into ag[]. */
static int agents(char *list)
{
	char *pids = getenv("MMV_BENCH_CPU_PIDS"), *save = NULL, *p;

	for (char *s = strtok_r(list, ",", &save); s != NULL;
	     s = strtok_r(NULL, ",", &save)) {
		char *host = strchr(s, '=');

		if (host == NULL || nag == MAXAGENTS)
			return -1;
		*host++ = '\0';
		ag[nag].tag = s;
		if ((ag[nag].ctx = pmNewContext(PM_CONTEXT_HOST, host)) < 0) {
			fprintf(stderr, "bench_mmv_agent: %s: %s\n", host,
					pmErrStr(ag[nag].ctx));
			return -1;
		}
		nag++;
	}
	for (int k = 0; pids != NULL && k < nag; k++) {
		p = strchr(pids, ',');
		snprintf(ag[k].pid, sizeof(ag[k].pid), "%.*s",
				p ? (int)(p - pids) : (int)strlen(pids), pids);
		pids = p ? p + 1 : NULL;
	}
	return nag > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	static char names[NMETRICS][32];
	const char *np[NMETRICS];
	int perm[NMETRICS], sts, nfiles, reps;

	if (argc < 4 || agents(argv[1]) < 0) {
		fprintf(stderr, "usage: bench_mmv_agent TAG=HOST[,TAG=HOST...] "
				"NFILES REPS\n");
		return 2;
	}
	nfiles = atoi(argv[2]);
	reps = atoi(argv[3]);
	if (nfiles < 1 || nfiles > NMETRICS || reps < 0)
		return 2;
	/* File order: file f, then items f's share of the 1,000. */
	for (int i = 0; i < NMETRICS; i++) {
		int per = NMETRICS / nfiles;
		int f = i / per < nfiles ? i / per : nfiles - 1;

		snprintf(names[i], sizeof(names[i]), "mmv.f%03d.m%04d", f, i - f * per);
		np[i] = names[i];
	}
	srand(1);
	for (int i = 0; i < NMETRICS; i++)
		perm[i] = i;
	for (int i = NMETRICS - 1; i > 0; i--) {
		int j = rand() % (i + 1), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
	/* Each agent numbers the files' clusters its own way. */
	for (int k = 0; k < nag; k++) {
		pmUseContext(ag[k].ctx);
		if ((sts = pmLookupName(NMETRICS, np, ag[k].pmids)) < 0) {
			fprintf(stderr, "bench_mmv_agent: %s: lookup: %s\n",
					ag[k].tag, pmErrStr(sts));
			return 1;
		}
		for (int i = 0; i < NMETRICS; i++)
			ag[k].shuf[i] = ag[k].pmids[perm[i]];
	}
	if (reps > 0 &&
	    (timed("many_order", nfiles, NMETRICS, 0, reps) < 0 ||
	     timed("many_shuf", nfiles, NMETRICS, 1, reps) < 0 ||
	     timed("one", nfiles, 1, 0, reps * 10) < 0 ||
	     cold("cold_order", nfiles, NMETRICS, 0, COLD_FETCHES) < 0 ||
	     cold("cold_shuf", nfiles, NMETRICS, 1, COLD_FETCHES) < 0 ||
	     cold("cold_one", nfiles, 1, 0, COLD_ONE_FETCHES) < 0))
		return 1;
	if (nag == 1)
		rescans(&ag[0], nfiles);
	return 0;
}
