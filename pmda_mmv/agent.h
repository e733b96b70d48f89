/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * agent.h - the libpcp_pmda front end of pmda_mmv (docs/mmv-format.md §9):
 * maps the reader core's snapshots onto PMDA callbacks, serves the control
 * metrics and publishes each new snapshot as a "view"; names,
 * descriptors and instances are answered from the snapshot itself. One
 * file a concern, as the reader core's:
 *   view.c     published views, the rescan thread, a request's entry and exit
 *   control.c  the control metrics (mmv.control.*)
 *   fill.c     a fetch's reply
 *   meta.c     names, descriptors, instances, help and labels
 *   pmda.c     set-up and the DSO's and the daemon's entry points
 * Names shared between them start with mmvp_.
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
#ifndef PMDA_MMV_AGENT_H
#define PMDA_MMV_AGENT_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>

#include "reader/reader.h"
#include "pmda_mmv.h"
#include "pmda_debug.h"

enum { CTL_RELOAD, CTL_DEBUG, CTL_FILES, CTL_METRICS, NCONTROL };

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


/* view.c */
/*
 * Callbacks without a pmdaExt argument (fetch and instance-label) find
 * the agent here. Both modes answer requests on one thread, and a DSO
 * may hold two agents (mmv and pmproxy), hence "current", set on entry.
 */
extern struct agent *mmvp_current;
extern struct view *mmvp_current_view;
void mmvp_log_line(void *arg, int level, const char *msg);
struct view *mmvp_view_scan(struct agent *a);
void mmvp_kick(struct agent *a);
void mmvp_sample(struct agent *a, const struct view *v);
struct view *mmvp_enter(pmdaExt *pmda);
void mmvp_leave(struct agent *a);
const mmvr_indom_info_t *mmvp_lookup_indom(const struct view *v, pmInDom indom);
const mmvr_metric_info_t *mmvp_lookup_pmid(const struct view *v, pmID pmid);
const mmvr_metric_info_t *mmvp_lookup_name(const struct view *v,
		const char *name);
int mmvp_start_thread(struct agent *a);
void mmvp_stop_thread(struct agent *a);

/* control.c */
void mmvp_control_name(const struct agent *a, int item, char *buf,
		size_t len);
int mmvp_control_type(pmID pmid);
int mmvp_control_value(struct agent *a, const struct view *v,
		unsigned int item, pmAtomValue *atom);
int mmvp_store(pmdaResult *result, pmdaExt *pmda);
int mmvp_control_item(const struct agent *a, const char *name);
const char *mmvp_control_text(unsigned int item, bool oneline);

/* fill.c */
int mmvp_fetch(int n, pmID *pmids, pmdaResult **resp, pmdaExt *pmda);

/* meta.c */
int mmvp_desc(pmID pmid, pmDesc *desc, pmdaExt *pmda);
int mmvp_instance(pmInDom indom, int inst, char *name,
		pmInResult **result, pmdaExt *pmda);
int mmvp_text(int ident, int type, char **buf, pmdaExt *pmda);
int mmvp_pmid(const char *name, pmID *pmid, pmdaExt *pmda);
int mmvp_name(pmID pmid, char ***names, pmdaExt *pmda);
int mmvp_children(const char *name, int traverse, char ***kids,
		int **status, pmdaExt *pmda);
int mmvp_instance_labels(pmInDom indom, unsigned int inst,
		pmLabelSet **lp);
int mmvp_label(int ident, int type, pmLabelSet **lp, pmdaExt *pmda);

#endif
