/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_stats_init and mmv_stats2_init: the array-based creation calls.
 * Both translate the caller's arrays into an mmv_def that borrows the
 * caller's strings for the duration of the call; they differ only in how
 * a metric and an instance are read, which the two accessor sets below
 * capture.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"

/* What both indom structs hold; they differ only in the instance type. */
struct legacy_indom {
	uint32_t serial, count;
	const void *instances;
	const char *shorttext, *helptext;
};

struct legacy_api {
	int v1;
	void (*indom)(struct legacy_indom *out, const void *indoms, int i);
	void (*metric)(struct mmv_def_metric *out, const void *metrics, int i);
	void (*instance)(struct mmv_def_instance *out, const void *instances,
			 uint32_t k);
};

static void indom_v1(struct legacy_indom *out, const void *indoms, int i)
{
	const mmv_indom_t *d = (const mmv_indom_t *)indoms + i;

	*out = (struct legacy_indom){ d->serial, d->count, d->instances,
				      d->shorttext, d->helptext };
}

static void indom_v2(struct legacy_indom *out, const void *indoms, int i)
{
	const mmv_indom2_t *d = (const mmv_indom2_t *)indoms + i;

	*out = (struct legacy_indom){ d->serial, d->count, d->instances,
				      d->shorttext, d->helptext };
}

static void metric_v1(struct mmv_def_metric *out, const void *metrics, int i)
{
	const mmv_metric_t *m = (const mmv_metric_t *)metrics + i;

	out->name = m->name;
	out->name_len = strnlen(m->name, MMV_NAME_MAX_V1);
	out->item = m->item;
	out->type = m->type;
	out->semantics = m->semantics;
	out->units = m->dimension;
	out->indom = m->indom;
	out->shorttext = m->shorttext;
	out->helptext = m->helptext;
}

static void metric_v2(struct mmv_def_metric *out, const void *metrics, int i)
{
	const mmv_metric2_t *m = (const mmv_metric2_t *)metrics + i;

	out->name = m->name;
	out->name_len = m->name ? strlen(m->name) : 0;
	out->item = m->item;
	out->type = m->type;
	out->semantics = m->semantics;
	out->units = m->dimension;
	out->indom = m->indom;
	out->shorttext = m->shorttext;
	out->helptext = m->helptext;
}

static void instance_v1(struct mmv_def_instance *out, const void *instances,
		uint32_t k)
{
	const mmv_instances_t *in = (const mmv_instances_t *)instances + k;

	out->id = in->internal;
	out->name = in->external;
	out->name_len = strnlen(in->external, MMV_NAME_MAX_V1);	/* PCP cuts to 63 */
}

static void instance_v2(struct mmv_def_instance *out, const void *instances,
		uint32_t k)
{
	const mmv_instances2_t *in = (const mmv_instances2_t *)instances + k;

	out->id = in->internal;
	out->name = in->external;
	out->name_len = in->external ? strlen(in->external) : 0;
}

static const struct legacy_api api_v1 = { 1, indom_v1, metric_v1, instance_v1 };
static const struct legacy_api api_v2 = { 0, indom_v2, metric_v2, instance_v2 };

static void *legacy_init(const struct legacy_api *api, const char *name,
		int cluster, mmv_stats_flags_t flags, const void *metrics,
		int nmetrics, const void *indoms, int nindoms)
{
	struct mmv_def def = { .file = name, .cluster = cluster, .flags = flags };
	struct mmv_def_instance *instances = NULL;
	size_t ninst = 0, g = 0;
	void *addr = NULL;
	int err = 0;

	if (nmetrics < 0 || nindoms < 0 || (nmetrics > 0 && metrics == NULL) ||
	    (nindoms > 0 && indoms == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	for (int i = 0; i < nindoms; i++) {
		struct legacy_indom d;

		api->indom(&d, indoms, i);
		if (d.count > 0 && d.instances == NULL) {
			errno = EINVAL;
			return NULL;
		}
		ninst += d.count;
	}
	def.metrics = calloc((size_t)nmetrics + 1, sizeof(*def.metrics));
	def.indoms = calloc((size_t)nindoms + 1, sizeof(*def.indoms));
	instances = calloc(ninst + 1, sizeof(*instances));
	if (def.metrics == NULL || def.indoms == NULL || instances == NULL) {
		err = ENOMEM;
		goto out;
	}
	for (int i = 0; i < nindoms; i++) {
		struct mmv_def_indom *d = &def.indoms[i];
		struct legacy_indom src;

		api->indom(&src, indoms, i);
		d->serial = src.serial;
		d->shorttext = src.shorttext;
		d->helptext = src.helptext;
		d->instances = &instances[g];
		d->ninstances = src.count;
		for (uint32_t k = 0; k < src.count; k++)
			api->instance(&instances[g++], src.instances, k);
	}
	for (int i = 0; i < nmetrics; i++)
		api->metric(&def.metrics[i], metrics, i);
	def.nindoms = (size_t)nindoms;
	def.nmetrics = (size_t)nmetrics;

	if ((err = mmv__check_def(&def, api->v1)) == 0) {
		addr = mmv__create(&def, api->v1 ? MMV_VERSION1 : mmv__choose_version(&def));
		err = addr ? 0 : errno;
	}
out:
	free(def.metrics);
	free(def.indoms);
	free(instances);
	errno = err;
	return addr;
}

void *mmv_stats_init(const char *name, int cluster, mmv_stats_flags_t flags,
		const mmv_metric_t *metrics, int nmetrics,
		const mmv_indom_t *indoms, int nindoms)
{
	return legacy_init(&api_v1, name, cluster, flags, metrics, nmetrics,
			   indoms, nindoms);
}

void *mmv_stats2_init(const char *name, int cluster, mmv_stats_flags_t flags,
		const mmv_metric2_t *metrics, int nmetrics,
		const mmv_indom2_t *indoms, int nindoms)
{
	return legacy_init(&api_v2, name, cluster, flags, metrics, nmetrics,
			   indoms, nindoms);
}
