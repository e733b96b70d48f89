/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The table of otlp_fields.h, and its lookups: by number, a table built
 * by the compiler; by JSON name, a hash of both names built once
 * (pthread_once), probed linearly.
 */
#include <pthread.h>
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

/* ---- JSON names, hashed ---- */

#define OTLP_HASH_SIZE	256	/* over twice the names: short probes */

static unsigned char otlp_by_name[OTLP_HASH_SIZE];	/* field + 1, 0: empty */
static pthread_once_t otlp_by_name_once = PTHREAD_ONCE_INIT;

_Static_assert(2 * OTLP_F_N < OTLP_HASH_SIZE / 2, "the name hash stays under half full");

static unsigned otlp_name_hash(enum otlp_msg msg, const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	unsigned h = (unsigned)msg * 131u + (unsigned)len * 31u;

	if (len > 0)
		h += s[0] + 7u * s[len / 2] + 13u * s[len - 1];
	return h % OTLP_HASH_SIZE;
}

static void otlp_name_put(enum otlp_field f, const char *name)
{
	unsigned h = otlp_name_hash(otlp_fields[f].msg, name, strlen(name));

	while (otlp_by_name[h] != 0)
		h = (h + 1) % OTLP_HASH_SIZE;
	otlp_by_name[h] = (unsigned char)(f + 1);
}

static void otlp_by_name_build(void)
{
	for (unsigned f = 0; f < OTLP_F_N; f++) {
		otlp_name_put((enum otlp_field)f, otlp_fields[f].json);
		if (otlp_fields[f].json_alt != NULL)
			otlp_name_put((enum otlp_field)f, otlp_fields[f].json_alt);
	}
}

static int otlp_name_is(const char *s, const char *name, size_t len)
{
	return s != NULL && strncmp(s, name, len) == 0 && s[len] == '\0';
}

enum otlp_field otlp_field_json_alt(enum otlp_msg msg, const char *name, size_t len, int *alt)
{
	unsigned h;

	*alt = 0;
	if (memchr(name, '\0', len) != NULL)
		return OTLP_F_N;	/* no field's name holds a NUL */
	pthread_once(&otlp_by_name_once, otlp_by_name_build);
	for (h = otlp_name_hash(msg, name, len); otlp_by_name[h] != 0; h = (h + 1) % OTLP_HASH_SIZE) {
		const struct otlp_field_desc *d = &otlp_fields[otlp_by_name[h] - 1];

		if (d->msg != msg)
			continue;
		if (otlp_name_is(d->json, name, len) || otlp_name_is(d->json_alt, name, len)) {
			*alt = !otlp_name_is(d->json, name, len);
			return (enum otlp_field)(otlp_by_name[h] - 1);
		}
	}
	return OTLP_F_N;
}

int otlp_enum_json(enum otlp_field f, const char *name, size_t len, int64_t *v)
{
	static const struct { enum otlp_field f; int64_t v; const char *name; } names[] = {
#define OTLP_X(m, fname, num, j) { OTLP_F_##m##_##fname, num, j },
		OTLP_ENUMS(OTLP_X)
#undef OTLP_X
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (names[i].f == f && strlen(names[i].name) == len &&
		    memcmp(names[i].name, name, len) == 0) {
			*v = names[i].v;
			return 0;
		}
	}
	return -1;
}
