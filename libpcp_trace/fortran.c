/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fortran entry points (GCC conventions: trailing underscore, arguments
 * by reference, hidden string lengths by value). The blank-padded string
 * is copied with its trailing blanks, as PCP's library does.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "trace_priv.h"

static char *f_string(const char *s, int len)
{
	char *copy;

	if (len < 0)
		len = 0;
	copy = malloc((size_t)len + 1);
	if (copy == NULL)
		return NULL;
	memcpy(copy, s, (size_t)len);
	copy[len] = '\0';
	return copy;
}

static int f_call(int (*fn)(const char *), const char *tag, int len)
{
	char *s = f_string(tag, len);
	int rc;

	if (s == NULL)
		return -ENOMEM;
	rc = fn(s);
	free(s);
	return rc;
}

int pmtracebegin_(const char *tag, int len)
{
	return f_call(pmtracebegin, tag, len);
}

int pmtraceend_(const char *tag, int len)
{
	return f_call(pmtraceend, tag, len);
}

int pmtraceabort_(const char *tag, int len)
{
	return f_call(pmtraceabort, tag, len);
}

int pmtracepoint_(const char *tag, int len)
{
	return f_call(pmtracepoint, tag, len);
}

int pmtracecounter_(const char *tag, double *value, int len)
{
	char *s = f_string(tag, len);
	int rc;

	if (s == NULL)
		return -ENOMEM;
	rc = pmtracecounter(s, *value);
	free(s);
	return rc;
}

/* note the argument order differs from pmtracecounter_, as in PCP */
int pmtraceobs_(const char *tag, int len, double *value)
{
	char *s = f_string(tag, len);
	int rc;

	if (s == NULL)
		return -ENOMEM;
	rc = pmtraceobs(s, *value);
	free(s);
	return rc;
}

/* message blank-padded to buf_len, no NUL (Fortran CHARACTER) */
void pmtraceerrstr_(int *code, char *buf, int buf_len)
{
	const char *msg = pmtraceerrstr(*code);
	size_t n = strlen(msg);

	if (buf_len <= 0)
		return;
	if (n > (size_t)buf_len)
		n = (size_t)buf_len;
	memcpy(buf, msg, n);
	memset(buf + n, ' ', (size_t)buf_len - n);
}

int pmtracestate_(int *code)
{
	return pmtracestate(*code);
}
