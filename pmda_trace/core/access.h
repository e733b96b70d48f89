/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host access control for trace clients (pmdatrace -A, docs/trace-protocol.md §6.2):
 *   allow:HOSTSPEC:MAXCONN   admit, at most MAXCONN at once (0: no limit)
 *   disallow:HOSTSPEC        refuse
 * HOSTSPEC is an IPv4 address, a prefix such as 192.168.1.*, * for all,
 * or a host name (each of its IPv4 addresses). The most specific matching
 * entry decides; a host no entry matches is admitted. Used by the
 * listener thread only.
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

#endif
