/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_format.h - the facts of the MMV file format (docs/mmv-format.md)
 * that the writer (libpcp_mmv), the reader (pmda_mmv), the tests and the
 * fuzzer share: sections and their record sizes, limits, header offsets,
 * the name grammar, value types and semantics, PMID and indom encoding.
 * The record structs themselves are PCP's, in <pcp/mmv_dev.h>.
 */
#ifndef MMV_FORMAT_H
#define MMV_FORMAT_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pcp/mmv_dev.h>

/*
 * The sections a TOC entry may name: kind (mmv_toc_type_t), name, record
 * of version 1, record of versions 2 and 3, and their sizes in bytes.
 */
#define MMV_SECTION_MAP(X)						\
	X(INDOMS, "indoms", mmv_disk_indom_t, mmv_disk_indom_t, 32, 32)	\
	X(INSTANCES, "instances", mmv_disk_instance_t,			\
	  mmv_disk_instance2_t, 80, 24)					\
	X(METRICS, "metrics", mmv_disk_metric_t, mmv_disk_metric2_t,	\
	  104, 48)							\
	X(VALUES, "values", mmv_disk_value_t, mmv_disk_value_t, 32, 32)	\
	X(STRINGS, "strings", mmv_disk_string_t, mmv_disk_string_t,	\
	  256, 256)							\
	X(LABELS, "labels", mmv_disk_label_t, mmv_disk_label_t, 256, 256)

/* Record sizes by name: MMV_INDOMS_SIZE_V1, MMV_METRICS_SIZE_V2, ... */
enum mmv_record_size {
#define MMV_X(kind, name, v1, v2, size1, size2)				\
	MMV_##kind##_SIZE_V1 = size1, MMV_##kind##_SIZE_V2 = size2,
	MMV_SECTION_MAP(MMV_X)
#undef MMV_X
};

/*
 * Kinds in table order from 1, as mmv_dev.h numbers them (checked);
 * MMV_SECTION_END sizes arrays indexed by kind.
 */
enum mmv_section {
	MMV_SECTION_NONE = 0,
#define MMV_X(kind, name, v1, v2, size1, size2)	MMV_SECTION_##kind,
	MMV_SECTION_MAP(MMV_X)
#undef MMV_X
	MMV_SECTION_END
};

#define MMV_X(kind, name, v1, v2, size1, size2)				\
	static_assert(MMV_SECTION_##kind == (int)MMV_TOC_##kind,	\
		      name " kind as in mmv_dev.h");			\
	static_assert(sizeof(v1) == size1, name " record, version 1");	\
	static_assert(sizeof(v2) == size2, name " record, version 2");
MMV_SECTION_MAP(MMV_X)
#undef MMV_X

static inline bool mmv_section_known(int kind)
{
	return kind >= MMV_TOC_INDOMS && kind < MMV_SECTION_END;
}

/* Bytes of one record of section @kind in a file of @version; 0 unknown. */
static inline size_t mmv_record_size(int kind, int version)
{
	switch (kind) {
#define MMV_X(kind, name, v1, v2, size1, size2)				\
	case MMV_TOC_##kind:						\
		return version == MMV_VERSION1 ? size1 : size2;
	MMV_SECTION_MAP(MMV_X)
#undef MMV_X
	}
	return 0;
}

/* The section's name for log lines, "?" when unknown. */
static inline const char *mmv_section_name(int kind)
{
	switch (kind) {
#define MMV_X(kind, name, v1, v2, size1, size2)				\
	case MMV_TOC_##kind:						\
		return name;
	MMV_SECTION_MAP(MMV_X)
#undef MMV_X
	}
	return "?";
}

/* Header and TOC: the TOC entries follow the 40-byte header. */
#define MMV_HEADER_SIZE		sizeof(mmv_disk_header_t)
#define MMV_TOC_ENTRY_SIZE	sizeof(mmv_disk_toc_t)
#define MMV_TOC_OFFSET		MMV_HEADER_SIZE
#define MMV_TOC_MIN		2	/* metrics and values at least */
#define MMV_HDR_G1		offsetof(mmv_disk_header_t, g1)
#define MMV_HDR_G2		offsetof(mmv_disk_header_t, g2)
#define MMV_HDR_GEN_END		(MMV_HDR_G2 + sizeof(uint64_t))

static_assert(sizeof(mmv_disk_header_t) == 40, "header is 40 bytes");
static_assert(sizeof(mmv_disk_toc_t) == 16, "toc entry is 16 bytes");
static_assert(MMV_HDR_G1 == 8 && MMV_HDR_G2 == 16, "generations at 8, 16");
static_assert(offsetof(mmv_disk_header_t, cluster) == 36, "cluster at 36");
/* A value handle (pmAtomValue *) is the start of its record; an update
 * touches value and extra, the record's first 16 bytes. */
#define MMV_VALUE_LIVE_SIZE	offsetof(mmv_disk_value_t, metric)
static_assert(MMV_VALUE_LIVE_SIZE == 16, "value and extra are 16 bytes");
/* Versions 1 and 2/3 instances start alike (indom, padding, internal). */
#define MMV_INSTANCE_HEAD_SIZE	offsetof(mmv_disk_instance2_t, external)
static_assert(offsetof(mmv_disk_instance_t, external) ==
	      MMV_INSTANCE_HEAD_SIZE, "instance records start alike");

/* PCP's public structs (mmv_stats.h) keep PCP's sizes: the ABI. */
static_assert(sizeof(mmv_metric_t) == 104, "mmv_metric_t ABI");
static_assert(sizeof(mmv_metric2_t) == 48, "mmv_metric2_t ABI");
static_assert(sizeof(mmv_indom_t) == 32, "mmv_indom_t ABI");
static_assert(sizeof(mmv_instances_t) == 68, "mmv_instances_t ABI");
static_assert(sizeof(mmv_instances2_t) == 16, "mmv_instances2_t ABI");

/*
 * Generations: a file is complete when g1 == g2 != 0. Writers stamp g1
 * with the seconds in the high word and microseconds in the low.
 */
#define MMV_GEN_SEC_SHIFT	32

static inline bool mmv_generation_ready(uint64_t g1, uint64_t g2)
{
	return g1 != 0 && g1 == g2;
}

static inline uint64_t mmv_generation_make(uint64_t sec, uint64_t usec)
{
	return sec << MMV_GEN_SEC_SHIFT | usec;
}

/*
 * Names: a version 1 name is inline in MMV_NAMEMAX bytes, a later one in
 * a string slot of MMV_STRINGMAX bytes, NUL included in both.
 */
#define MMV_NAME_MAX_V1		(MMV_NAMEMAX - 1)	/* 63 */
#define MMV_NAME_MAX_V2		(MMV_STRINGMAX - 1)	/* 255 */

static inline size_t mmv_name_max(int version)
{
	return version == MMV_VERSION1 ? MMV_NAME_MAX_V1 : MMV_NAME_MAX_V2;
}

/* ASCII only: the locale of the process embedding us must not matter. */
static inline bool mmv_name_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool mmv_name_char(char c)
{
	return mmv_name_letter(c) || (c >= '0' && c <= '9') || c == '_';
}

/*
 * The metric name grammar the agents export (pmdammv(1), PMNS names):
 * @len bytes of letters, digits and '_' in non-empty components joined
 * by '.'. A full PMNS name must also begin with a letter.
 */
static inline bool mmv_name_components_valid(const char *s, size_t len)
{
	bool empty = true;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (empty)
				return false;
			empty = true;
		} else if (mmv_name_char(s[i])) {
			empty = false;
		} else {
			return false;
		}
	}
	return !empty;
}

/*
 * Value types: PCP's writer takes MMV_TYPE_NOSUPPORT..MMV_TYPE_ELAPSED,
 * but 7 and 8 (pmapi.h's PM_TYPE_AGGREGATE and PM_TYPE_AGGREGATE_STATIC)
 * have no MMV value record and crash pmdammv on fetch.
 */
#define MMV_TYPE_AGGREGATE		PM_TYPE_AGGREGATE
#define MMV_TYPE_AGGREGATE_STATIC	PM_TYPE_AGGREGATE_STATIC

static inline bool mmv_type_in_pcp_range(int type)
{
	return type >= MMV_TYPE_NOSUPPORT && type <= MMV_TYPE_ELAPSED;
}

static inline bool mmv_type_known(int type)
{
	return mmv_type_in_pcp_range(type) && type != MMV_TYPE_AGGREGATE &&
		type != MMV_TYPE_AGGREGATE_STATIC;
}

/* Semantics: 0 (read as a counter) or one of PCP's three. */
static inline bool mmv_sem_known(int sem)
{
	return sem == 0 || sem == MMV_SEM_COUNTER || sem == MMV_SEM_INSTANT ||
		sem == MMV_SEM_DISCRETE;
}

/*
 * PMIDs and indoms. A PMID is domain (9 bits), cluster (12), item (10);
 * an indom is domain (9), serial (22), as PCP's pmID_build and
 * pmInDom_build (libpcp functions, which neither the writer nor the
 * reader core links: tests check these against them). pmdammv numbers a
 * file's indom serial@cluster as cluster << 11 | serial, so indom numbers
 * keep only MMV_INDOM_CLUSTERS clusters apart.
 */
#define MMV_DOMAIN_BITS		9
#define MMV_CLUSTER_BITS	12
#define MMV_ITEM_BITS		10
#define MMV_SERIAL_BITS		11
#define MMV_INDOM_BITS		22	/* pmInDom serial */

#define MMV_ITEM_MAX		((1 << MMV_ITEM_BITS) - 1)	/* 1023 */
#define MMV_CLUSTER_MAX		((1 << MMV_CLUSTER_BITS) - 1)	/* 4095 */
#define MMV_SERIAL_MAX		((1 << MMV_SERIAL_BITS) - 1)	/* 2047 */
#define MMV_INDOM_CLUSTERS	(1 << (MMV_INDOM_BITS - MMV_SERIAL_BITS))
#define MMV_DOMAIN_MASK		((1u << MMV_DOMAIN_BITS) - 1)

static inline pmID mmv_pmid_build(unsigned int domain, unsigned int cluster,
		unsigned int item)
{
	return (domain & MMV_DOMAIN_MASK) << (MMV_CLUSTER_BITS + MMV_ITEM_BITS) |
		(cluster & MMV_CLUSTER_MAX) << MMV_ITEM_BITS |
		(item & MMV_ITEM_MAX);
}

/* The domain with PCP's top flag bit: a flagged PMID matches no agent. */
static inline unsigned int mmv_pmid_domain(pmID pmid)
{
	return pmid >> (MMV_CLUSTER_BITS + MMV_ITEM_BITS);
}

static inline unsigned int mmv_pmid_cluster(pmID pmid)
{
	return pmid >> MMV_ITEM_BITS & MMV_CLUSTER_MAX;
}

static inline unsigned int mmv_pmid_item(pmID pmid)
{
	return pmid & MMV_ITEM_MAX;
}

static inline pmInDom mmv_indom_build(unsigned int domain, unsigned int serial)
{
	return (domain & MMV_DOMAIN_MASK) << MMV_INDOM_BITS |
		(serial & ((1u << MMV_INDOM_BITS) - 1));
}

static inline unsigned int mmv_indom_domain(pmInDom indom)
{
	return indom >> MMV_INDOM_BITS;
}

/* The pmInDom serial of indom @serial of the file at @cluster. */
static inline unsigned int mmv_indom_serial(unsigned int cluster,
		unsigned int serial)
{
	return cluster << MMV_SERIAL_BITS | serial;
}

/* The low cluster bits and the file's serial back from a pmInDom. */
static inline unsigned int mmv_indom_cluster(pmInDom indom)
{
	return indom >> MMV_SERIAL_BITS & (MMV_INDOM_CLUSTERS - 1);
}

static inline unsigned int mmv_indom_file_serial(pmInDom indom)
{
	return indom & MMV_SERIAL_MAX;
}

#endif /* MMV_FORMAT_H */
