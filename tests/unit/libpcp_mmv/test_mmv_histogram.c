/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Histograms (include/pcp/mmv_histogram.h): the bucket scheme at every
 * edge, the layout of CONTRACT (bucket instances, ids, names, labels,
 * .count and .sum), per-instance histograms, record_since, argument
 * errors, and threads recording at once losing nothing. Expected bucket
 * bounds are written out by hand from the scheme in the header, not
 * computed by the library's arithmetic.
 */
#include <pthread.h>

#include <pcp/mmv_histogram.h>

#include "mmv_test.h"

#define BUCKETS		100	/* serial of the bucket indom */
#define PRODUCTS	5

/* ------------------------------------------------------------------ */
/* Reading the file back through the mapping.                          */
/* ------------------------------------------------------------------ */

static const mmv_disk_toc_t *toc_of(const void *addr, mmv_toc_type_t type)
{
	const mmv_disk_header_t *h = addr;
	const mmv_disk_toc_t *toc = (const void *)((const char *)addr + sizeof(*h));

	for (int i = 0; i < h->tocs; i++)
		if (toc[i].type == type)
			return &toc[i];
	return NULL;
}

/* Instance @i of indom @serial (v2/v3 records): its id and name. */
static int instance_at(const void *addr, uint32_t serial, uint32_t i,
		int32_t *id, const char **name)
{
	const char *base = addr;
	const mmv_disk_toc_t *t = toc_of(addr, MMV_TOC_INDOMS);
	const mmv_disk_indom_t *d = (const void *)(base + t->offset);

	for (int32_t k = 0; k < t->count; k++, d++) {
		const mmv_disk_instance2_t *in;

		if (d->serial != serial)
			continue;
		if (i >= d->count)
			return -1;
		in = (const void *)(base + d->offset) + i * sizeof(*in);
		*id = in->internal;
		*name = base + in->external;
		return 0;
	}
	return -1;
}

static uint32_t indom_count(const void *addr, uint32_t serial)
{
	const mmv_disk_toc_t *t = toc_of(addr, MMV_TOC_INDOMS);
	const mmv_disk_indom_t *d = (const void *)((const char *)addr + t->offset);

	for (int32_t k = 0; k < t->count; k++, d++)
		if (d->serial == serial)
			return d->count;
	return 0;
}

/* The payload of the label with these flags, identity and instance, or NULL. */
static const char *label_of(const void *addr, uint32_t flags, uint32_t identity,
		int32_t internal, const char *name)
{
	const mmv_disk_toc_t *t = toc_of(addr, MMV_TOC_LABELS);
	const mmv_disk_label_t *l;
	char prefix[64];

	if (t == NULL)
		return NULL;
	snprintf(prefix, sizeof(prefix), "{\"%s\":", name);
	l = (const void *)((const char *)addr + t->offset);
	for (int32_t k = 0; k < t->count; k++, l++)
		if (l->flags == flags && l->identity == identity &&
		    l->internal == internal &&
		    strncmp(l->payload, prefix, strlen(prefix)) == 0)
			return l->payload;
	return NULL;
}

static int label_count(const void *addr)
{
	const mmv_disk_toc_t *t = toc_of(addr, MMV_TOC_LABELS);

	return t ? t->count : 0;
}

static uint64_t value_of(void *addr, const char *metric, const char *inst)
{
	pmAtomValue *v = mmv_lookup_value_desc(addr, metric, inst);

	assert_non_null(v);
	return v->ull;
}

/* ------------------------------------------------------------------ */
/* Schemes written out by hand.                                        */
/* ------------------------------------------------------------------ */

struct scheme {
	uint64_t lo, hi;
	unsigned int sub;
	const char *names[24];	/* every bucket, NULL-terminated */
};

static const struct scheme schemes[] = {
	/* powers of two: 4 per octave, 16..256 */
	{ 16, 256, 4, { "0-16", "16-20", "20-24", "24-28", "28-32", "32-40",
	  "40-48", "48-56", "56-64", "64-80", "80-96", "96-112", "112-128",
	  "128-160", "160-192", "192-224", "224-256", "256-inf", NULL } },
	/* bounds off the grid: first and last buckets cut */
	{ 10, 100, 2, { "0-10", "10-12", "12-16", "16-24", "24-32", "32-48",
	  "48-64", "64-96", "96-100", "100-inf", NULL } },
	/* one bucket per octave */
	{ 1, 8, 1, { "0-1", "1-2", "2-4", "4-8", "8-inf", NULL } },
	/* octaves narrower than the sub-bucket count: one per integer */
	{ 1, 20, 8, { "0-1", "1-2", "2-3", "3-4", "4-5", "5-6", "6-7", "7-8",
	  "8-9", "9-10", "10-11", "11-12", "12-13", "13-14", "14-15",
	  "15-16", "16-18", "18-20", "20-inf", NULL } },
	/* the top of uint64 */
	{ 1ULL << 62, UINT64_MAX, 1, { "0-4611686018427387904",
	  "4611686018427387904-9223372036854775808",
	  "9223372036854775808-18446744073709551615",
	  "18446744073709551615-inf", NULL } },
};

/* "<lo>-<hi>" or "<lo>-inf" (returns 1). */
static int split(const char *name, uint64_t *lo, uint64_t *hi)
{
	char *end;

	*lo = strtoull(name, &end, 10);
	assert_int_equal(*end, '-');
	if (strcmp(end + 1, "inf") == 0) {
		*hi = UINT64_MAX;
		return 1;
	}
	*hi = strtoull(end + 1, &end, 10);
	assert_int_equal(*end, '\0');
	return 0;
}

static void *start_one(mmv_registry_t **reg, const struct scheme *s, pmUnits u)
{
	*reg = mmv_stats_registry("h", 0, 0);
	assert_non_null(*reg);
	assert_int_equal(mmv_stats_add_histogram(*reg, "lat", 3, BUCKETS, 0,
			 s->lo, s->hi, s->sub, u, "Latency", "Latency help"), 0);
	return mmv_stats_start(*reg);
}

/* Every bucket's name, id, labels, and both of its edges recorded into it. */
static void test_scheme_edges(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		const struct scheme *s = &schemes[i];
		mmv_registry_t *reg;
		void *addr = start_one(&reg, s, mt_usec);
		mmv_histogram_t *h;
		uint64_t n = 0, sum = 0;
		uint32_t nb = 0;

		assert_non_null(addr);
		while (s->names[nb])
			nb++;
		assert_int_equal(indom_count(addr, BUCKETS), nb);
		h = mmv_stats_histogram(addr, "lat", NULL);
		assert_non_null(h);
		for (uint32_t k = 0; k < nb; k++) {
			const char *name, *hi_label;
			char want[64];
			uint64_t lo, hi, last;
			int32_t id, inf;

			assert_int_equal(instance_at(addr, BUCKETS, k, &id, &name), 0);
			assert_int_equal(id, (int32_t)k);
			assert_string_equal(name, s->names[k]);
			inf = split(s->names[k], &lo, &hi);
			assert_int_equal(inf, k == nb - 1);
			last = inf ? UINT64_MAX : hi - 1;
			snprintf(want, sizeof(want), "{\"lo\":%" PRIu64 "}", lo);
			assert_string_equal(label_of(addr, PM_LABEL_INSTANCES, BUCKETS,
						     id, "lo"), want);
			hi_label = label_of(addr, PM_LABEL_INSTANCES, BUCKETS, id, "hi");
			if (inf) {
				assert_null(hi_label);
			} else {
				snprintf(want, sizeof(want), "{\"hi\":%" PRIu64 "}", hi);
				assert_string_equal(hi_label, want);
			}
			/* both edges in, and nothing else */
			mmv_histogram_record(h, lo);
			mmv_histogram_record(h, last);
			assert_int_equal(value_of(addr, "lat.bucket", s->names[k]), 2);
			if (k > 0)
				assert_int_equal(value_of(addr, "lat.bucket", s->names[k - 1]), 2);
			n += 2;
			sum += lo + last;
		}
		assert_int_equal(value_of(addr, "lat.count", NULL), n);
		assert_int_equal(value_of(addr, "lat.sum", NULL), sum);	/* wraps */
		mmv_stats_free(reg);
	}
}

/* Descriptors, help and the scheme label, as the layout says. */
static void test_layout(void **state)
{
	const struct scheme *s = &schemes[0];
	pmUnits usec = mt_usec;
	const mmv_disk_toc_t *t;
	const mmv_disk_metric2_t *m;
	mmv_registry_t *reg;
	void *addr;
	int seen = 0;

	(void)state;
	addr = start_one(&reg, s, usec);
	assert_non_null(addr);
	assert_int_equal(((mmv_disk_header_t *)addr)->version, MMV_VERSION3);
	assert_string_equal(label_of(addr, PM_LABEL_ITEM, 3, PM_IN_NULL, "histogram"),
		"{\"histogram\":{\"scheme\":\"log-linear\",\"low\":16,\"high\":256,\"sub_buckets\":4}}");
	/* 1 scheme label, lo on 18 buckets, hi on 17 */
	assert_int_equal(label_count(addr), 1 + 18 + 17);
	t = toc_of(addr, MMV_TOC_METRICS);
	m = (const void *)((const char *)addr + t->offset);
	for (int32_t i = 0; i < t->count; i++, m++) {
		const char *name = (const char *)addr + m->name;

		assert_int_equal(m->type, MMV_TYPE_U64);
		assert_int_equal(m->semantics, MMV_SEM_COUNTER);
		if (strcmp(name, "lat.bucket") == 0) {
			assert_int_equal(m->item, 3);
			assert_int_equal(m->indom, BUCKETS);
			assert_int_equal(units_word(m->dimension), units_word(mt_count));
			assert_string_equal((const char *)addr + m->shorttext, "Latency");
			assert_string_equal((const char *)addr + m->helptext, "Latency help");
		} else if (strcmp(name, "lat.count") == 0) {
			assert_int_equal(m->item, 4);
			assert_int_equal(m->indom, 0);
			assert_int_equal(units_word(m->dimension), units_word(mt_count));
		} else {
			assert_string_equal(name, "lat.sum");
			assert_int_equal(m->item, 5);
			assert_int_equal(m->indom, 0);
			assert_int_equal(units_word(m->dimension), units_word(usec));
		}
		seen++;
	}
	assert_int_equal(seen, 3);
	mmv_stats_free(reg);
}

/* A histogram per product: ids p * nb + k, names "<product>:<lo>-<hi>", "of". */
static void test_per_instance(void **state)
{
	static const char *products[] = { "anvil", "rocket \"x\"", "band" };
	const struct scheme *s = &schemes[2];	/* 5 buckets */
	mmv_histogram_t *h[3];
	mmv_registry_t *reg;
	void *addr;
	char name[64], want[64];

	(void)state;
	reg = mmv_stats_registry("h", 0, 0);
	assert_non_null(reg);
	assert_int_equal(mmv_stats_add_indom(reg, PRODUCTS, "products", NULL), 0);
	for (int p = 0; p < 3; p++)
		assert_int_equal(mmv_stats_add_instance(reg, PRODUCTS, 10 + p,
							products[p]), 0);
	assert_int_equal(mmv_stats_add_histogram(reg, "build", 0, BUCKETS, PRODUCTS,
			 s->lo, s->hi, s->sub, mt_usec, NULL, NULL), 0);
	addr = mmv_stats_start(reg);
	assert_non_null(addr);
	assert_int_equal(indom_count(addr, BUCKETS), 15);
	for (int p = 0; p < 3; p++) {
		for (uint32_t k = 0; k < 5; k++) {
			const char *iname;
			int32_t id;

			assert_int_equal(instance_at(addr, BUCKETS, (uint32_t)p * 5 + k,
						     &id, &iname), 0);
			assert_int_equal(id, p * 5 + (int)k);
			snprintf(name, sizeof(name), "%s:%s", products[p], s->names[k]);
			assert_string_equal(iname, name);
		}
		h[p] = mmv_stats_histogram(addr, "build", products[p]);
		assert_non_null(h[p]);
	}
	/* the "of" label is a JSON string: the quotes escaped */
	assert_string_equal(label_of(addr, PM_LABEL_INSTANCES, BUCKETS, 5, "of"),
			    "{\"of\":\"rocket \\\"x\\\"\"}");
	assert_string_equal(label_of(addr, PM_LABEL_INSTANCES, BUCKETS, 14, "of"),
			    "{\"of\":\"band\"}");
	assert_int_equal(label_count(addr), 1 + 3 * (5 + 4 + 5));

	mmv_histogram_record(h[1], 3);		/* rocket: "2-4" */
	mmv_histogram_record(h[1], 100);	/* rocket: "8-inf" */
	mmv_histogram_record(h[2], 0);		/* band: "0-1" */
	snprintf(name, sizeof(name), "%s:2-4", products[1]);
	assert_int_equal(value_of(addr, "build.bucket", name), 1);
	snprintf(name, sizeof(name), "%s:8-inf", products[1]);
	assert_int_equal(value_of(addr, "build.bucket", name), 1);
	assert_int_equal(value_of(addr, "build.bucket", "band:0-1"), 1);
	assert_int_equal(value_of(addr, "build.bucket", "anvil:2-4"), 0);
	assert_int_equal(value_of(addr, "build.count", products[1]), 2);
	assert_int_equal(value_of(addr, "build.sum", products[1]), 103);
	assert_int_equal(value_of(addr, "build.count", "band"), 1);
	assert_int_equal(value_of(addr, "build.count", "anvil"), 0);
	snprintf(want, sizeof(want), "{\"lo\":8}");
	assert_string_equal(label_of(addr, PM_LABEL_INSTANCES, BUCKETS, 9, "lo"), want);

	/* lookups that fail */
	errno = 0;
	assert_null(mmv_stats_histogram(addr, "build", NULL));
	assert_int_equal(errno, EINVAL);
	assert_null(mmv_stats_histogram(addr, "build", "lathe"));
	assert_int_equal(errno, ENOENT);
	assert_null(mmv_stats_histogram(addr, "nope", "anvil"));
	assert_int_equal(errno, ENOENT);
	assert_null(mmv_stats_histogram(NULL, "build", "anvil"));
	assert_int_equal(errno, EINVAL);
	mmv_histogram_record(NULL, 1);		/* ignored */
	mmv_histogram_record_since(NULL, 1);
	mmv_stats_reset(reg);
	assert_null(mmv_stats_histogram(addr, "build", "anvil"));
	assert_int_equal(errno, ENOENT);
	mmv_stats_free(reg);
}

static void expect_add(mmv_registry_t *reg, int err, const char *name, int item,
		int bserial, int serial, uint64_t lo, uint64_t hi, unsigned int sub)
{
	errno = 0;
	assert_int_equal(mmv_stats_add_histogram(reg, name, item, bserial, serial,
			 lo, hi, sub, mt_usec, NULL, NULL), -err);
	assert_int_equal(errno, err);
}

static void test_invalid(void **state)
{
	mmv_registry_t *reg = mmv_stats_registry("h", 0, 0);
	char *longname = mt_str(249, 'a');
	char *okname = mt_str(248, 'a');
	char *longinst = mt_str(240, 'i');
	void *addr;

	(void)state;
	assert_non_null(reg);
	assert_int_equal(mmv_stats_add_indom(reg, PRODUCTS, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_indom(reg, 7, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(reg, 7, 0, longinst), 0);
	expect_add(NULL, EFAULT, "x", 0, BUCKETS, 0, 1, 2, 1);
	expect_add(reg, EINVAL, NULL, 0, BUCKETS, 0, 1, 2, 1);
	expect_add(reg, EINVAL, "a..b", 0, BUCKETS, 0, 1, 2, 1);
	expect_add(reg, E2BIG, longname, 0, BUCKETS, 0, 1, 2, 1);
	expect_add(reg, EINVAL, "x", -1, BUCKETS, 0, 1, 2, 1);
	expect_add(reg, EINVAL, "x", 1022, BUCKETS, 0, 1, 2, 1);
	expect_add(reg, EINVAL, "x", 0, 0, 0, 1, 2, 1);
	expect_add(reg, EINVAL, "x", 0, 2048, 0, 1, 2, 1);
	expect_add(reg, EEXIST, "x", 0, PRODUCTS, 0, 1, 2, 1);
	expect_add(reg, ESRCH, "x", 0, BUCKETS, 6, 1, 2, 1);
	expect_add(reg, EINVAL, "x", 0, BUCKETS, 0, 0, 2, 1);	/* lo 0 */
	expect_add(reg, EINVAL, "x", 0, BUCKETS, 0, 2, 2, 1);	/* hi == lo */
	expect_add(reg, EINVAL, "x", 0, BUCKETS, 0, 3, 2, 1);	/* hi < lo */
	expect_add(reg, EINVAL, "x", 0, BUCKETS, 0, 1, 2, 0);
	expect_add(reg, EINVAL, "x", 0, BUCKETS, 0, 1, 2, 3);
	expect_add(reg, EINVAL, "x", 0, BUCKETS, 0, 1, 2, 128);
	/* "<240 chars>:18446744073709551615-inf" is longer than 255 */
	expect_add(reg, E2BIG, "x", 0, BUCKETS, 7, 1, UINT64_MAX, 1);
	/* 1 + (2 * 130 - 1) labels: more than PCP's agent reads */
	expect_add(reg, E2BIG, "x", 0, BUCKETS, 0, 1, 129, 64);
	/* the longest name and the last items, sub_buckets 64 */
	assert_int_equal(mmv_stats_add_histogram(reg, okname, 1021, 9, 0, 1, 2, 64,
						 mt_usec, NULL, NULL), 0);
	/* 6 labels so far; buckets 0-1, 1-2, ..., 123-124, 124-inf: 250 more */
	expect_add(reg, E2BIG, "y", 0, 11, 0, 1, 124, 64);
	assert_int_equal(mmv_stats_add_histogram(reg, "y", 0, 11, 0, 1, 123, 64,
						 mt_usec, NULL, NULL), 0);
	addr = mmv_stats_start(reg);
	assert_non_null(addr);
	assert_int_equal(label_count(addr), 6 + 248);
	/* nothing was declared by the failures */
	assert_null(mmv_lookup_value_desc(addr, "x.count", NULL));
	assert_int_equal(indom_count(addr, BUCKETS), 0);
	expect_add(reg, EBUSY, "z", 10, 12, 0, 1, 2, 1);
	mmv_stats_free(reg);
	free(longname);
	free(okname);
	free(longinst);
}

/* An instance of @serial declared after the histogram has no buckets: start refuses. */
/* A registry with a product indom and histogram "build" declared by @spec
 * or, @spec NULL, by the positional call with the same arguments. */
static void *start_build(mmv_registry_t **reg, const char *file,
		const mmv_histogram_spec_t *spec)
{
	const struct scheme *s = &schemes[2];

	*reg = mmv_stats_registry(file, 0, 0);
	assert_non_null(*reg);
	assert_int_equal(mmv_stats_add_indom(*reg, PRODUCTS, "products", NULL), 0);
	assert_int_equal(mmv_stats_add_instance(*reg, PRODUCTS, 10, "anvil"), 0);
	if (spec != NULL)
		assert_int_equal(mmv_stats_add_histogram_spec(*reg, spec), 0);
	else
		assert_int_equal(mmv_stats_add_histogram(*reg, "build", 4, BUCKETS,
				 PRODUCTS, s->lo, s->hi, s->sub, mt_usec, "Build",
				 "Build help"), 0);
	return mmv_stats_start(*reg);
}

/* The call by field name writes what the positional one writes. */
static void test_spec(void **state)
{
	const struct scheme *s = &schemes[2];
	mmv_histogram_spec_t spec = {
		.name = "build", .item = 4, .bucket_serial = BUCKETS,
		.serial = PRODUCTS, .lo = s->lo, .hi = s->hi, .sub_buckets = s->sub,
		.units = mt_usec, .shorttext = "Build", .helptext = "Build help",
	};
	mmv_histogram_spec_t bad = { .name = "x", .item = 1, .bucket_serial = 9,
		.lo = 2, .hi = 1, .sub_buckets = 1 };
	mmv_registry_t *rs, *rp;
	unsigned char *fs, *fp;
	size_t ls, lp;

	assert_non_null(start_build(&rs, "hs", &spec));
	assert_non_null(start_build(&rp, "hp", NULL));
	fs = mt_read(state, "hs", &ls);
	fp = mt_read(state, "hp", &lp);
	assert_int_equal(ls, lp);
	memset(fs + 8, 0, 16);		/* generations: the times of start */
	memset(fp + 8, 0, 16);
	assert_memory_equal(fs, fp, ls);
	free(fs);
	free(fp);
	mmv_stats_free(rs);
	mmv_stats_free(rp);

	rs = mmv_stats_registry("hs", 0, 0);
	errno = 0;
	assert_int_equal(mmv_stats_add_histogram_spec(rs, NULL), -EFAULT);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(mmv_stats_add_histogram_spec(rs, &bad), -EINVAL);
	assert_int_equal(mmv_stats_add_histogram_spec(NULL, &spec), -EFAULT);
	mmv_stats_free(rs);
}

static void test_late_instance(void **state)
{
	mmv_registry_t *reg = mmv_stats_registry("h", 0, 0);

	(void)state;
	assert_int_equal(mmv_stats_add_indom(reg, PRODUCTS, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(reg, PRODUCTS, 0, "a"), 0);
	assert_int_equal(mmv_stats_add_histogram(reg, "x", 0, BUCKETS, PRODUCTS,
						 1, 4, 1, mt_usec, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_instance(reg, PRODUCTS, 1, "b"), 0);
	errno = 0;
	assert_null(mmv_stats_start(reg));
	assert_int_equal(errno, EINVAL);
	mmv_stats_free(reg);
}

/* Elapsed time in the histogram's units; nanoseconds when they are not a time. */
static void test_record_since(void **state)
{
	static const struct {
		pmUnits u;
		uint64_t per;	/* ns per unit */
	} cases[] = {
		{ MMV_UNITS(0, 1, 0, 0, PM_TIME_NSEC, 0), 1 },
		{ MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0), 1000 },
		{ MMV_UNITS(0, 1, 0, 0, PM_TIME_MSEC, 0), 1000000 },
		{ MMV_UNITS(0, 1, 0, 0, PM_TIME_SEC, 0), 1000000000 },
		{ MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE), 1 },
	};
	const uint64_t ago = 3000000000ULL;	/* 3 s */

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct scheme s = { 1, 1ULL << 40, 1, { NULL } };
		mmv_registry_t *reg;
		void *addr = start_one(&reg, &s, cases[i].u);
		mmv_histogram_t *h = mmv_stats_histogram(addr, "lat", NULL);
		uint64_t t0 = mmv_histogram_now(), t1, sum;

		assert_non_null(h);
		mmv_histogram_record_since(h, t0 - ago);
		t1 = mmv_histogram_now();
		sum = value_of(addr, "lat.sum", NULL);
		assert_true(sum >= ago / cases[i].per);
		assert_true(sum <= (ago + (t1 - t0)) / cases[i].per);
		mmv_histogram_record_since(h, t1 + ago);	/* future: 0 */
		assert_int_equal(value_of(addr, "lat.sum", NULL), sum);
		assert_int_equal(value_of(addr, "lat.count", NULL), 2);
		assert_int_equal(value_of(addr, "lat.bucket", "0-1"), 1);
		mmv_stats_free(reg);
	}
}

/* ------------------------------------------------------------------ */
/* Threads: N x M records, every total exact.                          */
/* ------------------------------------------------------------------ */

#define NTHREADS	4
#define NRECORDS	100000

struct job {
	mmv_histogram_t *h;
	pthread_barrier_t *start;
};

/* Values 0..299 cycle over every bucket of schemes[0], under- and overflow. */
static void *recorder(void *arg)
{
	struct job *j = arg;

	pthread_barrier_wait(j->start);
	for (int i = 0; i < NRECORDS; i++)
		mmv_histogram_record(j->h, (uint64_t)(i % 300));
	return NULL;
}

static void test_threads(void **state)
{
	const struct scheme *s = &schemes[0];
	pthread_barrier_t start;
	pthread_t tid[NTHREADS];
	struct job j;
	mmv_registry_t *reg;
	void *addr = start_one(&reg, s, mt_usec);
	uint64_t total = 0;

	(void)state;
	assert_non_null(addr);
	j.h = mmv_stats_histogram(addr, "lat", NULL);
	j.start = &start;
	pthread_barrier_init(&start, NULL, NTHREADS);
	for (int t = 0; t < NTHREADS; t++)
		assert_int_equal(pthread_create(&tid[t], NULL, recorder, &j), 0);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(tid[t], NULL);
	pthread_barrier_destroy(&start);

	for (uint32_t k = 0; s->names[k]; k++) {
		uint64_t lo, hi, want = 0;

		(void)split(s->names[k], &lo, &hi);
		/* how many of 0..NRECORDS-1 have i % 300 in [lo, hi) */
		for (int i = 0; i < NRECORDS; i++)
			want += (uint64_t)(i % 300) >= lo && (uint64_t)(i % 300) < hi;
		assert_int_equal(value_of(addr, "lat.bucket", s->names[k]), want * NTHREADS);
		total += want * NTHREADS;
	}
	assert_int_equal(total, (uint64_t)NTHREADS * NRECORDS);
	assert_int_equal(value_of(addr, "lat.count", NULL), total);
	{
		uint64_t sum = 0;

		for (int i = 0; i < NRECORDS; i++)
			sum += (uint64_t)(i % 300);
		assert_int_equal(value_of(addr, "lat.sum", NULL), sum * NTHREADS);
	}
	mmv_stats_free(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MT_TEST(test_scheme_edges),
		MT_TEST(test_layout),
		MT_TEST(test_per_instance),
		MT_TEST(test_invalid),
		MT_TEST(test_spec),
		MT_TEST(test_late_instance),
		MT_TEST(test_record_since),
		MT_TEST(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
