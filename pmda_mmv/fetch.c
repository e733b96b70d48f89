/*
 * fetch.c - live values (docs/mmv-format.md §9.4). The value record is read with pread
 * on the descriptor kept open at the scan (see file.c): a file truncated
 * since gives a short read and PM_ERR_VALUE, never SIGBUS.
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

static const rmetric_t *find_metric(const mmv_snapshot_t *snap, pmID pmid)
{
	const mmv_metric_info_t *m = mmv_snapshot_lookup_pmid(snap, pmid);

	/* pub is the first member of rmetric_t. */
	return (const rmetric_t *)m;
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

static ssize_t pread_all(int fd, void *buf, size_t len, uint64_t off);

static bool read_exact(int fd, void *buf, size_t len, uint64_t off)
{
	return pread_all(fd, buf, len, off) == (ssize_t)len;
}

static bool all_ones(const pmAtomValue *v)
{
	uint64_t bits;

	memcpy(&bits, v, sizeof(bits));
	return bits == UINT64_MAX;
}

/*
 * Within one request (mmv_snapshot_fetch_begin .. _end on this thread),
 * values are read in bulk: mmv_snapshot_fetch_plan reads, for each file
 * the request touches, the one span of the file holding every value it
 * asks for (one pread per file, whatever the order of the PMIDs); values
 * outside a planned span are read a window at a time. Outside a request
 * nothing is cached, so no value is ever stale.
 */
#define WINDOW		65536
#define CHECKED		8		/* files verified without a plan */
#define SPAN_MAX	(1u << 20)	/* larger spans: read by windows */
#define PLAN_MAX	(16u << 20)	/* bytes one request reads in bulk */

/* One file's planned span in the request's buffer. */
struct span {
	const rfile_t *file;
	uint64_t lo, hi;		/* wanted; hi - lo <= SPAN_MAX */
	size_t at, len;			/* in buf; len: bytes actually read */
};

struct plan {
	uint64_t request;		/* the request the spans belong to */
	uint32_t stamp[MMV_READER_MAX_CLUSTER + 1];	/* request, low bits */
	uint16_t index[MMV_READER_MAX_CLUSTER + 1];	/* span of a cluster */
	struct span *spans;
	unsigned int nspans, maxspans;
	unsigned char *buf;
	size_t size;
};

static __thread struct {
	bool active;
	uint64_t request;	/* bumped by begin: older state is void */
	uint64_t checked_for;	/* request the checked[] set belongs to */
	const rfile_t *checked[CHECKED];
	unsigned int nchecked;
	uint64_t filled_for;	/* request the window was read in */
	const rfile_t *file;
	uint64_t lo;		/* file offset of buf[0] */
	size_t len;		/* bytes read */
	struct plan *plan;	/* heap: large, and only for the front end */
	unsigned char buf[WINDOW];
} win;

void mmv_snapshot_fetch_begin(void)
{
	win.active = true;
	win.request++;
}

void mmv_snapshot_fetch_end(void)
{
	win.active = false;
}

/* The planned span of @f in this request, or NULL. */
static const struct span *planned(const rfile_t *f)
{
	const struct plan *p = win.plan;
	unsigned int c = f->pub.cluster;

	if (p == NULL || p->request != win.request ||
	    p->stamp[c] != (uint32_t)win.request)
		return NULL;
	return p->spans[p->index[c]].file == f ? &p->spans[p->index[c]] : NULL;
}

static void mark_changed(const mmv_snapshot_t *snap)
{
	__atomic_store_n(&((mmv_snapshot_t *)snap)->changed, 1, __ATOMIC_RELAXED);
}

/*
 * Within a request: does @f still have the generation it had at the scan?
 * Read once per file and request (one pread of the header), so the cost
 * of a request follows the files it touches, not the files served; a
 * change is left in the snapshot for the next rescan check.
 */
static bool file_current(const mmv_snapshot_t *snap, const rfile_t *f)
{
	unsigned int i;

	if (!win.active || planned(f) != NULL)
		return true;	/* a planned file was checked by the plan */
	if (win.checked_for != win.request) {
		win.checked_for = win.request;
		win.nchecked = 0;
	}
	for (i = 0; i < win.nchecked && i < CHECKED; i++)
		if (win.checked[i] == f)
			return true;
	if (!file_generation_same(f)) {
		mark_changed(snap);
		return false;
	}
	win.checked[win.nchecked++ % CHECKED] = f;
	return true;
}

/* Widen @f's span in the plan to cover metric @m. */
static bool plan_add(struct plan *p, const rmetric_t *m)
{
	unsigned int c = m->file->pub.cluster;
	struct span *s;

	if (p->stamp[c] != (uint32_t)p->request) {
		if (p->nspans == p->maxspans) {
			unsigned int more = p->maxspans ? p->maxspans * 2 : 64;
			struct span *grown = realloc(p->spans, more * sizeof(*grown));

			if (grown == NULL)
				return false;
			p->spans = grown;
			p->maxspans = more;
		}
		p->stamp[c] = (uint32_t)p->request;
		p->index[c] = (uint16_t)p->nspans;
		s = &p->spans[p->nspans++];
		s->file = m->file;
		s->lo = m->span_lo;
		s->hi = m->span_hi;
		return true;
	}
	s = &p->spans[p->index[c]];
	s->lo = m->span_lo < s->lo ? m->span_lo : s->lo;
	s->hi = m->span_hi > s->hi ? m->span_hi : s->hi;
	return true;
}

/* Drop spans too large to read in bulk; place the rest in the buffer. */
static bool plan_layout(struct plan *p)
{
	size_t total = 0;
	unsigned int i;

	for (i = 0; i < p->nspans; i++) {
		struct span *s = &p->spans[i];

		s->len = 0;
		if (s->hi - s->lo > SPAN_MAX || total + (s->hi - s->lo) > PLAN_MAX) {
			p->stamp[s->file->pub.cluster] = 0;	/* not planned */
			s->file = NULL;
			continue;
		}
		s->at = total;
		total += (size_t)(s->hi - s->lo);
	}
	if (total > p->size) {
		unsigned char *grown = realloc(p->buf, total);

		if (grown == NULL)
			return false;
		p->buf = grown;
		p->size = total;
	}
	return true;
}

static ssize_t pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do {
		n = pread(fd, buf, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	return n;
}

int mmv_snapshot_fetch_plan(const mmv_snapshot_t *snap, const pmID *pmids,
		int n)
{
	struct plan *p = win.plan;
	unsigned int i;
	int k;

	if (!win.active)
		return 0;
	if (p == NULL && (p = win.plan = calloc(1, sizeof(*p))) == NULL)
		return 0;	/* values are then read by windows */
	p->request = win.request;
	p->nspans = 0;
	if ((uint32_t)p->request == 0)	/* stamps wrapped: none is current */
		memset(p->stamp, 0xff, sizeof(p->stamp));
	for (k = 0; k < n; k++) {
		const rmetric_t *m = find_metric(snap, pmids[k]);

		if (m != NULL && m->nvalues > 0 && !plan_add(p, m))
			break;
	}
	if (k < n || !plan_layout(p)) {
		p->request = 0;		/* no plan: windows */
		return 0;
	}
	for (i = 0; i < p->nspans; i++) {
		struct span *s = &p->spans[i];
		ssize_t got;

		if (s->file == NULL)
			continue;
		/* Generation first: values read after it belong to it. */
		if (!file_generation_same(s->file)) {
			mark_changed(snap);
			p->request = 0;
			return MMV_RESCAN_CHANGED;
		}
		got = pread_all(s->file->fd, p->buf + s->at,
				(size_t)(s->hi - s->lo), s->lo);
		s->len = got > 0 ? (size_t)got : 0;
	}
	return 0;
}

/* @len bytes at @off of @f from the plan: how many it holds (0: none). */
static size_t from_plan(const rfile_t *f, void *buf, size_t len, uint64_t off)
{
	const struct span *s = planned(f);
	size_t n;

	if (s == NULL || off < s->lo || off >= s->lo + s->len)
		return 0;
	n = (size_t)(s->lo + s->len - off);
	n = n < len ? n : len;
	memcpy(buf, win.plan->buf + s->at + (off - s->lo), n);
	return n;
}

/* The 16 bytes of value and extra at @off: from the plan, the window, or
 * pread. */
static bool read_value(const rfile_t *f, void *buf, uint64_t off)
{
	ssize_t n;

	if (!win.active)
		return read_exact(f->fd, buf, 16, off);
	if (from_plan(f, buf, 16, off) == 16)
		return true;
	if (win.filled_for != win.request || win.file != f ||
	    off < win.lo || off + 16 > win.lo + win.len) {
		n = pread_all(f->fd, win.buf, WINDOW, off);
		win.filled_for = win.request;
		win.file = f;
		win.lo = off;
		win.len = n > 0 ? (size_t)n : 0;
		if (win.len < 16)
			return false;	/* truncated since the scan */
	}
	memcpy(buf, win.buf + (off - win.lo), 16);
	return true;
}

/* The whole slot must be in the file, as any other value must be. */
static int fetch_string(const rfile_t *f, const rvalue_t *v, mmv_value_t *out)
{
	size_t len = sizeof(out->str);
	ssize_t n = win.active ? (ssize_t)from_plan(f, out->str, len, v->slot) : 0;

	_Static_assert(sizeof(out->str) == MMV_STRINGMAX, "a string slot");
	/* the plan may stop at the end of the file as it was at the scan */
	if ((size_t)n < len)
		n = pread_all(f->fd, out->str, len, v->slot);
	if (n != (ssize_t)len)
		return PM_ERR_VALUE;
	out->str[len - 1] = '\0';	/* a slot may be mid-update: bound it */
	out->atom.cp = out->str;
	if ((f->pub.flags & MMV_FLAG_SENTINEL) && out->str[0] == '\0')
		return 0;
	return 1;
}

static int fetch_number(const rfile_t *f, const rmetric_t *m,
		const rvalue_t *v, mmv_value_t *out)
{
	bool sentinel = f->pub.flags & MMV_FLAG_SENTINEL;
	mmv_disk_value_t r = { 0 };

	if (!read_value(f, &r, v->offset))	/* value and extra */
		return PM_ERR_VALUE;
	out->atom = r.value;
	switch (m->mtype) {
	case MMV_TYPE_FLOAT:
		return sentinel && isnan(r.value.f) ? 0 : 1;
	case MMV_TYPE_DOUBLE:
		return sentinel && isnan(r.value.d) ? 0 : 1;
	case MMV_TYPE_ELAPSED:
		if (sentinel && all_ones(&r.value))
			return 0;
		/* extra < 0: an interval started at -extra is in progress.
		 * Unsigned sums: a hostile file wraps instead of overflowing. */
		if (r.extra < 0)
			out->atom.ll = (int64_t)((uint64_t)r.value.ll +
				(uint64_t)clock_usec(CLOCK_REALTIME) + (uint64_t)r.extra);
		return 1;
	default:
		return sentinel && all_ones(&r.value) ? 0 : 1;
	}
}

int mmv_snapshot_fetch(const mmv_snapshot_t *snap, pmID pmid, int inst,
		mmv_value_t *out)
{
	const rmetric_t *m = find_metric(snap, pmid);
	const rvalue_t *v;

	if (m == NULL)
		return PM_ERR_PMID;
	if ((v = find_value(m, inst)) == NULL)
		return PM_ERR_INST;
	if (m->mtype == MMV_TYPE_NOSUPPORT)
		return PM_ERR_APPVERSION;
	if (!file_current(snap, m->file))
		return PM_ERR_AGAIN;	/* changed in place: rescan first */
	memset(&out->atom, 0, sizeof(out->atom));
	out->str[0] = '\0';
	out->type = m->pub.desc.type;
	if (m->mtype == MMV_TYPE_STRING)
		return fetch_string(m->file, v, out);
	return fetch_number(m->file, m, v, out);
}
