/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the OTLP decoder's files share and its tests may call: UTF-8
 * checking (common/utf8.h) and the name cleaning of otlp.h.
 *
 * Threads: reentrant, no state.
 */
#ifndef OTLP_PRIV_H
#define OTLP_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "utf8.h"

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
