/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading PDUs for agents (__pmtracegetPDU and friends) and PCP's PDU
 * buffer pool. Input is buffered per descriptor, so several PDUs that
 * arrive in one read are handed out one by one, and a PDU split across
 * reads (even inside its header) is reassembled.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "trace_priv.h"

/* The rest of a started PDU must come within this many milliseconds. */
#define PARTIAL_WAIT_MS	2000

struct fd_input {
	size_t have;
	unsigned char buf[2 * TRACE_PDU_CHUNK];
	__pmTracePDU pdu[(TRACE_PCP_PDU_MAX + 3) / 4];
};

static pthread_mutex_t input_lock = PTHREAD_MUTEX_INITIALIZER;	/* inputs, ninputs */
static struct fd_input **inputs;
static int ninputs;

static struct fd_input *input_for(int fd, int create)
{
	struct fd_input *in = NULL;

	if (fd < 0)
		return NULL;
	pthread_mutex_lock(&input_lock);
	if (fd >= ninputs && create) {
		int n = fd + 16;
		struct fd_input **grown = realloc(inputs, (size_t)n * sizeof(*grown));

		if (grown != NULL) {
			memset(grown + ninputs, 0, (size_t)(n - ninputs) * sizeof(*grown));
			inputs = grown;
			ninputs = n;
		}
	}
	if (fd < ninputs) {
		if (inputs[fd] == NULL && create) {
			inputs[fd] = calloc(1, sizeof(**inputs));
			trace__debug(PMTRACE_STATE_PDUBUF, "input buffer for fd=%d", fd);
		}
		in = inputs[fd];
	}
	pthread_mutex_unlock(&input_lock);
	return in;
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* poll() for input; 1 readable, 0 timed out, -errno */
static int wait_readable(int fd, long ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int rc;

	do
		rc = poll(&p, 1, ms > INT32_MAX ? -1 : (int)ms);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : rc;
}

/* 0 incomplete, > 0 PDU length ready, < 0 bad length */
static int pdu_ready(const struct fd_input *in)
{
	int len;

	if (in->have < TRACE_HDR_LEN)
		return 0;
	len = (int)trace_get32(in->buf + TRACE_OFF_LEN);
	if (len < TRACE_PDU_MIN || len > TRACE_PCP_PDU_MAX)
		return -1;
	return (size_t)len <= in->have ? len : 0;
}

static int hand_out(struct fd_input *in, int len, __pmTracePDU **result)
{
	__pmTracePDUHdr *hdr = (__pmTracePDUHdr *)in->pdu;

	trace__dump_pdu("received", in->buf, (size_t)len);
	memcpy(in->pdu, in->buf, (size_t)len);
	hdr->len = len;
	hdr->type = (int)trace_get32(in->buf + TRACE_OFF_TYPE);
	hdr->from = (int)trace_get32(in->buf + TRACE_OFF_FROM);
	in->have -= (size_t)len;
	memmove(in->buf, in->buf + len, in->have);
	*result = in->pdu;
	return hdr->type;
}

static long first_wait_ms(int timeout)
{
	if (timeout == TRACE_TIMEOUT_NEVER)
		return -1;
	if (timeout < 0)
		return (long)(trace__env_reqtimeout() * 1000.0);
	return timeout * 1000L;
}

/* one read into the buffer: > 0 bytes, 0 EOF/lost, < 0 error code */
static int fill(int fd, struct fd_input *in)
{
	ssize_t n;

	for (;;) {
		n = read(fd, in->buf + in->have, sizeof(in->buf) - in->have);
		if (n >= 0 || errno != EINTR)
			break;
	}
	if (n > 0) {
		in->have += (size_t)n;
		return (int)n;
	}
	if (n == 0 || trace__is_lost_errno(errno))
		return 0;
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return -EAGAIN;
	fprintf(stderr, "__pmtracegetPDU: fd=%d read: %s\n", fd, strerror(errno));
	return PMTRACE_ERR_IPC;
}

int __pmtracegetPDU(int fd, int timeout, __pmTracePDU **result)
{
	struct fd_input *in = input_for(fd, 1);
	long deadline = -1, wait;
	int len, rc;

	if (in == NULL)
		return fd < 0 ? PMTRACE_ERR_IPC : -ENOMEM;
	for (;;) {
		len = pdu_ready(in);
		if (len < 0) {
			fprintf(stderr, "__pmtracegetPDU: fd=%d illegal len=%d\n",
				fd, (int)trace_get32(in->buf));
			in->have = 0;
			return PMTRACE_ERR_IPC;
		}
		if (len > 0)
			return hand_out(in, len, result);
		if (in->have == 0) {
			wait = first_wait_ms(timeout);
		} else {
			/* bounded, so one slow client cannot stall its agent */
			if (deadline < 0)
				deadline = now_ms() + PARTIAL_WAIT_MS;
			wait = deadline - now_ms();
			if (wait < 0)
				wait = 0;
		}
		rc = wait_readable(fd, wait);
		if (rc == 0 && in->have == 0)
			return PMTRACE_ERR_TIMEOUT;
		if (rc == 0) {
			fprintf(stderr, "__pmtracegetPDU: fd=%d incomplete PDU\n", fd);
			in->have = 0;
			return PMTRACE_ERR_IPC;
		}
		rc = fill(fd, in);
		if (rc == 0) {
			in->have = 0;
			return 0;
		}
		if (rc < 0 && rc != -EAGAIN) {
			in->have = 0;
			return rc;
		}
	}
}

int __pmtracemoreinput(int fd)
{
	struct fd_input *in = input_for(fd, 0);

	return in != NULL && pdu_ready(in) != 0;
}

void __pmtracenomoreinput(int fd)
{
	struct fd_input *in = input_for(fd, 0);

	if (in != NULL)
		in->have = 0;
}

/* PCP's buffer pool: pinned buffers, found again by any inner address. */
struct pdu_buf {
	struct pdu_buf *next;
	size_t size;
	int pins;
	__pmTracePDU *mem;
};

static pthread_mutex_t buf_lock = PTHREAD_MUTEX_INITIALIZER;	/* bufs and their pins */
static struct pdu_buf *bufs;

__pmTracePDU *__pmtracefindPDUbuf(int need)
{
	struct pdu_buf *b;
	size_t size;

	if (need < 0)
		need = 0;
	size = ((size_t)need / TRACE_PDU_CHUNK + 1) * TRACE_PDU_CHUNK;
	b = malloc(sizeof(*b));
	if (b == NULL)
		return NULL;
	b->mem = malloc(size);
	if (b->mem == NULL) {
		free(b);
		return NULL;
	}
	b->size = size;
	b->pins = 1;
	pthread_mutex_lock(&buf_lock);
	b->next = bufs;
	bufs = b;
	pthread_mutex_unlock(&buf_lock);
	trace__debug(PMTRACE_STATE_PDUBUF, "buffer %p, %zu bytes", (void *)b->mem, size);
	return b->mem;
}

static struct pdu_buf **find_buf(void *addr)
{
	struct pdu_buf **pp;
	uintptr_t a = (uintptr_t)addr;

	for (pp = &bufs; *pp != NULL; pp = &(*pp)->next) {
		uintptr_t base = (uintptr_t)(*pp)->mem;

		if (a >= base && a < base + (*pp)->size)
			return pp;
	}
	return NULL;
}

void __pmtracepinPDUbuf(void *addr)
{
	struct pdu_buf **pp;

	pthread_mutex_lock(&buf_lock);
	pp = find_buf(addr);
	if (pp != NULL)
		(*pp)->pins++;
	pthread_mutex_unlock(&buf_lock);
}

int __pmtraceunpinPDUbuf(void *addr)
{
	struct pdu_buf **pp, *b = NULL;

	pthread_mutex_lock(&buf_lock);
	pp = find_buf(addr);
	if (pp != NULL && --(*pp)->pins == 0) {
		b = *pp;
		*pp = b->next;
	}
	pthread_mutex_unlock(&buf_lock);
	if (b != NULL) {
		trace__debug(PMTRACE_STATE_PDUBUF, "free buffer %p", (void *)b->mem);
		free(b->mem);
		free(b);
	}
	return pp != NULL;
}
