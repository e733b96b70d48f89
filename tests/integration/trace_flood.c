/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A flood of async (or sync) trace events for the loss tests, written
 * against PCP's <pcp/trace.h> and built with PCP's library, so the same
 * binary runs on PCP's library or, by LD_LIBRARY_PATH, on ours.
 *
 *   trace_flood async|sync point|obs|txn N EXIT TAG...
 *
 * Reports N events, cycling over the TAGs, and prints one line
 *   ok OK eagain EAGAIN other OTHER lost LOST agent AGENT
 * (LOST and AGENT from our library's pmtracelost/pmtraceagent when
 * present, else -1), then ends by EXIT: "exit" (return from main),
 * "_exit" (no atexit handlers, no library destructors), "kill"
 * (SIGKILL to itself) or "linger" (exit after 1 s: PCP's library resets
 * its connection at exit, which discards what the agent has not read). OK counts the calls that returned success: what the
 * agent must have counted.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pcp/trace.h>

int main(int argc, char **argv)
{
	unsigned long ok = 0, eagain = 0, other = 0, n;
	unsigned long long (*lost_fn)(void);
	int (*agent_fn)(void);
	const char *kind;
	int ntags, sts, first_err = 0;

	if (argc < 6)
		return 2;
	if (strcmp(argv[1], "async") == 0)
		pmtracestate(PMTRACE_STATE_ASYNC);
	kind = argv[2];
	n = strtoul(argv[3], NULL, 10);
	ntags = argc - 5;
	for (unsigned long i = 0; i < n; i++) {
		char *tag = argv[5 + i % ntags];

		if (strcmp(kind, "point") == 0) {
			sts = pmtracepoint(tag);
		} else if (strcmp(kind, "obs") == 0) {
			sts = pmtraceobs(tag, (double)i);
		} else {
			sts = pmtracebegin(tag);
			if (sts >= 0)
				sts = pmtraceend(tag);
			else
				pmtraceabort(tag);
		}
		if (sts >= 0)
			ok++;
		else if (sts == -EAGAIN)
			eagain++;
		else if (other++ == 0)
			first_err = sts;
	}
	*(void **)&lost_fn = dlsym(RTLD_DEFAULT, "pmtracelost");
	*(void **)&agent_fn = dlsym(RTLD_DEFAULT, "pmtraceagent");
	printf("ok %lu eagain %lu other %lu lost %lld agent %d\n", ok, eagain,
	       other, lost_fn ? (long long)lost_fn() : -1LL,
	       agent_fn ? agent_fn() : -1);
	if (other)
		fprintf(stderr, "trace_flood: first error %d: %s\n", first_err,
			pmtraceerrstr(first_err));
	fflush(stdout);
	if (strcmp(argv[4], "_exit") == 0)
		_exit(0);
	if (strcmp(argv[4], "kill") == 0)
		raise(SIGKILL);
	if (strcmp(argv[4], "linger") == 0)
		sleep(1);
	return 0;
}
