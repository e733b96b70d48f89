/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host access control for trace clients: see access.h.
 * PCP matches a loopback client as every address of the local host and
 * charges each against the limits, so "allow:127.0.0.1:1" refuses even
 * one local client; here a client is matched by its own address and
 * charged to the one entry that decided.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "access.h"
#include "parse_number.h"

struct access_entry {
	uint32_t addr;		/* host order; only the top octets count */
	int octets;		/* fixed octets: 4 exact .. 0 for "*" */
	int allow;
	unsigned maxconn;	/* 0: no limit */
	unsigned current;
};

struct access_list {
	struct access_entry *v;
	size_t n, cap;
};

struct access_list *tra_access_new(void)
{
	return calloc(1, sizeof(struct access_list));
}

void tra_access_free(struct access_list *acl)
{
	if (acl) {
		free(acl->v);
		free(acl);
	}
}

static int push(struct access_list *acl, struct access_entry e)
{
	if (acl->n == acl->cap) {
		size_t cap = acl->cap ? acl->cap * 2 : 8;
		struct access_entry *v = realloc(acl->v, cap * sizeof(*v));

		if (v == NULL)
			return -ENOMEM;
		acl->v = v;
		acl->cap = cap;
	}
	acl->v[acl->n++] = e;
	return 0;
}

/* "a.b.c.*", "a.*", "*": the fixed octets; -1 if not such a prefix. */
static int parse_prefix(const char *s, uint32_t *addr)
{
	int octets = 0;
	uint32_t a = 0;

	while (*s != '*') {
		char *end;
		long v;

		if (!isdigit((unsigned char)*s) || octets == 3)
			return -1;
		v = strtol(s, &end, 10);
		if (v > 255 || *end != '.')
			return -1;
		a |= (uint32_t)v << (24 - 8 * octets++);
		s = end + 1;
	}
	if (s[1] != '\0')
		return -1;
	*addr = a;
	return octets;
}

static int add_host(struct access_list *acl, const char *host,
		struct access_entry e, char *why, size_t whylen)
{
	struct addrinfo hints = { .ai_family = AF_INET }, *res, *ai;
	struct in_addr in;
	int err = 0;

	if ((e.octets = parse_prefix(host, &e.addr)) >= 0)
		return push(acl, e);
	e.octets = 4;
	if (inet_pton(AF_INET, host, &in) == 1) {
		e.addr = ntohl(in.s_addr);
		return push(acl, e);
	}
	if (getaddrinfo(host, NULL, &hints, &res) != 0) {
		snprintf(why, whylen, "unknown host '%s'", host);
		return -EINVAL;
	}
	for (ai = res; ai && !err; ai = ai->ai_next) {
		e.addr = ntohl(((struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr);
		err = push(acl, e);
	}
	freeaddrinfo(res);
	return err;
}

int tra_access_add(struct access_list *acl, const char *spec, char *why,
		size_t whylen)
{
	struct access_entry e = { 0 };
	const char *colon = strchr(spec, ':');
	char host[256];
	size_t kw, hl;

	if (colon == NULL)
		goto invalid;
	kw = (size_t)(colon - spec);
	if (kw == 5 && strncasecmp(spec, "allow", 5) == 0)
		e.allow = 1;
	else if (!(kw == 8 && strncasecmp(spec, "disallow", 8) == 0))
		goto invalid;
	spec = colon + 1;
	while (*spec == ' ' || *spec == '\t')
		spec++;
	hl = strcspn(spec, ":");
	if (hl == 0 || hl >= sizeof(host))
		goto invalid;
	memcpy(host, spec, hl);
	host[hl] = '\0';
	spec += hl;
	if (e.allow) {
		long long v;

		/* PCP requires the limit and reads past the string without it */
		if (*spec != ':' || spec[1] == '\0') {
			snprintf(why, whylen, "allow needs a connection limit: allow:HOST:MAXCONN");
			return -EINVAL;
		}
		if (sdk_parse_integer(spec + 1, 0, UINT_MAX, &v) < 0) {
			snprintf(why, whylen, "bogus connection limit '%s'", spec + 1);
			return -EINVAL;
		}
		e.maxconn = (unsigned)v;
	}
	return add_host(acl, host, e, why, whylen);
invalid:
	snprintf(why, whylen, "access spec is invalid");
	return -EINVAL;
}

static int matches(const struct access_entry *e, uint32_t addr)
{
	uint32_t mask = e->octets ? ~0u << (32 - 8 * e->octets) : 0;

	return (addr & mask) == (e->addr & mask);
}

/* The entry that decides for @addr (@v4 0: an address only "*" matches), or -1. */
static int decider(const struct access_list *acl, uint32_t addr, int v4)
{
	int best = -1;

	for (size_t i = 0; i < acl->n; i++) {
		const struct access_entry *e = &acl->v[i];

		if (v4 ? !matches(e, addr) : e->octets != 0)
			continue;
		/* more specific wins; on a tie, refusing is the safe choice */
		if (best < 0 || e->octets > acl->v[best].octets ||
		    (e->octets == acl->v[best].octets && !e->allow))
			best = (int)i;
	}
	return best;
}

static enum access_verdict charge(struct access_list *acl, int best, int *slot)
{
	*slot = -1;
	if (best < 0)
		return ACCESS_OK;
	if (!acl->v[best].allow)
		return ACCESS_DENIED;
	if (acl->v[best].maxconn && acl->v[best].current >= acl->v[best].maxconn)
		return ACCESS_LIMIT;
	acl->v[best].current++;
	*slot = best;
	return ACCESS_OK;
}

enum access_verdict tra_access_admit(struct access_list *acl, struct in_addr in,
		int *slot)
{
	return charge(acl, decider(acl, ntohl(in.s_addr), 1), slot);
}

/*
 * The IPv4 address an access list matches @sa by: its own, the one inside
 * a v4-mapped IPv6 address, 127.0.0.1 for ::1 (the same host's loopback).
 * Another IPv6 address has none: only "*" entries match it.
 */
static int v4_of(const struct sockaddr *sa, struct in_addr *in)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

	if (sa->sa_family == AF_INET) {
		*in = ((const struct sockaddr_in *)sa)->sin_addr;
		return 1;
	}
	if (sa->sa_family != AF_INET6)
		return 0;
	if (IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		memcpy(&in->s_addr, &s6->sin6_addr.s6_addr[12], 4);
		return 1;
	}
	if (IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr)) {
		in->s_addr = htonl(INADDR_LOOPBACK);
		return 1;
	}
	return 0;
}

enum access_verdict tra_access_admit_sa(struct access_list *acl, const struct sockaddr *sa,
		int *slot)
{
	struct in_addr in;

	if (v4_of(sa, &in))
		return tra_access_admit(acl, in, slot);
	return charge(acl, decider(acl, 0, 0), slot);
}

int tra_access_restricts(const struct access_list *acl)
{
	int refuse_rest = 0, allow_some = 0;

	for (size_t i = 0; i < acl->n; i++) {
		if (acl->v[i].octets == 0 && !acl->v[i].allow)
			refuse_rest = 1;
		if (acl->v[i].octets != 0 && acl->v[i].allow)
			allow_some = 1;
	}
	/* "allow:*" beside "disallow:*" changes nothing: a tie refuses */
	return refuse_rest && allow_some;
}

struct access_list *tra_access_dup(const struct access_list *acl)
{
	struct access_list *d = tra_access_new();

	if (d == NULL)
		return NULL;
	for (size_t i = 0; i < acl->n; i++) {
		struct access_entry e = acl->v[i];

		e.current = 0;
		if (push(d, e) < 0) {
			tra_access_free(d);
			return NULL;
		}
	}
	return d;
}

void tra_access_release(struct access_list *acl, int slot)
{
	if (slot >= 0 && (size_t)slot < acl->n && acl->v[slot].current > 0)
		acl->v[slot].current--;
}
