/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pct.c - percentiles of histograms over a rolling window
 * (docs/mmv-format.md §9.8): the estimator, the window of sampled bucket
 * counts, finding histograms in a snapshot by their labels, and the
 * slots that give each histogram's percentile metrics stable PMIDs.
 *
 * The agent's state (slots and windows) outlives snapshots; a view is
 * the immutable list of percentile metrics of one snapshot, built when
 * the snapshot is and freed with it. Slots and windows are touched under
 * one mutex: the daemon samples on its rescan thread while requests
 * fetch on the main thread.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "bucket_pct.h"
#include "label_text.h"
#include "reader_priv.h"

static const double quantile[MMVR_PCT_NQ] = { 0.5, 0.9, 0.99 };
static const char *const qname[MMVR_PCT_NITEMS] = { "p50", "p90", "p99", "bucket" };

int mmvr_pct_estimate(const mmvr_pct_bucket_t *b, const uint64_t *counts,
		unsigned int n, double q, double *out)
{
	return sdk_pct_estimate(b, counts, n, q, out);
}

int mmvr_pct_window_init(mmvr_pct_window_t *w, uint64_t window_ms,
		uint64_t step_ms, unsigned int ncounts)
{
	uint64_t nslots;

	memset(w, 0, sizeof(*w));
	if (step_ms == 0 || window_ms < step_ms || ncounts == 0)
		return -EINVAL;
	/* Samples are at least 7/8 of a step apart (a timer waking a bit
	 * early still samples): this many span the window. */
	nslots = window_ms * 8 / (step_ms * 7) + 2;
	if (nslots > 100000)
		return -EINVAL;
	w->window_ms = window_ms;
	w->step_ms = step_ms;
	w->ncounts = ncounts;
	w->nslots = (unsigned int)nslots;
	w->stamp = calloc(nslots, sizeof(*w->stamp));
	w->counts = calloc(nslots * ncounts, sizeof(*w->counts));
	if (w->stamp == NULL || w->counts == NULL) {
		mmvr_pct_window_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void mmvr_pct_window_fini(mmvr_pct_window_t *w)
{
	free(w->stamp);
	free(w->counts);
	memset(w, 0, sizeof(*w));
}

void mmvr_pct_window_clear(mmvr_pct_window_t *w)
{
	w->used = 0;
	w->head = 0;
}

bool mmvr_pct_window_due(const mmvr_pct_window_t *w, uint64_t now_ms)
{
	return w->used == 0 ||
		now_ms + w->step_ms / 8 >= w->stamp[w->head] + w->step_ms;
}

static const uint64_t *sample_at(const mmvr_pct_window_t *w, unsigned int back)
{
	unsigned int i = (w->head + w->nslots - back) % w->nslots;

	return &w->counts[(size_t)i * w->ncounts];
}

void mmvr_pct_window_push(mmvr_pct_window_t *w, uint64_t now_ms,
		const uint64_t *counts)
{
	unsigned int i;

	if (w->used > 0) {
		const uint64_t *last = sample_at(w, 0);

		/* A counter went back: the writer started again. */
		for (i = 0; i < w->ncounts; i++)
			if (counts[i] < last[i]) {
				mmvr_pct_window_clear(w);
				break;
			}
	}
	if (w->used > 0)
		w->head = (w->head + 1) % w->nslots;
	w->stamp[w->head] = now_ms;
	memcpy(&w->counts[(size_t)w->head * w->ncounts], counts,
			w->ncounts * sizeof(*counts));
	if (w->used < w->nslots)
		w->used++;
}

bool mmvr_pct_window_delta(const mmvr_pct_window_t *w, unsigned int first,
		unsigned int n, uint64_t *out)
{
	uint64_t newest, start;
	unsigned int back = 0, i;
	const uint64_t *a, *z;

	if (w->used < 2 || first + n > w->ncounts)
		return false;
	newest = w->stamp[w->head];
	start = newest >= w->window_ms ? newest - w->window_ms : 0;
	/* The oldest sample still inside the window. */
	while (back + 1 < w->used &&
	       w->stamp[(w->head + w->nslots - back - 1) % w->nslots] >= start)
		back++;
	if (back == 0)
		return false;
	a = sample_at(w, back);
	z = sample_at(w, 0);
	for (i = 0; i < n; i++)
		out[i] = z[first + i] - a[first + i];
	return true;
}

/* Histograms found in a snapshot. */
typedef struct pset {
	int inst;			/* of the histograms' indom, or PM_IN_NULL */
	unsigned int first, n;		/* its buckets, by lo */
} pset_t;

typedef struct phist {
	const mmvr_metric_info_t *bm;	/* the bucket counters, NAME.bucket */
	const char *base;		/* NAME */
	const char *rel;		/* NAME after "<prefix>." */
	pmInDom indom;
	pmUnits units;
	unsigned int nsets, nb;
	pset_t *sets;
	int *binst;			/* bucket instances, set by set */
	mmvr_pct_bucket_t *bounds;
	uint64_t key;			/* of the layout: changed -> new window */
	unsigned int slot;
	uint64_t epoch;
	/* the buckets again, cumulative, for Prometheus: the instance of
	 * bucket j (its id, binst[j]) is named by its upper bound, le */
	mmvr_indom_info_t le;		/* nb instances, bucket order */
	const char **le_json;		/* bucket j's {"le":"..."} */
	const char **of_json;		/* set s's {"of":"..."}; NULL: singular */
} phist_t;

typedef struct pmetric {
	mmvr_metric_info_t pub;		/* first: queries hand out &pub */
	const phist_t *h;
	unsigned int q;
} pmetric_t;

struct mmvr_pct_view {
	arena_t arena;
	phist_t *hists;
	size_t nhists;
	pmetric_t *metrics;		/* sorted by name */
	size_t nmetrics;
	pmetric_t **by_item;		/* cluster 0's items */
	unsigned int domain;
};

typedef struct pslot {
	char *name;			/* NULL: free */
	uint64_t key;
	uint64_t epoch;
	uint64_t seen;			/* last build that had it */
	mmvr_pct_window_t w;
} pslot_t;

struct mmvr_pct {
	/* builds, epochs, scratch and slots: a build, a sample and a fetch
	 * (the rescan thread, the sampler, a request) each hold it throughout */
	pthread_mutex_t lock;
	char prefix[64];
	unsigned int domain;
	uint64_t window_ms, step_ms;
	uint64_t builds, epochs;
	uint64_t *scratch;		/* one histogram's counts */
	unsigned int nscratch;
	pslot_t slots[MMVR_PCT_MAX_SLOTS];
};

/* The value of label @key if @json is {"key":...}, else NULL. */
static const char *label_value(const char *json, const char *key)
{
	size_t n = strlen(key);

	while (*json == ' ' || *json == '{')
		json++;
	if (*json++ != '"' || strncmp(json, key, n) != 0 || json[n] != '"')
		return NULL;
	json += n + 1;
	while (*json == ' ')
		json++;
	if (*json++ != ':')
		return NULL;
	while (*json == ' ')
		json++;
	return json;
}

static bool label_number(const char *json, const char *key, double *out)
{
	const char *v = label_value(json, key);
	char *end;

	if (v == NULL)
		return false;
	*out = strtod(v, &end);
	return end != v;
}

/* A JSON string label without escapes equal to @name? */
static bool label_string_is(const char *json, const char *key, const char *name)
{
	const char *v = label_value(json, key);
	size_t n = strlen(name);

	return v != NULL && v[0] == '"' && strncmp(v + 1, name, n) == 0 &&
		v[n + 1] == '"';
}

typedef struct pbucket {
	int inst;
	const char *name;
	bool has_lo, has_hi;
	mmvr_pct_bucket_t b;
	unsigned int set;		/* UINT_MAX: none */
} pbucket_t;

static int cmp_pbucket_inst(const void *a, const void *b)
{
	const pbucket_t *x = a, *y = b;

	return x->inst < y->inst ? -1 : x->inst > y->inst;
}

static int cmp_pbucket_order(const void *a, const void *b)
{
	const pbucket_t *x = a, *y = b;

	if (x->set != y->set)
		return x->set < y->set ? -1 : 1;
	return x->b.lo < y->b.lo ? -1 : x->b.lo > y->b.lo;
}

static const rindom_t *file_indom(const rfile_t *f, uint32_t serial)
{
	uint32_t i;

	for (i = 0; i < f->nindoms; i++)
		if (f->indoms[i].serial == serial)
			return &f->indoms[i];
	return NULL;
}

/* The sibling metric <base><suffix>, or NULL. */
static const mmvr_metric_info_t *sibling(const mmvr_snapshot_t *snap,
		const char *base, const char *suffix)
{
	char name[MMV_NAMEMAX * 2 + 128];

	if ((size_t)snprintf(name, sizeof(name), "%s%s", base, suffix) >=
	    sizeof(name))
		return NULL;
	return mmvr_snapshot_lookup_name(snap, name);
}

/* NAME of a histogram whose buckets are NAME.bucket (or NAME itself). */
static char *base_name(arena_t *ar, const char *bucket_metric)
{
	size_t n = strlen(bucket_metric), s = sizeof(".bucket") - 1;

	if (n > s && strcmp(bucket_metric + n - s, ".bucket") == 0)
		n -= s;
	return mmvr_arena_strndup(ar, bucket_metric, n);
}

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n-- > 0)
		h = (h ^ *c++) * 1099511628211ull;
	return h;
}

/* Bucket labels of the instances of @d (one pass over the file's labels). */
static void bucket_labels(const rfile_t *f, uint32_t serial, pbucket_t *pb,
		unsigned int nb, const mmvr_indom_info_t *sets)
{
	uint32_t i;

	for (i = 0; i < f->nlabels; i++) {
		const rlabel_t *l = &f->labels[i];
		pbucket_t key = { .inst = l->internal }, *b;
		unsigned int s;

		if ((l->flags & ~(uint32_t)PM_LABEL_OPTIONAL) != PM_LABEL_INSTANCES ||
		    l->identity != serial)
			continue;
		b = bsearch(&key, pb, nb, sizeof(*pb), cmp_pbucket_inst);
		if (b == NULL)
			continue;
		if (label_number(l->json, "lo", &b->b.lo))
			b->has_lo = true;
		else if (label_number(l->json, "hi", &b->b.hi))
			b->has_hi = true;
		else if (sets != NULL && label_value(l->json, "of") != NULL)
			for (s = 0; s < sets->ninstances; s++)
				if (label_string_is(l->json, "of",
						sets->instances[s].name))
					b->set = s;
	}
}

/* Fill @h's sets and buckets from @pb (sorted set by set, by lo). */
static bool fill_hist(arena_t *ar, phist_t *h, pbucket_t *pb, unsigned int nb,
		const mmvr_indom_info_t *sets)
{
	unsigned int i, s, nsets = sets ? sets->ninstances : 1, used = 0;

	for (i = 0; i < nb && pb[i].set != UINT_MAX; i++)
		used++;
	h->sets = mmvr_arena_array(ar, nsets, sizeof(*h->sets));
	h->binst = mmvr_arena_array(ar, used ? used : 1, sizeof(*h->binst));
	h->bounds = mmvr_arena_array(ar, used ? used : 1, sizeof(*h->bounds));
	if (h->sets == NULL || h->binst == NULL || h->bounds == NULL)
		return false;
	h->key = fnv(14695981039346656037ull, &used, sizeof(used));
	for (s = 0; s < nsets; s++) {
		h->sets[s].inst = sets ? sets->instances[s].inst : (int)PM_IN_NULL;
		h->sets[s].first = h->nb;
		h->key = fnv(h->key, &h->sets[s].inst, sizeof(int));
		for (i = 0; i < used; i++) {
			if (pb[i].set != s)
				continue;
			h->binst[h->nb] = pb[i].inst;
			h->bounds[h->nb] = pb[i].b;
			h->key = fnv(h->key, &pb[i].inst, sizeof(int));
			h->key = fnv(h->key, &pb[i].b, sizeof(pb[i].b));
			h->nb++;
		}
		h->sets[s].n = h->nb - h->sets[s].first;
	}
	h->nsets = nsets;
	return true;
}

/* Sorted buckets of one set that do not overlap and are bounded but for
 * the last; a set breaking this is served no value (n = 0). */
static void check_sets(const mmvr_snapshot_t *snap, phist_t *h)
{
	unsigned int s, k;

	for (s = 0; s < h->nsets; s++) {
		const mmvr_pct_bucket_t *b = &h->bounds[h->sets[s].first];
		unsigned int n = h->sets[s].n;

		for (k = 0; k < n; k++)
			if (!(b[k].hi > b[k].lo) || b[k].lo < 0 ||
			    (k + 1 < n && b[k].hi > b[k + 1].lo))
				break;
		if (k < n) {
			mmvr_log(snap, LOG_WARNING, NULL, "%s: buckets overlap "
					"or lack bounds: no percentiles",
					h->bm->name);
			h->sets[s].n = 0;
		}
	}
}

/* Set @s's buckets: [first, its end), whether or not check_sets found them
 * usable (it leaves first, and n 0 for a set it refuses). */
static unsigned int set_end(const phist_t *h, unsigned int s)
{
	return s + 1 < h->nsets ? h->sets[s + 1].first : h->nb;
}

/* The set of @h holding bucket @j. */
static unsigned int set_of(const phist_t *h, unsigned int j)
{
	unsigned int s;

	for (s = 0; s + 1 < h->nsets && j >= set_end(h, s); s++)
		;
	return s;
}

/* {"@key":"@s"} in @ar; NULL on ENOMEM (an MMV string always fits). */
static const char *json_label(arena_t *ar, const char *key, const char *s)
{
	char buf[6 * MMV_STRINGMAX + 16];

	if (sdk_json_label(buf, sizeof(buf), key, s) < 0)
		return NULL;
	return mmvr_arena_strdup(ar, buf);
}

/*
 * The cumulative buckets of @h, as Prometheus reads a histogram: bucket j
 * is named (and labelled "le") by its upper bound in the histogram's
 * units ("+Inf" for the overflow bucket), after "<set instance>:" for a
 * histogram per instance, which is labelled "of" too. False on ENOMEM.
 */
static bool make_le(arena_t *ar, phist_t *h, const mmvr_indom_info_t *sets)
{
	mmvr_instance_info_t *inst = mmvr_arena_array(ar, h->nb ? h->nb : 1, sizeof(*inst));
	unsigned int s, k;
	char le[64], name[MMV_STRINGMAX + 80];

	h->le_json = mmvr_arena_array(ar, h->nb ? h->nb : 1, sizeof(*h->le_json));
	if (inst == NULL || h->le_json == NULL)
		return false;
	if (sets != NULL &&
	    (h->of_json = mmvr_arena_array(ar, h->nsets, sizeof(*h->of_json))) == NULL)
		return false;
	for (s = 0; s < h->nsets; s++) {
		const char *setname = sets ? sets->instances[s].name : NULL;

		if (setname != NULL && (h->of_json[s] = json_label(ar, "of", setname)) == NULL)
			return false;
		for (k = h->sets[s].first; k < set_end(h, s); k++) {
			sdk_le_text(h->bounds[k].hi, le, sizeof(le));
			if (setname != NULL)
				snprintf(name, sizeof(name), "%s:%s", setname, le);
			else
				snprintf(name, sizeof(name), "%s", le);
			inst[k].inst = h->binst[k];
			if ((inst[k].name = mmvr_arena_strdup(ar, name)) == NULL ||
			    (h->le_json[k] = json_label(ar, "le", le)) == NULL)
				return false;
		}
	}
	h->le.ninstances = h->nb;
	h->le.instances = inst;
	snprintf(name, sizeof(name), "Cumulative buckets of histogram %s", h->base);
	h->le.shorttext = mmvr_arena_strdup(ar, name);
	h->le.helptext = mmvr_arena_strdup(ar, "One instance per bucket, named by its "
			"upper bound (label \"le\"), after the\ninstance of the "
			"histogram (label \"of\") for a histogram per instance.");
	return h->le.shorttext != NULL && h->le.helptext != NULL;
}

/* One histogram of file @f whose bucket metric is @m; false on ENOMEM. */
static bool find_hist(mmvr_pct_view_t *v, const mmvr_snapshot_t *snap,
		const rfile_t *f, const rmetric_t *m, phist_t *h, bool *found)
{
	const char *base = base_name(&v->arena, m->pub.name);
	const mmvr_metric_info_t *count, *sum;
	const mmvr_indom_info_t *sets = NULL;
	const rindom_t *d = file_indom(f, m->serial);
	pbucket_t *pb;
	unsigned int nb = 0, i;
	bool ok;

	*found = false;
	if (base == NULL)
		return false;
	count = sibling(snap, base, ".count");
	sum = sibling(snap, base, ".sum");
	if (count == NULL || d == NULL || m->mtype != MMV_TYPE_U64)
		return true;
	if (count->desc.indom != PM_INDOM_NULL &&
	    (sets = mmvr_snapshot_lookup_indom(snap, count->desc.indom)) == NULL)
		return true;
	if ((pb = calloc(d->nraw ? d->nraw : 1, sizeof(*pb))) == NULL)
		return false;
	for (i = 0; i < d->nraw; i++) {
		if (d->inst[i].name == NULL)
			continue;
		pb[nb].inst = d->inst[i].id;
		pb[nb].b.hi = INFINITY;
		pb[nb].set = sets ? UINT_MAX : 0;
		nb++;
	}
	qsort(pb, nb, sizeof(*pb), cmp_pbucket_inst);
	bucket_labels(f, m->serial, pb, nb, sets);
	for (i = 0; i < nb; i++)
		if (!pb[i].has_lo)
			pb[i].set = UINT_MAX;	/* not a bucket */
	qsort(pb, nb, sizeof(*pb), cmp_pbucket_order);
	memset(h, 0, sizeof(*h));
	h->bm = &m->pub;
	h->base = base;
	h->rel = base + strlen(snap->prefix) + 1;
	h->indom = count->desc.indom;
	if (sum != NULL)
		h->units = sum->desc.units;
	ok = fill_hist(&v->arena, h, pb, nb, sets);
	free(pb);
	if (ok) {
		check_sets(snap, h);
		ok = make_le(&v->arena, h, sets);
		*found = ok;
	}
	return ok;
}

/* Every histogram of @snap into v->hists; false on ENOMEM. */
static bool find_hists(mmvr_pct_view_t *v, const mmvr_snapshot_t *snap)
{
	size_t cap = 0, fi;
	uint32_t i;

	for (fi = 0; fi < snap->nfiles; fi++) {
		const rfile_t *f = snap->files[fi];

		for (i = 0; i < f->nlabels; i++) {
			const rlabel_t *l = &f->labels[i];
			const rmetric_t *m;
			unsigned int k;
			bool found;

			if ((l->flags & ~(uint32_t)PM_LABEL_OPTIONAL) != PM_LABEL_ITEM ||
			    label_value(l->json, "histogram") == NULL ||
			    f->by_item == NULL || l->identity > MMV_ITEM_MAX ||
			    (k = f->by_item[l->identity]) == 0)
				continue;
			m = &f->metrics[k - 1];
			if (v->nhists == cap) {
				phist_t *more = realloc(v->hists,
						(cap = cap ? 2 * cap : 16) *
						sizeof(*more));

				if (more == NULL)
					return false;
				v->hists = more;
			}
			if (!find_hist(v, snap, f, m, &v->hists[v->nhists], &found))
				return false;
			v->nhists += found;
		}
	}
	return true;
}

mmvr_pct_t *mmvr_pct_new(const char *prefix, unsigned int domain,
		uint64_t window_ms, uint64_t step_ms)
{
	mmvr_pct_t *p;
	mmvr_pct_window_t probe;

	if (mmvr_pct_window_init(&probe, window_ms, step_ms, 1) < 0)
		return NULL;
	mmvr_pct_window_fini(&probe);
	if ((p = calloc(1, sizeof(*p))) == NULL)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	snprintf(p->prefix, sizeof(p->prefix), "%s", prefix ? prefix : "mmv");
	p->domain = domain ? domain : MMVR_DOMAIN;
	p->window_ms = window_ms;
	p->step_ms = step_ms;
	return p;
}

void mmvr_pct_free(mmvr_pct_t *p)
{
	unsigned int i;

	if (p == NULL)
		return;
	for (i = 0; i < MMVR_PCT_MAX_SLOTS; i++) {
		free(p->slots[i].name);
		mmvr_pct_window_fini(&p->slots[i].w);
	}
	free(p->scratch);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

uint64_t mmvr_pct_step_ms(const mmvr_pct_t *p)
{
	return p->step_ms;
}

/* The slot of @h's name: its own, a free one, or the longest unseen. */
static int take_slot(mmvr_pct_t *p, const phist_t *h)
{
	int i, pick = -1;

	for (i = 0; i < MMVR_PCT_MAX_SLOTS; i++)
		if (p->slots[i].name != NULL &&
		    strcmp(p->slots[i].name, h->bm->name) == 0)
			return i;
	for (i = 0; i < MMVR_PCT_MAX_SLOTS && pick < 0; i++)
		if (p->slots[i].name == NULL)
			pick = i;
	for (i = 0; i < MMVR_PCT_MAX_SLOTS && pick < 0; i++)
		if (p->slots[i].seen < p->builds)
			pick = i;
	for (; i < MMVR_PCT_MAX_SLOTS; i++)
		if (p->slots[i].seen < p->slots[pick].seen)
			pick = i;
	if (pick < 0)
		return -1;
	free(p->slots[pick].name);
	mmvr_pct_window_fini(&p->slots[pick].w);
	if ((p->slots[pick].name = strdup(h->bm->name)) == NULL)
		return -ENOMEM;
	p->slots[pick].key = h->key + 1;	/* forces a new window */
	return pick;
}

/* Give @h a slot with a window for its layout; -1: none left. */
static int bind_slot(mmvr_pct_t *p, const mmvr_snapshot_t *snap, phist_t *h)
{
	int i = take_slot(p, h);
	pslot_t *s;

	if (i < 0) {
		if (i == -1)
			mmvr_log(snap, LOG_WARNING, NULL, "%s: more than %d "
					"histograms: no percentiles",
					h->bm->name, MMVR_PCT_MAX_SLOTS);
		return i;
	}
	s = &p->slots[i];
	s->seen = p->builds;
	h->slot = (unsigned int)i;
	if (s->key != h->key) {
		mmvr_pct_window_fini(&s->w);
		if (h->nb > 0 && mmvr_pct_window_init(&s->w, p->window_ms,
				p->step_ms, h->nb) < 0)
			return -ENOMEM;
		s->key = h->key;
		s->epoch = ++p->epochs;
	}
	h->epoch = s->epoch;
	if (h->nb > p->nscratch) {
		uint64_t *more = realloc(p->scratch, h->nb * sizeof(*more));

		if (more == NULL)
			return -ENOMEM;
		p->scratch = more;
		p->nscratch = h->nb;
	}
	return 0;
}

static int cmp_pmetric_name(const void *a, const void *b)
{
	return strcmp(((const pmetric_t *)a)->pub.name,
			((const pmetric_t *)b)->pub.name);
}

static const char *ordinal(unsigned int q)
{
	return q == 0 ? "50th" : q == 1 ? "90th" : "99th";
}

/* Descriptor and texts of @h's cumulative buckets, named and numbered. */
static bool make_le_metric(mmvr_pct_view_t *v, const phist_t *h, pmetric_t *pm)
{
	char buf[1024];

	pm->pub.desc.type = PM_TYPE_U64;
	pm->pub.desc.sem = PM_SEM_COUNTER;
	pm->pub.desc.indom = h->le.indom;
	pm->pub.desc.units = (pmUnits){ .dimCount = 1, .scaleCount = PM_COUNT_ONE };
	snprintf(buf, sizeof(buf), "Cumulative buckets of histogram %s", h->base);
	pm->pub.shorttext = mmvr_arena_strdup(&v->arena, buf);
	snprintf(buf, sizeof(buf), "The values recorded in histogram %s below "
			"each bucket's upper bound\n(instance label \"le\", "
			"in the histogram's units; \"+Inf\": all of them),\n"
			"counted since the writer started: what Prometheus's "
			"histogram_quantile reads.\n%s.bucket has the same counts "
			"bucket by bucket.", h->base, h->base);
	pm->pub.helptext = mmvr_arena_strdup(&v->arena, buf);
	return pm->pub.name && pm->pub.shorttext && pm->pub.helptext;
}

/* Name, descriptor and texts of percentile @q of @h. */
static bool make_metric(mmvr_pct_t *p, mmvr_pct_view_t *v, const phist_t *h,
		unsigned int q, pmetric_t *pm)
{
	char buf[1024];
	double w = (double)p->window_ms / 1000, st = (double)p->step_ms / 1000;

	pm->h = h;
	pm->q = q;
	snprintf(buf, sizeof(buf), "%s.%s.%s.%s", p->prefix, MMVR_PCT_NAME,
			h->rel, qname[q]);
	pm->pub.name = mmvr_arena_strdup(&v->arena, buf);
	pm->pub.desc.pmid = mmv_pmid_build(p->domain, 0,
			MMVR_PCT_ITEM0 + MMVR_PCT_NITEMS * h->slot + q);
	if (q == MMVR_PCT_LE)
		return make_le_metric(v, h, pm);
	pm->pub.desc.type = PM_TYPE_DOUBLE;
	pm->pub.desc.sem = PM_SEM_INSTANT;
	pm->pub.desc.indom = h->indom;
	pm->pub.desc.units = h->units;
	snprintf(buf, sizeof(buf), "%s percentile of %s over the last %g s",
			ordinal(q), h->base, w);
	pm->pub.shorttext = mmvr_arena_strdup(&v->arena, buf);
	snprintf(buf, sizeof(buf), "The %s percentile of the values recorded "
			"in histogram %s\nin the last %g s, estimated by the "
			"agent from the bucket counts it samples\nevery %g s: "
			"linear interpolation inside the bucket holding the "
			"rank\n(the lower bound in the overflow bucket). No "
			"value until two samples\nspan the window, nor when "
			"nothing was recorded in it.", ordinal(q), h->base,
			w, st);
	pm->pub.helptext = mmvr_arena_strdup(&v->arena, buf);
	return pm->pub.name && pm->pub.shorttext && pm->pub.helptext;
}

static bool build_metrics(mmvr_pct_t *p, mmvr_pct_view_t *v,
		const mmvr_snapshot_t *snap)
{
	size_t i, n = 0;
	unsigned int q;
	int sts;

	v->metrics = mmvr_arena_array(&v->arena, v->nhists * MMVR_PCT_NITEMS + 1,
			sizeof(*v->metrics));
	v->by_item = mmvr_arena_array(&v->arena, MMV_ITEM_MAX + 1,
			sizeof(*v->by_item));
	if (v->metrics == NULL || v->by_item == NULL)
		return false;
	for (i = 0; i < v->nhists; i++) {
		if ((sts = bind_slot(p, snap, &v->hists[i])) == -ENOMEM)
			return false;
		if (sts == 0)
			v->hists[i].le.indom = mmv_indom_build(p->domain,
					(v->hists[i].slot + 1) << MMV_SERIAL_BITS);
		for (q = 0; sts == 0 && q < MMVR_PCT_NITEMS; q++)
			if (!make_metric(p, v, &v->hists[i], q, &v->metrics[n++]))
				return false;
	}
	qsort(v->metrics, n, sizeof(*v->metrics), cmp_pmetric_name);
	for (i = 0; i < n; i++)
		v->by_item[mmv_pmid_item(v->metrics[i].pub.desc.pmid)] = &v->metrics[i];
	v->nmetrics = n;
	return true;
}

mmvr_pct_view_t *mmvr_pct_view_build(mmvr_pct_t *p, const mmvr_snapshot_t *snap)
{
	mmvr_pct_view_t *v = calloc(1, sizeof(*v));
	bool ok;

	if (v == NULL)
		return NULL;
	v->domain = p->domain;
	if (!find_hists(v, snap)) {
		mmvr_pct_view_free(v);
		return NULL;
	}
	pthread_mutex_lock(&p->lock);
	p->builds++;
	ok = build_metrics(p, v, snap);
	pthread_mutex_unlock(&p->lock);
	if (!ok) {
		mmvr_pct_view_free(v);
		return NULL;
	}
	return v;
}

void mmvr_pct_view_free(mmvr_pct_view_t *v)
{
	if (v == NULL)
		return;
	mmvr_arena_free(&v->arena);
	free(v->hists);
	free(v);
}

size_t mmvr_pct_view_nhists(const mmvr_pct_view_t *v)
{
	return v->nhists;
}

size_t mmvr_pct_view_nmetrics(const mmvr_pct_view_t *v)
{
	return v->nmetrics;
}

const mmvr_metric_info_t *mmvr_pct_view_metric(const mmvr_pct_view_t *v,
		size_t i)
{
	return i < v->nmetrics ? &v->metrics[i].pub : NULL;
}

static int cmp_name_key(const void *key, const void *elem)
{
	return strcmp(key, ((const pmetric_t *)elem)->pub.name);
}

const mmvr_metric_info_t *mmvr_pct_view_lookup_name(const mmvr_pct_view_t *v,
		const char *name)
{
	const pmetric_t *m;

	if (v->nmetrics == 0 || name == NULL)
		return NULL;
	m = bsearch(name, v->metrics, v->nmetrics, sizeof(*m), cmp_name_key);
	return m ? &m->pub : NULL;
}

const mmvr_metric_info_t *mmvr_pct_view_lookup_pmid(const mmvr_pct_view_t *v,
		pmID pmid)
{
	const pmetric_t *m;

	if (v->by_item == NULL || mmv_pmid_domain(pmid) != v->domain ||
	    mmv_pmid_cluster(pmid) != 0)
		return NULL;
	m = v->by_item[mmv_pmid_item(pmid)];
	return m ? &m->pub : NULL;
}

size_t mmvr_pct_view_name_range(const mmvr_pct_view_t *v, const char *prefix,
		size_t *first)
{
	size_t lo = 0, hi = v->nmetrics, len = strlen(prefix), end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v->metrics[mid].pub.name, prefix) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < v->nmetrics &&
	     strncmp(v->metrics[end].pub.name, prefix, len) == 0; end++)
		;
	*first = lo;
	return end - lo;
}

/* The histogram whose cumulative buckets are @indom, or NULL. */
static const phist_t *le_hist(const mmvr_pct_view_t *v, pmInDom indom)
{
	for (size_t i = 0; i < v->nhists; i++)
		if (v->hists[i].le.indom == indom && indom != 0)
			return &v->hists[i];
	return NULL;
}

const mmvr_indom_info_t *mmvr_pct_view_lookup_indom(const mmvr_pct_view_t *v,
		pmInDom indom)
{
	const phist_t *h = le_hist(v, indom);

	return h ? &h->le : NULL;
}


int mmvr_pct_view_labels(const mmvr_pct_view_t *v, int type, unsigned int ident,
		int inst, mmvr_label_cb cb, void *arg)
{
	const phist_t *h;
	unsigned int j;
	int n = 0, sts;

	if (type != PM_LABEL_INSTANCES || (h = le_hist(v, (pmInDom)ident)) == NULL)
		return 0;
	for (j = 0; j < h->nb; j++) {
		if (inst != (int)PM_IN_NULL && h->binst[j] != inst)
			continue;
		if ((sts = cb(arg, PM_LABEL_INSTANCES, h->binst[j], h->le_json[j])) < 0)
			return sts;
		n++;
		if (h->of_json == NULL)
			continue;
		if ((sts = cb(arg, PM_LABEL_INSTANCES, h->binst[j],
				h->of_json[set_of(h, j)])) < 0)
			return sts;
		n++;
	}
	return n;
}

int mmvr_pct_view_text(const mmvr_pct_view_t *v, int ident, int type,
		const char **text)
{
	const phist_t *h;

	if (!(type & PM_TEXT_INDOM) || (h = le_hist(v, (pmInDom)ident)) == NULL)
		return PM_ERR_INDOM;
	*text = (type & PM_TEXT_ONELINE) ? h->le.shorttext : h->le.helptext;
	return 0;
}

/* Read @h's bucket counts into @out; false if they could not be read. */
static bool read_counts(const mmvr_snapshot_t *snap, const phist_t *h,
		uint64_t *out)
{
	return mmvr_snapshot_fetch_counts(snap, h->bm, h->binst, h->nb, out) == 1;
}

int mmvr_pct_sample(mmvr_pct_t *p, const mmvr_pct_view_t *v,
		const mmvr_snapshot_t *snap, uint64_t now_ms)
{
	size_t i;
	int n = 0;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < v->nhists; i++) {
		const phist_t *h = &v->hists[i];
		pslot_t *s = &p->slots[h->slot];

		if (h->nb == 0 || s->epoch != h->epoch ||
		    !mmvr_pct_window_due(&s->w, now_ms) ||
		    !read_counts(snap, h, p->scratch))
			continue;
		mmvr_pct_window_push(&s->w, now_ms, p->scratch);
		n++;
	}
	pthread_mutex_unlock(&p->lock);
	return n;
}

/* Cumulative bucket @inst of @h: the counts of its set's buckets up to it. */
static int fetch_le(mmvr_pct_t *p, const phist_t *h, const mmvr_snapshot_t *snap,
		int inst, pmAtomValue *out)
{
	unsigned int j, s, k;
	int sts;

	for (j = 0; j < h->nb && h->binst[j] != inst; j++)
		;
	if (j == h->nb)
		return PM_ERR_INST;
	s = set_of(h, j);
	if (h->sets[s].n == 0)
		return 0;	/* buckets that are not a histogram's (check_sets) */
	pthread_mutex_lock(&p->lock);
	sts = mmvr_snapshot_fetch_counts(snap, h->bm, &h->binst[h->sets[s].first],
			j - h->sets[s].first + 1, p->scratch);
	if (sts == 1)
		for (out->ull = 0, k = 0; k <= j - h->sets[s].first; k++)
			out->ull += p->scratch[k];
	pthread_mutex_unlock(&p->lock);
	return sts;
}

int mmvr_pct_fetch(mmvr_pct_t *p, const mmvr_pct_view_t *v,
		const mmvr_snapshot_t *snap, const mmvr_metric_info_t *m, int inst,
		pmAtomValue *out)
{
	const pmetric_t *pm = (const pmetric_t *)m;
	const phist_t *h;
	const pslot_t *s;
	unsigned int k;
	int sts = 0;

	if (m == NULL || mmvr_pct_view_lookup_pmid(v, m->desc.pmid) != m)
		return PM_ERR_PMID;	/* not one of @v's */
	h = pm->h;
	if (pm->q == MMVR_PCT_LE)
		return fetch_le(p, h, snap, inst, out);
	for (k = 0; k < h->nsets && h->sets[k].inst != inst; k++)
		;
	if (k == h->nsets)
		return PM_ERR_INST;
	if (h->sets[k].n == 0)
		return 0;
	pthread_mutex_lock(&p->lock);
	s = &p->slots[h->slot];
	if (s->epoch == h->epoch && mmvr_pct_window_delta(&s->w,
			h->sets[k].first, h->sets[k].n, p->scratch))
		sts = mmvr_pct_estimate(&h->bounds[h->sets[k].first],
				p->scratch, h->sets[k].n, quantile[pm->q], &out->d);
	pthread_mutex_unlock(&p->lock);
	return sts;
}
