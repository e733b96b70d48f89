/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's reader of a client's shared aggregate segment: see shm.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <pcp/trace_dev.h>

#include "shm.h"

#define READ_TRIES	64	/* a slot's torn reads before it waits a turn */

/* What the agent has accounted of one (row, tag) slot. */
struct seen {
	uint64_t count;
	double sum;
	uint32_t *hist;		/* per bucket, lazily: transactions, observations */
};

struct tag_copy {
	int type;
	int refused;		/* the merge said -ENOSPC: told once */
	size_t len;
	char name[TRACE_SHM_NAME_MAX];
};

struct tra_shm {
	int fd;
	void *base;
	size_t size;
	uint32_t tags, rows;
	uint32_t ntags;		/* tag entries copied and checked */
	int have_epoch;
	uint64_t seq;		/* the sub-interval published as the epoch */
	struct tag_copy *tag;	/* tags entries */
	struct seen **row;	/* rows pointers, each tags entries, lazily */
	uint64_t hist_delta[TRACE_HIST_NBUCKETS];
};

/* A slot's numbers read in one piece. */
struct slot_read {
	uint64_t count;
	double sum, min, max, last;
	uint32_t epoch;
};

static void whyf(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void whyf(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

struct tra_shm *tra_shm_open(int fd, uint32_t tags, uint32_t rows, char *why,
		size_t whylen)
{
	size_t size = trace_shm_size(tags, rows);
	const struct trace_shm_hdr *h;
	struct tra_shm *s;
	struct stat st;
	int seals;
	void *base;

	if (size == 0) {
		whyf(why, whylen, "geometry %u tags x %u rows outside 1..%u x 1..%u",
		     tags, rows, TRACE_SHM_TAGS_MAX, TRACE_SHM_ROWS_MAX);
		return NULL;
	}
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK)) {
		whyf(why, whylen, "segment not sealed against shrinking");
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size < size) {
		whyf(why, whylen, "segment smaller than its geometry (%zu bytes)", size);
		return NULL;
	}
	base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		whyf(why, whylen, "cannot map the segment: %s", strerror(errno));
		return NULL;
	}
	h = base;
	if (memcmp(h->magic, TRACE_SHM_MAGIC, sizeof(h->magic)) != 0 ||
	    h->version != TRACE_SHM_VERSION || h->hdr_size != TRACE_SHM_HDR_SIZE ||
	    h->tags != tags || h->rows != rows) {
		whyf(why, whylen, "segment header does not match its registration");
		munmap(base, size);
		return NULL;
	}
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->tag = calloc(tags, sizeof(*s->tag))) == NULL ||
	    (s->row = calloc(rows, sizeof(*s->row))) == NULL) {
		if (s)
			free(s->tag);
		free(s);
		munmap(base, size);
		whyf(why, whylen, "out of memory");
		return NULL;
	}
	s->fd = fd;
	s->base = base;
	s->size = size;
	s->tags = tags;
	s->rows = rows;
	return s;
}

void tra_shm_close(struct tra_shm *s)
{
	if (s == NULL)
		return;
	for (uint32_t r = 0; r < s->rows; r++) {
		if (s->row[r] == NULL)
			continue;
		for (uint32_t t = 0; t < s->tags; t++)
			free(s->row[r][t].hist);
		free(s->row[r]);
	}
	free(s->row);
	free(s->tag);
	munmap(s->base, s->size);
	close(s->fd);
	free(s);
}

/* Copy and check the tag entries the client published since last time. */
static int take_tags(struct tra_shm *s, char *why, size_t whylen)
{
	struct trace_shm_hdr *h = s->base;
	uint32_t n = __atomic_load_n(&h->ntags, __ATOMIC_ACQUIRE);

	if (n > s->tags) {
		whyf(why, whylen, "%u tags published in %u slots", n, s->tags);
		return -1;
	}
	for (; s->ntags < n; s->ntags++) {
		const struct trace_shm_tag *e = trace_shm_tag_at(s->base, s->ntags);
		struct tag_copy *c = &s->tag[s->ntags];

		/* one copy, checked; the client may scribble on the original */
		c->type = __atomic_load_n(&e->type, __ATOMIC_RELAXED);
		c->len = __atomic_load_n(&e->len, __ATOMIC_RELAXED);
		if (c->len == 0 || c->len >= TRACE_SHM_NAME_MAX ||
		    c->type < TRACE_FIRST_TYPE || c->type > TRACE_LAST_TYPE) {
			whyf(why, whylen, "tag entry %u: type %d, length %zu",
			     s->ntags, c->type, c->len);
			return -1;
		}
		for (size_t i = 0; i < c->len; i++)
			c->name[i] = __atomic_load_n(&e->name[i], __ATOMIC_RELAXED);
		if (memchr(c->name, '\0', c->len) != NULL) {
			whyf(why, whylen, "tag entry %u: NUL inside the name", s->ntags);
			return -1;
		}
		c->name[c->len] = '\0';
	}
	return 0;
}

static double load_d(const double *p)
{
	double v;

	__atomic_load(p, &v, __ATOMIC_RELAXED);
	return v;
}

/*
 * A consistent copy of @slot: 1 read, 0 torn (the writer kept moving).
 * @final: the writer is gone; a sequence left odd is taken as it stands.
 */
static int read_slot(struct trace_shm_slot *slot, int final, struct slot_read *out)
{
	for (int i = 0; i < READ_TRIES; i++) {
		uint32_t s1 = __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE), s2;

		if ((s1 & 1) && !final)
			continue;
		out->count = __atomic_load_n(&slot->count, __ATOMIC_RELAXED);
		out->sum = load_d(&slot->sum);
		out->min = load_d(&slot->min);
		out->max = load_d(&slot->max);
		out->last = load_d(&slot->last);
		out->epoch = __atomic_load_n(&slot->epoch, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		s2 = __atomic_load_n(&slot->seq, __ATOMIC_RELAXED);
		if (s1 == s2)
			return 1;
	}
	return 0;
}

/*
 * The histogram of @d reports since last time, into s->hist_delta. Read
 * after the slot, so every counted report's bucket is in (and maybe a
 * few later ones): the excess waits for the next collection, taken back
 * from the bucket of the latest value first. A shortfall, which only a
 * writer that died between its count and its bucket (or a hostile one)
 * leaves, is put in that bucket, so a batch's buckets always add up.
 */
static int take_hist(struct tra_shm *s, struct seen *sn, uint32_t row, uint32_t t,
		uint64_t d, double last)
{
	const uint32_t *cur = trace_shm_hist_at(s->base, s->tags, s->rows, row, t);
	uint32_t lb = trace_hist_index(last);
	uint64_t total = 0, excess;

	if (sn->hist == NULL && (sn->hist = calloc(TRACE_HIST_NBUCKETS, sizeof(uint32_t))) == NULL)
		return -1;
	for (uint32_t b = 0; b < TRACE_HIST_NBUCKETS; b++) {
		/* 32-bit counters: the difference is taken modulo 2^32 */
		uint32_t v = __atomic_load_n(&cur[b], __ATOMIC_ACQUIRE);

		s->hist_delta[b] = (uint32_t)(v - sn->hist[b]);
		total += s->hist_delta[b];
	}
	if (total < d) {
		s->hist_delta[lb] += d - total;
		sn->hist[lb] -= (uint32_t)(d - total);	/* the baseline stays the segment's */
		total = d;
	}
	excess = total - d;
	for (uint32_t i = 0; excess > 0 && i <= TRACE_HIST_NBUCKETS; i++) {
		uint32_t b = i == 0 ? lb : i - 1;
		uint64_t take = s->hist_delta[b] < excess ? s->hist_delta[b] : excess;

		s->hist_delta[b] -= take;
		excess -= take;
	}
	for (uint32_t b = 0; b < TRACE_HIST_NBUCKETS; b++)
		sn->hist[b] += (uint32_t)s->hist_delta[b];
	return 0;
}

/* The batch of one slot, if it moved: 1 emitted, 0 nothing, -1 untrusted. */
static int collect_slot(struct tra_shm *s, uint32_t row, uint32_t t, uint64_t seq,
		int final, tra_shm_emit_fn emit, void *arg, char *why, size_t whylen)
{
	struct trace_shm_slot *slot = trace_shm_slot_at(s->base, s->tags, row, t);
	struct tag_copy *tc = &s->tag[t];
	struct seen *sn = &s->row[row][t];
	struct trace_batch b = { 0 };
	struct slot_read r;
	int sts;

	if (__atomic_load_n(&slot->count, __ATOMIC_RELAXED) == sn->count ||
	    !read_slot(slot, final, &r) || r.count <= sn->count)
		return 0;	/* nothing new, torn (next time), or backwards (ignored) */
	b.count = r.count - sn->count;
	if (b.count > TRACE_BATCH_MAX) {
		whyf(why, whylen, "row %u tag %u: %llu reports at once", row, t,
		     (unsigned long long)b.count);
		return -1;
	}
	b.sum = r.sum - sn->sum;
	b.last = r.last;
	if (tc->type == TRACE_TYPE_POINT) {
		/* a point's value is -1 (docs/trace-protocol.md §2.3): not written */
		b.sum = -(double)b.count;
		r.min = r.max = r.last = b.last = -1.0;
	}
	/* min and max since the epoch: this sub-interval's, or one report's */
	b.min = b.count == 1 ? r.last : r.min;
	b.max = b.count == 1 ? r.last : r.max;
	if (!(b.min <= b.max))
		b.min = b.max = r.last;	/* a writer caught between the two */
	if (trace_shm_has_hist(tc->type)) {
		if (take_hist(s, sn, row, t, b.count, r.last) < 0) {
			whyf(why, whylen, "out of memory");
			return -1;
		}
		b.hist = s->hist_delta;
	}
	sn->count = r.count;
	sn->sum = r.sum;
	sts = emit(arg, seq, tc->type, tc->name, tc->len, &b);
	if ((sts == -ENOSPC) != tc->refused) {
		/* refused by -t, or taken again after a reset made room */
		tc->refused = sts == -ENOSPC;
		__atomic_store_n(&trace_shm_tag_at(s->base, t)->status, tc->refused ? -ENOSPC : 0,
				 __ATOMIC_RELAXED);
	}
	return 1;
}

int tra_shm_collect(struct tra_shm *s, uint64_t seq_now, int final,
		tra_shm_emit_fn emit, void *arg, char *why, size_t whylen)
{
	struct trace_shm_hdr *h = s->base;
	uint32_t nrows = __atomic_load_n(&h->nrows, __ATOMIC_ACQUIRE);
	uint64_t seq = s->have_epoch ? s->seq : seq_now;
	int n = 0, sts;

	if (take_tags(s, why, whylen) < 0)
		return -1;
	if (nrows > s->rows) {
		whyf(why, whylen, "%u rows in use of %u", nrows, s->rows);
		return -1;
	}
	for (uint32_t r = 0; r < nrows; r++) {
		if (s->row[r] == NULL && (s->row[r] = calloc(s->tags, sizeof(struct seen))) == NULL) {
			whyf(why, whylen, "out of memory");
			return -1;
		}
		for (uint32_t t = 0; t < s->ntags; t++) {
			sts = collect_slot(s, r, t, seq, final, emit, arg, why, whylen);
			if (sts < 0)
				return -1;
			n += sts;
		}
	}
	/* reports from now on belong to the current sub-interval */
	if (!s->have_epoch || s->seq != seq_now) {
		s->have_epoch = 1;
		s->seq = seq_now;
		__atomic_store_n(&h->epoch, (uint32_t)seq_now + 1, __ATOMIC_RELAXED);
	}
	return n;
}
