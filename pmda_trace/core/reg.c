/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Registration messages on the agent's side: see reg.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "reg.h"
#include "trace_reg.pb-c.h"

int tra_reg_decode(const uint8_t *buf, size_t len, struct tra_reg *out, char *why,
		size_t whylen)
{
	Tra__TraceShmRegister *m;
	const char *bad = NULL;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (len == 0 || len > TRACE_REG_MAX) {
		snprintf(why, whylen, "registration of %zu bytes", len);
		return -EINVAL;
	}
	if ((m = tra__trace_shm_register__unpack(NULL, len, buf)) == NULL) {
		snprintf(why, whylen, "registration does not decode");
		return -EINVAL;
	}
	if (m->version < 1)
		bad = "registration version 0";
	else if (m->layout != TRACE_SHM_VERSION)
		bad = "segment layout version not known";
	else if (trace_shm_size(m->tags, m->rows) == 0)
		bad = "segment geometry outside the limits";
	else if (m->size != trace_shm_size(m->tags, m->rows))
		bad = "segment size does not match its geometry";
	else if (m->tcp_port == 0 || m->tcp_port > 65535)
		bad = "bad TCP port";
	if (bad != NULL) {
		snprintf(why, whylen, "%s", bad);
		tra__trace_shm_register__free_unpacked(m, NULL);
		return -EINVAL;
	}
	out->version = m->version;
	out->tags = m->tags;
	out->rows = m->rows;
	out->size = m->size;
	out->tcp_port = (uint16_t)m->tcp_port;
	/* only printable bytes reach the log */
	for (const char *p = m->program; p != NULL && *p && n + 1 < sizeof(out->program); p++)
		out->program[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
	out->program[n] = '\0';
	tra__trace_shm_register__free_unpacked(m, NULL);
	return 0;
}

size_t tra_reg_reply(uint8_t *buf, int32_t status, const char *reason)
{
	Tra__TraceShmReply m = TRA__TRACE_SHM_REPLY__INIT;

	m.status = status;
	m.reason = (char *)reason;
	if (tra__trace_shm_reply__get_packed_size(&m) > TRACE_REG_MAX)
		m.reason = NULL;
	return tra__trace_shm_reply__pack(&m, buf);
}
