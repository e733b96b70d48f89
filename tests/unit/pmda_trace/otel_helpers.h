/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * otel_helpers.h - what the OpenTelemetry metrics store's tests share
 * (tests/unit/pmda_trace/test_otel_store*.c): a clock they set, points
 * of each kind, and a leaf's instances and values by name.
 */
#ifndef OTEL_HELPERS_H
#define OTEL_HELPERS_H

#include <stdio.h>
#include <string.h>

#include "../../../pmda_trace/otel/otel.h"

#define SEC	UINT64_C(1000000000)

static uint64_t test_now = 1000 * SEC;

static inline uint64_t test_clock(void)
{
	return __atomic_load_n(&test_now, __ATOMIC_RELAXED);
}

static inline void test_clock_set(uint64_t ns)
{
	__atomic_store_n(&test_now, ns, __ATOMIC_RELAXED);
}

static const struct otel_resource shop = {
	.service = "shop", .ns = "", .instance_id = "", .scope_name = "", .scope_version = "",
};

static inline struct otel_metric gauge(const char *name, const char *unit)
{
	return (struct otel_metric){ .name = name, .description = "", .unit = unit,
				     .kind = OTEL_GAUGE };
}

static inline struct otel_metric sum(const char *name, const char *unit, bool mono,
		enum otel_temporality t)
{
	return (struct otel_metric){ .name = name, .description = "", .unit = unit,
				     .kind = OTEL_SUM, .monotonic = mono, .temporality = t };
}

static inline struct otel_metric histo(const char *name, const char *unit, enum otel_kind kind,
		enum otel_temporality t)
{
	return (struct otel_metric){ .name = name, .description = "", .unit = unit,
				     .kind = kind, .temporality = t };
}

static inline struct otel_point ipoint(int64_t v, uint64_t t)
{
	return (struct otel_point){ .start_ns = 1, .time_ns = t, .is_int = true, .as_int = v };
}

static inline struct otel_point dpoint(double v, uint64_t t)
{
	return (struct otel_point){ .start_ns = 1, .time_ns = t, .as_double = v };
}

/* An explicit histogram point: @nb bounds, nb + 1 counts, their sum the count. */
static inline struct otel_point hpoint(const double *bounds, size_t nb, const uint64_t *counts,
		double s, uint64_t t)
{
	struct otel_point p = { .start_ns = 1, .time_ns = t, .has_sum = true, .sum = s,
				.bounds = bounds, .n_bounds = nb, .counts = counts, .n_counts = nb + 1 };

	for (size_t i = 0; i <= nb; i++)
		p.count += counts[i];
	return p;
}

/* Instances of a leaf, collected. */
struct insts {
	int n;
	int inst[256];
	char name[256][320];
};

static inline void collect(void *arg, int inst, const char *name)
{
	struct insts *c = arg;

	if (c->n < 256) {
		c->inst[c->n] = inst;
		snprintf(c->name[c->n], sizeof(c->name[0]), "%s", name);
		c->n++;
	}
}

/* The instances of leaf @leaf (its full name) into @c; its descriptor into @d. */
static inline int leaf_insts(struct otel_store *s, const char *leaf, struct insts *c, pmDesc *d)
{
	pmDesc dd;
	int ret;

	c->n = 0;
	if ((ret = otel_lookup_name(s, leaf, d ? d : &dd)) < 0)
		return ret;
	return otel_instances(s, (d ? d : &dd)->indom, collect, c);
}

/* Instance @name of leaf @leaf's number, or -1. */
static inline int inst_of(struct otel_store *s, const char *leaf, const char *name)
{
	static struct insts c;

	if (leaf_insts(s, leaf, &c, NULL) < 0)
		return -1;
	for (int i = 0; i < c.n; i++)
		if (strcmp(c.name[i], name) == 0)
			return c.inst[i];
	return -1;
}

/* Leaf @leaf's value for instance @name: otel_fetch's return. */
static inline int fetch(struct otel_store *s, const char *leaf, const char *name, pmAtomValue *a)
{
	pmDesc d;
	int inst;

	if (otel_lookup_name(s, leaf, &d) < 0)
		return PM_ERR_NAME;
	if ((inst = inst_of(s, leaf, name)) < 0)
		return PM_ERR_INST;
	return otel_fetch(s, d.pmid, inst, a);
}

#endif
