/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * store.c - the OpenTelemetry metrics store (otel.h): making and freeing
 * it, its byte accounting, its metrics, otel_record, the counts and
 * expiry. What each point does is otel.h's; the order of the checks is:
 * the name, the time, the metric's kind and unit, "no recorded value",
 * the type, the point's buckets, the caps, then memory. Nothing is
 * changed before the last check passed, so a rejected point leaves the
 * store as it was.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "../core/heap_cost.h"
#include "otel_priv.h"
#include "utf8.h"
#include "../core/vlog.h"

#define REJECT(why) (-1 - OTEL_REJECT_##why)

static const char *const reject_names[OTEL_REJECT_N] = {
#define OTEL_X(id, name, why) name,
	OTEL_REJECT_REASONS(OTEL_X)
#undef OTEL_X
};

static const char *const reject_why[OTEL_REJECT_N] = {
#define OTEL_X(id, name, why) why,
	OTEL_REJECT_REASONS(OTEL_X)
#undef OTEL_X
};

const char *otel_reject_why(enum otel_reject why)
{
	return (unsigned)why < OTEL_REJECT_N ? reject_why[why] : "?";
}

const char *otel_reject_name(enum otel_reject why)
{
	return (unsigned)why < OTEL_REJECT_N ? reject_names[why] : "?";
}

/* ---- bytes ---- */

size_t otel_block(size_t size)
{
	return tra_heap_block(size);
}

static int otel_charge(struct otel_store *s, size_t n)
{
	if (!s->force && (s->bytes > s->max_bytes || n > s->max_bytes - s->bytes))
		return -1;
	s->bytes += n;
	return 0;
}

static void otel_uncharge(struct otel_store *s, size_t n)
{
	s->bytes -= n;
}

void *otel_alloc(struct otel_store *s, size_t size, bool zero)
{
	void *p;

	if (size > SIZE_MAX / 2 || otel_charge(s, otel_block(size)) < 0)
		return NULL;
	p = zero ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
	if (p == NULL)
		otel_uncharge(s, otel_block(size));
	return p;
}

void otel_free(struct otel_store *s, void *p, size_t size)
{
	if (p == NULL)
		return;
	free(p);
	otel_uncharge(s, otel_block(size));
}

void otel_logf(struct otel_store *s, int pri, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tra_vlog(s->log, pri, fmt, ap);
	va_end(ap);
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- metrics ---- */

static size_t metric_size(size_t name_len, size_t path_len, size_t unit_len)
{
	return sizeof(struct metric) + name_len + path_len + unit_len + 3;
}

struct metric *otel_metric_new(struct otel_store *s, const char *name, size_t name_len,
		const char *path, size_t path_len, const char *unit, size_t unit_len,
		enum otel_kind kind, bool monotonic, int type)
{
	struct metric *m = otel_alloc(s, metric_size(name_len, path_len, unit_len), true);
	char *t;

	if (m == NULL)
		return NULL;
	m->kind = kind;
	m->monotonic = kind == OTEL_SUM && monotonic;
	m->type = kind == OTEL_GAUGE || kind == OTEL_SUM ? type : PM_TYPE_DOUBLE;
	for (int l = 0; l < OTEL_LEAF_N; l++)
		m->pmid[l] = PM_ID_NULL;
	m->by_inst.by_int = true;
	m->sub.by_int = true;
	t = m->text;
	m->name = memcpy(t, name, name_len);
	t[name_len] = '\0';
	m->name_len = name_len;
	t += name_len + 1;
	m->path = memcpy(t, path, path_len);
	t[path_len] = '\0';
	m->path_len = path_len;
	t += path_len + 1;
	m->unit = memcpy(t, unit, unit_len);
	t[unit_len] = '\0';
	m->unit_len = unit_len;
	m->units_known = otel_units(m->unit, kind, &m->units);
	return m;
}

/* Free @m and its series (not unlinked: the store is going, or @m was never linked). */
void otel_metric_free(struct otel_store *s, struct metric *m)
{
	struct hslot *sl;

	otel_ht_for_each(&m->by_inst, sl) {
		struct series *ser = sl->val;

		otel_hist_drop(s, ser);
		otel_free(s, ser, sizeof(*ser) + ser->key_len + ser->name_len + ser->labels_len + 2);
	}
	s->nseries -= m->nseries;
	otel_ht_free(s, &m->by_ident);
	otel_ht_free(s, &m->by_inst);
	otel_ht_free(s, &m->by_name);
	otel_ht_free(s, &m->sub);
	otel_free(s, m->nodes, m->nnodes * sizeof(*m->nodes));
	otel_free(s, m->desc, m->desc_len + 1);
	otel_free(s, m, metric_size(m->name_len, m->path_len, m->unit_len));
}

static bool metric_eq(const struct hslot *sl, const void *arg)
{
	const struct metric *m = sl->val;
	const struct ident *k = arg;

	return m->name_len == k->len && memcmp(m->name, k->key, k->len) == 0;
}

struct metric *otel_metric_find(struct otel_store *s, const char *name, size_t len)
{
	struct ident k = { .key = (char *)name, .len = len };
	struct hslot *sl = otel_ht_find(&s->metrics, otel_hash(name, len, 0), metric_eq, &k);

	return sl ? sl->val : NULL;
}

int otel_metric_prepare(struct otel_store *s, struct metric *m)
{
	if (otel_ht_reserve(s, &s->metrics, 1) < 0)
		return -1;
	return otel_path_reserve(s, m);
}

void otel_metric_link(struct otel_store *s, struct metric *m)
{
	otel_ht_add(&s->metrics, otel_hash(m->name, m->name_len, 0), m);
	otel_path_link(s, m);
	s->nmetrics++;
	otel_generation_bump(s);
}

void otel_metric_pmids(struct otel_store *s, struct metric *m)
{
	for (int l = 0; l < OTEL_LEAF_N; l++)
		if (otel_has_leaf(m->kind, l) && m->pmid[l] == PM_ID_NULL)
			otel_pmid_take(s, m, l, otel_pmid_choose(s, m, l));
}

bool otel_metric_describe(struct otel_store *s, struct metric *m, const char *desc)
{
	size_t len;

	if (m->desc != NULL || desc == NULL || *desc == '\0')
		return true;
	len = sdk_utf8_cut(desc, strlen(desc), OTEL_DESC_MAX);
	if ((m->desc = otel_alloc(s, len + 1, false)) == NULL)
		return false;
	memcpy(m->desc, desc, len);
	m->desc[len] = '\0';
	m->desc_len = len;
	return true;
}

/* ---- the store ---- */

struct otel_store *otel_store_new(const struct otel_cfg *cfg)
{
	struct otel_store *s;

	if (cfg == NULL || cfg->domain > 511) {
		errno = EINVAL;
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->domain = cfg->domain;
	s->max_bytes = cfg->max_bytes ? cfg->max_bytes : (size_t)OTEL_BYTES_MIB << 20;
	s->max_metrics = cfg->max_metrics ? cfg->max_metrics : OTEL_METRICS_DEFAULT;
	s->max_series = cfg->max_series ? cfg->max_series : OTEL_SERIES_DEFAULT;
	s->idle_ns = (uint64_t)(cfg->idle_sec ? cfg->idle_sec : OTEL_IDLE_DEFAULT) * 1000000000u;
	s->now_ns = cfg->now_ns ? cfg->now_ns : realtime_ns;
	s->log = cfg->log;
	if (cfg->state != NULL && *cfg->state != '\0') {
		s->force = true;
		s->state = otel_alloc(s, strlen(cfg->state) + 1, false);
		if (s->state == NULL) {
			otel_store_free(s);
			errno = ENOMEM;
			return NULL;
		}
		strcpy(s->state, cfg->state);
		otel_state_read(s);
		s->force = false;
	}
	return s;
}

void otel_store_free(struct otel_store *s)
{
	struct hslot *sl;

	if (s == NULL)
		return;
	otel_ht_for_each(&s->metrics, sl)
		otel_metric_free(s, sl->val);
	otel_ht_free(s, &s->metrics);
	otel_ht_free(s, &s->paths);
	otel_free(s, s->leaves, s->leaves_cap * sizeof(*s->leaves));
	if (s->state != NULL)
		otel_free(s, s->state, strlen(s->state) + 1);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

/* ---- points ---- */

static bool scalar(enum otel_kind kind)
{
	return kind == OTEL_GAUGE || kind == OTEL_SUM;
}

static void add_int(int64_t *v, int64_t d)
{
	if (__builtin_add_overflow(*v, d, v))
		*v = d > 0 ? INT64_MAX : INT64_MIN;
}

/* A Gauge's or a Sum's point into @ser. */
static void apply_scalar(const struct metric *m, struct series *ser, bool delta,
		const struct otel_point *p)
{
	bool add = delta && m->kind == OTEL_SUM && ser->has_value;

	if (m->type == PM_TYPE_64) {
		if (add)
			add_int(&ser->v.i, p->as_int);
		else
			ser->v.i = p->as_int;
	} else {
		double d = p->is_int ? (double)p->as_int : p->as_double;

		if (add)
			ser->v.d += d;
		else
			ser->v.d = d;
	}
	ser->has_value = true;
}

/* A new metric for @om's point @p: made and prepared, not linked; NULL with *@why. */
static struct metric *metric_for(struct otel_store *s, const struct otel_metric *om,
		const char *name, size_t name_len, size_t unit_len, const struct otel_point *p,
		int *why)
{
	char path[OTEL_PATH_MAX + 1];
	struct metric *m;
	int n;

	*why = REJECT(METRICS);
	if (s->nmetrics >= s->max_metrics)
		return NULL;
	*why = REJECT(BAD_NAME);
	if ((n = otel_path_choose(s, name, path, sizeof(path))) < 0)
		return NULL;
	*why = REJECT(MEMORY);
	m = otel_metric_new(s, name, name_len, path, (size_t)n, om->unit ? om->unit : "", unit_len,
			    om->kind, om->monotonic, p->is_int ? PM_TYPE_64 : PM_TYPE_DOUBLE);
	if (m != NULL && otel_metric_prepare(s, m) < 0) {
		otel_metric_free(s, m);
		m = NULL;
	}
	return m;
}

static int record(struct otel_store *s, const struct otel_resource *r,
		const struct otel_metric *om, const struct otel_point *p)
{
	char name[OTEL_NAME_MAX + 1];
	const char *unit = om->unit ? om->unit : "";
	size_t name_len, unit_len;
	bool delta, fresh = false, changed = false;
	struct metric *m, *made = NULL;
	struct series *ser;
	struct ident id;
	int ret;

	if (om->name == NULL || om->name[0] == '\0')
		return REJECT(BAD_NAME);
	if (p->time_ns == 0)
		return REJECT(NO_TIME);
	if ((unsigned)om->kind > OTEL_SUMMARY)
		return REJECT(KIND);
	name_len = sdk_utf8_cut(om->name, strlen(om->name), OTEL_NAME_MAX);
	memcpy(name, om->name, name_len);
	name[name_len] = '\0';
	unit_len = sdk_utf8_cut(unit, strlen(unit), OTEL_UNIT_MAX);
	if ((m = otel_metric_find(s, name, name_len)) != NULL) {
		if (m->kind != om->kind || (m->kind == OTEL_SUM && m->monotonic != om->monotonic))
			return REJECT(KIND);
		if (m->unit_len != unit_len || memcmp(m->unit, unit, unit_len) != 0)
			return REJECT(UNIT);
	}
	if (p->no_value)
		return 0;
	if (scalar(om->kind)) {
		if (m != NULL && m->type == PM_TYPE_64 && !p->is_int)
			return REJECT(TYPE);
	} else if ((ret = otel_hist_check(om->kind, p)) < 0) {
		return ret;
	}
	if (m == NULL && s->nmetrics >= s->max_metrics)
		return REJECT(METRICS);
	if (otel_ident(s, r, p, &id) < 0)
		return REJECT(MEMORY);
	ser = m ? otel_series_find(m, &id) : NULL;
	if (ser == NULL) {
		if (m != NULL && m->nseries >= s->max_series) {
			ret = REJECT(SERIES);
			goto out;
		}
		if (m == NULL && (m = made = metric_for(s, om, name, name_len, unit_len, p, &ret)) == NULL)
			goto out;
		ret = REJECT(MEMORY);
		if ((ser = otel_series_new(s, m, &id, r, p)) == NULL)
			goto out;
		fresh = true;
	}
	/*
	 * A delta is the change over (start, time]; a "delta" point with no
	 * start (0) has no interval to be the change of, and is taken for
	 * what it then is, a running total (PCP 7's pcp2opentelemetry marks
	 * its counters DELTA and sends their totals without a start;
	 * docs/otlp-metrics.md).
	 */
	delta = om->temporality == OTEL_TEMP_DELTA && p->start_ns != 0 &&
		om->kind != OTEL_GAUGE && om->kind != OTEL_SUMMARY;
	ret = 0;
	if (!fresh && !delta && p->time_ns < ser->time_ns)
		goto out;	/* older than the value kept: taken, nothing changes */
	if (scalar(om->kind)) {
		apply_scalar(m, ser, delta, p);
	} else if ((ret = otel_hist_apply(s, ser, om->kind, delta ? OTEL_TEMP_DELTA :
					  OTEL_TEMP_CUMULATIVE, p, &changed)) < 0) {
		goto out;
	}
	if (changed)
		otel_generation_bump(s);
	ser->start_ns = p->start_ns;
	if (p->time_ns > ser->time_ns)
		ser->time_ns = p->time_ns;
	ser->seen_ns = s->now_ns();
	if (made != NULL) {
		otel_metric_link(s, made);
		otel_metric_pmids(s, made);
		made = NULL;
		otel_state_write(s);
	}
	otel_metric_describe(s, m, om->description);	/* over the budget: described later */
out:
	if (ret < 0 && fresh)
		otel_series_drop(s, ser);
	if (made != NULL)
		otel_metric_free(s, made);
	otel_ident_free(s, &id);
	return ret;
}

int otel_record(struct otel_store *s, const struct otel_resource *r,
		const struct otel_metric *m, const struct otel_point *p)
{
	static const struct otel_resource none = { .service = "unknown_service" };
	int ret;

	if (r == NULL)
		r = &none;
	otel_lock_record(s);
	ret = record(s, r, m, p);
	if (ret < 0)
		s->rejected[-1 - ret]++;
	else
		s->accepted++;
	otel_unlock(s);
	return ret;
}

void otel_usage_get(struct otel_store *s, struct otel_usage *u)
{
	otel_lock_pcp(s);
	u->accepted = s->accepted;
	memcpy(u->rejected, s->rejected, sizeof(u->rejected));
	u->metrics = s->nmetrics;
	u->series = s->nseries;
	u->bytes = s->bytes;
	u->max_bytes = s->max_bytes;
	otel_unlock(s);
}

size_t otel_expire(struct otel_store *s)
{
	struct series *dead = NULL;
	struct hslot *ms, *sl;
	size_t n = 0;
	uint64_t now;

	if (pthread_mutex_trylock(&s->lock) != 0)
		return 0;	/* a recorder has it: next time (the caller's next second) */
	now = s->now_ns();
	otel_ht_for_each(&s->metrics, ms) {
		struct metric *m = ms->val;

		otel_ht_for_each(&m->by_inst, sl) {
			struct series *ser = sl->val;

			if (now >= ser->seen_ns && now - ser->seen_ns >= s->idle_ns) {
				ser->dead = dead;
				dead = ser;
			}
		}
	}
	while (dead != NULL) {
		struct series *ser = dead;
		struct metric *m = ser->m;

		dead = ser->dead;
		otel_series_drop(s, ser);
		if (dead == NULL || dead->m != m) {
			otel_ht_shrink(s, &m->by_ident);
			otel_ht_shrink(s, &m->by_inst);
			otel_ht_shrink(s, &m->by_name);
			otel_ht_shrink(s, &m->sub);
		}
		n++;
	}
	otel_unlock(s);
	return n;
}
