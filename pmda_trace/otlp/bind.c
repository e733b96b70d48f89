/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP transports' listening sockets: see bind.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "bind.h"

/* A listening socket on @sa, or -errno. */
static int listen_on(const struct sockaddr *sa, socklen_t len, int backlog)
{
	int fd, one = 1, err;

	fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (sa->sa_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, sa, len) < 0 || listen(fd, backlog) < 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* "ADDR:PORT" or "[ADDR]:PORT" of @sa, appended to @what. */
static void say_addr(const struct sockaddr *sa, char *what, size_t cap)
{
	char a[INET6_ADDRSTRLEN] = "?";
	size_t n = strlen(what);
	uint16_t port;

	if (sa->sa_family == AF_INET6) {
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, a, sizeof(a));
		port = ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, a, sizeof(a));
		port = ntohs(((const struct sockaddr_in *)sa)->sin_port);
	}
	snprintf(what + n, cap - n, sa->sa_family == AF_INET6 ? "%s[%s]:%u" : "%s%s:%u",
		 n ? " " : "", a, port);
}

uint16_t otlp_bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* Both loopbacks; ::1 only where it binds. */
static int bind_loopbacks(uint16_t port, int backlog, int *fds, char *what, size_t cap)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	int fd;

	if ((fd = listen_on((struct sockaddr *)&v4, sizeof(v4), backlog)) < 0) {
		say_addr((struct sockaddr *)&v4, what, cap);
		return fd;
	}
	fds[0] = fd;
	v4.sin_port = htons(otlp_bound_port(fd));	/* port 0: the same for both */
	say_addr((struct sockaddr *)&v4, what, cap);
	v6.sin6_port = v4.sin_port;
	fd = listen_on((struct sockaddr *)&v6, sizeof(v6), backlog);
	if (fd == -EADDRNOTAVAIL || fd == -EAFNOSUPPORT)
		return 1;	/* no IPv6 loopback on this host */
	if (fd < 0) {
		close(fds[0]);
		what[0] = '\0';
		say_addr((struct sockaddr *)&v6, what, cap);
		return fd;
	}
	fds[1] = fd;
	say_addr((struct sockaddr *)&v6, what, cap);
	return 2;
}

int otlp_bind(const char *host, uint16_t port, int backlog, int *fds, char *what, size_t cap)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	struct addrinfo *ai = NULL;
	char ps[8];
	int fd;

	what[0] = '\0';
	if (host == NULL || *host == '\0')
		return bind_loopbacks(port, backlog, fds, what, cap);
	snprintf(ps, sizeof(ps), "%u", port);
	if (getaddrinfo(host, ps, &hints, &ai) != 0 || ai == NULL) {
		snprintf(what, cap, "%s", host);
		return -EINVAL;
	}
	fd = listen_on(ai->ai_addr, ai->ai_addrlen, backlog);
	if (fd >= 0 && port == 0) {	/* say the port bound */
		if (ai->ai_family == AF_INET6)
			((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons(otlp_bound_port(fd));
		else
			((struct sockaddr_in *)ai->ai_addr)->sin_port = htons(otlp_bound_port(fd));
	}
	say_addr(ai->ai_addr, what, cap);
	freeaddrinfo(ai);
	if (fd < 0)
		return fd;
	fds[0] = fd;
	return 1;
}
