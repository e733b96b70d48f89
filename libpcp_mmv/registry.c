/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The registry API: describe a file piece by piece, then start it.
 * Unlike PCP's, the registry copies every string it is given, so callers
 * may free or reuse theirs at once. Each add checks its own arguments;
 * repeated metrics, indoms and instances are kept and written as PCP
 * writes them (the agents drop the repeats).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"
#include "pcp_compat.h"

struct mmv_registry {
	struct mmv_def def;	/* every string in it is owned */
	size_t metrics_cap, indoms_cap, labels_cap;
	void *addr;		/* the mapping once started */
	int labelled;		/* a label was ever added: v3, even after reset */
	int start_err;		/* PCP refuses to start after this failed add */
};

/* Grow *arr (of *cap elements of size sz) to hold n + 1. */
static int grow(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 8;
	if ((p = realloc(*arr, ncap * sz)) == NULL)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int fail(int err)
{
	errno = err;
	return -1;
}

/*
 * A failed add that PCP would only have refused at mmv_stats_start (bad
 * serial, type, name or help lengths): fail now, and make start fail too
 * with PCP's errno, so a program that ignores add results (as PCP 6's
 * always-failing mmv_stats_add_instance teaches) loses no definition
 * silently.
 */
static int fail_at_start(mmv_registry_t *reg, int err, int start_err)
{
	mmv__registry_fail_start(reg, start_err);
	return fail(err);
}

/* strdup that keeps NULL (absent help) apart from "" (an empty slot). */
static int dup_opt(const char *s, const char **out)
{
	*out = NULL;
	if (s != NULL && (*out = strdup(s)) == NULL)
		return -1;
	return 0;
}

mmv_registry_t *mmv_stats_registry(const char *file, int cluster,
		mmv_stats_flags_t flags)
{
	mmv_registry_t *reg;

	if (file == NULL || file[0] == '\0' || cluster < 0 ||
	    cluster > MMV_CLUSTER_MAX) {
		errno = EINVAL;
		return NULL;
	}
	if ((reg = calloc(1, sizeof(*reg))) == NULL)
		return NULL;
	if ((reg->def.file = strdup(file)) == NULL) {
		free(reg);
		return NULL;
	}
	reg->def.cluster = cluster;
	reg->def.flags = flags;
	return reg;
}

/* Common guard of every add call. */
static int check_reg(const mmv_registry_t *reg)
{
	if (reg == NULL)
		return EFAULT;
	if (reg->addr != NULL)
		return EBUSY;
	return 0;
}

int mmv__registry_check(const mmv_registry_t *reg)
{
	return check_reg(reg);
}

struct mmv_def *mmv__registry_def(mmv_registry_t *reg)
{
	return &reg->def;
}

void mmv__registry_fail_start(mmv_registry_t *reg, int err)
{
	if (reg->start_err == 0)
		reg->start_err = err;
}

int mmv_stats_add_indom(mmv_registry_t *reg, int serial, const char *shorthelp,
		const char *longhelp)
{
	struct mmv_def_indom d = { .serial = (uint32_t)serial };
	int err;

	if ((err = check_reg(reg)) != 0)
		return fail(err);
	d.shorttext = shorthelp;
	d.helptext = longhelp;
	if ((err = mmv__check_indom(&d, 0)) != 0)
		return err == ESRCH ? fail_at_start(reg, EINVAL, ESRCH) :
		       err == E2BIG ? fail_at_start(reg, E2BIG, E2BIG) : fail(err);
	if (grow((void **)&reg->def.indoms, &reg->indoms_cap, reg->def.nindoms,
		 sizeof(d)) < 0 || dup_opt(shorthelp, &d.shorttext) < 0)
		return fail(ENOMEM);
	if (dup_opt(longhelp, &d.helptext) < 0) {
		free((char *)d.shorttext);
		return fail(ENOMEM);
	}
	reg->def.indoms[reg->def.nindoms++] = d;
	return 0;
}

int mmv_stats_add_instance(mmv_registry_t *reg, int serial, int instid,
		const char *name)
{
	struct mmv_def_indom *d;
	struct mmv_def_instance in;
	int err;

	if ((err = check_reg(reg)) != 0)
		return fail(err);
	if (mmv__find_indom(&reg->def, (uint32_t)serial) == NULL)
		return fail(EINVAL);
	if ((err = mmv__check_instance(name, name ? strlen(name) : 0, 0)) != 0)
		return fail_at_start(reg, err, err);
	in.id = instid;
	in.name_len = strlen(name);
	/*
	 * A serial declared twice: as the PCP built against writes it, so the
	 * file is that PCP's byte for byte (the agents serve the first
	 * declaration either way): PCP 6 adds the instance to every indom of
	 * the serial, PCP 7 to the first only.
	 */
	for (size_t i = 0; i < reg->def.nindoms; i++) {
		d = &reg->def.indoms[i];
		if (d->serial != (uint32_t)serial)
			continue;
		if (grow((void **)&d->instances, &d->cap, d->ninstances,
			 sizeof(in)) < 0 || (in.name = strdup(name)) == NULL)
			return fail(ENOMEM);
		d->instances[d->ninstances++] = in;
#ifdef SDK_PCP7
		break;
#endif
	}
	return 0;
}

int mmv_stats_add_metric(mmv_registry_t *reg, const char *name, int item,
		mmv_metric_type_t type, mmv_metric_sem_t sem, pmUnits units,
		int serial, const char *shorthelp, const char *longhelp)
{
	struct mmv_def_metric m = {
		.name = name, .name_len = name ? strlen(name) : 0,
		.item = (uint32_t)item, .type = type, .semantics = sem,
		.units = units, .indom = (uint32_t)serial,
	};
	int err;

	if ((err = check_reg(reg)) != 0)
		return fail(err);
	if ((err = mmv__check_metric(&m)) != 0) {
		/* PCP checks the type range and the name's length at start */
		if (!mmv_type_in_pcp_range(m.type) ||
		    m.name_len == 0 || m.name_len > MMV_NAME_MAX_V2)
			return fail_at_start(reg, err, err);
		return fail(err);
	}
	if (grow((void **)&reg->def.metrics, &reg->metrics_cap, reg->def.nmetrics,
		 sizeof(m)) < 0 || (m.name = strdup(name)) == NULL)
		return fail(ENOMEM);
	if (dup_opt(shorthelp, &m.shorttext) < 0 || dup_opt(longhelp, &m.helptext) < 0) {
		free((char *)m.name);
		free((char *)m.shorttext);
		return fail(ENOMEM);
	}
	reg->def.metrics[reg->def.nmetrics++] = m;
	return 0;
}

/* Two labels clash when they say the same name about the same subject. */
static int label_clash(const mmv_disk_label_t *a, const mmv_disk_label_t *b)
{
	const char *na = a->payload + 2, *nb = b->payload + 2;
	size_t la = strcspn(na, "\""), lb = strcspn(nb, "\"");

	return (a->flags & ~PM_LABEL_OPTIONAL) == (b->flags & ~PM_LABEL_OPTIONAL) &&
	       a->identity == b->identity && a->internal == b->internal &&
	       la == lb && memcmp(na, nb, la) == 0;
}

static int add_label(mmv_registry_t *reg, uint32_t flags, uint32_t identity,
		int32_t internal, const char *name, const char *value,
		mmv_value_type_t type, int optional)
{
	mmv_disk_label_t l;
	int err;

	if ((err = check_reg(reg)) != 0)
		return fail(err);
	if ((err = mmv__label_make(&l, flags, identity, internal, name, value,
				  type, optional)) != 0)
		return fail(err);
	for (size_t i = 0; i < reg->def.nlabels; i++)
		if (label_clash(&reg->def.labels[i], &l))
			return fail(EEXIST);
	if (grow((void **)&reg->def.labels, &reg->labels_cap, reg->def.nlabels,
		 sizeof(l)) < 0)
		return fail(ENOMEM);
	reg->def.labels[reg->def.nlabels++] = l;
	reg->labelled = 1;
	return 0;
}

int mmv_stats_add_registry_label(mmv_registry_t *reg, const char *name,
		const char *value, mmv_value_type_t type, int optional)
{
	return add_label(reg, PM_LABEL_CLUSTER, reg ? (uint32_t)reg->def.cluster : 0,
			 PM_IN_NULL, name, value, type, optional);
}

int mmv_stats_add_indom_label(mmv_registry_t *reg, int serial, const char *name,
		const char *value, mmv_value_type_t type, int optional)
{
	return add_label(reg, PM_LABEL_INDOM, (uint32_t)serial, PM_IN_NULL,
			 name, value, type, optional);
}

int mmv_stats_add_metric_label(mmv_registry_t *reg, int item, const char *name,
		const char *value, mmv_value_type_t type, int optional)
{
	return add_label(reg, PM_LABEL_ITEM, (uint32_t)item, PM_IN_NULL,
			 name, value, type, optional);
}

int mmv_stats_add_instance_label(mmv_registry_t *reg, int serial, int instid,
		const char *name, const char *value, mmv_value_type_t type,
		int optional)
{
	return add_label(reg, PM_LABEL_INSTANCES, (uint32_t)serial, instid,
			 name, value, type, optional);
}

void *mmv_stats_start(mmv_registry_t *reg)
{
	int err;

	if (reg == NULL) {
		errno = EFAULT;
		return NULL;
	}
	if (reg->addr != NULL) {
		errno = EBUSY;
		return NULL;
	}
	if ((err = reg->start_err) != 0 || (err = mmv__check_def(&reg->def, 0)) != 0 ||
	    (err = mmv__hist_check(&reg->def)) != 0) {
		errno = err;
		return NULL;
	}
	/* docs/mmv-format.md §3.2: PCP keeps version 3 across mmv_stats_reset */
	reg->addr = mmv__create(&reg->def, reg->labelled ? MMV_VERSION3 :
			       mmv__choose_version(&reg->def));
	return reg->addr;
}

static void free_definitions(struct mmv_def *def)
{
	for (size_t i = 0; i < def->nmetrics; i++) {
		free((char *)def->metrics[i].name);
		free((char *)def->metrics[i].shorttext);
		free((char *)def->metrics[i].helptext);
	}
	for (size_t i = 0; i < def->nindoms; i++) {
		struct mmv_def_indom *d = &def->indoms[i];

		for (size_t k = 0; k < d->ninstances; k++)
			free((char *)d->instances[k].name);
		free(d->instances);
		free((char *)d->shorttext);
		free((char *)d->helptext);
	}
	mmv__hist_defs_free(def);
	free(def->metrics);
	free(def->indoms);
	free(def->labels);
	def->metrics = NULL;
	def->indoms = NULL;
	def->labels = NULL;
	def->nmetrics = def->nindoms = def->nlabels = 0;
}

void mmv_stats_reset(mmv_registry_t *reg)
{
	if (reg == NULL)
		return;
	free_definitions(&reg->def);
	reg->metrics_cap = reg->indoms_cap = reg->labels_cap = 0;
	reg->start_err = 0;
	mmv_stats_stop(reg->def.file, reg->addr);
	reg->addr = NULL;
}

void mmv_stats_free(mmv_registry_t *reg)
{
	if (reg == NULL)
		return;
	mmv_stats_reset(reg);
	free((char *)reg->def.file);
	free(reg);
}
