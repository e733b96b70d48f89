/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * agg_clock.h - the injected clock of the trace aggregation tests
 * (tests/unit/pmda_trace/test_tracepmda_*.c): tra_agg_new(..., fake_clock, NULL),
 * then at(seconds) sets what it reads.
 */
#ifndef AGG_CLOCK_H
#define AGG_CLOCK_H

#include <stdint.h>

static int64_t fake_now;	/* usec */

static inline int64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static inline void at(double seconds)
{
	fake_now = (int64_t)(seconds * 1e6);
}

#endif
