/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * utf8.h - UTF-8 text as the libraries and agents handle it, one helper
 * per job: the length of one well-formed sequence, a cut at a character
 * boundary, a copy with the bytes that are not UTF-8 replaced, and the
 * one JSON string escaper (label values, OTLP answers).
 *
 * "Well-formed" is RFC 3629's: no overlong forms, no surrogates, nothing
 * above U+10FFFF, no sequence cut short.
 *
 * Threads: reentrant, no state.
 */
#ifndef SDK_UTF8_H
#define SDK_UTF8_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SDK_UTF8_REPLACEMENT	"\xef\xbf\xbd"	/* U+FFFD, 3 bytes */

/*
 * sdk_utf8_len - the length (1 to 4) of the well-formed UTF-8 sequence at
 * @s, @n bytes left (at least 1), and its code point in *@cp. Returns 0,
 * *@cp undefined, if the bytes there are not one.
 */
static inline size_t sdk_utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned char b = s[0], lo = 0x80, hi = 0xbf;
	size_t len;

	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	if (b >= 0xc2 && b <= 0xdf) {
		len = 2;
		*cp = b & 0x1f;
	} else if (b >= 0xe0 && b <= 0xef) {
		len = 3;
		*cp = b & 0x0f;
		if (b == 0xe0)
			lo = 0xa0;	/* overlong below */
		else if (b == 0xed)
			hi = 0x9f;	/* surrogates above */
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4;
		*cp = b & 0x07;
		if (b == 0xf0)
			lo = 0x90;	/* overlong below */
		else if (b == 0xf4)
			hi = 0x8f;	/* over U+10FFFF above */
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (s[i] < lo || s[i] > hi)
			return 0;
		lo = 0x80;
		hi = 0xbf;
		*cp = (*cp << 6) | (s[i] & 0x3f);
	}
	return len;
}

/*
 * sdk_utf8_cut - the length of the longest prefix of @s (@n bytes, NUL
 * not needed) that is at most @max bytes and ends at a character
 * boundary: @n itself when @n <= @max, otherwise never splitting a
 * well-formed sequence. Bytes are never changed: a byte that does not
 * start a well-formed sequence counts as a character of one byte, so it
 * may be kept, and a caller that needs valid UTF-8 out cleans the text
 * first (sdk_utf8_clean). Returns 0 for @max 0 or a first character
 * longer than @max.
 */
static inline size_t sdk_utf8_cut(const char *s, size_t n, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, len;
	uint32_t cp;

	if (n <= max)
		return n;
	while (i < max) {
		len = sdk_utf8_len(u + i, n - i, &cp);
		if (len == 0)
			len = 1;
		if (i + len > max)
			break;
		i += len;
	}
	return i;
}

/*
 * sdk_utf8_clean - the NUL-terminated @s into @dst of @size (at least 1)
 * with each byte that does not start a well-formed sequence replaced by
 * U+FFFD, cut at a character boundary where @dst is full (3 bytes a byte
 * of @s and 1 more always do). Returns the length written.
 */
static inline size_t sdk_utf8_clean(char *dst, size_t size, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, i = 0, len, o = 0;
	uint32_t cp;

	while (u[n] != '\0')
		n++;
	while (i < n) {
		const char *from = s + i;
		size_t out;

		if ((len = sdk_utf8_len(u + i, n - i, &cp)) == 0) {
			from = SDK_UTF8_REPLACEMENT;
			out = 3;
			len = 1;
		} else {
			out = len;
		}
		if (o + out + 1 > size)
			break;
		for (size_t k = 0; k < out; k++)
			dst[o + k] = from[k];
		o += out;
		i += len;
	}
	dst[o] = '\0';
	return o;
}

/*
 * sdk_json_string - the NUL-terminated @s as a JSON string, quotes
 * included, NUL-terminated, into @buf of @size: '"' and '\' escaped with
 * a backslash, control characters U+0000 to U+001F as \u00XX, each byte
 * that does not start a well-formed UTF-8 sequence as U+FFFD, everything
 * else as it is. Returns the length (without the NUL), or -1 if it does
 * not fit (6 bytes a byte of @s and 3 more always do); @buf is then
 * unspecified.
 */
static inline int sdk_json_string(char *buf, size_t size, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = 0, i = 0, o = 0, len, out;
	char esc[8];
	uint32_t cp;

	while (u[n] != '\0')
		n++;
	if (size < 3)
		return -1;
	buf[o++] = '"';
	while (i < n) {
		const char *from = esc;

		len = sdk_utf8_len(u + i, n - i, &cp);
		if (len == 0) {
			from = SDK_UTF8_REPLACEMENT;
			out = 3;
			len = 1;
		} else if (cp == '"' || cp == '\\') {
			esc[0] = '\\';
			esc[1] = (char)cp;
			out = 2;
		} else if (cp < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
			out = 6;
		} else {
			from = s + i;
			out = len;
		}
		if (o + out + 2 > size)	/* and the closing quote, the NUL */
			return -1;
		for (size_t k = 0; k < out; k++)
			buf[o + k] = from[k];
		o += out;
		i += len;
	}
	buf[o++] = '"';
	buf[o] = '\0';
	return o > INT_MAX ? -1 : (int)o;
}

#endif
