/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake trace agent for the libpcp_trace unit tests: a thread listening
 * on 127.0.0.1 (port chosen by the kernel) that greets, records every
 * PDU it receives and answers according to its mode. Included by the
 * test files (static functions only).
 */
#ifndef TRACE_FAKE_H
#define TRACE_FAKE_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum greet_mode { GREET_OK, GREET_NONE, GREET_BADLEN };
enum ack_mode {
	ACK_ECHO,	/* ACK(tag type) for sync PDUs */
	ACK_NONE,	/* never answer */
	ACK_WRONG,	/* answer with another tag type */
	ACK_NEGATIVE,	/* answer -12345 */
	ACK_GARBAGE,	/* 16 bytes that are not an ACK */
	ACK_CLOSE,	/* close each connection after its first PDU */
	ACK_SLOW,	/* answer after delay_ms */
};

struct fake {
	int lfd;
	int port;
	int greeting;
	enum greet_mode greet;
	enum ack_mode ack;
	int delay_ms;
	int max_conns;
	pthread_t thread;
	pthread_t servers[16];
	int fds[16];
	pthread_mutex_t lock;
	int stop;
	int nconns;
	int npdus;
	int conn_of_pdu[4096];	/* connection number of each PDU */
	size_t pdu_off[4096];
	unsigned char rx[1 << 20];
	size_t rxlen;
};

static uint32_t fk_get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void fk_put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void fk_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static long fk_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static int fk_stopped(struct fake *f)
{
	return __atomic_load_n(&f->stop, __ATOMIC_RELAXED);
}

/* read exactly n bytes, giving up when stopped; 1 ok, 0 EOF/stop */
static int fk_read(struct fake *f, int fd, unsigned char *buf, size_t n)
{
	size_t have = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t r;

	while (have < n) {
		if (fk_stopped(f))
			return 0;
		if (poll(&p, 1, 50) <= 0)
			continue;
		r = read(fd, buf + have, n - have);
		if (r <= 0)
			return 0;
		have += (size_t)r;
	}
	return 1;
}

static void fk_ack(int fd, int value)
{
	unsigned char a[16];

	fk_put32(a, 16);
	fk_put32(a + 4, 0x7050);
	fk_put32(a + 8, (uint32_t)getpid());
	fk_put32(a + 12, (uint32_t)value);
	send(fd, a, sizeof(a), MSG_NOSIGNAL);
}

static void fk_answer(struct fake *f, int fd, const unsigned char *pdu)
{
	int type = pdu[14];
	unsigned char junk[16];

	if (!(pdu[15] & 0x80))
		return;
	switch (f->ack) {
	case ACK_ECHO:
	case ACK_CLOSE:
		fk_ack(fd, type);
		break;
	case ACK_NONE:
		break;
	case ACK_WRONG:
		fk_ack(fd, type == 2 ? 3 : 2);
		break;
	case ACK_NEGATIVE:
		fk_ack(fd, -12345);
		break;
	case ACK_GARBAGE:
		memset(junk, 0x5a, sizeof(junk));
		send(fd, junk, sizeof(junk), MSG_NOSIGNAL);
		break;
	case ACK_SLOW:
		fk_sleep_ms(f->delay_ms);
		fk_ack(fd, type);
		break;
	}
}

static void fk_greet(struct fake *f, int fd)
{
	unsigned char g[20];

	if (f->greet == GREET_NONE)
		return;
	fk_put32(g, f->greet == GREET_BADLEN ? 20 : 16);
	fk_put32(g + 4, 0x7050);
	fk_put32(g + 8, (uint32_t)getpid());
	fk_put32(g + 12, (uint32_t)f->greeting);
	fk_put32(g + 16, 0);
	send(fd, g, f->greet == GREET_BADLEN ? 20 : 16, MSG_NOSIGNAL);
}

static void fk_serve(struct fake *f, int fd, int conn)
{
	unsigned char pdu[512];
	uint32_t len;

	fk_greet(f, fd);
	while (fk_read(f, fd, pdu, 12)) {
		len = fk_get32(pdu);
		if (len < 16 || len > sizeof(pdu) || !fk_read(f, fd, pdu + 12, len - 12))
			break;
		pthread_mutex_lock(&f->lock);
		if (f->npdus < 4096 && f->rxlen + len <= sizeof(f->rx)) {
			f->conn_of_pdu[f->npdus] = conn;
			f->pdu_off[f->npdus] = f->rxlen;
			memcpy(f->rx + f->rxlen, pdu, len);
			f->rxlen += len;
			f->npdus++;
		}
		pthread_mutex_unlock(&f->lock);
		if (f->ack == ACK_CLOSE)
			break;
		fk_answer(f, fd, pdu);
	}
	close(fd);
}

struct fk_conn {
	struct fake *f;
	int fd;
	int conn;
};

static void *fk_conn_main(void *arg)
{
	struct fk_conn *c = arg;

	fk_serve(c->f, c->fd, c->conn);
	free(c);
	return NULL;
}

/* one thread per connection, at most 16 */
static void *fk_main(void *arg)
{
	struct fake *f = arg;
	struct pollfd p = { .fd = f->lfd, .events = POLLIN };
	struct fk_conn *c;
	int fd, n;

	while (!fk_stopped(f) && f->nconns < f->max_conns && f->nconns < 16) {
		if (poll(&p, 1, 50) <= 0)
			continue;
		fd = accept(f->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		c = malloc(sizeof(*c));
		pthread_mutex_lock(&f->lock);
		n = f->nconns;
		*c = (struct fk_conn){ .f = f, .fd = fd, .conn = n + 1 };
		/* counted before the greeting goes out */
		__atomic_store_n(&f->nconns, n + 1, __ATOMIC_RELEASE);
		pthread_create(&f->servers[n], NULL, fk_conn_main, c);
		pthread_mutex_unlock(&f->lock);
	}
	return NULL;
}

/* a bound, listening IPv4 loopback socket; *port gets its number */
static int fk_listen(int backlog, int *port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(fd, backlog) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		abort();
	*port = ntohs(sa.sin_port);
	return fd;
}

static void fk_env(int port)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%d", port);
	setenv("PCP_TRACE_HOST", "127.0.0.1", 1);
	setenv("PCP_TRACE_PORT", buf, 1);
}

static struct fake *fake_start(enum greet_mode greet, int greeting,
		enum ack_mode ack, int max_conns)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (f == NULL)
		abort();
	f->greet = greet;
	f->greeting = greeting;
	f->ack = ack;
	f->max_conns = max_conns;
	f->delay_ms = 500;
	pthread_mutex_init(&f->lock, NULL);
	f->lfd = fk_listen(16, &f->port);
	fk_env(f->port);
	if (pthread_create(&f->thread, NULL, fk_main, f) != 0)
		abort();
	return f;
}

/* wait (bounded) until the fake has seen n PDUs */
static int fake_wait_pdus(struct fake *f, int n, int ms)
{
	long end = fk_now_ms() + ms;
	int have;

	for (;;) {
		pthread_mutex_lock(&f->lock);
		have = f->npdus;
		pthread_mutex_unlock(&f->lock);
		if (have >= n || fk_now_ms() > end)
			return have;
		fk_sleep_ms(5);
	}
}

static void fake_stop(struct fake *f)
{
	__atomic_store_n(&f->stop, 1, __ATOMIC_RELAXED);
	pthread_join(f->thread, NULL);
	for (int i = 0; i < f->nconns; i++)
		pthread_join(f->servers[i], NULL);
	close(f->lfd);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

/* A port on which nothing listens (bound briefly, then released). */
static int fk_dead_port(void)
{
	int port, fd = fk_listen(1, &port);

	close(fd);
	return port;
}

#endif /* TRACE_FAKE_H */
