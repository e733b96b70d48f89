/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Trace agent benchmark driver, run against any trace agent behind a pmcd:
 *   bench_trace_agent ingest AGENTPORT PMCDHOST CONNS TOTAL
 *       CONNS connections send TOTAL async point PDUs in all (32 bytes
 *       each, tag "ingest0", written 128 at a time); reports the rate at
 *       which the agent counted them (trace.point.count read through pmcd)
 *       and how many it counted of those sent.
 *   bench_trace_agent ingest_obs AGENTPORT PMCDHOST CONNS TOTAL
 *       the same with observation PDUs (tag "ingesto") whose values
 *       cycle through 128 spread log-uniformly over 1e-6..1 (20 binades:
 *       work for an agent that keeps histograms), counted by
 *       trace.observe.count.
 *   bench_trace_agent tags AGENTPORT PMCDHOST NTAGS
 *       sends NTAGS distinct point tags, then reports the mean latency of
 *       fetching trace.point.count (every instance) through pmcd.
 * Clients speak the trace protocol directly so the agent, not a client
 * library, is what is measured.
 */
#include <arpa/inet.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <pcp/pmapi.h>

#define PDU_LEN 32
#define BATCH 128

static int agent_port;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * An async PDU of tag type @type (2 point, 3 observation) with @value for
 * a 7-character tag (docs/trace-protocol.md §2.3).
 */
static void data_pdu(unsigned char *b, const char *tag7, int type, double value)
{
	static const unsigned char head[16] = { 0, 0, 0, PDU_LEN, 0, 0, 0x70, 0x51,
		0, 0, 0, 1, 1, 8, 2, 0 };
	uint64_t bits;

	memcpy(b, head, 16);
	b[14] = (unsigned char)type;
	memcpy(&bits, &value, sizeof(bits));
	for (int i = 0; i < 8; i++)
		b[16 + i] = (unsigned char)(bits >> (56 - 8 * i));	/* big-endian */
	memcpy(b + 24, tag7, 7);
	b[31] = '\0';
}

static void point_pdu(unsigned char *b, const char *tag7)
{
	data_pdu(b, tag7, 2, -1.0);
}

static int connect_agent(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	unsigned char greeting[16];
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)agent_port);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    read(fd, greeting, sizeof(greeting)) != sizeof(greeting)) {
		perror("bench_trace_agent: connect");
		exit(1);
	}
	return fd;
}

static int write_all(int fd, const unsigned char *b, size_t n)
{
	while (n) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);

		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

struct sender {
	long count;
	long sent;
	int type;	/* 2 points, 3 observations */
};

static void *send_points(void *arg)
{
	struct sender *s = arg;
	unsigned char batch[BATCH * PDU_LEN];
	struct timeval stall = { 5, 0 };	/* an agent that stops reading ends us */
	int fd = connect_agent();

	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &stall, sizeof(stall));
	for (int i = 0; i < BATCH; i++) {
		if (s->type == 2)
			point_pdu(batch + i * PDU_LEN, "ingest0");
		else	/* 1e-6 * 1e6^(i/128), in a scattered order */
			data_pdu(batch + i * PDU_LEN, "ingesto", 3,
				 1e-6 * pow(1e6, (double)(i * 37 % BATCH) / BATCH));
	}
	for (long left = s->count; left > 0; left -= BATCH) {
		long n = left < BATCH ? left : BATCH;

		if (write_all(fd, batch, (size_t)n * PDU_LEN) < 0)
			break;	/* the agent dropped us: what was sent is what counts */
		s->sent += n;
	}
	close(fd);
	return NULL;
}

/* Sum of a count metric over every instance, through pmcd. */
static double point_total(pmID pmid)
{
	pmResult *r;
	double sum = 0;

	if (pmFetch(1, &pmid, &r) < 0)
		return -1;
	for (int i = 0; i < r->vset[0]->numval; i++) {
		pmAtomValue v;

		pmExtractValue(r->vset[0]->valfmt, &r->vset[0]->vlist[i], PM_TYPE_U64, &v, PM_TYPE_U64);
		sum += (double)v.ull;
	}
	pmFreeResult(r);
	return sum;
}

static pmID lookup(const char *host, const char *name)
{
	pmID pmid;
	int sts;

	if ((sts = pmNewContext(PM_CONTEXT_HOST, host)) < 0 ||
	    (sts = pmLookupName(1, &name, &pmid)) < 0) {
		fprintf(stderr, "bench_trace_agent: %s: %s\n", host, pmErrStr(sts));
		exit(1);
	}
	return pmid;
}

static int ingest(const char *host, int conns, long total, int type)
{
	pthread_t th[1024];
	struct sender s[1024];
	pmID pmid = lookup(host, type == 2 ? "trace.point.count" : "trace.observe.count");
	const char *key = type == 2 ? "ingest" : "ingest_obs";
	double base = point_total(pmid), t0, last_change, counted = base, prev = -1;
	long sent = 0;

	t0 = now();
	for (int i = 0; i < conns; i++) {
		s[i] = (struct sender){ total / conns, 0, type };
		pthread_create(&th[i], NULL, send_points, &s[i]);
	}
	for (int i = 0; i < conns; i++) {
		pthread_join(th[i], NULL);
		sent += s[i].sent;
	}
	/* wait until the agent has counted all, or its count stops moving */
	last_change = now();
	while (counted - base < sent && now() - last_change < 2.0) {
		usleep(2000);
		counted = point_total(pmid);
		if (counted != prev) {
			prev = counted;
			last_change = now();
		}
	}
	printf("%s_%d events_per_sec %.0f\n", key, conns, (counted - base) / (last_change - t0));
	printf("%s_%d counted %.0f\n", key, conns, counted - base);
	printf("%s_%d sent %ld\n", key, conns, sent);
	return 0;
}

static int tags(const char *host, int ntags)
{
	unsigned char pdu[PDU_LEN];
	char tag[16];
	pmID pmid = lookup(host, "trace.point.count");
	int fd = connect_agent(), fetches = 200;
	double t0;

	for (int i = 0; i < ntags; i++) {
		snprintf(tag, sizeof(tag), "t%06d", i);
		point_pdu(pdu, tag);
		write_all(fd, pdu, sizeof(pdu));
	}
	for (int tries = 0; tries < 1000; tries++) {
		pmResult *r;
		int n = 0;

		if (pmFetch(1, &pmid, &r) >= 0) {
			n = r->vset[0]->numval;
			pmFreeResult(r);
		}
		if (n >= ntags)
			break;
		usleep(5000);
	}
	t0 = now();
	for (int i = 0; i < fetches; i++) {
		pmResult *r;

		if (pmFetch(1, &pmid, &r) >= 0)
			pmFreeResult(r);
	}
	printf("fetch_%d_tags usec %.1f\n", ntags, (now() - t0) / fetches * 1e6);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 5)
		agent_port = atoi(argv[2]);
	if (argc == 6 && strcmp(argv[1], "ingest") == 0 && atoi(argv[4]) <= 1024)
		return ingest(argv[3], atoi(argv[4]), atol(argv[5]), 2);
	if (argc == 6 && strcmp(argv[1], "ingest_obs") == 0 && atoi(argv[4]) <= 1024)
		return ingest(argv[3], atoi(argv[4]), atol(argv[5]), 3);
	if (argc == 5 && strcmp(argv[1], "tags") == 0)
		return tags(argv[3], atoi(argv[4]));
	fprintf(stderr, "usage: %s ingest|ingest_obs PORT HOST CONNS TOTAL | tags PORT HOST NTAGS\n",
		argv[0]);
	return 2;
}
