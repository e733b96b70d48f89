/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace agent's network side: one I/O thread that accepts clients,
 * greets them (or refuses them by access rule or connection limit),
 * decodes their DATA PDUs into the aggregation and acknowledges sync PDUs.
 * Every socket is non-blocking and polled with epoll, so a client that
 * sends half a PDU or nothing at all holds up nobody, and the thread that
 * answers pmcd never touches the network.
 */
#ifndef TRACE_LISTENER_H
#define TRACE_LISTENER_H

#include <stdint.h>

#include "access.h"
#include "agg.h"

typedef void (*trace_log_fn)(const char *msg);

struct trace_listener_cfg {
	uint16_t port;			/* 0: any free port (see tra_listener_port) */
	uint32_t bind_addr;		/* host order; INADDR_ANY as PCP */
	unsigned max_clients;		/* 0: no limit */
	struct access_list *access;	/* may be NULL: everyone */
	struct trace_agg *agg;
	trace_log_fn log;		/* may be NULL: stderr */
};

struct trace_listener;

/*
 * tra_listener_start - bind, listen and start the I/O thread.
 * Returns NULL with errno set (EADDRINUSE, EACCES, ENOMEM, ...).
 */
struct trace_listener *tra_listener_start(const struct trace_listener_cfg *cfg);

/* The port actually bound. */
uint16_t tra_listener_port(const struct trace_listener *l);

/* Number of connected clients (for the SIGHUP-style report and tests). */
unsigned tra_listener_clients(const struct trace_listener *l);

/* tra_listener_stop - close every client and the socket, join the thread. */
void tra_listener_stop(struct trace_listener *l);

#endif
