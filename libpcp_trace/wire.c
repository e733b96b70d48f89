/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * PDU encoding, the state word, diagnostics, and the send/decode entry
 * points that agents (pmdatrace) call.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/socket.h>
#include "trace_priv.h"

int __pmstate;

int trace__state(void)
{
	return __atomic_load_n(&__pmstate, __ATOMIC_RELAXED);
}

/*
 * The sender's pid for the "from" field. PCP calls getpid() for every PDU
 * (a system call: glibc no longer caches it); it changes only at fork.
 */
static pid_t cached_pid;

static void forget_pid(void)
{
	cached_pid = 0;
}

__attribute__((constructor)) static void wire_init(void)
{
	pthread_atfork(NULL, NULL, forget_pid);
}

static uint32_t sender_pid(void)
{
	pid_t pid = __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);

	if (pid == 0) {
		pid = getpid();
		__atomic_store_n(&cached_pid, pid, __ATOMIC_RELAXED);
	}
	return (uint32_t)pid;
}

static void put_header(unsigned char *buf, size_t len, int type)
{
	trace_put32(buf + TRACE_OFF_LEN, (uint32_t)len);
	trace_put32(buf + TRACE_OFF_TYPE, (uint32_t)type);
	trace_put32(buf + TRACE_OFF_FROM, sender_pid());
}

/*
 * taglen counts the NUL; buf holds at least TRACE_DATA_MAX bytes. The
 * length is rounded up to a multiple of @align (a power of two:
 * TRACE_DATA_ALIGN as PCP,
 * or TRACE_PCP_ALIGN for async streams to PCP's agent).
 */
size_t trace__encode_data(unsigned char *buf, const char *tag, size_t taglen,
		int type, int sync, double value, size_t align)
{
	size_t len = trace_data_len(taglen, align);

	put_header(buf, len, TRACE_WIRE_DATA);
	buf[TRACE_OFF_VERSION] = TRACE_PDU_VERSION;
	buf[TRACE_OFF_TAGLEN] = (unsigned char)taglen;
	buf[TRACE_OFF_TAGTYPE] = (unsigned char)type;
	buf[TRACE_OFF_FLAGS] = sync ? TRACE_SYNC_FLAG : 0;
	trace_put_double(buf + TRACE_OFF_VALUE, value);
	memcpy(buf + TRACE_OFF_TAG, tag, taglen - 1);
	buf[TRACE_OFF_TAG + taglen - 1] = '\0';
	memset(buf + TRACE_OFF_TAG + taglen, TRACE_PAD_BYTE, len - TRACE_OFF_TAG - taglen);
	return len;
}

void trace__encode_ack(unsigned char *buf, int value)
{
	trace_put_ack(buf, value, sender_pid());
}

/* errno values meaning "the peer or the path is gone" */
int trace__is_lost_errno(int err)
{
	switch (err) {
	case ECONNRESET: case EPIPE: case ETIMEDOUT: case ENETDOWN:
	case ENETUNREACH: case EHOSTDOWN: case EHOSTUNREACH: case ECONNREFUSED:
		return 1;
	}
	return 0;
}

void trace__debug(int bit, const char *fmt, ...)
{
	va_list ap;

	if (!(trace__state() & bit))
		return;
	va_start(ap, fmt);
	flockfile(stderr);
	fputs("libpcp_trace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	funlockfile(stderr);
	va_end(ap);
}

void trace__dump_pdu(const char *what, const unsigned char *buf, size_t len)
{
	size_t i;

	if (!(trace__state() & PMTRACE_STATE_PDU))
		return;
	flockfile(stderr);
	fprintf(stderr, "libpcp_trace: %s PDU, %zu bytes:", what, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 4 ? "" : " ", buf[i]);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/* MSG_NOSIGNAL instead of touching the process's SIGPIPE disposition. */
ssize_t trace__send_nosig(int fd, const void *buf, size_t len, int flags)
{
	ssize_t n = send(fd, buf, len, flags | MSG_NOSIGNAL);

	if (n < 0 && errno == ENOTSOCK)
		n = write(fd, buf, len);
	return n;
}

static int write_all(int fd, const unsigned char *buf, size_t len)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = trace__send_nosig(fd, buf + done, len - done, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		done += (size_t)n;
	}
	trace__dump_pdu("sent", buf, len);
	return (int)len;
}

int __pmtracexmitPDU(int fd, __pmTracePDU *pdu)
{
	__pmTracePDUHdr *hdr = (__pmTracePDUHdr *)pdu;
	unsigned char buf[TRACE_PCP_PDU_MAX];
	int len = hdr->len;

	if (len < TRACE_PDU_MIN || len > TRACE_PCP_PDU_MAX)
		return -EINVAL;
	memcpy(buf, pdu, (size_t)len);
	put_header(buf, (size_t)len, hdr->type);
	return write_all(fd, buf, (size_t)len);
}

int __pmtracesendack(int fd, int value)
{
	unsigned char buf[TRACE_ACK_LEN];

	if (trace__state() & PMTRACE_STATE_NOAGENT) {
		trace__debug(PMTRACE_STATE_COMMS, "sending ack (skipped)");
		return 0;
	}
	trace__encode_ack(buf, value);
	return write_all(fd, buf, sizeof(buf));
}

int __pmtracesenddata(int fd, char *tag, int taglen, int type, double value)
{
	/* up to TRACE_DATA_MAX: longer than PCP's readers take (see trace_wire.h) */
	unsigned char buf[TRACE_DATA_MAX];
	size_t len;
	int sync;

	if (tag == NULL || taglen < 1 || taglen > TRACE_TAGLEN_MAX ||
	    type < TRACE_FIRST_TYPE || type > TRACE_LAST_TYPE)
		return -EINVAL;
	if (trace__state() & PMTRACE_STATE_NOAGENT) {
		trace__debug(PMTRACE_STATE_COMMS, "sending data (skipped)");
		return 0;
	}
	sync = __pmtraceprotocol(TRACE_PROTOCOL_QUERY) == TRACE_PROTOCOL_SYNC;
	len = trace__encode_data(buf, tag, (size_t)taglen, type, sync, value,
			TRACE_DATA_ALIGN);
	return write_all(fd, buf, len);
}

int __pmtracedecodeack(__pmTracePDU *pdu, int *value)
{
	const __pmTracePDUHdr *hdr = (const __pmTracePDUHdr *)pdu;

	if (hdr->len != TRACE_ACK_LEN)
		return PMTRACE_ERR_IPC;
	*value = (int)trace_get32((const unsigned char *)pdu + TRACE_OFF_ACK_VALUE);
	return 0;
}

/*
 * The header is in host order (from __pmtracegetPDU), the body as
 * received. Tags are limited to what PCP's agent takes.
 */
int __pmtracedecodedata(__pmTracePDU *pdu, char **tag, int *taglen,
		int *type, int *proto, double *value)
{
	const __pmTracePDUHdr *hdr = (const __pmTracePDUHdr *)pdu;
	const unsigned char *p = (const unsigned char *)pdu;
	uint32_t word = trace_get32(p + TRACE_OFF_VERSION);
	struct trace_data d;
	enum trace_data_verdict v;
	char *copy;

	if (hdr->len < 0)
		return PMTRACE_ERR_IPC;
	v = sdk_trace_data_decode(p, (size_t)hdr->len, TRACE_PCP_TAG_MAX + 1, &d);
	if (v == TRACE_DATA_SHORT)
		return PMTRACE_ERR_IPC;
	/* the control word is converted in place, as PCP's library does */
	pdu[TRACE_OFF_VERSION / sizeof(*pdu)] = word;
	if (v == TRACE_DATA_VERSION)
		return PMTRACE_ERR_VERSION;
	if (v != TRACE_DATA_OK)
		return PMTRACE_ERR_IPC;
	/* the whole tag field, NUL or not, as PCP copies it */
	copy = malloc(d.wire_taglen + 1);
	if (copy == NULL)
		return -ENOMEM;
	memcpy(copy, d.tag, d.wire_taglen);
	copy[d.wire_taglen] = '\0';
	*tag = copy;
	*taglen = (int)d.wire_taglen;
	*type = d.type;
	*proto = d.sync;
	*value = d.value;
	return 0;
}
