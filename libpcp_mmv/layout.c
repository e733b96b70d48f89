/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The file image: the same bytes PCP's writer produces for the same
 * description (docs/mmv-format.md §2.4), so PCP's readers and byte comparisons agree.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "mmv_priv.h"


/* Value records a metric owns: 1, or its indom's instance count. */
static size_t metric_values(const struct mmv_def *def,
		const struct mmv_def_metric *m)
{
	const struct mmv_def_indom *d;

	if (mmv_indom_is_null(m->indom))
		return 1;
	d = mmv__find_indom(def, m->indom);
	return d ? d->ninstances : 0;
}

int mmv__layout_plan(const struct mmv_def *def, int version,
		struct mmv_layout *lay)
{
	size_t ninst = 0, nv = 0, ns = 0, nstrvals = 0;
	int v1 = version == MMV_VERSION1;

	memset(lay, 0, sizeof(*lay));
	for (size_t i = 0; i < def->nindoms; i++) {
		const struct mmv_def_indom *d = &def->indoms[i];

		ninst += d->ninstances;
		ns += (d->shorttext != NULL) + (d->helptext != NULL);
	}
	for (size_t i = 0; i < def->nmetrics; i++) {
		const struct mmv_def_metric *m = &def->metrics[i];
		size_t n = metric_values(def, m);

		nv += n;
		if (m->type == MMV_TYPE_STRING)
			nstrvals += n;
		ns += (m->shorttext != NULL) + (m->helptext != NULL);
	}
	ns += nstrvals;
	if (!v1)
		ns += ninst + def->nmetrics;

	/* every count is an int32 on disk */
	if (ninst > INT32_MAX || nv > INT32_MAX || ns > INT32_MAX ||
	    def->nmetrics > INT32_MAX || def->nindoms > INT32_MAX ||
	    def->nlabels > INT32_MAX)
		return E2BIG;

	lay->version = version;
	lay->nvalues = nv;
	lay->nstrings = ns;
	lay->inst_size = mmv_record_size(MMV_TOC_INSTANCES, version);
	lay->metric_size = mmv_record_size(MMV_TOC_METRICS, version);
	lay->tocs = MMV_TOC_MIN + (def->nindoms ? 2 : 0) + (ns ? 1 : 0) + (def->nlabels ? 1 : 0);
	lay->off_indoms = MMV_TOC_OFFSET + MMV_TOC_ENTRY_SIZE * (uint64_t)lay->tocs;
	lay->off_instances = lay->off_indoms + sizeof(mmv_disk_indom_t) * (uint64_t)def->nindoms;
	lay->off_metrics = lay->off_instances + lay->inst_size * (uint64_t)ninst;
	lay->off_values = lay->off_metrics + lay->metric_size * (uint64_t)def->nmetrics;
	lay->off_strings = lay->off_values + sizeof(mmv_disk_value_t) * (uint64_t)nv;
	lay->off_labels = lay->off_strings + sizeof(mmv_disk_string_t) * (uint64_t)ns;
	lay->size = lay->off_labels + sizeof(mmv_disk_label_t) * (uint64_t)def->nlabels;
	return 0;
}

/* Hands out string slots in order and fills them. */
struct slot_writer {
	char *base;
	uint64_t next;
};

static uint64_t put_string(struct slot_writer *w, const char *s, size_t len)
{
	uint64_t off = w->next;

	if (len > MMV_STRINGMAX - 1)
		len = MMV_STRINGMAX - 1;	/* help texts: cut as PCP does */
	if (len)
		memcpy(w->base + off, s, len);
	w->next += MMV_STRINGMAX;
	return off;
}

static uint64_t put_text(struct slot_writer *w, const char *s)
{
	return s == NULL ? 0 : put_string(w, s, strnlen(s, MMV_STRINGMAX));
}

static void put_toc(mmv_disk_toc_t *toc, int *n, mmv_toc_type_t type,
		size_t count, uint64_t off)
{
	toc[*n].type = type;
	toc[*n].count = (int32_t)count;
	toc[*n].offset = off;
	(*n)++;
}

static void write_toc(const struct mmv_def *def, const struct mmv_layout *lay,
		char *base)
{
	mmv_disk_toc_t *toc = (mmv_disk_toc_t *)(base + sizeof(mmv_disk_header_t));
	size_t ninst = (lay->off_metrics - lay->off_instances) / lay->inst_size;
	int n = 0;

	if (def->nindoms) {
		put_toc(toc, &n, MMV_TOC_INDOMS, def->nindoms, lay->off_indoms);
		put_toc(toc, &n, MMV_TOC_INSTANCES, ninst, lay->off_instances);
	}
	put_toc(toc, &n, MMV_TOC_METRICS, def->nmetrics, lay->off_metrics);
	put_toc(toc, &n, MMV_TOC_VALUES, lay->nvalues, lay->off_values);
	if (lay->nstrings)
		put_toc(toc, &n, MMV_TOC_STRINGS, lay->nstrings, lay->off_strings);
	if (def->nlabels)
		put_toc(toc, &n, MMV_TOC_LABELS, def->nlabels, lay->off_labels);
}

/* Indoms and their instances; v2 instance names take the first slots. */
static void write_indoms(const struct mmv_def *def, const struct mmv_layout *lay,
		char *base, struct slot_writer *w)
{
	uint64_t inst_off = lay->off_instances;
	int v1 = lay->version == MMV_VERSION1;

	for (size_t i = 0; i < def->nindoms; i++) {
		const struct mmv_def_indom *d = &def->indoms[i];
		uint64_t rec = lay->off_indoms + i * sizeof(mmv_disk_indom_t);
		mmv_disk_indom_t *di = (mmv_disk_indom_t *)(base + rec);

		di->serial = d->serial;
		di->count = (uint32_t)d->ninstances;
		di->offset = inst_off;
		for (size_t k = 0; k < d->ninstances; k++) {
			const struct mmv_def_instance *in = &d->instances[k];

			if (v1) {
				mmv_disk_instance_t *r = (mmv_disk_instance_t *)(base + inst_off);
				size_t n = in->name_len < MMV_NAME_MAX_V1 ? in->name_len : MMV_NAME_MAX_V1;

				r->indom = rec;
				r->internal = in->id;
				memcpy(r->external, in->name, n);
			} else {
				mmv_disk_instance2_t *r = (mmv_disk_instance2_t *)(base + inst_off);

				r->indom = rec;
				r->internal = in->id;
				r->external = put_string(w, in->name, in->name_len);
			}
			inst_off += lay->inst_size;
		}
	}
}

static void write_metric(const struct mmv_def_metric *m, char *rec, int v1,
		struct slot_writer *w)
{
	if (v1) {
		mmv_disk_metric_t *r = (mmv_disk_metric_t *)rec;
		size_t n = m->name_len < MMV_NAME_MAX_V1 ? m->name_len : MMV_NAME_MAX_V1;

		memcpy(r->name, m->name, n);
		r->item = m->item;
		r->type = (mmv_metric_type_t)m->type;
		r->semantics = (mmv_metric_sem_t)m->semantics;
		r->dimension = m->units;
		r->indom = (int32_t)m->indom;
	} else {
		mmv_disk_metric2_t *r = (mmv_disk_metric2_t *)rec;

		r->name = put_string(w, m->name, m->name_len);
		r->item = m->item;
		r->type = (mmv_metric_type_t)m->type;
		r->semantics = (mmv_metric_sem_t)m->semantics;
		r->dimension = m->units;
		r->indom = (int32_t)m->indom;
	}
}

/* Help slots go on the metric or indom record after the names and values. */
static void set_help(char *rec, int v1, uint64_t shorttext, uint64_t helptext)
{
	if (v1) {
		((mmv_disk_metric_t *)rec)->shorttext = shorttext;
		((mmv_disk_metric_t *)rec)->helptext = helptext;
	} else {
		((mmv_disk_metric2_t *)rec)->shorttext = shorttext;
		((mmv_disk_metric2_t *)rec)->helptext = helptext;
	}
}

static void write_values(const struct mmv_def *def, const struct mmv_layout *lay,
		char *base, struct slot_writer *w)
{
	mmv_disk_value_t *v = (mmv_disk_value_t *)(base + lay->off_values);

	for (size_t i = 0; i < def->nmetrics; i++) {
		const struct mmv_def_metric *m = &def->metrics[i];
		uint64_t mrec = lay->off_metrics + i * lay->metric_size;
		const struct mmv_def_indom *d = NULL;
		uint64_t first_inst = 0;
		size_t n = 1;

		if (!mmv_indom_is_null(m->indom)) {
			d = mmv__find_indom(def, m->indom);
			n = d->ninstances;
			first_inst = ((mmv_disk_indom_t *)(base + lay->off_indoms +
					(size_t)(d - def->indoms) * sizeof(mmv_disk_indom_t)))->offset;
		}
		for (size_t k = 0; k < n; k++, v++) {
			v->metric = mrec;
			v->instance = d ? first_inst + k * lay->inst_size : 0;
			if (m->type == MMV_TYPE_STRING)
				v->extra = (int64_t)put_string(w, "", 0);
		}
	}
}

void mmv__layout_write(const struct mmv_def *def, const struct mmv_layout *lay,
		char *base, uint64_t generation)
{
	mmv_disk_header_t *h = (mmv_disk_header_t *)base;
	struct slot_writer w = { base, lay->off_strings };
	int v1 = lay->version == MMV_VERSION1;

	memcpy(h->magic, "MMV", 4);
	h->version = lay->version;
	h->g1 = generation;
	h->g2 = 0;
	h->tocs = lay->tocs;
	h->flags = def->flags;
	h->process = (int32_t)getpid();
	h->cluster = def->cluster;

	write_toc(def, lay, base);
	write_indoms(def, lay, base, &w);
	for (size_t i = 0; i < def->nmetrics; i++)
		write_metric(&def->metrics[i],
			     base + lay->off_metrics + i * lay->metric_size, v1, &w);
	write_values(def, lay, base, &w);
	for (size_t i = 0; i < def->nmetrics; i++) {
		uint64_t s = put_text(&w, def->metrics[i].shorttext);
		uint64_t l = put_text(&w, def->metrics[i].helptext);

		set_help(base + lay->off_metrics + i * lay->metric_size, v1, s, l);
	}
	for (size_t i = 0; i < def->nindoms; i++) {
		mmv_disk_indom_t *di = (mmv_disk_indom_t *)(base + lay->off_indoms +
				i * sizeof(mmv_disk_indom_t));

		di->shorttext = put_text(&w, def->indoms[i].shorttext);
		di->helptext = put_text(&w, def->indoms[i].helptext);
	}
	if (def->nlabels)
		memcpy(base + lay->off_labels, def->labels,
		       def->nlabels * sizeof(mmv_disk_label_t));
}
