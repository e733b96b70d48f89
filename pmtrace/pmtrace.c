/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmtrace - send one trace event from the command line (options as PCP's
 * pmtrace(1)): a point by default, -v observation, -c counter, or -e a
 * command run as a transaction. Always uses the asynchronous protocol.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/trace.h>

enum mode { MODE_POINT, MODE_COUNTER, MODE_OBSERVE, MODE_COMMAND };

struct args {
	enum mode mode;
	double value;
	const char *command;
	const char *tag;
	int quiet;
	int state;
};

static const char *prog = "pmtrace";

static void usage(void)
{
	fprintf(stderr,
		"Usage: %s [options] tag\n\n"
		"Options:\n"
		"  -c value     counter value (pmtracecounter)\n"
		"  -e command   run command as a transaction (pmtracebegin/pmtraceend)\n"
		"  -h host      send to the trace agent on host\n"
		"  -q           quiet, no success message\n"
		"  -S state     OR a debug state into pmtracestate\n"
		"  -v value     observation value (pmtraceobs)\n", prog);
	exit(0);	/* as PCP's pmtrace */
}

static int number(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno == 0 && end != s && *end == '\0';
}

static void set_mode(struct args *a, enum mode m)
{
	if (a->mode != MODE_POINT) {
		fprintf(stderr, "%s: only one of -c, -v or -e allowed\n", prog);
		usage();
	}
	a->mode = m;
}

static void parse(int argc, char **argv, struct args *a)
{
	char *end;
	long s;
	int c;

	while ((c = getopt(argc, argv, "c:e:h:qS:v:?")) != -1) {
		switch (c) {
		case 'c':
		case 'v':
			set_mode(a, c == 'c' ? MODE_COUNTER : MODE_OBSERVE);
			if (!number(optarg, &a->value)) {
				/* PCP's pmtrace reports -c errors with -v wording */
				fprintf(stderr, "%s: -v requires a numeric argument\n", prog);
				usage();
			}
			break;
		case 'e':
			set_mode(a, MODE_COMMAND);
			a->command = optarg;
			break;
		case 'h':
			setenv("PCP_TRACE_HOST", optarg, 1);
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'S':
			s = strtol(optarg, &end, 0);
			if (*optarg == '\0' || *end != '\0') {
				fprintf(stderr, "%s: -S requires a numeric argument\n", prog);
				usage();
			}
			a->state |= (int)s;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	a->tag = argv[optind];
}

static int fail(const char *what, int rc)
{
	fprintf(stderr, "%s: %s error: %s\n", prog, what, pmtraceerrstr(rc));
	return 0;
}

static int run_command(const struct args *a)
{
	int rc = pmtracebegin(a->tag), status;

	if (rc < 0)
		fail("transaction begin", rc);
	status = system(a->command);
	if (rc < 0)
		return status;
	rc = pmtraceend(a->tag);
	if (rc < 0)
		fail("transaction end", rc);
	else if (!a->quiet)
		printf("%s: transaction complete (tag=\"%s\")\n", prog, a->tag);
	/* the raw wait status, as PCP's pmtrace passes it to exit() */
	return status;
}

int main(int argc, char **argv)
{
	struct args a = { .mode = MODE_POINT };
	int rc;

	if (argv[0] != NULL) {
		const char *slash = strrchr(argv[0], '/');

		prog = slash != NULL ? slash + 1 : argv[0];
	}
	parse(argc, argv, &a);
	rc = pmtracestate(a.state | PMTRACE_STATE_ASYNC);
	if (rc < 0)
		fprintf(stderr, "%s: pmtracestate: %s\n", prog, pmtraceerrstr(rc));
	switch (a.mode) {
	case MODE_COMMAND:
		exit(run_command(&a));
	case MODE_POINT:
		rc = pmtracepoint(a.tag);
		if (rc < 0)
			return fail("point", rc);
		if (!a.quiet)
			printf("%s: point complete (tag=\"%s\")\n", prog, a.tag);
		break;
	case MODE_OBSERVE:
		rc = pmtraceobs(a.tag, a.value);
		if (rc < 0)
			return fail("observation", rc);
		if (!a.quiet)
			printf("%s: observation complete (tag=\"%s\", value=%f)\n",
			       prog, a.tag, a.value);
		break;
	case MODE_COUNTER:
		rc = pmtracecounter(a.tag, a.value);
		if (rc < 0)
			return fail("counter", rc);
		if (!a.quiet)
			printf("%s: counter complete (tag=\"%s\", value=%f)\n",
			       prog, a.tag, a.value);
		break;
	}
	return 0;
}
