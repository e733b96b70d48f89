/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The bearer token and the loopback rule of the OTLP receiver: see guard.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "guard.h"

#define FILE_MAX	4096	/* bytes of a token file read at most */

static int blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

int otlp_token_set(struct otlp_token *t, const char *s, size_t len)
{
	if (len == 0 || len > OTLP_TOKEN_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return -EINVAL;
	memset(t, 0, sizeof(*t));
	memcpy(t->v, s, len);
	t->len = len;
	return 0;
}

int otlp_token_load(const char *path, uid_t owner, struct otlp_token *t, char *why, size_t cap)
{
	char buf[FILE_MAX];
	struct stat st;
	ssize_t n;
	size_t b = 0, e;
	int fd, err = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0) {
		err = -errno;
		snprintf(why, cap, "cannot open %s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(why, cap, "cannot stat %s: %s", path, strerror(errno));
	} else if (!S_ISREG(st.st_mode)) {
		err = -EINVAL;
		snprintf(why, cap, "%s is not a regular file", path);
	} else if (st.st_uid != owner) {
		err = -EPERM;
		snprintf(why, cap, "%s is owned by uid %u, not by the agent's user (uid %u)",
			 path, (unsigned)st.st_uid, (unsigned)owner);
	} else if (st.st_mode & (S_IRGRP | S_IWGRP | S_IROTH | S_IWOTH)) {
		err = -EPERM;
		snprintf(why, cap, "%s is readable or writable by group or others (mode %04o; "
			 "chmod 600 it)", path, (unsigned)(st.st_mode & 07777));
	}
	if (err) {
		close(fd);
		return err;
	}
	n = read(fd, buf, sizeof(buf));
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err) {
		snprintf(why, cap, "cannot read %s: %s", path, strerror(-err));
		return err;
	}
	e = (size_t)n;
	while (b < e && blank(buf[b]))
		b++;
	while (e > b && blank(buf[e - 1]))
		e--;
	if ((size_t)n == sizeof(buf) || otlp_token_set(t, buf + b, e - b) < 0) {
		snprintf(why, cap, "%s does not hold a token: 1 to %d visible ASCII characters, "
			 "no blanks inside", path, OTLP_TOKEN_MAX);
		err = -EINVAL;
	}
	explicit_bzero(buf, sizeof(buf));
	return err;
}

int otlp_equal_ct(const unsigned char *a, const unsigned char *b, size_t n)
{
	unsigned char d = 0;

	for (size_t i = 0; i < n; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

enum otlp_auth otlp_token_check(const struct otlp_token *t, const char *value, size_t len)
{
	unsigned char got[OTLP_TOKEN_MAX];
	size_t b = 0, e = len, n;
	int same;

	if (value == NULL)
		return OTLP_AUTH_MISSING;
	while (b < e && blank(value[b]))
		b++;
	while (e > b && blank(value[e - 1]))
		e--;
	if (b == e)
		return OTLP_AUTH_MISSING;
	/* RFC 6750: "Bearer", one or more blanks, the token */
	if (e - b < 7 || strncasecmp(value + b, "Bearer", 6) != 0 || !blank(value[b + 6]))
		return OTLP_AUTH_WRONG;
	for (b += 6; b < e && blank(value[b]); b++)
		;
	n = e - b;
	memset(got, 0, sizeof(got));
	memcpy(got, value + b, n <= sizeof(got) ? n : 0);
	/* every byte of both buffers, whatever either length */
	same = otlp_equal_ct(got, t->v, sizeof(got));
	same &= n == t->len;
	explicit_bzero(got, sizeof(got));
	return same ? OTLP_AUTH_OK : OTLP_AUTH_WRONG;
}

static int addr_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24 == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return 0;
}

int otlp_host_is_loopback(const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	int all = 1;

	if (host == NULL || *host == '\0')
		return 1;
	if (getaddrinfo(host, NULL, &hints, &res) != 0)
		return 0;
	for (ai = res; ai; ai = ai->ai_next)
		all &= addr_is_loopback(ai->ai_addr);
	freeaddrinfo(res);
	return all;
}

char *otlp_protection_text(unsigned bits, char *buf, size_t cap)
{
	static const char *const words[] = { "host access list (-A)", "bearer token (-a)",
					     "TLS (-j)" };
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!(bits & (1u << i)) || n >= cap)
			continue;
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", n ? ", " : "", words[i]);
	}
	if (n == 0)
		snprintf(buf, cap, "none");
	return buf;
}
