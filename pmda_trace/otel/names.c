/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * names.c - the OpenTelemetry metrics store's names (otel.h, Names and
 * PMIDs): an OpenTelemetry name as a PMNS path, a path free of every
 * other metric's, the PMNS nodes, leaf names, PMIDs from their hash, the
 * leaves' descriptors, label names and UCUM units.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "otel_priv.h"
#include "utf8.h"

const char *const otel_leaf_names[OTEL_LEAF_N] = {
#define OTEL_X(id, name) name,
	OTEL_LEAVES(OTEL_X)
#undef OTEL_X
};

static const char *const kind_names[] = {
	[OTEL_GAUGE] = "gauge", [OTEL_SUM] = "sum", [OTEL_HISTOGRAM] = "histogram",
	[OTEL_EXPHIST] = "exphistogram", [OTEL_SUMMARY] = "summary",
};

const char *otel_kind_name(enum otel_kind kind)
{
	return kind <= OTEL_SUMMARY ? kind_names[kind] : "?";
}

int otel_kind_parse(const char *name)
{
	for (int k = OTEL_GAUGE; k <= OTEL_SUMMARY; k++)
		if (strcmp(name, kind_names[k]) == 0)
			return k;
	return -1;
}

bool otel_has_leaf(enum otel_kind kind, enum otel_leaf leaf)
{
	switch (kind) {
	case OTEL_GAUGE:
	case OTEL_SUM:
		return leaf == OTEL_LEAF_VALUE;
	case OTEL_HISTOGRAM:
	case OTEL_EXPHIST:
		return leaf == OTEL_LEAF_COUNT || leaf == OTEL_LEAF_SUM || leaf == OTEL_LEAF_BUCKET ||
		       leaf == OTEL_LEAF_P50 || leaf == OTEL_LEAF_P90 || leaf == OTEL_LEAF_P99;
	case OTEL_SUMMARY:
		return leaf == OTEL_LEAF_COUNT || leaf == OTEL_LEAF_SUM || leaf == OTEL_LEAF_QUANTILE;
	}
	return false;
}

static bool is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_name_char(unsigned char c)
{
	return is_alpha(c) || (c >= '0' && c <= '9') || c == '_';
}

/*
 * @len bytes of @s as one name component into @buf at *@o (of @size): a
 * character PCP refuses as '_', an 'x' before one that does not start
 * with a letter. false if it does not fit.
 */
static bool component(const char *s, size_t len, char *buf, size_t size, size_t *o)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, n;
	uint32_t cp;

	if (len == 0 || !is_alpha(u[0])) {
		if (*o + 1 >= size)
			return false;
		buf[(*o)++] = 'x';
	}
	while (i < len) {
		if ((n = sdk_utf8_len(u + i, len - i, &cp)) == 0)
			n = 1;
		if (*o + 1 >= size)
			return false;
		buf[(*o)++] = n == 1 && is_name_char(u[i]) ? (char)u[i] : '_';
		i += n;
	}
	return true;
}

int otel_pmns_path(const char *name, char *buf, size_t size)
{
	size_t o = 0;
	const char *p, *dot;

	if (name == NULL || *name == '\0' || size == 0)
		return -1;
	for (p = name;; p = dot + 1) {
		dot = strchr(p, '.');
		if (p != name) {
			if (o + 1 >= size)
				return -1;
			buf[o++] = '.';
		}
		if (!component(p, dot ? (size_t)(dot - p) : strlen(p), buf, size, &o))
			return -1;
		if (dot == NULL)
			break;
	}
	buf[o] = '\0';
	return o > OTEL_PATH_MAX ? -1 : (int)o;
}

int otel_label_name(const char *key, size_t len, char *buf, size_t size)
{
	size_t o = 0;

	if (size == 0 || !component(key, len, buf, size, &o))
		return -1;
	buf[o] = '\0';
	return (int)o;
}

bool otel_path_valid(const char *path, size_t len)
{
	bool start = true;

	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c == '.') {
			if (start)
				return false;
			start = true;
		} else if (start ? !is_alpha(c) : !is_name_char(c)) {
			return false;
		} else {
			start = false;
		}
	}
	return !start;
}

/* ---- PMNS nodes ---- */

struct node_key {
	const char *path;
	size_t len;
};

static bool node_eq(const struct hslot *sl, const void *arg)
{
	const struct pnode *pn = sl->val;
	const struct node_key *k = arg;

	return pn->len == k->len && memcmp(pn->path, k->path, k->len) == 0;
}

static struct pnode *node_find(struct otel_store *s, const char *path, size_t len)
{
	struct node_key k = { path, len };
	struct hslot *sl = otel_ht_find(&s->paths, otel_hash(path, len, 0), node_eq, &k);

	return sl ? sl->val : NULL;
}

struct metric *otel_path_metric(struct otel_store *s, const char *path, size_t len)
{
	struct pnode *pn = node_find(s, path, len);

	return pn ? pn->m : NULL;
}

/*
 * The first component of @path (@len) where it meets another metric's:
 * one before the last that is a metric's own node (a leaf, or a subtree
 * of fixed leaves), or the last if it is any node. Its index, or -1.
 */
static int conflict(struct otel_store *s, const char *path, size_t len)
{
	int k = 0;

	for (size_t i = 0; i < len; i++) {
		if (path[i] != '.')
			continue;
		if (otel_path_metric(s, path, i) != NULL)
			return k;
		k++;
	}
	return node_find(s, path, len) ? k : -1;
}

bool otel_path_taken(struct otel_store *s, const char *path, size_t len)
{
	return conflict(s, path, len) >= 0;
}

int otel_path_choose(struct otel_store *s, const char *name, char *buf, size_t size)
{
	/* a path of OTEL_PATH_MAX bytes has at most half as many components */
	unsigned suffix[OTEL_PATH_MAX / 2 + 1] = { 0 };
	char base[OTEL_PATH_MAX + 1];
	int k;

	if (otel_pmns_path(name, base, sizeof(base)) < 0)
		return -1;
	for (;;) {
		size_t o = 0;
		int c = 0;
		const char *p = base;

		for (const char *e = base;; e++) {
			if (*e != '.' && *e != '\0')
				continue;
			if (o + (size_t)(e - p) + 16 >= size)
				return -1;
			memcpy(buf + o, p, (size_t)(e - p));
			o += (size_t)(e - p);
			if (suffix[c] != 0)
				o += (size_t)snprintf(buf + o, size - o, "_%u", suffix[c]);
			if (*e == '\0')
				break;
			buf[o++] = '.';
			p = e + 1;
			c++;
		}
		buf[o] = '\0';
		if (o > OTEL_PATH_MAX)
			return -1;
		if ((k = conflict(s, buf, o)) < 0)
			return (int)o;
		suffix[k] = suffix[k] ? suffix[k] + 1 : 2;
	}
}

int otel_path_reserve(struct otel_store *s, struct metric *m)
{
	size_t need = 0, nleaves = 0, j = 0;

	for (size_t i = 0; i <= m->path_len; i++)
		if ((i == m->path_len || m->path[i] == '.') && node_find(s, m->path, i) == NULL)
			need++;
	for (int l = 0; l < OTEL_LEAF_N; l++)
		nleaves += otel_has_leaf(m->kind, l);
	if (s->nleaves + nleaves > s->leaves_cap) {
		size_t cap = s->leaves_cap ? s->leaves_cap * 2 : 64;
		struct leafref *nl;

		while (cap < s->nleaves + nleaves)
			cap *= 2;
		if ((nl = otel_alloc(s, cap * sizeof(*nl), false)) == NULL)
			return -1;
		if (s->leaves != NULL)
			memcpy(nl, s->leaves, s->nleaves * sizeof(*nl));
		otel_free(s, s->leaves, s->leaves_cap * sizeof(*nl));
		s->leaves = nl;
		s->leaves_cap = cap;
	}
	if (otel_ht_reserve(s, &s->paths, need) < 0)
		return -1;
	if ((m->nodes = otel_alloc(s, need * sizeof(*m->nodes), false)) == NULL)
		return -1;
	m->nnodes = need;
	for (size_t i = 0; i <= m->path_len; i++) {
		if ((i == m->path_len || m->path[i] == '.') && node_find(s, m->path, i) == NULL) {
			m->nodes[j].path = m->path;
			m->nodes[j].len = i;
			m->nodes[j].m = i == m->path_len ? m : NULL;
			j++;
		}
	}
	return 0;
}

void otel_path_link(struct otel_store *s, struct metric *m)
{
	for (size_t j = 0; j < m->nnodes; j++)
		otel_ht_add(&s->paths, otel_hash(m->nodes[j].path, m->nodes[j].len, 0), &m->nodes[j]);
}

int otel_leaf_name(const struct metric *m, enum otel_leaf leaf, char *buf, size_t size)
{
	int n;

	if (leaf == OTEL_LEAF_VALUE)
		n = snprintf(buf, size, OTEL_PMNS_ROOT ".%s", m->path);
	else
		n = snprintf(buf, size, OTEL_PMNS_ROOT ".%s.%s", m->path, otel_leaf_names[leaf]);
	return n < 0 || (size_t)n >= size ? -1 : n;
}

/* ---- PMIDs ---- */

static int leaf_cmp(const void *key, const void *elem)
{
	pmID a = *(const pmID *)key, b = ((const struct leafref *)elem)->pmid;

	return a < b ? -1 : a > b;
}

struct leafref *otel_leaf_find(struct otel_store *s, pmID pmid)
{
	if (s->nleaves == 0)
		return NULL;
	return bsearch(&pmid, s->leaves, s->nleaves, sizeof(*s->leaves), leaf_cmp);
}

pmID otel_pmid_choose(struct otel_store *s, const struct metric *m, enum otel_leaf leaf)
{
	char name[OTEL_LEAF_NAME_MAX];
	int n = otel_leaf_name(m, leaf, name, sizeof(name));
	unsigned mask = (1u << OTEL_PMID_BITS) - 1;
	unsigned bits = (unsigned)otel_hash(name, n < 0 ? 0 : (size_t)n, 0) & mask;

	while (otel_leaf_find(s, otel_pmid(s->domain, bits)) != NULL)
		bits = (bits + 1) & mask;
	return otel_pmid(s->domain, bits);
}

bool otel_pmid_take(struct otel_store *s, struct metric *m, enum otel_leaf leaf, pmID pmid)
{
	size_t lo = 0, hi = s->nleaves;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->leaves[mid].pmid == pmid)
			return false;
		if (s->leaves[mid].pmid < pmid)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(&s->leaves[lo + 1], &s->leaves[lo], (s->nleaves - lo) * sizeof(*s->leaves));
	s->leaves[lo] = (struct leafref){ pmid, leaf, m };
	s->nleaves++;
	m->pmid[leaf] = pmid;
	return true;
}

void otel_leaf_desc(const struct otel_store *s, const struct metric *m, enum otel_leaf leaf,
		pmDesc *d)
{
	static const pmUnits count = { .dimCount = 1 };

	memset(d, 0, sizeof(*d));
	d->pmid = m->pmid[leaf];
	d->indom = otel_indom(s->domain, d->pmid);
	d->sem = PM_SEM_INSTANT;
	d->units = m->units;
	switch (leaf) {
	case OTEL_LEAF_VALUE:
		d->type = m->type;
		if (m->kind == OTEL_SUM && m->monotonic)
			d->sem = PM_SEM_COUNTER;
		break;
	case OTEL_LEAF_COUNT:
	case OTEL_LEAF_BUCKET:
		d->type = PM_TYPE_U64;
		d->sem = PM_SEM_COUNTER;
		d->units = count;
		break;
	case OTEL_LEAF_SUM:
		d->type = PM_TYPE_DOUBLE;
		d->sem = PM_SEM_COUNTER;
		break;
	default:		/* p50, p90, p99, quantile */
		d->type = PM_TYPE_DOUBLE;
		break;
	}
}

/* ---- units ---- */

/*
 * UCUM units: X(UCUM, words, dimSpace, dimTime, scaleSpace, scaleTime,
 * PCP has them). "1" and {annotation} are counts (code below); days,
 * bits and percent PCP has no units for, so the help text names them.
 */
#define OTEL_UCUM_UNITS(X) \
	X("s", "seconds", 0, 1, 0, PM_TIME_SEC, true) \
	X("ms", "milliseconds", 0, 1, 0, PM_TIME_MSEC, true) \
	X("us", "microseconds", 0, 1, 0, PM_TIME_USEC, true) \
	X("ns", "nanoseconds", 0, 1, 0, PM_TIME_NSEC, true) \
	X("min", "minutes", 0, 1, 0, PM_TIME_MIN, true) \
	X("h", "hours", 0, 1, 0, PM_TIME_HOUR, true) \
	X("d", "days", 0, 1, 0, 0, false) \
	X("By", "bytes", 1, 0, PM_SPACE_BYTE, 0, true) \
	X("KiBy", "kibibytes", 1, 0, PM_SPACE_KBYTE, 0, true) \
	X("MiBy", "mebibytes", 1, 0, PM_SPACE_MBYTE, 0, true) \
	X("GiBy", "gibibytes", 1, 0, PM_SPACE_GBYTE, 0, true) \
	X("TiBy", "tebibytes", 1, 0, PM_SPACE_TBYTE, 0, true) \
	X("bit", "bits", 0, 0, 0, 0, false) \
	X("%", "percent", 0, 0, 0, 0, false)

struct ucum {
	const char *ucum, *words;
	int space, time, scale_space, scale_time;
	bool pcp;
};

static const struct ucum ucum_units[] = {
#define OTEL_X(u, w, ds, dt, ss, st, pcp) { u, w, ds, dt, ss, st, pcp },
	OTEL_UCUM_UNITS(OTEL_X)
#undef OTEL_X
};

const char *otel_unit_words(const char *unit)
{
	for (size_t i = 0; i < sizeof(ucum_units) / sizeof(ucum_units[0]); i++)
		if (strcmp(unit, ucum_units[i].ucum) == 0)
			return ucum_units[i].words;
	return NULL;
}

struct dims {
	int space, time, count, scale_space, scale_time;
};

/* One side of a unit (@len bytes of @u): false if PCP has no units for it; *@counts for 1 and {x}. */
static bool unit_side(const char *u, size_t len, struct dims *d, bool *counts)
{
	memset(d, 0, sizeof(*d));
	*counts = false;
	if ((len == 1 && u[0] == '1') ||
	    (len >= 2 && u[0] == '{' && u[len - 1] == '}' &&
	     memchr(u + 1, '{', len - 2) == NULL && memchr(u + 1, '}', len - 2) == NULL)) {
		*counts = true;
		d->count = 1;
		return true;
	}
	for (size_t i = 0; i < sizeof(ucum_units) / sizeof(ucum_units[0]); i++) {
		const struct ucum *c = &ucum_units[i];

		if (strlen(c->ucum) != len || memcmp(u, c->ucum, len) != 0)
			continue;
		if (!c->pcp)
			return false;
		d->space = c->space;
		d->time = c->time;
		d->scale_space = c->scale_space;
		d->scale_time = c->scale_time;
		return true;
	}
	return false;
}

/* One dimension of A/B: false when both have it at different scales. */
static bool quotient(int a, int as, int b, int bs, int *dim, int *scale)
{
	if (a != 0 && b != 0 && as != bs)
		return false;
	*dim = a - b;
	*scale = *dim == 0 ? 0 : (a != 0 ? as : bs);
	return true;
}

bool otel_units(const char *unit, enum otel_kind kind, pmUnits *u)
{
	struct dims a, b, r = { 0 };
	const char *slash;
	bool ca, cb;

	memset(u, 0, sizeof(*u));
	if (unit == NULL || *unit == '\0')
		return true;
	if ((slash = strchr(unit, '/')) == NULL) {
		if (!unit_side(unit, strlen(unit), &a, &ca))
			return false;
		if (ca) {
			u->dimCount = kind == OTEL_SUM ? 1 : 0;
			return true;
		}
		r = a;
	} else {
		int dummy;

		if (strchr(slash + 1, '/') != NULL ||
		    !unit_side(unit, (size_t)(slash - unit), &a, &ca) ||
		    !unit_side(slash + 1, strlen(slash + 1), &b, &cb) ||
		    !quotient(a.space, a.scale_space, b.space, b.scale_space, &r.space, &r.scale_space) ||
		    !quotient(a.time, a.scale_time, b.time, b.scale_time, &r.time, &r.scale_time) ||
		    !quotient(a.count, 0, b.count, 0, &r.count, &dummy))
			return false;
	}
	u->dimSpace = r.space;
	u->dimTime = r.time;
	u->dimCount = r.count;
	u->scaleSpace = (unsigned)r.scale_space;
	u->scaleTime = (unsigned)r.scale_time;
	return true;
}
