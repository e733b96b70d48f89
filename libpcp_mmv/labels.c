/*
 * Label records: name and value checks (spec 4.7), then the payload
 * {"name":value}, which must be valid JSON since pmcd hands it on to every
 * client. PCP's library has PCP's label parser do the final check; here a
 * small strict JSON validator does it, so the library needs no libpcp.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"

struct json {
	const char *p, *end;
	int depth;
};

#define JSON_MAX_DEPTH 32

static void skip_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int json_accept(struct json *j, char c)
{
	skip_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return 1;
	}
	return 0;
}

static int parse_value(struct json *j);

static int parse_string(struct json *j)
{
	if (j->p >= j->end || *j->p != '"')
		return 0;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"') {
			j->p++;
			return 1;
		}
		if (c < 0x20)
			return 0;
		if (c != '\\')
			continue;
		if (++j->p >= j->end)
			return 0;
		if (*j->p == 'u') {
			for (int i = 0; i < 4; i++)
				if (++j->p >= j->end || !isxdigit((unsigned char)*j->p))
					return 0;
		} else if (!strchr("\"\\/bfnrt", *j->p)) {
			return 0;
		}
	}
	return 0;
}

static int digits(struct json *j)
{
	const char *s = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p > s;
}

static int parse_number(struct json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!digits(j))
		return 0;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digits(j))
			return 0;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return 0;
	}
	return 1;
}

static int parse_word(struct json *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return 0;
	j->p += n;
	return 1;
}

/* Keys of one map seen so far: a payload of 243 bytes holds few. */
struct keys {
	const char *start[MMV_LABELMAX / 4];
	size_t len[MMV_LABELMAX / 4];
	int n;
};

/* Record the key just parsed; 0 if the map already has it (PCP refuses). */
static int new_key(struct keys *k, const char *start, size_t len)
{
	for (int i = 0; i < k->n; i++)
		if (k->len[i] == len && memcmp(k->start[i], start, len) == 0)
			return 0;
	if (k->n == (int)(sizeof(k->len) / sizeof(k->len[0])))
		return 0;
	k->start[k->n] = start;
	k->len[k->n++] = len;
	return 1;
}

static int parse_container(struct json *j, char close, int is_map)
{
	struct keys keys = { .n = 0 };

	if (++j->depth > JSON_MAX_DEPTH)
		return 0;
	j->p++;
	if (json_accept(j, close)) {
		j->depth--;
		return 1;
	}
	do {
		skip_ws(j);
		if (is_map) {
			const char *key = j->p;

			if (!parse_string(j) || !new_key(&keys, key, (size_t)(j->p - key)) ||
			    !json_accept(j, ':'))
				return 0;
		}
		if (!parse_value(j))
			return 0;
	} while (json_accept(j, ','));
	j->depth--;
	return json_accept(j, close);
}

static int parse_value(struct json *j)
{
	skip_ws(j);
	if (j->p >= j->end)
		return 0;
	switch (*j->p) {
	case '{':
		return parse_container(j, '}', 1);
	case '[':
		return parse_container(j, ']', 0);
	case '"':
		return parse_string(j);
	case 't':
		return parse_word(j, "true");
	case 'f':
		return parse_word(j, "false");
	case 'n':
		return parse_word(j, "null");
	default:
		return parse_number(j);
	}
}

/* 1 if text[0..len) is exactly one JSON value (white space around allowed). */
int mmv_json_valid(const char *text, size_t len)
{
	struct json j = { text, text + len, 0 };

	if (!parse_value(&j))
		return 0;
	skip_ws(&j);
	return j.p == j.end;
}

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

/* PCP's shape checks by type (spec 4.7 step 4); JSON validity comes later. */
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

int mmv_label_make(mmv_disk_label_t *out, uint32_t flags, uint32_t identity,
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
	if (!mmv_json_valid(value, vlen))
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
	return 0;
}
