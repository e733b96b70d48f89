/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * heap_bytes.h - the bytes the process has allocated now, for the memory
 * tests of the trace aggregation (tests/unit/pmda_trace/): ASan's own
 * count when built with it (its allocator replaces glibc's, whose
 * mallinfo2 then reads zero), else glibc's mallinfo2 (blocks in use and
 * mmapped ones, with their headers).
 */
#ifndef HEAP_BYTES_H
#define HEAP_BYTES_H

#include <malloc.h>
#include <stddef.h>

#ifdef __SANITIZE_ADDRESS__
size_t __sanitizer_get_current_allocated_bytes(void);
#endif

static inline size_t heap_bytes(void)
{
#ifdef __SANITIZE_ADDRESS__
	return __sanitizer_get_current_allocated_bytes();
#else
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks + mi.hblkhd;
#endif
}

#endif
