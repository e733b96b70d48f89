/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_dev.h - the on-disk layout of an MMV file (PCP: <pcp/mmv_dev.h>).
 *
 * Every integer is in host byte order; every offset is a byte offset from
 * the start of the file (0 = absent for help text). Records are packed with
 * 8-byte alignment and no compiler padding; the sizes are part of the
 * format (checked by static assertions in the library).
 */
#ifndef PCP_MMV_DEV_H
#define PCP_MMV_DEV_H

#include <stdint.h>
#include <pcp/mmv_stats.h>

#define MMV_VERSION1	1	/* inline 64-byte names */
#define MMV_VERSION2	2	/* names in string slots */
#define MMV_VERSION3	3	/* version 2 plus labels */
#define MMV_VERSION	1	/* default; higher only when needed */

typedef enum mmv_toc_type {
	MMV_TOC_INDOMS = 1,	/* mmv_disk_indom_t */
	MMV_TOC_INSTANCES = 2,	/* mmv_disk_instance_t / _instance2_t */
	MMV_TOC_METRICS = 3,	/* mmv_disk_metric_t / _metric2_t */
	MMV_TOC_VALUES = 4,	/* mmv_disk_value_t */
	MMV_TOC_STRINGS = 5,	/* mmv_disk_string_t */
	MMV_TOC_LABELS = 6,	/* mmv_disk_label_t */
} mmv_toc_type_t;

/* Table of contents entry (16 bytes), from offset 40 on. */
typedef struct mmv_disk_toc {
	mmv_toc_type_t type;
	int32_t count;		/* records in the section */
	uint64_t offset;	/* first record */
} mmv_disk_toc_t;

/* Instance domain (32 bytes). */
typedef struct mmv_disk_indom {
	uint32_t serial;
	uint32_t count;		/* instances */
	uint64_t offset;	/* first instance record */
	uint64_t shorttext;	/* string slot or 0 */
	uint64_t helptext;	/* string slot or 0 */
} mmv_disk_indom_t;

/* Version 1 instance (80 bytes). */
typedef struct mmv_disk_instance {
	uint64_t indom;		/* owning indom record */
	uint32_t padding;	/* zero */
	int32_t internal;
	char external[MMV_NAMEMAX];
} mmv_disk_instance_t;

/* Version 2/3 instance (24 bytes). */
typedef struct mmv_disk_instance2 {
	uint64_t indom;
	uint32_t padding;
	int32_t internal;
	uint64_t external;	/* string slot with the name */
} mmv_disk_instance2_t;

/* String slot (256 bytes). */
typedef struct mmv_disk_string {
	char payload[MMV_STRINGMAX];
} mmv_disk_string_t;

/* Label (256 bytes). */
typedef struct mmv_disk_label {
	uint32_t flags;		/* PM_LABEL_* | PM_LABEL_OPTIONAL */
	uint32_t identity;	/* cluster, item or indom serial */
	int32_t internal;	/* instance id or PM_IN_NULL */
	char payload[MMV_LABELMAX];
} mmv_disk_label_t;

/* Version 1 metric (104 bytes). */
typedef struct mmv_disk_metric {
	char name[MMV_NAMEMAX];
	uint32_t item;
	mmv_metric_type_t type;
	mmv_metric_sem_t semantics;
	pmUnits dimension;
	int32_t indom;		/* serial; 0 or -1: no indom */
	uint32_t padding;
	uint64_t shorttext;
	uint64_t helptext;
} mmv_disk_metric_t;

/* Version 2/3 metric (48 bytes). */
typedef struct mmv_disk_metric2 {
	uint64_t name;		/* string slot with the name */
	uint32_t item;
	mmv_metric_type_t type;
	mmv_metric_sem_t semantics;
	pmUnits dimension;
	int32_t indom;
	uint32_t padding;
	uint64_t shorttext;
	uint64_t helptext;
} mmv_disk_metric2_t;

/*
 * Value (32 bytes). A value handle (pmAtomValue *) points at the start of
 * this record.
 */
typedef struct mmv_disk_value {
	pmAtomValue value;
	int64_t extra;		/* STRING: slot offset; ELAPSED: -start (us) */
	uint64_t metric;	/* metric record */
	uint64_t instance;	/* instance record, or 0 */
} mmv_disk_value_t;

/* Header (40 bytes) at offset 0. */
typedef struct mmv_disk_header {
	char magic[4];		/* "MMV\0" */
	int32_t version;
	uint64_t g1;		/* generation: g1 == g2 != 0 when complete */
	uint64_t g2;
	int32_t tocs;
	mmv_stats_flags_t flags;
	int32_t process;	/* writer's pid */
	int32_t cluster;	/* requested cluster, 0 = any */
} mmv_disk_header_t;

#endif /* PCP_MMV_DEV_H */
