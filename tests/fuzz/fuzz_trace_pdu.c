/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libFuzzer target for the trace agent's PDU decoding: the input is a
 * client's byte stream, delivered in chunks whose sizes come from the
 * input's first byte, decoded the way the listener does (partial PDUs
 * carried over) and recorded into an aggregation driven by a fake clock,
 * whose every instance is then read back.
 */
#include <stdint.h>
#include <string.h>
#include <urcu.h>

#include "../../pmda_trace/core/agg.h"
#include "../../pmda_trace/core/pdu.h"

static int64_t fake_now;

static int64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static void read_back(void *arg, int inst, const char *name)
{
	struct trace_agg *agg = ((void **)arg)[0];
	int type = *(int *)((void **)arg)[1];
	struct trace_stats s;

	(void)name;
	tra_agg_get(agg, type, inst, &s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int registered;
	unsigned char buf[TRACE_DATA_MAX * 16];
	size_t have = 0, chunk, pos = 1;
	struct trace_agg *agg;

	if (!registered) {
		rcu_register_thread();
		registered = 1;
	}
	if (size < 1)
		return 0;
	chunk = (size_t)data[0] % 64 + 1;
	fake_now = 0;
	agg = tra_agg_new(6, 3, 1000, fake_clock, NULL);
	while (pos < size) {
		size_t n = size - pos < chunk ? size - pos : chunk, off = 0;

		if (n > sizeof(buf) - have)
			n = sizeof(buf) - have;
		memcpy(buf + have, data + pos, n);
		have += n;
		pos += n;
		for (;;) {
			struct trace_data d;
			const char *why;
			size_t used;
			int r = tra_pdu_decode(buf + off, have - off, &d, &used, &why);

			if (r == TRACE_PDU_BAD)
				goto out;	/* the listener drops the client */
			if (r == TRACE_PDU_NEED_MORE)
				break;
			tra_agg_record(agg, d.type, d.tag, d.taglen, d.value);
			off += used;
			fake_now += 700000;	/* rotations happen along the way */
		}
		memmove(buf, buf + off, have - off);
		have -= off;
	}
out:
	for (int type = 1; type <= TRACE_NTYPES; type++) {
		void *arg[2] = { agg, &type };

		tra_agg_instances(agg, type, read_back, arg);
	}
	tra_agg_free(agg);
	return 0;
}
