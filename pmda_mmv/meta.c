/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * meta.c - everything of a request but values (docs/mmv-format.md §9.3,
 * §9.5, §9.6): descriptors, names and PMIDs, children in the namespace,
 * instances, help texts and labels, answered from the view itself.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "agent.h"

int mmvp_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	const mmvr_metric_info_t *m;
	int sts = 0;

	memset(desc, 0, sizeof(*desc));
	if (pmID_cluster(pmid) == 0 && pmID_item(pmid) < NCONTROL) {
		desc->pmid = pmid;
		desc->type = mmvp_control_type(pmid);
		desc->indom = PM_INDOM_NULL;
		desc->sem = PM_SEM_INSTANT;
	} else if ((m = mmvp_lookup_pmid(v, pmid)) != NULL) {
		*desc = m->desc;
	} else {
		sts = PM_ERR_PMID;
	}
	mmvp_leave(mmvp_current);
	return sts;
}

/*
 * The instance table of @indom alone, for pmdaInstance and pmdaLabel:
 * built per request (a table of every indom per scan costs too much).
 */
static int indom_table(struct agent *a, const struct view *v, pmInDom indom,
		pmdaExt *pmda)
{
	const mmvr_indom_info_t *d = mmvp_lookup_indom(v, indom);
	unsigned int k;

	pmda->e_indoms = NULL;
	pmda->e_nindoms = 0;
	if (d == NULL)
		return 0;
	if (d->ninstances + 1 > a->iset_cap) {
		pmdaInstid *more = realloc(a->iset, (d->ninstances + 1) *
				sizeof(*more));

		if (more == NULL)
			return -ENOMEM;
		a->iset = more;
		a->iset_cap = d->ninstances + 1;
	}
	for (k = 0; k < d->ninstances; k++) {
		a->iset[k].i_inst = d->instances[k].inst;
		/* lives as long as the snapshot, pinned for the request */
		a->iset[k].i_name = (char *)d->instances[k].name;
	}
	a->itab.it_indom = indom;
	a->itab.it_numinst = (int)d->ninstances;
	a->itab.it_set = a->iset;
	pmda->e_indoms = &a->itab;
	pmda->e_nindoms = 1;
	return 0;
}

int mmvp_instance(pmInDom indom, int inst, char *name,
		pmInResult **result, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	int sts;

	if ((sts = indom_table(mmvp_current, v, indom, pmda)) == 0)
		sts = pmdaInstance(indom, inst, name, result, pmda);
	pmda->e_indoms = NULL;
	pmda->e_nindoms = 0;
	mmvp_leave(mmvp_current);
	return sts;
}

/* Help text is copied: after mmvp_leave() the snapshot may be freed before
 * the library has sent the reply. */
static int keep_text(struct agent *a, const char *text, char **buf)
{
	char *copy = strdup(text);

	if (copy == NULL)
		return -ENOMEM;
	free(a->text);
	a->text = copy;
	*buf = copy;
	return 0;
}

int mmvp_text(int ident, int type, char **buf, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	struct agent *a = mmvp_current;
	const char *text = NULL;
	int sts;

	if ((type & PM_TEXT_PMID) && pmID_cluster((pmID)ident) == 0) {
		unsigned int item = pmID_item((pmID)ident);
		const mmvr_metric_info_t *m;

		if (item >= NCONTROL) {
			m = mmvr_pct_view_lookup_pmid(v->pct, (pmID)ident);
			sts = m == NULL ? PM_ERR_PMID : PM_ERR_TEXT;
			if (m != NULL && (type & PM_TEXT_ONELINE))
				text = m->shorttext;
			else if (m != NULL)
				text = m->helptext;
			if (text != NULL)
				sts = 0;
		} else {
			text = mmvp_control_text(item, (type & PM_TEXT_ONELINE) != 0);
			sts = 0;
		}
	} else {
		sts = mmvr_snapshot_text(v->snap, ident, type, &text);
		if (sts == PM_ERR_INDOM)	/* a histogram's cumulative buckets? */
			sts = mmvr_pct_view_text(v->pct, ident, type, &text);
	}
	if (sts == 0)
		sts = keep_text(a, text, buf);
	mmvp_leave(a);
	return sts;
}

int mmvp_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	const mmvr_metric_info_t *m;
	int item = mmvp_control_item(mmvp_current, name), sts = 0;

	if (item >= 0)
		*pmid = pmID_build(mmvp_current->dp->domain, 0, item);
	else if ((m = mmvp_lookup_name(v, name)) != NULL)
		*pmid = m->desc.pmid;
	else
		sts = PM_ERR_NAME;
	mmvp_leave(mmvp_current);
	return sts;
}

/* @n strings in one allocation after their pointers, as libpcp frees. */
static char **name_list(const char *const *s, const size_t *len, int n)
{
	size_t size = (size_t)n * sizeof(char *);
	char **list, *p;
	int i;

	for (i = 0; i < n; i++)
		size += len[i] + 1;
	if ((list = malloc(size)) == NULL)
		return NULL;
	p = (char *)&list[n];
	for (i = 0; i < n; i++) {
		list[i] = p;
		memcpy(p, s[i], len[i]);
		p[len[i]] = '\0';
		p += len[i] + 1;
	}
	return list;
}

int mmvp_name(pmID pmid, char ***names, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	const mmvr_metric_info_t *m;
	const char *name = NULL;
	size_t len;
	int sts = 1;

	if (pmID_cluster(pmid) == 0 && pmID_item(pmid) < NCONTROL)
		name = mmvp_current->ctl_names[pmID_item(pmid)];
	else if ((m = mmvp_lookup_pmid(v, pmid)) != NULL)
		name = m->name;
	if (name == NULL)
		sts = PM_ERR_PMID;
	else if ((len = strlen(name), *names = name_list(&name, &len, 1)) == NULL)
		sts = -ENOMEM;
	mmvp_leave(mmvp_current);
	return sts;
}

/*
 * The full names strictly under @name (sorted, the control metrics
 * last) in a new array; *leaf says whether @name is itself a metric.
 */
static const char **names_under(const struct agent *a, const struct view *v,
		const char *name, size_t *count, bool *leaf)
{
	size_t len = strlen(name), first, n, pfirst, pn, i, k = 0;
	char *prefix = malloc(len + 2);
	const char **all = NULL;

	*count = 0;
	*leaf = mmvp_control_item(a, name) >= 0 || mmvp_lookup_name(v, name) != NULL;
	if (prefix == NULL)
		return NULL;
	memcpy(prefix, name, len);
	memcpy(prefix + len, ".", 2);
	n = mmvr_snapshot_name_range(v->snap, prefix, &first);
	/* Percentiles live in their own subtree: one adjacent block. */
	pn = mmvr_pct_view_name_range(v->pct, prefix, &pfirst);
	if ((all = malloc((n + pn + NCONTROL + 1) * sizeof(*all))) != NULL) {
		for (i = 0; i < n; i++)
			all[k++] = mmvr_snapshot_metric(v->snap, first + i)->name;
		for (i = 0; i < pn; i++)
			all[k++] = mmvr_pct_view_metric(v->pct, pfirst + i)->name;
		for (i = 0; i < NCONTROL; i++)
			if (strncmp(a->ctl_names[i], prefix, len + 1) == 0)
				all[k++] = a->ctl_names[i];
		*count = k;
	}
	free(prefix);
	return all;
}

/*
 * pmdaTreeChildren's answers: traverse 0, the immediate children's
 * relative names and leaf status (0 for a metric); traverse 1, the full
 * names of every metric at or under @name.
 */
static int children_of(const struct agent *a, const struct view *v,
		const char *name, int traverse, char ***kids, int **status)
{
	size_t n, i, k = 0, plen = strlen(name) + 1, *lens = NULL;
	const char **all, **out = NULL;
	bool leaf;
	int sts;

	if ((all = names_under(a, v, name, &n, &leaf)) == NULL)
		return -ENOMEM;
	if (leaf) {	/* a metric: no children, or itself */
		all[0] = name;
		n = traverse ? 1 : 0;
		plen = 0;
	}
	if (n == 0) {
		free(all);
		return leaf ? 0 : PM_ERR_NAME;
	}
	out = malloc(n * sizeof(*out));
	lens = malloc(n * sizeof(*lens));
	*status = malloc(n * sizeof(**status));
	if (out == NULL || lens == NULL || *status == NULL) {
		sts = -ENOMEM;
		goto done;
	}
	for (i = 0; i < n; i++) {
		const char *c = traverse ? all[i] : all[i] + plen;
		size_t clen = traverse ? strlen(c) : strcspn(c, ".");

		/* Children in a subtree are adjacent: skip repeats. */
		if (k > 0 && lens[k - 1] == clen && memcmp(out[k - 1], c, clen) == 0)
			continue;
		out[k] = c;
		lens[k] = clen;
		(*status)[k++] = c[clen] == '.' ? PMNS_NONLEAF_STATUS :
			PMNS_LEAF_STATUS;
	}
	sts = (*kids = name_list(out, lens, (int)k)) == NULL ? -ENOMEM : (int)k;
done:
	if (sts < 0) {
		free(*status);
		*status = NULL;
	}
	free(lens);
	free(out);
	free(all);
	return sts;
}

int mmvp_children(const char *name, int traverse, char ***kids,
		int **status, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	int sts = children_of(mmvp_current, v, name, traverse, kids, status);

	mmvp_leave(mmvp_current);
	return sts;
}

/* One label record: payload with its flags (OPTIONAL kept, docs/mmv-format.md §9.6). */
static int add_label(void *arg, unsigned int flags, int inst,
		const char *json)
{
	pmLabelSet **lp = arg;
	int sts;

	(void)inst;
	if ((sts = pmdaAddLabels(lp, "%s", json)) < 0)
		return sts;
	return pmdaAddLabelFlags(*lp, (int)flags);
}

/* pmdaLabel takes the return for the set's label count: give it that. */
int mmvp_instance_labels(pmInDom indom, unsigned int inst,
		pmLabelSet **lp)
{
	mmvr_snapshot_labels(mmvp_current_view->snap, PM_LABEL_INSTANCES, indom,
			(int)inst, add_label, lp);
	mmvr_pct_view_labels(mmvp_current_view->pct, PM_LABEL_INSTANCES, indom,
			(int)inst, add_label, lp);
	return *lp != NULL && (*lp)->labels != NULL ? (*lp)->nlabels : 0;
}

int mmvp_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda)
{
	struct view *v = mmvp_enter(pmda);
	int sts = 0;

	switch (type) {
	case PM_LABEL_CLUSTER:
	case PM_LABEL_ITEM:
	case PM_LABEL_INDOM:
		sts = mmvr_snapshot_labels(v->snap, type, (unsigned int)ident,
				(int)PM_IN_NULL, add_label, lp);
		break;
	default:
		break;
	}
	if (sts >= 0 && type == PM_LABEL_INSTANCES)
		sts = indom_table(mmvp_current, v, (pmInDom)ident, pmda);
	if (sts >= 0)
		sts = pmdaLabel(ident, type, lp, pmda);
	pmda->e_indoms = NULL;
	pmda->e_nindoms = 0;
	mmvp_leave(mmvp_current);
	return sts;
}
