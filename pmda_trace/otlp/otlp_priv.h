/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the OTLP decoder's files share and its tests may call: UTF-8
 * checking (common/utf8.h), the name cleaning of otlp.h and the report
 * of one span that every walker ends in.
 *
 * Threads: reentrant, no state.
 */
#ifndef OTLP_PRIV_H
#define OTLP_PRIV_H

#include <stddef.h>
#include <stdint.h>

#include "otlp.h"
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

/* One request's decoding: the caller's callback and result, the resource's names. */
struct otlp_ctx {
	otlp_span_fn fn;
	void *arg;
	struct otlp_result *res;
	char service[OTLP_NAME_MAX + 1];
	char ns[OTLP_NAME_MAX + 1];	/* "" without one */
};

/*
 * otlp_span_out - one span of either encoding, as read (@name not yet
 * cleaned, @kind and @status as sent): checked, cleaned and reported to
 * c->fn with c's service and namespace, or refused (otlp_refuse: counted
 * in c->res by reason, the first refusal's message kept).
 */
void otlp_span_out(struct otlp_ctx *c, const char *name, size_t namelen, int64_t kind,
		   int64_t status, uint64_t start, uint64_t end);
void otlp_refuse(struct otlp_ctx *c, const char *name, enum otlp_reject why);

#endif
