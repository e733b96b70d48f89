/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * guard.c - reads of a file mapping that survive the file being truncated
 * under it. Touching a mapped page wholly past the end of a shrunk file
 * raises SIGBUS; a thread arms a jump buffer of its own around its reads
 * (mmvr_guard_copy around a few memcpys, or a caller around a whole
 * request: mmvr_guard_arm), and the handler, installed once for the
 * process, jumps back when the faulting thread is armed. Any other SIGBUS
 * goes to the disposition the handler replaced, so a host such as pmcd
 * keeps its own behaviour for faults that are not ours
 * (docs/mmv-format.md §7.10).
 */
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include "reader_priv.h"

/*
 * The armed one, NULL: none. Initial-exec, as libpcp_trace's thread-local
 * data: the SIGBUS handler reads it in whatever thread the signal hits,
 * and in a DSO (pmcd dlopens pmda_mmv.so) a dynamic TLS variable's first
 * read in a thread may allocate, which a signal handler must not do.
 */
static __thread mmvr_guard_t *guard_cur __attribute__((tls_model("initial-exec")));
static struct sigaction guard_prev;
static pthread_mutex_t guard_lock = PTHREAD_MUTEX_INITIALIZER;	/* installing: guard_prev */

static void guard_sigbus(int sig, siginfo_t *si, void *ctx)
{
	mmvr_guard_t *g = guard_cur;

	if (g != NULL) {
		guard_cur = NULL;
		siglongjmp(g->env, 1);
	}
	if (guard_prev.sa_flags & SA_SIGINFO) {
		guard_prev.sa_sigaction(sig, si, ctx);
		return;
	}
	if (guard_prev.sa_handler != SIG_DFL && guard_prev.sa_handler != SIG_IGN) {
		guard_prev.sa_handler(sig);
		return;
	}
	/* Not ours: the default action. A fault comes back when the
	 * instruction runs again; a sent signal is raised again. */
	signal(SIGBUS, SIG_DFL);
	if (si == NULL || si->si_code <= 0)
		raise(SIGBUS);
}

static bool guard_installed(const struct sigaction *sa)
{
	return (sa->sa_flags & SA_SIGINFO) && sa->sa_sigaction == guard_sigbus;
}

/*
 * Checked at every file load, not once: a host (or a test harness) that
 * installs its own SIGBUS handler later would otherwise silently disarm
 * the guard. Ours then goes back in front, passing other faults to it.
 */
bool mmvr_guard_init(void)
{
	struct sigaction sa, cur;
	bool ok;

	pthread_mutex_lock(&guard_lock);
	ok = sigaction(SIGBUS, NULL, &cur) == 0;
	if (ok && !guard_installed(&cur)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = guard_sigbus;
		/* SA_NODEFER: SIGBUS stays unblocked after the jump back,
		 * so the signal mask needs no system call to restore. */
		sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
		sigemptyset(&sa.sa_mask);
		ok = sigaction(SIGBUS, &sa, &guard_prev) == 0;
	}
	pthread_mutex_unlock(&guard_lock);
	return ok;
}

void mmvr_guard_arm(mmvr_guard_t *g)
{
	guard_cur = g;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

void mmvr_guard_disarm(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_cur = NULL;
}

/* Nests inside an armed stretch: the outer guard is armed again after. */
bool mmvr_guard_copy(const mmvr_copy_t *c, unsigned int n)
{
	mmvr_guard_t g, *outer = guard_cur;
	unsigned int i;

	if (sigsetjmp(g.env, 0) != 0) {
		guard_cur = outer;
		return false;		/* SIGBUS: a page is gone */
	}
	guard_cur = &g;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	for (i = 0; i < n; i++)
		memcpy(c[i].dst, c[i].src, c[i].len);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	guard_cur = outer;
	return true;
}
