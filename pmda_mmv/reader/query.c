/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * query.c - the snapshot's answers that need no file access: files,
 * names, descriptors, instance domains, help text (docs/mmv-format.md §9.5) and labels
 * (7.13). All read-only, so any number of threads may ask at once.
 */
#include <stdlib.h>
#include <string.h>
#include "reader_priv.h"

unsigned int mmvr_snapshot_not_ready(const mmvr_snapshot_t *snap)
{
	return snap->npending;
}

size_t mmvr_snapshot_nfiles(const mmvr_snapshot_t *snap)
{
	return snap->nfiles;
}

const mmvr_file_info_t *mmvr_snapshot_file(const mmvr_snapshot_t *snap, size_t i)
{
	return i < snap->nfiles ? &snap->files[i]->pub : NULL;
}

size_t mmvr_snapshot_nmetrics(const mmvr_snapshot_t *snap)
{
	return snap->nmetrics;
}

const mmvr_metric_info_t *mmvr_snapshot_metric(const mmvr_snapshot_t *snap,
		size_t i)
{
	return i < snap->nmetrics ? &snap->by_name[i]->pub : NULL;
}

bool mmvr_snapshot_same_names(const mmvr_snapshot_t *a, const mmvr_snapshot_t *b)
{
	size_t i;

	if (a->nmetrics != b->nmetrics)
		return false;
	for (i = 0; i < a->nmetrics; i++) {
		const rmetric_t *p = a->by_name[i], *q = b->by_name[i];

		if (p == q)	/* a metric of a file both share */
			continue;
		if (p->pub.desc.pmid != q->pub.desc.pmid ||
		    strcmp(p->pub.name, q->pub.name) != 0)
			return false;
	}
	return true;
}

static int cmp_name_key(const void *key, const void *elem)
{
	return strcmp(key, (*(rmetric_t *const *)elem)->pub.name);
}

const mmvr_metric_info_t *mmvr_snapshot_lookup_name(const mmvr_snapshot_t *snap,
		const char *name)
{
	rmetric_t **m;

	if (snap->nmetrics == 0 || name == NULL)
		return NULL;
	m = bsearch(name, snap->by_name, snap->nmetrics, sizeof(*m),
			cmp_name_key);
	return m ? &(*m)->pub : NULL;
}

size_t mmvr_snapshot_name_range(const mmvr_snapshot_t *snap, const char *prefix,
		size_t *first)
{
	size_t lo = 0, hi = snap->nmetrics, len = strlen(prefix), end;

	while (lo < hi) {	/* the first name not below @prefix */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(snap->by_name[mid]->pub.name, prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Names sharing a prefix are adjacent in bytewise order. */
	for (end = lo; end < snap->nmetrics &&
	     strncmp(snap->by_name[end]->pub.name, prefix, len) == 0; end++)
		;
	*first = lo;
	return end - lo;
}

/* Cluster, then item: two array steps, whatever the number of metrics. */
const mmvr_metric_info_t *mmvr_snapshot_lookup_pmid(const mmvr_snapshot_t *snap,
		pmID pmid)
{
	const rfile_t *f;
	unsigned int k;

	if (mmv_pmid_domain(pmid) != snap->domain)
		return NULL;
	f = snap->by_cluster[mmv_pmid_cluster(pmid)];
	if (f == NULL || f->by_item == NULL ||
	    (k = f->by_item[mmv_pmid_item(pmid)]) == 0)
		return NULL;
	return &f->metrics[k - 1].pub;
}

const mmvr_quick_t *mmvr_snapshot_lookup_quick(const mmvr_snapshot_t *snap,
		pmID pmid)
{
	unsigned int k = snap->fast_of[mmv_pmid_cluster(pmid)];
	unsigned int item = mmv_pmid_item(pmid);
	const rquicktab_t *t;

	if (mmv_pmid_domain(pmid) != snap->domain || k == 0)
		return NULL;
	t = snap->fast[k - 1].table;
	if (item >= t->nitems || t->quick[item].offset == 0)
		return NULL;
	return &t->quick[item];
}

size_t mmvr_snapshot_nindoms(const mmvr_snapshot_t *snap)
{
	return snap->nindoms;
}

const mmvr_indom_info_t *mmvr_snapshot_indom(const mmvr_snapshot_t *snap,
		size_t i)
{
	return i < snap->nindoms ? &snap->indoms[i] : NULL;
}

static int cmp_indom_key(const void *key, const void *elem)
{
	return mmvr_cmp_u32(*(const pmInDom *)key,
			((const mmvr_indom_info_t *)elem)->indom);
}

const mmvr_indom_info_t *mmvr_snapshot_lookup_indom(const mmvr_snapshot_t *snap,
		pmInDom indom)
{
	if (snap->nindoms == 0)
		return NULL;
	return bsearch(&indom, snap->indoms, snap->nindoms,
			sizeof(*snap->indoms), cmp_indom_key);
}

/* docs/mmv-format.md §9.5: the one-line text if asked for and present, else the long. */
static int pick_text(int type, const char *shorttext, const char *helptext,
		const char **text)
{
	if ((type & PM_TEXT_ONELINE) && shorttext != NULL)
		*text = shorttext;
	else if ((type & PM_TEXT_HELP) && helptext != NULL)
		*text = helptext;
	else
		return PM_ERR_TEXT;
	return 0;
}

int mmvr_snapshot_text(const mmvr_snapshot_t *snap, int ident, int type,
		const char **text)
{
	if (type & PM_TEXT_INDOM) {
		const mmvr_indom_info_t *d;

		d = mmvr_snapshot_lookup_indom(snap, (pmInDom)ident);
		if (d == NULL)
			return PM_ERR_INDOM;
		return pick_text(type, d->shorttext, d->helptext, text);
	} else {
		const mmvr_metric_info_t *m;

		m = mmvr_snapshot_lookup_pmid(snap, (pmID)ident);
		if (m == NULL)
			return PM_ERR_PMID;
		return pick_text(type, m->shorttext, m->helptext, text);
	}
}

/* Whether label @l of file @f belongs to the subject asked for. */
static bool label_matches(const rfile_t *f, const rlabel_t *l, int type,
		uint32_t id, int inst)
{
	if ((l->flags & ~(uint32_t)PM_LABEL_OPTIONAL) != (uint32_t)type)
		return false;
	switch (type) {
	case PM_LABEL_CLUSTER:
		/* The writer stores the requested cluster (0 = automatic). */
		return l->identity == (uint32_t)f->pub.requested_cluster;
	case PM_LABEL_INSTANCES:
		if (inst != (int)PM_IN_NULL && l->internal != inst)
			return false;
		/* fall through */
	default:
		return l->identity == id;
	}
}

int mmvr_snapshot_labels(const mmvr_snapshot_t *snap, int type,
		unsigned int ident, int inst, mmvr_label_cb cb, void *arg)
{
	unsigned int cluster, id;
	const rfile_t *f;
	int n = 0;
	uint32_t i;

	if (type == PM_LABEL_CLUSTER || type == PM_LABEL_ITEM) {
		cluster = mmv_pmid_cluster(ident);
		id = mmv_pmid_item(ident);
	} else if (type == PM_LABEL_INDOM || type == PM_LABEL_INSTANCES) {
		cluster = mmv_indom_cluster(ident);
		id = mmv_indom_file_serial(ident);
	} else {
		return 0;
	}
	if (mmv_pmid_domain(ident) != snap->domain)
		return 0;
	f = snap->by_cluster[cluster];
	if (type == PM_LABEL_INDOM || type == PM_LABEL_INSTANCES) {
		/* Indoms keep the low cluster bits; only one of c and
		 * c + MMV_INDOM_CLUSTERS has any. */
		if ((f == NULL || f->nindoms == 0) &&
		    cluster < MMV_INDOM_CLUSTERS)
			f = snap->by_cluster[cluster + MMV_INDOM_CLUSTERS];
	}
	if (f == NULL)
		return 0;
	for (i = 0; i < f->nlabels; i++) {
		const rlabel_t *l = &f->labels[i];
		int sts;

		if (!label_matches(f, l, type, id, inst))
			continue;
		sts = cb(arg, l->flags, type == PM_LABEL_INSTANCES ?
				l->internal : (int)PM_IN_NULL, l->json);
		if (sts < 0)
			return sts;
		n++;
	}
	return n;
}
