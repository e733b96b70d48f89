/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the trace agent's decoder of a shared segment's
 * registration (pmda_trace/core/reg.c, common/trace_reg.proto): the input
 * is the message as it arrives on the agent's local socket. Whatever it
 * is, the decoder either refuses it with a reason or returns a
 * registration within the limits; the reply encoder's output decodes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../pmda_trace/core/reg.h"
#include "trace_reg.pb-c.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tra_reg reg;
	char why[160] = "";
	uint8_t out[TRACE_REG_MAX];
	Tra__TraceShmReply *r;
	size_t n;

	if (tra_reg_decode(data, size, &reg, why, sizeof(why)) < 0) {
		if (why[0] == '\0')
			abort();	/* a refusal says why */
		n = tra_reg_reply(out, -22, why);
	} else {
		if (trace_shm_size(reg.tags, reg.rows) == 0 ||
		    reg.size != trace_shm_size(reg.tags, reg.rows) || reg.tcp_port == 0 ||
		    strlen(reg.program) >= sizeof(reg.program))
			abort();
		for (const char *p = reg.program; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				abort();
		n = tra_reg_reply(out, 0, NULL);
	}
	if ((r = tra__trace_shm_reply__unpack(NULL, n, out)) == NULL)
		abort();
	tra__trace_shm_reply__free_unpacked(r, NULL);
	return 0;
}
