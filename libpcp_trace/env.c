/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The PCP_TRACE_* environment variables (pmdatrace(3)). */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace_priv.h"

#define DEFAULT_TIMEOUT		3.0
#define DEFAULT_REQTIMEOUT	10.0
#define MAX_BACKOFF		32

const char *trace__env_host(char *buf, size_t size)
{
	const char *host = getenv(TRACE_ENV_HOST);

	if (host != NULL && *host != '\0')
		return host;
	if (gethostname(buf, size) < 0)
		return "localhost";
	buf[size - 1] = '\0';
	return buf;
}

/* whole string, C base auto-detection (0x37f3, 010), as PCP's library */
int trace__env_port(void)
{
	const char *s = getenv(TRACE_ENV_PORT);
	char *end;
	long v;

	if (s == NULL)
		return TRACE_PORT;
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end != '\0' || v < 0 || v > 65535) {
		fputs("trace warning: bad PCP_TRACE_PORT ignored.\n", stderr);
		return TRACE_PORT;
	}
	return (int)v;
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !(v >= 0.0) || v > 1e6)
		return -1;
	*out = v;
	return 0;
}

double trace__env_timeout(void)
{
	const char *s = getenv(TRACE_ENV_TIMEOUT);
	double v = DEFAULT_TIMEOUT;

	if (s != NULL && parse_seconds(s, &v) < 0) {
		fputs("trace warning: bogus PCP_TRACE_TIMEOUT.\n", stderr);
		v = DEFAULT_TIMEOUT;
	}
	return v;
}

/*
 * Read at each use (cheap) rather than cached, so tests and long-lived
 * programs see changes; a bad value falls back to the default instead of
 * disabling acknowledgements as PCP's library does.
 */
double trace__env_reqtimeout(void)
{
	const char *s = getenv(TRACE_ENV_REQTIMEOUT);
	double v = DEFAULT_REQTIMEOUT;

	if (s != NULL && parse_seconds(s, &v) < 0) {
		fputs("trace warning: bogus PCP_TRACE_REQTIMEOUT.\n", stderr);
		v = DEFAULT_REQTIMEOUT;
	}
	return v;
}

static int backoff[MAX_BACKOFF] = { 5, 10, 20, 40, 80 };
static int nbackoff = 5;
static pthread_once_t backoff_once = PTHREAD_ONCE_INIT;

/* "5,10,20": positive integers; anything else keeps the defaults */
static void backoff_parse(void)
{
	const char *s = getenv(TRACE_ENV_RECTIMEOUT);
	int list[MAX_BACKOFF], n = 0;
	char *end;
	long v;

	if (s == NULL)
		return;
	while (*s != '\0' && n < MAX_BACKOFF) {
		errno = 0;
		v = strtol(s, &end, 10);
		if (errno || end == s || v <= 0 || v > 86400 ||
		    (*end != ',' && *end != '\0'))
			return;
		list[n++] = (int)v;
		s = *end == ',' ? end + 1 : end;
	}
	if (n == 0)
		return;
	memcpy(backoff, list, sizeof(list[0]) * (size_t)n);
	nbackoff = n;
}

/* seconds to wait after the attempt-th consecutive failure (from 0) */
int trace__env_backoff(int attempt)
{
	pthread_once(&backoff_once, backoff_parse);
	if (attempt >= nbackoff)
		attempt = nbackoff - 1;
	return backoff[attempt < 0 ? 0 : attempt];
}

int trace__env_noagent(void)
{
	return getenv(TRACE_ENV_NOAGENT) != NULL;
}

/* PCP_TRACE_SHM=0: keep to PDUs even with our agent on this host. */
int trace__env_shm(void)
{
	const char *s = getenv(TRACE_ENV_SHM);

	return s == NULL || strcmp(s, "0") != 0;
}
