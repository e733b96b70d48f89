/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP transports' listening sockets. By default a listener binds
 * both loopbacks, 127.0.0.1 and ::1 (where the host has IPv6): clients
 * that resolve "localhost" to ::1 first (Node 18 and later, Go's gRPC)
 * find it as well as those that take 127.0.0.1. An address given binds
 * that address only. Names start with otlp_.
 *
 * Threads: reentrant.
 */
#ifndef OTLP_BIND_H
#define OTLP_BIND_H

#include <stddef.h>
#include <stdint.h>

#define OTLP_BIND_MAX	2	/* sockets a listener binds at most */

/*
 * otlp_bind - listening sockets (non-blocking, close-on-exec, backlog
 * @backlog) for @host (NULL or "": both loopbacks; a name or a literal:
 * its first address) on @port (0: a free port, the same for both
 * loopbacks) into @fds (OTLP_BIND_MAX). A backlog of SOMAXCONN, as
 * libmicrohttpd takes by default, keeps a flood of connects queued in
 * the kernel, where a short one drops them. ::1 is left out, without an
 * error, where the host has no IPv6 loopback. Returns the number of
 * sockets (>= 1), or -errno (EADDRINUSE for a taken port, EINVAL for a
 * host that does not resolve) with none open; @what (@cap bytes) says
 * which address failed or, on success, which are bound ("127.0.0.1:4318
 * [::1]:4318").
 */
int otlp_bind(const char *host, uint16_t port, int backlog, int *fds, char *what, size_t cap);

/* otlp_bound_port - the port socket @fd is bound to (0 on error). */
uint16_t otlp_bound_port(int fd);

#endif
