/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * json_check.c - a small strict JSON validator: recursive descent over a
 * bounded buffer, no allocation, depth capped.
 */
#include <stdbool.h>
#include <string.h>

#include "json_check.h"
#include "pcp_compat.h"

#define JSON_MAX_DEPTH	32
#define JSON_MAX_KEYS	64	/* per map; a 243-byte payload holds fewer */

struct json {
	const char *p, *end;
	int depth;
	bool label_keys;	/* keys must be label names */
};

/* ASCII only: the locale of the calling process must not matter. */
static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static void skip_ws(struct json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static bool take(struct json *j, char c)
{
	skip_ws(j);
	if (j->p < j->end && *j->p == c) {
		j->p++;
		return true;
	}
	return false;
}

static bool parse_value(struct json *j);

static bool parse_string(struct json *j)
{
	if (j->p >= j->end || *j->p != '"')
		return false;
	for (j->p++; j->p < j->end; j->p++) {
		unsigned char c = (unsigned char)*j->p;

		if (c == '"') {
			j->p++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c != '\\')
			continue;
		if (++j->p >= j->end)
			return false;
		if (*j->p == 'u') {
			for (int i = 0; i < 4; i++)
				if (++j->p >= j->end || !is_hex(*j->p))
					return false;
		} else if (strchr("\"\\/bfnrt", *j->p) == NULL || *j->p == '\0') {
			return false;
		}
	}
	return false;
}

static bool digits(struct json *j)
{
	const char *s = j->p;

	while (j->p < j->end && is_digit(*j->p))
		j->p++;
	return j->p > s;
}

static bool parse_number(struct json *j)
{
	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p < j->end && *j->p == '0')
		j->p++;
	else if (!digits(j))
		return false;
	if (j->p < j->end && *j->p == '.') {
		j->p++;
		if (!digits(j))
			return false;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return false;
	}
	return true;
}

static bool parse_word(struct json *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return false;
	j->p += n;
	return true;
}

/*
 * A key as PCP's label parser checks it: the raw text between quotes.
 * PCP 7 lets a name begin with a digit or '_' too; PCP 6 only a letter.
 */
static bool label_name(const char *s, size_t len)
{
#ifdef SDK_PCP7
	if (len == 0 || !(is_letter(s[0]) || is_digit(s[0]) || s[0] == '_'))
		return false;
#else
	if (len == 0 || !is_letter(s[0]))
		return false;
#endif
	for (size_t i = 1; i < len; i++)
		if (!is_letter(s[i]) && !is_digit(s[i]) && s[i] != '_')
			return false;
	return true;
}

struct keys {
	const char *start[JSON_MAX_KEYS];
	size_t len[JSON_MAX_KEYS];
	int n;
};

/* Record the key just parsed (quotes included); false if repeated. */
static bool new_key(struct json *j, struct keys *k, const char *start,
		size_t len)
{
	if (j->label_keys && !label_name(start + 1, len - 2))
		return false;
	for (int i = 0; i < k->n; i++)
		if (k->len[i] == len && memcmp(k->start[i], start, len) == 0)
			return false;
	if (k->n == JSON_MAX_KEYS)
		return false;
	k->start[k->n] = start;
	k->len[k->n++] = len;
	return true;
}

static bool parse_container(struct json *j, char close, bool is_map)
{
	struct keys keys = { .n = 0 };

	if (++j->depth > JSON_MAX_DEPTH)
		return false;
	j->p++;
	if (take(j, close)) {
		j->depth--;
		return true;
	}
	do {
		skip_ws(j);
		if (is_map) {
			const char *key = j->p;

			if (!parse_string(j) ||
			    !new_key(j, &keys, key, (size_t)(j->p - key)) ||
			    !take(j, ':'))
				return false;
		}
		if (!parse_value(j))
			return false;
	} while (take(j, ','));
	j->depth--;
	return take(j, close);
}

static bool parse_value(struct json *j)
{
	skip_ws(j);
	if (j->p >= j->end)
		return false;
	switch (*j->p) {
	case '{':
		return parse_container(j, '}', true);
	case '[':
		return parse_container(j, ']', false);
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

static bool whole(struct json *j)
{
	if (!parse_value(j))
		return false;
	skip_ws(j);
	return j->p == j->end;
}

int sdk_json_value_valid(const char *text, size_t len)
{
	struct json j = { text, text + len, 0, false };

	return whole(&j);
}

int sdk_json_label_set_valid(const char *text, size_t len)
{
	struct json j = { text, text + len, 0, true };

	skip_ws(&j);
	if (j.p == j.end || *j.p != '{')
		return 0;
	/* "{}" parses but gives no label */
	if (take(&j, '{') && take(&j, '}'))
		return 0;
	j.p = text;
	return whole(&j);
}
