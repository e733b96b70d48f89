/* SPDX-License-Identifier: GPL-2.0-or-later */
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
#include <sys/un.h>
#include <unistd.h>
#include <urcu.h>
#include <pcp/trace.h>
#include <pcp/trace_dev.h>

#include "clock_usec.h"
#include "listener.h"
#include "trace_wire.h"
#include "pdu.h"
#include "reg.h"
#include "shm.h"

/* ACKs owed to a client that does not read them pile up; past this the
 * client is dropped rather than growing the agent without bound. */
#define OUT_MAX (64 * 1024)

/* How often the shared segments are read (docs/trace-protocol.md §10.5). */
#define SHM_SAMPLE_USEC 100000
/*
 * Local sockets open at once, registered or not, beyond the TCP client
 * limit (each segment needs a TCP client; without a limit, this many):
 * a local process opening sockets without end cannot exhaust descriptors.
 */
#define SHM_SOCKETS_SLACK 64
#define SHM_SOCKETS_NOLIMIT 4096

enum { KIND_TCP, KIND_SHM };	/* what an epoll entry is */

struct shm_client;

struct client {
	int kind;		/* KIND_TCP: first, as in struct shm_client */
	struct client *next, *prev;
	int fd;
	int local;		/* the peer is this host */
	uint16_t port;		/* the peer's port */
	struct shm_client *shm;	/* the segment it registered, or NULL */
	int access_slot;
	int nospace_logged;
	char peer[INET_ADDRSTRLEN + 8];
	size_t inlen, outlen, outcap;
	unsigned char *out;
	unsigned char in[TRACE_DATA_MAX * 16];
};

/* A client's local socket: its registration, then its segment. */
struct shm_client {
	int kind;		/* KIND_SHM */
	struct shm_client *next, *prev;
	struct trace_listener *l;
	int fd;
	int nospace_logged;
	struct tra_shm *seg;	/* NULL until registered */
	struct client *tcp;	/* the TCP connection it came with */
	char who[96];
};

struct trace_listener {
	struct trace_listener_cfg cfg;
	int lfd, epfd, wakefd;
	int ufd;		/* the local socket for segments, -1: none */
	uint16_t port;
	unsigned nclients;	/* atomic for readers on other threads */
	struct client *clients;
	struct shm_client *shms;
	unsigned nshms;		/* local sockets open */
	unsigned nsegs;
	int64_t next_sample;
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

static void drop_shm(struct trace_listener *l, struct shm_client *u, int final);

static void drop_client(struct trace_listener *l, struct client *c)
{
	if (c->shm)
		drop_shm(l, c->shm, 1);	/* its segment goes with it, collected */
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
		struct sockaddr_in sa, me;
		socklen_t salen = sizeof(sa), me_len;
		struct epoll_event ev = { .events = EPOLLIN };
		int local;
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
		me_len = sizeof(me);
		local = (ntohl(sa.sin_addr.s_addr) >> 24) == 127 ||
			(getsockname(fd, (struct sockaddr *)&me, &me_len) == 0 &&
			 me.sin_addr.s_addr == sa.sin_addr.s_addr);

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
		if ((c = calloc(1, sizeof(*c))) == NULL || greet(l, fd, trace_greeting_sdk(l->ufd >= 0 ?
				TRACE_GREETING_SDK_EXT : TRACE_SHM_GREETING_EXT - 1)) < 0) {
			free(c);
			close(fd);
			if (l->cfg.access)
				tra_access_release(l->cfg.access, slot);
			continue;
		}
		c->fd = fd;
		c->local = local;
		c->port = ntohs(sa.sin_port);
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

/* The merge of one batch from a segment (tra_shm_emit_fn). */
static int merge_batch(void *arg, uint64_t seq, int type, const char *tag, size_t len,
		const struct trace_batch *b)
{
	struct shm_client *u = arg;
	int sts = tra_agg_merge_in(u->l->cfg.agg, seq, type, tag, len, b);

	if (sts < 0 && !u->nospace_logged++)
		say(u->l, "client %s: tag '%.*s' not recorded: %s", u->who, (int)len, tag,
		    strerror(-sts));
	return sts;
}

/* Read one segment; a segment that cannot be trusted any more is dropped. */
static void collect_one(struct trace_listener *l, struct shm_client *u, uint64_t seq,
		int final)
{
	char why[160];

	if (tra_shm_collect(u->seg, seq, final, merge_batch, u, why, sizeof(why)) < 0) {
		say(l, "client %s: shared segment dropped: %s", u->who, why);
		tra_shm_close(u->seg);
		u->seg = NULL;
		l->nsegs--;
		if (!final)
			drop_shm(l, u, 0);
	}
}

static void drop_shm(struct trace_listener *l, struct shm_client *u, int final)
{
	if (u->seg && final)
		collect_one(l, u, tra_agg_seq(l->cfg.agg), 1);	/* the last word */
	if (u->seg) {
		tra_shm_close(u->seg);
		l->nsegs--;
	}
	if (u->tcp)
		u->tcp->shm = NULL;
	epoll_ctl(l->epfd, EPOLL_CTL_DEL, u->fd, NULL);
	close(u->fd);
	if (u->prev)
		u->prev->next = u->next;
	else
		l->shms = u->next;
	if (u->next)
		u->next->prev = u->prev;
	l->nshms--;
	free(u);
}

static void collect_all(struct trace_listener *l)
{
	uint64_t seq = tra_agg_seq(l->cfg.agg);
	struct shm_client *u, *next;

	for (u = l->shms; u != NULL; u = next) {
		next = u->next;
		if (u->seg)
			collect_one(l, u, seq, 0);
	}
}

/* The registration's descriptor: exactly one, else -1 (all closed). */
static int take_fd(struct msghdr *mh)
{
	int fd = -1, n = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int one;

			memcpy(&one, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (n++ == 0)
				fd = one;
			else
				close(one);
		}
	}
	if (n != 1 || (mh->msg_flags & MSG_CTRUNC)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static struct client *tcp_of(struct trace_listener *l, uint16_t port)
{
	for (struct client *c = l->clients; c; c = c->next)
		if (c->local && c->port == port && c->shm == NULL)
			return c;
	return NULL;
}

static void reply(struct shm_client *u, int32_t status, const char *reason)
{
	uint8_t buf[TRACE_REG_MAX];
	size_t n = tra_reg_reply(buf, status, reason);

	if (send(u->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		return;	/* the client sees the close */
}

/* A registration arrived (or the socket closed): take the segment or refuse. */
static void serve_shm(struct trace_listener *l, struct shm_client *u)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(4 * sizeof(int))];
	} ctl;
	uint8_t buf[TRACE_REG_MAX + 1];
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct tra_reg reg;
	struct client *c;
	char why[160];
	ssize_t n;
	int fd;

	n = recvmsg(u->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (u->seg != NULL || n <= 0) {
		if (n > 0 && (fd = take_fd(&mh)) >= 0)
			close(fd);
		drop_shm(l, u, 1);	/* the client is gone (or misbehaves): last collection */
		return;
	}
	fd = take_fd(&mh);
	if (getsockopt(u->fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0)
		snprintf(u->who, sizeof(u->who), "pid %d", (int)cred.pid);
	if (fd < 0) {
		snprintf(why, sizeof(why), "not one descriptor attached");
		goto refuse;
	}
	if (tra_reg_decode(buf, (size_t)n, &reg, why, sizeof(why)) < 0)
		goto refuse_fd;
	snprintf(u->who + strlen(u->who), sizeof(u->who) - strlen(u->who), " (%s)", reg.program);
	if ((c = tcp_of(l, reg.tcp_port)) == NULL) {
		snprintf(why, sizeof(why), "no TCP connection from local port %u", reg.tcp_port);
		goto refuse_fd;
	}
	if ((u->seg = tra_shm_open(fd, reg.tags, reg.rows, why, sizeof(why))) == NULL)
		goto refuse_fd;
	u->tcp = c;
	c->shm = u;
	l->nsegs++;
	reply(u, 0, NULL);
	return;
refuse_fd:
	close(fd);
refuse:
	say(l, "client %s: shared segment refused: %s", u->who, why);
	reply(u, -EINVAL, why);
	drop_shm(l, u, 0);
}

static void accept_shm(struct trace_listener *l)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		struct shm_client *u;
		int fd = accept4(l->ufd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		if (l->nshms >= (l->cfg.max_clients ? l->cfg.max_clients + SHM_SOCKETS_SLACK :
				 SHM_SOCKETS_NOLIMIT) || (u = calloc(1, sizeof(*u))) == NULL) {
			close(fd);	/* the client keeps to PDUs */
			continue;
		}
		l->nshms++;
		u->kind = KIND_SHM;
		u->l = l;
		u->fd = fd;
		snprintf(u->who, sizeof(u->who), "local");
		u->next = l->shms;
		if (l->shms)
			l->shms->prev = u;
		l->shms = u;
		ev.data.ptr = u;
		epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

/* The local socket for segments, an abstract name for our TCP port. */
static void open_shm_socket(struct trace_listener *l)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = &l->ufd };
	int n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, TRACE_SHM_SOCK_FMT, l->port);

	l->ufd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (l->ufd < 0 ||
	    bind(l->ufd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0 ||
	    listen(l->ufd, 128) < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->ufd, &ev) < 0) {
		say(l, "no shared segments (local socket: %s); clients send PDUs", strerror(errno));
		if (l->ufd >= 0)
			close(l->ufd);
		l->ufd = -1;
	}
}

static void *io_thread(void *arg)
{
	struct trace_listener *l = arg;
	struct epoll_event evs[64];
	int running = 1;

	rcu_register_thread();
	while (running) {
		int64_t now = clock_usec(CLOCK_MONOTONIC);
		int wait = l->nsegs == 0 ? -1 : l->next_sample <= now ? 0 :
			(int)((l->next_sample - now + 999) / 1000);
		int n = epoll_wait(l->epfd, evs, 64, wait);

		if (l->nsegs > 0 && clock_usec(CLOCK_MONOTONIC) >= l->next_sample) {
			collect_all(l);
			l->next_sample = clock_usec(CLOCK_MONOTONIC) + SHM_SAMPLE_USEC;
		}
		for (int i = 0; i < n; i++) {
			struct client *c = evs[i].data.ptr;

			if (c == (void *)&l->lfd)
				accept_clients(l);
			else if (c == (void *)&l->ufd)
				accept_shm(l);
			else if (c == (void *)&l->wakefd)
				running = 0;
			else if (c->kind == KIND_SHM)
				serve_shm(l, (struct shm_client *)c);	/* may free it */
			else if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				serve_input(l, c);	/* may free c */
			else if ((evs[i].events & EPOLLOUT) && flush_out(l, c) < 0)
				drop_client(l, c);
		}
	}
	while (l->clients)
		drop_client(l, l->clients);
	while (l->shms)
		drop_shm(l, l->shms, 1);
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
	l->lfd = l->epfd = l->wakefd = l->ufd = -1;
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
	open_shm_socket(l);
	if ((errno = pthread_create(&l->thread, NULL, io_thread, l)) != 0)
		goto fail;
	return l;
fail:
	err = errno;
	if (l->ufd >= 0)
		close(l->ufd);
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
	if (l->ufd >= 0)
		close(l->ufd);
	close(l->lfd);
	close(l->epfd);
	close(l->wakefd);
	free(l);
}
