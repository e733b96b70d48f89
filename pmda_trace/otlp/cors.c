/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * CORS for the OTLP/HTTP receiver: see cors.h.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cors.h"

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The next origin of @list at *@p: its start and length, blanks trimmed; *@p past its comma. */
static const char *next_origin(const char **p, size_t *len)
{
	const char *s = *p, *e;

	while (blank(*s))
		s++;
	e = s + strcspn(s, ",");
	*p = *e == ',' ? e + 1 : e;
	while (e > s && blank(e[-1]))
		e--;
	*len = (size_t)(e - s);
	return s;
}

int otlp_cors_check(const char *list, char *why, size_t cap)
{
	const char *p = list;

	if (list == NULL || *list == '\0') {
		snprintf(why, cap, "no origin");
		return -1;
	}
	for (;;) {
		int more = 0;
		size_t len, i, stars = 0;
		const char *o = next_origin(&p, &len);

		more = p > list && p[-1] == ',';
		if (len == 0) {
			snprintf(why, cap, "an empty origin");
			return -1;
		}
		if (len > OTLP_CORS_ORIGIN_MAX) {
			snprintf(why, cap, "an origin longer than %d bytes", OTLP_CORS_ORIGIN_MAX);
			return -1;
		}
		for (i = 0; i < len; i++) {
			unsigned char c = (unsigned char)o[i];

			if (c <= ' ' || c >= 0x7f) {
				snprintf(why, cap, "a blank or a control character in %.*s", (int)len, o);
				return -1;
			}
			stars += c == '*';
		}
		if (stars > 1) {
			snprintf(why, cap, "more than one '*' in %.*s", (int)len, o);
			return -1;
		}
		if (!more)
			return 0;
	}
}

int otlp_cors_match(const char *pattern, size_t len, const char *origin)
{
	const char *star = memchr(pattern, '*', len);
	size_t olen = strlen(origin), pre, post;

	if (star == NULL)
		return olen == len && strncasecmp(pattern, origin, len) == 0;
	pre = (size_t)(star - pattern);
	post = len - pre - 1;
	return olen >= pre + post && strncasecmp(pattern, origin, pre) == 0 &&
	       strncasecmp(star + 1, origin + olen - post, post) == 0;
}

int otlp_cors_allowed(const char *list, const char *origin)
{
	const char *p = list;

	if (list == NULL || origin == NULL || *origin == '\0')
		return 0;
	while (*p != '\0') {
		size_t len;
		const char *o = next_origin(&p, &len);

		if (len > 0 && otlp_cors_match(o, len, origin))
			return 1;
	}
	return 0;
}

/* A header name's character (RFC 9110's tchar)? */
static int tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

void otlp_cors_allow_headers(const char *requested, char *out, size_t cap)
{
	size_t n, i;

	snprintf(out, cap, "Content-Type");
	if (requested == NULL)
		return;
	while (blank(*requested))
		requested++;
	n = strlen(requested);
	if (n == 0 || n > OTLP_CORS_HEADERS_MAX)
		return;
	for (i = 0; i < n; i++)
		if (!tchar(requested[i]) && requested[i] != ',' && !blank(requested[i]))
			return;
	snprintf(out, cap, "Content-Type, %s", requested);
}
