/*
 * fetch.c - live values (spec 7.11). The value record is read with pread
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

static bool read_exact(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t n;

	do {
		n = pread(fd, buf, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	return n == (ssize_t)len;
}

static bool all_ones(const pmAtomValue *v)
{
	uint64_t bits;

	memcpy(&bits, v, sizeof(bits));
	return bits == UINT64_MAX;
}

/* The whole slot must be in the file, as any other value must be. */
static int fetch_string(const rfile_t *f, const rvalue_t *v, mmv_value_t *out)
{
	_Static_assert(sizeof(out->str) == MMV_STRINGMAX, "a string slot");

	if (!read_exact(f->fd, out->str, sizeof(out->str), v->slot))
		return PM_ERR_VALUE;
	out->str[sizeof(out->str) - 1] = '\0';	/* may be mid-update */
	out->atom.cp = out->str;
	if ((f->pub.flags & MMV_FLAG_SENTINEL) && out->str[0] == '\0')
		return 0;
	return 1;
}

/*
 * Within one request (mmv_snapshot_fetch_begin .. _end on this thread),
 * value records are read a window at a time: one pread serves every value
 * of a file that follows in it, instead of one system call per value.
 * Outside a request nothing is cached, so no value is ever stale.
 */
#define WINDOW 65536
#define CHECKED 8	/* files whose generation a request has verified */

static __thread struct {
	bool active;
	uint64_t request;	/* bumped by begin: windows of older requests are void */
	uint64_t checked_for;	/* request the checked[] set belongs to */
	const rfile_t *checked[CHECKED];
	unsigned int nchecked;
	uint64_t filled_for;	/* request the window was read in */
	const rfile_t *file;
	uint64_t lo;		/* file offset of buf[0] */
	size_t len;		/* bytes read */
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

/*
 * Within a request: does @f still have the generation it had at the scan?
 * Read once per file and request (one pread of the header), so the cost
 * of a request follows the files it touches, not the files served; a
 * change is left in the snapshot for the next rescan check.
 */
static bool file_current(const mmv_snapshot_t *snap, const rfile_t *f)
{
	unsigned int i;

	if (!win.active)
		return true;
	if (win.checked_for != win.request) {
		win.checked_for = win.request;
		win.nchecked = 0;
	}
	for (i = 0; i < win.nchecked && i < CHECKED; i++)
		if (win.checked[i] == f)
			return true;
	if (!file_generation_same(f)) {
		__atomic_store_n(&((mmv_snapshot_t *)snap)->changed, 1, __ATOMIC_RELAXED);
		return false;
	}
	win.checked[win.nchecked++ % CHECKED] = f;
	return true;
}

/* The 16 bytes of value and extra at @off: from the window, or pread. */
static bool read_value(const rfile_t *f, void *buf, uint64_t off)
{
	ssize_t n;

	if (!win.active)
		return read_exact(f->fd, buf, 16, off);
	if (win.filled_for != win.request || win.file != f ||
	    off < win.lo || off + 16 > win.lo + win.len) {
		do {
			n = pread(f->fd, win.buf, WINDOW, (off_t)off);
		} while (n < 0 && errno == EINTR);
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
