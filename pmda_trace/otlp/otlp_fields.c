/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of otlp_fields.h, and its lookups.
 */
#include <string.h>

#include "otlp_fields.h"

#define OTLP_NUMBER_MAX	16	/* the highest field number in the lists */

enum {
#define OTLP_X(type, wire) OTLP_WIRE_##type = wire,
	OTLP_TYPES(OTLP_X)
#undef OTLP_X
};

const struct otlp_field_desc otlp_fields[OTLP_F_N] = {
#define OTLP_X(m, name, num, t, c, j, alt) \
	[OTLP_F_##m##_##name] = { .msg = OTLP_M_##m, .child = OTLP_M_##c, .number = num, \
		.type = OTLP_T_##t, .wire = OTLP_WIRE_##t, .json = j, .json_alt = alt },
	OTLP_FIELDS(OTLP_X)
#undef OTLP_X
};

/* Field number to field + 1 (0: none), per message. */
static const unsigned char otlp_by_number[OTLP_M_N][OTLP_NUMBER_MAX + 1] = {
#define OTLP_X(m, name, num, t, c, j, alt) [OTLP_M_##m][num] = OTLP_F_##m##_##name + 1,
	OTLP_FIELDS(OTLP_X)
#undef OTLP_X
};

_Static_assert(OTLP_F_N < 255, "otlp_by_number holds a field + 1 in a byte");

enum otlp_field otlp_field_find(enum otlp_msg msg, unsigned number)
{
	if ((unsigned)msg >= OTLP_M_N || number > OTLP_NUMBER_MAX ||
	    otlp_by_number[msg][number] == 0)
		return OTLP_F_N;
	return (enum otlp_field)(otlp_by_number[msg][number] - 1);
}

enum otlp_field otlp_field_json(enum otlp_msg msg, const char *name, size_t len)
{
	for (unsigned f = 0; f < OTLP_F_N; f++) {
		const struct otlp_field_desc *d = &otlp_fields[f];

		if (d->msg != msg)
			continue;
		if ((strlen(d->json) == len && memcmp(d->json, name, len) == 0) ||
		    (d->json_alt != NULL && strlen(d->json_alt) == len &&
		     memcmp(d->json_alt, name, len) == 0))
			return (enum otlp_field)f;
	}
	return OTLP_F_N;
}
