/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Hashed lookup of value records by (metric name, instance name), built
 * when the file is created. PCP scans every value record with strcmp on
 * each lookup; here the cost does not depend on the number of metrics or
 * instances. Names are compared against the file itself, so the index
 * holds only offsets and hashes.
 */
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"

struct idx_metric {
	const char *name;		/* in the mapping */
	mmv_disk_value_t *first;	/* first value record */
	int32_t indom;			/* index into inst_base, -1: none */
};

struct idx_instance {
	const char *name;		/* in the mapping */
	uint32_t indom;
	uint32_t k;			/* position within the indom */
};

struct slot {
	uint32_t hash;
	uint32_t ref;			/* entry + 1; 0 is empty */
};

struct table {
	struct slot *slots;
	uint32_t mask;
};

struct mmv_index {
	struct idx_metric *metrics;
	struct idx_instance *instances;
	struct table mtab, itab;
};

static uint32_t hash_name(const char *s, uint32_t seed)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ seed;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return (uint32_t)(h ^ (h >> 32));
}

static int table_init(struct table *t, size_t n)
{
	size_t cap = 8;

	while (cap < 2 * n)
		cap <<= 1;
	t->slots = calloc(cap, sizeof(*t->slots));
	t->mask = (uint32_t)(cap - 1);
	return t->slots ? 0 : -1;
}

static void table_put(struct table *t, uint32_t hash, uint32_t ref)
{
	uint32_t i = hash & t->mask;

	while (t->slots[i].ref != 0)
		i = (i + 1) & t->mask;
	t->slots[i].hash = hash;
	t->slots[i].ref = ref;
}

static const char *metric_name(const char *base, uint64_t rec, int v1)
{
	if (v1)
		return ((const mmv_disk_metric_t *)(base + rec))->name;
	return base + ((const mmv_disk_metric2_t *)(base + rec))->name;
}

static const char *instance_name(const char *base, uint64_t rec, int v1)
{
	if (v1)
		return ((const mmv_disk_instance_t *)(base + rec))->external;
	return base + ((const mmv_disk_instance2_t *)(base + rec))->external;
}

struct mmv_index *mmv__index_build(const struct mmv_def *def,
		const struct mmv_layout *lay, char *base)
{
	struct mmv_index *idx = calloc(1, sizeof(*idx));
	size_t ninst = (lay->off_metrics - lay->off_instances) / lay->inst_size;
	size_t *inst_base = calloc(def->nindoms + 1, sizeof(*inst_base));
	mmv_disk_value_t *v = (mmv_disk_value_t *)(base + lay->off_values);
	int v1 = lay->version == MMV_VERSION1;
	size_t g = 0;

	if (idx == NULL || inst_base == NULL)
		goto fail;
	idx->metrics = calloc(def->nmetrics + 1, sizeof(*idx->metrics));
	idx->instances = calloc(ninst + 1, sizeof(*idx->instances));
	if (idx->metrics == NULL || idx->instances == NULL ||
	    table_init(&idx->mtab, def->nmetrics) < 0 ||
	    table_init(&idx->itab, ninst) < 0)
		goto fail;

	for (size_t i = 0; i < def->nindoms; i++) {
		inst_base[i] = g;
		for (size_t k = 0; k < def->indoms[i].ninstances; k++, g++) {
			struct idx_instance *in = &idx->instances[g];

			in->name = instance_name(base, lay->off_instances + g * lay->inst_size, v1);
			in->indom = (uint32_t)i;
			in->k = (uint32_t)k;
			table_put(&idx->itab, hash_name(in->name, in->indom), (uint32_t)g + 1);
		}
	}
	for (size_t i = 0; i < def->nmetrics; i++) {
		const struct mmv_def_metric *m = &def->metrics[i];
		struct idx_metric *im = &idx->metrics[i];

		im->name = metric_name(base, lay->off_metrics + i * lay->metric_size, v1);
		im->first = v;
		im->indom = -1;
		if (mmv_indom_is_null(m->indom)) {
			v++;
		} else {
			const struct mmv_def_indom *d = mmv__find_indom(def, m->indom);

			im->indom = (int32_t)(d - def->indoms);
			v += d->ninstances;
		}
		table_put(&idx->mtab, hash_name(im->name, 0), (uint32_t)i + 1);
	}
	free(inst_base);
	return idx;
fail:
	free(inst_base);
	mmv__index_free(idx);
	return NULL;
}

static mmv_disk_value_t *find_instance(const struct mmv_index *idx,
		const struct idx_metric *m, const char *inst)
{
	uint32_t h = hash_name(inst, (uint32_t)m->indom);

	for (uint32_t i = h & idx->itab.mask; idx->itab.slots[i].ref; i = (i + 1) & idx->itab.mask) {
		const struct slot *s = &idx->itab.slots[i];
		const struct idx_instance *in = &idx->instances[s->ref - 1];

		if (s->hash == h && in->indom == (uint32_t)m->indom &&
		    strcmp(in->name, inst) == 0)
			return m->first + in->k;
	}
	return NULL;
}

/*
 * Metrics of one name come up in file order (linear probing keeps the
 * order of insertion): as in PCP's scan, the first singular one, or the
 * first that has the instance, wins.
 */
mmv_disk_value_t *mmv__index_find(const struct mmv_index *idx,
		const char *metric, const char *inst)
{
	uint32_t h = hash_name(metric, 0);

	for (uint32_t i = h & idx->mtab.mask; idx->mtab.slots[i].ref; i = (i + 1) & idx->mtab.mask) {
		const struct slot *s = &idx->mtab.slots[i];
		const struct idx_metric *m = &idx->metrics[s->ref - 1];
		mmv_disk_value_t *v;

		if (s->hash != h || strcmp(m->name, metric) != 0)
			continue;
		if (m->indom < 0)
			return m->first;	/* the instance is ignored, as in PCP */
		if (inst == NULL)
			return NULL;
		if ((v = find_instance(idx, m, inst)) != NULL)
			return v;
	}
	return NULL;
}

void mmv__index_free(struct mmv_index *idx)
{
	if (idx == NULL)
		return;
	free(idx->metrics);
	free(idx->instances);
	free(idx->mtab.slots);
	free(idx->itab.slots);
	free(idx);
}
