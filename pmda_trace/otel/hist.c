/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hist.c - the OpenTelemetry metrics store's histograms and summaries
 * (otel.h, Semantics): a point's buckets checked and laid out as
 * cumulative counts below ascending bounds, +Inf last; exponential
 * histograms given bounds; deltas added up (an exponential histogram's
 * at the coarser scale of the two); percentiles over the counts a point
 * added; bucket and quantile instances kept in the metric's sub table,
 * a bound seen again keeping its instance number.
 *
 * Every array here, the transient ones included, is counted in the
 * store's bytes before it is allocated.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "bucket_pct.h"
#include "otel_priv.h"

#define REJECT(why) (-1 - OTEL_REJECT_##why)
#define EXPO_SCALE_MIN	(-10)	/* OTLP's range of scales */
#define EXPO_SCALE_MAX	20

static const double pct_q[OTEL_NPCT] = { 0.5, 0.9, 0.99 };

/* ---- exponential histograms ---- */

/* Counts by bucket index at one scale: a point's (read only) or a copy. */
struct expo {
	int32_t scale;
	double zt;
	uint64_t zero;
	int64_t pos_off, neg_off;
	size_t n_pos, n_neg;
	uint64_t *pos, *neg;
	bool owned;		/* pos and neg are blocks of this file's */
};

/* 2 ^ (@i * 2 ^ -@scale): base^i; inf or 0 beyond a double. */
static double expo_pow(int64_t i, int32_t scale)
{
	if (scale <= 0) {
		int64_t e = i * ((int64_t)1 << -scale);

		if (e > 2000)
			return INFINITY;
		if (e < -2000)
			return 0;
		return ldexp(1.0, (int)e);
	}
	return exp2((double)i / (double)((int64_t)1 << scale));
}

/* floor(@i / 2^@by) */
static int64_t fshift(int64_t i, int by)
{
	return i >= 0 ? i >> by : -((-(i + 1)) >> by) - 1;
}

static bool normal(double x)
{
	return isfinite(x) && fabs(x) >= DBL_MIN;
}

static void expo_of_point(const struct otel_point *p, struct expo *e)
{
	*e = (struct expo){
		.scale = p->scale, .zt = p->zero_threshold + 0.0, .zero = p->zero_count,
		.pos_off = p->pos_offset, .neg_off = p->neg_offset,
		.n_pos = p->n_pos, .n_neg = p->n_neg,
		.pos = (uint64_t *)p->pos, .neg = (uint64_t *)p->neg,
	};
}

/*
 * The bounds of @e's buckets in the order they are served, each through
 * @fn (NULL: only checked): negative ones (-base^i, from the highest
 * index down), the zero bucket (its threshold), positive ones
 * (base^(i+1)). false if one is not a normal double or the bounds do not
 * ascend, or the first bucket's lower edge (*@lo0) is infinite.
 */
static bool expo_bounds(const struct expo *e, double *lo0,
		void (*fn)(void *arg, double le, uint64_t count), void *arg)
{
	double prev = -INFINITY, le;

	if (e->n_neg > 0) {
		*lo0 = -expo_pow(e->neg_off + (int64_t)e->n_neg, e->scale);
		if (!isfinite(*lo0))
			return false;
	} else {
		*lo0 = e->zt > 0 ? -e->zt : 0;
	}
	for (size_t k = e->n_neg; k-- > 0;) {
		le = -expo_pow(e->neg_off + (int64_t)k, e->scale);
		if (!normal(le) || le <= prev)
			return false;
		if (fn)
			fn(arg, le, e->neg[k]);
		prev = le;
	}
	if (e->zt <= prev)
		return false;
	if (fn)
		fn(arg, e->zt, e->zero);
	prev = e->zt;
	for (size_t k = 0; k < e->n_pos; k++) {
		le = expo_pow(e->pos_off + (int64_t)k + 1, e->scale);
		if (!normal(le) || le <= prev)
			return false;
		if (fn)
			fn(arg, le, e->pos[k]);
		prev = le;
	}
	return true;
}

static void expo_release(struct otel_store *s, struct expo *e)
{
	if (e->owned) {
		otel_free(s, e->pos, e->n_pos * sizeof(uint64_t));
		otel_free(s, e->neg, e->n_neg * sizeof(uint64_t));
	}
	e->pos = e->neg = NULL;
	e->owned = false;
}

/* @n counts, zeroed, counted: NULL over the budget (never for n 0: a NULL is fine). */
static int counts_alloc(struct otel_store *s, size_t n, uint64_t **out)
{
	*out = NULL;
	if (n == 0)
		return 0;
	if (n > SIZE_MAX / sizeof(uint64_t) / 4)
		return -1;
	return (*out = otel_alloc(s, n * sizeof(uint64_t), true)) ? 0 : -1;
}

/* A copy of @src's layout with zeroed counts over @n_pos from @pos_off and @n_neg from @neg_off. */
static int expo_alloc(struct otel_store *s, const struct expo *src, int64_t pos_off, size_t n_pos,
		int64_t neg_off, size_t n_neg, struct expo *e)
{
	*e = (struct expo){ .scale = src->scale, .zt = src->zt, .pos_off = pos_off,
			    .neg_off = neg_off, .owned = true };
	if (counts_alloc(s, n_pos, &e->pos) < 0)
		return -1;
	e->n_pos = n_pos;
	if (counts_alloc(s, n_neg, &e->neg) < 0) {
		expo_release(s, e);
		return -1;
	}
	e->n_neg = n_neg;
	return 0;
}

static void add_sat(uint64_t *c, uint64_t n)
{
	*c = n > UINT64_MAX - *c ? UINT64_MAX : *c + n;
}

/* One side's counts (@n from @off) merged at scale lowered by @by into @out from @out_off. */
static void side_add(const uint64_t *in, size_t n, int64_t off, int by, uint64_t *out,
		int64_t out_off)
{
	for (size_t j = 0; j < n; j++)
		add_sat(&out[fshift(off + (int64_t)j, by) - out_off], in[j]);
}

/* The range one side takes at a scale lowered by @by: its offset and length (0: none). */
static void side_range(int64_t off, size_t n, int by, int64_t *lo, int64_t *hi)
{
	if (n == 0)
		return;
	if (fshift(off, by) < *lo)
		*lo = fshift(off, by);
	if (fshift(off + (int64_t)n - 1, by) + 1 > *hi)
		*hi = fshift(off + (int64_t)n - 1, by) + 1;
}

/*
 * @a and @b (@b may be NULL) added up at scale @scale (at most either's)
 * into @out (counted). 0, or -1 over the budget.
 */
static int expo_merge(struct otel_store *s, const struct expo *a, const struct expo *b,
		int32_t scale, struct expo *out)
{
	int da = a->scale - scale, db = b ? b->scale - scale : 0;
	int64_t plo = INT64_MAX, phi = INT64_MIN, nlo = INT64_MAX, nhi = INT64_MIN;
	struct expo tmpl = *a;

	tmpl.scale = scale;
	side_range(a->pos_off, a->n_pos, da, &plo, &phi);
	side_range(a->neg_off, a->n_neg, da, &nlo, &nhi);
	if (b) {
		side_range(b->pos_off, b->n_pos, db, &plo, &phi);
		side_range(b->neg_off, b->n_neg, db, &nlo, &nhi);
	}
	if (expo_alloc(s, &tmpl, plo == INT64_MAX ? 0 : plo, plo == INT64_MAX ? 0 : (size_t)(phi - plo),
		       nlo == INT64_MAX ? 0 : nlo, nlo == INT64_MAX ? 0 : (size_t)(nhi - nlo), out) < 0)
		return -1;
	out->zero = a->zero;
	side_add(a->pos, a->n_pos, a->pos_off, da, out->pos, out->pos_off);
	side_add(a->neg, a->n_neg, a->neg_off, da, out->neg, out->neg_off);
	if (b) {
		add_sat(&out->zero, b->zero);
		side_add(b->pos, b->n_pos, b->pos_off, db, out->pos, out->pos_off);
		side_add(b->neg, b->n_neg, b->neg_off, db, out->neg, out->neg_off);
	}
	return 0;
}

/* The count of @e's bucket @i on the positive (@neg false) or negative side. */
static uint64_t expo_at(const struct expo *e, bool neg, int64_t i)
{
	int64_t off = neg ? e->neg_off : e->pos_off;
	size_t n = neg ? e->n_neg : e->n_pos;

	if (i < off || i >= off + (int64_t)n)
		return 0;
	return (neg ? e->neg : e->pos)[i - off];
}

/* @b's counts by index (a series' exponential histogram), counted. */
static int expo_of_buckets(struct otel_store *s, const struct buckets *b, struct expo *e)
{
	struct expo tmpl = { .scale = b->scale, .zt = b->zt };
	uint64_t prev = 0;

	if (expo_alloc(s, &tmpl, b->pos_off, b->n_pos, b->neg_off, b->n_neg, e) < 0)
		return -1;
	for (uint32_t j = 0; j < b->n; j++) {
		uint64_t c = b->val[j].u - prev;

		prev = b->val[j].u;
		if (j < b->n_neg)
			e->neg[b->n_neg - 1 - j] = c;
		else if (j == b->n_neg)
			e->zero = c;
		else if (j < b->n_neg + 1 + b->n_pos)
			e->pos[j - b->n_neg - 1] = c;
	}
	return 0;
}

/* ---- flat layouts: bounds ascending, +Inf last, and a count each ---- */

struct flat {
	uint32_t n, cap;
	double *le;
	uint64_t *cnt;		/* each bucket's own count */
	double lo0;
	bool expo;
	int32_t scale, pos_off, neg_off;
	uint32_t n_pos, n_neg;
	double zt;
};

static int flat_alloc(struct otel_store *s, struct flat *f, size_t n)
{
	memset(f, 0, sizeof(*f));
	if (n > UINT32_MAX / 2)
		return -1;
	if ((f->le = otel_alloc(s, n * sizeof(double), false)) == NULL)
		return -1;
	if ((f->cnt = otel_alloc(s, n * sizeof(uint64_t), false)) == NULL) {
		otel_free(s, f->le, n * sizeof(double));
		f->le = NULL;
		return -1;
	}
	f->cap = (uint32_t)n;
	return 0;
}

static void flat_free(struct otel_store *s, struct flat *f)
{
	if (f->le != NULL) {
		otel_free(s, f->le, f->cap * sizeof(double));
		otel_free(s, f->cnt, f->cap * sizeof(uint64_t));
	}
	f->le = NULL;
	f->cnt = NULL;
}

static void flat_push(void *arg, double le, uint64_t count)
{
	struct flat *f = arg;

	f->le[f->n] = le;
	f->cnt[f->n] = count;
	f->n++;
}

/* @e laid out flat: 0, -1 over the budget, -2 bounds that do not fit a double. */
static int flat_of_expo(struct otel_store *s, const struct expo *e, struct flat *f)
{
	if (e->n_pos > INT32_MAX || e->n_neg > INT32_MAX ||
	    e->pos_off < INT32_MIN || e->pos_off > INT32_MAX ||
	    e->neg_off < INT32_MIN || e->neg_off > INT32_MAX)
		return -2;
	if (flat_alloc(s, f, e->n_neg + e->n_pos + 2) < 0)
		return -1;
	if (!expo_bounds(e, &f->lo0, flat_push, f)) {
		flat_free(s, f);
		return -2;
	}
	flat_push(f, INFINITY, 0);
	f->expo = true;
	f->scale = e->scale;
	f->zt = e->zt;
	f->pos_off = (int32_t)e->pos_off;
	f->neg_off = (int32_t)e->neg_off;
	f->n_pos = (uint32_t)e->n_pos;
	f->n_neg = (uint32_t)e->n_neg;
	return 0;
}

static int flat_of_explicit(struct otel_store *s, const struct otel_point *p, struct flat *f)
{
	if (flat_alloc(s, f, p->n_bounds + 1) < 0)
		return -1;
	for (size_t j = 0; j < p->n_bounds; j++)
		flat_push(f, p->bounds[j], p->counts[j]);
	flat_push(f, INFINITY, p->n_counts ? p->counts[p->n_bounds] : p->count);
	f->lo0 = p->n_bounds > 0 && p->bounds[0] <= 0 ? p->bounds[0] : 0;
	return 0;
}

/* Do @b's bounds (or quantiles) equal @le's (@n)? */
static bool same_bounds(const struct buckets *b, const double *le, uint32_t n)
{
	if (b == NULL || b->n != n)
		return false;
	for (uint32_t j = 0; j < n; j++)
		if (b->le[j] != le[j])
			return false;
	return true;
}

/* ---- checks ---- */

static bool sum_counts(const uint64_t *c, size_t n, uint64_t *total)
{
	for (size_t j = 0; j < n; j++) {
		if (c[j] > UINT64_MAX - *total)
			return false;
		*total += c[j];
	}
	return true;
}

int otel_hist_check(enum otel_kind kind, const struct otel_point *p)
{
	uint64_t total = 0;
	struct expo e;
	double lo0;

	switch (kind) {
	case OTEL_HISTOGRAM:
		if (p->n_counts == 0 && p->n_bounds == 0)
			return 0;	/* a count and a sum only */
		if (p->n_counts != p->n_bounds + 1 || p->counts == NULL ||
		    (p->n_bounds > 0 && p->bounds == NULL))
			return REJECT(BUCKETS);
		for (size_t j = 0; j < p->n_bounds; j++)
			if (!isfinite(p->bounds[j]) || (j > 0 && !(p->bounds[j] > p->bounds[j - 1])))
				return REJECT(BUCKETS);
		if (!sum_counts(p->counts, p->n_counts, &total) || total != p->count)
			return REJECT(BUCKETS);
		return 0;
	case OTEL_EXPHIST:
		if (p->scale < EXPO_SCALE_MIN || p->scale > EXPO_SCALE_MAX ||
		    !isfinite(p->zero_threshold) || p->zero_threshold < 0 ||
		    (p->n_pos > 0 && p->pos == NULL) || (p->n_neg > 0 && p->neg == NULL) ||
		    p->n_pos > INT32_MAX || p->n_neg > INT32_MAX)
			return REJECT(BUCKETS);
		total = p->zero_count;
		if (!sum_counts(p->pos, p->n_pos, &total) || !sum_counts(p->neg, p->n_neg, &total) ||
		    total != p->count)
			return REJECT(BUCKETS);
		expo_of_point(p, &e);
		return expo_bounds(&e, &lo0, NULL, NULL) ? 0 : REJECT(BUCKETS);
	case OTEL_SUMMARY:
		if (p->n_quantiles > 0 && p->quantiles == NULL)
			return REJECT(BUCKETS);
		for (size_t j = 0; j < p->n_quantiles; j++) {
			double q = p->quantiles[j].quantile;

			if (!(q >= 0 && q <= 1) || (j > 0 && !(q > p->quantiles[j - 1].quantile)))
				return REJECT(BUCKETS);
		}
		return 0;
	default:
		return 0;
	}
}

/* ---- the series' buckets ---- */

/* What struct buckets with @n entries takes. */
static size_t buckets_size(uint32_t n)
{
	return sizeof(struct buckets) + (size_t)n * (sizeof(double) + sizeof(union otel_val) +
						     sizeof(int32_t));
}

static struct buckets *buckets_new(struct otel_store *s, uint32_t n)
{
	struct buckets *b = otel_alloc(s, buckets_size(n), true);

	if (b == NULL)
		return NULL;
	b->n = n;
	b->le = (double *)(b + 1);
	b->val = (union otel_val *)(b->le + n);
	b->inst = (int32_t *)(b->val + n);
	return b;
}

static void sub_remove(struct metric *m, int32_t inst)
{
	struct hslot *sl = otel_ht_find(&m->sub, (uint32_t)inst, NULL, NULL);

	if (sl != NULL)
		otel_ht_del(&m->sub, sl);
}

static void sub_add(struct metric *m, struct series *ser, uint32_t idx, int32_t inst)
{
	otel_ht_add(&m->sub, (uint64_t)idx << 32 | (uint32_t)inst, ser);
}

void otel_hist_drop(struct otel_store *s, struct series *ser)
{
	struct buckets *b = ser->b;

	if (b == NULL)
		return;
	for (uint32_t j = 0; j < b->n; j++)
		sub_remove(ser->m, b->inst[j]);
	otel_free(s, b, buckets_size(b->n));
	ser->b = NULL;
}

/*
 * @nb (its bounds set) becomes @ser's buckets: a bound @ser had keeps its
 * instance number, a new one gets one from its hash; room in the sub
 * table reserved for all of them.
 */
static void buckets_swap(struct otel_store *s, struct series *ser, struct buckets *nb)
{
	struct buckets *old = ser->b;
	struct metric *m = ser->m;
	uint32_t j, k = 0;

	for (j = 0; j < nb->n; j++)
		nb->inst[j] = -1;
	if (old != NULL) {
		for (k = 0; k < old->n; k++)
			sub_remove(m, old->inst[k]);
		for (j = 0, k = 0; j < nb->n && k < old->n;) {
			if (nb->le[j] < old->le[k]) {
				j++;
			} else if (nb->le[j] > old->le[k]) {
				k++;
			} else {
				nb->inst[j] = old->inst[k];
				sub_add(m, ser, j, nb->inst[j]);
				j++;
				k++;
			}
		}
		otel_free(s, old, buckets_size(old->n));
	}
	for (j = 0; j < nb->n; j++) {
		if (nb->inst[j] >= 0)
			continue;
		nb->inst[j] = otel_sub_inst(m, ser, nb->le[j]);
		sub_add(m, ser, j, nb->inst[j]);
	}
	ser->b = nb;
}

/* New buckets of @n for @ser with room for their instances: NULL over the budget. */
static struct buckets *buckets_for(struct otel_store *s, struct series *ser, uint32_t n)
{
	if (otel_ht_reserve(s, &ser->m->sub, n) < 0)
		return NULL;
	return buckets_new(s, n);
}

/* Percentiles of @f's bounds holding @cnt: *@has false if none were added. 0 or -1 (the budget). */
static int percentiles(struct otel_store *s, const struct flat *f, const uint64_t *cnt,
		double *out, bool *has)
{
	struct sdk_pct_bucket *b;
	uint64_t total = 0;

	*has = false;
	if (f->n < 2 || !sum_counts(cnt, f->n, &total) || total == 0)
		return 0;
	if ((b = otel_alloc(s, f->n * sizeof(*b), false)) == NULL)
		return -1;
	for (uint32_t j = 0; j < f->n; j++) {
		b[j].lo = j ? f->le[j - 1] : f->lo0;
		b[j].hi = f->le[j];
	}
	*has = true;
	for (int q = 0; q < OTEL_NPCT; q++)
		if (!sdk_pct_estimate(b, cnt, f->n, pct_q[q], &out[q]))
			*has = false;
	otel_free(s, b, f->n * sizeof(*b));
	return 0;
}

/*
 * What cumulative point @pt (flat, @pe its counts by index for an
 * exponential one) added since @ser's buckets, into @added (pt->n):
 * all of it after a reset (a later start, a count gone down) or when
 * the bounds cannot be matched. 0 or -1 (the budget).
 */
static int added_since(struct otel_store *s, const struct series *ser, const struct otel_point *p,
		const struct flat *pt, const struct expo *pe, uint64_t *added)
{
	const struct buckets *b = ser->b;
	struct expo old, down;
	uint64_t prev = 0, matched = 0, total = 0;
	bool reset = b == NULL || p->count < ser->count ||
		     (ser->start_ns != 0 && p->start_ns > ser->start_ns);
	uint32_t j;

	memcpy(added, pt->cnt, pt->n * sizeof(*added));
	if (reset)
		return 0;
	if (!pt->expo) {
		if (!same_bounds(b, pt->le, pt->n))
			return 0;
		for (j = 0; j < pt->n; j++) {
			uint64_t c = b->val[j].u - prev;

			prev = b->val[j].u;
			if (pt->cnt[j] < c) {
				memcpy(added, pt->cnt, pt->n * sizeof(*added));
				return 0;
			}
			added[j] = pt->cnt[j] - c;
		}
		return 0;
	}
	if (b->scale < pt->scale || b->zt != pt->zt)
		return 0;
	if (expo_of_buckets(s, b, &old) < 0)
		return -1;
	if (expo_merge(s, &old, NULL, pt->scale, &down) < 0) {
		expo_release(s, &old);
		return -1;
	}
	expo_release(s, &old);
	/* each of the point's buckets less the old count at its index */
	for (j = 0; j < pt->n - 1; j++) {
		uint64_t c;

		if (j < pt->n_neg)
			c = expo_at(&down, true, pe->neg_off + (int64_t)(pt->n_neg - 1 - j));
		else if (j == pt->n_neg)
			c = down.zero;
		else
			c = expo_at(&down, false, pe->pos_off + (int64_t)(j - pt->n_neg - 1));
		if (pt->cnt[j] < c)
			goto reset;
		added[j] = pt->cnt[j] - c;
		matched += c;
	}
	/* counts the point no longer has a bucket for: not the same run */
	total = down.zero;
	sum_counts(down.pos, down.n_pos, &total);
	sum_counts(down.neg, down.n_neg, &total);
	if (total != matched)
		goto reset;
	expo_release(s, &down);
	return 0;
reset:
	memcpy(added, pt->cnt, pt->n * sizeof(*added));
	expo_release(s, &down);
	return 0;
}

/* Cumulative counts of @f into @b's values (both @f->n), added to theirs if @add. */
static void write_cum(struct buckets *b, const struct flat *f, bool add)
{
	uint64_t cum = 0, v;

	for (uint32_t j = 0; j < f->n; j++) {
		add_sat(&cum, f->cnt[j]);
		v = cum;
		if (add)
			add_sat(&v, b->val[j].u);
		b->val[j].u = v;
	}
}

static void set_layout(struct buckets *b, const struct flat *f)
{
	memcpy(b->le, f->le, f->n * sizeof(double));
	b->expo = f->expo;
	b->scale = f->scale;
	b->pos_off = f->pos_off;
	b->neg_off = f->neg_off;
	b->n_pos = f->n_pos;
	b->n_neg = f->n_neg;
	b->zt = f->zt;
	b->lo0 = f->lo0;
}

static int summary_apply(struct otel_store *s, struct series *ser, const struct otel_point *p,
		bool *changed)
{
	struct buckets *b = ser->b, *nb = NULL;
	uint32_t n = (uint32_t)p->n_quantiles;
	bool same = b != NULL && b->n == n;

	if (p->n_quantiles > UINT32_MAX / 2)
		return REJECT(MEMORY);
	for (uint32_t j = 0; same && j < n; j++)
		same = b->le[j] == p->quantiles[j].quantile;
	if (!same) {
		if ((nb = buckets_for(s, ser, n)) == NULL)
			return REJECT(MEMORY);
		for (uint32_t j = 0; j < n; j++)
			nb->le[j] = p->quantiles[j].quantile;
		buckets_swap(s, ser, nb);
		*changed = true;
	}
	for (uint32_t j = 0; j < n; j++)
		ser->b->val[j].d = p->quantiles[j].value;
	ser->count = p->count;
	ser->sum = p->sum;
	ser->has_sum = p->has_sum;
	return 0;
}

int otel_hist_apply(struct otel_store *s, struct series *ser, enum otel_kind kind,
		enum otel_temporality temp, const struct otel_point *p, bool *changed)
{
	bool delta = temp == OTEL_TEMP_DELTA, first = ser->time_ns == 0, has_pct = false;
	struct flat pt = { 0 }, nw = { 0 }, *src = &pt;
	struct expo pe = { 0 }, old = { 0 }, merged = { 0 };
	bool add = false;
	struct buckets *nb = NULL;
	uint64_t *added = NULL;
	double pct[OTEL_NPCT];
	int ret = REJECT(MEMORY), r;

	*changed = false;
	if (kind == OTEL_SUMMARY)
		return summary_apply(s, ser, p, changed);
	if (kind == OTEL_EXPHIST) {
		expo_of_point(p, &pe);
		if ((r = flat_of_expo(s, &pe, &pt)) < 0)
			return r == -1 ? REJECT(MEMORY) : REJECT(BUCKETS);
	} else if (flat_of_explicit(s, p, &pt) < 0) {
		return REJECT(MEMORY);
	}
	if (delta && ser->b != NULL) {
		if (!pt.expo) {
			if (!same_bounds(ser->b, pt.le, pt.n)) {
				ret = REJECT(BOUNDS);
				goto out;
			}
			add = true;
		} else {
			if (ser->b->zt != pt.zt) {
				ret = REJECT(BOUNDS);
				goto out;
			}
			if (expo_of_buckets(s, ser->b, &old) < 0 ||
			    expo_merge(s, &old, &pe, old.scale < pe.scale ? old.scale : pe.scale,
				       &merged) < 0)
				goto out;
			if ((r = flat_of_expo(s, &merged, &nw)) < 0) {
				ret = r == -1 ? REJECT(MEMORY) : REJECT(BOUNDS);
				goto out;
			}
			src = &nw;
		}
	}
	/* the counts this point added, for the percentiles */
	if (!first) {
		if (delta) {
			if (percentiles(s, &pt, pt.cnt, pct, &has_pct) < 0)
				goto out;
		} else {
			if (counts_alloc(s, pt.n, &added) < 0 ||
			    added_since(s, ser, p, &pt, &pe, added) < 0 ||
			    percentiles(s, &pt, added, pct, &has_pct) < 0)
				goto out;
		}
	}
	/* nothing may fail past the new buckets */
	if (!same_bounds(ser->b, src->le, src->n)) {
		if ((nb = buckets_for(s, ser, src->n)) == NULL)
			goto out;
		set_layout(nb, src);
		write_cum(nb, src, false);
		buckets_swap(s, ser, nb);
		*changed = true;
	} else {
		set_layout(ser->b, src);
		write_cum(ser->b, src, add);
	}
	if (delta && !first) {
		add_sat(&ser->count, p->count);
		ser->sum += p->sum;
		ser->has_sum = ser->has_sum && p->has_sum;
	} else {
		ser->count = p->count;
		ser->sum = p->sum;
		ser->has_sum = p->has_sum;
	}
	ser->has_pct = has_pct;
	if (has_pct)
		memcpy(ser->pct, pct, sizeof(pct));
	ret = 0;
out:
	if (added != NULL)
		otel_free(s, added, pt.n * sizeof(uint64_t));
	flat_free(s, &pt);
	flat_free(s, &nw);
	expo_release(s, &old);
	expo_release(s, &merged);
	return ret;
}
