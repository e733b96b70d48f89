/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * otel_priv.h - what the files of the OpenTelemetry metrics store share
 * (the contract is otel.h's): its structs, the byte accounting, the hash
 * tables and the functions one file calls in another.
 *
 * The files: store.c (the store, otel_record, usage, expiry), names.c
 * (PMNS paths, their conflicts, PMIDs, label names, units), series.c
 * (identities, instance names, labels, making and dropping series),
 * hist.c (bucket layouts, exponential histograms, percentiles), state.c
 * (the PMID state file), pcp.c (what the agent serves), htab.c (the
 * tables and hashes).
 *
 * Everything is guarded by the store's one mutex, so the tables are
 * plain open-addressing ones (linear probing, deletion by backward
 * shift, no tombstones), 16 bytes a slot, grown at three quarters full,
 * each slot array one counted block.
 */
#ifndef OTEL_PRIV_H
#define OTEL_PRIV_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "otel.h"

#define OTEL_UNIT_MAX	63	/* bytes of a unit kept */
#define OTEL_DESC_MAX	1023	/* bytes of a description kept */
#define OTEL_PATH_MAX	1023	/* bytes of a PMNS path below the root */
#define OTEL_LEAF_NAME_MAX	(sizeof(OTEL_PMNS_ROOT) + OTEL_PATH_MAX + 16)
#define OTEL_LABEL_NAME_MAX	255	/* PCP's pmLabel namelen is 8 bits */
/* room left in an instance's labels for its "le" or "quantile" */
#define OTEL_LABEL_RESERVE	48
#define OTEL_NPCT	3	/* p50, p90, p99 */

/* PCP's PMID and indom layouts, without libpcp's functions. */
#define OTEL_ITEM_BITS		10
#define OTEL_SERIAL_MASK	((1u << 22) - 1)
#define OTEL_PMID_BITS		21	/* of a leaf's PMID the hash chooses */

static inline pmID otel_pmid(unsigned domain, unsigned bits)
{
	return (pmID)((domain & 511u) << 22 | (OTEL_CLUSTER_MIN + (bits >> OTEL_ITEM_BITS)) << 10 |
		      (bits & 1023u));
}

static inline unsigned otel_pmid_bits(pmID pmid)
{
	return (pmid & OTEL_SERIAL_MASK) - ((unsigned)OTEL_CLUSTER_MIN << OTEL_ITEM_BITS);
}

static inline pmInDom otel_indom(unsigned domain, pmID pmid)
{
	return (pmInDom)((domain & 511u) << 22 | (pmid & OTEL_SERIAL_MASK));
}

/* ---- hash tables (htab.c) ---- */

struct hslot {
	uint64_t key;		/* a hash, or an instance number (low 32 bits) and more */
	void *val;		/* NULL: empty */
};

struct htab {
	struct hslot *slot;	/* NULL until the first entry */
	uint32_t mask;		/* slots - 1 */
	uint32_t n;
	bool by_int;		/* keys are instance numbers and PMIDs, not hashes */
};

typedef bool (*ht_eq_fn)(const struct hslot *slot, const void *arg);

struct otel_store;

uint64_t otel_hash(const void *p, size_t n, uint64_t seed);
uint64_t otel_mix(uint64_t h);

/* Room for @more entries more: 0, or -1 (over the budget, or no memory). */
int otel_ht_reserve(struct otel_store *s, struct htab *t, size_t more);
/* The slot of @key whose entry @eq accepts (NULL: any with that key), or NULL. */
struct hslot *otel_ht_find(const struct htab *t, uint64_t key, ht_eq_fn eq, const void *arg);
/* Add @key, @val; room reserved. */
void otel_ht_add(struct htab *t, uint64_t key, void *val);
void otel_ht_del(struct htab *t, struct hslot *slot);
/* Smaller slots when under an eighth is used (none kept when empty). */
void otel_ht_shrink(struct otel_store *s, struct htab *t);
void otel_ht_free(struct otel_store *s, struct htab *t);

#define otel_ht_for_each(t, sl) \
	for ((sl) = (t)->slot; (t)->slot != NULL && (sl) <= (t)->slot + (t)->mask; (sl)++) \
		if ((sl)->val != NULL)

/* ---- the store ---- */

/* A metric's leaf, in the PMID-sorted list the PCP side walks. */
struct leafref {
	pmID pmid;
	enum otel_leaf leaf;
	struct metric *m;
};

/* A node of the PMNS below the root: a metric's own, or a path through (m NULL). */
struct pnode {
	const char *path;	/* in the first metric's path below it; not NUL-terminated */
	size_t len;
	struct metric *m;
};

/*
 * Buckets of a histogram (cumulative counts below each bound, +Inf last)
 * or a summary's quantiles, of one series. le, val and inst follow the
 * struct in its block.
 */
struct buckets {
	uint32_t n;
	bool expo;		/* layout of an exponential histogram, below */
	int32_t scale, pos_off, neg_off;
	uint32_t n_pos, n_neg;
	double zt;
	double lo0;		/* the first bucket's lower edge, for percentiles */
	double *le;		/* bounds ascending, +Inf last; a summary's quantiles */
	union otel_val {
		uint64_t u;
		double d;
	} *val;			/* cumulative counts; a summary's values */
	int32_t *inst;		/* instance numbers in the metric's sub table */
};

struct series {
	struct metric *m;
	struct series *dead;	/* otel_expire's list */
	uint64_t ident;		/* hash of the identity */
	uint64_t seen_ns;	/* the store's clock at its last point */
	uint64_t start_ns, time_ns;	/* its last point's */
	int32_t inst;
	uint32_t key_len, name_len, labels_len;
	bool has_value, has_sum, has_pct;
	union {
		int64_t i;
		double d;
	} v;			/* Gauge, Sum */
	uint64_t count;		/* histograms, summaries */
	double sum;
	double pct[OTEL_NPCT];
	struct buckets *b;	/* histograms, summaries; NULL: none yet */
	char text[];		/* identity key, name NUL, labels NUL */
};

struct metric {
	enum otel_kind kind;
	bool monotonic;
	int type;		/* Gauge, Sum: PM_TYPE_64 or PM_TYPE_DOUBLE */
	pmUnits units;		/* of its values */
	bool units_known;	/* otel_units found them */
	pmID pmid[OTEL_LEAF_N];	/* PM_ID_NULL: no such leaf */
	struct htab by_ident, by_inst, by_name;	/* its series */
	struct htab sub;	/* bucket or quantile instances: inst | idx << 32 -> series */
	size_t nseries;
	struct pnode *nodes;	/* the PMNS nodes it made (its own last), one block */
	size_t nnodes;
	char *desc;		/* NULL: none yet; a block of its own */
	size_t desc_len;
	size_t name_len, path_len, unit_len;
	const char *name, *path, *unit;	/* in text[] */
	char text[];		/* name NUL path NUL unit NUL */
};

struct otel_store {
	pthread_mutex_t lock;
	unsigned readers;	/* atomic: PCP-side calls waiting for the lock */
	unsigned domain;
	char *state;		/* the state file; NULL: none */
	size_t max_metrics, max_series;
	uint64_t idle_ns;
	uint64_t (*now_ns)(void);
	void (*log)(int pri, const char *msg);
	size_t bytes, max_bytes;
	bool force;		/* loading the state: charges are never refused */
	uint64_t generation;
	uint64_t accepted, rejected[OTEL_REJECT_N];
	size_t nmetrics, nseries;
	struct htab metrics;	/* by OpenTelemetry name */
	struct htab paths;	/* pnode by path below the root */
	struct leafref *leaves;	/* by PMID */
	size_t nleaves, leaves_cap;
	bool state_failed;	/* its failure logged; quiet until a write succeeds */
};

/* ---- bytes (store.c) ---- */

/* What a heap block of @size bytes counts for (core/heap_cost.h). */
size_t otel_block(size_t size);
/*
 * A block of @size counted (zeroed if @zero); NULL: over the budget (not
 * while the state file is read) or no memory. otel_free frees it, given
 * the same @size, and counts it no more.
 */
void *otel_alloc(struct otel_store *s, size_t size, bool zero);
void otel_free(struct otel_store *s, void *p, size_t size);
void otel_logf(struct otel_store *s, int pri, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- names.c ---- */

extern const char *const otel_leaf_names[OTEL_LEAF_N];
/* Does @kind have @leaf? */
bool otel_has_leaf(enum otel_kind kind, enum otel_leaf leaf);
const char *otel_kind_name(enum otel_kind kind);
/* The kind named @name (otel_kind_name's), or -1. */
int otel_kind_parse(const char *name);
/* The words for UCUM @unit ("seconds"), or NULL. */
const char *otel_unit_words(const char *unit);
/* Is @path (@len bytes) a PMNS path, components [A-Za-z][A-Za-z0-9_]*? */
bool otel_path_valid(const char *path, size_t len);
/*
 * The path a new metric of @kind called @name takes, free of every
 * other's (otel.h, Names), into @buf of @size: its length, or -1.
 */
int otel_path_choose(struct otel_store *s, const char *name, char *buf, size_t size);
/* Does @path (@len) conflict with a metric's? */
bool otel_path_taken(struct otel_store *s, const char *path, size_t len);
/*
 * Room for @m's PMNS nodes (made in m->nodes, not linked) and leaves:
 * 0, or -1 (the budget). Then otel_path_link adds the nodes.
 */
int otel_path_reserve(struct otel_store *s, struct metric *m);
void otel_path_link(struct otel_store *s, struct metric *m);
/* The metric whose own node @path (@len) is, or NULL. */
struct metric *otel_path_metric(struct otel_store *s, const char *path, size_t len);
/* @m's leaf @leaf's full name into @buf of @size: its length, or -1. */
int otel_leaf_name(const struct metric *m, enum otel_leaf leaf, char *buf, size_t size);
/* The leafref of @pmid, or NULL. */
struct leafref *otel_leaf_find(struct otel_store *s, pmID pmid);
/* A free PMID for @m's @leaf from its name's hash (otel_path_reserve made room). */
pmID otel_pmid_choose(struct otel_store *s, const struct metric *m, enum otel_leaf leaf);
/* Take @pmid for @m's @leaf (room made): false if already taken. */
bool otel_pmid_take(struct otel_store *s, struct metric *m, enum otel_leaf leaf, pmID pmid);
/* @m's leaf's descriptor. */
void otel_leaf_desc(const struct otel_store *s, const struct metric *m, enum otel_leaf leaf,
		pmDesc *d);

/* ---- store.c ---- */

/* A new metric (not linked): name, path, unit, kind; NULL: over the budget. */
struct metric *otel_metric_new(struct otel_store *s, const char *name, size_t name_len,
		const char *path, size_t path_len, const char *unit, size_t unit_len,
		enum otel_kind kind, bool monotonic, int type);
void otel_metric_free(struct otel_store *s, struct metric *m);
/*
 * Making a metric known, in three steps: otel_metric_prepare (room in
 * every table, its PMNS nodes made: 0, or -1 over the budget, @m then
 * to be freed), otel_metric_link (into the tables and the PMNS, which
 * cannot fail) and otel_metric_pmids (a PMID for each leaf without one,
 * from its name's hash; after every PMID of the state file is taken).
 */
int otel_metric_prepare(struct otel_store *s, struct metric *m);
void otel_metric_link(struct otel_store *s, struct metric *m);
void otel_metric_pmids(struct otel_store *s, struct metric *m);
/* The metric called @name (@len bytes), or NULL. */
struct metric *otel_metric_find(struct otel_store *s, const char *name, size_t len);
/* @m's description set from @desc if it has none: false over the budget. */
bool otel_metric_describe(struct otel_store *s, struct metric *m, const char *desc);

/* ---- series.c ---- */

/* An identity: its key (a block counted as transient) and hash. */
struct ident {
	char *key;
	size_t len;
	uint64_t hash;
};

/* The identity of a point of @r with @p's attributes: 0, or -1 (the budget). */
int otel_ident(struct otel_store *s, const struct otel_resource *r, const struct otel_point *p,
		struct ident *id);
void otel_ident_free(struct otel_store *s, struct ident *id);
struct series *otel_series_find(struct metric *m, const struct ident *id);
/*
 * A new series of @m for @id, linked with its instance number and name
 * (generation bumped): NULL over the budget (nothing changed).
 */
struct series *otel_series_new(struct otel_store *s, struct metric *m, const struct ident *id,
		const struct otel_resource *r, const struct otel_point *p);
/* Unlink and free @ser (its buckets' instances too). */
void otel_series_drop(struct otel_store *s, struct series *ser);
/* The series of @m numbered @inst, or NULL. */
struct series *otel_series_by_inst(const struct metric *m, int inst);
/* The bucket or quantile instance @inst of @m: its series and index, or NULL. */
struct series *otel_sub_find(const struct metric *m, int inst, uint32_t *idx);
/* The instance number of @ser's bucket of bound @le: a free one of @m's sub table. */
int32_t otel_sub_inst(const struct metric *m, const struct series *ser, double le);

/*
 * The lock, taken fairly for the thread answering pmcd: a PCP-side call
 * says it waits (otel_lock_pcp), and a recorder does not take the lock
 * while one does (otel_lock_record), so a flood of points, each taking
 * and giving the lock back at once, cannot keep a fetch waiting behind
 * it (glibc's mutex is not fair: a thread that unlocks and locks again
 * wins over one woken to take it). A recorder yields the CPU while it
 * waits: a fetch holds the lock for microseconds.
 */
static inline void otel_lock_pcp(struct otel_store *s)
{
	__atomic_add_fetch(&s->readers, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&s->lock);
	__atomic_sub_fetch(&s->readers, 1, __ATOMIC_SEQ_CST);
}

static inline void otel_lock_record(struct otel_store *s)
{
	while (__atomic_load_n(&s->readers, __ATOMIC_SEQ_CST) != 0)
		sched_yield();
	pthread_mutex_lock(&s->lock);
}

static inline void otel_unlock(struct otel_store *s)
{
	pthread_mutex_unlock(&s->lock);
}

/*
 * The generation moves under the lock, after the change it announces,
 * and is read without it (otel_generation): a fetch of other metrics
 * never waits for a recorder, and one that sees a new generation takes
 * the lock to read what changed.
 */
static inline void otel_generation_bump(struct otel_store *s)
{
	__atomic_add_fetch(&s->generation, 1, __ATOMIC_RELEASE);
}

static inline const char *otel_series_name(const struct series *ser)
{
	return ser->text + ser->key_len;
}

static inline const char *otel_series_labels(const struct series *ser)
{
	return ser->text + ser->key_len + ser->name_len + 1;
}

/* ---- hist.c ---- */

/* Check @p's buckets or quantiles for @kind: 0 or -1 - OTEL_REJECT_BUCKETS. */
int otel_hist_check(enum otel_kind kind, const struct otel_point *p);
/*
 * Apply point @p (checked) of temporality @temp to histogram or summary
 * series @ser: its buckets, count, sum and percentiles. Returns 0, or
 * -1 - OTEL_REJECT_BOUNDS / _MEMORY with nothing changed; *@changed
 * true if its bucket instances changed.
 */
int otel_hist_apply(struct otel_store *s, struct series *ser, enum otel_kind kind,
		enum otel_temporality temp, const struct otel_point *p, bool *changed);
/* Free @ser's buckets, their instances out of the sub table. */
void otel_hist_drop(struct otel_store *s, struct series *ser);

/* ---- state.c ---- */

/* Read the state file (s->state): every metric in it made, with its PMIDs. */
void otel_state_read(struct otel_store *s);
/* Write it afresh (temp and rename). */
void otel_state_write(struct otel_store *s);

#endif
