/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What guards the OTLP receiver off the loopback (docs/trace-protocol.md
 * §12.9): the bearer token every request must carry when one is set
 * (-a), and the rule that a listener on an address other than the
 * loopback needs a protection (a restrictive access list -A, a token,
 * TLS when the receiver has it) or the word "insecure". The host access
 * list itself is core/access.h. Names start with otlp_.
 *
 * Threads: reentrant; a token is read, never written, once loaded.
 */
#ifndef OTLP_GUARD_H
#define OTLP_GUARD_H

#include <stddef.h>
#include <sys/types.h>

#define OTLP_TOKEN_MAX	256	/* bytes of a token at most */

/* A token, zero-padded to OTLP_TOKEN_MAX so that a check compares every byte. */
struct otlp_token {
	size_t len;
	unsigned char v[OTLP_TOKEN_MAX];
};

enum otlp_auth {
	OTLP_AUTH_OK,
	OTLP_AUTH_MISSING,	/* no Authorization (or an empty one) */
	OTLP_AUTH_WRONG,	/* another scheme than Bearer, or another token */
};

/*
 * otlp_token_set - @len bytes of @s as the token: 1 to OTLP_TOKEN_MAX
 * visible ASCII characters (0x21-0x7e, as a header carries them).
 * Returns 0 or -EINVAL.
 */
int otlp_token_set(struct otlp_token *t, const char *s, size_t len);

/*
 * otlp_token_load - the token in file @path: its contents without the
 * blanks and line ends around them. The file must be a regular file
 * owned by @owner (the agent's user) that its group and others can
 * neither read nor write. Returns 0, or -errno with @why (@cap bytes)
 * saying what is wrong (EPERM for the owner or the mode, EINVAL for
 * contents that are not a token).
 */
int otlp_token_load(const char *path, uid_t owner, struct otlp_token *t, char *why, size_t cap);

/*
 * otlp_token_check - an Authorization header's value @value (@len
 * bytes; NULL: none) against @t: "Bearer" (any case), blanks, the token,
 * compared in time that depends on neither token's contents nor length
 * (fixed-size buffers, every byte).
 */
enum otlp_auth otlp_token_check(const struct otlp_token *t, const char *value, size_t len);

/* otlp_equal_ct - are @a and @b (@n bytes each) equal? 1 or 0, every byte compared. */
int otlp_equal_ct(const unsigned char *a, const unsigned char *b, size_t n);

/* Protections of a listener, as bits. */
#define OTLP_PROTECT_ACCESS	1u	/* an access list that refuses the rest (-A) */
#define OTLP_PROTECT_TOKEN	2u	/* a bearer token (-a) */
#define OTLP_PROTECT_TLS	4u	/* TLS (-j), with or without client certificates */

/*
 * otlp_host_is_loopback - does listening on @host ("" or NULL: both
 * loopbacks) stay on the loopback? 1 when every address it resolves to
 * is in 127.0.0.0/8 or ::1 (v4-mapped included), else 0 (the wildcard
 * addresses, others, a host that does not resolve).
 */
int otlp_host_is_loopback(const char *host);

/*
 * otlp_protection_text - @bits as words for a log line into @buf (@cap
 * bytes): "host access list (-A), bearer token (-a)"; "none" for 0.
 * Returns @buf.
 */
char *otlp_protection_text(unsigned bits, char *buf, size_t cap);

#endif
