/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_values.h - value sets as pmcd hands them to an agent's store, for
 * the agents' unit tests: one string value (PM_VAL_DPTR block).
 * Include after <pcp/pmapi.h>; free the set with free_value_set().
 */
#ifndef SDK_PMDA_VALUES_H
#define SDK_PMDA_VALUES_H

#include <stdlib.h>
#include <string.h>

static inline pmValueSet *string_value_set(pmID id, const char *s)
{
	size_t n = strlen(s) + 1;
	pmValueSet *vs = calloc(1, sizeof(*vs));
	pmValueBlock *b = calloc(1, PM_VAL_HDR_SIZE + n);

	if (vs == NULL || b == NULL)
		abort();
	b->vlen = PM_VAL_HDR_SIZE + n;
	b->vtype = PM_TYPE_STRING;
	memcpy(b->vbuf, s, n);
	vs->pmid = id;
	vs->numval = 1;
	vs->valfmt = PM_VAL_DPTR;
	vs->vlist[0].inst = PM_IN_NULL;
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
