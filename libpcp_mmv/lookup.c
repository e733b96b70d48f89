/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Lookup by name, the by-name wrappers and elapsed-time intervals.
 *
 * Files this process created have a hash index (index.c). A mapping the
 * library did not create (an application mapping some other writer's file
 * and handing it in) is scanned the way PCP does, trusting its header.
 */
#include <string.h>

#include "mmv_priv.h"

static int instance_matches(const char *base, int v1, uint64_t inst,
		const char *name)
{
	if (v1)
		return strcmp(((const mmv_disk_instance_t *)(base + inst))->external, name) == 0;
	return strcmp(base + ((const mmv_disk_instance2_t *)(base + inst))->external, name) == 0;
}

static mmv_disk_value_t *scan(void *addr, const char *metric, const char *inst)
{
	char *base = addr;
	const mmv_disk_header_t *h = addr;
	const mmv_disk_toc_t *toc = (const mmv_disk_toc_t *)(base + sizeof(*h));
	int v1 = h->version == MMV_VERSION1;

	for (int t = 0; t < h->tocs; t++) {
		mmv_disk_value_t *v = (mmv_disk_value_t *)(base + toc[t].offset);

		if (toc[t].type != MMV_TOC_VALUES)
			continue;
		for (int32_t i = 0; i < toc[t].count; i++, v++) {
			const char *mname;
			int32_t indom;

			if (v1) {
				const mmv_disk_metric_t *m = (const void *)(base + v->metric);

				mname = m->name;
				indom = m->indom;
			} else {
				const mmv_disk_metric2_t *m = (const void *)(base + v->metric);

				mname = base + m->name;
				indom = m->indom;
			}
			if (strcmp(mname, metric) != 0)
				continue;
			if (mmv_indom_is_null((uint32_t)indom))
				return v;
			if (inst == NULL)
				return NULL;
			if (instance_matches(base, v1, v->instance, inst))
				return v;
		}
	}
	return NULL;
}

mmv_disk_value_t *mmv__lookup(void *addr, const char *metric, const char *inst)
{
	struct mmv_mapping *map;

	if (addr == NULL || metric == NULL)
		return NULL;
	map = mmv__mapping_find(addr);
	if (map != NULL)
		return mmv__index_find(map->index, metric, inst);
	return scan(addr, metric, inst);
}

pmAtomValue *mmv_lookup_value_desc(void *addr, const char *metric,
		const char *inst)
{
	return (pmAtomValue *)mmv__lookup(addr, metric, inst);
}

void mmv_stats_add(void *addr, const char *metric, const char *inst,
		double count)
{
	mmv_inc_value(addr, (pmAtomValue *)mmv__lookup(addr, metric, inst), count);
}

void mmv_stats_inc(void *addr, const char *metric, const char *inst)
{
	mmv_stats_add(addr, metric, inst, 1);
}

void mmv_stats_set(void *addr, const char *metric, const char *inst,
		double value)
{
	mmv_set_value(addr, (pmAtomValue *)mmv__lookup(addr, metric, inst), value);
}

void mmv_stats_add_fallback(void *addr, const char *metric, const char *inst,
		const char *inst2, double count)
{
	mmv_disk_value_t *v = mmv__lookup(addr, metric, inst);

	if (v == NULL)
		v = mmv__lookup(addr, metric, inst2);
	mmv_inc_value(addr, (pmAtomValue *)v, count);
}

void mmv_stats_inc_fallback(void *addr, const char *metric, const char *inst,
		const char *inst2)
{
	mmv_stats_add_fallback(addr, metric, inst, inst2, 1);
}

void mmv_stats_set_string(void *addr, const char *metric, const char *inst,
		const char *string)
{
	if (string == NULL)
		return;
	mmv_set_string(addr, (pmAtomValue *)mmv__lookup(addr, metric, inst),
		       string, (int)strnlen(string, MMV_STRINGMAX));
}

void mmv_stats_set_strlen(void *addr, const char *metric, const char *inst,
		const char *string, size_t len)
{
	if (len > MMV_STRINGMAX)
		len = MMV_STRINGMAX;	/* only the first 255 chars can be kept */
	mmv_set_string(addr, (pmAtomValue *)mmv__lookup(addr, metric, inst),
		       string, (int)len);
}

pmAtomValue *mmv_stats_interval_start(void *addr, pmAtomValue *value,
		const char *metric, const char *inst)
{
	if (addr == NULL)
		return value;
	if (value == NULL)
		value = (pmAtomValue *)mmv__lookup(addr, metric, inst);
	if (value != NULL)
		mmv__interval_begin(addr, value);
	return value;
}

void mmv_stats_interval_end(void *addr, pmAtomValue *value)
{
	if (addr != NULL && value != NULL)
		mmv__interval_finish(addr, value);
}
