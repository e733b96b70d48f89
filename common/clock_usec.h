/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * clock_usec.h - a clock in whole microseconds. ELAPSED values
 * (docs/mmv-format.md §4.5) are CLOCK_REALTIME microseconds on both sides: the writer
 * stores minus the start, the agent adds "now" to show an open interval,
 * so libpcp_mmv and pmda_mmv must read the same clock the same way.
 */
#ifndef COMMON_CLOCK_USEC_H
#define COMMON_CLOCK_USEC_H

#include <stdint.h>
#include <time.h>

static inline int64_t clock_usec(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif
