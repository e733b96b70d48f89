/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening a connection to the agent: resolve, connect with a timeout
 * (non-blocking connect and poll: no SIGALRM, no interval timer), then
 * read the agent's greeting ACK. A descriptor is returned only once the
 * greeting said yes; every failure path closes what it opened.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "trace_priv.h"
#include "conn_priv.h"

/* PCP's library caps each address's connect at 5 s whatever the timeout. */
#define CONNECT_CAP_MS	5000

long trace__now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

long trace__seconds_ms(double s)
{
	return (long)(s * 1000.0 + 0.5);
}

/* 1 ready, 0 timed out, -errno; ms < 0 waits for ever */
int trace__poll(int fd, short events, long ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	long deadline = trace__now_ms() + ms;
	int rc;

	for (;;) {
		rc = poll(&p, 1, ms < 0 ? -1 : (int)ms);
		if (rc >= 0)
			return rc;
		if (errno != EINTR)
			return -errno;
		if (ms >= 0) {
			ms = deadline - trace__now_ms();
			if (ms < 0)
				ms = 0;
		}
	}
}

static int connect_one(const struct addrinfo *ai, long ms)
{
	int fd, one = 1, err = 0;
	socklen_t len = sizeof(err);

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			err = -errno;
			goto fail;
		}
		err = trace__poll(fd, POLLOUT, ms);
		if (err == 0)
			err = -ETIMEDOUT;
		if (err < 0)
			goto fail;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
			err = errno;
		if (err != 0) {
			err = -err;
			goto fail;
		}
	}
	return fd;
fail:
	close(fd);
	return err;
}

/*
 * Exactly 16 bytes, so nothing after the greeting is consumed. Returns the
 * greeting value (>= 0, which agent it is) or the refusal or error; the
 * agent's pid (the ACK's "from") in *@pid.
 */
static int read_greeting(int fd, int *pid)
{
	unsigned char buf[TRACE_ACK_LEN];
	long deadline = trace__now_ms() + trace__seconds_ms(trace__env_reqtimeout());
	size_t have = 0;
	int32_t value;
	ssize_t n;
	int rc;

	while (have < sizeof(buf)) {
		long left = deadline - trace__now_ms();

		rc = trace__poll(fd, POLLIN, left < 0 ? 0 : left);
		if (rc == 0)
			return PMTRACE_ERR_TIMEOUT;
		if (rc < 0)
			return PMTRACE_ERR_IPC;
		n = recv(fd, buf + have, sizeof(buf) - have, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return PMTRACE_ERR_IPC;
		have += (size_t)n;
	}
	trace__dump_pdu("greeting", buf, sizeof(buf));
	if (trace_get_ack(buf, &value) < 0)
		return PMTRACE_ERR_IPC;
	*pid = (int)trace_get32(buf + TRACE_OFF_FROM);
	/* any value >= 0 is a yes, as in PCP's library (7 was accepted) */
	return (int)value;
}

static long connect_wait_ms(void)
{
	long ms = trace__seconds_ms(trace__env_timeout());

	return ms == 0 || ms > CONNECT_CAP_MS ? CONNECT_CAP_MS : ms;
}

int trace__open_agent(int *fdp, int *greeting, int *agent_pid)
{
	struct addrinfo hints, *res, *ai;
	char hostbuf[256], port[16];
	const char *host = trace__env_host(hostbuf, sizeof(hostbuf));
	long ms = connect_wait_ms();
	int fd = -ECONNREFUSED, rc;

	snprintf(port, sizeof(port), "%d", trace__env_port());
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;	/* one entry per address */
	hints.ai_flags = AI_NUMERICSERV;
	trace__debug(PMTRACE_STATE_COMMS, "connecting to %s port %s", host, port);
	if (getaddrinfo(host, port, &hints, &res) != 0) {
		trace__debug(PMTRACE_STATE_COMMS, "cannot resolve %s", host);
		return -EHOSTUNREACH;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = connect_one(ai, ms);
		if (fd >= 0)
			break;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		trace__debug(PMTRACE_STATE_COMMS, "connect failed: %s", strerror(-fd));
		return fd;
	}
	rc = read_greeting(fd, agent_pid);
	if (rc < 0) {
		trace__debug(PMTRACE_STATE_COMMS, "greeting refused: %d", rc);
		close(fd);
		return rc;
	}
	trace__debug(PMTRACE_STATE_COMMS, "connected, fd=%d, greeting %#x", fd, rc);
	*fdp = fd;
	*greeting = rc;
	return 0;
}
