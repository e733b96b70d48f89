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

/* ---- JSON names, hashed ---- */

#define OTLP_HASH_SIZE	256	/* over twice the names: short probes */

/* A slot of the hash: a field's name, either of its two. */
struct otlp_name_slot {
	const char *name;	/* NULL: empty */
	unsigned char len, field, alt;
};

static struct otlp_name_slot otlp_by_name[OTLP_HASH_SIZE];
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

static void otlp_name_put(enum otlp_field f, const char *name, int alt)
{
	unsigned h = otlp_name_hash(otlp_fields[f].msg, name, strlen(name));

	while (otlp_by_name[h].name != NULL)
		h = (h + 1) % OTLP_HASH_SIZE;
	otlp_by_name[h] = (struct otlp_name_slot){ .name = name, .len = (unsigned char)strlen(name),
						   .field = (unsigned char)f, .alt = (unsigned char)alt };
}

static void otlp_by_name_build(void)
{
	for (unsigned f = 0; f < OTLP_F_N; f++) {
		otlp_name_put((enum otlp_field)f, otlp_fields[f].json, 0);
		if (otlp_fields[f].json_alt != NULL)
			otlp_name_put((enum otlp_field)f, otlp_fields[f].json_alt, 1);
	}
}

enum otlp_field otlp_field_json(enum otlp_msg msg, const char *name, size_t len, int *alt)
{
	const struct otlp_name_slot *e;

	*alt = 0;
	pthread_once(&otlp_by_name_once, otlp_by_name_build);
	for (unsigned h = otlp_name_hash(msg, name, len); (e = &otlp_by_name[h])->name != NULL;
	     h = (h + 1) % OTLP_HASH_SIZE) {
		if (e->len == len && otlp_fields[e->field].msg == msg && memcmp(e->name, name, len) == 0) {
			*alt = e->alt;
			return (enum otlp_field)e->field;
		}
	}
	return OTLP_F_N;	/* a name with a NUL in it too: no field's has one */
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
