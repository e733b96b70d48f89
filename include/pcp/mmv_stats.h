/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_stats.h - publish metrics through a Memory Mapped Values (MMV) file.
 *
 * Source- and ABI-compatible with PCP's <pcp/mmv_stats.h> (same names,
 * constants and struct layouts); link with -lpcp_mmv. Files written here
 * are read by PCP's pmdammv and mmvdump exactly as files from PCP's own
 * library. Unlike PCP's library every update is atomic (no lost increments
 * across threads or processes), lookups by name are hashed, and the file
 * is built under a hidden name and published complete.
 *
 * Conventions:
 *  - "addr" is the handle returned by mmv_stats_init, mmv_stats2_init or
 *    mmv_stats_start: the base address of the file's mapping.
 *  - A value handle is a pmAtomValue * that points at a 32-byte value
 *    record inside the mapping (see mmv_dev.h); get one from
 *    mmv_lookup_value_desc. It stays valid until mmv_stats_stop.
 *  - Functions returning a pointer return NULL and set errno on failure;
 *    functions returning int return 0, or -1 with errno set.
 *  - Update functions return nothing and do nothing when addr or the value
 *    handle is NULL, or when the operation does not apply to the metric's
 *    type (as in PCP).
 *  - Update and lookup functions may be called from any number of threads
 *    at once. Registry building (mmv_stats_registry .. mmv_stats_start) is
 *    for one thread per registry.
 *  - What a concurrent reader (the agent, or any process mapping the file)
 *    may observe: each update is one relaxed atomic store or
 *    read-modify-write of the value's 4 or 8 bytes, so the value is seen
 *    before or after the update, never torn, and no increment is lost.
 *    Relaxed means unordered: updates of different values (and the start
 *    and total of one ELAPSED value) may become visible in another order
 *    than they were made. The metadata is complete before the file has
 *    its name (g2 stored with release ordering, then rename).
 *  - "PCP: name(3)" names the PCP man page a call matches; calls PCP
 *    documents only in its header say "PCP: <pcp/mmv_stats.h>". Our own
 *    pages (man/man3) state our differences.
 *
 * Every deliberate difference from PCP's library is listed in
 * docs/compatibility.md of the source tree.
 */
#ifndef PCP_MMV_STATS_H
#define PCP_MMV_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <pcp/pmapi.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MMV_NAMEMAX	64	/* v1 inline names, NUL included */
#define MMV_LABELMAX	244	/* label payload, NUL included */
#define MMV_STRINGMAX	256	/* one string slot, NUL included */

/* Metric value types: the PM_TYPE_* codes plus ELAPSED. */
typedef enum mmv_metric_type {
	MMV_TYPE_NOSUPPORT = PM_TYPE_NOSUPPORT,	/* -1: exported, never fetched */
	MMV_TYPE_I32 = PM_TYPE_32,
	MMV_TYPE_U32 = PM_TYPE_U32,
	MMV_TYPE_I64 = PM_TYPE_64,
	MMV_TYPE_U64 = PM_TYPE_U64,
	MMV_TYPE_FLOAT = PM_TYPE_FLOAT,
	MMV_TYPE_DOUBLE = PM_TYPE_DOUBLE,
	MMV_TYPE_STRING = PM_TYPE_STRING,	/* value lives in a 256-byte slot */
	MMV_TYPE_ELAPSED = 9,	/* accumulated microseconds, a 64-bit counter */
} mmv_metric_type_t;

typedef enum mmv_metric_sem {
	MMV_SEM_COUNTER = PM_SEM_COUNTER,
	MMV_SEM_INSTANT = PM_SEM_INSTANT,
	MMV_SEM_DISCRETE = PM_SEM_DISCRETE,
} mmv_metric_sem_t;

enum {
	MMV_INDOM_NULL = PM_INDOM_NULL	/* metric has a single value */
};

/* One instance of a v1 indom (68 bytes). */
typedef struct mmv_instances {
	int32_t internal;		/* instance identifier */
	char external[MMV_NAMEMAX];	/* instance name, at most 63 chars */
} mmv_instances_t;

/* One instance of a v2 indom (16 bytes). */
typedef struct mmv_instances2 {
	int32_t internal;		/* instance identifier */
	const char *external;		/* instance name, at most 255 chars */
} mmv_instances2_t;

typedef struct mmv_indom {
	uint32_t serial;		/* indom serial, 1 .. 2047 */
	uint32_t count;			/* number of instances */
	mmv_instances_t *instances;
	char *shorttext;		/* one-line help, or NULL */
	char *helptext;			/* long help, or NULL */
} mmv_indom_t;

typedef struct mmv_indom2 {
	uint32_t serial;
	uint32_t count;
	mmv_instances2_t *instances;
	char *shorttext;
	char *helptext;
} mmv_indom2_t;

typedef struct mmv_metric {
	char name[MMV_NAMEMAX];		/* relative name, e.g. "products.count" */
	uint32_t item;			/* PMID item, 0 .. 1023 */
	mmv_metric_type_t type;
	mmv_metric_sem_t semantics;
	pmUnits dimension;
	uint32_t indom;			/* indom serial, or 0 / MMV_INDOM_NULL */
	char *shorttext;
	char *helptext;
} mmv_metric_t;

typedef struct mmv_metric2 {
	char *name;			/* at most 255 chars */
	uint32_t item;
	mmv_metric_type_t type;
	mmv_metric_sem_t semantics;
	pmUnits dimension;
	uint32_t indom;
	char *shorttext;
	char *helptext;
} mmv_metric2_t;

/* Same layout as the on-disk label record; used inside the library. */
typedef struct mmv_label {
	uint32_t flags;			/* PM_LABEL_* type, | PM_LABEL_OPTIONAL */
	uint32_t identity;		/* cluster, item or indom serial */
	int32_t internal;		/* instance id, or PM_IN_NULL */
	char payload[MMV_LABELMAX];	/* {"name":value} */
} mmv_label_t;

typedef enum mmv_stats_flags {
	MMV_FLAG_NOPREFIX = 0x1,	/* names are mmv.<metric>, not mmv.<file>.<metric> */
	MMV_FLAG_PROCESS = 0x2,		/* export only while the writer lives */
	MMV_FLAG_SENTINEL = 0x4,	/* all-ones / NaN / "" read as "no value" */
} mmv_stats_flags_t;

/* JSON type of a label value. */
typedef enum mmv_value_type {
	MMV_STRING_TYPE = 0x1,		/* value includes its quotes: "\"x\"" */
	MMV_NUMBER_TYPE = 0x2,
	MMV_BOOLEAN_TYPE = 0x3,		/* "true" or "false" */
	MMV_NULL_TYPE = 0x4,		/* value ignored, stored as null */
	MMV_ARRAY_TYPE = 0x5,
	MMV_MAP_TYPE = 0x6,
} mmv_value_type_t;

/*
 * MMV_UNITS(dimSpace, dimTime, dimCount, scaleSpace, scaleTime, scaleCount)
 * initialises a pmUnits by field name, so it is right whatever the fields'
 * order and number: PCP 7's pmUnits gained extraUnit and extraScale where
 * PCP 6's had padding, and a positional list would shift every value.
 * Fields not named are zero.
 */
#define MMV_UNITS(a, b, c, d, e, f) \
	{ .dimSpace = (a), .dimTime = (b), .dimCount = (c), \
	  .scaleSpace = (d), .scaleTime = (e), .scaleCount = (f) }

/*
 * MMV_EXTRAUNITS(..., extraUnit, extraScale): MMV_UNITS plus PCP 7's extra
 * unit (PM_UNIT_TEMPERATURE, ...) and its scale (PM_TEMPERATURE_C, ...).
 * Defined where the installed <pcp/pmapi.h> has those fields (PCP >= 7).
 */
#ifdef PM_UNIT_TEMPERATURE
#define MMV_EXTRAUNITS(a, b, c, d, e, f, g, h) \
	{ .dimSpace = (a), .dimTime = (b), .dimCount = (c), \
	  .scaleSpace = (d), .scaleTime = (e), .scaleCount = (f), \
	  .extraUnit = (g), .extraScale = (h) }
#endif

struct mmv_registry;
typedef struct mmv_registry mmv_registry_t;

/* ------------------------------------------------------------------ */
/* Registry API: describe metrics, then mmv_stats_start.               */
/* ------------------------------------------------------------------ */

/*
 * mmv_stats_registry - new, empty registry for file @file (PCP:
 * mmv_stats_registry(3)). @file is relative to $PCP_TMP_DIR/mmv unless it
 * starts with '/'. @cluster is the PMID cluster asked of the agent
 * (0 = let it choose, else 1..4095). @flags: MMV_FLAG_* bits.
 * All strings given to the registry are copied.
 * Returns the registry, or NULL with errno EINVAL (file NULL or empty,
 * cluster outside 0..4095) or ENOMEM.
 */
extern mmv_registry_t *mmv_stats_registry(const char *file, int cluster,
		mmv_stats_flags_t flags);

/*
 * mmv_stats_add_indom - declare instance domain @serial (1..2047) with
 * optional one-line and long help (each at most 255 chars) (PCP:
 * mmv_stats_registry(3)).
 * Returns 0, or -1 with errno EFAULT (reg NULL), EINVAL (serial 0,
 * 0xffffffff or > 2047), E2BIG (help too long), EBUSY (registry already
 * started) or ENOMEM. A serial declared again is kept, as in PCP.
 */
extern int mmv_stats_add_indom(mmv_registry_t *reg, int serial,
		const char *shorthelp, const char *longhelp);

/*
 * mmv_stats_add_metric - declare metric @name (1..255 chars, relative to
 * the file) with PMID item @item (0..1023), type, semantics, units, indom
 * @serial (0 or MMV_INDOM_NULL for a single value) and optional help
 * (longer than 255 chars is cut to 255, as in PCP). Names may hold letters,
 * digits, '_' and '.' between non-empty components (what pmdammv exports).
 * The indom may be declared later, before mmv_stats_start.
 * (PCP: mmv_stats_registry(3).)
 * Returns 0, or -1 with errno EFAULT (reg NULL), EINVAL (NULL or empty
 * name or name characters, unknown type or semantics, item > 1023),
 * E2BIG (name too long), EBUSY or ENOMEM.
 * That the indom exists (ESRCH) is checked by mmv_stats_start, so
 * metrics may precede their indom. Repeated names and items are written
 * as PCP writes them; the agents serve the first.
 */
extern int mmv_stats_add_metric(mmv_registry_t *reg, const char *name,
		int item, mmv_metric_type_t type, mmv_metric_sem_t sem,
		pmUnits units, int serial, const char *shorthelp,
		const char *longhelp);

/*
 * mmv_stats_add_instance - add instance (@instid, @name) to indom @serial
 * (PCP: mmv_stats_registry(3), but PCP 6 returns -1 even on success; we
 * return 0).
 * Returns 0, or -1 with errno EFAULT (reg NULL), EINVAL (no such indom,
 * NULL or empty name), E2BIG (name >= 256 chars), EBUSY or ENOMEM.
 * The instance goes to every indom declared with @serial (as in PCP); a
 * repeated id or name is written as PCP writes it.
 */
extern int mmv_stats_add_instance(mmv_registry_t *reg, int serial,
		int instid, const char *name);

/*
 * Labels (PCP: mmv_stats_registry(3)). @name: a letter then letters,
 * digits or '_'.
 * @value: JSON text of @type (MMV_STRING_TYPE includes the quotes;
 * MMV_NULL_TYPE ignores @value and stores null). @optional: non-zero marks
 * the label PM_LABEL_OPTIONAL. The stored payload is {"name":value} and
 * must fit in 243 chars. Any label makes the file version 3.
 *  - registry label: applies to the file's cluster (identity = @cluster
 *    given to mmv_stats_registry);
 *  - indom label: indom @serial;
 *  - metric label: PMID item @item;
 *  - instance label: instance @instid of indom @serial.
 * Returns 0, or -1 with errno EFAULT (reg NULL), EINVAL (NULL name or
 * value, bad name, value not valid JSON of @type, unknown type), E2BIG
 * (payload does not fit), EEXIST (same name already on that subject),
 * EBUSY or ENOMEM.
 */
extern int mmv_stats_add_registry_label(mmv_registry_t *reg,
		const char *name, const char *value, mmv_value_type_t type,
		int optional);
extern int mmv_stats_add_indom_label(mmv_registry_t *reg, int serial,
		const char *name, const char *value, mmv_value_type_t type,
		int optional);
extern int mmv_stats_add_metric_label(mmv_registry_t *reg, int item,
		const char *name, const char *value, mmv_value_type_t type,
		int optional);
extern int mmv_stats_add_instance_label(mmv_registry_t *reg, int serial,
		int instid, const char *name, const char *value,
		mmv_value_type_t type, int optional);

/*
 * mmv_stats_start - create and map the file described by @reg (PCP:
 * mmv_stats_start(3)). A reader finds no file, the previous complete file
 * or the new complete one, never a file being written.
 * The version is 3 if any label was added, else 2 if any metric or
 * instance name is 64 chars or longer, else 1. The file is built under a
 * hidden name in the same directory and renamed into place complete,
 * mode 0644; a regular file already there (a restart) is swapped out
 * atomically (renameat2 RENAME_EXCHANGE) and unlinked, which on ext4
 * avoids the data flush a rename over a file causes.
 * Returns the mapping (the "addr" handle), or NULL with errno: EFAULT (reg
 * NULL), ESRCH (a metric names an undeclared indom), EBUSY (already
 * started; PCP leaks the first mapping), the errno of an earlier add call
 * that failed a check PCP makes here (ESRCH, EINVAL, E2BIG; see the add
 * calls), ENFILE (256 files already started by this process), or the
 * errno of the failing
 * system call (ENOENT: directory missing; EACCES/EPERM: not writable or
 * another user's file of that name).
 */
extern void *mmv_stats_start(mmv_registry_t *reg);

/*
 * mmv_stats_reset - stop the file (see mmv_stats_stop), forget every
 * definition, and leave @reg ready to be filled and started again
 * (PCP 7: <pcp/mmv_stats.h>). NULL is ignored.
 */
extern void mmv_stats_reset(mmv_registry_t *reg);

/*
 * mmv_stats_free - mmv_stats_reset, then free @reg (PCP:
 * <pcp/mmv_stats.h>).
 * NULL is ignored (PCP crashes).
 */
extern void mmv_stats_free(mmv_registry_t *reg);

/* ------------------------------------------------------------------ */
/* Legacy creation (deprecated in PCP, kept for old programs).         */
/* ------------------------------------------------------------------ */

/*
 * mmv_stats_init - validate the arrays and create a version 1 file named
 * @name (as mmv_stats_registry) in one call (PCP:
 * mmv_stats_init(3)).
 * @nmetrics / @nindoms: array lengths (>= 0). v1 instance names longer
 * than 63 chars are cut to 63, as in PCP.
 * Returns the mapping, or NULL with errno: ESRCH (indom serial 0 or
 * 0xffffffff, or a metric names an undeclared indom), E2BIG (indom help or
 * metric name too long), EINVAL (type outside -1..9, empty or NULL name),
 * or a system call's errno (see mmv_stats_start): PCP's checks, no more.
 * Repeats, items over 1023, clusters over 4095 and the like are written
 * as PCP writes them.
 */
extern void *mmv_stats_init(const char *name, int cluster,
		mmv_stats_flags_t flags, const mmv_metric_t *metrics,
		int nmetrics, const mmv_indom_t *indoms, int nindoms);

/*
 * mmv_stats2_init - as mmv_stats_init, with pointer names of up to 255
 * chars; writes version 1, or 2 when any metric or instance name is 64
 * chars or longer (PCP: mmv_stats2_init(3)). Empty instance names: EINVAL.
 */
extern void *mmv_stats2_init(const char *name, int cluster,
		mmv_stats_flags_t flags, const mmv_metric2_t *metrics,
		int nmetrics, const mmv_indom2_t *indoms, int nindoms);

/*
 * mmv_stats_stop - unmap the file created as @name at @addr (PCP:
 * mmv_stats_stop(3)). Must not race with updates of the same file.
 * With MMV_FLAG_PROCESS the file is also removed, but only if the path
 * still names the file this process created (PCP removes whatever has the
 * name). @addr NULL: nothing happens.
 */
extern void mmv_stats_stop(const char *name, void *addr);

/* ------------------------------------------------------------------ */
/* Lookup and updates by value handle.                                 */
/* ------------------------------------------------------------------ */

/*
 * mmv_lookup_value_desc - the value handle of (@metric, @inst) in @addr
 * (PCP: mmv_lookup_value_desc(3)). Reads only metadata, which never
 * changes after start: safe with any concurrent call but stop.
 * For a metric without an indom @inst is ignored; for one
 * with an indom @inst must name an instance. Cost is a hash lookup,
 * independent of the number of metrics and instances.
 * Returns the handle, or NULL if @addr or @metric is NULL or nothing
 * matches (errno is not set, as in PCP).
 */
extern pmAtomValue *mmv_lookup_value_desc(void *addr, const char *metric,
		const char *inst);

/*
 * Increments, all atomic (PCP: mmv_inc(3) for mmv_inc, mmv_inc_value and
 * mmv_inc_atomvalue, <pcp/mmv_stats.h> for mmv_add; plain non-atomic +=
 * there). A reader sees the value before or after each add: integers by a
 * relaxed locked add, FLOAT/DOUBLE by a relaxed compare-and-swap loop.
 *  mmv_inc           add 1;
 *  mmv_inc_value     add @inc converted to the metric's type as C does
 *                    (a double is truncated towards zero);
 *  mmv_inc_atomvalue add the member of @inc that matches the type (no
 *                    conversion through double for 64-bit integers);
 *  mmv_add           mmv_inc_atomvalue with @inc as a pmAtomValue *.
 * Integer types wrap. STRING and NOSUPPORT values are left alone.
 * ELAPSED (microseconds): a negative amount starts an interval (it is
 * kept as minus the start time); a non-negative amount ends it, adding
 * (amount + start) to the total, or just the amount when no interval is
 * open. One interval per value may be open at a time, owned by one
 * thread. mmv_inc on ELAPSED follows PCP. ELAPSED keeps the open
 * interval's start in a second field (extra): a reader may see the
 * interval closed a moment before the total includes it.
 */
extern void mmv_inc(void *addr, pmAtomValue *av);
extern void mmv_inc_value(void *addr, pmAtomValue *av, double inc);
extern void mmv_inc_atomvalue(void *addr, pmAtomValue *av, pmAtomValue *inc);
extern void mmv_add(void *addr, pmAtomValue *av, void *inc);

/*
 * Sets (PCP: mmv_set(3)). Each is one relaxed atomic store of the 4 or 8
 * value bytes: a reader sees the old or the new value, never a mix.
 *  mmv_set_value     store @value converted to the metric's type; 32-bit
 *                    types change only the low 4 bytes; ELAPSED stores the
 *                    total and ends any interval in progress;
 *  mmv_set_atomvalue copy all 8 bytes of @value; for STRING metrics,
 *                    value->cp is stored as with mmv_set_string;
 *  mmv_set           mmv_set_atomvalue with @value as a pmAtomValue *.
 */
extern void mmv_set_value(void *addr, pmAtomValue *av, double value);
extern void mmv_set_atomvalue(void *addr, pmAtomValue *av, pmAtomValue *value);
extern void mmv_set(void *addr, pmAtomValue *av, void *value);

/*
 * mmv_set_string - store the first @len bytes of @string (stopping at a
 * NUL) in a STRING value (PCP: <pcp/mmv_stats.h>). At most 255 chars are
 * kept: longer
 * strings are truncated (PCP ignores the call). A concurrent reader always
 * sees a NUL-terminated string, never an empty one in the middle of an
 * update, though it may read a mix of the old and new text while the
 * bytes are being stored. Two threads setting one STRING value at once may
 * leave a mix of their strings: one writer per STRING value at a time.
 * @len < 0 or @string NULL: ignored.
 */
extern void mmv_set_string(void *addr, pmAtomValue *av, const char *string,
		int len);

/* ------------------------------------------------------------------ */
/* Updates by name: a hashed lookup, then the update. No-op if absent.  */
/* ------------------------------------------------------------------ */

/*
 * PCP: <pcp/mmv_stats.h> (no man page). A concurrent reader observes
 * what it observes for the handle call each one makes.
 */

/* mmv_stats_add - mmv_inc_value(lookup(@metric, @inst), @count). */
extern void mmv_stats_add(void *addr, const char *metric, const char *inst,
		double count);
/* mmv_stats_inc - mmv_stats_add(..., 1). */
extern void mmv_stats_inc(void *addr, const char *metric, const char *inst);
/* mmv_stats_set - mmv_set_value(lookup(@metric, @inst), @value). */
extern void mmv_stats_set(void *addr, const char *metric, const char *inst,
		double value);
/* mmv_stats_add_fallback - add to @inst, or to @inst2 if @inst is absent. */
extern void mmv_stats_add_fallback(void *addr, const char *metric,
		const char *inst, const char *inst2, double count);
/* mmv_stats_inc_fallback - mmv_stats_add_fallback(..., 1). */
extern void mmv_stats_inc_fallback(void *addr, const char *metric,
		const char *inst, const char *inst2);
/* mmv_stats_set_string - mmv_set_string with strlen(@string); NULL ignored. */
extern void mmv_stats_set_string(void *addr, const char *metric,
		const char *inst, const char *string);
/* mmv_stats_set_strlen - mmv_set_string with @len (at most INT_MAX). */
extern void mmv_stats_set_strlen(void *addr, const char *metric,
		const char *inst, const char *string, size_t len);

/*
 * mmv_stats_interval_start - open an interval on an ELAPSED value:
 * remembers minus the current wall-clock time in microseconds (PCP:
 * <pcp/mmv_stats.h>).
 * @value: the handle, or NULL to look up (@metric, @inst).
 * Returns the handle used (to pass to mmv_stats_interval_end), or NULL if
 * the lookup failed; with @addr NULL returns @value unchanged.
 */
extern pmAtomValue *mmv_stats_interval_start(void *addr, pmAtomValue *value,
		const char *metric, const char *inst);

/*
 * mmv_stats_interval_end - close the interval on @value, adding the
 * elapsed microseconds to its total (PCP: <pcp/mmv_stats.h>). Without an
 * open interval
 * nothing is added (PCP adds the absolute epoch time).
 */
extern void mmv_stats_interval_end(void *addr, pmAtomValue *value);

#ifdef __cplusplus
}
#endif

#endif /* PCP_MMV_STATS_H */
