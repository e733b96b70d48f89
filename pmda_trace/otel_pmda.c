/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OpenTelemetry metrics' side of the trace agent: see otel_pmda.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "otel_pmda.h"

#define TEXT_MAX	4096	/* bytes of a leaf's help text */

const char otel_pmda_leaf[] = "otel";

/*
 * The store's leaves as last synced: names sorted, each with its
 * descriptor and, for a leaf with instances, its entry in the indom
 * table, whose instance list is filled when a request needs it (stale
 * until then: a leaf's list costs a copy of every instance's name, and
 * one histogram's buckets may be a million of them).
 */
struct leaf {
	char *name;
	pmDesc desc;
	int ix;			/* in g.indoms; -1: no instances */
	int stale;		/* its instance list is not the store's now */
};

static struct {
	struct otel_store *s;
	const pmdaMetric *fixed;
	int nfixed;
	void (*sync)(pmdaExt *, int);	/* the agent's: its tables, then otel_pmda_sync */
	uint64_t gen;		/* the store's generation the tables are of */
	int synced;
	struct leaf *leaves;	/* by name */
	size_t n, cap;
	pmdaMetric *metrics;	/* the fixed ones, then one a leaf */
	pmdaIndom *indoms;	/* the fixed ones (copied each sync), then one a leaf with one */
	int nindoms, nfixed_indoms;
} g;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct leaf *)a)->name, ((const struct leaf *)b)->name);
}

static void add_leaf(void *arg, const char *name, const pmDesc *desc)
{
	struct leaf *p;

	(void)arg;
	if (g.n == g.cap) {
		size_t cap = g.cap ? g.cap * 2 : 64;

		if ((p = realloc(g.leaves, cap * sizeof(*p))) == NULL)
			return;
		g.leaves = p;
		g.cap = cap;
	}
	if ((g.leaves[g.n].name = strdup(name)) == NULL)
		return;
	g.leaves[g.n].ix = -1;
	g.leaves[g.n].stale = 0;
	g.leaves[g.n++].desc = *desc;
}

struct collect {
	pmdaInstid *set;
	int n, cap;
};

static void add_inst(void *arg, int inst, const char *name)
{
	struct collect *c = arg;
	pmdaInstid *p;

	if (c->n == c->cap) {
		int cap = c->cap ? c->cap * 2 : 16;

		if ((p = realloc(c->set, (size_t)cap * sizeof(*p))) == NULL)
			return;
		c->set = p;
		c->cap = cap;
	}
	if ((c->set[c->n].i_name = strdup(name)) != NULL)
		c->set[c->n++].i_inst = inst;
}

static void free_indom(pmdaIndom *d)
{
	for (int i = 0; i < d->it_numinst; i++)
		free(d->it_set[i].i_name);
	free(d->it_set);
	d->it_set = NULL;
	d->it_numinst = 0;
}

/* Forget the leaves and the store's instance domains. */
static void drop_tables(void)
{
	for (size_t i = 0; i < g.n; i++)
		free(g.leaves[i].name);
	g.n = 0;
	for (int i = g.nfixed_indoms; i < g.nindoms; i++)
		free_indom(&g.indoms[i]);
	g.nindoms = g.nfixed_indoms;
}

/* Rebuild the store's part of the tables; 0 or -ENOMEM (the fixed part stays served). */
static int rebuild(pmdaExt *pmda, int nfixed_indoms)
{
	size_t nm, ni, k;
	pmdaMetric *m;
	pmdaIndom *d;

	drop_tables();
	otel_leaves(g.s, add_leaf, NULL);
	if (g.n > 1)
		qsort(g.leaves, g.n, sizeof(*g.leaves), by_name);
	nm = (size_t)g.nfixed + g.n;
	ni = (size_t)nfixed_indoms + g.n;
	if ((m = realloc(g.metrics, nm * sizeof(*m))) == NULL)
		return -ENOMEM;
	g.metrics = m;
	if ((d = realloc(g.indoms, ni * sizeof(*d))) == NULL)
		return -ENOMEM;
	g.indoms = d;
	g.nfixed_indoms = g.nindoms = nfixed_indoms;
	memcpy(m, g.fixed, (size_t)g.nfixed * sizeof(*m));
	for (k = 0; k < g.n; k++) {
		pmdaMetric *e = &m[g.nfixed + (int)k];

		e->m_user = (void *)otel_pmda_leaf;
		e->m_desc = g.leaves[k].desc;
		if (e->m_desc.indom == PM_INDOM_NULL)
			continue;
		d[g.nindoms].it_indom = e->m_desc.indom;
		d[g.nindoms].it_set = NULL;
		d[g.nindoms].it_numinst = 0;
		g.leaves[k].ix = g.nindoms++;
		g.leaves[k].stale = 1;
	}
	pmdaRehash(pmda, m, (int)nm);
	return 0;
}

void otel_pmda_sync(pmdaExt *pmda, const pmdaIndom *fixed, int nfixed, int otel)
{
	static time_t expired;
	time_t now = time(NULL);
	uint64_t gen;

	if (g.s == NULL)
		return;
	if (now != expired) {	/* idle series leave, checked once a second */
		expired = now;
		otel_expire(g.s);
	}
	gen = otel_generation(g.s);
	if (otel && (!g.synced || gen != g.gen || nfixed != g.nfixed_indoms)) {
		if (rebuild(pmda, nfixed) < 0)
			return;
		g.gen = gen;
		g.synced = 1;
	}
	if (!g.synced)
		return;	/* pmdaInit's tables, the fixed ones alone, stand */
	memcpy(g.indoms, fixed, (size_t)nfixed * sizeof(*fixed));
	pmda->e_indoms = g.indoms;
	pmda->e_nindoms = g.nindoms;
}

/* The leaf whose instance domain is @indom, or NULL. */
static struct leaf *leaf_of_indom(pmInDom indom)
{
	for (size_t k = 0; k < g.n; k++)
		if (g.leaves[k].ix >= 0 && g.leaves[k].desc.indom == indom)
			return &g.leaves[k];
	return NULL;
}

void otel_pmda_want(pmInDom indom)
{
	struct collect c = { 0 };
	struct leaf *l;
	pmdaIndom *d;

	if (!otel_pmda_indom(indom) || !g.synced || (l = leaf_of_indom(indom)) == NULL ||
	    !l->stale)
		return;
	d = &g.indoms[l->ix];
	free_indom(d);
	otel_instances(g.s, indom, add_inst, &c);
	d->it_set = c.set;
	d->it_numinst = c.n;
	l->stale = 0;
}

void otel_pmda_want_pmid(pmID pmid)
{
	for (size_t k = 0; k < g.n && otel_pmda_pmid(pmid); k++)
		if (g.leaves[k].desc.pmid == pmid) {
			if (g.leaves[k].ix >= 0)
				otel_pmda_want(g.leaves[k].desc.indom);
			return;
		}
}

int otel_pmda_fetch(const pmdaMetric *m, unsigned inst, pmAtomValue *atom)
{
	int sts = otel_fetch(g.s, m->m_desc.pmid, (int)inst, atom);

	return sts == 0 ? PMDA_FETCH_NOVALUES : sts;
}

int otel_pmda_text(pmID pmid, int type, char **buf)
{
	static char text[TEXT_MAX];
	int sts;

	if (g.s == NULL || pmID_cluster(pmid) < OTEL_CLUSTER_MIN)
		return PM_ERR_PMID;
	sts = otel_text(g.s, pmid, (type & PM_TEXT_ONELINE) != 0, text, sizeof(text));
	if (sts < 0)
		return sts;
	*buf = text;
	return 0;
}

int otel_pmda_indom(pmInDom indom)
{
	return g.s != NULL && pmInDom_serial(indom) >= (unsigned)OTEL_CLUSTER_MIN << 10;
}

int otel_pmda_pmid(pmID pmid)
{
	return g.s != NULL && pmID_cluster(pmid) >= OTEL_CLUSTER_MIN;
}

static int add_labels(const char *json, int n, pmLabelSet **lp)
{
	int sts;

	if (n <= 0)
		return n;
	if ((sts = pmdaAddLabels(lp, "%s", json)) < 0)
		return sts;
	return *lp ? (*lp)->nlabels : 0;
}

int otel_pmda_item_labels(pmID pmid, pmLabelSet **lp)
{
	char json[OTEL_LABELS_MAX];

	if (g.s == NULL || pmID_cluster(pmid) < OTEL_CLUSTER_MIN)
		return 0;
	return add_labels(json, otel_item_labels(g.s, pmid, json, sizeof(json)), lp);
}

int otel_pmda_inst_labels(pmInDom indom, unsigned inst, pmLabelSet **lp)
{
	char json[OTEL_LABELS_MAX];

	if (!otel_pmda_indom(indom))
		return 0;
	return add_labels(json, otel_inst_labels(g.s, indom, (int)inst, json, sizeof(json)), lp);
}

/* ---- the names below trace.otel ---- */

static int otel_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
	pmDesc d;

	if (g.s == NULL)
		return PM_ERR_NAME;
	g.sync(pmda, 1);
	if (otel_lookup_name(g.s, name, &d) < 0)
		return PM_ERR_NAME;
	*pmid = d.pmid;
	return 0;
}

static int otel_name(pmID pmid, char ***names, pmdaExt *pmda)
{
	char name[OTEL_NAME_MAX + 64], **list;
	size_t len;

	if (g.s == NULL)
		return PM_ERR_PMID;
	g.sync(pmda, 1);
	if (otel_lookup_pmid(g.s, pmid, name, sizeof(name), NULL) < 0)
		return PM_ERR_PMID;
	len = strlen(name);
	/* one allocation, as libpcp frees it */
	if ((list = malloc(sizeof(char *) + len + 1)) == NULL)
		return -ENOMEM;
	list[0] = (char *)&list[1];
	memcpy(list[0], name, len + 1);
	*names = list;
	return 1;
}

/* The first leaf at or after @prefix in name order. */
static size_t lower_bound(const char *prefix)
{
	size_t lo = 0, hi = g.n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(g.leaves[mid].name, prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * pmdaTreeChildren's answer for @name: traverse 0, the immediate
 * children (relative names, PMNS_LEAF_STATUS or PMNS_NONLEAF_STATUS);
 * traverse 1, the full names of the leaves at or under @name. The
 * names come in one allocation, as libpcp frees them.
 */
static int otel_children(const char *name, int traverse, char ***kids, int **status,
			 pmdaExt *pmda)
{
	size_t plen = strlen(name), first, i, n = 0, bytes = 0, k;
	const char **pick;
	size_t *lens;
	char *prefix, **list, *p;
	int sts = 0, leaf;

	*kids = NULL;
	*status = NULL;
	if (g.s == NULL)
		return PM_ERR_NAME;
	g.sync(pmda, 1);	/* the leaves as the store has them now */
	if ((prefix = malloc(plen + 2)) == NULL)
		return -ENOMEM;
	memcpy(prefix, name, plen);
	memcpy(prefix + plen, ".", 2);
	first = lower_bound(prefix);
	pick = malloc((g.n - first + 1) * sizeof(*pick));
	lens = malloc((g.n - first + 1) * sizeof(*lens));
	*status = malloc((g.n - first + 1) * sizeof(**status));
	if (pick == NULL || lens == NULL || *status == NULL) {
		sts = -ENOMEM;
		goto out;
	}
	/* @name itself a leaf: no children, or itself when traversing */
	k = lower_bound(name);
	leaf = k < g.n && strcmp(g.leaves[k].name, name) == 0;
	if (leaf) {
		if (traverse) {
			pick[n] = name;
			lens[n] = plen;
			(*status)[n++] = PMNS_LEAF_STATUS;
		}
	}
	for (i = first; i < g.n && strncmp(g.leaves[i].name, prefix, plen + 1) == 0; i++) {
		const char *c = traverse ? g.leaves[i].name : g.leaves[i].name + plen + 1;
		size_t clen = traverse ? strlen(c) : strcspn(c, ".");

		/* a subtree's leaves are adjacent: its name once */
		if (n > 0 && lens[n - 1] == clen && memcmp(pick[n - 1], c, clen) == 0)
			continue;
		pick[n] = c;
		lens[n] = clen;
		(*status)[n++] = c[clen] == '.' ? PMNS_NONLEAF_STATUS : PMNS_LEAF_STATUS;
	}
	if (n == 0) {
		/* a leaf has no children, nor the root before any metric; others are unknown */
		sts = leaf || strcmp(name, OTEL_PMNS_ROOT) == 0 ? 0 : PM_ERR_NAME;
		goto out;
	}
	for (i = 0; i < n; i++)
		bytes += lens[i] + 1;
	if ((list = malloc(n * sizeof(char *) + bytes)) == NULL) {
		sts = -ENOMEM;
		goto out;
	}
	p = (char *)&list[n];
	for (i = 0; i < n; i++) {
		list[i] = p;
		memcpy(p, pick[i], lens[i]);
		p[lens[i]] = '\0';
		p += lens[i] + 1;
	}
	*kids = list;
	sts = (int)n;
out:
	if (sts <= 0) {
		free(*status);
		*status = NULL;
	}
	free(pick);
	free(lens);
	free(prefix);
	return sts;
}

void otel_pmda_setup(pmdaInterface *dp, struct otel_store *s, const pmdaMetric *fixed,
		     int nfixed, void (*sync)(pmdaExt *, int))
{
	g.s = s;
	g.fixed = fixed;
	g.nfixed = nfixed;
	g.sync = sync;
	dp->version.four.pmid = otel_pmid;
	dp->version.four.name = otel_name;
	dp->version.four.children = otel_children;
}
