/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_inline.h - inline fast-path updates for callers that hold a value
 * handle and know the metric's type.
 *
 * New API (PCP has no equivalent). The mmv_inc_value/mmv_set_value family
 * reads the metric's type through the file on every call and converts
 * through double; these functions do neither: an add is one relaxed atomic
 * instruction (lock add / lock xadd on x86-64), a set is one plain store.
 * They must only be used on a handle from mmv_lookup_value_desc whose
 * metric has the type in the function's name; nothing is checked.
 *
 * Each function's @v is the value handle; it must not be NULL. Adds wrap
 * like unsigned C arithmetic. Concurrent adds from any number of threads
 * or processes lose nothing. 32-bit stores leave bytes 4-7 of the value
 * untouched, as mmv_set_value does.
 *
 * A concurrent reader (the agent) sees each value before or after an
 * update, never torn. All accesses are relaxed: updates of different
 * values may become visible in another order than they were made. Where
 * a function says "PCP: x", it does what PCP's x(3) does on that type;
 * the others have no PCP counterpart. man mmv_fast_add_u64 (man/man3).
 */
#ifndef PCP_MMV_INLINE_H
#define PCP_MMV_INLINE_H

#include <stdint.h>
#include <pcp/mmv_stats.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Add @n to an MMV_TYPE_U64 value (PCP: mmv_inc_value on a U64). */
static inline void mmv_fast_add_u64(pmAtomValue *v, uint64_t n)
{
	__atomic_fetch_add(&v->ull, n, __ATOMIC_RELAXED);
}

/* Add 1 to an MMV_TYPE_U64 value (PCP: mmv_inc). */
static inline void mmv_fast_inc_u64(pmAtomValue *v)
{
	__atomic_fetch_add(&v->ull, 1, __ATOMIC_RELAXED);
}

/* Add @n (may be negative) to an MMV_TYPE_I64 value. */
static inline void mmv_fast_add_i64(pmAtomValue *v, int64_t n)
{
	__atomic_fetch_add(&v->ull, (uint64_t)n, __ATOMIC_RELAXED);
}

/* Add @n to an MMV_TYPE_U32 value. */
static inline void mmv_fast_add_u32(pmAtomValue *v, uint32_t n)
{
	__atomic_fetch_add(&v->ul, n, __ATOMIC_RELAXED);
}

/* Add @n (may be negative) to an MMV_TYPE_I32 value. */
static inline void mmv_fast_add_i32(pmAtomValue *v, int32_t n)
{
	__atomic_fetch_add(&v->ul, (uint32_t)n, __ATOMIC_RELAXED);
}

/*
 * Add @x to an MMV_TYPE_DOUBLE value. There is no atomic floating-point
 * add instruction: this is a compare-and-swap loop, one iteration when
 * uncontended.
 */
static inline void mmv_fast_add_double(pmAtomValue *v, double x)
{
	double old, nv;

	__atomic_load(&v->d, &old, __ATOMIC_RELAXED);
	do {
		nv = old + x;
	} while (!__atomic_compare_exchange(&v->d, &old, &nv, 1,
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

/* Store @n in an MMV_TYPE_U64 value (PCP: mmv_set_value on a U64). */
static inline void mmv_fast_set_u64(pmAtomValue *v, uint64_t n)
{
	__atomic_store_n(&v->ull, n, __ATOMIC_RELAXED);
}

/* Store @n in an MMV_TYPE_I64 value. */
static inline void mmv_fast_set_i64(pmAtomValue *v, int64_t n)
{
	__atomic_store_n(&v->ll, n, __ATOMIC_RELAXED);
}

/* Store @n in an MMV_TYPE_U32 value (bytes 0-3 only). */
static inline void mmv_fast_set_u32(pmAtomValue *v, uint32_t n)
{
	__atomic_store_n(&v->ul, n, __ATOMIC_RELAXED);
}

/* Store @n in an MMV_TYPE_I32 value (bytes 0-3 only). */
static inline void mmv_fast_set_i32(pmAtomValue *v, int32_t n)
{
	__atomic_store_n(&v->l, n, __ATOMIC_RELAXED);
}

/*
 * Store @x in an MMV_TYPE_DOUBLE value. An aligned 8-byte store is atomic
 * on every target PCP runs on; volatile keeps it one store, and unlike an
 * __atomic store of a double it needs no trip through an integer register.
 */
static inline void mmv_fast_set_double(pmAtomValue *v, double x)
{
	*(volatile double *)&v->d = x;
}

/* Store @x in an MMV_TYPE_FLOAT value (bytes 0-3 only); see set_double. */
static inline void mmv_fast_set_float(pmAtomValue *v, float x)
{
	*(volatile float *)&v->f = x;
}

#ifdef __cplusplus
}
#endif

#endif /* PCP_MMV_INLINE_H */
