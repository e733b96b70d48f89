/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test client for tests/integration/trace_client.sh: sends N points,
 * observations (1..N), counters (10..10N) and transactions per thread,
 * with tags PREFIX.{p,o,c,t}.THREAD, and checks every return code
 * (sync: 0; async: the PDU length). Built against <pcp/trace.h> only, so
 * the same binary runs on PCP's library or ours (LD_LIBRARY_PATH).
 * usage: trace_client sync|async NTHREADS N PREFIX
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/trace.h>

static int async, count;
static const char *prefix;

static int want(const char *tag)
{
	return async ? (int)((24 + strlen(tag) + 1 + 3) & ~3u) : 0;
}

static int check(const char *what, const char *tag, int rc, int expect)
{
	if (rc == expect)
		return 0;
	fprintf(stderr, "%s(%s) = %d (%s), expected %d\n", what, tag, rc,
		pmtraceerrstr(rc), expect);
	return 1;
}

static void *run(void *arg)
{
	long id = (long)arg, bad = 0;
	char p[64], o[64], c[64], t[64];
	int i;

	snprintf(p, sizeof(p), "%s.p.%ld", prefix, id);
	snprintf(o, sizeof(o), "%s.o.%ld", prefix, id);
	snprintf(c, sizeof(c), "%s.c.%ld", prefix, id);
	snprintf(t, sizeof(t), "%s.t.%ld", prefix, id);
	for (i = 1; i <= count; i++) {
		bad += check("pmtracepoint", p, pmtracepoint(p), want(p));
		bad += check("pmtraceobs", o, pmtraceobs(o, i), want(o));
		bad += check("pmtracecounter", c, pmtracecounter(c, 10.0 * i), want(c));
		bad += check("pmtracebegin", t, pmtracebegin(t), 0);
		bad += check("pmtraceend", t, pmtraceend(t), want(t));
	}
	return (void *)bad;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	long n, i, bad = 0;
	void *r;

	if (argc != 5)
		return 2;
	async = strcmp(argv[1], "async") == 0;
	n = atol(argv[2]);
	count = atoi(argv[3]);
	prefix = argv[4];
	if (n < 1 || n > 64)
		return 2;
	if (async && pmtracestate(PMTRACE_STATE_ASYNC) < 0)
		return 3;
	for (i = 0; i < n; i++)
		pthread_create(&th[i], NULL, run, (void *)i);
	for (i = 0; i < n; i++) {
		pthread_join(th[i], &r);
		bad += (long)r;
	}
	printf("bad=%ld\n", bad);
	return bad != 0;
}
