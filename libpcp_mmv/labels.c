/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Label records: name and value checks (docs/mmv-format.md §10.3), then the payload
 * {"name":value}, which must be valid JSON since pmcd hands it on to every
 * client. PCP's library has PCP's label parser do the final check; here a
 * small strict JSON validator (common/json_check.c) does it, so the
 * library needs no libpcp.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "json_check.h"
#include "mmv_priv.h"
#include "pcp_compat.h"

static int valid_label_name(const char *name)
{
	if (!isalpha((unsigned char)name[0]))
		return 0;
	for (const char *p = name + 1; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return 0;
	return 1;
}

static int bracketed(const char *v, size_t n, char open, char close)
{
	return n >= 2 && v[0] == open && v[n - 1] == close;
}

/* PCP's shape checks by type (docs/mmv-format.md §10.3); JSON validity comes later. */
static int value_matches_type(const char *value, size_t n, mmv_value_type_t type)
{
	char *end;

	switch (type) {
	case MMV_NULL_TYPE:
		return 1;
	case MMV_BOOLEAN_TYPE:
		return strcmp(value, "true") == 0 || strcmp(value, "false") == 0;
	case MMV_MAP_TYPE:
		return bracketed(value, n, '{', '}');
	case MMV_ARRAY_TYPE:
		return bracketed(value, n, '[', ']');
	case MMV_STRING_TYPE:
		return bracketed(value, n, '"', '"');
	case MMV_NUMBER_TYPE:
		if (n == 0)
			return 0;
		strtod(value, &end);
		return *end == '\0';
	default:
		return 0;
	}
}

int mmv__label_make(mmv_disk_label_t *out, uint32_t flags, uint32_t identity,
		int32_t internal, const char *name, const char *value,
		mmv_value_type_t type, int optional)
{
	size_t nlen, vlen, plen;

	if (name == NULL || value == NULL)
		return EINVAL;
	nlen = strlen(name);
	vlen = strlen(value);
	/* {"name":value} and its NUL must fit; PCP cuts the '}' at 239 */
	if (nlen + vlen + 6 > MMV_LABELMAX)
		return E2BIG;
	if (!valid_label_name(name) || !value_matches_type(value, vlen, type))
		return EINVAL;
	if (type == MMV_NULL_TYPE) {
		value = "null";
		vlen = 4;
		/* the length check above measured the caller's value */
		if (nlen + vlen + 6 > MMV_LABELMAX)
			return E2BIG;
	}
	/* a number strtod accepts may still not be JSON (0x10, inf, 1.) */
	if (!sdk_json_value_valid(value, vlen))
		return EINVAL;

	memset(out, 0, sizeof(*out));	/* PCP leaves heap garbage after the NUL */
	out->flags = flags | (optional ? PM_LABEL_OPTIONAL : 0);
	out->identity = identity;
	out->internal = internal;
	plen = 0;
	out->payload[plen++] = '{';
	out->payload[plen++] = '"';
	memcpy(out->payload + plen, name, nlen);
	plen += nlen;
	out->payload[plen++] = '"';
	out->payload[plen++] = ':';
	memcpy(out->payload + plen, value, vlen);
	plen += vlen;
	out->payload[plen] = '}';
#ifndef SDK_PCP7
	/* PCP 6 parses the whole set: keys inside a value are label names too */
	if (!sdk_json_label_set_valid(out->payload, plen + 1))
		return EINVAL;
#endif
	return 0;
}
