/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* PCP configuration variables without libpcp (pcp_conf.h says in which order). */
#include "pcp_conf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int copy_value(const char *value, char *buf, size_t len)
{
	size_t n = strlen(value);

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, value, n + 1);
	return 0;
}

/* Strip one pair of surrounding quotes and trailing white space in place. */
static char *clean_value(char *v)
{
	size_t n = strlen(v);

	while (n > 0 && (v[n - 1] == '\n' || v[n - 1] == '\r' ||
			 v[n - 1] == ' ' || v[n - 1] == '\t'))
		v[--n] = '\0';
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v[n - 1] = '\0';
		v++;
	}
	return v;
}

/* Look @name up in one pcp.conf; 1 found, 0 not there, -1 unreadable. */
static int scan_conf(const char *path, const char *name, char *buf, size_t len,
		     int *err)
{
	FILE *f = fopen(path, "re");
	char line[4096];
	size_t nlen = strlen(name);
	int found = 0;

	if (f == NULL)
		return -1;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, name, nlen) != 0 || line[nlen] != '=')
			continue;
		*err = copy_value(clean_value(line + nlen + 1), buf, len);
		found = 1;
	}
	fclose(f);
	return found;
}

int sdk_pcp_conf_get(const char *name, const char *fallback, char *buf, size_t len)
{
	const char *env = getenv(name);
	char path[4096];
	const char *candidates[4];
	int n = 0, err = 0;

	if (env != NULL)
		return copy_value(env, buf, len);

	if ((env = getenv("PCP_CONF")) != NULL)
		candidates[n++] = env;
	if ((env = getenv("PCP_DIR")) != NULL &&
	    snprintf(path, sizeof(path), "%s/etc/pcp.conf", env) < (int)sizeof(path))
		candidates[n++] = path;
	candidates[n++] = "/etc/pcp.conf";
	candidates[n++] = "/usr/local/etc/pcp.conf";

	for (int i = 0; i < n; i++) {
		int r = scan_conf(candidates[i], name, buf, len, &err);

		if (r == 1)
			return err;
		if (r == 0)
			break;	/* the first readable file is authoritative */
	}
	return copy_value(fallback ? fallback : "", buf, len);
}

int sdk_pcp_conf_tmp_dir(char *buf, size_t len)
{
	return sdk_pcp_conf_get("PCP_TMP_DIR", "/var/lib/pcp/tmp", buf, len);
}
