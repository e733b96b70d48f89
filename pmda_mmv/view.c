/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * view.c - the agent's published views (docs/mmv-format.md §9.2): a scan
 * of the directory, its publication (RCU in the daemon), the rescan
 * thread, and the entry to and exit from every request, which brings the
 * view up to date (DSO) or pins it (daemon).
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
#include <urcu.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include "agent.h"

/*
 * Callbacks without a pmdaExt argument (fetch and instance-label) find
 * the agent here. Both modes answer requests on one thread, and a DSO
 * may hold two agents (mmv and pmproxy), hence "current", set on entry.
 */
struct agent *mmvp_current;

struct view *mmvp_current_view;

void mmvp_log_line(void *arg, int level, const char *msg)
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

/* Scan the directory into a new view; NULL (logged) on failure. */
struct view *mmvp_view_scan(struct agent *a)
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
	if ((v = mmvp_view_scan(a)) != NULL)
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

void mmvp_kick(struct agent *a)
{
	pthread_mutex_lock(&a->lock);
	a->kick = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
}

/* Sample the bucket counts of @v's histograms whose step is due (§9.8). */
void mmvp_sample(struct agent *a, const struct view *v)
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

/* Background rescans: on a mmvp_kick, and once a second for names changes;
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
		mmvp_sample(a, a->view);	/* no one replaces it while we hold scan_lock */
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
 * (daemon) and pin it. mmvp_leave() must follow.
 */
struct view *mmvp_enter(pmdaExt *pmda)
{
	struct agent *a = pmdaExtGetData(pmda);
	struct view *v;

	mmvp_current = a;
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
	mmvp_current_view = v;
	return v;
}

void mmvp_leave(struct agent *a)
{
	mmvp_current_view = NULL;
	if (a->threaded)
		read_unlock(a);
}

/* A file's indom or a histogram's cumulative buckets (§9.8). */
const mmvr_indom_info_t *mmvp_lookup_indom(const struct view *v, pmInDom indom)
{
	const mmvr_indom_info_t *d = mmvr_snapshot_lookup_indom(v->snap, indom);

	return d ? d : mmvr_pct_view_lookup_indom(v->pct, indom);
}

/* A file's metric or a percentile (cluster 0, §9.8) by PMID or name. */
const mmvr_metric_info_t *mmvp_lookup_pmid(const struct view *v, pmID pmid)
{
	if (mmv_pmid_cluster(pmid) == 0)
		return mmvr_pct_view_lookup_pmid(v->pct, pmid);
	return mmvr_snapshot_lookup_pmid(v->snap, pmid);
}

const mmvr_metric_info_t *mmvp_lookup_name(const struct view *v,
		const char *name)
{
	const mmvr_metric_info_t *m = mmvr_snapshot_lookup_name(v->snap, name);

	return m ? m : mmvr_pct_view_lookup_name(v->pct, name);
}

int mmvp_start_thread(struct agent *a)
{
	int sts;

	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->cond, NULL);
	if ((sts = pthread_create(&a->thread, NULL, rescan_thread, a)) != 0)
		return -sts;
	a->running = true;
	return 0;
}

/* The rescan thread, if running, stopped and joined. */
void mmvp_stop_thread(struct agent *a)
{
	if (!a->running)
		return;
	pthread_mutex_lock(&a->lock);
	a->stop = true;
	pthread_cond_signal(&a->cond);
	pthread_mutex_unlock(&a->lock);
	pthread_join(a->thread, NULL);
	a->running = false;
}
