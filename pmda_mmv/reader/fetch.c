/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fetch.c - live values (docs/mmv-format.md §9.4, §7.10), read from the
 * file's mapping (file.c) through the SIGBUS guard (guard.c): no system
 * call per request or value, as PCP's agent reads them, and a file
 * truncated under the reader gives PM_ERR_VALUE instead of a crash. Each
 * value is read after the file's generations are checked again, so none
 * comes from a file re-initialised in place.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pcp/mmv_dev.h>
#include "clock_usec.h"
#include "reader_priv.h"

static int cmp_inst_key(const void *key, const void *elem)
{
	int32_t a = *(const int32_t *)key, b = ((const rvalue_t *)elem)->inst;

	return a < b ? -1 : a > b;
}

/* The value record for @inst: the first in file order for PM_IN_NULL or
 * a metric without an indom, else the one naming that instance. */
static const rvalue_t *find_value(const rmetric_t *m, int inst)
{
	int32_t key = inst;

	if (m->nvalues == 0)
		return NULL;
	if (m->serial == 0 || inst == (int)PM_IN_NULL)
		return &m->values[m->first];
	return bsearch(&key, m->values, m->nvalues, sizeof(*m->values),
			cmp_inst_key);
}

static bool all_ones(const pmAtomValue *v)
{
	uint64_t bits;

	memcpy(&bits, v, sizeof(bits));
	return bits == UINT64_MAX;
}

bool mmvr_file_read(const rfile_t *f, void *buf, size_t len, uint64_t off)
{
	if (off > f->size || len > f->size - off)
		return false;
	if (f->map != NULL)
		return mmvr_guard_copy(&(mmvr_copy_t){ buf, f->map + off, len }, 1);
	return mmvr_pread_all(f->fd, buf, len, off);	/* not mapped */
}

static void mark_changed(const mmvr_snapshot_t *snap)
{
	__atomic_store_n(&((mmvr_snapshot_t *)snap)->changed, 1, __ATOMIC_RELAXED);
}

bool mmvr_snapshot_fetch_saw_change(const mmvr_snapshot_t *snap)
{
	return __atomic_load_n(&snap->changed, __ATOMIC_RELAXED) != 0;
}

typedef struct mmv_gens {
	uint64_t g1, g2;
} mmv_gens_t;

_Static_assert(MMV_HDR_G2 == MMV_HDR_G1 + sizeof(uint64_t), "g1, g2");

/*
 * Read @len bytes at @off of @f together with its generations: one guard
 * (or two preads) for both, or plain loads when the caller @armed the
 * guard for many values. Returns 1, PM_ERR_AGAIN if the generation
 * changed in place since the scan, or PM_ERR_VALUE if the file no longer
 * holds the bytes; either change is left in the snapshot for the next
 * rescan check. Read before every value, so no value of a file re-initialised in
 * place is served.
 */
static inline int read_current(const mmvr_snapshot_t *snap, const rfile_t *f,
		void *buf, size_t len, uint64_t off, bool armed)
{
	uint64_t hdr = MMV_HDR_G1;
	mmv_gens_t g;
	bool ok = true;

	if (off > f->size || len > f->size - off)
		return PM_ERR_VALUE;
	if (f->map != NULL && armed) {
		/* the caller's guard jumps out of here if a page is gone */
		memcpy(&g, f->map + hdr, sizeof(g));
		memcpy(buf, f->map + off, len);
	} else if (f->map != NULL) {
		mmvr_copy_t c[2] = {
			{ &g, f->map + hdr, sizeof(g) },
			{ buf, f->map + off, len },
		};

		ok = mmvr_guard_copy(c, 2);
	} else {
		ok = mmvr_file_read(f, &g, sizeof(g), hdr) &&
			mmvr_file_read(f, buf, len, off);
	}
	if (!ok) {
		mark_changed(snap);	/* shrank: drop it at the next check */
		return PM_ERR_VALUE;
	}
	if (g.g1 != f->pub.generation || g.g2 != f->pub.generation) {
		mark_changed(snap);
		return PM_ERR_AGAIN;
	}
	return 1;
}

/* The whole slot must be in the file, as any other value must be. */
static int fetch_string(const mmvr_snapshot_t *snap, const rfile_t *f,
		const rvalue_t *v, mmvr_value_t *out, bool armed)
{
	size_t len = sizeof(out->str);
	int sts;

	_Static_assert(sizeof(out->str) == MMV_STRINGMAX, "a string slot");
	if ((sts = read_current(snap, f, out->str, len, v->slot, armed)) != 1)
		return sts;
	out->str[len - 1] = '\0';	/* a slot may be mid-update: bound it */
	out->atom.cp = out->str;
	if ((f->pub.flags & MMV_FLAG_SENTINEL) && out->str[0] == '\0')
		return 0;
	return 1;
}

/* Whether @v is the SENTINEL pattern (no value) of type @mtype. */
static inline bool is_sentinel(int mtype, const pmAtomValue *v)
{
	switch (mtype) {
	case MMV_TYPE_FLOAT:
		return isnan(v->f);
	case MMV_TYPE_DOUBLE:
		return isnan(v->d);
	default:
		return all_ones(v);
	}
}

/* The value of record @r as a number of type @mtype: 1, or 0 for a
 * SENTINEL pattern when @sentinel. */
static inline int number_of(int mtype, bool sentinel, const mmv_disk_value_t *r,
		mmvr_value_t *out)
{
	out->atom = r->value;
	if (sentinel && is_sentinel(mtype, &r->value))
		return 0;
	switch (mtype) {
	case MMV_TYPE_ELAPSED:
		/* extra < 0: an interval started at -extra is in progress.
		 * Unsigned sums: a hostile file wraps instead of overflowing. */
		if (r->extra < 0)
			out->atom.ll = (int64_t)((uint64_t)r->value.ll +
				(uint64_t)clock_usec(CLOCK_REALTIME) + (uint64_t)r->extra);
		return 1;
	default:
		return 1;
	}
}

/* The number of type @mtype in the value record at @offset of @f. */
static inline int fetch_number(const mmvr_snapshot_t *snap, const rfile_t *f,
		int mtype, uint64_t offset, mmvr_value_t *out, bool armed)
{
	mmv_disk_value_t r = { 0 };
	int sts;

	/* value and extra */
	sts = read_current(snap, f, &r, MMV_VALUE_LIVE_SIZE, offset, armed);
	if (sts != 1)
		return sts;
	return number_of(mtype, f->pub.flags & MMV_FLAG_SENTINEL, &r, out);
}

static inline int fetch_metric(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *info, int inst, mmvr_value_t *out, bool armed)
{
	const rmetric_t *m = (const rmetric_t *)info;	/* pub comes first */
	const rvalue_t *v;

	if ((v = find_value(m, inst)) == NULL)
		return PM_ERR_INST;
	if (m->mtype == MMV_TYPE_NOSUPPORT)
		return PM_ERR_APPVERSION;
	memset(&out->atom, 0, sizeof(out->atom));
	out->str[0] = '\0';
	out->type = m->pub.desc.type;
	if (m->mtype == MMV_TYPE_STRING)
		return fetch_string(snap, m->file, v, out, armed);
	return fetch_number(snap, m->file, m->mtype, v->offset, out, armed);
}

int mmvr_snapshot_fetch_metric(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *info, int inst, mmvr_value_t *out)
{
	return fetch_metric(snap, info, inst, out, false);
}

int mmvr_snapshot_fetch_armed(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *info, int inst, mmvr_value_t *out)
{
	return fetch_metric(snap, info, inst, out, true);
}

static inline const rfast_t *quick_file(const mmvr_snapshot_t *snap, pmID pmid)
{
	return &snap->fast[snap->fast_of[mmv_pmid_cluster(pmid)] - 1];
}

/* Where a quick read of @q loads from in @t's mapping: @at[0] the
 * generations, @at[1] the value record. */
static inline void quick_at(const rfast_t *t, const mmvr_quick_t *q,
		const unsigned char *at[2])
{
	at[0] = t->map + MMV_HDR_G1;
	at[1] = t->map + q->offset;
}

/*
 * Under the caller's guard, the table alone is read (its offsets were
 * checked against the mapping's size when it was built): @q's live
 * value record from @t's mapping into @r, after the generations. 1 or
 * PM_ERR_AGAIN, as read_current.
 */
static inline int quick_record(const mmvr_snapshot_t *snap, const rfast_t *t,
		const mmvr_quick_t *q, mmv_disk_value_t *r)
{
	const unsigned char *at[2];
	mmv_gens_t g;

	quick_at(t, q, at);
	memcpy(&g, at[0], sizeof(g));
	memcpy(r, at[1], MMV_VALUE_LIVE_SIZE);
	if (g.g1 != t->generation || g.g2 != t->generation) {
		mark_changed(snap);
		return PM_ERR_AGAIN;
	}
	return 1;
}

/* Armed, from the quick record; after a jump, the general way. */
int mmvr_snapshot_fetch_quick(const mmvr_snapshot_t *snap, pmID pmid,
		const mmvr_quick_t *q, mmvr_value_t *out, bool armed)
{
	const rfast_t *t = quick_file(snap, pmid);
	mmv_disk_value_t r = { 0 };
	int sts;

	out->str[0] = '\0';
	out->type = q->type;
	if (!armed)
		return fetch_number(snap, t->file, q->mtype, q->offset, out, false);
	if ((sts = quick_record(snap, t, q, &r)) != 1)
		return sts;
	return number_of(q->mtype, t->flags & MMV_FLAG_SENTINEL, &r, out);
}

int mmvr_snapshot_read_quick(const mmvr_snapshot_t *snap, pmID pmid,
		const mmvr_quick_t *q, pmAtomValue *atom)
{
	const rfast_t *t = quick_file(snap, pmid);
	mmv_disk_value_t r;
	int sts;

	if ((sts = quick_record(snap, t, q, &r)) != 1)
		return sts;
	*atom = r.value;
	if (q->mtype == MMV_TYPE_ELAPSED)
		return 2;
	return (t->flags & MMV_FLAG_SENTINEL) && is_sentinel(q->mtype, atom) ? 0 : 1;
}

void mmvr_snapshot_quick_addrs(const mmvr_snapshot_t *snap, pmID pmid,
		const mmvr_quick_t *q, const void *addr[2])
{
	const unsigned char *at[2];

	quick_at(quick_file(snap, pmid), q, at);
	addr[0] = at[0];
	addr[1] = at[1];
}

int mmvr_snapshot_fetch(const mmvr_snapshot_t *snap, pmID pmid, int inst,
		mmvr_value_t *out)
{
	const mmvr_metric_info_t *m = mmvr_snapshot_lookup_pmid(snap, pmid);

	if (m == NULL)
		return PM_ERR_PMID;
	return mmvr_snapshot_fetch_metric(snap, m, inst, out);
}

/* Spans larger than this are read value by value. */
#define COUNTS_SPAN_MAX	(1u << 20)

int mmvr_snapshot_fetch_counts(const mmvr_snapshot_t *snap,
		const mmvr_metric_info_t *info, const int *insts, unsigned int n,
		uint64_t *out)
{
	const rmetric_t *m = (const rmetric_t *)info;
	bool sentinel = m->file->pub.flags & MMV_FLAG_SENTINEL;
	uint64_t len = m->span_hi - m->span_lo;
	unsigned char *buf;
	mmvr_value_t val;
	unsigned int i;
	int sts = 1;

	if (m->mtype != MMV_TYPE_U64 && m->mtype != MMV_TYPE_I64)
		return PM_ERR_TYPE;
	if (m->nvalues == 0 || len > COUNTS_SPAN_MAX ||
	    (buf = malloc(len)) == NULL) {
		for (i = 0; i < n && sts >= 0; i++) {
			sts = mmvr_snapshot_fetch_metric(snap, info, insts[i], &val);
			out[i] = sts > 0 ? val.atom.ull : 0;
		}
		return sts < 0 ? sts : 1;
	}
	/* One guarded copy of every value, with the generations. */
	sts = read_current(snap, m->file, buf, len, m->span_lo, false);
	for (i = 0; i < n && sts == 1; i++) {
		const rvalue_t *v = find_value(m, insts[i]);

		if (v == NULL) {
			sts = PM_ERR_INST;
			break;
		}
		memcpy(&out[i], buf + (v->offset - m->span_lo), sizeof(out[i]));
		if (sentinel && out[i] == UINT64_MAX)
			out[i] = 0;
	}
	free(buf);
	return sts;
}
