/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * label_text.h - the text of the cumulative "le" buckets both agents
 * export for Prometheus (docs/mmv-format.md §9.8, docs/trace-protocol.md
 * §8.8): a bound as instance name and label value, and a one-label JSON
 * set (its value through utf8.h's sdk_json_string), so the agents and
 * libpcp_mmv write them the same way.
 */
#ifndef LABEL_TEXT_H
#define LABEL_TEXT_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "utf8.h"

/*
 * sdk_le_text - @bound in the fewest significant digits (but all those
 * before the point) that read back as the same double: "0.00125", "10",
 * "9.5367431640625e-07", not "0.0012500000000000001" or "1e+01";
 * "+Inf" for +infinity (Prometheus's spelling), into @buf of @size (32 is
 * always enough). Returns @buf.
 */
static inline char *sdk_le_text(double bound, char *buf, size_t size)
{
	if (isinf(bound) && bound > 0) {
		snprintf(buf, size, "+Inf");
		return buf;
	}
	/* at least the digits before the point: 10, not 1e+01 */
	int digits = 1;

	for (double x = bound < 0 ? -bound : bound; x >= 10 && digits < 17; x /= 10)
		digits++;
	for (; digits <= 17; digits++) {
		snprintf(buf, size, "%.*g", digits, bound);
		if (strtod(buf, NULL) == bound)
			break;
	}
	return buf;
}

/*
 * sdk_json_label - the label set {"@key":@value as sdk_json_string} into
 * @buf of @size. Returns its length, or -1 if it does not fit: 6 bytes a
 * byte of @value and the key's length plus 8 always do.
 */
static inline int sdk_json_label(char *buf, size_t size, const char *key, const char *value)
{
	int n = snprintf(buf, size, "{\"%s\":", key), v;

	if (n < 0 || (size_t)n >= size)
		return -1;
	if ((v = sdk_json_string(buf + n, size - (size_t)n, value)) < 0 ||
	    (size_t)(n + v) + 2 > size)
		return -1;
	buf[n + v] = '}';
	buf[n + v + 1] = '\0';
	return n + v + 1;
}

#endif
