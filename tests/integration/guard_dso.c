/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guard_dso.c - the MMV agent's SIGBUS guard inside a host that loads it
 * as pmcd does (dlopen of pmda_mmv.so, mmv_init): a SIGBUS that is not the
 * guard's, raised in a thread that never armed it, reaches the handler the
 * host had before, in that thread and in the main thread, and the host
 * goes on. The handler reads the guard's thread-local pointer in a thread
 * that never touched it: initial-exec TLS, so no allocation in a signal
 * handler (tests/integration/guard_dso.sh also checks the relocation).
 *
 *   guard_dso DSO    with $PCP_TMP_DIR/mmv holding at least one file
 * Prints "ok N" lines and exits 0, or says what failed and exits 1.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "../lib/pmda_dso.h"

static volatile sig_atomic_t host_calls;
static volatile pthread_t host_thread;

static void host_handler(int sig)
{
	(void)sig;
	host_calls++;
	host_thread = pthread_self();
}

static void *foreign_sigbus(void *arg)
{
	(void)arg;
	raise(SIGBUS);		/* this thread only, and never armed */
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa, now;
	pmdaInterface dp;
	pthread_t t;

	if (argc != 2) {
		fprintf(stderr, "usage: guard_dso DSO\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = host_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	if (dso_load(&dp, argv[1], "guard_dso") < 0)
		return 1;
	sigaction(SIGBUS, NULL, &now);
	if (now.sa_handler == host_handler) {
		fprintf(stderr, "guard_dso: the agent installed no SIGBUS guard (no file loaded?)\n");
		return 1;
	}
	printf("ok 1 the agent's guard is in front of the host's handler\n");
	if (pthread_create(&t, NULL, foreign_sigbus, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	if (host_calls != 1 || !pthread_equal(host_thread, t)) {
		fprintf(stderr, "guard_dso: host handler calls %d after the thread's SIGBUS\n",
			(int)host_calls);
		return 1;
	}
	printf("ok 2 a SIGBUS in a thread that never armed the guard reached the host's handler\n");
	raise(SIGBUS);
	if (host_calls != 2) {
		fprintf(stderr, "guard_dso: host handler calls %d after main's SIGBUS\n",
			(int)host_calls);
		return 1;
	}
	printf("ok 3 ... and one in the main thread too; the host goes on\n");
	return 0;
}
