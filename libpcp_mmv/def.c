/*
 * Validation of a file description, shared by every creation path.
 *
 * The checks PCP makes come first and in PCP's order (indoms, then
 * metrics), so callers see the same errno PCP would give. Checks PCP lacks
 * (duplicates, item and serial ranges, types and semantics pmdammv cannot
 * serve) follow: each refuses a file that pmdammv would silently
 * misreport or crash on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"

int mmv_check_instance(const char *name, size_t len, int v1_api)
{
	if (name == NULL)
		return EINVAL;
	if (v1_api)
		return 0;	/* PCP cuts v1 names to 63 chars */
	if (len == 0)
		return EINVAL;
	if (len >= MMV_STRINGMAX)
		return E2BIG;
	return 0;
}

static int check_help(const char *text)
{
	return text != NULL && strlen(text) >= MMV_STRINGMAX ? E2BIG : 0;
}

int mmv_check_indom(const struct mmv_def_indom *indom, int v1_api)
{
	int err;

	if (mmv_indom_is_null(indom->serial))
		return ESRCH;
	if ((err = check_help(indom->shorttext)) != 0 ||
	    (err = check_help(indom->helptext)) != 0)
		return err;
	for (size_t i = 0; i < indom->ninstances; i++) {
		const struct mmv_def_instance *in = &indom->instances[i];

		if ((err = mmv_check_instance(in->name, in->name_len, v1_api)) != 0)
			return err;
	}
	if (indom->serial > MMV_SERIAL_MAX)
		return EINVAL;
	return 0;
}

/* pmdammv exports letters, digits, '_' and '.'; refuse empty components. */
int mmv_check_metric_name(const char *name, size_t len)
{
	if (name == NULL || len == 0)
		return EINVAL;
	if (len >= MMV_STRINGMAX)
		return E2BIG;
	if (name[0] == '.' || name[len - 1] == '.')
		return EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c == '.' && name[i + 1] == '.')
			return EINVAL;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return EINVAL;
	}
	return 0;
}

int mmv_check_metric(const struct mmv_def_metric *m)
{
	int err;

	/* PCP's range check, then the name, in PCP's order. */
	if (m->type < MMV_TYPE_NOSUPPORT || m->type > MMV_TYPE_ELAPSED ||
	    m->name == NULL || m->name_len == 0)
		return EINVAL;
	if (m->name_len >= MMV_STRINGMAX)
		return E2BIG;
	if ((err = mmv_check_metric_name(m->name, m->name_len)) != 0)
		return err;
	/* types 7 and 8 crash pmdammv on fetch */
	if (m->type == 7 || m->type == 8)
		return EINVAL;
	if (m->semantics != 0 && m->semantics != MMV_SEM_COUNTER &&
	    m->semantics != MMV_SEM_INSTANT && m->semantics != MMV_SEM_DISCRETE)
		return EINVAL;
	if (m->item > MMV_ITEM_MAX)
		return EINVAL;
	return 0;
}

const struct mmv_def_indom *mmv_find_indom(const struct mmv_def *def,
		uint32_t serial)
{
	for (size_t i = 0; i < def->nindoms; i++)
		if (def->indoms[i].serial == serial)
			return &def->indoms[i];
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

struct name_ref {
	const char *name;
	size_t len;
};

static int cmp_name(const void *a, const void *b)
{
	const struct name_ref *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->name, y->name, n);

	return c != 0 ? c : (x->len > y->len) - (x->len < y->len);
}

/* EEXIST if the n values repeat; ENOMEM. Sorting keeps 10,000 metrics cheap. */
static int dup_u32(const uint32_t *vals, size_t n)
{
	uint32_t *v;
	int err = 0;

	if (n < 2)
		return 0;
	if ((v = malloc(n * sizeof(*v))) == NULL)
		return ENOMEM;
	memcpy(v, vals, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_u32);
	for (size_t i = 1; i < n && !err; i++)
		if (v[i] == v[i - 1])
			err = EEXIST;
	free(v);
	return err;
}

static int dup_names(struct name_ref *refs, size_t n)
{
	qsort(refs, n, sizeof(*refs), cmp_name);
	for (size_t i = 1; i < n; i++)
		if (cmp_name(&refs[i], &refs[i - 1]) == 0)
			return EEXIST;
	return 0;
}

static int check_duplicates(const struct mmv_def *def)
{
	size_t most = def->nmetrics > def->nindoms ? def->nmetrics : def->nindoms;
	uint32_t *ids;
	struct name_ref *refs;
	int err = 0;

	for (size_t i = 0; i < def->nindoms; i++)
		if (def->indoms[i].ninstances > most)
			most = def->indoms[i].ninstances;
	ids = malloc((most ? most : 1) * sizeof(*ids));
	refs = malloc((most ? most : 1) * sizeof(*refs));
	if (ids == NULL || refs == NULL) {
		err = ENOMEM;
		goto out;
	}

	for (size_t i = 0; i < def->nindoms; i++)
		ids[i] = def->indoms[i].serial;
	if ((err = dup_u32(ids, def->nindoms)) != 0)
		goto out;

	for (size_t i = 0; i < def->nindoms && !err; i++) {
		const struct mmv_def_indom *d = &def->indoms[i];

		for (size_t k = 0; k < d->ninstances; k++) {
			ids[k] = (uint32_t)d->instances[k].id;
			refs[k].name = d->instances[k].name;
			refs[k].len = d->instances[k].name_len;
		}
		if ((err = dup_u32(ids, d->ninstances)) == 0)
			err = dup_names(refs, d->ninstances);
	}
	if (err)
		goto out;

	for (size_t i = 0; i < def->nmetrics; i++) {
		ids[i] = def->metrics[i].item;
		refs[i].name = def->metrics[i].name;
		refs[i].len = def->metrics[i].name_len;
	}
	if ((err = dup_u32(ids, def->nmetrics)) == 0)
		err = dup_names(refs, def->nmetrics);
out:
	free(ids);
	free(refs);
	return err;
}

int mmv_check_def(const struct mmv_def *def, int v1_api)
{
	int err;

	if (def->file == NULL || def->file[0] == '\0')
		return EINVAL;
	for (size_t i = 0; i < def->nindoms; i++)
		if ((err = mmv_check_indom(&def->indoms[i], v1_api)) != 0)
			return err;
	for (size_t i = 0; i < def->nmetrics; i++) {
		const struct mmv_def_metric *m = &def->metrics[i];

		if ((err = mmv_check_metric(m)) != 0)
			return err;
		if (!mmv_indom_is_null(m->indom) &&
		    mmv_find_indom(def, m->indom) == NULL)
			return ESRCH;
	}
	if (def->cluster < 0 || def->cluster > MMV_CLUSTER_MAX)
		return EINVAL;
	return check_duplicates(def);
}

/* Spec 2.15: 3 with labels, else 2 when any name needs more than 63 chars. */
int mmv_choose_version(const struct mmv_def *def)
{
	if (def->nlabels > 0)
		return MMV_VERSION3;
	for (size_t i = 0; i < def->nmetrics; i++)
		if (def->metrics[i].name_len >= MMV_NAMEMAX)
			return MMV_VERSION2;
	for (size_t i = 0; i < def->nindoms; i++)
		for (size_t k = 0; k < def->indoms[i].ninstances; k++)
			if (def->indoms[i].instances[k].name_len >= MMV_NAMEMAX)
				return MMV_VERSION2;
	return MMV_VERSION1;
}
