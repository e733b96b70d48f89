/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host access control for trace clients (pmdatrace -A, docs/trace-protocol.md §6.2):
 *   allow:HOSTSPEC:MAXCONN   admit, at most MAXCONN at once (0: no limit)
 *   disallow:HOSTSPEC        refuse
 * HOSTSPEC is an IPv4 address, a prefix such as 192.168.1.*, * for all,
 * or a host name (each of its IPv4 addresses). The most specific matching
 * entry decides; a host no entry matches is admitted. An IPv6 client is
 * matched by the IPv4 address inside a v4-mapped one, ::1 as 127.0.0.1;
 * any other only by "*" entries.
 *
 * Threads: a list (and its connection counts) is used by one thread; each
 * listener (the PDU port, OTLP/HTTP, OTLP/gRPC) has its own copy
 * (tra_access_dup), so MAXCONN counts a host's connections to each.
 */
#ifndef TRACE_ACCESS_H
#define TRACE_ACCESS_H

#include <netinet/in.h>
#include <stddef.h>

struct access_list;

enum access_verdict {
	ACCESS_OK = 0,
	ACCESS_DENIED = 1,	/* greeting PMTRACE_ERR_PERMISSION */
	ACCESS_LIMIT = 2,	/* greeting PMTRACE_ERR_CONNLIMIT */
};

struct access_list *tra_access_new(void);
void tra_access_free(struct access_list *acl);

/*
 * tra_access_add - parse one -A @spec and append it. Returns 0, or -EINVAL
 * with a reason in @why (@whylen bytes), or -ENOMEM.
 */
int tra_access_add(struct access_list *acl, const char *spec, char *why,
		size_t whylen);

/*
 * tra_access_admit - decide for a new connection from @addr. On ACCESS_OK
 * *@slot identifies the entry charged (or -1); pass it to tra_access_release
 * when the connection ends.
 */
enum access_verdict tra_access_admit(struct access_list *acl, struct in_addr addr,
		int *slot);
void tra_access_release(struct access_list *acl, int slot);

/* tra_access_admit_sa - tra_access_admit for a client of either family (see above). */
struct sockaddr;
enum access_verdict tra_access_admit_sa(struct access_list *acl, const struct sockaddr *sa,
		int *slot);

/*
 * tra_access_restricts - does @acl keep unknown hosts out? 1 when it has
 * "disallow:*" and at least one allow rule narrower than "*" (whom it is
 * for): what makes a listener off the loopback protected.
 */
int tra_access_restricts(const struct access_list *acl);

/* tra_access_dup - a copy of @acl's rules with no connection charged; NULL on ENOMEM. */
struct access_list *tra_access_dup(const struct access_list *acl);

#endif
