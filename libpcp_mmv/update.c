/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Value updates through a value handle. Every read-modify-write is one
 * relaxed atomic operation (a locked add for integers, a compare-and-swap
 * loop for floating point), so concurrent threads and processes lose no
 * updates; PCP's library does a plain load, add and store.
 *
 * Conversions from double reproduce what PCP's x86-64 build computes, out
 * of range included (docs/mmv-format.md §10.4), without the undefined behaviour of a C
 * cast: a file updated by the same calls holds the same bytes.
 */
#include <math.h>
#include <string.h>
#include <time.h>

#include "clock_usec.h"
#include "mmv_priv.h"

/*
 * cvttsd2si: NaN and out-of-range give the "integer indefinite" value.
 * On x86-64 the instruction itself (through its intrinsic, which unlike a
 * C cast is defined for every input); elsewhere the same result in C.
 */
#ifdef __x86_64__
#include <emmintrin.h>

static inline int64_t d_to_i64(double x)
{
	return _mm_cvttsd_si64(_mm_set_sd(x));
}

static inline int32_t d_to_i32(double x)
{
	return _mm_cvttsd_si32(_mm_set_sd(x));
}
#else
static int64_t d_to_i64(double x)
{
	if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
		return INT64_MIN;
	return (int64_t)x;
}

static int32_t d_to_i32(double x)
{
	if (!(x > -2147483649.0 && x < 2147483648.0))
		return INT32_MIN;
	return (int32_t)x;
}
#endif

static uint64_t d_to_u64(double x)
{
	if (x >= 9223372036854775808.0)
		return (uint64_t)d_to_i64(x - 9223372036854775808.0) ^ (1ULL << 63);
	return (uint64_t)d_to_i64(x);
}

static uint32_t d_to_u32(double x)
{
	return (uint32_t)(uint64_t)d_to_i64(x);
}

/* Round to nearest as cvtsd2ss does; past FLT_MAX's half ulp is infinity. */
static float d_to_f(double x)
{
	if (isfinite(x) && fabs(x) >= 0x1.ffffffp127)
		return x > 0 ? INFINITY : -INFINITY;
	return (float)x;
}

static inline mmv_disk_value_t *record(pmAtomValue *av)
{
	return (mmv_disk_value_t *)av;
}

/*
 * The metric's type: from the mapping's private table when this process
 * created the file (no load from the record's cache line, which other
 * threads may be writing); otherwise through the value record as PCP does.
 */
static inline int value_type(const void *addr, const pmAtomValue *av)
{
	const char *base = addr;
	int t = mmv__record_type(addr, av);
	uint64_t m;

	if (t >= 0)
		return t;
	m = ((const mmv_disk_value_t *)av)->metric;

	if (((const mmv_disk_header_t *)addr)->version == MMV_VERSION1)
		return ((const mmv_disk_metric_t *)(base + m))->type;
	return ((const mmv_disk_metric2_t *)(base + m))->type;
}

static void add_float(float *p, float x)
{
	float old, nv;

	__atomic_load(p, &old, __ATOMIC_RELAXED);
	do {
		nv = old + x;
	} while (!__atomic_compare_exchange(p, &old, &nv, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
}

static void add_double(double *p, double x)
{
	double old, nv;

	__atomic_load(p, &old, __ATOMIC_RELAXED);
	do {
		nv = old + x;
	} while (!__atomic_compare_exchange(p, &old, &nv, 1, __ATOMIC_RELAXED,
					    __ATOMIC_RELAXED));
}

/*
 * ELAPSED: extra holds minus the start time while an interval is open.
 * A negative amount opens one; a non-negative one closes it, adding the
 * amount plus the (negative) start, as PCP does: with no interval open the
 * amount itself is added, so applications may add durations directly.
 * An open interval belongs to one thread (there is one per value, as in
 * PCP), so extra needs no locked instruction; the total is added
 * atomically because other threads may add to it at the same time.
 */
static void elapsed_add(mmv_disk_value_t *v, int64_t amount)
{
	int64_t start;

	if (amount < 0) {
		__atomic_store_n(&v->extra, amount, __ATOMIC_RELAXED);
		return;
	}
	start = __atomic_load_n(&v->extra, __ATOMIC_RELAXED);
	if (start != 0)
		__atomic_store_n(&v->extra, 0, __ATOMIC_RELAXED);
	__atomic_fetch_add(&v->value.ll, start + amount, __ATOMIC_RELAXED);
}

static void inc_value(void *addr, pmAtomValue *av, double inc)
{
	switch (value_type(addr, av)) {
	case MMV_TYPE_I32:
		__atomic_fetch_add(&av->l, d_to_i32(inc), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_U32:
		__atomic_fetch_add(&av->ul, d_to_u32(inc), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_I64:
		__atomic_fetch_add((uint64_t *)&av->ll, (uint64_t)d_to_i64(inc), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_U64:
		__atomic_fetch_add(&av->ull, d_to_u64(inc), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_FLOAT:
		add_float(&av->f, d_to_f(inc));
		break;
	case MMV_TYPE_DOUBLE:
		add_double(&av->d, inc);
		break;
	case MMV_TYPE_ELAPSED:
		/* PCP tests the double's sign: -0.5 stores extra = 0 */
		if (inc < 0)
			__atomic_store_n(&record(av)->extra, d_to_i64(inc), __ATOMIC_RELAXED);
		else
			elapsed_add(record(av), d_to_i64(inc));
		break;
	default:
		break;
	}
}

void mmv_inc_value(void *addr, pmAtomValue *av, double inc)
{
	if (addr != NULL && av != NULL)
		inc_value(addr, av, inc);
}

/*
 * The elapsed pair (mmv_stats_interval_start/end) on its own path: one
 * type check and one clock read per call and no call through the PLT,
 * which pays for the locked add PCP does not do. Other types get what
 * mmv_inc_value does with the (negative) time, as in PCP.
 */
void mmv__interval_begin(void *addr, pmAtomValue *av)
{
	int64_t now = clock_usec(CLOCK_REALTIME);

	if (value_type(addr, av) == MMV_TYPE_ELAPSED)
		__atomic_store_n(&record(av)->extra, -now, __ATOMIC_RELAXED);
	else
		inc_value(addr, av, (double)-now);
}

/* PCP adds the absolute time when no interval is open; ours adds nothing. */
void mmv__interval_finish(void *addr, pmAtomValue *av)
{
	mmv_disk_value_t *v = record(av);

	if (value_type(addr, av) != MMV_TYPE_ELAPSED) {
		inc_value(addr, av, (double)clock_usec(CLOCK_REALTIME));
		return;
	}
	if (__atomic_load_n(&v->extra, __ATOMIC_RELAXED) != 0)
		elapsed_add(v, clock_usec(CLOCK_REALTIME));
}

void mmv_inc_atomvalue(void *addr, pmAtomValue *av, pmAtomValue *inc)
{
	if (addr == NULL || av == NULL || inc == NULL)
		return;
	switch (value_type(addr, av)) {
	case MMV_TYPE_I32:
	case MMV_TYPE_U32:
		__atomic_fetch_add(&av->ul, inc->ul, __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_I64:
	case MMV_TYPE_U64:
		__atomic_fetch_add(&av->ull, inc->ull, __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_FLOAT:
		add_float(&av->f, inc->f);
		break;
	case MMV_TYPE_DOUBLE:
		add_double(&av->d, inc->d);
		break;
	case MMV_TYPE_ELAPSED:
		elapsed_add(record(av), inc->ll);
		break;
	default:
		break;
	}
}

void mmv_add(void *addr, pmAtomValue *av, void *inc)
{
	mmv_inc_atomvalue(addr, av, (pmAtomValue *)inc);
}

void mmv_inc(void *addr, pmAtomValue *av)
{
	mmv_disk_value_t *v;

	if (addr == NULL || av == NULL)
		return;
	switch (value_type(addr, av)) {
	case MMV_TYPE_I32:
	case MMV_TYPE_U32:
		__atomic_fetch_add(&av->ul, 1, __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_I64:
	case MMV_TYPE_U64:
		__atomic_fetch_add(&av->ull, 1, __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_FLOAT:
		add_float(&av->f, 1.0f);
		break;
	case MMV_TYPE_DOUBLE:
		add_double(&av->d, 1.0);
		break;
	case MMV_TYPE_ELAPSED:
		/* PCP tests the sign of the total, not of the start (docs/mmv-format.md §4.5) */
		v = record(av);
		if (__atomic_load_n(&v->value.ll, __ATOMIC_RELAXED) < 0) {
			__atomic_fetch_add(&v->extra, 1, __ATOMIC_RELAXED);
		} else {
			int64_t start = __atomic_exchange_n(&v->extra, 0, __ATOMIC_RELAXED);

			__atomic_fetch_add(&v->value.ll, start + 1, __ATOMIC_RELAXED);
		}
		break;
	default:
		break;
	}
}

void mmv_set_value(void *addr, pmAtomValue *av, double value)
{
	if (addr == NULL || av == NULL)
		return;
	switch (value_type(addr, av)) {
	case MMV_TYPE_I32:
		__atomic_store_n(&av->l, d_to_i32(value), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_U32:
		__atomic_store_n(&av->ul, d_to_u32(value), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_I64:
		__atomic_store_n(&av->ll, d_to_i64(value), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_U64:
		__atomic_store_n(&av->ull, d_to_u64(value), __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_FLOAT: {
		float f = d_to_f(value);

		__atomic_store(&av->f, &f, __ATOMIC_RELAXED);
		break;
	}
	case MMV_TYPE_DOUBLE:
		__atomic_store(&av->d, &value, __ATOMIC_RELAXED);
		break;
	case MMV_TYPE_ELAPSED:
		__atomic_store_n(&av->ll, d_to_i64(value), __ATOMIC_RELAXED);
		__atomic_store_n(&record(av)->extra, 0, __ATOMIC_RELAXED);
		break;
	default:
		break;
	}
}

void mmv_set_atomvalue(void *addr, pmAtomValue *av, pmAtomValue *value)
{
	int type;

	if (addr == NULL || av == NULL || value == NULL)
		return;
	type = value_type(addr, av);
	if (type == MMV_TYPE_STRING) {
		if (value->cp != NULL)
			mmv_set_string(addr, av, value->cp, (int)strnlen(value->cp, MMV_STRINGMAX));
		return;
	}
	if (type == MMV_TYPE_ELAPSED)
		__atomic_store_n(&record(av)->extra, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&av->ull, value->ull, __ATOMIC_RELAXED);
}

void mmv_set(void *addr, pmAtomValue *av, void *value)
{
	mmv_set_atomvalue(addr, av, (pmAtomValue *)value);
}

/* Byte stores the other side may read concurrently. */
static inline void put_byte(char *p, char c)
{
	__atomic_store_n(p, c, __ATOMIC_RELAXED);
}

/*
 * Strings are written so that a concurrent reader always finds a NUL in
 * the slot and never an empty string mid-update (PCP zeroes the slot
 * first). A longer string is laid down behind the old terminator, then the
 * old terminator is replaced last; a shorter one is terminated first, then
 * the old tail is cleared.
 */
void mmv_set_string(void *addr, pmAtomValue *av, const char *string, int len)
{
	mmv_disk_value_t *v = record(av);
	size_t n, old;
	char *slot;

	if (addr == NULL || av == NULL || string == NULL || len < 0 ||
	    value_type(addr, av) != MMV_TYPE_STRING)
		return;
	n = strnlen(string, (size_t)len);
	if (n > MMV_STRINGMAX - 1)
		n = MMV_STRINGMAX - 1;
	slot = (char *)addr + v->extra;
	old = strnlen(slot, MMV_STRINGMAX - 1);

	if (n > old) {
		for (size_t i = old + 1; i < n; i++)
			put_byte(&slot[i], string[i]);
		put_byte(&slot[n], '\0');
		for (size_t i = 0; i < old; i++)
			put_byte(&slot[i], string[i]);
		__atomic_thread_fence(__ATOMIC_RELEASE);
		put_byte(&slot[old], string[old]);
	} else {
		put_byte(&slot[n], '\0');
		__atomic_thread_fence(__ATOMIC_RELEASE);
		for (size_t i = 0; i < n; i++)
			put_byte(&slot[i], string[i]);
		for (size_t i = n + 1; i <= old; i++)
			put_byte(&slot[i], '\0');
	}
	/* PCP 6 records the caller's length; nothing reads it */
	__atomic_store_n(&av->l, len < MMV_STRINGMAX - 1 ? len : (int32_t)n, __ATOMIC_RELAXED);
}

