/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pcp_compat.h - what differs between the PCP versions the tree builds
 * against (Debian 12's 6.0, Debian 13's 6.3, 7.x upstream and in Debian
 * unstable), decided from the installed headers, never from copies.
 *
 *   PMAPI 4 (PCP 7): pmResult carries a timespec; PMDAs still exchange the
 *   timeval result, named pmdaResult (pmResult_v2); pmParseInterval and
 *   the fetchgroup timestamp take a timespec.
 *   Before (PCP 6): one pmResult with a timeval; no pmdaResult.
 *
 * Code is written with PCP 7's names; this header gives them meaning on
 * PCP 6. Include it after <pcp/pmapi.h> (and <pcp/pmda.h> where used).
 */
#ifndef SDK_PCP_COMPAT_H
#define SDK_PCP_COMPAT_H

#include <sys/time.h>
#include <time.h>
#include <pcp/pmapi.h>

/*
 * SDK_PCP7: the headers are PCP 7's or later (they define PMAPI 4). Where
 * PCP 7 behaves otherwise and a program written for PCP 6 could tell, the
 * tree follows the PCP it is built against, testing this (docs/compatibility.md,
 * "PCP versions").
 */
#ifdef PMAPI_VERSION_4
#define SDK_PCP7 1
#endif

#if defined(PMAPI_VERSION_4) && PMAPI_VERSION >= PMAPI_VERSION_4
#define SDK_PMAPI_TIMESPEC 1
#endif

/*
 * The result a PMDA's fetch callback fills and its store callback reads:
 * PCP 7's <pcp/pmda.h> names it; before PCP 7 it is the one pmResult.
 */
#ifndef SDK_PCP7
#define pmdaResult pmResult
#endif

/* What pmParseInterval and the fetchgroup's timestamp fill in. */
#ifdef SDK_PMAPI_TIMESPEC
typedef struct timespec sdk_pmapi_time_t;
#define sdk_fetchgroup_time	pmExtendFetchGroup_timespec
#define SDK_PMAPI_SUBSEC(t)	((t)->tv_nsec / 1e9)
#else
typedef struct timeval sdk_pmapi_time_t;
#define sdk_fetchgroup_time	pmExtendFetchGroup_timestamp
#define SDK_PMAPI_SUBSEC(t)	((t)->tv_usec / 1e6)
#endif

/* An sdk_pmapi_time_t in seconds. */
static inline double sdk_pmapi_seconds(const sdk_pmapi_time_t *t)
{
	return (double)t->tv_sec + SDK_PMAPI_SUBSEC(t);
}

/*
 * libpcp's (unexported-in-headers) release of the values a PMDA put in a
 * pmdaResult, as pmcd calls it after a DSO fetch; tests and benchmarks
 * standing in for pmcd use it. PCP 7 names the timeval variant _v2.
 */
#ifdef SDK_PMAPI_TIMESPEC
extern void __pmFreeResultValues_v2(pmResult_v2 *);
#define sdk_free_pmda_result_values	__pmFreeResultValues_v2
#else
extern void __pmFreeResultValues(pmResult *);
#define sdk_free_pmda_result_values	__pmFreeResultValues
#endif

#endif
