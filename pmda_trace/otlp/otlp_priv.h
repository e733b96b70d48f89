/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the OTLP decoder's files share and its tests may call: UTF-8
 * checking and the name cleaning of otlp.h.
 *
 * Threads: reentrant, no state.
 */
#ifndef OTLP_PRIV_H
#define OTLP_PRIV_H

#include <stddef.h>
#include <stdint.h>

/*
 * otlp_utf8_len - the length (1 to 4) of the well-formed UTF-8 sequence
 * at @s (@n bytes left), and its code point in *@cp; 0 if the bytes there
 * are not one (overlong forms, surrogates, above U+10FFFF, cut short).
 */
static inline size_t otlp_utf8_len(const unsigned char *s, size_t n, uint32_t *cp)
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
			lo = 0xa0;
		else if (b == 0xed)
			hi = 0x9f;
	} else if (b >= 0xf0 && b <= 0xf4) {
		len = 4;
		*cp = b & 0x07;
		if (b == 0xf0)
			lo = 0x90;
		else if (b == 0xf4)
			hi = 0x8f;
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
 * otlp_clean_name - @len bytes of @src made safe as otlp.h says, into
 * @dst (OTLP_NAME_MAX + 1 bytes), NUL-terminated: a byte that does not
 * start a well-formed UTF-8 sequence becomes U+FFFD, a control character
 * (C0, DEL, C1, including NUL) '?'; the result is cut before the first
 * character that would take it over OTLP_NAME_MAX bytes. An empty
 * result is @dflt ("" for NULL). Returns @dst.
 */
char *otlp_clean_name(char *dst, const char *src, size_t len, const char *dflt);

#endif
