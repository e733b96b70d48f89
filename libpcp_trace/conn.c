/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The process's one connection to the agent, shared by all threads.
 *
 * Sync mode: the lock is held for the whole send-and-acknowledge round
 * trip, because ACKs carry nothing but the tag type and so can only be
 * matched by order.
 *
 * Async mode: the caller gives its PDU to the kernel with one send() and
 * MSG_MORE, under the lock, and returns; so an event whose call returned
 * success is in the kernel and survives exit, _exit and a fatal signal
 * (closing the socket transmits what it holds), as with PCP's library,
 * while the kernel gathers many PDUs into one segment. The kernel is told
 * to transmit once PUSH_BYTES have gathered, and the library's own thread
 * (started on the first async event, every signal blocked) tells it
 * PUSH_DELAY_NS after the first PDU that was not, so a quiet stream is
 * delivered within about that long. Only events reported while another
 * thread connects, and the rest of a PDU the kernel took in part, wait in
 * process memory; a full kernel buffer (the agent is behind) gives -EAGAIN.
 * Events lost with a connection are counted (pmtracelost), said on stderr,
 * and the next call returns PMTRACE_ERR_IPC.
 *
 * Every PUSH_BYTES (PUSH_BYTES_PCP) a PDU is sent with MSG_EOR, which
 * also closes the kernel's buffer: later writes start a new one, so no
 * buffer grows to the size at which the kernel would cut it, and every TCP
 * segment ends on a PDU boundary. To PCP's agent, told apart by the
 * greeting, async PDUs are also padded to a multiple of TRACE_PCP_ALIGN, so
 * its 1,024-byte reads never leave it a fragment shorter than a header
 * (trace_wire.h).
 *
 * After a failed attempt the next one waits for the PCP_TRACE_RECONNECT
 * back-off, for every kind of call, so an unreachable agent costs at most
 * one connect per interval instead of one per call.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <time.h>
#include <unistd.h>
#include "trace_priv.h"
#include "conn_priv.h"
#include "trace_shm.h"
#include <pcp/trace_ext.h>

#define QUEUE_MAX	65536
#define CONN_PENDING	1	/* async: another thread is connecting */
#define CONN_NOAGENT	2	/* PCP_TRACE_NOAGENT seen: talk to nobody */
#define EXIT_FLUSH_MS	1000
#define PUSH_BYTES	16384	/* bytes between two MSG_EOR (transmit, close) */
#define PUSH_BYTES_PCP	4096	/* the same for PCP's agent */
#define PUSH_DELAY_NS	200000	/* the longest a corked PDU waits */

struct conn {
	/* guards every field below; held across a sync round trip (ACKs
	 * match requests by order) and one async send, not while connecting */
	pthread_mutex_t lock;
	int fd;			/* -1 while not connected */
	int proto;		/* TRACE_PROTOCOL_SYNC or _ASYNC */
	int frozen;		/* protocol fixed by a successful connection */
	int ever;		/* some connection has succeeded */
	int agent;		/* PMTRACE_AGENT_* of the connection */
	int last_err;		/* result of the last failed attempt */
	int failures;		/* consecutive failed attempts */
	long gate_ms;		/* no new attempt before this (monotonic) */
	int connecting;
	int flusher;		/* the library's thread runs in this process */
	int push_due;		/* the library's thread is to push what is corked */
	size_t corked;		/* bytes given to the kernel since the last MSG_EOR */
	int loss_err;		/* events were lost: the next call says so */
	unsigned long long lost;	/* events lost after their call succeeded */
	pthread_cond_t wake;	/* the library's thread has work */
	int stale_acks;		/* ACKs owed for requests that timed out */
	size_t ack_have;
	unsigned char ack[4 * TRACE_ACK_LEN];
	size_t qlen;		/* bytes queued */
	size_t qhead_left;	/* bytes left of a PDU the kernel took in part */
	unsigned long qevents;	/* PDUs queued, whole or in part */
	unsigned char queue[QUEUE_MAX];
};

static struct conn conn = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.fd = -1,
	.proto = TRACE_PROTOCOL_SYNC,
};

/* What a caller sees for a connection failure or loss. */
static int lost_result(const struct conn *c, int err)
{
	if (!c->ever)
		return err;	/* never connected: the real error, as PCP */
	return c->proto == TRACE_PROTOCOL_SYNC ? 0 : PMTRACE_ERR_IPC;
}

/* Queued events that will never be sent: counted and reported. */
static void lose_queue(struct conn *c)
{
	if (c->qevents > 0) {
		c->lost += c->qevents;
		c->loss_err = PMTRACE_ERR_IPC;
		fprintf(stderr, "trace warning: %lu event%s lost with the "
			"connection to the agent (%llu in all)\n", c->qevents,
			c->qevents == 1 ? "" : "s", c->lost);
	}
	c->qlen = 0;
	c->qhead_left = 0;
	c->qevents = 0;
}

static void drop_conn(struct conn *c)
{
	trace__debug(PMTRACE_STATE_COMMS, "connection fd=%d lost", c->fd);
	trace__shm_unregister();
	close(c->fd);
	c->fd = -1;
	c->agent = PMTRACE_AGENT_NONE;
	c->ack_have = 0;
	c->stale_acks = 0;
	c->corked = 0;
	lose_queue(c);
	/* the first reconnection may be tried at once */
	c->failures = 0;
	c->gate_ms = 0;
}

static void attempt_failed(struct conn *c, int err)
{
	int wait = trace__env_backoff(c->failures++);

	c->last_err = err;
	c->gate_ms = trace__now_ms() + wait * 1000L;
	lose_queue(c);	/* what others queued while we tried */
	trace__debug(PMTRACE_STATE_COMMS, "next attempt in %d s", wait);
}

/* lock held; 0 connected, CONN_PENDING, CONN_NOAGENT, or an error */
static int conn_ensure(struct conn *c)
{
	int async, fd = -1, greeting = 0, agent_pid = 0, rc;

	if (c->fd >= 0)
		return 0;
	if (c->connecting)
		return CONN_PENDING;
	if (c->gate_ms != 0 && trace__now_ms() < c->gate_ms)
		return c->last_err;
	if (trace__env_noagent()) {
		__atomic_or_fetch(&__pmstate, PMTRACE_STATE_NOAGENT, __ATOMIC_RELAXED);
		return CONN_NOAGENT;
	}
	c->connecting = 1;
	async = c->proto == TRACE_PROTOCOL_ASYNC;
	if (async)
		pthread_mutex_unlock(&c->lock);
	rc = trace__open_agent(&fd, &greeting, &agent_pid);
	if (async)
		pthread_mutex_lock(&c->lock);
	c->connecting = 0;
	if (rc < 0) {
		attempt_failed(c, rc);
		return rc;
	}
	c->fd = fd;
	c->agent = trace_greeting_ext(greeting) >= 0 ?
		PMTRACE_AGENT_SDK : PMTRACE_AGENT_PCP;
	c->ever = 1;
	c->frozen = 1;
	c->failures = 0;
	c->gate_ms = 0;
	c->ack_have = 0;
	c->stale_acks = 0;
	/* our agent on this host takes a shared segment: no PDUs from now on */
	if (trace_greeting_ext(greeting) >= TRACE_SHM_GREETING_EXT)
		trace__shm_register(fd, agent_pid);
	return 0;
}

/* Blocking-style send on the non-blocking socket, bounded by ms. */
static int send_timed(int fd, const unsigned char *buf, size_t len, long ms)
{
	long deadline = trace__now_ms() + ms;
	size_t done = 0;
	ssize_t n;
	int rc;

	while (done < len) {
		n = trace__send_nosig(fd, buf + done, len - done, MSG_DONTWAIT);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = trace__poll(fd, POLLOUT, deadline - trace__now_ms() < 0 ?
				0 : deadline - trace__now_ms());
		if (rc == 0)
			return PMTRACE_ERR_TIMEOUT;
		if (rc < 0)
			return rc;
	}
	return (int)len;
}

/* One ACK from the buffer: 1 taken (*value set), 0 need more, < 0 bad. */
static int take_ack(struct conn *c, int *value)
{
	const unsigned char *a = c->ack;
	int32_t v;

	if (c->ack_have < TRACE_ACK_LEN)
		return 0;
	if (trace_get_ack(a, &v) < 0)
		return PMTRACE_ERR_IPC;
	trace__dump_pdu("received", a, TRACE_ACK_LEN);
	*value = (int)v;
	c->ack_have -= TRACE_ACK_LEN;
	memmove(c->ack, c->ack + TRACE_ACK_LEN, c->ack_have);
	return 1;
}

/* lock held; the ACK for a DATA PDU of tag type "type" */
static int wait_ack(struct conn *c, int type)
{
	long deadline = trace__now_ms() + trace__seconds_ms(trace__env_reqtimeout());
	int value, rc;
	ssize_t n;

	for (;;) {
		rc = take_ack(c, &value);
		if (rc < 0)
			goto lost;
		if (rc > 0 && c->stale_acks > 0) {
			/* answer to a request that already timed out */
			c->stale_acks--;
			continue;
		}
		if (rc > 0 && value == type)
			return 0;
		if (rc > 0 && value < 0)
			return value;	/* the agent's own error code */
		if (rc > 0) {
			rc = PMTRACE_ERR_IPC;	/* out of step: start afresh */
			goto lost;
		}
		rc = trace__poll(c->fd, POLLIN, deadline - trace__now_ms() < 0 ?
				0 : deadline - trace__now_ms());
		if (rc == 0) {
			c->stale_acks++;
			return PMTRACE_ERR_TIMEOUT;
		}
		if (rc < 0)
			goto lost;
		n = recv(c->fd, c->ack + c->ack_have, sizeof(c->ack) - c->ack_have, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : PMTRACE_ERR_IPC;
			goto lost;
		}
		c->ack_have += (size_t)n;
	}
lost:
	drop_conn(c);
	return lost_result(c, rc);
}

static int sync_send(struct conn *c, const unsigned char *buf, size_t len, int type)
{
	int rc = conn_ensure(c);

	if (rc == CONN_NOAGENT)
		return 0;
	if (rc < 0)
		return lost_result(c, rc);
	trace__dump_pdu("sent", buf, len);
	rc = send_timed(c->fd, buf, len, trace__seconds_ms(trace__env_reqtimeout()));
	if (rc < 0) {
		drop_conn(c);	/* a partial PDU may be on the wire */
		return lost_result(c, rc);
	}
	return wait_ack(c, type);
}

/* lock held; account for @n bytes the kernel took from the queue's head */
static void queue_consume(struct conn *c, size_t n)
{
	size_t off = 0;

	while (off < n) {
		size_t take;

		if (c->qhead_left == 0)
			c->qhead_left = trace_get32(c->queue + off);
		take = n - off < c->qhead_left ? n - off : c->qhead_left;
		off += take;
		c->qhead_left -= take;
		if (c->qhead_left == 0)
			c->qevents--;
	}
	c->qlen -= n;
	memmove(c->queue, c->queue + n, c->qlen);
}

/* lock held; append a whole PDU for the connecting thread to send */
static int queue_event(struct conn *c, const unsigned char *buf, size_t len)
{
	if (c->qlen + len > sizeof(c->queue))
		return -EAGAIN;
	trace__dump_pdu("queued", buf, len);
	memcpy(c->queue + c->qlen, buf, len);
	c->qlen += len;
	c->qevents++;
	return (int)len;
}

static void *flusher_main(void *arg);

/* lock held; wake the library's thread, starting it (signals blocked) */
static void wake_flusher(struct conn *c)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;

	if (!c->flusher) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&t, &attr, flusher_main, c) == 0)
			c->flusher = 1;
		pthread_attr_destroy(&attr);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_cond_signal(&c->wake);
}

/*
 * lock held; have the kernel transmit what is corked. Its buffer stays
 * open to later writes (only MSG_EOR closes it), so c->corked keeps
 * counting towards the next MSG_EOR.
 */
static void push(struct conn *c)
{
	int one = 1;

	/* setting TCP_NODELAY (already on) makes the kernel push */
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/*
 * lock held; give one PDU (or the rest of one) to the kernel. Returns the
 * bytes taken (0: no room) or -errno. @more: leave it corked.
 */
static ssize_t send_pdu(struct conn *c, const unsigned char *buf, size_t len,
		int more)
{
	/* a pushed buffer takes no more writes: segments end on PDU boundaries */
	int flags = MSG_DONTWAIT | (more ? MSG_MORE : MSG_EOR);
	ssize_t n;

	do {
		n = trace__send_nosig(c->fd, buf, len, flags);
	} while (n < 0 && errno == EINTR);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n == 0)
		return -EPIPE;
	return n < 0 ? -errno : n;
}

/* lock held; whether the kernel should transmit after @len more bytes */
static int push_now(const struct conn *c, size_t len)
{
	size_t limit = c->agent == PMTRACE_AGENT_SDK ? PUSH_BYTES : PUSH_BYTES_PCP;

	return c->corked + len >= limit;
}

/* lock held; send what the queue holds, PDU by PDU. 0 or a loss. */
static int drain_queue(struct conn *c)
{
	ssize_t n;
	size_t len;

	while (c->qlen > 0) {
		len = c->qhead_left ? c->qhead_left : trace_get32(c->queue);
		n = send_pdu(c, c->queue, len, 1);
		if (n == 0)
			break;	/* no room: the library's thread goes on */
		if (n < 0) {
			drop_conn(c);
			return lost_result(c, (int)n);
		}
		c->corked += (size_t)n;
		queue_consume(c, (size_t)n);
	}
	if ((c->qlen > 0 || c->corked > 0) && !c->push_due) {
		c->push_due = 1;	/* sent corked: the library's thread pushes */
		wake_flusher(c);
	}
	return 0;
}

/* The library's thread: pushes corked PDUs, sends what waits in the queue. */
static void *flusher_main(void *arg)
{
	struct conn *c = arg;
	struct timespec delay = { 0, PUSH_DELAY_NS };
	int fd;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->push_due && (c->qlen == 0 || c->fd < 0))
			pthread_cond_wait(&c->wake, &c->lock);
		pthread_mutex_unlock(&c->lock);
		nanosleep(&delay, NULL);	/* let more gather */
		pthread_mutex_lock(&c->lock);
		c->push_due = 0;
		if (c->fd < 0)
			continue;
		if (c->qlen > 0)
			drain_queue(c);	/* a loss is counted, said by the next call */
		if (c->fd >= 0 && c->corked > 0)
			push(c);
		if (c->fd >= 0 && c->qlen > 0) {
			/* no room: the agent is behind; wait for it outside the lock */
			fd = c->fd;
			pthread_mutex_unlock(&c->lock);
			trace__poll(fd, POLLOUT, 10);
			pthread_mutex_lock(&c->lock);
		}
	}
	return NULL;
}

/* lock held; returns what PCP's library returns: the unpadded PDU length */
static int async_send(struct conn *c, const unsigned char *buf, size_t len,
		int natural)
{
	ssize_t n;
	int rc, more;

	if (c->loss_err < 0) {
		/* events that returned success were lost: say so once */
		rc = c->loss_err;
		c->loss_err = 0;
		return rc;
	}
	rc = conn_ensure(c);
	if (rc == CONN_NOAGENT)
		return 0;
	if (rc < 0)
		return lost_result(c, rc);
	if (rc == CONN_PENDING) {
		rc = queue_event(c, buf, len);	/* the connecting thread sends it */
		return rc < 0 ? rc : natural;
	}
	if (c->qlen > 0) {
		rc = drain_queue(c);	/* what waits goes first */
		if (rc < 0) {
			c->loss_err = 0;	/* this call reports it */
			return rc;
		}
		if (c->qlen > 0)
			return -EAGAIN;	/* the agent is behind */
	}
	trace__dump_pdu("sent", buf, len);
	more = !push_now(c, len);
	n = send_pdu(c, buf, len, more);
	if (n < 0) {
		drop_conn(c);
		return lost_result(c, (int)n);
	}
	if (n == 0)
		return -EAGAIN;
	if ((size_t)n < len) {
		/* the kernel took part: the rest waits for the library's thread */
		memcpy(c->queue, buf + n, len - n);
		c->qlen = len - n;
		c->qhead_left = len - n;
		c->qevents = 1;
	}
	c->corked = more ? c->corked + (size_t)n : 0;
	trace__debug(PMTRACE_STATE_PDUBUF, "sent %zd bytes, %zu corked", n, c->corked);
	if ((more || c->qlen > 0) && !c->push_due) {
		c->push_due = 1;
		wake_flusher(c);
	}
	return natural;
}

int trace__conn_send(int type, const char *tag, size_t taglen, double value)
{
	unsigned char buf[TRACE_PCP_PDU_MAX];	/* API tags: TRACE_PCP_TAG_MAX */
	struct conn *c = &conn;
	size_t len;
	int rc;

	if (trace__state() & PMTRACE_STATE_NOAGENT) {
		trace__debug(PMTRACE_STATE_COMMS, "sending data (skipped)");
		return 0;
	}
	pthread_mutex_lock(&c->lock);
	if (c->proto == TRACE_PROTOCOL_SYNC) {
		len = trace__encode_data(buf, tag, taglen, type, 1, value, TRACE_DATA_ALIGN);
		rc = sync_send(c, buf, len, type);
	} else {
		/* unknown agent (not connected yet): shaped, which suits both */
		len = trace__encode_data(buf, tag, taglen, type, 0, value,
				c->agent == PMTRACE_AGENT_SDK ? TRACE_DATA_ALIGN : TRACE_PCP_ALIGN);
		rc = async_send(c, buf, len, (int)trace_data_len(taglen, TRACE_DATA_ALIGN));
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/*
 * Before a report (api.c chooses its sink): connect, unless connected,
 * another thread is connecting or a loss waits to be said, since the
 * connection may bring a shared segment. TRACE_SINK_SHM: it did;
 * TRACE_SINK_PDU: send the report; else what the call returns (0: no
 * agent, PCP_TRACE_NOAGENT; < 0: the connection failed).
 */
int trace__conn_open(void)
{
	struct conn *c = &conn;
	int rc = TRACE_SINK_PDU;

	pthread_mutex_lock(&c->lock);
	if (c->fd < 0 && !c->connecting && c->loss_err == 0) {
		rc = conn_ensure(c);
		if (rc == 0)
			rc = trace__shm_on() ? TRACE_SINK_SHM : TRACE_SINK_PDU;
		else if (rc == CONN_NOAGENT)
			rc = 0;
		else
			rc = lost_result(c, rc);
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* Make sure a connection exists (pmtracebegin); sends nothing. */
int trace__conn_touch(void)
{
	struct conn *c = &conn;
	int rc;

	if (trace__state() & PMTRACE_STATE_NOAGENT)
		return 0;
	pthread_mutex_lock(&c->lock);
	rc = conn_ensure(c);
	if (rc == CONN_PENDING || rc == CONN_NOAGENT) {
		rc = 0;
	} else if (rc < 0) {
		rc = lost_result(c, rc);
	} else if (c->qlen > 0) {
		rc = drain_queue(c);	/* what others queued while we connected */
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int pmtraceagent(void)
{
	struct conn *c = &conn;
	int agent;

	pthread_mutex_lock(&c->lock);
	agent = c->agent;
	pthread_mutex_unlock(&c->lock);
	return agent;
}

unsigned long long pmtracelost(void)
{
	struct conn *c = &conn;
	unsigned long long lost;

	pthread_mutex_lock(&c->lock);
	lost = c->lost;
	pthread_mutex_unlock(&c->lock);
	return lost;
}

int trace__conn_set_state(int code)
{
	struct conn *c = &conn;
	int prev;

	pthread_mutex_lock(&c->lock);
	if (code & PMTRACE_STATE_ASYNC) {
		if (c->frozen && c->proto == TRACE_PROTOCOL_SYNC) {
			pthread_mutex_unlock(&c->lock);
			return -EINVAL;
		}
		c->proto = TRACE_PROTOCOL_ASYNC;
	}
	prev = __atomic_exchange_n(&__pmstate, code, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&c->lock);
	return prev;
}

int __pmtraceprotocol(int op)
{
	struct conn *c = &conn;
	int proto;

	pthread_mutex_lock(&c->lock);
	if (op == TRACE_PROTOCOL_ASYNC && !c->frozen) {
		c->proto = TRACE_PROTOCOL_ASYNC;
		__atomic_or_fetch(&__pmstate, PMTRACE_STATE_ASYNC, __ATOMIC_RELAXED);
	} else if (op == TRACE_PROTOCOL_FINAL) {
		c->frozen = 1;
	}
	proto = c->proto;
	pthread_mutex_unlock(&c->lock);
	return proto;
}

/* The agent closed the segment's socket: drop the connection with it. */
void trace__conn_shm_lost(int sock)
{
	struct conn *c = &conn;

	pthread_mutex_lock(&c->lock);
	if (trace__shm_lost(sock) && c->fd >= 0)
		drop_conn(c);
	pthread_mutex_unlock(&c->lock);
}

/* The child of fork() gets a connection of its own. */
void trace__conn_atfork_child(void)
{
	struct conn *c = &conn;

	trace__shm_atfork_child();
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	c->flusher = 0;	/* threads do not survive fork */
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->agent = PMTRACE_AGENT_NONE;
	c->connecting = 0;
	c->push_due = 0;
	c->corked = 0;
	c->loss_err = 0;
	c->lost = 0;
	c->qlen = 0;
	c->qhead_left = 0;
	c->qevents = 0;
	c->ack_have = 0;
	c->stale_acks = 0;
	c->failures = 0;
	c->gate_ms = 0;
}

/*
 * At exit, what waits in the queue (the agent was behind) is sent if that
 * takes no more than 1 s, and what is corked is pushed; what is left then
 * is reported as lost. (Closing the socket would push the corked bytes
 * too; this only sends them sooner.)
 */
__attribute__((destructor)) static void conn_fini(void)
{
	struct conn *c = &conn;
	long deadline = trace__now_ms() + EXIT_FLUSH_MS, left;

	/* the lock may be held by a thread that exit() stopped mid-call */
	while (pthread_mutex_trylock(&c->lock) != 0) {
		if (trace__now_ms() >= deadline)
			return;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	while (c->fd >= 0 && c->qlen > 0 && drain_queue(c) == 0 && c->qlen > 0) {
		left = deadline - trace__now_ms();
		if (left <= 0)
			break;
		trace__poll(c->fd, POLLOUT, left < 10 ? left : 10);
	}
	if (c->qlen > 0)
		lose_queue(c);
	if (c->fd >= 0 && c->corked > 0)
		push(c);
	pthread_mutex_unlock(&c->lock);
}
