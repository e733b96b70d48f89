/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * OTLP JSON to protobuf-c messages (pbc.h, otlp_pbc_from_json): a json-c
 * tree walked along protobuf-c's descriptors, each member made into the
 * field protobuf-c's unpack would have set, in the caller's arena. One
 * function per job: a member's field, an integer, a double, bytes, a
 * singular value, a repeated one, a message.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "otlp.h"
#include "pbc.h"
#include "parse_number.h"

/* One conversion: the arena, the AnyValue type and how deep in it we are, the reason. */
struct pbj {
	struct otlp_arena *a;
	const ProtobufCMessageDescriptor *any;
	int anys;
	char *why;
	size_t whylen;
};

/* A field's place in messages, for reasons: "Message.field". */
#define PBJ_BAD(j, d, f, what) \
	(snprintf((j)->why, (j)->whylen, "JSON: %s.%s %s", (d)->short_name, (f)->name, (what)), \
	 -EBADMSG)

static int pbj_nomem(struct pbj *j)
{
	snprintf(j->why, j->whylen, "request over the decoder's memory budget");
	return -ENOMEM;
}

/* ---- members to fields ---- */

/* Whether @key is @name in lowerCamelCase (protobuf's JSON name: no '_', the letter after one upper case). */
static bool pbj_camel_is(const char *name, const char *key)
{
	bool up = false;

	for (; *name != '\0'; name++) {
		char ch = *name;

		if (ch == '_') {
			up = true;
			continue;
		}
		if (up && ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		up = false;
		if (*key++ != ch)
			return false;
	}
	return *key == '\0';
}

/* @name in lowerCamelCase into @buf of @size (field names are short; cut if not). */
static void pbj_camel(const char *name, char *buf, size_t size)
{
	size_t o = 0;
	bool up = false;

	for (; *name != '\0' && o + 1 < size; name++) {
		if (*name == '_') {
			up = true;
			continue;
		}
		buf[o++] = up && *name >= 'a' && *name <= 'z' ? (char)(*name - 'a' + 'A') : *name;
		up = false;
	}
	buf[o] = '\0';
}

/*
 * The field of @d member @key stands for, NULL for none; *@alt when @key
 * is its proto name and that differs from its camelCase one.
 */
static const ProtobufCFieldDescriptor *pbj_field(const ProtobufCMessageDescriptor *d,
						 const char *key, bool *alt)
{
	const ProtobufCFieldDescriptor *f = protobuf_c_message_descriptor_get_field_by_name(d, key);

	*alt = false;
	if (f != NULL) {
		*alt = strchr(f->name, '_') != NULL;
		return f;
	}
	for (unsigned i = 0; i < d->n_fields; i++)
		if (pbj_camel_is(d->fields[i].name, key))
			return &d->fields[i];
	return NULL;
}

/* ---- scalars ---- */

/* An integer as sign and magnitude: a JSON integer, an integral number or a decimal string. */
static bool pbj_integer(json_object *v, bool *neg, uint64_t *mag)
{
	const char *s;
	double x;

	*neg = false;
	*mag = 0;
	switch (json_object_get_type(v)) {
	case json_type_int:
		if (json_object_get_int64(v) < 0) {
			*neg = true;
			*mag = 0 - (uint64_t)json_object_get_int64(v);
		} else {
			*mag = json_object_get_uint64(v);
		}
		return true;
	case json_type_double:	/* integral and in range; no libm: -O0 builds call floor() */
		x = json_object_get_double(v);
		*neg = x < 0;
		x = *neg ? -x : x;
		if (!(x < 18446744073709551616.0) || x != (double)(uint64_t)x)
			return false;	/* NaN fails the first test */
		*mag = (uint64_t)x;
		return true;
	case json_type_string:
		s = json_object_get_string(v);
		if (*s == '-') {
			*neg = true;
			s++;
		}
		if (*s == '\0')
			return false;
		for (; *s != '\0'; s++) {
			if (*s < '0' || *s > '9' || *mag > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
				return false;
			*mag = *mag * 10 + (uint64_t)(*s - '0');
		}
		return true;
	default:
		return false;
	}
}

/* A signed integer in [@lo, @hi] into *@out. */
static bool pbj_signed(json_object *v, int64_t lo, int64_t hi, int64_t *out)
{
	bool neg;
	uint64_t mag;

	if (!pbj_integer(v, &neg, &mag))
		return false;
	if (neg) {
		if (mag > (uint64_t)INT64_MAX + 1 || mag > 0 - (uint64_t)lo)
			return false;
		*out = mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
		return true;
	}
	if (mag > (uint64_t)hi)
		return false;
	*out = (int64_t)mag;
	return true;
}

/* An unsigned integer at most @hi into *@out. */
static bool pbj_unsigned(json_object *v, uint64_t hi, uint64_t *out)
{
	bool neg;
	uint64_t mag;

	if (!pbj_integer(v, &neg, &mag) || (neg && mag != 0) || mag > hi)
		return false;
	*out = mag;
	return true;
}

/* Whether @s is a JSON number, all of it. */
static bool pbj_number_text(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.') {
		if (*++s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E') {
		if (*++s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

/*
 * A double: a finite JSON number (json-c outside its strict mode also
 * takes NaN and Infinity, which are not JSON), or a string: a number,
 * "NaN", "Infinity" or "-Infinity".
 */
static bool pbj_double(json_object *v, double *out)
{
	const char *s;

	switch (json_object_get_type(v)) {
	case json_type_double:
		*out = json_object_get_double(v);
		return isfinite(*out);
	case json_type_int:
		*out = json_object_get_int64(v) < 0 ? (double)json_object_get_int64(v) :
			(double)json_object_get_uint64(v);
		return true;
	case json_type_string:
		s = json_object_get_string(v);
		if (strcmp(s, "NaN") == 0)
			*out = NAN;
		else if (strcmp(s, "Infinity") == 0)
			*out = INFINITY;
		else if (strcmp(s, "-Infinity") == 0)
			*out = -INFINITY;
		else if (!pbj_number_text(s) || !isfinite(*out = strtod(s, NULL)))
			return false;
		return true;
	default:
		return false;
	}
}

/* The value of base64 digit @c (either alphabet), or -1. */
static int pbj_b64(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+' || c == '-')
		return 62;
	if (c == '/' || c == '_')
		return 63;
	return -1;
}

/* Base64 @s (@n bytes) into @out (3 bytes for 4 of @s): the length, or -1. */
static long pbj_base64(const char *s, size_t n, uint8_t *out)
{
	size_t o = 0, k = 0;
	uint32_t acc = 0;

	while (n > 0 && s[n - 1] == '=' && k < 2) {	/* padding: at most two, then a whole quantum */
		n--;
		k++;
	}
	if (k > 0 && (n + k) % 4 != 0)
		return -1;
	if (n % 4 == 1)
		return -1;
	for (size_t i = 0; i < n; i++) {
		int d = pbj_b64(s[i]);

		if (d < 0)
			return -1;
		acc = acc << 6 | (uint32_t)d;
		if (i % 4 == 3) {
			out[o++] = (uint8_t)(acc >> 16);
			out[o++] = (uint8_t)(acc >> 8);
			out[o++] = (uint8_t)acc;
			acc = 0;
		}
	}
	if (n % 4 == 2) {
		out[o++] = (uint8_t)(acc >> 4);
	} else if (n % 4 == 3) {
		out[o++] = (uint8_t)(acc >> 10);
		out[o++] = (uint8_t)(acc >> 2);
	}
	return (long)o;
}

/* Hex @s (@n bytes) into @out: the length, or -1. */
static long pbj_hex_bytes(const char *s, size_t n, uint8_t *out)
{
	if (n % 2 != 0)
		return -1;
	for (size_t i = 0; i < n; i += 2) {
		int hi = sdk_hex_digit(s[i]), lo = sdk_hex_digit(s[i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		out[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(n / 2);
}

/* A bytes field from its string: base64, or hex for an id. */
static int pbj_bytes(struct pbj *j, const ProtobufCMessageDescriptor *d,
		     const ProtobufCFieldDescriptor *f, json_object *v, ProtobufCBinaryData *out)
{
	size_t n, fl = strlen(f->name);
	bool id = fl >= 3 && strcmp(f->name + fl - 3, "_id") == 0;
	const char *s;
	uint8_t *b;
	long got;

	if (!json_object_is_type(v, json_type_string))
		return PBJ_BAD(j, d, f, "is not a string");
	s = json_object_get_string(v);
	n = (size_t)json_object_get_string_len(v);
	out->len = 0;
	out->data = NULL;
	if (n == 0)
		return 0;
	if ((b = otlp_arena_take(j->a, n)) == NULL)
		return pbj_nomem(j);
	got = id ? pbj_hex_bytes(s, n, b) : pbj_base64(s, n, b);
	if (got < 0 && !id)
		return PBJ_BAD(j, d, f, "is not base64");
	if (got > 0) {
		out->len = (size_t)got;
		out->data = b;
	}
	return 0;
}

static int pbj_message(struct pbj *j, json_object *o, const ProtobufCMessageDescriptor *d,
		       ProtobufCMessage **out);

/* One value of field @f (of @d) at @dst, as the field's C type holds it. */
static int pbj_value(struct pbj *j, const ProtobufCMessageDescriptor *d,
		     const ProtobufCFieldDescriptor *f, json_object *v, void *dst)
{
	const ProtobufCEnumValue *ev;
	int64_t i;
	uint64_t u;
	double x;
	char *s;
	size_t n;

	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		if (!pbj_signed(v, INT32_MIN, INT32_MAX, &i))
			return PBJ_BAD(j, d, f, "is not a 32-bit integer");
		*(int32_t *)dst = (int32_t)i;
		return 0;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		if (!pbj_signed(v, INT64_MIN, INT64_MAX, &i))
			return PBJ_BAD(j, d, f, "is not a 64-bit integer");
		*(int64_t *)dst = i;
		return 0;
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
		if (!pbj_unsigned(v, UINT32_MAX, &u))
			return PBJ_BAD(j, d, f, "is not a 32-bit unsigned integer");
		*(uint32_t *)dst = (uint32_t)u;
		return 0;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		if (!pbj_unsigned(v, UINT64_MAX, &u))
			return PBJ_BAD(j, d, f, "is not a 64-bit unsigned integer");
		*(uint64_t *)dst = u;
		return 0;
	case PROTOBUF_C_TYPE_FLOAT:
		if (!pbj_double(v, &x))
			return PBJ_BAD(j, d, f, "is not a number");
		*(float *)dst = (float)x;
		return 0;
	case PROTOBUF_C_TYPE_DOUBLE:
		if (!pbj_double(v, &x))
			return PBJ_BAD(j, d, f, "is not a number");
		*(double *)dst = x;
		return 0;
	case PROTOBUF_C_TYPE_BOOL:
		if (!json_object_is_type(v, json_type_boolean))
			return PBJ_BAD(j, d, f, "is not true or false");
		*(protobuf_c_boolean *)dst = json_object_get_boolean(v) ? 1 : 0;
		return 0;
	case PROTOBUF_C_TYPE_ENUM:
		if (json_object_is_type(v, json_type_string) &&
		    (ev = protobuf_c_enum_descriptor_get_value_by_name(f->descriptor,
								       json_object_get_string(v))) != NULL) {
			*(int *)dst = ev->value;
			return 0;
		}
		if (json_object_is_type(v, json_type_string) || !pbj_signed(v, INT32_MIN, INT32_MAX, &i))
			return PBJ_BAD(j, d, f, "is not a known enum value");
		*(int *)dst = (int)i;
		return 0;
	case PROTOBUF_C_TYPE_STRING:
		if (!json_object_is_type(v, json_type_string))
			return PBJ_BAD(j, d, f, "is not a string");
		n = (size_t)json_object_get_string_len(v);
		if ((s = otlp_arena_take(j->a, n + 1)) == NULL)
			return pbj_nomem(j);
		memcpy(s, json_object_get_string(v), n);	/* a NUL in it ends it, as protobuf-c's */
		*(char **)dst = s;
		return 0;
	case PROTOBUF_C_TYPE_BYTES:
		return pbj_bytes(j, d, f, v, dst);
	case PROTOBUF_C_TYPE_MESSAGE:
		if (!json_object_is_type(v, json_type_object))
			return PBJ_BAD(j, d, f, "is not an object");
		return pbj_message(j, v, f->descriptor, dst);
	default:
		return PBJ_BAD(j, d, f, "has a type this decoder does not know");
	}
}

/* The size of one value of @f's type as protobuf-c holds it in a repeated field. */
static size_t pbj_size(const ProtobufCFieldDescriptor *f)
{
	switch (f->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_FLOAT:
		return 4;
	case PROTOBUF_C_TYPE_ENUM:
		return sizeof(int);
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
	case PROTOBUF_C_TYPE_DOUBLE:
		return 8;
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
		return sizeof(char *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	default:
		return sizeof(ProtobufCMessage *);
	}
}

/* A repeated field @f of message @m (of @d) from array @v. */
static int pbj_repeated(struct pbj *j, const ProtobufCMessageDescriptor *d,
			const ProtobufCFieldDescriptor *f, json_object *v, char *m)
{
	size_t n, size = pbj_size(f);
	char *arr;
	int rc;

	if (!json_object_is_type(v, json_type_array))
		return PBJ_BAD(j, d, f, "is not an array");
	if ((n = json_object_array_length(v)) == 0)
		return 0;
	if (n > SIZE_MAX / size || (arr = otlp_arena_take(j->a, n * size)) == NULL)
		return pbj_nomem(j);
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(v, i);

		if (e == NULL)
			return PBJ_BAD(j, d, f, "has a null in it");
		if ((rc = pbj_value(j, d, f, e, arr + i * size)) < 0)
			return rc;
	}
	*(size_t *)(m + f->quantifier_offset) = n;
	*(void **)(m + f->offset) = arr;
	return 0;
}

/* Message @d from object @o, in the arena, into *@out. */
static int pbj_message(struct pbj *j, json_object *o, const ProtobufCMessageDescriptor *d,
		       ProtobufCMessage **out)
{
	char *m;
	int rc;

	if (d == j->any && ++j->anys > OTLP_DEPTH_MAX) {
		snprintf(j->why, j->whylen, "values nested deeper than %d", OTLP_DEPTH_MAX);
		return -E2BIG;
	}
	if ((m = otlp_arena_take(j->a, d->sizeof_message)) == NULL)
		return pbj_nomem(j);
	protobuf_c_message_init(d, m);
	json_object_object_foreach(o, key, v) {
		const ProtobufCFieldDescriptor *f;
		char camel[64];
		bool alt;

		if (v == NULL || (f = pbj_field(d, key, &alt)) == NULL)
			continue;	/* null: the field's default; no such field: skipped */
		if (alt) {
			pbj_camel(f->name, camel, sizeof(camel));
			if (json_object_object_get_ex(o, camel, NULL))
				continue;	/* the camelCase member wins */
		}
		if (f->label == PROTOBUF_C_LABEL_REPEATED) {
			if ((rc = pbj_repeated(j, d, f, v, m)) < 0)
				return rc;
			continue;
		}
		if (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
			uint32_t *which = (uint32_t *)(m + f->quantifier_offset);

			if (*which != 0 && *which != f->id)
				return PBJ_BAD(j, d, f, "and another member of its oneof are both set");
			*which = f->id;
		} else if (f->label == PROTOBUF_C_LABEL_OPTIONAL && f->type != PROTOBUF_C_TYPE_STRING &&
			   f->type != PROTOBUF_C_TYPE_MESSAGE) {
			*(protobuf_c_boolean *)(m + f->quantifier_offset) = 1;	/* proto2's has_ */
		}
		if ((rc = pbj_value(j, d, f, v, m + f->offset)) < 0)
			return rc;
	}
	*out = (ProtobufCMessage *)m;
	if (d == j->any)
		j->anys--;
	return 0;
}

int otlp_pbc_from_json(struct json_object *o, const ProtobufCMessageDescriptor *root,
		       const ProtobufCMessageDescriptor *any, struct otlp_arena *a,
		       ProtobufCMessage **out, char *why, size_t whylen)
{
	struct pbj j = { .a = a, .any = any, .why = why, .whylen = whylen };

	*out = NULL;
	if (!json_object_is_type(o, json_type_object)) {
		snprintf(why, whylen, "JSON: the request is not an object");
		return -EBADMSG;
	}
	return pbj_message(&j, o, root, out);
}
