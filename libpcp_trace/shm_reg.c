/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Handing the shared segment to our agent (docs/trace-protocol.md §10.1, §10.2):
 * when the TCP connection reached our agent (greeting extension >=
 * TRACE_SHM_GREETING_EXT) on this host, and PCP_TRACE_SHM is not 0, the
 * library creates a segment, connects to the agent's local socket (an
 * abstract name for its TCP port), checks that the process there is the
 * one that greeted (SO_PEERCRED against the greeting's pid), and sends a
 * TraceShmRegister with the memfd attached. Accepted: the segment is
 * installed and a thread of the library's watches the socket; when the
 * agent closes it (gone, restarted, or it no longer trusts the segment)
 * the connection is dropped, and the next report connects afresh.
 * Anything else: the PDU path, as before.
 *
 * Called from conn.c with the connection lock held.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "trace_priv.h"
#include "conn_priv.h"
#include "trace_shm.h"
#include "trace_reg.pb-c.h"

static int reg_sock = -1;	/* the agent's local socket while registered */

/* The TCP connection's far end is this host; *@port: our end's port. */
static int is_local(int fd, unsigned *port)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);

	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0 ||
	    me.ss_family != peer.ss_family)
		return 0;
	if (me.ss_family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&me, *b = (struct sockaddr_in *)&peer;

		*port = ntohs(a->sin_port);
		return a->sin_addr.s_addr == b->sin_addr.s_addr ||
			(ntohl(b->sin_addr.s_addr) >> 24) == 127;
	}
	if (me.ss_family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&me, *b = (struct sockaddr_in6 *)&peer;

		*port = ntohs(a->sin6_port);
		return memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) == 0;
	}
	return 0;
}

static int agent_socket(int agent_pid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd, n;

	n = snprintf(sa.sun_path + 1, sizeof(sa.sun_path) - 1, TRACE_SHM_SOCK_FMT,
		     (unsigned)trace__env_port());
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.pid != agent_pid) {
		trace__debug(PMTRACE_STATE_COMMS, "no shared segment: the agent's local socket "
			    "is missing or not the greeting agent's");
		close(fd);
		return -1;
	}
	return fd;
}

static const char *program_name(void)
{
	extern char *program_invocation_short_name;

	return program_invocation_short_name;
}

/* Send the registration with the memfd; 0 once the agent said yes. */
static int handshake(int sock, const struct trace_shm_seg *seg, unsigned tcp_port)
{
	Tra__TraceShmRegister msg = TRA__TRACE_SHM_REGISTER__INIT;
	Tra__TraceShmReply *reply;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	uint8_t buf[TRACE_REG_MAX];
	struct iovec iov = { buf, 0 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf) };
	struct cmsghdr *cm;
	ssize_t n;
	int sts;

	msg.version = TRACE_REG_VERSION;
	msg.layout = TRACE_SHM_VERSION;
	msg.tags = seg->tags;
	msg.rows = seg->rows;
	msg.size = seg->size;
	msg.tcp_port = tcp_port;
	msg.program = (char *)program_name();
	if (tra__trace_shm_register__get_packed_size(&msg) > sizeof(buf))
		msg.program = NULL;
	iov.iov_len = tra__trace_shm_register__pack(&msg, buf);
	memset(&ctl, 0, sizeof(ctl));
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &seg->fd, sizeof(int));
	if (sendmsg(sock, &mh, MSG_NOSIGNAL) != (ssize_t)iov.iov_len)
		return -1;
	if (trace__poll(sock, POLLIN, trace__seconds_ms(trace__env_reqtimeout())) <= 0)
		return -1;
	n = recv(sock, buf, sizeof(buf), 0);
	if (n <= 0 || (reply = tra__trace_shm_reply__unpack(NULL, (size_t)n, buf)) == NULL)
		return -1;
	sts = reply->status;
	trace__debug(PMTRACE_STATE_COMMS, "shared segment %s%s%s", sts == 0 ? "taken" : "refused",
		    reply->reason ? ": " : "", reply->reason ? reply->reason : "");
	tra__trace_shm_reply__free_unpacked(reply, NULL);
	return sts == 0 ? 0 : -1;
}

/* The library's thread that notices the agent closing the local socket. */
static void *watch_main(void *arg)
{
	int sock = (int)(intptr_t)arg;
	char byte;

	for (;;) {
		if (trace__poll(sock, POLLIN, -1) < 0)
			break;
		/* the agent sends nothing after its reply: any wake-up is the end */
		if (recv(sock, &byte, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN)
			continue;
		break;
	}
	trace__conn_shm_lost(sock);
	close(sock);
	return NULL;
}

static int start_watch(int sock)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, watch_main, (void *)(intptr_t)sock);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc == 0 ? 0 : -1;
}

int trace__shm_register(int tcp_fd, int agent_pid)
{
	struct trace_shm_seg seg = { .fd = -1 };
	unsigned port;
	int sock;

	if (!trace__env_shm() || !is_local(tcp_fd, &port))
		return -1;
	if (trace__shm_seg_create(&seg, TRACE_SHM_TAGS, TRACE_SHM_ROWS) < 0)
		return -1;
	if ((sock = agent_socket(agent_pid)) < 0)
		goto fail;
	if (handshake(sock, &seg, port) < 0) {
		close(sock);
		goto fail;
	}
	/* the agent holds the segment now: the mapping is all we need */
	close(seg.fd);
	seg.fd = -1;
	if (trace__shm_install(&seg) < 0) {
		close(sock);
		goto fail;
	}
	if (start_watch(sock) < 0) {
		trace__shm_drop(0);
		close(sock);
		return -1;
	}
	reg_sock = sock;
	return 0;
fail:
	trace__shm_seg_destroy(&seg);
	return -1;
}

/* Lock held: stop using the segment; the watcher closes the socket. */
void trace__shm_unregister(void)
{
	if (reg_sock < 0)
		return;
	trace__shm_drop(0);
	shutdown(reg_sock, SHUT_RDWR);
	reg_sock = -1;
}

/* Lock held: @sock's agent went away; 1 if it was the current one. */
int trace__shm_lost(int sock)
{
	if (sock != reg_sock)
		return 0;
	trace__shm_drop(0);
	reg_sock = -1;
	return 1;
}

/* A child of fork(): the parent's segment and socket are not its own. */
void trace__shm_atfork_child(void)
{
	trace__shm_drop(1);
	if (reg_sock >= 0)
		close(reg_sock);
	reg_sock = -1;
}
