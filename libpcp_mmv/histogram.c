/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Histograms (include/pcp/mmv_histogram.h): declared through the registry
 * calls as an indom of buckets, three metrics and labels, so the file is
 * plain MMV; the handles of a started file point at its value records.
 *
 * Buckets are cells of a log-linear grid over all of uint64: below 2N
 * (N = sub_buckets = 2^s) one cell per integer, above it N cells per
 * power of two. cell_of() finds a value's cell with one count of leading
 * zeros; a histogram's buckets are the cells from lo's to (hi - 1)'s,
 * plus the underflow and overflow buckets.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pcp/mmv_histogram.h>
#include "mmv_priv.h"
#include "label_text.h"

/* PCP's pmdammv ignores every label of a file with more (docs/mmv-format.md §5). */
#define MMV_READER_LABELS_MAX	255

/* Long enough for "<255-char instance>:<20 digits>-<20 digits>". */
#define BUCKET_NAME_MAX		(MMV_NAME_MAX_V2 + 48)

struct mmv_histogram {
	/* what record needs, first */
	mmv_disk_value_t *bucket;	/* nb value records */
	pmAtomValue *count, *sum;
	uint64_t lo, hi;
	uint32_t nb, cell_lo;
	unsigned int shift;		/* log2(sub_buckets) */
	uint64_t ns_per_unit;		/* record_since's divisor */
	char *name, *instance;		/* instance NULL: one histogram */
};

struct mmv_hist_set {
	size_t n;
	struct mmv_histogram h[];
};

static inline uint32_t cell_of(uint64_t v, unsigned int s)
{
	/* v | 2^s: values below 2^(s+1) are their own cell (shift 0) */
	unsigned int sh = (unsigned int)(63 - __builtin_clzll(v | (1ULL << s))) - s;

	return (uint32_t)(((uint64_t)sh << s) + (v >> sh));
}

/* The smallest value of cell @c; UINT64_MAX past the last cell. */
static uint64_t cell_low(uint32_t c, unsigned int s)
{
	uint64_t n = 1ULL << s;
	unsigned int sh;

	if (c < n)
		return c;
	sh = (c >> s) - 1;
	if (sh + s + 1 > 64)
		return UINT64_MAX;
	return (n + (c & (n - 1))) << sh;
}

static uint32_t bucket_count(uint64_t lo, uint64_t hi, unsigned int s)
{
	return cell_of(hi - 1, s) - cell_of(lo, s) + 3;
}

/* Bounds of bucket @k of a scheme; returns 1 for the overflow bucket (no *bhi). */
static int bucket_bounds(uint64_t lo, uint64_t hi, unsigned int s, uint32_t nb,
		uint32_t k, uint64_t *blo, uint64_t *bhi)
{
	uint32_t c = cell_of(lo, s) + k - 1;
	uint64_t a, b;

	*bhi = 0;
	if (k == 0) {
		*blo = 0;
		*bhi = lo;
		return 0;
	}
	if (k == nb - 1) {
		*blo = hi;
		return 1;
	}
	a = cell_low(c, s);
	b = cell_low(c + 1, s);
	*blo = a > lo ? a : lo;
	*bhi = b < hi ? b : hi;
	return 0;
}

/* "[<instance>:]<lo>-<hi>" (or "-inf") into @buf; 0, or E2BIG past an instance name's limit. */
static int bucket_name(char *buf, const char *inst, uint64_t blo, uint64_t bhi,
		int inf)
{
	char hi[24];
	int n;

	if (inf)
		strcpy(hi, "inf");
	else
		snprintf(hi, sizeof(hi), "%" PRIu64, bhi);
	n = snprintf(buf, BUCKET_NAME_MAX, "%s%s%" PRIu64 "-%s", inst ? inst : "",
		     inst ? ":" : "", blo, hi);
	return n < 0 || n > MMV_NAME_MAX_V2 ? E2BIG : 0;
}

/* @s as a JSON string into @buf (MMV_LABELMAX); 0 or E2BIG. */
static int json_quote(char *buf, const char *s)
{
	return sdk_json_string(buf, MMV_LABELMAX, s) < 0 ? E2BIG : 0;
}

static int is_power_of_two(unsigned int v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/* Everything a declaration can get wrong, before the registry is touched. */
static int check_histogram(mmv_registry_t *reg, const char *name, int item,
		int bucket_serial, int serial, uint64_t lo, uint64_t hi,
		unsigned int sub_buckets, const struct mmv_def_indom **of)
{
	const struct mmv_def *def;
	char buf[BUCKET_NAME_MAX], quoted[MMV_LABELMAX];
	size_t ninst, labels;
	uint32_t nb;
	int err;

	if ((err = mmv__registry_check(reg)) != 0)
		return err;
	def = mmv__registry_def(reg);
	if (name == NULL)
		return EINVAL;
	/* NAME.bucket, the longest of the three, must be a valid name too */
	if (strlen(name) > MMV_NAME_MAX_V2 - strlen(".bucket"))
		return E2BIG;
	if ((err = mmv__check_metric_name(name, strlen(name))) != 0)
		return err;
	if (item < 0 || item > MMV_ITEM_MAX - 2 || bucket_serial < 1 ||
	    bucket_serial > MMV_SERIAL_MAX || lo < 1 || hi <= lo ||
	    sub_buckets > MMV_HISTOGRAM_SUB_BUCKETS_MAX ||
	    !is_power_of_two(sub_buckets))
		return EINVAL;
	if (mmv__find_indom(def, (uint32_t)bucket_serial) != NULL)
		return EEXIST;
	*of = NULL;
	if (serial != 0 && (*of = mmv__find_indom(def, (uint32_t)serial)) == NULL)
		return ESRCH;

	nb = bucket_count(lo, hi, (unsigned int)__builtin_ctz(sub_buckets));
	ninst = *of ? (*of)->ninstances : 1;
	if (ninst > (size_t)INT32_MAX / nb)
		return E2BIG;
	labels = 1 + ninst * (2 * (size_t)nb - 1 + (*of ? nb : 0));
	if (def->nlabels + labels > MMV_READER_LABELS_MAX)
		return E2BIG;
	/* the longest names: the overflow bucket's, and "of" of each instance */
	for (size_t p = 0; *of && p < ninst; p++) {
		const char *in = (*of)->instances[p].name;

		if (bucket_name(buf, in, UINT64_MAX, 0, 1) != 0 ||
		    json_quote(quoted, in) != 0 ||
		    strlen("{\"of\":}") + strlen(quoted) >= MMV_LABELMAX)
			return E2BIG;
	}
	return 0;
}

static int add_number_label(mmv_registry_t *reg, int serial, int id,
		const char *label, uint64_t v)
{
	char num[24];

	snprintf(num, sizeof(num), "%" PRIu64, v);
	return mmv_stats_add_instance_label(reg, serial, id, label, num,
					    MMV_NUMBER_TYPE, 0);
}

/* The buckets of instance @p (name @inst, NULL for one histogram). */
static int add_buckets(mmv_registry_t *reg, const struct mmv_def_histogram *h,
		uint32_t nb, size_t p, const char *inst)
{
	char buf[BUCKET_NAME_MAX], quoted[MMV_LABELMAX];
	unsigned int s = (unsigned int)__builtin_ctz(h->sub_buckets);
	int serial = (int)h->bucket_serial;

	for (uint32_t k = 0; k < nb; k++) {
		int id = (int)(p * nb + k);
		uint64_t blo, bhi;
		int inf = bucket_bounds(h->lo, h->hi, s, nb, k, &blo, &bhi);

		if (bucket_name(buf, inst, blo, bhi, inf) != 0 ||
		    mmv_stats_add_instance(reg, serial, id, buf) < 0 ||
		    add_number_label(reg, serial, id, "lo", blo) < 0 ||
		    (!inf && add_number_label(reg, serial, id, "hi", bhi) < 0))
			return -1;
		if (inst != NULL &&
		    (json_quote(quoted, inst) != 0 ||
		     mmv_stats_add_instance_label(reg, serial, id, "of", quoted,
						  MMV_STRING_TYPE, 0) < 0))
			return -1;
	}
	return 0;
}

/* The definitions of a checked histogram; -1 with errno on failure. */
static int add_definitions(mmv_registry_t *reg, const struct mmv_def_histogram *h,
		int item, const struct mmv_def_indom *of, const char *shorttext,
		const char *helptext)
{
	pmUnits count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
	unsigned int s = (unsigned int)__builtin_ctz(h->sub_buckets);
	uint32_t nb = bucket_count(h->lo, h->hi, s);
	char text[MMV_STRINGMAX], name[MMV_STRINGMAX];
	int serial = (int)h->serial, bserial = (int)h->bucket_serial;

	snprintf(text, sizeof(text), "Buckets of histogram %s", h->name);
	if (mmv_stats_add_indom(reg, bserial, text,
			"One counter per bucket, named lo-hi (hi exclusive) in the "
			"histogram's units; labels lo and hi give the bounds.") < 0)
		return -1;
	for (size_t p = 0; p < (of ? h->ninstances : 1); p++)
		if (add_buckets(reg, h, nb, p, of ? of->instances[p].name : NULL) < 0)
			return -1;
	snprintf(name, sizeof(name), "%s.bucket", h->name);
	if (mmv_stats_add_metric(reg, name, item, MMV_TYPE_U64, MMV_SEM_COUNTER,
			count, bserial, shorttext, helptext) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.count", h->name);
	snprintf(text, sizeof(text), "Number of values recorded in histogram %s "
		 "(the sum of its bucket counts).", h->name);
	if (mmv_stats_add_metric(reg, name, item + 1, MMV_TYPE_U64, MMV_SEM_COUNTER,
			count, serial, "Number of values recorded", text) < 0)
		return -1;
	snprintf(name, sizeof(name), "%s.sum", h->name);
	snprintf(text, sizeof(text), "Sum of the values recorded in histogram %s, "
		 "in its units.", h->name);
	if (mmv_stats_add_metric(reg, name, item + 2, MMV_TYPE_U64, MMV_SEM_COUNTER,
			h->units, serial, "Sum of the values recorded", text) < 0)
		return -1;
	snprintf(text, sizeof(text), "{\"scheme\":\"log-linear\",\"low\":%" PRIu64
		 ",\"high\":%" PRIu64 ",\"sub_buckets\":%u}", h->lo, h->hi,
		 h->sub_buckets);
	return mmv_stats_add_metric_label(reg, item, "histogram", text,
					  MMV_MAP_TYPE, 0);
}

int mmv_stats_add_histogram(mmv_registry_t *reg, const char *name, int item,
		int bucket_serial, int serial, uint64_t lo, uint64_t hi,
		unsigned int sub_buckets, pmUnits units, const char *shorttext,
		const char *helptext)
{
	mmv_histogram_spec_t spec = {
		.name = name, .item = item, .bucket_serial = bucket_serial,
		.serial = serial, .lo = lo, .hi = hi, .sub_buckets = sub_buckets,
		.units = units, .shorttext = shorttext, .helptext = helptext,
	};

	return mmv_stats_add_histogram_spec(reg, &spec);
}

int mmv_stats_add_histogram_spec(mmv_registry_t *reg, const mmv_histogram_spec_t *spec)
{
	const struct mmv_def_indom *of;
	struct mmv_def_histogram h;
	struct mmv_def *def;
	const char *name;
	int item, err;
	void *p;

	if (spec == NULL)
		return -(errno = EFAULT);
	name = spec->name;
	item = spec->item;
	if ((err = check_histogram(reg, name, item, spec->bucket_serial, spec->serial,
				   spec->lo, spec->hi, spec->sub_buckets, &of)) != 0) {
		errno = err;
		return -err;
	}
	h = (struct mmv_def_histogram){
		.bucket_serial = (uint32_t)spec->bucket_serial,
		.serial = (uint32_t)spec->serial, .lo = spec->lo, .hi = spec->hi,
		.sub_buckets = spec->sub_buckets, .units = spec->units,
	};
	def = mmv__registry_def(reg);
	h.ninstances = of ? of->ninstances : 0;
	if ((h.name = strdup(name)) == NULL)
		return -(errno = ENOMEM);
	p = realloc(def->histograms, (def->nhistograms + 1) * sizeof(h));
	if (p == NULL) {
		free(h.name);
		return -(errno = ENOMEM);
	}
	def->histograms = p;
	def->histograms[def->nhistograms++] = h;
	if (add_definitions(reg, &h, item, of, spec->shorttext, spec->helptext) < 0) {
		/* checked beforehand: only memory can run out, half-way */
		err = errno ? errno : ENOMEM;
		mmv__registry_fail_start(reg, err);
		return -(errno = err);
	}
	return 0;
}

int mmv__hist_check(const struct mmv_def *def)
{
	for (size_t i = 0; i < def->nhistograms; i++) {
		const struct mmv_def_histogram *h = &def->histograms[i];
		const struct mmv_def_indom *d;

		if (h->serial == 0)
			continue;
		d = mmv__find_indom(def, h->serial);
		if (d == NULL || d->ninstances != h->ninstances)
			return EINVAL;
	}
	if (def->nhistograms && def->nlabels > MMV_READER_LABELS_MAX)
		return E2BIG;
	return 0;
}

void mmv__hist_defs_free(struct mmv_def *def)
{
	for (size_t i = 0; i < def->nhistograms; i++)
		free(def->histograms[i].name);
	free(def->histograms);
	def->histograms = NULL;
	def->nhistograms = 0;
}

static uint64_t ns_per_unit(pmUnits u)
{
	static const uint64_t scale[] = {
		[PM_TIME_NSEC] = 1, [PM_TIME_USEC] = 1000,
		[PM_TIME_MSEC] = 1000000, [PM_TIME_SEC] = 1000000000,
		[PM_TIME_MIN] = 60000000000ULL, [PM_TIME_HOUR] = 3600000000000ULL,
	};

	if (u.dimTime != 1 || u.dimSpace != 0 || u.dimCount != 0 ||
	    u.scaleTime > PM_TIME_HOUR)
		return 1;
	return scale[u.scaleTime];
}

/* Point @hist at the records of histogram @h for instance @inst. */
static int bind_handle(struct mmv_histogram *hist, const struct mmv_def_histogram *h,
		const struct mmv_index *idx, const char *inst)
{
	unsigned int s = (unsigned int)__builtin_ctz(h->sub_buckets);
	char buf[BUCKET_NAME_MAX], name[MMV_STRINGMAX];

	hist->lo = h->lo;
	hist->hi = h->hi;
	hist->shift = s;
	hist->cell_lo = cell_of(h->lo, s);
	hist->nb = bucket_count(h->lo, h->hi, s);
	hist->ns_per_unit = ns_per_unit(h->units);
	bucket_name(buf, inst, 0, h->lo, 0);
	snprintf(name, sizeof(name), "%s.bucket", h->name);
	hist->bucket = mmv__index_find(idx, name, buf);
	snprintf(name, sizeof(name), "%s.count", h->name);
	hist->count = (pmAtomValue *)mmv__index_find(idx, name, inst);
	snprintf(name, sizeof(name), "%s.sum", h->name);
	hist->sum = (pmAtomValue *)mmv__index_find(idx, name, inst);
	if (hist->bucket == NULL || hist->count == NULL || hist->sum == NULL)
		return EINVAL;
	/* the buckets are consecutive records of one metric */
	for (uint32_t k = 1; k < hist->nb; k++)
		if (hist->bucket[k].metric != hist->bucket[0].metric)
			return EINVAL;
	hist->name = strdup(h->name);
	hist->instance = inst ? strdup(inst) : NULL;
	if (hist->name == NULL || (inst && hist->instance == NULL))
		return ENOMEM;
	return 0;
}

int mmv__hist_build(const struct mmv_def *def, const struct mmv_index *idx,
		struct mmv_hist_set **out)
{
	struct mmv_hist_set *set;
	size_t n = 0;
	int err;

	*out = NULL;
	if (def->nhistograms == 0)
		return 0;
	for (size_t i = 0; i < def->nhistograms; i++)
		n += def->histograms[i].serial ? def->histograms[i].ninstances : 1;
	if ((set = calloc(1, sizeof(*set) + n * sizeof(set->h[0]))) == NULL)
		return ENOMEM;
	for (size_t i = 0; i < def->nhistograms; i++) {
		const struct mmv_def_histogram *h = &def->histograms[i];
		const struct mmv_def_indom *d = h->serial ?
			mmv__find_indom(def, h->serial) : NULL;

		for (size_t p = 0; p < (d ? h->ninstances : 1); p++) {
			err = bind_handle(&set->h[set->n++], h, idx,
					  d ? d->instances[p].name : NULL);
			if (err != 0) {
				mmv__hist_free(set);
				return err;
			}
		}
	}
	*out = set;
	return 0;
}

void mmv__hist_free(struct mmv_hist_set *set)
{
	if (set == NULL)
		return;
	for (size_t i = 0; i < set->n; i++) {
		free(set->h[i].name);
		free(set->h[i].instance);
	}
	free(set);
}

mmv_histogram_t *mmv_stats_histogram(void *addr, const char *name,
		const char *instance)
{
	struct mmv_mapping *map;

	if (addr == NULL || name == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((map = mmv__mapping_find(addr)) == NULL || map->hists == NULL) {
		errno = ENOENT;
		return NULL;
	}
	for (size_t i = 0; i < map->hists->n; i++) {
		struct mmv_histogram *h = &map->hists->h[i];

		if (strcmp(h->name, name) != 0)
			continue;
		if (h->instance == NULL)
			return h;
		if (instance == NULL) {
			errno = EINVAL;
			return NULL;
		}
		if (strcmp(h->instance, instance) == 0)
			return h;
	}
	errno = ENOENT;
	return NULL;
}

void mmv_histogram_record(mmv_histogram_t *h, uint64_t value)
{
	uint32_t k;

	if (h == NULL)
		return;
	if (value < h->lo)
		k = 0;
	else if (value >= h->hi)
		k = h->nb - 1;
	else
		k = cell_of(value, h->shift) - h->cell_lo + 1;
	/* relaxed: each add is atomic, their order does not matter to a reader */
	__atomic_fetch_add(&h->bucket[k].value.ull, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->count->ull, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum->ull, value, __ATOMIC_RELAXED);
}

uint64_t mmv_histogram_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mmv_histogram_record_since(mmv_histogram_t *h, uint64_t start)
{
	uint64_t now;

	if (h == NULL)
		return;
	now = mmv_histogram_now();
	mmv_histogram_record(h, now > start ? (now - start) / h->ns_per_unit : 0);
}
