/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * heap_cost.h - what one heap block counts for in the trace agent's byte
 * budgets (the aggregation's, agg.h; the OpenTelemetry metrics store's,
 * pmda_trace/otel/otel.h): the bytes asked of malloc and
 * TRA_MALLOC_OVERHEAD, glibc's 8-byte size field and its rounding of a
 * chunk to 16 bytes (8 on average).
 */
#ifndef TRACE_HEAP_COST_H
#define TRACE_HEAP_COST_H

#include <stddef.h>

#define TRA_MALLOC_OVERHEAD	16

static inline size_t tra_heap_block(size_t size)
{
	return size + TRA_MALLOC_OVERHEAD;
}

#endif
