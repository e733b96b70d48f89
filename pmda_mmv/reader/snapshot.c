/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snapshot.c - scan a directory into an immutable snapshot (docs/mmv-format.md §7.1, §7.2, §7.3, §7.8, §9.2):
 * list and load the files, assign clusters, build the metric names and
 * the instance domains. Logging lives here too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pcp/mmv_dev.h>
#include "reader_priv.h"

#define MAX_ENTRIES	65536	/* directory entries looked at per scan */

int mmvr_cmp_u32(uint32_t a, uint32_t b)
{
	return a < b ? -1 : a > b;
}

static void default_log(void *arg, int level, const char *msg)
{
	(void)arg;
	(void)level;
	fprintf(stderr, "pmda_mmv: %s\n", msg);
}

static void vlog(const mmvr_snapshot_t *snap, int level, const char *file,
		const char *fmt, va_list ap)
{
	char msg[512];
	size_t n = 0;
	char *c;

	if (file != NULL)
		n = (size_t)snprintf(msg, sizeof(msg), "%s/%s: ", snap->dir, file);
	if (n < sizeof(msg))
		vsnprintf(msg + n, sizeof(msg) - n, fmt, ap);
	/* File names and file contents are hostile: one printable line. */
	for (c = msg; *c != '\0'; c++)
		if (*c < ' ' || *c > '~')
			*c = '?';
	snap->log(snap->log_arg, level, msg);
}

void mmvr_log(const mmvr_snapshot_t *snap, int level, const char *file,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(snap, level, file, fmt, ap);
	va_end(ap);
}

void mmvr_file_log(const mmvr_snapshot_t *snap, rfile_t *f, const char *fmt, ...)
{
	va_list ap;

	if (f->log_budget <= 0)
		return;
	va_start(ap, fmt);
	vlog(snap, LOG_WARNING, f->pub.name, fmt, ap);
	va_end(ap);
	if (--f->log_budget == 0)
		mmvr_log(snap, LOG_WARNING, f->pub.name,
				"further problems not logged");
}

/* A full PMNS name: a letter first, then the format's grammar. */
bool mmvr_name_valid(const char *name)
{
	return mmv_name_letter(name[0]) &&
		mmv_name_components_valid(name, strlen(name));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_names(char **names, size_t n)
{
	while (n > 0)
		free(names[--n]);
	free(names);
}

/* The directory's entries, hidden ones left out, sorted bytewise. */
static char **list_dir(mmvr_snapshot_t *snap, int dfd, size_t *count)
{
	int fd = dup(dfd);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;

	if (d == NULL) {
		if (fd >= 0)
			close(fd);
		mmvr_log(snap, LOG_WARNING, NULL, "%s: %s", snap->dir,
				strerror(errno));
		*count = 0;
		return NULL;
	}
	while ((e = readdir(d)) != NULL && n < MAX_ENTRIES) {
		if (e->d_name[0] == '.')	/* also files being built */
			continue;
		if (n == cap) {
			char **more = realloc(names, (cap ? cap * 2 : 64) *
					sizeof(*names));
			if (more == NULL)
				break;
			names = more;
			cap = cap ? cap * 2 : 64;
		}
		if ((names[n] = strdup(e->d_name)) == NULL)
			break;
		n++;
	}
	if (e != NULL && n < MAX_ENTRIES)
		snap->nomem = true;
	else if (e != NULL)
		mmvr_log(snap, LOG_WARNING, NULL, "%s: only the first %d "
				"entries read", snap->dir, MAX_ENTRIES);
	closedir(d);
	if (names != NULL)
		qsort(names, n, sizeof(*names), cmp_str);
	*count = n;
	return names;
}

void mmvr_file_put(rfile_t *f)
{
	if (--f->refs > 0)
		return;
	if (f->map != NULL)
		munmap((void *)f->map, (size_t)f->size);
	close(f->fd);
	mmvr_arena_free(&f->arena);
	free(f);
}

static void refuse(rfile_t **slot)
{
	mmvr_file_put(*slot);
	*slot = NULL;
}

/*
 * An indom number keeps MMV_SERIAL_BITS of the cluster (mmv_indom_serial),
 * so clusters c and c ^ MMV_INDOM_CLUSTERS share indom numbers: the file
 * whose indoms would collide with @f's, if any.
 */
static const rfile_t *indom_alias(const mmvr_snapshot_t *snap, unsigned int c,
		const rfile_t *f)
{
	const rfile_t *other = snap->by_cluster[c ^ MMV_INDOM_CLUSTERS];

	if (f->nindoms == 0 || other == NULL || other->nindoms == 0)
		return NULL;
	return other;
}

/* The previous snapshot's file of that name, or NULL. */
static const rfile_t *previous_file(const mmvr_snapshot_t *snap,
		const char *name)
{
	const mmvr_snapshot_t *p = snap->previous;
	size_t lo = 0, hi = p ? p->nfiles : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, p->files[mid]->pub.name);

		if (c == 0)
			return p->files[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The cluster the previous snapshot served a file of @f's name and
 * request at, or 0. */
static unsigned int held_cluster(const mmvr_snapshot_t *snap, const rfile_t *f)
{
	const rfile_t *old = previous_file(snap, f->pub.name);

	if (old == NULL || old->pub.requested_cluster != f->pub.requested_cluster)
		return 0;
	return old->pub.cluster;
}

/* Did the previous snapshot serve @f, by name, at its explicit cluster? */
static bool held(const mmvr_snapshot_t *snap, const rfile_t *f)
{
	return f->pub.requested_cluster != 0 && held_cluster(snap, f) != 0;
}

static void take_cluster(mmvr_snapshot_t *snap, rfile_t *f, unsigned int *cl,
		unsigned int c)
{
	*cl = c;
	snap->by_cluster[c] = f;
}

static void refuse_at(mmvr_snapshot_t *snap, rfile_t **slot, unsigned int *cl)
{
	if (*cl != 0)
		snap->by_cluster[*cl] = NULL;
	*cl = 0;
	refuse(slot);
}

/*
 * Refuse explicit files whose indoms alias another's: the one at the
 * higher cluster, unless only it was served before (then the other).
 */
static void refuse_aliases(mmvr_snapshot_t *snap, rfile_t **cand,
		unsigned int *cl, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i++) {
		const rfile_t *other;
		size_t loser = i;
		unsigned int c;

		if (cand[i] == NULL || cand[i]->pub.requested_cluster == 0)
			continue;
		c = cl[i];
		if ((other = indom_alias(snap, c, cand[i])) == NULL ||
		    c < MMV_INDOM_CLUSTERS)
			continue;
		if (held(snap, cand[i]) && !held(snap, other))
			for (j = 0; j < n; j++)
				if (cand[j] == other)
					loser = j;
		c = cl[loser];
		mmvr_log(snap, LOG_WARNING, cand[loser]->pub.name, "cluster %u "
				"indoms would collide with %s's", c,
				snap->by_cluster[c ^ MMV_INDOM_CLUSTERS]->pub.name);
		refuse_at(snap, &cand[loser], &cl[loser]);
	}
}

static bool cluster_free(const mmvr_snapshot_t *snap, unsigned int c,
		const rfile_t *f)
{
	return c >= 1 && c <= MMV_CLUSTER_MAX &&
		snap->by_cluster[c] == NULL && indom_alias(snap, c, f) == NULL;
}

/*
 * PCP's cluster choice without its defects (docs/compatibility.md, pmda_mmv row 2): explicit requests are honoured first,
 * those of files already served at them before the rest, and a repeated
 * one is refused (no PMID shadowing or theft); automatic files then keep
 * the cluster they were served at, if still free, and the others take
 * the smallest clusters nobody requested. Clusters go to @cl, not into
 * the files: a file taken over from the previous snapshot is shared.
 */
static void assign_clusters(mmvr_snapshot_t *snap, rfile_t **cand,
		unsigned int *cl, size_t n)
{
	unsigned int next = 1, c;
	size_t i;

	for (i = 0; i < 2 * n; i++) {
		rfile_t **f = &cand[i % n];
		int want;

		if (*f == NULL || (want = (*f)->pub.requested_cluster) == 0 ||
		    held(snap, *f) != (i < n))
			continue;
		if (snap->by_cluster[want] != NULL) {
			mmvr_log(snap, LOG_WARNING, (*f)->pub.name,
					"cluster %d already used by %s", want,
					snap->by_cluster[want]->pub.name);
			refuse(f);
			continue;
		}
		take_cluster(snap, *f, &cl[i % n], (unsigned int)want);
	}
	refuse_aliases(snap, cand, cl, n);
	for (i = 0; i < n; i++)
		if (cand[i] != NULL && cand[i]->pub.requested_cluster == 0 &&
		    (c = held_cluster(snap, cand[i])) != 0 &&
		    cluster_free(snap, c, cand[i]))
			take_cluster(snap, cand[i], &cl[i], c);
	for (i = 0; i < n; i++) {
		if (cand[i] == NULL || cl[i] != 0)
			continue;
		while (next <= MMV_CLUSTER_MAX &&
		       !cluster_free(snap, next, cand[i]))
			next++;
		if (next > MMV_CLUSTER_MAX) {
			mmvr_log(snap, LOG_WARNING, cand[i]->pub.name,
					"no free cluster");
			refuse(&cand[i]);
			continue;
		}
		take_cluster(snap, cand[i], &cl[i], next);
	}
}

/* Names under <prefix>. that the agent serves itself: the control
 * metrics and the percentiles of histograms (docs/mmv-format.md §9.8). */
static bool reserved_top(const char *name)
{
	static const char *const top[] = { "control", MMVR_PCT_NAME };
	size_t i, n;

	for (i = 0; i < sizeof(top) / sizeof(top[0]); i++) {
		n = strlen(top[i]);
		if (strncmp(name, top[i], n) == 0 &&
		    (name[n] == '\0' || name[n] == '.'))
			return true;
	}
	return false;
}

/* Why the file name cannot be part of metric names, or NULL. */
static const char *file_name_problem(const rfile_t *f)
{
	const char *name = f->pub.name;

	if (f->pub.flags & MMV_FLAG_NOPREFIX)
		return NULL;
	if (!mmv_name_components_valid(name, strlen(name)))
		return "name not usable in metric names (letters, digits, _ "
			"and . only)";
	if (reserved_top(name))
		return "name reserved for the agent's own metrics";
	return NULL;
}

/*
 * The previous snapshot's file of this name if it is still the same:
 * same inode, size and generations (what a rescan check compares). Two
 * system calls instead of reading and checking the whole file.
 */
static rfile_t *unchanged_file(mmvr_snapshot_t *snap, int dfd, const char *name)
{
	rfile_t *old = (rfile_t *)previous_file(snap, name);
	struct stat st;

	if (old == NULL || snap->no_reuse ||
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_dev != old->dev ||
	    st.st_ino != old->ino || (uint64_t)st.st_size != old->size ||
	    !mmvr_file_generation_same(old) ||
	    (old->pub.pid > 0 && !mmvr_writer_alive(old->pub.pid)))
		return NULL;
	return old;
}

/* Load, check and parse one entry; false only when memory ran out. */
static bool scan_entry(mmvr_snapshot_t *snap, int dfd, const char *name,
		rfile_t **slot)
{
	rpending_t pend;
	image_t img;
	const char *why;
	int sts;

	if ((*slot = unchanged_file(snap, dfd, name)) != NULL) {
		(*slot)->refs++;
		return true;
	}
	switch (mmvr_file_load(snap, dfd, name, slot, &img, &pend)) {
	case LOAD_OK:
		break;
	case LOAD_NOT_READY:
		pend.name = mmvr_arena_strdup(&snap->arena, name);
		if (pend.name == NULL)
			return false;
		snap->pending[snap->npending++] = pend;
		return true;
	case LOAD_REFUSED:
		return true;
	default:
		return false;
	}
	if ((why = file_name_problem(*slot)) != NULL) {
		mmvr_log(snap, LOG_WARNING, name, "%s", why);
		sts = 1;
	} else {
		sts = mmvr_model_parse(snap, *slot, &img);
	}
	mmvr_image_release(&img);
	if (sts != 0)
		refuse(slot);
	return sts >= 0;
}

/* A shared file that must move to another cluster is loaded afresh. */
static bool settle_cluster(mmvr_snapshot_t *snap, int dfd, rfile_t **slot,
		unsigned int c)
{
	bool no_reuse = snap->no_reuse;
	char name[256];

	if (*slot == NULL || (*slot)->pub.cluster == c)
		return true;
	if (!(*slot)->built) {
		(*slot)->pub.cluster = c;
		return true;
	}
	snprintf(name, sizeof(name), "%s", (*slot)->pub.name);
	refuse(slot);
	snap->by_cluster[c] = NULL;
	snap->no_reuse = true;	/* this entry only */
	if (!scan_entry(snap, dfd, name, slot)) {
		snap->no_reuse = no_reuse;
		return false;
	}
	snap->no_reuse = no_reuse;
	if (*slot != NULL) {
		(*slot)->pub.cluster = c;
		snap->by_cluster[c] = *slot;
	}
	return true;
}

static bool is_reserved(const mmvr_snapshot_t *snap, const char *full)
{
	return reserved_top(full + strlen(snap->prefix) + 1);
}

/* Full name of docs/mmv-format.md §7.8, or NULL (logged) when it is not usable. */
static const char *full_name(mmvr_snapshot_t *snap, rfile_t *f, rmetric_t *m)
{
	bool nopfx = f->pub.flags & MMV_FLAG_NOPREFIX;
	size_t lp = strlen(snap->prefix), lf = nopfx ? 0 : strlen(f->pub.name);
	size_t lr = strlen(m->rel_name);
	char *s = mmvr_arena_array_raw(&f->arena, lp + lf + lr + 3, 1), *p;

	if (s == NULL) {
		snap->nomem = true;
		return NULL;
	}
	/* prefix "." [file "."] relative name: once per metric, no printf */
	p = (char *)memcpy(s, snap->prefix, lp) + lp;
	*p++ = '.';
	if (!nopfx) {
		p = (char *)memcpy(p, f->pub.name, lf) + lf;
		*p++ = '.';
	}
	memcpy(p, m->rel_name, lr + 1);
	if (!mmvr_name_valid(s)) {
		mmvr_file_log(snap, f, "metric name %s invalid", s);
		return NULL;
	}
	if (is_reserved(snap, s)) {
		mmvr_file_log(snap, f, "metric name %s reserved", s);
		return NULL;
	}
	return s;
}

static int cmp_by_name(const void *a, const void *b)
{
	const rmetric_t *x = *(rmetric_t *const *)a;
	const rmetric_t *y = *(rmetric_t *const *)b;
	int c = strcmp(x->pub.name, y->pub.name);

	return c != 0 ? c : mmvr_cmp_u32(x->seq, y->seq);
}

/* Set PMIDs and indoms of the files not built yet (their clusters are
 * known now); collect their candidate metrics. */
static size_t collect_metrics(mmvr_snapshot_t *snap, rmetric_t **all)
{
	size_t i, n = 0;
	uint32_t j, seq = 0;

	for (i = 0; i < snap->nfiles; i++) {
		rfile_t *f = snap->files[i];
		unsigned int c = f->pub.cluster;

		if (f->built)
			continue;
		for (j = 0; j < f->nmetrics; j++) {
			rmetric_t *m = &f->metrics[j];

			if (!m->ok || (m->pub.name = full_name(snap, f, m)) == NULL)
				continue;
			m->pub.desc.pmid = mmv_pmid_build(snap->domain, c, m->item);
			m->pub.desc.indom = m->serial == 0 ? PM_INDOM_NULL :
				mmv_indom_build(snap->domain,
						mmv_indom_serial(c, m->serial));
			m->seq = seq++;
			all[n++] = m;
		}
	}
	return n;
}

/*
 * Drop repeated names (the first file in name order wins) and leaves that
 * are also subtrees ("a" beside "a.b": the leaf goes). '.' sorts before
 * every other name character, so "a.b" comes right after "a".
 */
static size_t unique_names(mmvr_snapshot_t *snap, rmetric_t **all, size_t n)
{
	size_t i, k = 0;

	qsort(all, n, sizeof(*all), cmp_by_name);
	for (i = 0; i < n; i++) {
		if (k > 0 && strcmp(all[i]->pub.name, all[k - 1]->pub.name) == 0) {
			mmvr_file_log(snap, all[i]->file, "metric name %s already "
					"used by %s", all[i]->pub.name,
					all[k - 1]->file->pub.name);
			all[i]->file->clash_lost = true;
			continue;
		}
		all[k++] = all[i];
	}
	n = k;
	for (i = k = 0; i < n; i++) {
		size_t len = strlen(all[i]->pub.name);

		if (i + 1 < n && strncmp(all[i]->pub.name, all[i + 1]->pub.name,
				len) == 0 && all[i + 1]->pub.name[len] == '.') {
			mmvr_file_log(snap, all[i]->file, "metric name %s is also a "
					"subtree", all[i]->pub.name);
			all[i]->file->clash_lost = true;
			continue;
		}
		all[k++] = all[i];
	}
	return k;
}

/* Is @a a proper ancestor of @b ("a" of "a.b")? */
static bool is_parent(const char *a, const char *b)
{
	size_t len = strlen(a);

	return strncmp(a, b, len) == 0 && b[len] == '.';
}

/*
 * The first of @n sorted metrics whose name is not below @name. Searched
 * from the front in growing steps, then halving: the names of a file that
 * was read again sit together, so after the first of them each next one
 * is found a step or two on, not after log2(n) comparisons of names all
 * over memory.
 */
size_t mmvr_name_lower_bound(rmetric_t *const *v, size_t n, const char *name)
{
	size_t lo = 0, hi = 1;

	while (hi <= n && strcmp(v[hi - 1]->pub.name, name) < 0) {
		lo = hi;
		hi = hi * 2 + 1;
	}
	if (hi > n)
		hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid]->pub.name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The exported names of the taken-over files (the previous snapshot's
 * list without the files that went) merged with the new files' @add:
 * O(names) copying and O(new names x log names) comparisons instead of
 * sorting every name again. Whether an old name's file stays is read
 * from the previous by_file, so the copy touches no metric (at 100,000
 * names those cache misses were most of a merge); the lists are written
 * whole, so they are not cleared first. Any clash with a taken-over
 * file's name sets snap->retry: the scan is redone without sharing,
 * which settles who wins as a first scan would.
 */
static rmetric_t **merge_names(mmvr_snapshot_t *snap, rmetric_t **add,
		size_t nadd, size_t *total)
{
	const mmvr_snapshot_t *p = snap->previous;
	rmetric_t *const *old = p->by_name;
	const uint16_t *ofile = p->by_file;
	const rmetric_t *prev = NULL;	/* the last taken-over name copied */
	size_t i, k = 0, at = 0, pos, nx = 0;
	uint32_t *keep;			/* old file index -> new index + 1, 0: gone */
	uint16_t *fout;
	rmetric_t **out;

	keep = mmvr_arena_array(&snap->arena, p->nfiles + 1, sizeof(*keep));
	out = mmvr_arena_array_raw(&snap->arena, p->nmetrics + nadd + 1,
			sizeof(*out));
	fout = mmvr_arena_array_raw(&snap->arena, p->nmetrics + nadd + 1,
			sizeof(*fout));
	if (keep == NULL || out == NULL || fout == NULL) {
		snap->nomem = true;
		return NULL;
	}
	for (i = 0; i < p->nfiles; i++)
		if (p->files[i]->mark == snap->mark)
			keep[i] = p->files[i]->index + 1u;
	for (i = 0; i <= nadd; i++) {
		const char *name = i < nadd ? add[i]->pub.name : NULL;

		pos = name == NULL ? p->nmetrics :
			at + mmvr_name_lower_bound(old + at, p->nmetrics - at, name);
		for (; at < pos; at++) {
			if (keep[ofile[at]] == 0)
				continue;
			fout[k] = (uint16_t)(keep[ofile[at]] - 1u);
			prev = out[k++] = old[at];
		}
		if (name == NULL)
			break;
		/* the next taken-over name: pos never goes back, nor does nx */
		for (nx = nx > pos ? nx : pos; nx < p->nmetrics &&
				keep[ofile[nx]] == 0; nx++)
			;
		if ((nx < p->nmetrics && (strcmp(old[nx]->pub.name, name) == 0 ||
					  is_parent(name, old[nx]->pub.name))) ||
		    (prev != NULL && is_parent(prev->pub.name, name))) {
			snap->retry = true;
			return NULL;
		}
		fout[k] = add[i]->file->index;
		out[k++] = add[i];
	}
	*total = k;
	snap->by_file = fout;
	return out;
}

/* Each file has a cluster of its own, so a file index fits by_file. */
_Static_assert(MMV_CLUSTER_MAX < UINT16_MAX, "file indexes are 16 bits");

/* @m's quick record (reader_priv.h): offset 0 if it has none. */
static rquick_t quick_of(const rmetric_t *m)
{
	rquick_t q = { 0 };
	uint64_t off;

	if (m->serial != 0 || m->nvalues == 0 || !mmv_type_known(m->mtype) ||
	    m->mtype == MMV_TYPE_NOSUPPORT || m->mtype == MMV_TYPE_STRING)
		return q;
	if ((off = m->values[m->first].offset) > UINT32_MAX)
		return q;
	q.offset = (uint32_t)off;
	q.mtype = (int8_t)m->mtype;
	q.type = (int8_t)m->pub.desc.type;
	return q;
}

/* @f's quick table, once its by_item is set: false on ENOMEM. */
static bool build_quick(rfile_t *f)
{
	uint32_t n = MMV_ITEM_MAX + 1, i;
	rquicktab_t *t;

	while (n > 0 && (f->by_item[n - 1] == 0 ||
	    quick_of(&f->metrics[f->by_item[n - 1] - 1]).offset == 0))
		n--;
	if (f->map == NULL || n == 0)
		return true;	/* read the general way */
	t = mmvr_arena_alloc(&f->arena, sizeof(*t) + n * sizeof(t->quick[0]));
	if (t == NULL)
		return false;
	t->nitems = n;
	for (i = 0; i < n; i++)
		if (f->by_item[i] != 0)
			t->quick[i] = quick_of(&f->metrics[f->by_item[i] - 1]);
	f->quick = t;
	return true;
}

/* The snapshot's dense copy of each quick table's file fields. */
static void build_fast(mmvr_snapshot_t *snap)
{
	size_t i;
	uint16_t k = 0;

	snap->fast = mmvr_arena_array(&snap->arena, snap->nfiles + 1,
			sizeof(*snap->fast));
	if (snap->fast == NULL) {
		snap->nomem = true;
		return;
	}
	for (i = 0; i < snap->nfiles; i++) {
		const rfile_t *f = snap->files[i];

		if (f->quick == NULL)
			continue;
		snap->fast[k] = (rfast_t){ .map = f->map,
			.generation = f->pub.generation, .table = f->quick,
			.file = f, .flags = f->pub.flags };
		snap->fast_of[f->pub.cluster] = ++k;
	}
}

static void build_metrics(mmvr_snapshot_t *snap)
{
	size_t i, total = 0, n;
	rmetric_t **all;
	bool gone;

	for (i = 0; i < snap->nfiles; i++) {
		snap->files[i]->index = (uint16_t)i;
		if (!snap->files[i]->built)
			total += snap->files[i]->nmetrics;
	}
	all = mmvr_arena_array(&snap->arena, total + 1, sizeof(*all));
	if (all == NULL) {
		snap->nomem = true;
		return;
	}
	for (i = 0; i < snap->nfiles; i++) {
		rfile_t *f = snap->files[i];

		if (f->built)
			continue;
		f->by_item = mmvr_arena_array(&f->arena, MMV_ITEM_MAX + 1,
				sizeof(*f->by_item));
		if (f->by_item == NULL) {
			snap->nomem = true;
			return;
		}
	}
	total = unique_names(snap, all, collect_metrics(snap, all));
	if (snap->nomem)
		return;
	for (i = 0; i < total; i++) {
		rmetric_t *m = all[i];

		m->exported = true;
		m->file->by_item[m->item] = (uint16_t)(m - m->file->metrics + 1);
	}
	for (i = 0; i < snap->nfiles; i++)
		if (!snap->files[i]->built && !build_quick(snap->files[i])) {
			snap->nomem = true;
			return;
		}
	n = total;
	if (snap->nreused == 0) {
		snap->by_file = mmvr_arena_array_raw(&snap->arena, n + 1,
				sizeof(*snap->by_file));
		if (snap->by_file == NULL) {
			snap->nomem = true;
			return;
		}
		for (i = 0; i < n; i++)
			snap->by_file[i] = all[i]->file->index;
	} else {
		/* A name a file lost may be free now that another went. */
		gone = snap->previous->nfiles > snap->nreused;
		for (i = 0; i < snap->nfiles && !snap->retry; i++)
			if (snap->files[i]->built && snap->files[i]->clash_lost &&
			    gone)
				snap->retry = true;
		if (snap->retry ||
		    (all = merge_names(snap, all, total, &n)) == NULL)
			return;
	}
	snap->by_name = all;
	snap->nmetrics = n;
}

static bool build_indom(const mmvr_snapshot_t *snap, rfile_t *f,
		const rindom_t *d, mmvr_indom_info_t *out)
{
	mmvr_instance_info_t *inst;
	uint32_t i, n = 0;

	inst = mmvr_arena_array(&f->arena, d->nraw + 1, sizeof(*inst));
	if (inst == NULL)
		return false;
	for (i = 0; i < d->nraw; i++) {
		if (d->inst[i].name == NULL)
			continue;
		inst[n].inst = d->inst[i].id;
		inst[n++].name = d->inst[i].name;
	}
	out->indom = mmv_indom_build(snap->domain,
			mmv_indom_serial(f->pub.cluster, d->serial));
	out->ninstances = n;
	out->instances = inst;
	out->shorttext = d->shorttext;
	out->helptext = d->helptext;
	return true;
}

static int cmp_indom(const void *a, const void *b)
{
	return mmvr_cmp_u32(((const mmvr_indom_info_t *)a)->indom,
			((const mmvr_indom_info_t *)b)->indom);
}

/* A new file's indoms, in its own memory: shared with the file. */
static bool file_indoms(const mmvr_snapshot_t *snap, rfile_t *f)
{
	uint32_t j;

	f->indom_pub = mmvr_arena_array(&f->arena, f->nindoms + 1,
			sizeof(*f->indom_pub));
	if (f->indom_pub == NULL)
		return false;
	for (j = 0; j < f->nindoms; j++)
		if (!build_indom(snap, f, &f->indoms[j], &f->indom_pub[j]))
			return false;
	return true;
}

/* Clusters are unique per file and serials per file, so indoms are too:
 * the merging of docs/mmv-format.md §7.3 never has anything to merge. */
static void build_indoms(mmvr_snapshot_t *snap)
{
	size_t i, total = 0;

	for (i = 0; i < snap->nfiles; i++)
		total += snap->files[i]->nindoms;
	snap->indoms = mmvr_arena_array(&snap->arena, total + 1,
			sizeof(*snap->indoms));
	if (snap->indoms == NULL) {
		snap->nomem = true;
		return;
	}
	for (i = 0; i < snap->nfiles; i++) {
		rfile_t *f = snap->files[i];

		if (!f->built && !file_indoms(snap, f)) {
			snap->nomem = true;
			return;
		}
		memcpy(snap->indoms + snap->nindoms, f->indom_pub,
				f->nindoms * sizeof(*snap->indoms));
		snap->nindoms += f->nindoms;
	}
	qsort(snap->indoms, snap->nindoms, sizeof(*snap->indoms), cmp_indom);
}

static bool snapshot_config(mmvr_snapshot_t *snap, const mmvr_config_t *cfg)
{
	snap->dir = mmvr_arena_strdup(&snap->arena, cfg->dir ? cfg->dir : "");
	snap->prefix = mmvr_arena_strdup(&snap->arena,
			cfg->prefix ? cfg->prefix : "mmv");
	snap->domain = cfg->domain ? cfg->domain : MMVR_DOMAIN;
	snap->max_file_size = cfg->max_file_size ? cfg->max_file_size :
		MMVR_MAX_FILE;
	snap->log = cfg->log ? cfg->log : default_log;
	snap->log_arg = cfg->log_arg;
	return snap->dir != NULL && snap->prefix != NULL;
}

/*
 * Every entry in name order (unchanged files taken over from the previous
 * snapshot), then clusters, names and indoms.
 */
static void scan_dir(mmvr_snapshot_t *snap, int dfd)
{
	size_t i, n;
	char **names = list_dir(snap, dfd, &n);
	rfile_t **cand = mmvr_arena_array(&snap->arena, n + 1, sizeof(*cand));
	unsigned int *cl = mmvr_arena_array(&snap->arena, n + 1, sizeof(*cl));

	snap->pending = mmvr_arena_array(&snap->arena, n + 1, sizeof(*snap->pending));
	if (cand == NULL || cl == NULL || snap->pending == NULL)
		snap->nomem = true;
	for (i = 0; i < n && !snap->nomem; i++)
		if (!scan_entry(snap, dfd, names[i], &cand[i]))
			snap->nomem = true;
	if (!snap->nomem) {
		assign_clusters(snap, cand, cl, n);
		for (i = 0; i < n && !snap->nomem; i++)
			if (!settle_cluster(snap, dfd, &cand[i], cl[i]))
				snap->nomem = true;
	}
	free_names(names, n);
	if (snap->nomem) {
		for (i = 0; i < n; i++)
			if (cand != NULL && cand[i] != NULL)
				refuse(&cand[i]);
		return;
	}
	snap->files = cand;
	for (i = 0; i < n; i++) {
		if (cand[i] == NULL)
			continue;
		snap->files[snap->nfiles++] = cand[i];
		/* Shared ones, marked for merge_names: a file refused or
		 * loaded afresh after it was taken over is not. */
		if (cand[i]->built) {
			cand[i]->mark = snap->mark;
			snap->nreused++;
		}
	}
	build_metrics(snap);
	if (!snap->nomem && !snap->retry)
		build_indoms(snap);
	if (!snap->nomem && !snap->retry)
		build_fast(snap);
	/* What is built stays: the files may be shared from now on. */
	for (i = 0; i < snap->nfiles && !snap->nomem && !snap->retry; i++)
		snap->files[i]->built = true;
}

/*
 * The kernel stamps a directory with a clock that advances a tick (a few
 * milliseconds) at a time: a rename in the tick of @mtime, after the
 * listing, would leave the mtime as the scan saw it. Such a snapshot is
 * treated as changed until a scan sees the directory a tick old.
 */
static bool mtime_racy(const struct timespec *mtime)
{
	struct timespec now, tick;
	int64_t age;

	if (clock_getres(CLOCK_REALTIME_COARSE, &tick) < 0 ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return true;
	age = (int64_t)(now.tv_sec - mtime->tv_sec) * 1000000000 +
		(now.tv_nsec - mtime->tv_nsec);
	/* An mtime in the future (a clock set back) cannot recur: the next
	 * change stamps the present. Not racy, or every request rescans. */
	return age >= 0 &&
		age < 2 * ((int64_t)tick.tv_sec * 1000000000 + tick.tv_nsec);
}

static mmvr_snapshot_t *scan_once(const mmvr_config_t *cfg, bool reuse)
{
	static unsigned int marks;
	mmvr_snapshot_t *snap = calloc(1, sizeof(*snap));
	struct stat st;
	int dfd;

	if (snap == NULL)
		return NULL;
	snap->dfd = -1;
	if (!snapshot_config(snap, cfg)) {
		mmvr_snapshot_free(snap);
		errno = ENOMEM;
		return NULL;
	}
	dfd = open(snap->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		/* Watched: a change of errno or the directory appearing. */
		snap->dir_errno = errno ? errno : EIO;
		mmvr_log(snap, LOG_INFO, NULL, "%s: %s", snap->dir,
				strerror(snap->dir_errno));
		if (dfd >= 0)
			close(dfd);
		return snap;
	}
	/* The times before reading: a change during the scan is seen later. */
	snap->dir_mtime = st.st_mtim;
	snap->dir_ctime = st.st_ctim;
	snap->dir_dev = st.st_dev;
	snap->dir_ino = st.st_ino;
	snap->previous = cfg->previous;
	snap->no_reuse = !reuse;
	/* Unique among all agents' scans: files of another are never here. */
	snap->mark = __atomic_add_fetch(&marks, 1, __ATOMIC_RELAXED);
	scan_dir(snap, dfd);
	snap->dir_racy = mtime_racy(&st.st_mtim);
	snap->previous = NULL;
	snap->no_reuse = false;
	snap->dfd = dfd;	/* kept: the quick rescan check fstats it */
	if (snap->nomem) {
		mmvr_snapshot_free(snap);
		errno = ENOMEM;
		return NULL;
	}
	return snap;
}

mmvr_snapshot_t *mmvr_snapshot_scan(const mmvr_config_t *cfg)
{
	mmvr_snapshot_t *snap = scan_once(cfg, true);

	if (snap == NULL || !snap->retry)
		return snap;
	/* Names clash with a shared file's: as a first scan would. */
	mmvr_snapshot_free(snap);
	return scan_once(cfg, false);
}

size_t mmvr_snapshot_reused(const mmvr_snapshot_t *snap)
{
	return snap->nreused;
}

/*
 * A rescan builds the new lists while @snap's are still in use, and reads
 * a changed file while the old copy is served: memory of the sizes of
 * @snap's own and of its largest file's, faulted in now.
 */
void mmvr_snapshot_reserve(const mmvr_snapshot_t *snap)
{
	const rfile_t *big = NULL;
	size_t i;

	for (i = 0; i < snap->nfiles; i++)
		if (big == NULL || snap->files[i]->size > big->size)
			big = snap->files[i];
	mmvr_arena_reserve(&snap->arena);
	if (big != NULL) {
		mmvr_arena_reserve(&big->arena);
		mmvr_block_reserve((size_t)big->size);
	}
}

void mmvr_snapshot_free(mmvr_snapshot_t *snap)
{
	size_t i;

	if (snap == NULL)
		return;
	for (i = 0; i < snap->nfiles; i++)
		mmvr_file_put(snap->files[i]);
	if (snap->dfd >= 0)
		close(snap->dfd);
	mmvr_arena_free(&snap->arena);
	free(snap);
}
