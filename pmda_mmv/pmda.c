/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda.c - the libpcp_pmda front end of pmda_mmv (docs/mmv-format.md §9): maps the
 * reader core's snapshots onto PMDA callbacks, serves the control
 * metrics and publishes each new snapshot as a "view"; names,
 * descriptors and instances are answered from the snapshot itself.
 *
 * Two modes. As a DSO inside pmcd everything happens on pmcd's one
 * thread: a request that finds the files changed rescans first. As a
 * daemon (threaded) the view is published with RCU and requests read it
 * under rcu_read_lock: a background thread runs the per-file checks and
 * rescans, and a request that finds the directory changed rescans
 * itself before answering (or waits for the thread's scan in progress),
 * so every answer reflects the files as they were when it began.
 *
 * Fetches build the pmdaResult themselves (libpcp_pmda's pmdaFetch looks
 * each PMID up in a hash of every metric and allocates every value set
 * and 64-bit value): each PMID is looked up once, the value sets of a
 * reply share one pinned PDU buffer, and the value blocks come from a
 * buffer the agent keeps (docs/mmv-format.md §9.9).
 */
/*
 * liburcu's read lock inlined (its code is LGPL; this file may take it),
 * except under ThreadSanitizer, which would then check liburcu's own
 * wake-up flag as if it were ours.
 */
#include "sdk_tsan.h"
#ifndef SDK_TSAN
#define _LGPL_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <urcu.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "reader/reader.h"
#include "pmda_mmv.h"
#include "pmda_debug.h"

enum { CTL_RELOAD, CTL_DEBUG, CTL_FILES, CTL_METRICS, NCONTROL };

static const struct {
	const char *name, *oneline, *help;
} control[NCONTROL] = {
	/* PCP's texts, byte for byte (docs/mmv-format.md §9.5): clients and
	 * tests compare help text. debug's are PCP 7's or 6's as built;
	 * metrics (PCP 7 only) PCP 7's everywhere. */
	{ "reload", "Control maps reloading",
	  "Writing anything other then 0 to this metric will result in\n"
	  "re-reading directory and re-mapping files." },
#ifdef SDK_PCP7
	{ "debug", "Debug options",
	  "See pmdbg(1).  pmstore into this metric to change the debug option(s)\n\n"
	  "Note that if this PMDA is installed as a DSO agent, the debug options\n"
	  "are shared with pmcd(1)" },
#else
	{ "debug", "Debug flag",
	  "See pmdbg(1).  pmstore into this metric to change the debug value." },
#endif
	{ "files", "Memory mapped file count",
	  "Count of currently mapped and exported statistics files." },
	{ "metrics", "Memory mapped metric count",
	  "Count of currently mapped and exported metrics.\n"
	  "Excludes the mmv.control.* metrics." },
};

/*
 * One published snapshot. Names, descriptors and instances are answered
 * from it directly: no per-metric table or name tree is built per scan
 * (building them for 100,000 metrics took hundreds of milliseconds).
 */
struct view {
	mmvr_snapshot_t *snap;
	mmvr_pct_view_t *pct;		/* its percentile metrics (§9.8) */
	uint64_t serial;		/* never reused: names it in a plan */
};

/*
 * A request's PMIDs, looked up in one view. pmlogger, pmie and pmrep ask
 * the same list every interval, so the last few lists are kept and a
 * request that repeats one in the same view skips every lookup (and the
 * loads of the records it would read: the wants hold copies).
 */
#define NPLAN	4
#define PLAN_PAGE	4096	/* plan_pages' unit: a small page */
struct plan {
	uint64_t serial;		/* the view's; 0: empty */
	uint64_t used;			/* last request that took it */
	int n, cap;
	int ninst;			/* wants with an indom */
	size_t need;			/* the reply's bytes, last request */
	pmID *pmids;
	struct want *wants;		/* the lookups, in the fill's order */
	uintptr_t *pages;		/* an address in each page a fill reads */
	int npages;			/* -1: not listed yet (plan_pages) */
	int *order;			/* the fill's order: the PMIDs' indexes
					 * (plan_order); NULL: the request's */
};

struct agent {
	pmdaInterface *dp;
	char prefix[64];
	char dir[PATH_MAX];
	mmvr_config_t cfg;
	mmvr_pct_t *pct;		/* windows and PMIDs of percentiles */
	struct view *view;		/* published: view_get, publish */
	char grace;			/* TSan: read_unlock releases it, publish
					 * acquires it after synchronize_rcu */
	char ctl_names[NCONTROL][80];	/* full names of the control metrics */
	pmdaIndom itab;			/* the one indom of a request */
	pmdaInstid *iset;		/* its instances (names: the snapshot's) */
	unsigned int iset_cap;
	int reload;			/* stored by pmstore, atomic */
	int debug;			/* control.debug's flag (pmda_debug.h), atomic */
	char debug_text[SDK_DEBUG_TEXTMAX];	/* its text, for a fetch */
	int names_changed;		/* for the next fetch reply, atomic */
	struct timespec full_check;	/* last per-file check (DSO mode) */
	bool threaded;
	bool running;
	pthread_t thread;
	pthread_mutex_t lock;		/* kick, stop: the rescan thread's orders */
	pthread_cond_t cond;		/* ... signalled when they change */
	bool kick, stop;
	pthread_mutex_t scan_lock;	/* one rescan at a time (daemon) */
	char *text;			/* last help text handed out */
	mmvr_value_t value;		/* last value read */
	pmdaResult *res;			/* the fetch reply, reused */
	int maxres;			/* PMIDs res has room for */
	struct plan plans[NPLAN];	/* recent requests, looked up */
	uint64_t requests;		/* fetches so far (plan age) */
	uint64_t serials;		/* views scanned so far */
	struct vchunk *blocks;		/* value blocks of the last reply */
	struct vchunk *cur;		/* the one being filled; NULL: none yet */
	char *sets;			/* value sets' PDU buffer (sets_buffer) */
	size_t sets_size;		/* its bytes */
	int sets_pins;			/* its spare pins */
	mmvr_guard_t *guard;		/* a reply's one guard while armed, else NULL */
};

/* Value blocks (PM_VAL_SPTR: pmcd copies them, nobody frees them). */
#define VCHUNK	65536
struct vchunk {
	struct vchunk *next;
	size_t used;
	_Alignas(8) char data[VCHUNK];
};

/*
 * Exported by libpcp, declared in its libpcp.h, which is not installed:
 * PCP's profile test, and its PDU buffers. A buffer comes back pinned;
 * unpinning any address inside it releases it. __pmFreeResultValues
 * (pmcd, for a DSO's reply; pmdaMain's default result callback, for a
 * daemon's) stops at the first value set that lies in a pinned buffer
 * and unpins that buffer, as for results decoded from a PDU.
 */
extern int __pmInProfile(pmInDom indom, const pmProfile *prof, int inst);
extern void *__pmFindPDUBuf(int need);
extern void __pmPinPDUBuf(void *addr);
extern int __pmUnpinPDUBuf(void *addr);

/* One PMID of a fetch, looked up before the value sets are laid out. */
struct want {
	const mmvr_metric_info_t *m;	/* NULL: quick, control metric or error */
	const mmvr_indom_info_t *d;	/* NULL: singular */
	mmvr_quick_t q;			/* a singular number's quick record
					 * (a copy); offset 0: none */
	int numval;			/* values room, or PM_ERR_PMID */
};

/*
 * Callbacks without a pmdaExt argument (fetch and instance-label) find
 * the agent here. Both modes answer requests on one thread, and a DSO
 * may hold two agents (mmv and pmproxy), hence "current", set on entry.
 */
static struct agent *current;
static struct view *current_view;

static void log_line(void *arg, int level, const char *msg)
{
	struct agent *a = arg;

	pmNotifyErr(level, "%s: %s", a->prefix, msg);
}

static void view_free(struct view *v)
{
	if (v == NULL)
		return;
	mmvr_pct_view_free(v->pct);
	mmvr_snapshot_free(v->snap);
	free(v);
}

static void control_name(const struct agent *a, int item, char *buf,
		size_t len)
{
	snprintf(buf, len, "%s.control.%s", a->prefix, control[item].name);
}

/* Scan the directory into a new view; NULL (logged) on failure. */
static struct view *view_scan(struct agent *a)
{
	struct view *v = calloc(1, sizeof(*v));
	char err[PM_MAXERRMSGLEN];

	/* Only this thread replaces a->view: no reader lock needed. */
	a->cfg.previous = a->view ? a->view->snap : NULL;
	if (v != NULL)
		v->serial = ++a->serials;	/* under scan_lock when threaded */
	if (v == NULL || (v->snap = mmvr_snapshot_scan(&a->cfg)) == NULL) {
		pmNotifyErr(LOG_ERR, "%s: scan of %s: %s", a->prefix, a->dir,
				strerror_r(errno, err, sizeof(err)));
		free(v);
		return NULL;
	}
	if ((v->pct = mmvr_pct_view_build(a->pct, v->snap)) == NULL) {
		pmNotifyErr(LOG_ERR, "%s: percentiles: out of memory", a->prefix);
		mmvr_snapshot_free(v->snap);
		free(v);
		return NULL;
	}
	return v;
}

/* Same percentile names and PMIDs? */
static bool same_pct_names(const struct view *x, const struct view *y)
{
	size_t n = mmvr_pct_view_nmetrics(x->pct), i;

	if (n != mmvr_pct_view_nmetrics(y->pct))
		return false;
	for (i = 0; i < n; i++) {
		const mmvr_metric_info_t *p = mmvr_pct_view_metric(x->pct, i);
		const mmvr_metric_info_t *q = mmvr_pct_view_metric(y->pct, i);

		if (p->desc.pmid != q->desc.pmid || strcmp(p->name, q->name) != 0)
			return false;
	}
	return true;
}

/* Same metric names and PMIDs? */
static bool same_names(const struct view *x, const struct view *y)
{
	return same_pct_names(x, y) && mmvr_snapshot_same_names(x->snap, y->snap);
}

/*
 * The published view, for a reader (threaded: inside rcu_read_lock).
 * rcu_dereference, as a C11 acquire load that TSan sees; on x86 both are
 * one plain load.
 */
static struct view *view_get(struct agent *a)
{
	return __atomic_load_n(&a->view, __ATOMIC_ACQUIRE);
}

/* Replace the published view; the old one goes once no reader holds it. */
static void publish(struct agent *a, struct view *v)
{
	struct view *old = a->view;

	if (old != NULL && !same_names(old, v))
		__atomic_store_n(&a->names_changed, 1, __ATOMIC_RELEASE);
	if (!a->threaded) {
		a->view = v;
		view_free(old);
		return;
	}
	/* rcu_assign_pointer, as a C11 release store that TSan sees */
	__atomic_store_n(&a->view, v, __ATOMIC_RELEASE);
	synchronize_rcu();
	tsan_acquire(&a->grace);
	view_free(old);
}

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

static uint64_t now_ms(void)
{
	return now_us() / 1000;
}

/* Rescan and publish. Only one thread ever calls this per agent. */
static void rescan(struct agent *a)
{
	bool debug = __atomic_load_n(&a->debug, __ATOMIC_RELAXED) != 0;
	uint64_t t0 = debug ? now_us() : 0;
	struct view *v;

	/* Consume a stored reload first: a store during the scan forces
	 * another one rather than being lost. */
	__atomic_store_n(&a->reload, 0, __ATOMIC_RELAXED);
	if ((v = view_scan(a)) != NULL)
		publish(a, v);
	if (debug && v != NULL)
		pmNotifyErr(LOG_DEBUG, "%s: rescanned: %zu files (%zu read again), "
				"%zu metrics, %llu us", a->prefix,
				mmvr_snapshot_nfiles(v->snap),
				mmvr_snapshot_nfiles(v->snap) -
				mmvr_snapshot_reused(v->snap),
				mmvr_snapshot_nmetrics(v->snap),
				(unsigned long long)(now_us() - t0));
}

/*
 * Does @v need a rescan? @full adds the per-file checks (generation,
 * size, writer alive), whose cost grows with the files served; requests
 * run only the quick part (fetches verify the files they read), and the
 * full one runs at most once a second: on the rescan thread in a daemon,
 * before a request in a DSO.
 */
static bool stale(struct agent *a, const struct view *v, bool full)
{
	if (__atomic_load_n(&a->reload, __ATOMIC_RELAXED) != 0)
		return true;
	if (!full)
		return mmvr_snapshot_needs_rescan_quick(v->snap) != MMVR_RESCAN_NONE;
	return mmvr_snapshot_needs_rescan(v->snap) != MMVR_RESCAN_NONE;
}

/* DSO mode: is a full check due (a second since the last)? */
static bool full_check_due(struct agent *a)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec - a->full_check.tv_sec < 1 ||
	    (now.tv_sec - a->full_check.tv_sec == 1 &&
	     now.tv_nsec < a->full_check.tv_nsec))
		return false;
	a->full_check = now;
	return true;
}

static void kick(struct agent *a)
{
	pthread_mutex_lock(&a->lock);
	a->kick = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

/* Sample the bucket counts of @v's histograms whose step is due (§9.8). */
static void sample(struct agent *a, const struct view *v)
{
	if (mmvr_pct_view_nhists(v->pct) > 0)
		mmvr_pct_sample(a->pct, v->pct, v->snap, now_ms());
}

/* The thread's next wake-up: a second, or the sampling step if shorter. */
static void next_wake(const struct agent *a, struct timespec *until)
{
	uint64_t ms = mmvr_pct_step_ms(a->pct);

	if (ms > 1000)
		ms = 1000;
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += (time_t)(ms / 1000);
	until->tv_nsec += (long)(ms % 1000) * 1000000;
	if (until->tv_nsec >= 1000000000) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000;
	}
}

/* Background rescans: on a kick, and once a second for names changes;
 * percentiles are sampled here every step. */
static void *rescan_thread(void *arg)
{
	struct agent *a = arg;
	struct timespec until;

	rcu_register_thread();
	pthread_mutex_lock(&a->lock);
	while (!a->stop) {
		if (!a->kick) {
			next_wake(a, &until);
			pthread_cond_timedwait(&a->cond, &a->lock, &until);
		}
		a->kick = false;
		if (a->stop)
			break;
		pthread_mutex_unlock(&a->lock);
		/* requests rescan too: one writer at a time */
		pthread_mutex_lock(&a->scan_lock);
		if (stale(a, a->view, true))
			rescan(a);
		sample(a, a->view);	/* no one replaces it while we hold scan_lock */
		pthread_mutex_unlock(&a->scan_lock);
		pthread_mutex_lock(&a->lock);
	}
	pthread_mutex_unlock(&a->lock);
	rcu_unregister_thread();
	return NULL;
}

/* End of a read section (threaded): the view read may go after this. */
static void read_unlock(struct agent *a)
{
	tsan_release(&a->grace);
	rcu_read_unlock();
}

/*
 * Start of every request: bring the view up to date (DSO) or ask for it
 * (daemon) and pin it. leave() must follow.
 */
static struct view *enter(pmdaExt *pmda)
{
	struct agent *a = pmdaExtGetData(pmda);
	struct view *v;

	current = a;
	if (!a->threaded) {
		if (stale(a, a->view, full_check_due(a)))
			rescan(a);
		v = a->view;
	} else {
		/* The check reads the view: inside the read section, or the
		 * rescan thread may free it meanwhile. A rescan publishes,
		 * which waits for readers: outside it, under scan_lock,
		 * where no one else replaces the view. */
		rcu_read_lock();
		v = view_get(a);
		if (stale(a, v, false)) {
			read_unlock(a);
			pthread_mutex_lock(&a->scan_lock);
			if (stale(a, a->view, false))
				rescan(a);
			pthread_mutex_unlock(&a->scan_lock);
			rcu_read_lock();
			v = view_get(a);
		}
	}
	current_view = v;
	return v;
}

static void leave(struct agent *a)
{
	current_view = NULL;
	if (a->threaded)
		read_unlock(a);
}

/* A file's metric or a percentile (cluster 0, §9.8) by PMID or name. */
static const mmvr_metric_info_t *lookup_pmid(const struct view *v, pmID pmid)
{
	if (mmv_pmid_cluster(pmid) == 0)
		return mmvr_pct_view_lookup_pmid(v->pct, pmid);
	return mmvr_snapshot_lookup_pmid(v->snap, pmid);
}

static const mmvr_metric_info_t *lookup_name(const struct view *v,
		const char *name)
{
	const mmvr_metric_info_t *m = mmvr_snapshot_lookup_name(v->snap, name);

	return m ? m : mmvr_pct_view_lookup_name(v->pct, name);
}

/* A control metric's type: debug's depends on the PCP (pmda_debug.h). */
static int control_type(pmID pmid)
{
	return mmv_pmid_item(pmid) == CTL_DEBUG ? SDK_DEBUG_TYPE : PM_TYPE_32;
}

static int control_value(struct agent *a, const struct view *v,
		unsigned int item, pmAtomValue *atom)
{
	int stored;

	switch (item) {
	case CTL_RELOAD:
		stored = __atomic_load_n(&a->reload, __ATOMIC_RELAXED);
		atom->l = stored ? stored : mmvr_snapshot_not_ready(v->snap) > 0;
		break;
	case CTL_DEBUG:
		return sdk_debug_value(__atomic_load_n(&a->debug, __ATOMIC_RELAXED),
				atom, a->debug_text, sizeof(a->debug_text));
	case CTL_FILES:
		atom->l = (int)mmvr_snapshot_nfiles(v->snap);
		break;
	case CTL_METRICS:
		atom->l = (int)mmvr_snapshot_nmetrics(v->snap);
		break;
	default:
		return PM_ERR_PMID;
	}
	return 1;
}

/* One value of @w as pmdaFetch's callback contract has it: 1, 0 or an error. */
static int value_of(struct agent *a, const struct view *v,
		const struct want *w, pmID pmid, int inst, pmAtomValue *atom)
{
	const mmvr_metric_info_t *m = w->m;
	bool armed = a->guard != NULL;
	int sts;

	if (w->q.offset != 0) {
		sts = mmvr_snapshot_fetch_quick(v->snap, pmid, &w->q, &a->value,
				armed);
	} else if (m == NULL) {
		return control_value(a, v, mmv_pmid_item(pmid), atom);
	} else if (mmv_pmid_cluster(pmid) == 0) {	/* a percentile */
		sts = mmvr_pct_fetch(a->pct, v->pct, m, inst, &atom->d);
		return sts == 0 ? PMDA_FETCH_NOVALUES : sts;
	} else {
		sts = armed ? mmvr_snapshot_fetch_armed(v->snap, m, inst, &a->value) :
			mmvr_snapshot_fetch_metric(v->snap, m, inst, &a->value);
	}
	if (sts <= 0)
		return sts == 0 ? PMDA_FETCH_NOVALUES : sts;
	*atom = a->value.atom;
	if (a->value.type == PM_TYPE_STRING)
		atom->cp = a->value.str;
	return 1;
}

/* @size bytes (at most VCHUNK) for a value block of this reply. */
static inline void *block_alloc(struct agent *a, size_t size)
{
	struct vchunk *c = a->cur;
	void *p;

	size = (size + 7) & ~(size_t)7;
	if (c == NULL || c->used + size > VCHUNK) {
		/* the next chunk: kept from earlier replies, or new */
		struct vchunk **next = c != NULL ? &c->next : &a->blocks;

		if (*next == NULL) {
			if ((*next = malloc(sizeof(**next))) == NULL)
				return NULL;
			(*next)->next = NULL;
		}
		a->cur = c = *next;
		c->used = 0;
	}
	p = c->data + c->used;
	c->used += size;
	return p;
}

/* A value block of @type holding the @body bytes at @src, as
 * __pmStuffValue lays one out; NULL: out of memory. */
static inline pmValueBlock *block_of(struct agent *a, int type,
		const void *src, size_t body)
{
	pmValueBlock hdr = { 0 }, *b = block_alloc(a, PM_VAL_HDR_SIZE + body);

	if (b == NULL)
		return NULL;
	hdr.vlen = PM_VAL_HDR_SIZE + body;
	hdr.vtype = type;
	memcpy(b, &hdr, PM_VAL_HDR_SIZE);	/* one store: no read of b */
	memcpy(b->vbuf, src, body);
	return b;
}

/* __pmStuffValue's encoding, into a block of ours: the valfmt or error. */
static int stuff(struct agent *a, const pmAtomValue *atom, int type,
		pmValue *out)
{
	const void *src = atom;
	size_t body;
	pmValueBlock *b;

	switch (type) {
	case PM_TYPE_32:
	case PM_TYPE_U32:
		out->value.lval = atom->l;
		return PM_VAL_INSITU;
	case PM_TYPE_FLOAT:
		body = sizeof(float);
		break;
	case PM_TYPE_64:
	case PM_TYPE_U64:
	case PM_TYPE_DOUBLE:
		body = sizeof(uint64_t);
		break;
	case PM_TYPE_STRING:
		body = strlen(atom->cp) + 1;
		src = atom->cp;
		break;
	default:
		return PM_ERR_TYPE;
	}
	if ((b = block_of(a, type, src, body)) == NULL)
		return -ENOMEM;
	out->value.pval = b;
	return PM_VAL_SPTR;
}

/* The instances of @d the profile wants, in indom order (as pmdaFetch). */
static int profile_count(const mmvr_indom_info_t *d, const pmProfile *prof)
{
	unsigned int k;
	int n = 0;

	for (k = 0; d != NULL && k < d->ninstances; k++)
		n += __pmInProfile(d->indom, prof, d->instances[k].inst) != 0;
	return n;
}

static void log_value_error(pmID pmid, int inst, int sts)
{
	char id[20], err[PM_MAXERRMSGLEN];

	/* pmdaFetch's choice: these are quiet, others are logged. */
	if (sts == PM_ERR_INST || sts == PM_ERR_APPVERSION ||
	    sts == PM_ERR_PERMISSION || sts == PM_ERR_AGAIN || sts == PM_ERR_NYI)
		return;
	pmNotifyErr(LOG_ERR, "pmdaFetch: Fetch callback error from metric "
			"PMID %s[%d]: %s\n", pmIDStr_r(pmid, id, sizeof(id)), inst,
			pmErrStr_r(sts, err, sizeof(err)));
}

/* Append the value of (@pmid, @inst) to @vs; the callback-style status. */
static int add_value(struct agent *a, const struct view *v,
		const struct want *w, pmValueSet *vs, int type, int inst)
{
	pmAtomValue atom;
	int sts = value_of(a, v, w, vs->pmid, inst, &atom);

	if (sts < 0 && a->guard != NULL) {
		mmvr_guard_disarm();	/* logging takes locks */
		log_value_error(vs->pmid, inst, sts);
		mmvr_guard_arm(a->guard);
	} else if (sts < 0) {
		log_value_error(vs->pmid, inst, sts);
	} else if (sts > 0 && (sts = stuff(a, &atom, type, &vs->vlist[vs->numval])) >= 0) {
		vs->vlist[vs->numval++].inst = inst;
		vs->valfmt = sts;
	}
	return sts;
}

/* Look @pmid up: its metric, indom and how many values its set holds. */
static void want_of(const struct view *v, pmID pmid, const pmProfile *prof,
		struct want *w)
{
	const mmvr_quick_t *q = mmvr_snapshot_lookup_quick(v->snap, pmid);

	w->m = NULL;
	w->d = NULL;
	w->numval = 1;
	w->q = q != NULL ? *q : (mmvr_quick_t){ 0 };
	if (q != NULL)
		return;		/* most metrics of most requests */
	if (mmv_pmid_cluster(pmid) == 0 && mmv_pmid_item(pmid) < NCONTROL)
		return;		/* control metrics: singular */
	if ((w->m = lookup_pmid(v, pmid)) == NULL) {
		w->numval = PM_ERR_PMID;
	} else if (w->m->desc.indom != PM_INDOM_NULL) {
		w->d = mmvr_snapshot_lookup_indom(v->snap, w->m->desc.indom);
		w->numval = profile_count(w->d, prof);
	}
}

/* Bytes of the value set @w needs, a multiple of 8. */
static size_t want_size(const struct want *w)
{
	size_t n = w->numval > 1 ? (size_t)w->numval - 1 : 0;

	return (sizeof(pmValueSet) + n * sizeof(pmValue) + 7) & ~(size_t)7;
}

/* Fill the value set of @pmid, as pmdaFetch would build it, into @vs. */
static void value_set(struct agent *a, const struct view *v, pmID pmid,
		const struct want *w, const pmProfile *prof, pmValueSet *vs)
{
	const mmvr_indom_info_t *d = w->d;
	int type = w->q.offset != 0 ? mmvr_quick_type(&w->q) :
		w->m != NULL ? w->m->desc.type : control_type(pmid), sts = 0;
	unsigned int k;

	vs->pmid = pmid;
	vs->numval = 0;
	vs->valfmt = PM_VAL_INSITU;
	if (w->numval <= 0) {
		vs->numval = w->numval;
		return;
	}
	if (d == NULL)
		sts = add_value(a, v, w, vs, type, PM_IN_NULL);
	for (k = 0; d != NULL && k < d->ninstances; k++)
		if (__pmInProfile(d->indom, prof, d->instances[k].inst))
			sts = add_value(a, v, w, vs, type, d->instances[k].inst);
	if (vs->numval == 0)
		vs->numval = sts;	/* no values: the last status */
}

/*
 * The value set of a quick want while the reply's guard is armed, the
 * same as value_set's, with nothing copied twice: most PMIDs of a large
 * request come here. False: an elapsed time, for value_set. It encodes
 * as stuff() does, on purpose not through it: through stuff, or a shared
 * switch over the types, this loop ran 5-55 % slower (bench_mmv_dso).
 */
static bool quick_set(struct agent *a, const struct view *v, pmID pmid,
		const mmvr_quick_t *q, pmValueSet *vs)
{
	int type = mmvr_quick_type(q), sts;
	pmValueBlock *b;
	pmAtomValue atom;

	if ((sts = mmvr_snapshot_read_quick(v->snap, pmid, q, &atom)) > 1)
		return false;
	vs->pmid = pmid;
	vs->valfmt = PM_VAL_INSITU;
	vs->numval = sts;
	if (sts <= 0)
		return true;	/* PM_ERR_AGAIN is not logged (log_value_error) */
	vs->vlist[0].inst = PM_IN_NULL;
	if (type == PM_TYPE_32 || type == PM_TYPE_U32) {
		vs->vlist[0].value.lval = atom.l;
		return true;
	}
	/* constant sizes: each copy is one move */
	b = type == PM_TYPE_FLOAT ? block_of(a, type, &atom, sizeof(float)) :
		block_of(a, type, &atom, sizeof(uint64_t));
	if (b == NULL) {
		vs->numval = -ENOMEM;
		return true;
	}
	vs->vlist[0].value.pval = b;
	vs->valfmt = PM_VAL_SPTR;
	return true;
}

/* Give back the value sets of a reply that was not sent. */
static void release_sets(pmdaResult *r)
{
	if (r->numpmid > 0)
		__pmUnpinPDUBuf(r->vset[0]);
}

/*
 * The value sets of @n PMIDs, looked up in @w, laid out in @buf in
 * @order, the order of @w (NULL: the request's); vset[] keeps the
 * request's order.
 */
static void fill_loop(struct agent *a, const struct view *v, int n,
		pmID *pmids, const struct want *w, const int *order,
		char *buf, const pmProfile *prof)
{
	pmdaResult *r = a->res;
	size_t off = (8 - ((uintptr_t)buf & 7)) & 7;

	a->cur = NULL;	/* pmcd has sent the last reply: reuse its chunks */
	for (int k = 0; k < n; k++) {
		int i = order != NULL ? order[k] : k;
		pmValueSet *vs = (pmValueSet *)(void *)(buf + off);

		r->vset[i] = vs;
		if (w[k].q.offset == 0 || a->guard == NULL ||
		    !quick_set(a, v, pmids[i], &w[k].q, vs))
			value_set(a, v, pmids[i], &w[k], prof, vs);
		off += want_size(&w[k]);
	}
}

/*
 * All values read under one SIGBUS guard (one sigsetjmp a reply, plain
 * loads from the mappings). If a file shrank under its mapping the guard
 * jumps back here and the sets are filled again with a guard per value,
 * so only that file's values fail (and the snapshot is marked changed).
 */
static void fill_sets(struct agent *a, const struct view *v, int n,
		pmID *pmids, const struct want *w, const int *order,
		char *buf, const pmProfile *prof)
{
	mmvr_guard_t g;

	if (sigsetjmp(g.env, 0) == 0) {
		a->guard = &g;
		mmvr_guard_arm(&g);
	} else {
		a->guard = NULL;	/* jumped back: a file shrank */
	}
	fill_loop(a, v, n, pmids, w, order, buf, prof);
	if (a->guard != NULL)
		mmvr_guard_disarm();
	a->guard = NULL;
}

static int cmp_addr(const void *x, const void *y)
{
	uintptr_t a = *(const uintptr_t *)x, b = *(const uintptr_t *)y;

	return a < b ? -1 : a > b;
}

/* A PMID of a plan, where a fill reads it: for plan_order. */
struct rec {
	uintptr_t file;		/* its file's generations; UINTPTR_MAX: not
				 * a quick want */
	uintptr_t addr;		/* its value record */
	int first;		/* the first PMID of its file (of the
				 * non-quick wants: its own) */
	int i;			/* its index in the request */
};

/* By file, then place in the request. */
static int cmp_file(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;

	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;
}

/* By the file's first place in the request, then record address. */
static int cmp_fill(const void *x, const void *y)
{
	const struct rec *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->i < b->i ? -1 : a->i > b->i;	/* a PMID asked twice */
}

/*
 * The order a fill of @p visits its PMIDs (@r: where each one is read):
 * file by file, in the order the request first names each file, and in
 * each file upward by record address, so that the fill reads records as
 * the processor's prefetcher follows them whatever order the request has.
 * Shuffled, a cold fill read its records at random (bench/RESULTS.md,
 * eleventh pass). The wants are put in that order too, so a fill reads
 * both in one sweep; only the reply's vset[] is written out of turn. A
 * request already upward in each file keeps its order (so does one for
 * want of memory: a hint only, as the pages). Once per plan, while
 * p->wants is in the request's order.
 */
static void plan_order(struct plan *p, struct rec *r)
{
	size_t n = (size_t)p->n;
	bool upward = true;
	struct want *w;
	int i, *o;

	qsort(r, n, sizeof(*r), cmp_file);
	for (i = 0; i < p->n; i++) {
		if (i == 0 || r[i].file != r[i - 1].file ||
		    r[i].file == UINTPTR_MAX) {
			r[i].first = r[i].i;
			continue;
		}
		r[i].first = r[i - 1].first;
		upward &= r[i].addr >= r[i - 1].addr;
	}
	if (upward)
		return;
	qsort(r, n, sizeof(*r), cmp_fill);
	o = malloc(n * sizeof(*o));
	w = malloc(n * sizeof(*w));
	if (o != NULL && w != NULL) {
		for (i = 0; i < p->n; i++) {
			o[i] = r[i].i;
			w[i] = p->wants[o[i]];
		}
		memcpy(p->wants, w, n * sizeof(*w));
		p->order = o;
		o = NULL;
	}
	free(o);
	free(w);
}

/*
 * List the pages a fill of @p reads, one address in each (the lowest it
 * reads there): its wants, and each quick want's file generations and
 * value record. Prefetched before a fill, their TLB misses overlap
 * instead of coming one at a time inside the loop: cold, with 1,000 PMIDs
 * from 100 files, about 200 pages (bench/RESULTS.md, ninth pass). A hint
 * only: no list (out of memory) just prefetches nothing. Also sets the
 * order of the fill (plan_order).
 */
static void plan_pages(const struct view *v, struct plan *p)
{
	size_t bytes = (size_t)p->n * sizeof(*p->wants);
	uintptr_t *a = malloc((2 * (size_t)p->n + bytes / PLAN_PAGE + 2) *
			sizeof(*a));
	struct rec *r = malloc((size_t)p->n * sizeof(*r));
	size_t k = 0, o;

	free(p->pages);
	p->pages = a;
	p->npages = 0;
	if (a == NULL || r == NULL) {
		free(r);
		return;
	}
	for (o = 0; o < bytes; o += PLAN_PAGE)
		a[k++] = (uintptr_t)p->wants + o;
	a[k++] = (uintptr_t)p->wants + bytes - 1;
	for (int i = 0; i < p->n; i++) {
		const void *addr[2];

		r[i].i = i;
		r[i].file = r[i].addr = UINTPTR_MAX;
		if (p->wants[i].q.offset == 0)
			continue;
		mmvr_snapshot_quick_addrs(v->snap, p->pmids[i], &p->wants[i].q,
				addr);
		a[k++] = (uintptr_t)addr[0];
		a[k++] = (uintptr_t)addr[1];
		r[i].file = (uintptr_t)addr[0];
		r[i].addr = (uintptr_t)addr[1];
	}
	plan_order(p, r);
	free(r);
	qsort(a, k, sizeof(*a), cmp_addr);
	for (o = 0; o < k; o++)
		if (p->npages == 0 ||
		    a[p->npages - 1] / PLAN_PAGE != a[o] / PLAN_PAGE)
			a[p->npages++] = a[o];
}

/*
 * The plan of @n @pmids in @v: a kept one if this list was asked in @v
 * before (*@kept set: its instance counts are the last request's), else
 * the oldest one looked up anew. NULL: out of memory.
 */
static struct plan *plan_of(struct agent *a, const struct view *v, int n,
		const pmID *pmids, const pmProfile *prof, bool *kept)
{
	struct plan *p = NULL;
	int i, k;

	*kept = false;
	for (k = 0; k < NPLAN; k++) {
		struct plan *c = &a->plans[k];

		if (c->serial == v->serial && c->n == n &&
		    memcmp(c->pmids, pmids, (size_t)n * sizeof(*pmids)) == 0) {
			*kept = true;
			p = c;
			goto found;
		}
		if (p == NULL || c->used < p->used)
			p = c;
	}
	if (n > p->cap) {
		pmID *ids = malloc((size_t)n * sizeof(*ids));
		struct want *w = malloc((size_t)n * sizeof(*w));

		if (ids == NULL || w == NULL) {
			free(ids);
			free(w);
			return NULL;
		}
		free(p->pmids);
		free(p->wants);
		p->pmids = ids;
		p->wants = w;
		p->cap = n;
	}
	p->serial = v->serial;
	p->n = n;
	memcpy(p->pmids, pmids, (size_t)n * sizeof(*pmids));
	for (i = 0; i < n; i++)
		want_of(v, pmids[i], prof, &p->wants[i]);
	p->npages = -1;
	free(p->order);
	p->order = NULL;
found:
	if (*kept && p->npages < 0)
		plan_pages(v, p);	/* asked again: worth listing */
	p->used = ++a->requests;
	return p;
}

/*
 * A PDU buffer of @need bytes for a reply's value sets. The agent keeps
 * one, with a pin of its own and SETS_PINS spare pins taken at once
 * (libpcp looks a buffer up under its lock for each): each reply uses
 * up one, which its release (pmcd's __pmFreeResultValues for a DSO,
 * pmdaMain's for a daemon) gives back to libpcp. A larger request
 * replaces the buffer; replies not yet released keep the old one.
 */
#define SETS_PINS	64

static char *sets_buffer(struct agent *a, size_t need)
{
	if (need > a->sets_size) {
		char *buf = need > INT_MAX ? NULL : __pmFindPDUBuf((int)need);

		if (buf == NULL)
			return NULL;
		for (int i = 0; a->sets != NULL && i <= a->sets_pins; i++)
			__pmUnpinPDUBuf(a->sets);
		a->sets = buf;
		a->sets_size = need;
		a->sets_pins = 0;
	}
	if (a->sets_pins == 0)
		for (; a->sets_pins < SETS_PINS; a->sets_pins++)
			__pmPinPDUBuf(a->sets);
	a->sets_pins--;
	return a->sets;
}

static int fetch_result(struct agent *a, const struct view *v, int n,
		pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
	pmdaResult *r = a->res;
	struct plan *p;
	size_t need = 8;
	bool kept;
	char *buf;
	int i;

	if (n > a->maxres || r == NULL) {
		r = malloc(sizeof(*r) + (n > 1 ? n - 1 : 0) * sizeof(r->vset[0]));
		if (r == NULL)
			return -ENOMEM;
		free(a->res);
		a->res = r;
		a->maxres = n > 1 ? n : 1;
	}
	memset(&r->timestamp, 0, sizeof(r->timestamp));
	/* The first timestamp byte carries the state changes (pmdaFetch). */
	if (pmda->e_flags & PMDA_EXT_NAMES_CHANGE)
		*(unsigned char *)&r->timestamp |= PMCD_NAMES_CHANGE;
	r->numpmid = 0;
	if (n > 0) {
		if ((p = plan_of(a, v, n, pmids, pmda->e_prof, &kept)) == NULL)
			return -ENOMEM;
		/* Instances follow this request's profile: only a plan
		 * with an indom sizes its reply again. */
		if (!kept || p->ninst > 0) {
			p->ninst = 0;
			for (i = 0; i < n; i++) {
				struct want *w = &p->wants[i];

				if (w->d != NULL) {
					p->ninst++;
					if (kept)
						w->numval = profile_count(w->d,
								pmda->e_prof);
				}
				need += want_size(w);
			}
			p->need = need;
		}
		for (i = 0; i < p->npages; i++)	/* plan_pages says why */
			__builtin_prefetch((const void *)p->pages[i]);
		if ((buf = sets_buffer(a, p->need)) == NULL)
			return -ENOMEM;
		fill_sets(a, v, n, pmids, p->wants, p->order, buf,
				pmda->e_prof);
	}
	r->numpmid = n;
	pmda->e_flags &= ~PMDA_EXT_NAMES_CHANGE;
	*resp = r;
	return 0;
}

static int mmv_fetch(int n, pmID *pmids, pmdaResult **resp, pmdaExt *pmda)
{
	struct agent *a = pmdaExtGetData(pmda);
	struct view *v = enter(pmda);
	int sts;

	if (__atomic_exchange_n(&a->names_changed, 0, __ATOMIC_ACQ_REL))
		pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
	/* A DSO has no thread of its own: it samples when asked. */
	if (!a->threaded)
		sample(a, v);
	sts = fetch_result(a, v, n, pmids, resp, pmda);
	if (sts == 0 && mmvr_snapshot_fetch_saw_change(v->snap)) {
		/* A file changed in place: answer from the rescanned files,
		 * keeping the state change the first answer carried. */
		if (*(unsigned char *)&(*resp)->timestamp & PMCD_NAMES_CHANGE)
			pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
		release_sets(*resp);
		leave(a);
		v = enter(pmda);
		if (__atomic_exchange_n(&a->names_changed, 0, __ATOMIC_ACQ_REL))
			pmdaExtSetFlags(pmda, PMDA_EXT_NAMES_CHANGE);
		sts = fetch_result(a, v, n, pmids, resp, pmda);
	}
	leave(a);
	return sts;
}

static int mmv_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	const mmvr_metric_info_t *m;
	int sts = 0;

	memset(desc, 0, sizeof(*desc));
	if (pmID_cluster(pmid) == 0 && pmID_item(pmid) < NCONTROL) {
		desc->pmid = pmid;
		desc->type = control_type(pmid);
		desc->indom = PM_INDOM_NULL;
		desc->sem = PM_SEM_INSTANT;
	} else if ((m = lookup_pmid(v, pmid)) != NULL) {
		*desc = m->desc;
	} else {
		sts = PM_ERR_PMID;
	}
	leave(current);
	return sts;
}

/*
 * The instance table of @indom alone, for pmdaInstance and pmdaLabel:
 * built per request (a table of every indom per scan costs too much).
 */
static int indom_table(struct agent *a, const struct view *v, pmInDom indom,
		pmdaExt *pmda)
{
	const mmvr_indom_info_t *d = mmvr_snapshot_lookup_indom(v->snap, indom);
	unsigned int k;

	pmda->e_indoms = NULL;
	pmda->e_nindoms = 0;
	if (d == NULL)
		return 0;
	if (d->ninstances + 1 > a->iset_cap) {
		pmdaInstid *more = realloc(a->iset, (d->ninstances + 1) *
				sizeof(*more));

		if (more == NULL)
			return -ENOMEM;
		a->iset = more;
		a->iset_cap = d->ninstances + 1;
	}
	for (k = 0; k < d->ninstances; k++) {
		a->iset[k].i_inst = d->instances[k].inst;
		/* lives as long as the snapshot, pinned for the request */
		a->iset[k].i_name = (char *)d->instances[k].name;
	}
	a->itab.it_indom = indom;
	a->itab.it_numinst = (int)d->ninstances;
	a->itab.it_set = a->iset;
	pmda->e_indoms = &a->itab;
	pmda->e_nindoms = 1;
	return 0;
}

static int mmv_instance(pmInDom indom, int inst, char *name,
		pmInResult **result, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	int sts;

	if ((sts = indom_table(current, v, indom, pmda)) == 0)
		sts = pmdaInstance(indom, inst, name, result, pmda);
	pmda->e_indoms = NULL;
	pmda->e_nindoms = 0;
	leave(current);
	return sts;
}

/* Help text is copied: after leave() the snapshot may be freed before
 * the library has sent the reply. */
static int keep_text(struct agent *a, const char *text, char **buf)
{
	char *copy = strdup(text);

	if (copy == NULL)
		return -ENOMEM;
	free(a->text);
	a->text = copy;
	*buf = copy;
	return 0;
}

static int mmv_text(int ident, int type, char **buf, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	struct agent *a = current;
	const char *text = NULL;
	int sts;

	if ((type & PM_TEXT_PMID) && pmID_cluster((pmID)ident) == 0) {
		unsigned int item = pmID_item((pmID)ident);
		const mmvr_metric_info_t *m;

		if (item >= NCONTROL) {
			m = mmvr_pct_view_lookup_pmid(v->pct, (pmID)ident);
			sts = m == NULL ? PM_ERR_PMID : PM_ERR_TEXT;
			if (m != NULL && (type & PM_TEXT_ONELINE))
				text = m->shorttext;
			else if (m != NULL)
				text = m->helptext;
			if (text != NULL)
				sts = 0;
		} else {
			text = (type & PM_TEXT_ONELINE) ? control[item].oneline :
				control[item].help;
			sts = 0;
		}
	} else {
		sts = mmvr_snapshot_text(v->snap, ident, type, &text);
	}
	if (sts == 0)
		sts = keep_text(a, text, buf);
	leave(a);
	return sts;
}

static int mmv_store(pmdaResult *result, pmdaExt *pmda)
{
	struct agent *a = pmdaExtGetData(pmda);
	int i, sts = 0;

	enter(pmda);
	for (i = 0; i < result->numpmid && sts == 0; i++) {
		pmValueSet *vs = result->vset[i];
		unsigned int item = pmID_item(vs->pmid);

		if (pmID_cluster(vs->pmid) != 0 ||
		    (item != CTL_RELOAD && item != CTL_DEBUG))
			sts = PM_ERR_PERMISSION;
		else if (item == CTL_DEBUG)
			sts = sdk_debug_store(vs, &a->debug, a->debug_text,
					sizeof(a->debug_text));
		else if (vs->numval != 1 || vs->valfmt != PM_VAL_INSITU)
			sts = PM_ERR_BADSTORE;
		else
			__atomic_store_n(&a->reload, vs->vlist[0].value.lval,
					__ATOMIC_RELAXED);
	}
	leave(a);
	if (sts == 0 && a->threaded && __atomic_load_n(&a->reload, __ATOMIC_RELAXED))
		kick(a);
	return sts;
}

static int control_item(const struct agent *a, const char *name)
{
	int i;

	for (i = 0; i < NCONTROL; i++)
		if (strcmp(name, a->ctl_names[i]) == 0)
			return i;
	return -1;
}

static int mmv_pmid(const char *name, pmID *pmid, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	const mmvr_metric_info_t *m;
	int item = control_item(current, name), sts = 0;

	if (item >= 0)
		*pmid = pmID_build(current->dp->domain, 0, item);
	else if ((m = lookup_name(v, name)) != NULL)
		*pmid = m->desc.pmid;
	else
		sts = PM_ERR_NAME;
	leave(current);
	return sts;
}

/* @n strings in one allocation after their pointers, as libpcp frees. */
static char **name_list(const char *const *s, const size_t *len, int n)
{
	size_t size = (size_t)n * sizeof(char *);
	char **list, *p;
	int i;

	for (i = 0; i < n; i++)
		size += len[i] + 1;
	if ((list = malloc(size)) == NULL)
		return NULL;
	p = (char *)&list[n];
	for (i = 0; i < n; i++) {
		list[i] = p;
		memcpy(p, s[i], len[i]);
		p[len[i]] = '\0';
		p += len[i] + 1;
	}
	return list;
}

static int mmv_name(pmID pmid, char ***names, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	const mmvr_metric_info_t *m;
	const char *name = NULL;
	size_t len;
	int sts = 1;

	if (pmID_cluster(pmid) == 0 && pmID_item(pmid) < NCONTROL)
		name = current->ctl_names[pmID_item(pmid)];
	else if ((m = lookup_pmid(v, pmid)) != NULL)
		name = m->name;
	if (name == NULL)
		sts = PM_ERR_PMID;
	else if ((len = strlen(name), *names = name_list(&name, &len, 1)) == NULL)
		sts = -ENOMEM;
	leave(current);
	return sts;
}

/*
 * The full names strictly under @name (sorted, the control metrics
 * last) in a new array; *leaf says whether @name is itself a metric.
 */
static const char **names_under(const struct agent *a, const struct view *v,
		const char *name, size_t *count, bool *leaf)
{
	size_t len = strlen(name), first, n, pfirst, pn, i, k = 0;
	char *prefix = malloc(len + 2);
	const char **all = NULL;

	*count = 0;
	*leaf = control_item(a, name) >= 0 || lookup_name(v, name) != NULL;
	if (prefix == NULL)
		return NULL;
	memcpy(prefix, name, len);
	memcpy(prefix + len, ".", 2);
	n = mmvr_snapshot_name_range(v->snap, prefix, &first);
	/* Percentiles live in their own subtree: one adjacent block. */
	pn = mmvr_pct_view_name_range(v->pct, prefix, &pfirst);
	if ((all = malloc((n + pn + NCONTROL + 1) * sizeof(*all))) != NULL) {
		for (i = 0; i < n; i++)
			all[k++] = mmvr_snapshot_metric(v->snap, first + i)->name;
		for (i = 0; i < pn; i++)
			all[k++] = mmvr_pct_view_metric(v->pct, pfirst + i)->name;
		for (i = 0; i < NCONTROL; i++)
			if (strncmp(a->ctl_names[i], prefix, len + 1) == 0)
				all[k++] = a->ctl_names[i];
		*count = k;
	}
	free(prefix);
	return all;
}

/*
 * pmdaTreeChildren's answers: traverse 0, the immediate children's
 * relative names and leaf status (0 for a metric); traverse 1, the full
 * names of every metric at or under @name.
 */
static int children_of(const struct agent *a, const struct view *v,
		const char *name, int traverse, char ***kids, int **status)
{
	size_t n, i, k = 0, plen = strlen(name) + 1, *lens = NULL;
	const char **all, **out = NULL;
	bool leaf;
	int sts;

	if ((all = names_under(a, v, name, &n, &leaf)) == NULL)
		return -ENOMEM;
	if (leaf) {	/* a metric: no children, or itself */
		all[0] = name;
		n = traverse ? 1 : 0;
		plen = 0;
	}
	if (n == 0) {
		free(all);
		return leaf ? 0 : PM_ERR_NAME;
	}
	out = malloc(n * sizeof(*out));
	lens = malloc(n * sizeof(*lens));
	*status = malloc(n * sizeof(**status));
	if (out == NULL || lens == NULL || *status == NULL) {
		sts = -ENOMEM;
		goto done;
	}
	for (i = 0; i < n; i++) {
		const char *c = traverse ? all[i] : all[i] + plen;
		size_t clen = traverse ? strlen(c) : strcspn(c, ".");

		/* Children in a subtree are adjacent: skip repeats. */
		if (k > 0 && lens[k - 1] == clen && memcmp(out[k - 1], c, clen) == 0)
			continue;
		out[k] = c;
		lens[k] = clen;
		(*status)[k++] = c[clen] == '.' ? PMNS_NONLEAF_STATUS :
			PMNS_LEAF_STATUS;
	}
	sts = (*kids = name_list(out, lens, (int)k)) == NULL ? -ENOMEM : (int)k;
done:
	if (sts < 0) {
		free(*status);
		*status = NULL;
	}
	free(lens);
	free(out);
	free(all);
	return sts;
}

static int mmv_children(const char *name, int traverse, char ***kids,
		int **status, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	int sts = children_of(current, v, name, traverse, kids, status);

	leave(current);
	return sts;
}

/* One label record: payload with its flags (OPTIONAL kept, docs/mmv-format.md §9.6). */
static int add_label(void *arg, unsigned int flags, int inst,
		const char *json)
{
	pmLabelSet **lp = arg;
	int sts;

	(void)inst;
	if ((sts = pmdaAddLabels(lp, "%s", json)) < 0)
		return sts;
	return pmdaAddLabelFlags(*lp, (int)flags);
}

/* pmdaLabel takes the return for the set's label count: give it that. */
static int instance_labels(pmInDom indom, unsigned int inst,
		pmLabelSet **lp)
{
	mmvr_snapshot_labels(current_view->snap, PM_LABEL_INSTANCES, indom,
			(int)inst, add_label, lp);
	return *lp != NULL && (*lp)->labels != NULL ? (*lp)->nlabels : 0;
}

static int mmv_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda)
{
	struct view *v = enter(pmda);
	int sts = 0;

	switch (type) {
	case PM_LABEL_CLUSTER:
	case PM_LABEL_ITEM:
	case PM_LABEL_INDOM:
		sts = mmvr_snapshot_labels(v->snap, type, (unsigned int)ident,
				(int)PM_IN_NULL, add_label, lp);
		break;
	default:
		break;
	}
	if (sts >= 0 && type == PM_LABEL_INSTANCES)
		sts = indom_table(current, v, (pmInDom)ident, pmda);
	if (sts >= 0)
		sts = pmdaLabel(ident, type, lp, pmda);
	pmda->e_indoms = NULL;
	pmda->e_nindoms = 0;
	leave(current);
	return sts;
}

static int start_thread(struct agent *a)
{
	int sts;

	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if ((sts = pthread_create(&a->thread, NULL, rescan_thread, a)) != 0)
		return -sts;
	a->running = true;
	return 0;
}

/* Percentile step and window (§9.8): 0 until set, then defaults or env. */
static uint64_t pct_step_ms, pct_window_ms;

int mmv_pmda_percentiles(double step, double window)
{
	if (!(step >= 0.001 && step <= 3600) || !(window >= step &&
	    window <= 86400) || window / step > 10000)
		return -EINVAL;
	pct_step_ms = (uint64_t)(step * 1000 + 0.5);
	pct_window_ms = (uint64_t)(window * 1000 + 0.5);
	return 0;
}

/* Seconds from the environment, or @dflt. */
static double env_seconds(const char *name, double dflt)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return dflt;
	v = strtod(s, &end);
	return *end == '\0' ? v : -1;
}

static mmvr_pct_t *pct_new(const char *prefix, unsigned int domain)
{
	if (pct_step_ms == 0 && mmv_pmda_percentiles(
			env_seconds("PCP_MMV_PCT_STEP", MMVR_PCT_STEP_MS / 1000.0),
			env_seconds("PCP_MMV_PCT_WINDOW", MMVR_PCT_WINDOW_MS / 1000.0)) < 0) {
		pmNotifyErr(LOG_WARNING, "%s: PCP_MMV_PCT_STEP or "
				"PCP_MMV_PCT_WINDOW not usable: defaults taken",
				prefix);
		mmv_pmda_percentiles(MMVR_PCT_STEP_MS / 1000.0,
				MMVR_PCT_WINDOW_MS / 1000.0);
	}
	return mmvr_pct_new(prefix, domain, pct_window_ms, pct_step_ms);
}

int mmv_pmda_setup(pmdaInterface *dp, const char *prefix, bool threaded)
{
	struct agent *a;
	int sts;

	if (dp->status != 0)
		return dp->status;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return dp->status = -ENOMEM;
	if ((a->pct = pct_new(prefix, (unsigned int)dp->domain)) == NULL) {
		free(a);
		return dp->status = -ENOMEM;
	}
	a->dp = dp;
	a->threaded = threaded;
	snprintf(a->prefix, sizeof(a->prefix), "%s", prefix);
	/* Looked up once (docs/mmv-format.md §9.1); PCP_TMP_DIR in the environment wins. */
	snprintf(a->dir, sizeof(a->dir), "%s/%s", pmGetConfig("PCP_TMP_DIR"),
			prefix);
	a->cfg.dir = a->dir;
	a->cfg.prefix = a->prefix;
	a->cfg.domain = (unsigned int)dp->domain;
	a->cfg.log = log_line;
	a->cfg.log_arg = a;
	for (sts = 0; sts < NCONTROL; sts++)
		control_name(a, sts, a->ctl_names[sts], sizeof(a->ctl_names[sts]));
	pthread_mutex_init(&a->scan_lock, NULL);
	if ((a->view = view_scan(a)) == NULL) {
		mmvr_pct_free(a->pct);
		free(a);
		return dp->status = -ENOMEM;
	}
	/* the first rescans then fault no fresh pages (§7.12) */
	mmvr_snapshot_reserve(a->view->snap);
	dp->version.seven.fetch = mmv_fetch;
	dp->version.seven.desc = mmv_desc;
	dp->version.seven.instance = mmv_instance;
	dp->version.seven.text = mmv_text;
	dp->version.seven.store = mmv_store;
	dp->version.seven.pmid = mmv_pmid;
	dp->version.seven.name = mmv_name;
	dp->version.seven.children = mmv_children;
	dp->version.seven.label = mmv_label;
	pmdaSetLabelCallBack(dp, instance_labels);
	pmdaSetFlags(dp, PMDA_EXT_FLAG_HASHED);
	pmdaSetData(dp, a);
	pmdaInit(dp, NULL, 0, NULL, 0);
	if (threaded && (sts = start_thread(a)) < 0) {
		pmNotifyErr(LOG_ERR, "%s: rescan thread: %s", prefix, pmErrStr(sts));
		return dp->status = sts;
	}
	return 0;
}

void mmv_pmda_shutdown(pmdaInterface *dp)
{
	struct agent *a = pmdaExtGetData(dp->version.seven.ext);

	if (a == NULL || !a->running)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	a->running = false;
}

/* @name must outlive the agent: the library keeps the pointer. */
static void dso_init(pmdaInterface *dp, const char *prefix, char *name)
{
	/* pmcd has set dp->domain from pmcd.conf. */
	pmdaDSO(dp, PMDA_INTERFACE_7, name, NULL);
	mmv_pmda_setup(dp, prefix, false);
}

__attribute__((visibility("default")))
void mmv_init(pmdaInterface *dp)
{
	dso_init(dp, "mmv", "mmv DSO");
}

__attribute__((visibility("default")))
void pmproxy_init(pmdaInterface *dp)
{
	dso_init(dp, "pmproxy", "pmproxy DSO");
}
