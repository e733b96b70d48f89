/*
 * The process's one connection to the agent, shared by all threads.
 *
 * Sync mode: the lock is held for the whole send-and-acknowledge round
 * trip, because ACKs carry nothing but the tag type and so can only be
 * matched by order. Async mode: callers append their PDU to a queue under
 * the lock and return; a flusher thread, woken by the first PDU into an
 * empty queue, lingers briefly to gather more and sends the batch with the
 * lock released (so no thread waits on the network behind the lock, PDUs
 * are never interleaved, and a burst costs one send, not one per event).
 * A caller that finds the queue past FLUSH_INLINE_AT sends it itself.
 * Connecting is done unlocked too, while other callers queue.
 *
 * After a failed attempt the next one waits for the PCP_TRACE_RECONNECT
 * back-off, for every kind of call, so an unreachable agent costs at most
 * one connect per interval instead of one per call.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include "trace_priv.h"
#include "conn_priv.h"

#define QUEUE_MAX	65536
#define CONN_PENDING	1	/* async: another thread is connecting */
#define CONN_NOAGENT	2	/* PCP_TRACE_NOAGENT seen: talk to nobody */
#define EXIT_FLUSH_MS	1000
#define FLUSH_LINGER_NS	200000	/* an async event waits at most this long */
#define FLUSH_INLINE_AT	16384	/* callers send a queue this full themselves */

struct conn {
	pthread_mutex_t lock;
	int fd;			/* -1 while not connected */
	int proto;		/* TRACE_PROTOCOL_SYNC or _ASYNC */
	int frozen;		/* protocol fixed by a successful connection */
	int ever;		/* some connection has succeeded */
	int last_err;		/* result of the last failed attempt */
	int failures;		/* consecutive failed attempts */
	long gate_ms;		/* no new attempt before this (monotonic) */
	int connecting;
	int flushing;
	int flusher;		/* the flusher thread runs in this process */
	int flusher_err;	/* a loss the flusher saw, for the next caller */
	pthread_cond_t wake;	/* queue became non-empty */
	int stale_acks;		/* ACKs owed for requests that timed out */
	size_t ack_have;
	unsigned char ack[4 * TRACE_ACK_LEN];
	size_t qlen;
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

static void drop_conn(struct conn *c)
{
	trace_debug(PMTRACE_STATE_COMMS, "connection fd=%d lost", c->fd);
	close(c->fd);
	c->fd = -1;
	c->ack_have = 0;
	c->stale_acks = 0;
	c->qlen = 0;
	/* the first reconnection may be tried at once */
	c->failures = 0;
	c->gate_ms = 0;
}

static void attempt_failed(struct conn *c, int err)
{
	int wait = trace_env_backoff(c->failures++);

	c->last_err = err;
	c->gate_ms = trace_now_ms() + wait * 1000L;
	c->qlen = 0;
	trace_debug(PMTRACE_STATE_COMMS, "next attempt in %d s", wait);
}

/* lock held; 0 connected, CONN_PENDING, CONN_NOAGENT, or an error */
static int conn_ensure(struct conn *c)
{
	int async, fd = -1, rc;

	if (c->fd >= 0)
		return 0;
	if (c->connecting)
		return CONN_PENDING;
	if (c->gate_ms != 0 && trace_now_ms() < c->gate_ms)
		return c->last_err;
	if (trace_env_noagent()) {
		__atomic_or_fetch(&__pmstate, PMTRACE_STATE_NOAGENT, __ATOMIC_RELAXED);
		return CONN_NOAGENT;
	}
	c->connecting = 1;
	async = c->proto == TRACE_PROTOCOL_ASYNC;
	if (async)
		pthread_mutex_unlock(&c->lock);
	rc = trace_open_agent(&fd);
	if (async)
		pthread_mutex_lock(&c->lock);
	c->connecting = 0;
	if (rc < 0) {
		attempt_failed(c, rc);
		return rc;
	}
	c->fd = fd;
	c->ever = 1;
	c->frozen = 1;
	c->failures = 0;
	c->gate_ms = 0;
	c->ack_have = 0;
	c->stale_acks = 0;
	return 0;
}

/* Blocking-style send on the non-blocking socket, bounded by ms. */
static int send_timed(int fd, const unsigned char *buf, size_t len, long ms)
{
	long deadline = trace_now_ms() + ms;
	size_t done = 0;
	ssize_t n;
	int rc;

	while (done < len) {
		n = trace_send_nosig(fd, buf + done, len - done, MSG_DONTWAIT);
		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		rc = trace_poll(fd, POLLOUT, deadline - trace_now_ms() < 0 ?
				0 : deadline - trace_now_ms());
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

	if (c->ack_have < TRACE_ACK_LEN)
		return 0;
	if (trace_get32(a) != TRACE_ACK_LEN || trace_get32(a + 4) != TRACE_PDU_ACK)
		return PMTRACE_ERR_IPC;
	trace_dump_pdu("received", a, TRACE_ACK_LEN);
	*value = (int)trace_get32(a + 12);
	c->ack_have -= TRACE_ACK_LEN;
	memmove(c->ack, c->ack + TRACE_ACK_LEN, c->ack_have);
	return 1;
}

/* lock held; the ACK for a DATA PDU of tag type "type" */
static int wait_ack(struct conn *c, int type)
{
	long deadline = trace_now_ms() + trace_seconds_ms(trace_env_reqtimeout());
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
		rc = trace_poll(c->fd, POLLIN, deadline - trace_now_ms() < 0 ?
				0 : deadline - trace_now_ms());
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
	trace_dump_pdu("sent", buf, len);
	rc = send_timed(c->fd, buf, len, trace_seconds_ms(trace_env_reqtimeout()));
	if (rc < 0) {
		drop_conn(c);	/* a partial PDU may be on the wire */
		return lost_result(c, rc);
	}
	return wait_ack(c, type);
}

/* lock held; send the queue with the lock released */
static int flush_queue(struct conn *c)
{
	size_t len;
	ssize_t n;
	int fd, err;

	c->flushing = 1;
	while (c->qlen > 0 && c->fd >= 0) {
		/* others only append beyond len while we send unlocked */
		fd = c->fd;
		len = c->qlen;
		pthread_mutex_unlock(&c->lock);
		n = trace_send_nosig(fd, c->queue, len, MSG_DONTWAIT);
		err = errno;
		pthread_mutex_lock(&c->lock);
		if (n > 0) {
			c->qlen -= (size_t)n;
			memmove(c->queue, c->queue + n, c->qlen);
			continue;
		}
		if (n < 0 && err == EINTR)
			continue;
		if (n < 0 && (err == EAGAIN || err == EWOULDBLOCK)) {
			trace_debug(PMTRACE_STATE_PDUBUF, "queue full, %zu bytes wait", c->qlen);
			break;	/* kernel buffer full: the next call retries */
		}
		drop_conn(c);
		c->flushing = 0;
		return lost_result(c, n < 0 ? -err : PMTRACE_ERR_IPC);
	}
	c->flushing = 0;
	return 0;
}

static void pause_ns(long ns)
{
	struct timespec ts = { 0, ns };

	nanosleep(&ts, NULL);
}

/* The flusher: sleeps until there is something to send, then sends it. */
static void *flusher_main(void *arg)
{
	struct conn *c = arg;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (c->qlen == 0 || c->fd < 0)
			pthread_cond_wait(&c->wake, &c->lock);
		pthread_mutex_unlock(&c->lock);
		pause_ns(FLUSH_LINGER_NS);	/* let a burst gather */
		pthread_mutex_lock(&c->lock);
		if (c->flushing || c->qlen == 0 || c->fd < 0)
			continue;
		c->flusher_err = flush_queue(c);	/* reported by the next call */
		if (c->qlen > 0 && c->fd >= 0) {
			pthread_mutex_unlock(&c->lock);
			pause_ns(1000000);	/* kernel buffer full: the agent is behind */
			pthread_mutex_lock(&c->lock);
		}
	}
	return NULL;
}

/* lock held; start the flusher (with every signal blocked) if not running */
static void start_flusher(struct conn *c)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;

	if (c->flusher)
		return;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&t, &attr, flusher_main, c) == 0)
		c->flusher = 1;
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int async_send(struct conn *c, const unsigned char *buf, size_t len)
{
	int rc = c->flusher_err;

	if (rc < 0) {
		/* queued events were lost with the connection: say so once */
		c->flusher_err = 0;
		return rc;
	}
	rc = conn_ensure(c);

	if (rc == CONN_NOAGENT)
		return 0;
	if (rc < 0)
		return lost_result(c, rc);
	if (c->qlen + len > sizeof(c->queue))
		return -EAGAIN;
	trace_dump_pdu("queued", buf, len);
	memcpy(c->queue + c->qlen, buf, len);
	c->qlen += len;
	trace_debug(PMTRACE_STATE_PDUBUF, "queued %zu bytes, %zu pending", len, c->qlen);
	if (rc == CONN_PENDING || c->flushing)
		return (int)len;	/* the connecting or flushing thread sends it */
	if (c->qlen < FLUSH_INLINE_AT) {
		start_flusher(c);
		if (c->flusher) {
			if (c->qlen == len)
				pthread_cond_signal(&c->wake);
			return (int)len;
		}
	}
	rc = flush_queue(c);	/* a full queue, or no flusher thread */
	return rc < 0 ? rc : (int)len;
}

int trace_conn_send(int type, const char *tag, size_t taglen, double value)
{
	unsigned char buf[TRACE_MAX_PDU];
	struct conn *c = &conn;
	size_t len;
	int rc, sync;

	if (trace_state() & PMTRACE_STATE_NOAGENT) {
		trace_debug(PMTRACE_STATE_COMMS, "sending data (skipped)");
		return 0;
	}
	pthread_mutex_lock(&c->lock);
	sync = c->proto == TRACE_PROTOCOL_SYNC;
	len = trace_encode_data(buf, tag, taglen, type, sync, value);
	if (sync)
		rc = sync_send(c, buf, len, type);
	else
		rc = async_send(c, buf, len);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* Make sure a connection exists (pmtracebegin); sends nothing. */
int trace_conn_touch(void)
{
	struct conn *c = &conn;
	int rc;

	if (trace_state() & PMTRACE_STATE_NOAGENT)
		return 0;
	pthread_mutex_lock(&c->lock);
	rc = conn_ensure(c);
	if (rc == CONN_PENDING || rc == CONN_NOAGENT)
		rc = 0;
	else if (rc < 0)
		rc = lost_result(c, rc);
	else if (c->qlen > 0 && !c->flushing)
		rc = flush_queue(c);	/* what others queued while we connected */
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int trace_conn_set_state(int code)
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

/* The child of fork() gets a connection of its own. */
void trace_conn_atfork_child(void)
{
	struct conn *c = &conn;

	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->wake, NULL);
	c->flusher = 0;	/* threads do not survive fork */
	c->flusher_err = 0;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->connecting = 0;
	c->flushing = 0;
	c->qlen = 0;
	c->ack_have = 0;
	c->stale_acks = 0;
	c->failures = 0;
	c->gate_ms = 0;
}

/* Async events still queued at exit are sent if it takes no more than 1 s. */
__attribute__((destructor)) static void conn_fini(void)
{
	struct conn *c = &conn;
	long deadline = trace_now_ms() + EXIT_FLUSH_MS;
	ssize_t n;

	/* wait out a flush in progress (the flusher's), within the deadline */
	for (;;) {
		if (pthread_mutex_trylock(&c->lock) == 0) {
			if (!c->flushing)
				break;
			pthread_mutex_unlock(&c->lock);
		}
		if (trace_now_ms() >= deadline)
			return;
		pause_ns(1000000);
	}
	while (c->fd >= 0 && c->qlen > 0 &&
	       trace_poll(c->fd, POLLOUT, deadline - trace_now_ms() < 0 ?
			0 : deadline - trace_now_ms()) > 0) {
		n = trace_send_nosig(c->fd, c->queue, c->qlen, MSG_DONTWAIT);
		if (n <= 0)
			break;
		c->qlen -= (size_t)n;
		memmove(c->queue, c->queue + n, c->qlen);
	}
	pthread_mutex_unlock(&c->lock);
}
