/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_values.h - value sets as pmcd hands them to an agent's store, for
 * the agents' unit tests: one 32-bit value (PM_VAL_INSITU) or one string
 * (a PM_VAL_DPTR block). Include after <pcp/pmapi.h>; free the set with
 * free_value_set().
 */
#ifndef SDK_PMDA_VALUES_H
#define SDK_PMDA_VALUES_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A set of one value of instance PM_IN_NULL, its value still to fill. */
static inline pmValueSet *one_value_set(pmID id, int valfmt)
{
	pmValueSet *vs = calloc(1, sizeof(*vs));

	if (vs == NULL)
		abort();
	vs->pmid = id;
	vs->numval = 1;
	vs->valfmt = valfmt;
	vs->vlist[0].inst = PM_IN_NULL;
	return vs;
}

static inline pmValueSet *int_value_set(pmID id, int32_t v)
{
	pmValueSet *vs = one_value_set(id, PM_VAL_INSITU);

	vs->vlist[0].value.lval = v;
	return vs;
}

static inline pmValueSet *string_value_set(pmID id, const char *s)
{
	size_t n = strlen(s) + 1;
	pmValueSet *vs = one_value_set(id, PM_VAL_DPTR);
	pmValueBlock *b = calloc(1, PM_VAL_HDR_SIZE + n);

	if (b == NULL)
		abort();
	b->vlen = PM_VAL_HDR_SIZE + n;
	b->vtype = PM_TYPE_STRING;
	memcpy(b->vbuf, s, n);
	vs->vlist[0].value.pval = b;
	return vs;
}

static inline void free_value_set(pmValueSet *vs)
{
	if (vs->valfmt != PM_VAL_INSITU)
		free(vs->vlist[0].value.pval);
	free(vs);
}

#endif
