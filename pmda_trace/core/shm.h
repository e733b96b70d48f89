/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's reader of a client's shared aggregate segment
 * (common/trace_shm.h, docs/trace-protocol.md §10.5, §10.6). The segment is
 * hostile: its size is checked against fstat and its seals (no
 * F_SEAL_SHRINK: refused), every index and count read from it is bounded
 * by the geometry the agent accepted, a slot is read under its sequence
 * counter (torn reads retried), numbers that go backwards are ignored,
 * and anything the agent cannot make sense of (a bad tag entry, a count
 * beyond belief) makes tra_shm_collect fail, after which the caller drops
 * the segment with one log line. Used by one thread at a time.
 */
#ifndef TRACE_SHM_READER_H
#define TRACE_SHM_READER_H

#include <stddef.h>
#include <stdint.h>

#include "agg.h"
#include "trace_shm.h"

struct tra_shm;

/*
 * tra_shm_open - map the segment in @fd (kept: closed by tra_shm_close)
 * of @tags x @rows, as the client's registration said. Returns the
 * reader, or NULL with a reason in @why (@whylen bytes); @fd is then
 * the caller's to close.
 */
struct tra_shm *tra_shm_open(int fd, uint32_t tags, uint32_t rows, char *why,
		size_t whylen);

/*
 * The callback that accounts one batch: tra_agg_merge_in's arguments and
 * result (-ENOSPC marks the tag refused in the segment).
 */
typedef int (*tra_shm_emit_fn)(void *arg, uint64_t seq, int type, const char *tag,
		size_t len, const struct trace_batch *b);

/*
 * tra_shm_collect - take what the client reported since the last call
 * and give it to @emit, one batch per (thread row, tag) that moved,
 * accounted in the sub-interval the client's min and max belong to;
 * then publish @seq_now (the current sub-interval, tra_agg_seq) as the
 * epoch. @final: the writer is gone (a slot left mid-update is read as
 * it is). Returns the number of batches, or -1 with a reason in @why:
 * the segment cannot be trusted any more.
 */
int tra_shm_collect(struct tra_shm *s, uint64_t seq_now, int final,
		tra_shm_emit_fn emit, void *arg, char *why, size_t whylen);

/* tra_shm_close - unmap, close the descriptor, free. NULL is ignored. */
void tra_shm_close(struct tra_shm *s);

#endif
