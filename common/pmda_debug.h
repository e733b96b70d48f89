/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pmda_debug.h - the control.debug metric of both agents (mmv.control.debug,
 * trace.control.debug), as the PCP they are built against serves it:
 *
 *   PCP 7: a string, the process's PCP debug options (pmdbg(1)). A store
 *   replaces them (pmSetDebug) and a fetch lists them in PCP's order
 *   (pmGetDebug); a store naming an option PCP does not know clears them
 *   all and fails with PM_ERR_CONV. In a DSO the options are pmcd's.
 *   PCP 6: a 32-bit integer the agent keeps (PCP 6's debug mask).
 *
 * A program written for one cannot store into the other (the type tells),
 * so the agents follow the PCP they are built against. Either way *flag,
 * which the agents read to log their own diagnostics, is non-zero while
 * the integer is (PCP 6) or the appl0 option is set (PCP 7).
 * Threads: callers serialise stores and fetches (one PDU thread); *flag
 * is written with a relaxed atomic store, for other threads to load.
 * Include after <pcp/pmapi.h> and <pcp/pmda.h>.
 */
#ifndef SDK_PMDA_DEBUG_H
#define SDK_PMDA_DEBUG_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pcp_compat.h"

#define SDK_DEBUG_TEXTMAX	1024	/* room for every option of pmdbg -l */

#ifdef SDK_PCP7
#define SDK_DEBUG_TYPE		PM_TYPE_STRING
#define SDK_DEBUG_LOGFMT	"debug options set to %s"

/* Fetch: @atom for the metric's value, its text in @buf. */
static inline int sdk_debug_value(int flag, pmAtomValue *atom, char *buf, size_t len)
{
	char *s = pmGetDebug();

	(void)flag;
	if (s == NULL)
		return -ENOMEM;
	snprintf(buf, len, "%s", s);
	free(s);
	atom->cp = buf;
	return 1;
}

/* The string a store carries, or NULL when @vs holds no one string. */
static inline const char *sdk_debug_string(const pmValueSet *vs)
{
	const pmValueBlock *b;

	if (vs->numval != 1 || vs->valfmt == PM_VAL_INSITU)
		return NULL;
	b = vs->vlist[0].value.pval;
	if (b == NULL || b->vtype != PM_TYPE_STRING || b->vlen <= PM_VAL_HDR_SIZE ||
	    b->vbuf[b->vlen - PM_VAL_HDR_SIZE - 1] != '\0')
		return NULL;
	return b->vbuf;
}

/* Store: 0 or PM_ERR_BADSTORE, PM_ERR_CONV; @what gets the options, for a log. */
static inline int sdk_debug_store(const pmValueSet *vs, int *flag, char *what, size_t len)
{
	const char *s = sdk_debug_string(vs);

	if (s == NULL)
		return PM_ERR_BADSTORE;
	snprintf(what, len, "%s", s);
	pmClearDebug("all");
	if (pmSetDebug(s) < 0) {
		pmClearDebug("all");
		__atomic_store_n(flag, 0, __ATOMIC_RELAXED);
		return PM_ERR_CONV;
	}
	__atomic_store_n(flag, pmDebugOptions.appl0, __ATOMIC_RELAXED);
	return 0;
}
#else
#define SDK_DEBUG_TYPE		PM_TYPE_32
#define SDK_DEBUG_LOGFMT	"debug level set to %s"

static inline int sdk_debug_value(int flag, pmAtomValue *atom, char *buf, size_t len)
{
	(void)buf;
	(void)len;
	atom->l = flag;
	return 1;
}

static inline int sdk_debug_store(const pmValueSet *vs, int *flag, char *what, size_t len)
{
	if (vs->numval != 1 || vs->valfmt != PM_VAL_INSITU)
		return PM_ERR_BADSTORE;
	__atomic_store_n(flag, vs->vlist[0].value.lval, __ATOMIC_RELAXED);
	snprintf(what, len, "%d", vs->vlist[0].value.lval);
	return 0;
}
#endif

#endif
