/*
 * mmv_stats_init and mmv_stats2_init: the array-based creation calls.
 * Both translate the caller's arrays into an mmv_def that borrows the
 * caller's strings for the duration of the call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"

struct borrowed {
	struct mmv_def def;
	struct mmv_def_instance *instances;	/* one block for all indoms */
};

static void borrowed_free(struct borrowed *b)
{
	free(b->def.indoms);
	free(b->def.metrics);
	free(b->instances);
}

static int alloc_arrays(struct borrowed *b, int nmetrics, size_t ninst,
		int nindoms)
{
	b->def.metrics = calloc((size_t)nmetrics + 1, sizeof(*b->def.metrics));
	b->def.indoms = calloc((size_t)nindoms + 1, sizeof(*b->def.indoms));
	b->instances = calloc(ninst + 1, sizeof(*b->instances));
	return b->def.metrics && b->def.indoms && b->instances ? 0 : ENOMEM;
}

static void *create(struct borrowed *b, int v1_api)
{
	int err = mmv_check_def(&b->def, v1_api);
	void *addr = NULL;

	if (err == 0)
		addr = mmv_create(&b->def, v1_api ? MMV_VERSION1 : mmv_choose_version(&b->def));
	else
		errno = err;
	err = errno;
	borrowed_free(b);
	errno = err;
	return addr;
}

static int check_counts(const void *metrics, int nmetrics, const void *indoms,
		int nindoms)
{
	if (nmetrics < 0 || nindoms < 0 || (nmetrics > 0 && metrics == NULL) ||
	    (nindoms > 0 && indoms == NULL))
		return EINVAL;
	return 0;
}

void *mmv_stats_init(const char *name, int cluster, mmv_stats_flags_t flags,
		const mmv_metric_t *metrics, int nmetrics,
		const mmv_indom_t *indoms, int nindoms)
{
	struct borrowed b = { .def = { .file = name, .cluster = cluster, .flags = flags } };
	size_t ninst = 0, g = 0;
	int err;

	if ((err = check_counts(metrics, nmetrics, indoms, nindoms)) != 0) {
		errno = err;
		return NULL;
	}
	for (int i = 0; i < nindoms; i++) {
		if (indoms[i].count > 0 && indoms[i].instances == NULL) {
			errno = EINVAL;
			return NULL;
		}
		ninst += indoms[i].count;
	}
	if ((err = alloc_arrays(&b, nmetrics, ninst, nindoms)) != 0) {
		borrowed_free(&b);
		errno = err;
		return NULL;
	}
	for (int i = 0; i < nindoms; i++) {
		struct mmv_def_indom *d = &b.def.indoms[i];

		d->serial = indoms[i].serial;
		d->shorttext = indoms[i].shorttext;
		d->helptext = indoms[i].helptext;
		d->instances = &b.instances[g];
		d->ninstances = indoms[i].count;
		for (uint32_t k = 0; k < indoms[i].count; k++, g++) {
			const mmv_instances_t *in = &indoms[i].instances[k];

			b.instances[g].id = in->internal;
			b.instances[g].name = in->external;
			b.instances[g].name_len = strnlen(in->external, MMV_NAMEMAX - 1);
		}
	}
	for (int i = 0; i < nmetrics; i++) {
		struct mmv_def_metric *m = &b.def.metrics[i];

		m->name = metrics[i].name;
		m->name_len = strnlen(metrics[i].name, MMV_NAMEMAX - 1);
		m->item = metrics[i].item;
		m->type = metrics[i].type;
		m->semantics = metrics[i].semantics;
		m->units = metrics[i].dimension;
		m->indom = metrics[i].indom;
		m->shorttext = metrics[i].shorttext;
		m->helptext = metrics[i].helptext;
	}
	b.def.nindoms = (size_t)nindoms;
	b.def.nmetrics = (size_t)nmetrics;
	return create(&b, 1);
}

void *mmv_stats2_init(const char *name, int cluster, mmv_stats_flags_t flags,
		const mmv_metric2_t *metrics, int nmetrics,
		const mmv_indom2_t *indoms, int nindoms)
{
	struct borrowed b = { .def = { .file = name, .cluster = cluster, .flags = flags } };
	size_t ninst = 0, g = 0;
	int err;

	if ((err = check_counts(metrics, nmetrics, indoms, nindoms)) != 0) {
		errno = err;
		return NULL;
	}
	for (int i = 0; i < nindoms; i++) {
		if (indoms[i].count > 0 && indoms[i].instances == NULL) {
			errno = EINVAL;
			return NULL;
		}
		ninst += indoms[i].count;
	}
	if ((err = alloc_arrays(&b, nmetrics, ninst, nindoms)) != 0) {
		borrowed_free(&b);
		errno = err;
		return NULL;
	}
	for (int i = 0; i < nindoms; i++) {
		struct mmv_def_indom *d = &b.def.indoms[i];

		d->serial = indoms[i].serial;
		d->shorttext = indoms[i].shorttext;
		d->helptext = indoms[i].helptext;
		d->instances = &b.instances[g];
		d->ninstances = indoms[i].count;
		for (uint32_t k = 0; k < indoms[i].count; k++, g++) {
			const mmv_instances2_t *in = &indoms[i].instances[k];

			b.instances[g].id = in->internal;
			b.instances[g].name = in->external;
			b.instances[g].name_len = in->external ? strlen(in->external) : 0;
		}
	}
	for (int i = 0; i < nmetrics; i++) {
		struct mmv_def_metric *m = &b.def.metrics[i];

		m->name = metrics[i].name;
		m->name_len = metrics[i].name ? strlen(metrics[i].name) : 0;
		m->item = metrics[i].item;
		m->type = metrics[i].type;
		m->semantics = metrics[i].semantics;
		m->units = metrics[i].dimension;
		m->indom = metrics[i].indom;
		m->shorttext = metrics[i].shorttext;
		m->helptext = metrics[i].helptext;
	}
	b.def.nindoms = (size_t)nindoms;
	b.def.nmetrics = (size_t)nmetrics;
	return create(&b, 0);
}
