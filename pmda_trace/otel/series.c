/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * series.c - the OpenTelemetry metrics store's series (otel.h, Series
 * and instances): a point's identity, the instance name and number of a
 * new series, its labels, and the tables of a metric's series and of
 * its bucket and quantile instances.
 *
 * An identity is a key of bytes: service.namespace, service.name,
 * service.instance.id, the scope's name and version, then each attribute
 * key and JSON value, sorted by key (the first of equal keys kept), each
 * followed by a NUL (none of them holds one: otel.h's attributes have no
 * control characters).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "label_text.h"
#include "otel_priv.h"
#include "utf8.h"

#define INST_MASK	0x7fffffffu
#define HASH_SUFFIX	9	/* "~" and 8 hex digits */

static const char *str(const char *s)
{
	return s ? s : "";
}

/* ---- identities ---- */

/* By key, then by position: the first of equal keys sorts first. */
static int attr_cmp(const void *a, const void *b, void *arg)
{
	const struct otel_attr *attrs = arg;
	const struct otel_attr *x = &attrs[*(const uint32_t *)a];
	const struct otel_attr *y = &attrs[*(const uint32_t *)b];
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->key, y->key, n);

	if (c != 0)
		return c;
	if (x->key_len != y->key_len)
		return x->key_len < y->key_len ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/*
 * @p's attributes' positions sorted by key, equal keys but the first
 * left out: their number, or -1 over the budget. *@order is a counted
 * block of @p->n_attrs entries (NULL for none).
 */
static long sorted_attrs(struct otel_store *s, const struct otel_point *p, uint32_t **order)
{
	size_t n = 0;

	*order = NULL;
	if (p->n_attrs == 0)
		return 0;
	if (p->n_attrs > UINT32_MAX ||
	    (*order = otel_alloc(s, p->n_attrs * sizeof(**order), false)) == NULL)
		return -1;
	for (uint32_t i = 0; i < p->n_attrs; i++)
		(*order)[i] = i;
	qsort_r(*order, p->n_attrs, sizeof(**order), attr_cmp, (void *)p->attrs);
	for (size_t i = 0; i < p->n_attrs; i++) {
		const struct otel_attr *a = &p->attrs[(*order)[i]];

		if (n > 0) {
			const struct otel_attr *b = &p->attrs[(*order)[n - 1]];

			if (a->key_len == b->key_len && memcmp(a->key, b->key, a->key_len) == 0)
				continue;
		}
		(*order)[n++] = (*order)[i];
	}
	return (long)n;
}

/* The resource's five fields of an identity, in order. */
static void resource_fields(const struct otel_resource *r, const char *f[5])
{
	f[0] = str(r->ns);
	f[1] = str(r->service);
	f[2] = str(r->instance_id);
	f[3] = str(r->scope_name);
	f[4] = str(r->scope_version);
}

int otel_ident(struct otel_store *s, const struct otel_resource *r, const struct otel_point *p,
		struct ident *id)
{
	uint32_t *order;
	long n = sorted_attrs(s, p, &order);
	const char *f[5];
	size_t len = 0, o = 0;

	memset(id, 0, sizeof(*id));
	if (n < 0)
		return -1;
	resource_fields(r, f);
	for (int i = 0; i < 5; i++)
		len += strlen(f[i]) + 1;
	for (long i = 0; i < n; i++)
		len += p->attrs[order[i]].key_len + p->attrs[order[i]].json_len + 2;
	if ((id->key = otel_alloc(s, len, false)) != NULL) {
		for (int i = 0; i < 5; i++) {
			memcpy(id->key + o, f[i], strlen(f[i]) + 1);
			o += strlen(f[i]) + 1;
		}
		for (long i = 0; i < n; i++) {
			const struct otel_attr *a = &p->attrs[order[i]];

			memcpy(id->key + o, a->key, a->key_len);
			o += a->key_len;
			id->key[o++] = '\0';
			memcpy(id->key + o, a->json, a->json_len);
			o += a->json_len;
			id->key[o++] = '\0';
		}
		id->len = len;
		id->hash = otel_hash(id->key, len, 0);
	}
	otel_free(s, order, p->n_attrs * sizeof(*order));
	return id->key ? 0 : -1;
}

void otel_ident_free(struct otel_store *s, struct ident *id)
{
	otel_free(s, id->key, id->len);
	id->key = NULL;
}

static bool ident_eq(const struct hslot *sl, const void *arg)
{
	const struct series *ser = sl->val;
	const struct ident *id = arg;

	return ser->key_len == id->len && memcmp(ser->text, id->key, id->len) == 0;
}

struct series *otel_series_find(struct metric *m, const struct ident *id)
{
	struct hslot *sl = otel_ht_find(&m->by_ident, id->hash, ident_eq, id);

	return sl ? sl->val : NULL;
}

static bool ptr_eq(const struct hslot *sl, const void *arg)
{
	return sl->val == arg;
}

struct series *otel_series_by_inst(const struct metric *m, int inst)
{
	struct hslot *sl = inst < 0 ? NULL : otel_ht_find(&m->by_inst, (uint32_t)inst, NULL, NULL);

	return sl ? sl->val : NULL;
}

struct series *otel_sub_find(const struct metric *m, int inst, uint32_t *idx)
{
	struct hslot *sl = inst < 0 ? NULL : otel_ht_find(&m->sub, (uint32_t)inst, NULL, NULL);

	if (sl == NULL)
		return NULL;
	*idx = (uint32_t)(sl->key >> 32);
	return sl->val;
}

int32_t otel_sub_inst(const struct metric *m, const struct series *ser, double le)
{
	uint64_t bits;
	uint32_t inst;

	memcpy(&bits, &le, sizeof(bits));
	inst = (uint32_t)otel_mix(ser->ident ^ otel_mix(bits + 0x9e3779b97f4a7c15ULL)) & INST_MASK;
	while (otel_ht_find(&m->sub, inst, NULL, NULL) != NULL)
		inst = (inst + 1) & INST_MASK;
	return (int32_t)inst;
}

/* ---- instance names ---- */

/* A text being built: @len may pass @size, only what fits is written. */
struct sbuf {
	char *buf;
	size_t size, len;
};

/* @n bytes of @p, each space and control character as '_'. */
static void sb_put(struct sbuf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++, b->len++) {
		if (b->len + 1 < b->size)
			b->buf[b->len] = (unsigned char)p[i] <= ' ' ? '_' : p[i];
	}
}

static void sb_str(struct sbuf *b, const char *p)
{
	sb_put(b, p, strlen(p));
}

static void sb_end(struct sbuf *b)
{
	b->buf[b->len < b->size ? b->len : b->size - 1] = '\0';
}

/* [NAMESPACE/]SERVICE[:INSTANCE_ID][{KEY=VALUE,...}] into @b. */
static void series_name(struct sbuf *b, const struct otel_resource *r, const struct otel_point *p,
		const uint32_t *order, long n)
{
	if (*str(r->ns) != '\0') {
		sb_str(b, r->ns);
		sb_str(b, "/");
	}
	sb_str(b, str(r->service));
	if (*str(r->instance_id) != '\0') {
		sb_str(b, ":");
		sb_str(b, r->instance_id);
	}
	for (long i = 0; i < n; i++) {
		const struct otel_attr *a = &p->attrs[order[i]];
		const char *v = a->json;
		size_t vlen = a->json_len;

		if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
			v++;
			vlen -= 2;
		}
		sb_str(b, i == 0 ? "{" : ",");
		sb_put(b, a->key, a->key_len);
		sb_str(b, "=");
		sb_put(b, v, vlen);
	}
	if (n > 0)
		sb_str(b, "}");
	sb_end(b);
}

static bool name_eq(const struct hslot *sl, const void *arg)
{
	return strcmp(otel_series_name(sl->val), arg) == 0;
}

static bool name_taken(const struct metric *m, const char *name)
{
	return otel_ht_find(&m->by_name, otel_hash(name, strlen(name), 0), name_eq, name) != NULL;
}

/*
 * The unique name of a new series of @m into @buf (OTEL_INST_NAME_MAX + 1
 * bytes): cut with "~HASH" when longer, "~HASH" added when another
 * series has it (the hash counted up while that one is taken too).
 */
static size_t unique_name(const struct metric *m, const struct sbuf *full, uint64_t ident,
		char *buf)
{
	uint32_t h = (uint32_t)(ident >> 32);
	size_t keep;

	if (full->len <= OTEL_INST_NAME_MAX) {
		memcpy(buf, full->buf, full->len + 1);
		if (!name_taken(m, buf))
			return full->len;
		keep = sdk_utf8_cut(full->buf, full->len, OTEL_INST_NAME_MAX - HASH_SUFFIX);
	} else {
		keep = sdk_utf8_cut(full->buf, full->size - 1, OTEL_INST_NAME_MAX - HASH_SUFFIX);
	}
	memcpy(buf, full->buf, keep);
	for (;; h++) {
		snprintf(buf + keep, HASH_SUFFIX + 1, "~%08x", h);
		if (!name_taken(m, buf))
			return keep + HASH_SUFFIX;
	}
}

/* ---- labels ---- */

#define MAX_LABELS	(PM_MAXLABELS - 1)	/* and "le" or "quantile" */

struct labels {
	char buf[OTEL_LABELS_MAX + 1];
	size_t len, limit;
	unsigned n;
	uint16_t name_at[MAX_LABELS];	/* where each label's name is in buf */
	uint8_t name_len[MAX_LABELS];
};

/* Is label @name (@len) there, or one no attribute may take: the buckets' and the quantiles'? */
static bool label_taken(const struct labels *l, const char *name, size_t len)
{
	if ((len == 2 && memcmp(name, "le", 2) == 0) || (len == 8 && memcmp(name, "quantile", 8) == 0))
		return true;
	for (unsigned i = 0; i < l->n; i++)
		if (l->name_len[i] == len && memcmp(l->buf + l->name_at[i], name, len) == 0)
			return true;
	return false;
}

/*
 * Start label @name (not taken, room for its value): its comma, name and
 * colon written, the length before them in *@undo. false if it cannot be.
 */
static bool label_open(struct labels *l, const char *name, size_t *undo)
{
	size_t len = strlen(name);

	if (l->n >= MAX_LABELS || len > OTEL_LABEL_NAME_MAX || label_taken(l, name, len) ||
	    l->len + len + 8 > l->limit)
		return false;
	*undo = l->len;
	if (l->len > 1)
		l->buf[l->len++] = ',';
	l->buf[l->len++] = '"';
	memcpy(l->buf + l->len, name, len);
	l->name_at[l->n] = (uint16_t)l->len;
	l->name_len[l->n] = (uint8_t)len;
	l->len += len;
	l->buf[l->len++] = '"';
	l->buf[l->len++] = ':';
	return true;
}

/* The value written at the end (@n bytes, NUL-terminated there) or the label taken back. */
static void label_close(struct labels *l, int n, size_t undo)
{
	if (n < 0 || l->len + (size_t)n + 1 > l->limit) {
		l->len = undo;
		return;
	}
	l->len += (size_t)n;
	l->n++;
}

static void label_string(struct labels *l, const char *name, const char *value)
{
	size_t undo;

	if (!label_open(l, name, &undo))
		return;
	label_close(l, sdk_json_string(l->buf + l->len, l->limit - l->len, value), undo);
}

/* Is @json (@n bytes) a JSON string, number or boolean, as a label value may be? */
static bool plain_json(const char *json, size_t n)
{
	if (n >= 2 && json[0] == '"' && json[n - 1] == '"')
		return true;
	if ((n == 4 && memcmp(json, "true", 4) == 0) || (n == 5 && memcmp(json, "false", 5) == 0))
		return true;
	return n > 0 && (json[0] == '-' || (json[0] >= '0' && json[0] <= '9'));
}

static void label_attr(struct labels *l, const struct otel_attr *a)
{
	char name[OTEL_LABEL_NAME_MAX + 1], text[OTEL_LABELS_MAX + 1];
	size_t undo;

	if (otel_label_name(a->key, a->key_len, name, sizeof(name)) < 0 ||
	    a->json_len > OTEL_LABELS_MAX || !label_open(l, name, &undo))
		return;
	if (plain_json(a->json, a->json_len)) {
		if (l->len + a->json_len + 1 > l->limit) {
			l->len = undo;
			return;
		}
		memcpy(l->buf + l->len, a->json, a->json_len);
		label_close(l, (int)a->json_len, undo);
		return;
	}
	/* an array, a key-value list (or null): its JSON text as a string */
	memcpy(text, a->json, a->json_len);
	text[a->json_len] = '\0';
	label_close(l, sdk_json_string(l->buf + l->len, l->limit - l->len, text), undo);
}

/*
 * The labels of a series: its service's and scope's, its attributes,
 * its resource's attributes; a name already there is not taken again,
 * a label that does not fit is left out. Returns the JSON's length.
 */
static size_t series_labels(struct labels *l, const struct otel_resource *r,
		const struct otel_point *p, const uint32_t *order, long n)
{
	l->limit = OTEL_LABELS_MAX - OTEL_LABEL_RESERVE;
	l->n = 0;
	l->len = 0;
	l->buf[l->len++] = '{';
	label_string(l, "service_name", str(r->service));
	if (*str(r->ns) != '\0')
		label_string(l, "service_namespace", r->ns);
	if (*str(r->instance_id) != '\0')
		label_string(l, "service_instance_id", r->instance_id);
	if (*str(r->scope_name) != '\0')
		label_string(l, "otel_scope_name", r->scope_name);
	if (*str(r->scope_version) != '\0')
		label_string(l, "otel_scope_version", r->scope_version);
	for (long i = 0; i < n; i++)
		label_attr(l, &p->attrs[order[i]]);
	for (size_t i = 0; i < r->n_attrs; i++)
		label_attr(l, &r->attrs[i]);
	l->buf[l->len++] = '}';
	l->buf[l->len] = '\0';
	return l->len;
}

/* ---- series ---- */

/* The size of @ser's block. */
static size_t series_size(const struct series *ser)
{
	return sizeof(*ser) + ser->key_len + ser->name_len + ser->labels_len + 2;
}

static int32_t free_inst(const struct metric *m, uint64_t ident)
{
	uint32_t inst = (uint32_t)ident & INST_MASK;

	while (otel_ht_find(&m->by_inst, inst, NULL, NULL) != NULL)
		inst = (inst + 1) & INST_MASK;
	return (int32_t)inst;
}

struct series *otel_series_new(struct otel_store *s, struct metric *m, const struct ident *id,
		const struct otel_resource *r, const struct otel_point *p)
{
	char full[2 * OTEL_INST_NAME_MAX], name[OTEL_INST_NAME_MAX + 1];
	struct sbuf sb = { full, sizeof(full), 0 };
	struct labels l;	/* 5 KiB: the receivers' threads have the default 8 MiB stacks */
	struct series *ser = NULL;
	uint32_t *order;
	long n = sorted_attrs(s, p, &order);
	size_t name_len, labels_len, size;

	if (n < 0)
		return NULL;
	series_name(&sb, r, p, order, n);
	name_len = unique_name(m, &sb, id->hash, name);
	labels_len = series_labels(&l, r, p, order, n);
	size = sizeof(*ser) + id->len + name_len + labels_len + 2;
	if (otel_ht_reserve(s, &m->by_ident, 1) < 0 || otel_ht_reserve(s, &m->by_inst, 1) < 0 ||
	    otel_ht_reserve(s, &m->by_name, 1) < 0 || (ser = otel_alloc(s, size, true)) == NULL)
		goto out;
	ser->m = m;
	ser->ident = id->hash;
	ser->key_len = (uint32_t)id->len;
	ser->name_len = (uint32_t)name_len;
	ser->labels_len = (uint32_t)labels_len;
	memcpy(ser->text, id->key, id->len);
	memcpy(ser->text + id->len, name, name_len + 1);
	memcpy(ser->text + id->len + name_len + 1, l.buf, labels_len + 1);
	ser->inst = free_inst(m, id->hash);
	otel_ht_add(&m->by_ident, id->hash, ser);
	otel_ht_add(&m->by_inst, (uint32_t)ser->inst, ser);
	otel_ht_add(&m->by_name, otel_hash(name, name_len, 0), ser);
	m->nseries++;
	s->nseries++;
	otel_generation_bump(s);
out:
	otel_free(s, order, p->n_attrs * sizeof(*order));
	return ser;
}

void otel_series_drop(struct otel_store *s, struct series *ser)
{
	struct metric *m = ser->m;
	const char *name = otel_series_name(ser);
	struct hslot *sl;

	if ((sl = otel_ht_find(&m->by_ident, ser->ident, ptr_eq, ser)) != NULL)
		otel_ht_del(&m->by_ident, sl);
	if ((sl = otel_ht_find(&m->by_inst, (uint32_t)ser->inst, ptr_eq, ser)) != NULL)
		otel_ht_del(&m->by_inst, sl);
	if ((sl = otel_ht_find(&m->by_name, otel_hash(name, ser->name_len, 0), ptr_eq, ser)) != NULL)
		otel_ht_del(&m->by_name, sl);
	otel_hist_drop(s, ser);
	m->nseries--;
	s->nseries--;
	otel_generation_bump(s);
	otel_free(s, ser, series_size(ser));
}
