/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Validation of a file description, shared by every creation path.
 *
 * mmv__check_def makes the checks PCP makes at init and start, and only
 * those, in PCP's order (indoms, then metrics), so the same calls succeed
 * and fail with the same errno and write the same bytes. The registry's
 * add calls check more (item and serial ranges, types and semantics
 * pmdammv cannot serve, names it would not export) through
 * mmv__check_indom and mmv__check_metric. Repeats are not refused: PCP
 * writes them, and both agents drop the same ones.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mmv_priv.h"

int mmv__check_instance(const char *name, size_t len, int v1_api)
{
	if (name == NULL)
		return EINVAL;
	if (v1_api)
		return 0;	/* PCP cuts v1 names to 63 chars */
	if (len == 0)
		return EINVAL;
	if (len > MMV_NAME_MAX_V2)
		return E2BIG;
	return 0;
}

static int check_help(const char *text)
{
	return text != NULL && strlen(text) >= MMV_STRINGMAX ? E2BIG : 0;
}

/* PCP's checks of an indom. */
static int check_indom_pcp(const struct mmv_def_indom *indom, int v1_api)
{
	int err;

	if (mmv_indom_is_null(indom->serial))
		return ESRCH;
	if ((err = check_help(indom->shorttext)) != 0 ||
	    (err = check_help(indom->helptext)) != 0)
		return err;
	for (size_t i = 0; i < indom->ninstances; i++) {
		const struct mmv_def_instance *in = &indom->instances[i];

		if ((err = mmv__check_instance(in->name, in->name_len, v1_api)) != 0)
			return err;
	}
	return 0;
}

int mmv__check_indom(const struct mmv_def_indom *indom, int v1_api)
{
	int err;

	if ((err = check_indom_pcp(indom, v1_api)) != 0)
		return err;
	if (indom->serial > MMV_SERIAL_MAX)
		return EINVAL;
	return 0;
}

/* Only names pmdammv exports: the grammar the reader checks. */
int mmv__check_metric_name(const char *name, size_t len)
{
	if (name == NULL || len == 0)
		return EINVAL;
	if (len > MMV_NAME_MAX_V2)
		return E2BIG;
	return mmv_name_components_valid(name, len) ? 0 : EINVAL;
}

/* PCP's range check, then the name, in PCP's order. */
static int check_metric_pcp(const struct mmv_def_metric *m)
{
	if (!mmv_type_in_pcp_range(m->type) ||
	    m->name == NULL || m->name_len == 0)
		return EINVAL;
	if (m->name_len > MMV_NAME_MAX_V2)
		return E2BIG;
	return 0;
}

int mmv__check_metric(const struct mmv_def_metric *m)
{
	int err;

	if ((err = check_metric_pcp(m)) != 0)
		return err;
	if ((err = mmv__check_metric_name(m->name, m->name_len)) != 0)
		return err;
	if (!mmv_type_known(m->type) || !mmv_sem_known(m->semantics))
		return EINVAL;
	if (m->item > MMV_ITEM_MAX)
		return EINVAL;
	return 0;
}

const struct mmv_def_indom *mmv__find_indom(const struct mmv_def *def,
		uint32_t serial)
{
	for (size_t i = 0; i < def->nindoms; i++)
		if (def->indoms[i].serial == serial)
			return &def->indoms[i];
	return NULL;
}

int mmv__check_def(const struct mmv_def *def, int v1_api)
{
	int err;

	if (def->file == NULL || def->file[0] == '\0')
		return EINVAL;
	for (size_t i = 0; i < def->nindoms; i++)
		if ((err = check_indom_pcp(&def->indoms[i], v1_api)) != 0)
			return err;
	for (size_t i = 0; i < def->nmetrics; i++) {
		const struct mmv_def_metric *m = &def->metrics[i];

		if ((err = check_metric_pcp(m)) != 0)
			return err;
		if (!mmv_indom_is_null(m->indom) &&
		    mmv__find_indom(def, m->indom) == NULL)
			return ESRCH;
	}
	return 0;
}

/* docs/mmv-format.md §3.2: 3 with labels, else 2 when any name needs more than 63 chars. */
int mmv__choose_version(const struct mmv_def *def)
{
	if (def->nlabels > 0)
		return MMV_VERSION3;
	for (size_t i = 0; i < def->nmetrics; i++)
		if (def->metrics[i].name_len > MMV_NAME_MAX_V1)
			return MMV_VERSION2;
	for (size_t i = 0; i < def->nindoms; i++)
		for (size_t k = 0; k < def->indoms[i].ninstances; k++)
			if (def->indoms[i].instances[k].name_len > MMV_NAME_MAX_V1)
				return MMV_VERSION2;
	return MMV_VERSION1;
}
