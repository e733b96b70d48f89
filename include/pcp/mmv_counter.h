/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * mmv_counter.h - counters that many threads increment at the cost of one.
 *
 * New API (PCP has no equivalent). An integer value in an MMV file that
 * every worker thread increments (requests served, bytes sent) costs a
 * shared cache line per update with mmv_inc_value or mmv_fast_add_u64:
 * each add waits for the line to come from the core that added last.
 * A counter opened here is updated instead in a slot private to the
 * calling thread (a plain load and store on a line no other thread
 * writes), and a folding thread of the library adds every slot's change
 * into the file's value once an interval (default 10 ms).
 *
 * What readers see. The file keeps its layout and its value; PCP's tools,
 * through our pmdammv or Debian's, read one total, as for any counter.
 * The total lags the updates by at most one interval plus one fold (a
 * fold reads every thread's slot of every counter: about 1 ns a slot).
 * mmv_counter_flush makes it exact at once.
 *
 * No update is lost: a thread's slot is folded when the thread exits
 * (its destructor), when the process exits (the library's destructor),
 * and when the file is stopped (mmv_stats_stop, mmv_stats_free,
 * mmv_stats_reset: counters on it are folded, then detached). After
 * fork(), the parent folds what its threads had added before the fork;
 * the child starts from zero in every slot and adds its own updates to
 * the same file, which both processes share, so the total is the sum of
 * both. A process that ends without its destructors (_exit, a fatal
 * signal) loses what its threads added since the last fold, up to one
 * interval of updates: a child that leaves by _exit flushes first. If a
 * slot or the folding thread cannot be had (no memory, no thread), the
 * update is one atomic add on the file's value, as with mmv_inc, and
 * mmv_counter_fallbacks counts it.
 *
 * Memory: 16 bytes a counter in each thread that has updated any
 * counter (a slot and the folder's mark, on separate lines), plus 64
 * bytes a counter. One folding thread a process, started by the first
 * mmv_counter_open and, in a child after fork, by its first update.
 *
 * Types: MMV_TYPE_U32, I32, U64 and I64. Adds wrap like unsigned C
 * arithmetic; a 32-bit value takes the low 32 bits of each fold. There is
 * no floating-point counter: a fold adds the difference of two rounded
 * sums, so a double's total could differ from the sum of its increments.
 *
 * Threads: every function may be called from any thread. mmv_counter_add
 * and mmv_counter_inc take no lock and make no atomic read-modify-write
 * once the thread has its slot (the first update of a thread, and the
 * first after a counter opened later, take the library's mutex). They
 * are not async-signal-safe: a signal handler that updates the counter
 * its thread was updating may lose one of the two updates; use
 * mmv_fast_add_u64 there. No update may run concurrently with, or after,
 * mmv_counter_close of its counter.
 *
 * man mmv_counter_open (man/man3).
 */
#ifndef PCP_MMV_COUNTER_H
#define PCP_MMV_COUNTER_H

#include <stdint.h>
#include <pcp/mmv_stats.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mmv_counter mmv_counter_t;

/*
 * mmv_counter_open - a contention-free counter on the value @value (from
 * mmv_lookup_value_desc) of the file mapped at @addr, which this process
 * created with this library. Updates are added to what the value holds.
 * Returns the counter, or NULL with errno EINVAL (@addr or @value NULL,
 * not a value record of a file of ours, or not an integer type) or
 * ENOMEM. Updates through a NULL counter do nothing, as mmv_inc_value on
 * a NULL handle does.
 */
extern mmv_counter_t *mmv_counter_open(void *addr, pmAtomValue *value);

/* mmv_counter_add - add @n (for a signed counter, a negative value cast
 * to uint64_t) to @c. */
extern void mmv_counter_add(mmv_counter_t *c, uint64_t n);

/* mmv_counter_inc - add 1 to @c. */
extern void mmv_counter_inc(mmv_counter_t *c);

/*
 * mmv_counter_flush - fold every thread's slot of every counter into the
 * files now. On return the files hold every update that happened before
 * the call (the caller's own, and other threads' that it synchronised
 * with). Blocks for one fold at most.
 */
extern void mmv_counter_flush(void);

/*
 * mmv_counter_close - fold @c's slots into its value and free it. The
 * value keeps its total. @c may be NULL.
 */
extern void mmv_counter_close(mmv_counter_t *c);

/*
 * mmv_counter_set_interval - fold every @msec milliseconds (1 to 60000;
 * default 10): the bound on a reader's lag. Returns 0, or -1 with errno
 * EINVAL.
 */
extern int mmv_counter_set_interval(unsigned int msec);

/*
 * mmv_counter_fallbacks - how many updates were made as a shared atomic
 * add because a slot or the folding thread could not be had. Each was
 * counted in full; they only cost what mmv_inc costs.
 */
extern uint64_t mmv_counter_fallbacks(void);

#ifdef __cplusplus
}
#endif

#endif /* PCP_MMV_COUNTER_H */
