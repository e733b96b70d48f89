/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Internal interfaces of libpcp_mmv.
 *
 * All three creation paths (registry, mmv_stats_init, mmv_stats2_init)
 * translate the caller's description into one mmv_def, which is validated
 * once (def.c), laid out once (layout.c) and published once (file.c).
 */
#ifndef MMV_PRIV_H
#define MMV_PRIV_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <pcp/mmv_stats.h>
#include <pcp/mmv_dev.h>
#include "mmv_format.h"

struct mmv_def_instance {
	int32_t id;
	const char *name;
	size_t name_len;	/* bytes of name used (v1: cut to 63) */
};

struct mmv_def_indom {
	uint32_t serial;
	const char *shorttext;	/* NULL: no slot */
	const char *helptext;
	struct mmv_def_instance *instances;
	size_t ninstances;
	size_t cap;		/* registry only */
};

struct mmv_def_metric {
	const char *name;
	size_t name_len;
	uint32_t item;
	int32_t type;
	int32_t semantics;
	pmUnits units;
	uint32_t indom;		/* serial as given; 0 or ~0: none */
	const char *shorttext;
	const char *helptext;
};

/* A histogram declared on a registry (histogram.c); its metrics, indom and
 * labels are ordinary definitions beside it. */
struct mmv_def_histogram {
	char *name;		/* owned */
	uint32_t bucket_serial;
	uint32_t serial;	/* 0: one histogram */
	uint64_t lo, hi;
	unsigned int sub_buckets;
	pmUnits units;
	size_t ninstances;	/* of @serial when declared */
};

/* What one creation call describes. Strings are borrowed or owned by the caller. */
struct mmv_def {
	const char *file;
	int cluster;
	mmv_stats_flags_t flags;
	struct mmv_def_indom *indoms;
	size_t nindoms;
	struct mmv_def_metric *metrics;
	size_t nmetrics;
	mmv_disk_label_t *labels;
	size_t nlabels;
	struct mmv_def_histogram *histograms;	/* registry only */
	size_t nhistograms;
};

static inline int mmv_indom_is_null(uint32_t serial)
{
	return serial == 0 || serial == MMV_INDOM_NULL;
}

/* def.c: validation shared by every creation path. 0 or an errno value. */
int mmv__check_indom(const struct mmv_def_indom *indom, int v1_api);
int mmv__check_instance(const char *name, size_t len, int v1_api);
int mmv__check_metric(const struct mmv_def_metric *m);
int mmv__check_metric_name(const char *name, size_t len);
int mmv__check_def(const struct mmv_def *def, int v1_api);
const struct mmv_def_indom *mmv__find_indom(const struct mmv_def *def,
		uint32_t serial);
int mmv__choose_version(const struct mmv_def *def);

/* layout.c: PCP's writer's byte layout (docs/mmv-format.md §2.4). */
struct mmv_layout {
	int version;
	int tocs;
	size_t nvalues;
	size_t nstrings;
	uint64_t off_indoms, off_instances, off_metrics, off_values;
	uint64_t off_strings, off_labels, size;
	size_t inst_size, metric_size;
};
int mmv__layout_plan(const struct mmv_def *def, int version,
		struct mmv_layout *lay);
void mmv__layout_write(const struct mmv_def *def, const struct mmv_layout *lay,
		char *base, uint64_t generation);

/* index.c: hashed lookup of value records in a file this process wrote. */
struct mmv_index;
struct mmv_index *mmv__index_build(const struct mmv_def *def,
		const struct mmv_layout *lay, char *base);
mmv_disk_value_t *mmv__index_find(const struct mmv_index *idx,
		const char *metric, const char *inst);
void mmv__index_free(struct mmv_index *idx);

/*
 * mapping.c: the files this process has mapped, keyed by base address.
 *
 * Each mapping keeps its value records' types in a private table (one
 * byte a record), so that an update does not read the record's metric
 * offset: that word shares the cache line other threads are writing,
 * and reading it under contention costs a second transfer of the line.
 * No writer stores into the table or its slot after mmv__mapping_add.
 */
#define MMV__HIDDEN __attribute__((visibility("hidden")))

struct mmv_hist_set;
struct mmv_mapping {
	void *addr;
	size_t size;
	dev_t dev;
	ino_t ino;
	struct mmv_index *index;
	struct mmv_hist_set *hists;	/* NULL: no histograms */
	uint8_t *types;			/* nvalues bytes: each record's MMV_TYPE */
	uint64_t off_values;		/* of the first value record */
	uint64_t nvalues;
};

/* One slot a mapping, a cache line each: read on every update, written
 * only at start and stop. */
struct mmv__map_slot {
	void *addr;			/* published last (release) */
	struct mmv_mapping *map;
	const uint8_t *types;
	uint64_t lo, hi;		/* [lo, hi): the value records' offsets */
} __attribute__((aligned(64)));

#define MMV__MAX_MAPPINGS	256	/* a power of two */
#define MMV__SLOT_GONE		((void *)1)	/* removed: probes go on */
extern struct mmv__map_slot mmv__slots[MMV__MAX_MAPPINGS] MMV__HIDDEN;

int mmv__mapping_add(struct mmv_mapping *map);
struct mmv_mapping *mmv__mapping_find(const void *addr);
struct mmv_mapping *mmv__mapping_remove(const void *addr);

/* Where the probe for @addr (page aligned) starts. */
static inline unsigned mmv__slot_hash(const void *addr)
{
	return (unsigned)((((uint64_t)(uintptr_t)addr >> 12) *
			   0x9E3779B97F4A7C15ULL) >> 56) % MMV__MAX_MAPPINGS;
}

/* The slot of the file mapped at @addr, or NULL: one probe for one file. */
static inline const struct mmv__map_slot *mmv__slot_find(const void *addr)
{
	unsigned h = mmv__slot_hash(addr);

	if (addr == NULL || addr == MMV__SLOT_GONE)
		return NULL;
	for (unsigned n = 0; n < MMV__MAX_MAPPINGS; n++) {
		const struct mmv__map_slot *s = &mmv__slots[(h + n) % MMV__MAX_MAPPINGS];
		void *a = __atomic_load_n(&s->addr, __ATOMIC_ACQUIRE);

		if (a == addr)
			return s;
		if (a == NULL)
			return NULL;	/* never used: the probe ends */
	}
	return NULL;
}

static inline int mmv__record_type(const void *addr, const void *av)
{
	const struct mmv__map_slot *s = mmv__slot_find(addr);
	uint64_t off = (uint64_t)((const char *)av - (const char *)addr);

	if (s == NULL || off < s->lo || off >= s->hi ||
	    (off - s->lo) % sizeof(mmv_disk_value_t))
		return -1;
	return s->types[(off - s->lo) / sizeof(mmv_disk_value_t)];
}

/* file.c: create, publish and stop files. */
void *mmv__create(const struct mmv_def *def, int version);
int mmv__build_path(const char *name, char *buf, size_t len);

/* registry.c: what histogram.c needs of a registry. */
int mmv__registry_check(const mmv_registry_t *reg);
struct mmv_def *mmv__registry_def(mmv_registry_t *reg);
void mmv__registry_fail_start(mmv_registry_t *reg, int err);

/* histogram.c: checks at start, the handles of a new file, cleanup. */
int mmv__hist_check(const struct mmv_def *def);
int mmv__hist_build(const struct mmv_def *def, const struct mmv_index *idx,
		struct mmv_hist_set **out);
void mmv__hist_free(struct mmv_hist_set *set);
void mmv__hist_defs_free(struct mmv_def *def);

/* counter.c: fold the counters on the file at @addr into it and detach
 * them, before the file is unmapped. */
void mmv__counters_detach(const void *addr);

/* lookup.c */
mmv_disk_value_t *mmv__lookup(void *addr, const char *metric, const char *inst);

/* labels.c */
int mmv__label_make(mmv_disk_label_t *out, uint32_t flags, uint32_t identity,
		int32_t internal, const char *name, const char *value,
		mmv_value_type_t type, int optional);

/* update.c: the bodies of mmv_stats_interval_start/end on a value handle
 * (both non-NULL). The clock is wall-clock microseconds, as the agent
 * reads it. */
void mmv__interval_begin(void *addr, pmAtomValue *av);
void mmv__interval_finish(void *addr, pmAtomValue *av);

#endif
