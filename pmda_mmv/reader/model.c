/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * model.c - turn the sections of one accepted file image into the
 * reader's model (docs/mmv-format.md §7.3): indoms and their instances, metrics with
 * descriptors and help, the value records each metric owns, and labels.
 * Every offset, count and cross reference is checked; a bad record is
 * skipped (logged) and the rest of the file is still served.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <pcp/mmv_dev.h>
#include "json_check.h"
#include "reader_priv.h"

/*
 * Items (0..MMV_ITEM_MAX) and serials (1..MMV_SERIAL_MAX) must be
 * unique, so records past these counts can only be refused: reading no
 * further bounds the memory a hostile count can make us allocate.
 */
#define MAX_METRIC_RECORDS	4096
#define MAX_INDOM_RECORDS	4096

typedef struct section {
	bool present;
	uint64_t offset;
	uint64_t count;
	uint64_t recsize;
} section_t;

/* Scratch state for parsing one file. */
typedef struct parse {
	mmvr_snapshot_t *snap;
	rfile_t *f;
	const image_t *img;
	bool v1;
	section_t sec[MMV_SECTION_END];
	int32_t by_serial[MMV_SERIAL_MAX + 1];	/* indom index or -1 */
} parse_t;

const char *mmvr_image_string(mmvr_snapshot_t *snap, rfile_t *f, const image_t *img,
		uint64_t off, size_t max)
{
	const char *s, *nul;
	uint64_t n;
	char *copy;

	if (off == 0 || off >= img->size)
		return NULL;
	n = img->size - off;
	if (n > max)
		n = max;
	s = (const char *)img->buf + off;
	if ((nul = memchr(s, '\0', n)) == NULL)
		return NULL;
	if ((copy = mmvr_arena_strndup(&f->arena, s, (size_t)(nul - s))) == NULL)
		snap->nomem = true;
	return copy;
}

/* An optional help text: 0 is absent, anything else must be good. */
static const char *help_text(parse_t *p, uint64_t off, const char *what,
		unsigned int id)
{
	const char *s;

	if (off == 0)
		return NULL;
	s = mmvr_image_string(p->snap, p->f, p->img, off, MMV_STRINGMAX);
	if (s == NULL)
		mmvr_file_log(p->snap, p->f, "%s %u: help text at %llu unreadable",
				what, id, (unsigned long long)off);
	return s;
}

/* Record each known section once; later duplicates are ignored. */
static void walk_toc(parse_t *p)
{
	uint32_t i, unknown = 0;

	for (i = 0; i < p->img->tocs; i++) {
		mmv_disk_toc_t t;
		section_t *s;

		memcpy(&t, p->img->buf + MMV_TOC_OFFSET + (uint64_t)i * sizeof(t),
		       sizeof(t));
		if (!mmv_section_known(t.type)) {
			unknown++;
			continue;
		}
		s = &p->sec[t.type];
		if (s->present) {
			mmvr_file_log(p->snap, p->f, "second %s section ignored",
					mmv_section_name(t.type));
			continue;
		}
		s->present = true;
		s->offset = t.offset;
		s->count = (uint32_t)t.count;	/* negative reads as huge */
		s->recsize = mmv_record_size(t.type, p->img->version);
		if (!mmvr_span_ok(p->img->size, s->offset, s->count, s->recsize)) {
			mmvr_file_log(p->snap, p->f, "%s section (%llu at %llu) "
					"past the end, ignored",
					mmv_section_name(t.type),
					(unsigned long long)s->count,
					(unsigned long long)s->offset);
			s->present = false;
			s->count = 0;
		}
	}
	if (unknown)
		mmvr_file_log(p->snap, p->f, "%u TOC entries of unknown type ignored",
				unknown);
}

/* Whether two non-empty sections, or one and the header + TOC, overlap. */
static bool sections_overlap(const parse_t *p)
{
	uint64_t lo[MMV_SECTION_END], hi[MMV_SECTION_END];
	int i, j, n = 0;

	lo[n] = 0;
	hi[n++] = MMV_TOC_OFFSET + (uint64_t)p->img->tocs * MMV_TOC_ENTRY_SIZE;
	for (i = MMV_TOC_INDOMS; i < MMV_SECTION_END; i++) {
		const section_t *s = &p->sec[i];

		if (!s->present || s->count == 0)
			continue;
		lo[n] = s->offset;
		hi[n++] = s->offset + s->count * s->recsize;	/* mmvr_span_ok'd */
	}
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (lo[i] < hi[j] && lo[j] < hi[i])
				return true;
	return false;
}

/* An instance name: inline (v1, not trusted to be terminated) or a slot. */
static const char *instance_name(parse_t *p, const unsigned char *rec)
{
	if (p->v1) {
		const char *name = (const char *)rec +
			offsetof(mmv_disk_instance_t, external);
		const char *nul = memchr(name, '\0', MMV_NAMEMAX);
		char *copy;

		if (nul == NULL)
			return NULL;
		copy = mmvr_arena_strndup(&p->f->arena, name, (size_t)(nul - name));
		if (copy == NULL)
			p->snap->nomem = true;
		return copy;
	} else {
		mmv_disk_instance2_t r;

		memcpy(&r, rec, sizeof(r));
		return mmvr_image_string(p->snap, p->f, p->img, r.external, MMV_STRINGMAX);
	}
}

static int cmp_inst_id(const void *a, const void *b)
{
	const rinst_t *x = *(rinst_t *const *)a, *y = *(rinst_t *const *)b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x < y ? -1 : x > y;	/* file order among equals */
}

static int cmp_inst_name(const void *a, const void *b)
{
	const rinst_t *x = *(rinst_t *const *)a, *y = *(rinst_t *const *)b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return x < y ? -1 : x > y;
}

/* Refuse later instances repeating an id or a name (sort, then compare). */
static void drop_duplicates(parse_t *p, rindom_t *d, int (*cmp)(const void *,
		const void *), const char *what)
{
	rinst_t **v = malloc((d->nraw ? d->nraw : 1) * sizeof(*v));
	uint32_t i, n = 0;

	if (v == NULL) {
		p->snap->nomem = true;
		return;
	}
	for (i = 0; i < d->nraw; i++)
		if (d->inst[i].name != NULL)
			v[n++] = &d->inst[i];
	qsort(v, n, sizeof(*v), cmp);
	for (i = 1; i < n; i++) {
		if (cmp == cmp_inst_id ? v[i]->id != v[i - 1]->id :
		    strcmp(v[i]->name, v[i - 1]->name) != 0)
			continue;
		mmvr_file_log(p->snap, p->f, "indom %u: instance %d repeats a %s",
				d->serial, v[i]->id, what);
		v[i]->name = NULL;
		v[i] = v[i - 1];	/* keep comparing with the survivor */
	}
	free(v);
}

static void parse_instances(parse_t *p, rindom_t *d, uint64_t indom_off)
{
	uint64_t irec = mmv_record_size(MMV_TOC_INSTANCES, p->img->version);
	uint32_t i;

	for (i = 0; i < d->nraw; i++) {
		const unsigned char *rec = p->img->buf + d->offset + i * irec;
		mmv_disk_instance2_t head;	/* v1 starts the same way */
		rinst_t *in = &d->inst[i];

		memcpy(&head, rec, MMV_INSTANCE_HEAD_SIZE);
		in->id = head.internal;
		if (head.indom != indom_off) {
			mmvr_file_log(p->snap, p->f, "indom %u: instance %u belongs "
					"elsewhere", d->serial, i);
			continue;
		}
		/* -1 is PM_IN_NULL, "no instance", to every PCP client */
		if (in->id < 0) {
			mmvr_file_log(p->snap, p->f, "indom %u: instance %u has id %d",
					d->serial, i, in->id);
			continue;
		}
		in->name = instance_name(p, rec);
		if (in->name == NULL || in->name[0] == '\0') {
			mmvr_file_log(p->snap, p->f, "indom %u: instance %u has a bad "
					"name", d->serial, i);
			in->name = NULL;
		}
	}
	drop_duplicates(p, d, cmp_inst_id, "id");
	drop_duplicates(p, d, cmp_inst_name, "name");
}

/* One indom record; false if it is refused. @budget caps total work. */
static bool parse_indom(parse_t *p, uint64_t off, rindom_t *d,
		uint64_t *budget)
{
	uint64_t irec = mmv_record_size(MMV_TOC_INSTANCES, p->img->version);
	mmv_disk_indom_t r;

	memcpy(&r, p->img->buf + off, sizeof(r));
	if (r.serial == 0 || r.serial > MMV_SERIAL_MAX) {
		mmvr_file_log(p->snap, p->f, "indom serial %u out of range", r.serial);
		return false;
	}
	if (p->by_serial[r.serial] >= 0) {
		mmvr_file_log(p->snap, p->f, "indom %u repeated", r.serial);
		return false;
	}
	if (!mmvr_span_ok(p->img->size, r.offset, r.count, irec) ||
	    r.count > *budget) {
		mmvr_file_log(p->snap, p->f, "indom %u: %u instances at %llu past "
				"the end", r.serial, r.count,
				(unsigned long long)r.offset);
		return false;
	}
	*budget -= r.count;
	d->serial = r.serial;
	d->offset = r.offset;
	d->nraw = r.count;
	d->inst = mmvr_arena_array(&p->f->arena, r.count, sizeof(rinst_t));
	if (d->inst == NULL) {
		p->snap->nomem = true;
		return false;
	}
	d->shorttext = help_text(p, r.shorttext, "indom", r.serial);
	d->helptext = help_text(p, r.helptext, "indom", r.serial);
	parse_instances(p, d, off);
	return true;
}

/*
 * The array for a section's records: NULL when the section is absent or
 * empty, or memory ran out (flagged). Counts past @max are cut to @max
 * with one log line; *@n is the count to read.
 */
static void *section_array(parse_t *p, const section_t *s, uint64_t max,
		const char *what, size_t size, uint64_t *n)
{
	void *arr;

	*n = s->count;
	if (!s->present || *n == 0)
		return NULL;
	if (*n > max) {
		mmvr_file_log(p->snap, p->f, "%llu %s, only the first %llu read",
				(unsigned long long)*n, what, (unsigned long long)max);
		*n = max;
	}
	if ((arr = mmvr_arena_array(&p->f->arena, *n, size)) == NULL)
		p->snap->nomem = true;
	return arr;
}

static void parse_indoms(parse_t *p)
{
	const section_t *s = &p->sec[MMV_TOC_INDOMS];
	/* Indoms may share instance arrays: bound the total, not each. */
	uint64_t budget = p->img->size / mmv_record_size(MMV_TOC_INSTANCES, p->img->version);
	uint64_t i, n;

	if ((p->f->indoms = section_array(p, s, MAX_INDOM_RECORDS, "indoms",
					   sizeof(rindom_t), &n)) == NULL)
		return;
	for (i = 0; i < n && !p->snap->nomem; i++) {
		rindom_t *d = &p->f->indoms[p->f->nindoms];

		if (parse_indom(p, s->offset + i * s->recsize, d, &budget))
			p->by_serial[d->serial] = (int32_t)p->f->nindoms++;
	}
}

/* The fields common to v1 and v2 metric records. */
typedef struct metric_rec {
	const char *name;
	uint32_t item;
	int32_t type;
	int32_t sem;
	pmUnits units;
	uint32_t indom;
	uint64_t shorttext;
	uint64_t helptext;
} metric_rec_t;

/* The fields versions 1 and 2/3 metric records share, by name. */
#define METRIC_FIELDS(m, r)					\
	do {							\
		(m)->item = (r).item;				\
		(m)->type = (r).type;				\
		(m)->sem = (r).semantics;			\
		(m)->units = (r).dimension;			\
		(m)->indom = (uint32_t)(r).indom;		\
		(m)->shorttext = (r).shorttext;			\
		(m)->helptext = (r).helptext;			\
	} while (0)

static void read_metric(parse_t *p, const unsigned char *rec, metric_rec_t *m)
{
	if (p->v1) {
		mmv_disk_metric_t r;
		const char *nul;

		memcpy(&r, rec, sizeof(r));
		m->name = NULL;
		nul = memchr(rec, '\0', MMV_NAMEMAX);	/* may be missing */
		if (nul != NULL) {
			m->name = mmvr_arena_strndup(&p->f->arena,
					(const char *)rec,
					(size_t)(nul - (const char *)rec));
			if (m->name == NULL)
				p->snap->nomem = true;
		}
		METRIC_FIELDS(m, r);
	} else {
		mmv_disk_metric2_t r;

		memcpy(&r, rec, sizeof(r));
		m->name = mmvr_image_string(p->snap, p->f, p->img, r.name, MMV_STRINGMAX);
		METRIC_FIELDS(m, r);
	}
}

/* Descriptor fields of docs/mmv-format.md §9.3 (pmid and indom follow the cluster). */
static void fill_desc(rmetric_t *m, const metric_rec_t *r)
{
	pmDesc *d = &m->pub.desc;

	d->type = r->type;
	d->sem = r->sem == 0 ? PM_SEM_COUNTER : r->sem;
	d->units = r->units;
	if (r->type == MMV_TYPE_ELAPSED) {
		d->type = PM_TYPE_64;
		d->sem = PM_SEM_COUNTER;
		memset(&d->units, 0, sizeof(d->units));
		d->units.dimTime = 1;
		d->units.scaleTime = PM_TIME_USEC;
	}
}

/* Checks of one metric record; the reason when it is refused. */
static const char *metric_problem(const metric_rec_t *r, const uint8_t *seen)
{
	if (r->name == NULL)
		return "name unterminated or past the end";
	if (r->name[0] == '\0')
		return "empty name";
	if (r->item > MMV_ITEM_MAX)
		return "item over 1023";
	if (seen[r->item / 8] & (1u << (r->item % 8)))
		return "item repeated";
	if (!mmv_type_known(r->type))
		return "unknown type";
	if (!mmv_sem_known(r->sem))
		return "unknown semantics";
	if (r->indom != 0 && r->indom != PM_INDOM_NULL &&
	    r->indom > MMV_SERIAL_MAX)
		return "indom serial out of range";
	return NULL;
}

static void parse_metrics(parse_t *p)
{
	const section_t *s = &p->sec[MMV_TOC_METRICS];
	uint8_t seen[(MMV_ITEM_MAX + 1) / 8] = { 0 };
	uint64_t i, n;

	if ((p->f->metrics = section_array(p, s, MAX_METRIC_RECORDS, "metrics",
					    sizeof(rmetric_t), &n)) == NULL)
		return;
	p->f->nmetrics = (uint32_t)n;
	for (i = 0; i < n && !p->snap->nomem; i++) {
		rmetric_t *m = &p->f->metrics[i];
		const char *why;
		metric_rec_t r;

		read_metric(p, p->img->buf + s->offset + i * s->recsize, &r);
		m->file = p->f;
		if ((why = metric_problem(&r, seen)) != NULL) {
			mmvr_file_log(p->snap, p->f, "metric[%llu] %s: %s",
					(unsigned long long)i,
					r.name ? r.name : "?", why);
			continue;
		}
		seen[r.item / 8] |= 1u << (r.item % 8);
		m->ok = true;
		m->rel_name = r.name;
		m->item = r.item;
		m->mtype = r.type;
		m->serial = r.indom == PM_INDOM_NULL ? 0 : r.indom;
		fill_desc(m, &r);
		m->pub.shorttext = help_text(p, r.shorttext, "item", r.item);
		m->pub.helptext = help_text(p, r.helptext, "item", r.item);
	}
}

/* Where a value record points, once resolved. */
typedef struct vref {
	int32_t metric;			/* index, or -1: unusable */
	int32_t inst;
	uint64_t slot;
} vref_t;

/* The metric record a value's offset names exactly, or -1. */
static int64_t value_metric(parse_t *p, uint64_t off)
{
	const section_t *s = &p->sec[MMV_TOC_METRICS];
	uint64_t k;

	if (!s->present || off < s->offset ||
	    (off - s->offset) % s->recsize != 0)
		return -1;
	k = (off - s->offset) / s->recsize;
	return k < p->f->nmetrics ? (int64_t)k : -1;
}

/* The instance id an instance offset names in @m's indom. */
static bool value_instance(parse_t *p, const rmetric_t *m, uint64_t off,
		int32_t *inst)
{
	uint64_t irec = mmv_record_size(MMV_TOC_INSTANCES, p->img->version), k;
	const rindom_t *d;

	if (m->serial == 0) {
		*inst = PM_IN_NULL;
		return true;
	}
	if (p->by_serial[m->serial] < 0)
		return false;
	d = &p->f->indoms[p->by_serial[m->serial]];
	if (off < d->offset || (off - d->offset) % irec != 0)
		return false;
	k = (off - d->offset) / irec;
	if (k >= d->nraw || d->inst[k].name == NULL)
		return false;
	*inst = d->inst[k].id;
	return true;
}

/* False for a value record pointing nowhere; a value of a refused
 * metric is dropped quietly (that metric was logged already). */
static bool resolve_value(parse_t *p, uint64_t off, vref_t *v)
{
	mmv_disk_value_t r;
	rmetric_t *m;
	int64_t k;

	memcpy(&r, p->img->buf + off, sizeof(r));
	v->metric = -1;
	if ((k = value_metric(p, r.metric)) < 0)
		return false;
	m = &p->f->metrics[k];
	if (!m->ok)
		return true;
	v->metric = (int32_t)k;
	if (!value_instance(p, m, r.instance, &v->inst)) {
		v->metric = -1;
		return false;
	}
	v->slot = 0;
	if (m->mtype == MMV_TYPE_STRING) {
		/* At least one byte of the slot must be in the file. */
		if (r.extra <= 0 || (uint64_t)r.extra >= p->img->size) {
			v->metric = -1;
			return false;
		}
		v->slot = (uint64_t)r.extra;
	}
	return true;
}

static int cmp_value(const void *a, const void *b)
{
	const rvalue_t *x = a, *y = b;

	if (x->inst != y->inst)
		return x->inst < y->inst ? -1 : 1;
	return mmvr_cmp_u32(x->seq, y->seq);
}

/* Sort a metric's values by instance, keep the first of each, note the
 * first in file order (what an PM_IN_NULL request gets). */
static void index_values(parse_t *p, rmetric_t *m)
{
	uint32_t i, n = 0, first = 0;

	if (m->nvalues == 0)
		return;
	qsort(m->values, m->nvalues, sizeof(*m->values), cmp_value);
	for (i = 0; i < m->nvalues; i++) {
		if (n > 0 && m->values[i].inst == m->values[n - 1].inst) {
			mmvr_file_log(p->snap, p->f, "metric %s: instance %d has two "
					"values", m->rel_name, m->values[i].inst);
			continue;
		}
		m->values[n++] = m->values[i];
	}
	m->nvalues = n;
	m->span_lo = UINT64_MAX;
	for (i = 0; i < n; i++) {
		const rvalue_t *v = &m->values[i];
		uint64_t end = v->offset + sizeof(mmv_disk_value_t);

		if (v->seq < m->values[first].seq)
			first = i;
		m->span_lo = v->offset < m->span_lo ? v->offset : m->span_lo;
		m->span_hi = end > m->span_hi ? end : m->span_hi;
		if (m->mtype != MMV_TYPE_STRING)
			continue;
		/* A slot may run past the end of a hostile file: clamp. */
		end = p->img->size - v->slot < MMV_STRINGMAX ? p->img->size :
			v->slot + MMV_STRINGMAX;
		m->span_lo = v->slot < m->span_lo ? v->slot : m->span_lo;
		m->span_hi = end > m->span_hi ? end : m->span_hi;
	}
	m->first = first;
}

static void fill_values(parse_t *p, const vref_t *ref, uint64_t count)
{
	const section_t *s = &p->sec[MMV_TOC_VALUES];
	uint64_t i;

	for (i = 0; i < p->f->nmetrics && !p->snap->nomem; i++) {
		rmetric_t *m = &p->f->metrics[i];

		if (m->nvalues == 0)
			continue;
		m->values = mmvr_arena_array(&p->f->arena, m->nvalues,
				sizeof(rvalue_t));
		if (m->values == NULL)
			p->snap->nomem = true;
		m->nvalues = 0;
	}
	for (i = 0; i < count && !p->snap->nomem; i++) {
		rmetric_t *m;
		rvalue_t *v;

		if (ref[i].metric < 0)
			continue;
		m = &p->f->metrics[ref[i].metric];
		v = &m->values[m->nvalues++];
		v->inst = ref[i].inst;
		v->seq = (uint32_t)i;
		v->offset = s->offset + i * s->recsize;
		v->slot = ref[i].slot;
	}
	for (i = 0; i < p->f->nmetrics && !p->snap->nomem; i++)
		index_values(p, &p->f->metrics[i]);
}

static void parse_values(parse_t *p)
{
	const section_t *s = &p->sec[MMV_TOC_VALUES];
	uint64_t i, bad = 0;
	vref_t *ref;

	if (!s->present || s->count == 0)
		return;
	if ((ref = malloc(s->count * sizeof(*ref))) == NULL) {
		p->snap->nomem = true;
		return;
	}
	for (i = 0; i < s->count; i++) {
		if (!resolve_value(p, s->offset + i * s->recsize, &ref[i]))
			bad++;
		else if (ref[i].metric >= 0)
			p->f->metrics[ref[i].metric].nvalues++;
	}
	if (bad)
		mmvr_file_log(p->snap, p->f, "%llu value records refer to no metric, "
				"instance or string slot", (unsigned long long)bad);
	fill_values(p, ref, s->count);
	free(ref);
}

static bool label_type_ok(uint32_t flags)
{
	switch (flags & ~(uint32_t)PM_LABEL_OPTIONAL) {
	case PM_LABEL_CLUSTER:
	case PM_LABEL_ITEM:
	case PM_LABEL_INDOM:
	case PM_LABEL_INSTANCES:
		return true;
	default:
		return false;
	}
}

static void parse_labels(parse_t *p)
{
	const section_t *s = &p->sec[MMV_TOC_LABELS];
	uint64_t i;

	if (!s->present || s->count == 0)
		return;
	if (s->count > 255) {
		mmvr_file_log(p->snap, p->f, "%llu labels, over 255: ignored",
				(unsigned long long)s->count);
		return;
	}
	p->f->labels = mmvr_arena_array(&p->f->arena, s->count, sizeof(rlabel_t));
	if (p->f->labels == NULL) {
		p->snap->nomem = true;
		return;
	}
	for (i = 0; i < s->count; i++) {
		uint64_t off = s->offset + i * s->recsize;
		rlabel_t *l = &p->f->labels[p->f->nlabels];
		mmv_disk_label_t r;

		memcpy(&r, p->img->buf + off, sizeof(r));
		l->json = mmvr_image_string(p->snap, p->f, p->img,
				off + offsetof(mmv_disk_label_t, payload),
				MMV_LABELMAX);
		if (l->json == NULL || l->json[0] == '\0' ||
		    !label_type_ok(r.flags)) {
			mmvr_file_log(p->snap, p->f, "label[%llu] refused",
					(unsigned long long)i);
			continue;
		}
		/* libpcp_pmda's parser must get nothing it refuses or misreads */
		if (!sdk_json_label_set_valid(l->json, strlen(l->json))) {
			mmvr_file_log(p->snap, p->f, "label[%llu] refused: not a "
					"label set", (unsigned long long)i);
			continue;
		}
		l->flags = r.flags;
		l->identity = r.identity;
		l->internal = r.internal;
		p->f->nlabels++;
	}
}

int mmvr_model_parse(mmvr_snapshot_t *snap, rfile_t *f, const image_t *img)
{
	parse_t *p = calloc(1, sizeof(*p));
	int sts = 0;

	if (p == NULL)
		return -ENOMEM;
	p->snap = snap;
	p->f = f;
	p->img = img;
	p->v1 = img->version == MMV_VERSION1;
	memset(p->by_serial, 0xff, sizeof(p->by_serial));
	walk_toc(p);
	if (sections_overlap(p)) {
		mmvr_log(snap, LOG_WARNING, f->pub.name, "sections overlap");
		sts = 1;
	} else {
		parse_indoms(p);
		parse_metrics(p);
		parse_values(p);
		parse_labels(p);
	}
	free(p);
	return snap->nomem ? -ENOMEM : sts;
}
