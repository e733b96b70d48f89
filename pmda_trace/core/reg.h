/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's side of a shared segment's registration
 * (common/trace_reg.proto, docs/trace-protocol.md §10.2): decoding a
 * client's TraceShmRegister, which is hostile input (the fuzz target
 * tests/fuzz/fuzz_trace_reg.c drives this decoder), and encoding the reply.
 */
#ifndef TRACE_REG_H
#define TRACE_REG_H

#include <stddef.h>
#include <stdint.h>

#include "trace_shm.h"

struct tra_reg {
	uint32_t version;	/* the client's schema revision (>= 1) */
	uint32_t tags, rows;	/* the segment's geometry, within the limits */
	uint64_t size;		/* trace_shm_size(tags, rows) */
	uint16_t tcp_port;	/* the client's end of its TCP connection */
	char program[64];	/* printable, maybe empty */
};

/*
 * tra_reg_decode - decode and check the registration in @buf (@len bytes).
 * Returns 0 with *@out filled, or -EINVAL with the reason in @why.
 */
int tra_reg_decode(const uint8_t *buf, size_t len, struct tra_reg *out, char *why,
		size_t whylen);

/*
 * tra_reg_reply - encode the reply (@status 0 or -errno, @reason or NULL)
 * into @buf of TRACE_REG_MAX bytes. Returns its length.
 */
size_t tra_reg_reply(uint8_t *buf, int32_t status, const char *reason);

#endif
