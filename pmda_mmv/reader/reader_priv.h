/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader_priv.h - internals of the MMV reader core, shared by its files:
 * arena.c (per-snapshot memory), file.c (opening and checking one file),
 * model.c (its sections), snapshot.c (scan and queries), fetch.c (live
 * values), rescan.c (change detection).
 */
#ifndef PMDA_MMV_READER_PRIV_H
#define PMDA_MMV_READER_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include "reader.h"

/* Per-snapshot bump allocator: freed as a whole with the snapshot. */
typedef struct arena_chunk arena_chunk_t;
typedef struct arena {
	arena_chunk_t *head;
} arena_t;

void *mmvr_arena_alloc(arena_t *a, size_t size);	/* zeroed; NULL on ENOMEM */
void *mmvr_arena_array(arena_t *a, size_t n, size_t size);	/* overflow-safe */
void *mmvr_arena_array_raw(arena_t *a, size_t n, size_t size);	/* the same, not cleared */
char *mmvr_arena_strdup(arena_t *a, const char *s);
char *mmvr_arena_strndup(arena_t *a, const char *s, size_t n);
void mmvr_arena_free(arena_t *a);
void mmvr_arena_reserve(const arena_t *a);	/* kept blocks of its chunks' sizes */
/* A block of at least @size bytes (*@got: how many), a kept one if one
 * fits; mmvr_block_give keeps it for the next take, or frees it. */
void *mmvr_block_take(size_t size, size_t *got);
void mmvr_block_give(void *p);
void mmvr_block_reserve(size_t size);	/* a kept block, its pages faulted in */
size_t mmvr_block_fresh(void);		/* blocks malloc gave so far (tests) */
void mmvr_block_trim(void);		/* free every kept block */

/* One usable value record of a metric. */
typedef struct rvalue {
	int32_t inst;			/* PM_IN_NULL without an indom */
	uint32_t seq;			/* position in the values section */
	uint64_t offset;		/* of the record in the file */
	uint64_t slot;			/* STRING: checked slot offset */
} rvalue_t;

typedef struct rfile rfile_t;

typedef struct rmetric {
	mmvr_metric_info_t pub;		/* first: queries hand out &pub */
	const char *rel_name;		/* as stored in the file */
	uint32_t item;
	int32_t mtype;			/* MMV_TYPE_* */
	uint32_t serial;		/* 0: no indom */
	bool ok;			/* passed the record checks */
	bool exported;			/* has a unique, valid full name */
	uint32_t seq;			/* file order, for name clashes */
	rvalue_t *values;		/* sorted by inst, unique */
	uint32_t nvalues;
	uint32_t first;			/* index of the first in file order */
	uint64_t span_lo, span_hi;	/* bytes its values (and slots) occupy */
	rfile_t *file;
} rmetric_t;

/*
 * What a fetch of a singular number reads instead of its rmetric_t, its
 * rvalue_t and its rfile_t (four cache lines on three pages): a table per
 * mapped file, by item, of records (struct rquick, reader.h), kept with
 * the file across rescans; and, per snapshot, the few fields of each
 * file a fetch needs, in one dense array (rfast_t), so that a request
 * that reads 100 files touches one or two pages for them, not 100.
 */
typedef struct rquick rquick_t;

typedef struct rquicktab {
	uint32_t nitems;		/* items below this have a record */
	rquick_t quick[];		/* by item */
} rquicktab_t;

typedef struct rfast {
	const unsigned char *map;	/* f->map, never NULL */
	uint64_t generation;		/* f->pub.generation */
	const rquicktab_t *table;	/* f->quick */
	const rfile_t *file;
	unsigned int flags;		/* f->pub.flags */
} rfast_t;

/* The first of @n metrics sorted by name whose name is not below @name
 * (snapshot.c: searched from the front in growing steps). */
size_t mmvr_name_lower_bound(rmetric_t *const *v, size_t n, const char *name);

typedef struct rinst {
	int32_t id;
	const char *name;		/* NULL: record refused */
} rinst_t;

typedef struct rindom {
	uint32_t serial;
	uint64_t offset;		/* first instance record */
	uint32_t nraw;			/* records, refused ones included */
	rinst_t *inst;
	const char *shorttext;
	const char *helptext;
} rindom_t;

typedef struct rlabel {
	uint32_t flags;
	uint32_t identity;
	int32_t internal;
	const char *json;
} rlabel_t;

/*
 * One accepted file. Shared by the snapshots that serve it unchanged
 * (same identity, size and generation, same cluster): after the scan that
 * loaded it, nothing in it changes but log_budget and mark, which only
 * the scanning thread touches. Freed with its last snapshot.
 */
struct rfile {
	mmvr_file_info_t pub;
	arena_t arena;			/* everything below that is allocated */
	int refs;			/* snapshots holding it; scan thread only */
	unsigned int mark;		/* scan that last took it over */
	uint16_t index;			/* in the files of the scan that last
					 * took it over (that scan's by_file) */
	bool built;			/* names, PMIDs, by_item and indoms set */
	bool clash_lost;		/* a metric lost its name to another file */
	mmvr_indom_info_t *indom_pub;	/* its indoms, in file order */
	int fd;				/* kept open for fstat (and reads if
					 * not mapped) */
	const unsigned char *map;	/* whole file, read-only; NULL: pread */
	uint64_t size;			/* at the scan; also of the mapping */
	dev_t dev;
	ino_t ino;
	rmetric_t *metrics;		/* one per record, file order */
	uint32_t nmetrics;
	rindom_t *indoms;		/* accepted ones */
	uint32_t nindoms;
	rlabel_t *labels;
	uint32_t nlabels;
	uint16_t *by_item;		/* exported metric index + 1, 0: none */
	rquicktab_t *quick;		/* NULL: not mapped, or no such metric */
	int log_budget;			/* problems still worth a line */
};

/* A file that was not ready: rescan when it becomes ready. */
typedef struct rpending {
	const char *name;
	uint64_t size;
	uint64_t g1, g2;
} rpending_t;

/* The snapshot: immutable once mmvr_snapshot_scan returns. */
struct mmvr_snapshot {
	arena_t arena;
	const char *dir;
	const char *prefix;
	unsigned int domain;
	uint64_t max_file_size;
	mmvr_log_fn log;
	void *log_arg;
	bool nomem;			/* set by the scan on ENOMEM */
	int dir_errno;			/* of the scan's stat, 0 if fine */
	int dfd;			/* the directory scanned, or -1 */
	struct timespec dir_mtime;
	struct timespec dir_ctime;	/* also changed by a rename of it */
	dev_t dir_dev;
	ino_t dir_ino;
	bool dir_racy;			/* changed within a clock tick of the scan */
	rfile_t **files;		/* accepted, by name */
	size_t nfiles;
	rfile_t *by_cluster[MMV_CLUSTER_MAX + 1];
	rfast_t *fast;			/* files with a quick table */
	uint16_t fast_of[MMV_CLUSTER_MAX + 1];	/* cluster: index in fast
					 * + 1, or 0 */
	rpending_t *pending;
	unsigned int npending;
	rmetric_t **by_name;		/* exported metrics */
	uint16_t *by_file;		/* by_name[i]'s index in files: the
					 * next merge reads no metric */
	size_t nmetrics;
	mmvr_indom_info_t *indoms;	/* sorted by indom */
	size_t nindoms;
	int changed;			/* a fetch saw a file change; atomic */
	unsigned int mark;		/* this scan's number */
	size_t nreused;			/* files taken over from previous */
	bool no_reuse;			/* load every file afresh */
	bool retry;			/* names clash with a taken-over file */
	const mmvr_snapshot_t *previous;	/* during the scan only */
};

/* snapshot.c: drop a reference to @f (the last frees it). */
void mmvr_file_put(rfile_t *f);

/* rescan.c: are g1 and g2 of @f still what the scan read? */
bool mmvr_file_generation_same(const rfile_t *f);

/* Logging: one line, prefixed with the file name when one is given. */
void mmvr_log(const mmvr_snapshot_t *snap, int level, const char *file,
		const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A per-file problem; after a few, the rest are counted, not logged. */
void mmvr_file_log(const mmvr_snapshot_t *snap, rfile_t *f, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* file.c: the result of looking at one directory entry. */
enum load_result {
	LOAD_OK,
	LOAD_REFUSED,			/* logged; ignored until it changes */
	LOAD_NOT_READY,			/* retried when it becomes ready */
	LOAD_NOMEM,
};

/* An opened, copied and header-checked file. */
typedef struct image {
	const unsigned char *buf;	/* whole file, heap */
	uint64_t size;
	int32_t version;
	uint32_t tocs;
} image_t;

enum load_result mmvr_file_load(mmvr_snapshot_t *snap, int dfd, const char *name,
		rfile_t **out, image_t *img, rpending_t *pend);
void mmvr_image_release(image_t *img);
bool mmvr_span_ok(uint64_t size, uint64_t off, uint64_t count, uint64_t recsize);
bool mmvr_writer_alive(int pid);
/* Header fields without trusting alignment. */
void mmvr_header_read(const unsigned char *buf, uint64_t *g1, uint64_t *g2);

/* file.c: @len bytes at @off of @fd, all of them (false if fewer). */
bool mmvr_pread_all(int fd, void *buf, size_t len, uint64_t off);

/* fetch.c: @len bytes at @off of @f, from its mapping through the
 * guard (or pread); false if the file no longer holds them. */
bool mmvr_file_read(const rfile_t *f, void *buf, size_t len, uint64_t off);

/* One copy out of a mapping. */
typedef struct mmvr_copy {
	void *dst;
	const void *src;
	size_t len;
} mmvr_copy_t;

/* guard.c: install the process's SIGBUS handler (once); false if it
 * could not be, and files are then read with pread instead. */
bool mmvr_guard_init(void);
/* The @n copies of @c, in order; false instead of dying if a source
 * page is gone (the destinations are then partly written). */
bool mmvr_guard_copy(const mmvr_copy_t *c, unsigned int n);

/* model.c: parse the sections of an accepted image into @f. */
int mmvr_model_parse(mmvr_snapshot_t *snap, rfile_t *f, const image_t *img);
/* A string at @off, NUL within @max bytes and the file; copied. */
const char *mmvr_image_string(mmvr_snapshot_t *snap, rfile_t *f, const image_t *img,
		uint64_t off, size_t max);

/* snapshot.c */
bool mmvr_name_valid(const char *name);
int mmvr_cmp_u32(uint32_t a, uint32_t b);

#endif /* PMDA_MMV_READER_PRIV_H */
