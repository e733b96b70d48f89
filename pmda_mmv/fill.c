/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fill.c - a fetch's reply (docs/mmv-format.md §9.9-§9.11): the PMIDs of
 * a request looked up once into a plan (kept for a repeated list), the
 * value sets laid out in one pinned PDU buffer and filled under one SIGBUS
 * guard, value blocks from chunks the agent keeps.
 */
#include <setjmp.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "agent.h"

/* One value of @w as pmdaFetch's callback contract has it: 1, 0 or an error. */
static int value_of(struct agent *a, const struct view *v,
		const struct want *w, pmID pmid, int inst, pmAtomValue *atom)
{
	const mmvr_metric_info_t *m = w->m;
	bool armed = a->guard != NULL;
	int sts;

	if (w->q.offset != 0) {
		sts = mmvr_snapshot_fetch_quick(v->snap, pmid, &w->q, &a->value,
				armed);
	} else if (m == NULL) {
		return mmvp_control_value(a, v, mmv_pmid_item(pmid), atom);
	} else if (mmv_pmid_cluster(pmid) == 0) {	/* a percentile */
		sts = mmvr_pct_fetch(a->pct, v->pct, v->snap, m, inst, atom);
		return sts == 0 ? PMDA_FETCH_NOVALUES : sts;
	} else {
		sts = armed ? mmvr_snapshot_fetch_armed(v->snap, m, inst, &a->value) :
			mmvr_snapshot_fetch_metric(v->snap, m, inst, &a->value);
	}
	if (sts <= 0)
		return sts == 0 ? PMDA_FETCH_NOVALUES : sts;
	*atom = a->value.atom;
	if (a->value.type == PM_TYPE_STRING)
		atom->cp = a->value.str;
	return 1;
}

/* @size bytes (at most VCHUNK) for a value block of this reply. */
static inline void *block_alloc(struct agent *a, size_t size)
{
	struct vchunk *c = a->cur;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (c == NULL || c->used + size > VCHUNK) {
		/* the next chunk: kept from earlier replies, or new */
		struct vchunk **next = c != NULL ? &c->next : &a->blocks;

		if (*next == NULL) {
			if ((*next = malloc(sizeof(**next))) == NULL)
				return NULL;
			(*next)->next = NULL;
		}
		a->cur = c = *next;
		c->used = 0;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

/* A value block of @type holding the @body bytes at @src, as
 * __pmStuffValue lays one out; NULL: out of memory. */
static inline pmValueBlock *block_of(struct agent *a, int type,
		const void *src, size_t body)
{
	pmValueBlock hdr = { 0 }, *b = block_alloc(a, PM_VAL_HDR_SIZE + body);

	if (b == NULL)
		return NULL;
	hdr.vlen = PM_VAL_HDR_SIZE + body;
	hdr.vtype = type;
	memcpy(b, &hdr, PM_VAL_HDR_SIZE);	/* one store: no read of b */
	memcpy(b->vbuf, src, body);
	return b;
}

/* __pmStuffValue's encoding, into a block of ours: the valfmt or error. */
static int stuff(struct agent *a, const pmAtomValue *atom, int type,
		pmValue *out)
{
	const void *src = atom;
	size_t body;
	pmValueBlock *b;

	switch (type) {
	case PM_TYPE_32:
	case PM_TYPE_U32:
		out->value.lval = atom->l;
		return PM_VAL_INSITU;
	case PM_TYPE_FLOAT:
		body = sizeof(float);
		break;
	case PM_TYPE_64:
	case PM_TYPE_U64:
	case PM_TYPE_DOUBLE:
		body = sizeof(uint64_t);
		break;
	case PM_TYPE_STRING:
		body = strlen(atom->cp) + 1;
		src = atom->cp;
		break;
	default:
		return PM_ERR_TYPE;
	}
	if ((b = block_of(a, type, src, body)) == NULL)
		return -ENOMEM;
	out->value.pval = b;
	return PM_VAL_SPTR;
}

/* The instances of @d the profile wants, in indom order (as pmdaFetch). */
static int profile_count(const mmvr_indom_info_t *d, const pmProfile *prof)
{
	unsigned int k;
	int n = 0;

	for (k = 0; d != NULL && k < d->ninstances; k++)
		n += __pmInProfile(d->indom, prof, d->instances[k].inst) != 0;
	return n;
}

static void log_value_error(pmID pmid, int inst, int sts)
{
	char id[20], err[PM_MAXERRMSGLEN];

	/* pmdaFetch's choice: these are quiet, others are logged. */
	if (sts == PM_ERR_INST || sts == PM_ERR_APPVERSION ||
	    sts == PM_ERR_PERMISSION || sts == PM_ERR_AGAIN || sts == PM_ERR_NYI)
		return;
	pmNotifyErr(LOG_ERR, "pmdaFetch: Fetch callback error from metric "
			"PMID %s[%d]: %s\n", pmIDStr_r(pmid, id, sizeof(id)), inst,
			pmErrStr_r(sts, err, sizeof(err)));
}

/* Append the value of (@pmid, @inst) to @vs; the callback-style status. */
static int add_value(struct agent *a, const struct view *v,
		const struct want *w, pmValueSet *vs, int type, int inst)
{
	pmAtomValue atom;
	int sts = value_of(a, v, w, vs->pmid, inst, &atom);

	if (sts < 0 && a->guard != NULL) {
		mmvr_guard_disarm();	/* logging takes locks */
		log_value_error(vs->pmid, inst, sts);
		mmvr_guard_arm(a->guard);
	} else if (sts < 0) {
		log_value_error(vs->pmid, inst, sts);
	} else if (sts > 0 && (sts = stuff(a, &atom, type, &vs->vlist[vs->numval])) >= 0) {
		vs->vlist[vs->numval++].inst = inst;
		vs->valfmt = sts;
	}
	return sts;
}

/* Look @pmid up: its metric, indom and how many values its set holds. */
static void want_of(const struct view *v, pmID pmid, const pmProfile *prof,
		struct want *w)
{
	const mmvr_quick_t *q = mmvr_snapshot_lookup_quick(v->snap, pmid);

	w->m = NULL;
	w->d = NULL;
	w->numval = 1;
	w->q = q != NULL ? *q : (mmvr_quick_t){ 0 };
	if (q != NULL)
		return;		/* most metrics of most requests */
	if (mmv_pmid_cluster(pmid) == 0 && mmv_pmid_item(pmid) < NCONTROL)
		return;		/* control metrics: singular */
	if ((w->m = mmvp_lookup_pmid(v, pmid)) == NULL) {
		w->numval = PM_ERR_PMID;
	} else if (w->m->desc.indom != PM_INDOM_NULL) {
		w->d = mmvp_lookup_indom(v, w->m->desc.indom);
		w->numval = profile_count(w->d, prof);
	}
}

/* Bytes of the value set @w needs, a multiple of 8. */
static size_t want_size(const struct want *w)
{
	size_t n = w->numval > 1 ? (size_t)w->numval - 1 : 0;

	return (sizeof(pmValueSet) + n * sizeof(pmValue) + 7) & ~(size_t)7;
}

/* Fill the value set of @pmid, as pmdaFetch would build it, into @vs. */
static void value_set(struct agent *a, const struct view *v, pmID pmid,
		const struct want *w, const pmProfile *prof, pmValueSet *vs)
{
	const mmvr_indom_info_t *d = w->d;
	int type = w->q.offset != 0 ? mmvr_quick_type(&w->q) :
		w->m != NULL ? w->m->desc.type : mmvp_control_type(pmid), sts = 0;
	unsigned int k;

	vs->pmid = pmid;
	vs->numval = 0;
	vs->valfmt = PM_VAL_INSITU;
	if (w->numval <= 0) {
		vs->numval = w->numval;
		return;
	}
	if (d == NULL)
		sts = add_value(a, v, w, vs, type, PM_IN_NULL);
	for (k = 0; d != NULL && k < d->ninstances; k++)
		if (__pmInProfile(d->indom, prof, d->instances[k].inst))
			sts = add_value(a, v, w, vs, type, d->instances[k].inst);
	if (vs->numval == 0)
		vs->numval = sts;	/* no values: the last status */
}

/*
 * The value set of a quick want while the reply's guard is armed, the
 * same as value_set's, with nothing copied twice: most PMIDs of a large
 * request come here. False: an elapsed time, for value_set. It encodes
 * as stuff() does, on purpose not through it: through stuff, or a shared
 * switch over the types, this loop ran 5-55 % slower (bench_mmv_dso).
 */
static bool quick_set(struct agent *a, const struct view *v, pmID pmid,
		const mmvr_quick_t *q, pmValueSet *vs)
{
	int type = mmvr_quick_type(q), sts;
	pmValueBlock *b;
	pmAtomValue atom;

	if ((sts = mmvr_snapshot_read_quick(v->snap, pmid, q, &atom)) > 1)
		return false;
	vs->pmid = pmid;
	vs->valfmt = PM_VAL_INSITU;
	vs->numval = sts;
	if (sts <= 0)
		return true;	/* PM_ERR_AGAIN is not logged (log_value_error) */
	vs->vlist[0].inst = PM_IN_NULL;
	if (type == PM_TYPE_32 || type == PM_TYPE_U32) {
		vs->vlist[0].value.lval = atom.l;
		return true;
	}
	/* constant sizes: each copy is one move */
	b = type == PM_TYPE_FLOAT ? block_of(a, type, &atom, sizeof(float)) :
		block_of(a, type, &atom, sizeof(uint64_t));
	if (b == NULL) {
		vs->numval = -ENOMEM;
		return true;
	}
	vs->vlist[0].value.pval = b;
	vs->valfmt = PM_VAL_SPTR;
	return true;
}

/* Give back the value sets of a reply that was not sent. */
static void release_sets(pmdaResult *r)
{
	if (r->numpmid > 0)
		__pmUnpinPDUBuf(r->vset[0]);
}

/* What one fill of a reply works from (fill_sets, fill_loop). */
struct fill {
	struct agent *a;
	const struct view *v;
	int n;				/* PMIDs */
	pmID *pmids;			/* the request's */
	const struct want *w;		/* their lookups, in @order */
	const int *order;		/* the fill's order: the PMIDs' indexes;
					 * NULL: the request's */
	char *buf;			/* where the value sets go */
	const pmProfile *prof;		/* the request's instances */
};

/*
 * The value sets of @f's PMIDs laid out in @f->buf in @f->order; vset[]
 * keeps the request's order.
 */
static void fill_loop(const struct fill *f)
{
	struct agent *a = f->a;
	pmdaResult *r = a->res;
	size_t off = (8 - ((uintptr_t)f->buf & 7)) & 7;

	a->cur = NULL;	/* pmcd has sent the last reply: reuse its chunks */
	for (int k = 0; k < f->n; k++) {
		int i = f->order != NULL ? f->order[k] : k;
		const struct want *w = &f->w[k];
		pmValueSet *vs = (pmValueSet *)(void *)(f->buf + off);

		r->vset[i] = vs;
		if (w->q.offset == 0 || a->guard == NULL ||
		    !quick_set(a, f->v, f->pmids[i], &w->q, vs))
			value_set(a, f->v, f->pmids[i], w, f->prof, vs);
		off += want_size(w);
	}
}

/*
 * All values read under one SIGBUS guard (one sigsetjmp a reply, plain
 * loads from the mappings). If a file shrank under its mapping the guard
 * jumps back here and the sets are filled again with a guard per value,
 * so only that file's values fail (and the snapshot is marked changed).
 */
static void fill_sets(const struct fill *f)
{
	struct agent *a = f->a;
	mmvr_guard_t g;

	if (sigsetjmp(g.env, 0) == 0) {
		a->guard = &g;
		mmvr_guard_arm(&g);
	} else {
		a->guard = NULL;	/* jumped back: a file shrank */
	}
	fill_loop(f);
	if (a->guard != NULL)
		mmvr_guard_disarm();
	a->guard = NULL;
}

static int cmp_addr(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;

	return a < b ? -1 : a > b;
}

/* A PMID of a plan, where a fill reads it: for plan_order. */
struct rec {
	uintptr_t file;		/* its file's generations; UINTPTR_MAX: not
				 * a quick want */
	uintptr_t addr;		/* its value record */
	int first;		/* the first PMID of its file (of the
				 * non-quick wants: its own) */
	int i;			/* its index in the request */
};

/* By file, then place in the request. */
static int cmp_file(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* By the file's first place in the request, then record address. */
static int cmp_fill(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;	/* a PMID asked twice */
}

/*
 * The order a fill of @p visits its PMIDs (@r: where each one is read):
 * file by file, in the order the request first names each file, and in
 * each file upward by record address, so that the fill reads records as
 * the processor's prefetcher follows them whatever order the request has.
 * Shuffled, a cold fill read its records at random (bench/RESULTS.md,
 * eleventh pass). The wants are put in that order too, so a fill reads
 * both in one sweep; only the reply's vset[] is written out of turn. A
 * request already upward in each file keeps its order (so does one for
 * want of memory: a hint only, as the pages). Once per plan, while
 * p->wants is in the request's order.
 */
static void plan_order(struct plan *p, struct rec *r)
{
	size_t n = (size_t)p->n;
	bool upward = true;
	struct want *w;
	int i, *o;

	qsort(r, n, sizeof(*r), cmp_file);
	for (i = 0; i < p->n; i++) {
		if (i == 0 || r[i].file != r[i - 1].file ||
		    r[i].file == UINTPTR_MAX) {
			r[i].first = r[i].i;
			continue;
		}
		r[i].first = r[i - 1].first;
		upward &= r[i].addr >= r[i - 1].addr;
	}
	if (upward)
		return;
	qsort(r, n, sizeof(*r), cmp_fill);
	o = malloc(n * sizeof(*o));
	w = malloc(n * sizeof(*w));
	if (o != NULL && w != NULL) {
		for (i = 0; i < p->n; i++) {
			o[i] = r[i].i;
			w[i] = p->wants[o[i]];
		}
		memcpy(p->wants, w, n * sizeof(*w));
		p->order = o;
		o = NULL;
	}
	free(o);
	free(w);
}

/*
 * List the pages a fill of @p reads, one address in each (the lowest it
 * reads there): its wants, and each quick want's file generations and
 * value record. Prefetched before a fill, their TLB misses overlap
 * instead of coming one at a time inside the loop: cold, with 1,000 PMIDs
 * from 100 files, about 200 pages (bench/RESULTS.md, ninth pass). A hint
 * only: no list (out of memory) just prefetches nothing. Also sets the
 * order of the fill (plan_order).
 */
static void plan_pages(const struct view *v, struct plan *p)
{
	size_t bytes = (size_t)p->n * sizeof(*p->wants);
	uintptr_t *a = malloc((2 * (size_t)p->n + bytes / PLAN_PAGE + 2) *
			sizeof(*a));
	struct rec *r = malloc((size_t)p->n * sizeof(*r));
	size_t k = 0, o;

	free(p->pages);
	p->pages = a;
	p->npages = 0;
	if (a == NULL || r == NULL) {
		free(r);
		return;
	}
	for (o = 0; o < bytes; o += PLAN_PAGE)
		a[k++] = (uintptr_t)p->wants + o;
	a[k++] = (uintptr_t)p->wants + bytes - 1;
	for (int i = 0; i < p->n; i++) {
		const void *addr[2];

		r[i].i = i;
		r[i].file = r[i].addr = UINTPTR_MAX;
		if (p->wants[i].q.offset == 0)
			continue;
		mmvr_snapshot_quick_addrs(v->snap, p->pmids[i], &p->wants[i].q,
				addr);
		a[k++] = (uintptr_t)addr[0];
		a[k++] = (uintptr_t)addr[1];
		r[i].file = (uintptr_t)addr[0];
		r[i].addr = (uintptr_t)addr[1];
	}
	plan_order(p, r);
	free(r);
	qsort(a, k, sizeof(*a), cmp_addr);
	for (o = 0; o < k; o++)
		if (p->npages == 0 ||
		    a[p->npages - 1] / PLAN_PAGE != a[o] / PLAN_PAGE)
			a[p->npages++] = a[o];
}

/*
 * The plan of @n @pmids in @v: a kept one if this list was asked in @v
 * before (*@kept set: its instance counts are the last request's), else
 * the oldest one looked up anew. NULL: out of memory.
 */
static struct plan *plan_of(struct agent *a, const struct view *v, int n,
		const pmID *pmids, const pmProfile *prof, bool *kept)
{
	struct plan *p = NULL;
	int i, k;

	*kept = false;
	for (k = 0; k < NPLAN; k++) {
		struct plan *c = &a->plans[k];

		if (c->serial == v->serial && c->n == n &&
		    memcmp(c->pmids, pmids, (size_t)n * sizeof(*pmids)) == 0) {
			*kept = true;
			p = c;
			goto found;
		}
		if (p == NULL || c->used < p->used)
			p = c;
	}
	if (n > p->cap) {
		pmID *ids = malloc((size_t)n * sizeof(*ids));
		struct want *w = malloc((size_t)n * sizeof(*w));

		if (ids == NULL || w == NULL) {
			free(ids);
			free(w);
			return NULL;
		}
		free(p->pmids);
		free(p->wants);
		p->pmids = ids;
		p->wants = w;
		p->cap = n;
	}
	p->serial = v->serial;
	p->n = n;
	memcpy(p->pmids, pmids, (size_t)n * sizeof(*pmids));
	for (i = 0; i < n; i++)
		want_of(v, pmids[i], prof, &p->wants[i]);
	p->npages = -1;
	free(p->order);
	p->order = NULL;
found:
	if (*kept && p->npages < 0)
		plan_pages(v, p);	/* asked again: worth listing */
	p->used = ++a->requests;
	return p;
}

/*
 * A PDU buffer of @need bytes for a reply's value sets. The agent keeps
 * one, with a pin of its own and SETS_PINS spare pins taken at once
 * (libpcp looks a buffer up under its lock for each): each reply uses
 * up one, which its release (pmcd's __pmFreeResultValues for a DSO,
 * pmdaMain's for a daemon) gives back to libpcp. A larger request
 * replaces the buffer; replies not yet released keep the old one.
 */
#define SETS_PINS	64

static char *sets_buffer(struct agent *a, size_t need)
{
	if (need > a->sets_size) {
		char *buf = need > INT_MAX ? NULL : __pmFindPDUBuf((int)need);

		if (buf == NULL)
			return NULL;
		for (int i = 0; a->sets != NULL && i <= a->sets_pins; i++)
			__pmUnpinPDUBuf(a->sets);
		a->sets = buf;
		a->sets_size = need;
		a->sets_pins = 0;
	}
	if (a->sets_pins == 0)
		for (; a->sets_pins < SETS_PINS; a->sets_pins++)
			__pmPinPDUBuf(a->sets);
	a->sets_pins--;
	return a->sets;
}

static int fetch_result(struct agent *a, const struct view *v, int n,
		pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
	pmdaResult *r = a->res;
	struct plan *p;
	size_t need = 8;
	bool kept;
	char *buf;
	int i;

	if (n > a->maxres || r == NULL) {
		r = malloc(sizeof(*r) + (n > 1 ? n - 1 : 0) * sizeof(r->vset[0]));
		if (r == NULL)
			return -ENOMEM;
		free(a->res);
		a->res = r;
		a->maxres = n > 1 ? n : 1;
	}
	memset(&r->timestamp, 0, sizeof(r->timestamp));
	/* The first timestamp byte carries the state changes (pmdaFetch). */
	if (pmda->e_flags & PMDA_EXT_NAMES_CHANGE)
		*(unsigned char *)&r->timestamp |= PMCD_NAMES_CHANGE;
	r->numpmid = 0;
	if (n > 0) {
		if ((p = plan_of(a, v, n, pmids, pmda->e_prof, &kept)) == NULL)
			return -ENOMEM;
		/* Instances follow this request's profile: only a plan
		 * with an indom sizes its reply again. */
		if (!kept || p->ninst > 0) {
			p->ninst = 0;
			for (i = 0; i < n; i++) {
				struct want *w = &p->wants[i];

				if (w->d != NULL) {
					p->ninst++;
					if (kept)
						w->numval = profile_count(w->d,
								pmda->e_prof);
				}
				need += want_size(w);
			}
			p->need = need;
		}
		for (i = 0; i < p->npages; i++)	/* plan_pages says why */
			__builtin_prefetch((const void *)p->pages[i]);
		if ((buf = sets_buffer(a, p->need)) == NULL)
			return -ENOMEM;
		fill_sets(&(struct fill){ .a = a, .v = v, .n = n, .pmids = pmids,
				.w = p->wants, .order = p->order, .buf = buf,
				.prof = pmda->e_prof });
	}
	r->numpmid = n;
	pmda->e_flags &= ~PMDA_EXT_NAMES_CHANGE;
	*resp = r;
	return 0;
}

int mmvp_fetch(int n, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
	struct agent *a = pmdaExtGetData(pmda);
	struct view *v = mmvp_enter(pmda);
	int sts;

	if (__atomic_exchange_n(&a->names_changed, 0, __ATOMIC_ACQ_REL))
		pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
	/* A DSO has no thread of its own: it samples when asked. */
	if (!a->threaded)
		mmvp_sample(a, v);
	sts = fetch_result(a, v, n, pmids, resp, pmda);
	if (sts == 0 && mmvr_snapshot_fetch_saw_change(v->snap)) {
		/* A file changed in place: answer from the rescanned files,
		 * keeping the state change the first answer carried. */
		if (*(unsigned char *)&(*resp)->timestamp & PMCD_NAMES_CHANGE)
			pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
		release_sets(*resp);
		mmvp_leave(a);
		v = mmvp_enter(pmda);
		if (__atomic_exchange_n(&a->names_changed, 0, __ATOMIC_ACQ_REL))
			pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
		sts = fetch_result(a, v, n, pmids, resp, pmda);
	}
	mmvp_leave(a);
	return sts;
}
