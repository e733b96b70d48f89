/*
 * The trace agent's I/O thread: see listener.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>
#include <urcu.h>
#include <pcp/trace.h>
#include <pcp/trace_dev.h>

#include "listener.h"
#include "trace_wire.h"
#include "pdu.h"

/* ACKs owed to a client that does not read them pile up; past this the
 * client is dropped rather than growing the agent without bound. */
#define OUT_MAX (64 * 1024)

struct client {
	struct client *next, *prev;
	int fd;
	int access_slot;
	int nospace_logged;
	char peer[INET_ADDRSTRLEN + 8];
	size_t inlen, outlen, outcap;
	unsigned char *out;
	unsigned char in[TRACE_DATA_MAX * 16];
};

struct trace_listener {
	struct trace_listener_cfg cfg;
	int lfd, epfd, wakefd;
	uint16_t port;
	unsigned nclients;	/* atomic for readers on other threads */
	struct client *clients;
	pthread_t thread;
	int32_t pid;
};

static void say(struct trace_listener *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(struct trace_listener *l, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (l->cfg.log)
		l->cfg.log(msg);
	else
		fprintf(stderr, "pmda_trace: %s\n", msg);
}

static void drop_client(struct trace_listener *l, struct client *c)
{
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	if (l->cfg.access)
		tra_access_release(l->cfg.access, c->access_slot);
	if (c->prev)
		c->prev->next = c->next;
	else
		l->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	__atomic_sub_fetch(&l->nclients, 1, __ATOMIC_RELAXED);
	free(c->out);
	free(c);
}

/* Write what is owed; 0 to keep the client, -1 to drop it. */
static int flush_out(struct trace_listener *l, struct client *c)
{
	struct epoll_event ev = { .data.ptr = c };
	size_t done = 0;

	while (done < c->outlen) {
		ssize_t n = send(c->fd, c->out + done, c->outlen - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n < 0)
			return -1;
		done += (size_t)n;
	}
	memmove(c->out, c->out + done, c->outlen - done);
	c->outlen -= done;
	ev.events = EPOLLIN | (c->outlen ? EPOLLOUT : 0);
	epoll_ctl(l->epfd, EPOLL_CTL_MOD, c->fd, &ev);
	return 0;
}

static int queue_ack(struct trace_listener *l, struct client *c, int32_t value)
{
	if (c->outlen + TRACE_ACK_LEN > c->outcap) {
		size_t cap = c->outcap ? c->outcap * 2 : 256;
		unsigned char *p;

		if (cap > OUT_MAX) {
			say(l, "client %s does not read its acknowledgements; closed", c->peer);
			return -1;
		}
		if ((p = realloc(c->out, cap)) == NULL)
			return -1;
		c->out = p;
		c->outcap = cap;
	}
	tra_pdu_ack(c->out + c->outlen, value, l->pid);
	c->outlen += TRACE_ACK_LEN;
	return 0;
}

/* Account one decoded PDU of a batch read at @seq; -1 to drop the client. */
static int handle_pdu(struct trace_listener *l, struct client *c, uint64_t seq,
		const struct trace_data *d)
{
	int sts = tra_agg_record_in(l->cfg.agg, seq, d->type, d->tag, d->taglen, d->value);
	int32_t ack = d->type;

	if (sts < 0) {
		/* refused, not silently lost: a sync sender gets the error */
		if (!c->nospace_logged++)
			say(l, "client %s: tag '%.*s' not recorded: %s", c->peer,
			    (int)d->taglen, d->tag, strerror(-sts));
		ack = sts;
	}
	return d->sync ? queue_ack(l, c, ack) : 0;
}

static void serve_input(struct trace_listener *l, struct client *c)
{
	for (;;) {
		ssize_t n = read(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
		size_t off = 0;
		uint64_t seq;	/* one clock read for all that arrived together */

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			drop_client(l, c);	/* what it delivered stays counted */
			return;
		}
		c->inlen += (size_t)n;
		seq = tra_agg_seq(l->cfg.agg);
		for (;;) {
			struct trace_data d;
			const char *why;
			size_t used;
			int r = tra_pdu_decode(c->in + off, c->inlen - off, &d, &used, &why);

			if (r == TRACE_PDU_NEED_MORE)
				break;
			if (r == TRACE_PDU_BAD) {
				say(l, "client %s: %s; closed", c->peer, why);
				drop_client(l, c);
				return;
			}
			if (handle_pdu(l, c, seq, &d) < 0) {
				drop_client(l, c);
				return;
			}
			off += used;
		}
		memmove(c->in, c->in + off, c->inlen - off);
		c->inlen -= off;
	}
	if (c->outlen && flush_out(l, c) < 0)
		drop_client(l, c);
}

/* Send a greeting ACK on a fresh socket; 16 bytes always fit. */
static int greet(struct trace_listener *l, int fd, int32_t value)
{
	unsigned char ack[TRACE_ACK_LEN];

	tra_pdu_ack(ack, value, l->pid);
	return send(fd, ack, sizeof(ack), MSG_NOSIGNAL) == (ssize_t)sizeof(ack) ? 0 : -1;
}

static void refuse(struct trace_listener *l, int fd, const char *peer,
		int32_t code, const char *why)
{
	say(l, "client %s refused: %s", peer, why);
	greet(l, fd, code);
	close(fd);
}

static void accept_clients(struct trace_listener *l)
{
	for (;;) {
		struct sockaddr_in sa;
		socklen_t salen = sizeof(sa);
		struct epoll_event ev = { .events = EPOLLIN };
		char peer[INET_ADDRSTRLEN + 8], ip[INET_ADDRSTRLEN];
		struct client *c;
		int fd, one = 1, slot = -1;

		fd = accept4(l->lfd, (struct sockaddr *)&sa, &salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				say(l, "accept: %s", strerror(errno));
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		inet_ntop(AF_INET, &sa.sin_addr, ip, sizeof(ip));
		snprintf(peer, sizeof(peer), "%s:%u", ip, ntohs(sa.sin_port));

		if (l->cfg.max_clients && l->nclients >= l->cfg.max_clients) {
			refuse(l, fd, peer, PMTRACE_ERR_CONNLIMIT, "connection limit reached");
			continue;
		}
		if (l->cfg.access) {
			enum access_verdict v = tra_access_admit(l->cfg.access, sa.sin_addr, &slot);

			if (v != ACCESS_OK) {
				refuse(l, fd, peer, v == ACCESS_DENIED ? PMTRACE_ERR_PERMISSION :
				       PMTRACE_ERR_CONNLIMIT, v == ACCESS_DENIED ?
				       "access denied" : "host connection limit reached");
				continue;
			}
		}
		if ((c = calloc(1, sizeof(*c))) == NULL || greet(l, fd, trace_greeting_sdk(TRACE_GREETING_SDK_EXT)) < 0) {
			free(c);
			close(fd);
			if (l->cfg.access)
				tra_access_release(l->cfg.access, slot);
			continue;
		}
		c->fd = fd;
		c->access_slot = slot;
		memcpy(c->peer, peer, sizeof(peer));
		c->next = l->clients;
		if (l->clients)
			l->clients->prev = c;
		l->clients = c;
		__atomic_add_fetch(&l->nclients, 1, __ATOMIC_RELAXED);
		ev.data.ptr = c;
		epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

static void *io_thread(void *arg)
{
	struct trace_listener *l = arg;
	struct epoll_event evs[64];
	int running = 1;

	rcu_register_thread();
	while (running) {
		int n = epoll_wait(l->epfd, evs, 64, -1);

		for (int i = 0; i < n; i++) {
			struct client *c = evs[i].data.ptr;

			if (c == (void *)&l->lfd)
				accept_clients(l);
			else if (c == (void *)&l->wakefd)
				running = 0;
			else if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				serve_input(l, c);	/* may free c */
			else if ((evs[i].events & EPOLLOUT) && flush_out(l, c) < 0)
				drop_client(l, c);
		}
	}
	while (l->clients)
		drop_client(l, l->clients);
	rcu_unregister_thread();
	return NULL;
}

static int open_socket(struct trace_listener *l)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t salen = sizeof(sa);
	int one = 1;

	l->lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->lfd < 0)
		return -1;
	setsockopt(l->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(l->cfg.bind_addr);
	sa.sin_port = htons(l->cfg.port);
	if (bind(l->lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    listen(l->lfd, 128) < 0 ||
	    getsockname(l->lfd, (struct sockaddr *)&sa, &salen) < 0)
		return -1;
	l->port = ntohs(sa.sin_port);
	return 0;
}

struct trace_listener *tra_listener_start(const struct trace_listener_cfg *cfg)
{
	struct trace_listener *l = calloc(1, sizeof(*l));
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	if (l == NULL)
		return NULL;
	l->cfg = *cfg;
	l->pid = (int32_t)getpid();
	l->lfd = l->epfd = l->wakefd = -1;
	if (open_socket(l) < 0 ||
	    (l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
	    (l->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		goto fail;
	ev.data.ptr = &l->lfd;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->lfd, &ev) < 0)
		goto fail;
	ev.data.ptr = &l->wakefd;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) < 0)
		goto fail;
	if ((errno = pthread_create(&l->thread, NULL, io_thread, l)) != 0)
		goto fail;
	return l;
fail:
	err = errno;
	if (l->lfd >= 0)
		close(l->lfd);
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->wakefd >= 0)
		close(l->wakefd);
	free(l);
	errno = err;
	return NULL;
}

uint16_t tra_listener_port(const struct trace_listener *l)
{
	return l->port;
}

unsigned tra_listener_clients(const struct trace_listener *l)
{
	return __atomic_load_n(&l->nclients, __ATOMIC_RELAXED);
}

void tra_listener_stop(struct trace_listener *l)
{
	uint64_t one = 1;

	if (l == NULL)
		return;
	if (write(l->wakefd, &one, sizeof(one)) < 0)
		return;	/* cannot happen with a non-full eventfd */
	pthread_join(l->thread, NULL);
	close(l->lfd);
	close(l->epfd);
	close(l->wakefd);
	free(l);
}
