/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcp.c - what the OpenTelemetry metrics store serves to the agent
 * (otel.h, the PCP side): leaves by name and PMID, their instances,
 * values, help text and labels, each call under the store's mutex. The
 * callbacks of otel_leaves and otel_instances run under it too, so they
 * may not call the store.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "label_text.h"
#include "otel_priv.h"
#include "utf8.h"

uint64_t otel_generation(struct otel_store *s)
{
	return __atomic_load_n(&s->generation, __ATOMIC_ACQUIRE);	/* no lock: see otel_priv.h */
}

void otel_leaves(struct otel_store *s, otel_leaf_fn fn, void *arg)
{
	char name[OTEL_LEAF_NAME_MAX];
	pmDesc d;

	otel_lock_pcp(s);
	for (size_t i = 0; i < s->nleaves; i++) {
		const struct leafref *l = &s->leaves[i];

		if (otel_leaf_name(l->m, l->leaf, name, sizeof(name)) < 0)
			continue;
		otel_leaf_desc(s, l->m, l->leaf, &d);
		fn(arg, name, &d);
	}
	otel_unlock(s);
}

/* The metric and leaf of full name @name, or NULL. */
static struct metric *by_name(struct otel_store *s, const char *name, enum otel_leaf *leaf)
{
	const char *root = OTEL_PMNS_ROOT ".", *path, *dot;
	struct metric *m;

	if (strncmp(name, root, strlen(root)) != 0)
		return NULL;
	path = name + strlen(root);
	if ((m = otel_path_metric(s, path, strlen(path))) != NULL) {
		*leaf = OTEL_LEAF_VALUE;
		return otel_has_leaf(m->kind, OTEL_LEAF_VALUE) ? m : NULL;
	}
	if ((dot = strrchr(path, '.')) == NULL ||
	    (m = otel_path_metric(s, path, (size_t)(dot - path))) == NULL)
		return NULL;
	for (int l = OTEL_LEAF_COUNT; l < OTEL_LEAF_N; l++) {
		if (otel_has_leaf(m->kind, l) && strcmp(dot + 1, otel_leaf_names[l]) == 0) {
			*leaf = l;
			return m;
		}
	}
	return NULL;
}

int otel_lookup_name(struct otel_store *s, const char *name, pmDesc *desc)
{
	enum otel_leaf leaf;
	struct metric *m;

	otel_lock_pcp(s);
	if ((m = by_name(s, name, &leaf)) != NULL && m->pmid[leaf] != PM_ID_NULL)
		otel_leaf_desc(s, m, leaf, desc);
	else
		m = NULL;
	otel_unlock(s);
	return m ? 0 : PM_ERR_NAME;
}

int otel_lookup_pmid(struct otel_store *s, pmID pmid, char *name, size_t size, pmDesc *desc)
{
	struct leafref *l;
	int ret = PM_ERR_PMID;

	otel_lock_pcp(s);
	if ((l = otel_leaf_find(s, pmid)) != NULL) {
		ret = 0;
		if (name != NULL && otel_leaf_name(l->m, l->leaf, name, size) < 0)
			ret = -ENOSPC;
		if (desc != NULL)
			otel_leaf_desc(s, l->m, l->leaf, desc);
	}
	otel_unlock(s);
	return ret;
}

/* The leaf of indom @indom, or NULL. */
static struct leafref *leaf_of_indom(struct otel_store *s, pmInDom indom)
{
	unsigned serial = indom & OTEL_SERIAL_MASK;

	if (indom >> 22 != s->domain || serial < (unsigned)OTEL_CLUSTER_MIN << OTEL_ITEM_BITS)
		return NULL;
	return otel_leaf_find(s, otel_pmid(s->domain, serial - (OTEL_CLUSTER_MIN << OTEL_ITEM_BITS)));
}

static bool sub_leaf(enum otel_leaf leaf)
{
	return leaf == OTEL_LEAF_BUCKET || leaf == OTEL_LEAF_QUANTILE;
}

/* "SERIES:LE" of @ser's bucket or quantile @idx into @buf (OTEL_INST_NAME_MAX + 40). */
static void sub_name(const struct series *ser, uint32_t idx, char *buf, size_t size)
{
	char le[32];

	snprintf(buf, size, "%s:%s", otel_series_name(ser), sdk_le_text(ser->b->le[idx], le,
									  sizeof(le)));
}

int otel_instances(struct otel_store *s, pmInDom indom, otel_inst_fn fn, void *arg)
{
	char name[OTEL_INST_NAME_MAX + 40];
	struct leafref *l;
	struct hslot *sl;
	int ret = PM_ERR_INDOM;

	otel_lock_pcp(s);
	if ((l = leaf_of_indom(s, indom)) == NULL)
		goto out;
	ret = 0;
	if (sub_leaf(l->leaf)) {
		otel_ht_for_each(&l->m->sub, sl) {
			sub_name(sl->val, (uint32_t)(sl->key >> 32), name, sizeof(name));
			fn(arg, (int)(uint32_t)sl->key, name);
		}
	} else {
		otel_ht_for_each(&l->m->by_inst, sl) {
			const struct series *ser = sl->val;

			fn(arg, ser->inst, otel_series_name(ser));
		}
	}
out:
	otel_unlock(s);
	return ret;
}

static int fetch(struct otel_store *s, pmID pmid, int inst, pmAtomValue *atom)
{
	struct leafref *l = otel_leaf_find(s, pmid);
	const struct series *ser;
	uint32_t idx;

	if (l == NULL)
		return PM_ERR_PMID;
	if (sub_leaf(l->leaf)) {
		if ((ser = otel_sub_find(l->m, inst, &idx)) == NULL)
			return PM_ERR_INST;
		if (l->leaf == OTEL_LEAF_BUCKET)
			atom->ull = ser->b->val[idx].u;
		else
			atom->d = ser->b->val[idx].d;
		return 1;
	}
	if ((ser = otel_series_by_inst(l->m, inst)) == NULL)
		return PM_ERR_INST;
	switch (l->leaf) {
	case OTEL_LEAF_VALUE:
		if (!ser->has_value)
			return 0;
		if (l->m->type == PM_TYPE_64)
			atom->ll = ser->v.i;
		else
			atom->d = ser->v.d;
		return 1;
	case OTEL_LEAF_COUNT:
		atom->ull = ser->count;
		return 1;
	case OTEL_LEAF_SUM:
		if (!ser->has_sum)
			return 0;
		atom->d = ser->sum;
		return 1;
	default:		/* p50, p90, p99 */
		if (!ser->has_pct)
			return 0;
		atom->d = ser->pct[l->leaf - OTEL_LEAF_P50];
		return 1;
	}
}

int otel_fetch(struct otel_store *s, pmID pmid, int inst, pmAtomValue *atom)
{
	int ret;

	otel_lock_pcp(s);
	ret = fetch(s, pmid, inst, atom);
	otel_unlock(s);
	return ret;
}

/* ---- help text ---- */

static const char *kind_words(const struct metric *m)
{
	switch (m->kind) {
	case OTEL_GAUGE:
		return "gauge";
	case OTEL_SUM:
		return m->monotonic ? "monotonic sum" : "sum";
	case OTEL_HISTOGRAM:
		return "histogram";
	case OTEL_EXPHIST:
		return "exponential histogram";
	default:
		return "summary";
	}
}

static const char *const leaf_words[OTEL_LEAF_N] = {
	[OTEL_LEAF_COUNT] = "count of values",
	[OTEL_LEAF_SUM] = "sum of values",
	[OTEL_LEAF_BUCKET] = "values at or below each bound",
	[OTEL_LEAF_P50] = "50th percentile",
	[OTEL_LEAF_P90] = "90th percentile",
	[OTEL_LEAF_P99] = "99th percentile",
	[OTEL_LEAF_QUANTILE] = "quantiles",
};

static const char *const leaf_long[OTEL_LEAF_N] = {
	[OTEL_LEAF_VALUE] = "",
	[OTEL_LEAF_COUNT] = "The number of values recorded (a counter).",
	[OTEL_LEAF_SUM] = "The sum of the values recorded (a counter).",
	[OTEL_LEAF_BUCKET] = "The number of values at or below each bound, an instance a bound\n"
		"(SERIES:LE, labelled le, +Inf last), as Prometheus reads a histogram.",
	[OTEL_LEAF_P50] = "The median of the values a point added since the series' point\n"
		"before, interpolated within the buckets; none before a second point.",
	[OTEL_LEAF_P90] = "The 90th percentile of the values a point added since the series'\n"
		"point before, interpolated within the buckets; none before a second point.",
	[OTEL_LEAF_P99] = "The 99th percentile of the values a point added since the series'\n"
		"point before, interpolated within the buckets; none before a second point.",
	[OTEL_LEAF_QUANTILE] = "The quantiles as the application sent them, an instance each\n"
		"(SERIES:Q, labelled quantile).",
};

/* "unit ms" or "unit d (days, not a PCP unit)" of @m into @buf; "" without one. */
static const char *unit_text(const struct metric *m, char *buf, size_t size)
{
	const char *words = otel_unit_words(m->unit);

	if (m->unit_len == 0)
		return "";
	if (!m->units_known)
		snprintf(buf, size, "unit %s (%s%snot a PCP unit)", m->unit, words ? words : "",
			 words ? ", " : "");
	else
		snprintf(buf, size, "unit %s", m->unit);
	return buf;
}

/* The first line of @m's description, or its name, at most @max bytes, into @buf. */
static void summary_line(const struct metric *m, char *buf, size_t size, size_t max)
{
	const char *d = m->desc ? m->desc : m->name;
	size_t len = strcspn(d, "\r\n");

	len = sdk_utf8_cut(d, len, max < size - 1 ? max : size - 1);
	memcpy(buf, d, len);
	buf[len] = '\0';
}

int otel_text(struct otel_store *s, pmID pmid, bool oneline, char *buf, size_t size)
{
	char unit[OTEL_UNIT_MAX + 64], head[160];
	struct leafref *l;
	const struct metric *m;
	const char *u;
	int n;

	if (size == 0)
		return PM_ERR_TEXT;
	otel_lock_pcp(s);
	if ((l = otel_leaf_find(s, pmid)) == NULL) {
		otel_unlock(s);
		return PM_ERR_PMID;
	}
	m = l->m;
	u = unit_text(m, unit, sizeof(unit));
	if (oneline) {
		summary_line(m, head, sizeof(head), 100);
		n = snprintf(buf, size, "%s (%s%s%s%s%s)", head, u, *u ? ", " : "", kind_words(m),
			     l->leaf != OTEL_LEAF_VALUE ? ": " : "",
			     l->leaf != OTEL_LEAF_VALUE ? leaf_words[l->leaf] : "");
	} else {
		n = snprintf(buf, size, "%s\n\nOpenTelemetry %s %s%s%s.%s%s%s",
			     m->desc ? m->desc : m->name, kind_words(m), m->name,
			     *u ? ", " : "", u,
			     m->kind == OTEL_SUM ? (m->monotonic ?
				" Cumulative points are served as sent (a restart of the application\n"
				"shows as a counter going down), deltas are added up." :
				" Cumulative points are served as sent, deltas are added up.") : "",
			     *leaf_long[l->leaf] ? "\n" : "", leaf_long[l->leaf]);
	}
	otel_unlock(s);
	if (n < 0)
		return PM_ERR_TEXT;
	if ((size_t)n >= size)	/* cut at a character boundary */
		buf[sdk_utf8_cut(buf, size - 1, size - 1)] = '\0';
	return 0;
}

/* ---- labels ---- */

int otel_item_labels(struct otel_store *s, pmID pmid, char *buf, size_t size)
{
	struct leafref *l;
	const struct metric *m;
	int n, v;

	otel_lock_pcp(s);
	if ((l = otel_leaf_find(s, pmid)) == NULL) {
		otel_unlock(s);
		return PM_ERR_PMID;
	}
	m = l->m;
	n = snprintf(buf, size, "{\"otel_name\":");
	if (n < 0 || (size_t)n >= size || (v = sdk_json_string(buf + n, size - (size_t)n, m->name)) < 0)
		goto nospc;
	n += v;
	if (!m->units_known && m->unit_len > 0) {
		if ((size_t)n + 13 >= size)
			goto nospc;
		memcpy(buf + n, ",\"otel_unit\":", 13);
		n += 13;
		if ((v = sdk_json_string(buf + n, size - (size_t)n, m->unit)) < 0)
			goto nospc;
		n += v;
	}
	if ((size_t)n + 2 > size)
		goto nospc;
	buf[n++] = '}';
	buf[n] = '\0';
	otel_unlock(s);
	return n;
nospc:
	otel_unlock(s);
	return -ENOSPC;
}

int otel_inst_labels(struct otel_store *s, pmInDom indom, int inst, char *buf, size_t size)
{
	const struct series *ser;
	struct leafref *l;
	uint32_t idx;
	size_t len;
	int n = PM_ERR_INDOM, v;
	char le[32];

	otel_lock_pcp(s);
	if ((l = leaf_of_indom(s, indom)) == NULL)
		goto out;
	n = PM_ERR_INST;
	ser = sub_leaf(l->leaf) ? otel_sub_find(l->m, inst, &idx) : otel_series_by_inst(l->m, inst);
	if (ser == NULL)
		goto out;
	n = -ENOSPC;
	len = ser->labels_len;
	if (len + 1 > size)
		goto out;
	memcpy(buf, otel_series_labels(ser), len + 1);
	if (sub_leaf(l->leaf)) {
		const char *key = l->leaf == OTEL_LEAF_BUCKET ? "le" : "quantile";

		/* ,"le":"0.25"} in place of the closing brace */
		len--;
		v = snprintf(buf + len, size - len, "%s\"%s\":", len > 1 ? "," : "", key);
		if (v < 0 || (size_t)v >= size - len)
			goto out;
		len += (size_t)v;
		if ((v = sdk_json_string(buf + len, size - len, sdk_le_text(ser->b->le[idx], le,
									    sizeof(le)))) < 0 ||
		    len + (size_t)v + 2 > size)
			goto out;
		len += (size_t)v;
		buf[len++] = '}';
		buf[len] = '\0';
	}
	n = (int)len;
out:
	otel_unlock(s);
	return n;
}
