/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pmda_options.h - what the two agents' command lines share: numeric
 * option arguments checked whole and in range, one message each, and one
 * set of exit codes. Include after <pcp/pmapi.h> and <pcp/pmda.h>.
 */
#ifndef SDK_PMDA_OPTIONS_H
#define SDK_PMDA_OPTIONS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* How an agent ends: pmcd closed the pipe, or it could not start (a bad
 * option, after the usage message; or a failed set-up, logged). */
enum { SDK_PMDA_EXIT_DONE = 0, SDK_PMDA_EXIT_FAIL = 1 };

/*
 * The argument of option -@c as a number in [@lo, @hi], the whole string
 * (strtod: "0.25", "1e3"; @integer: no fraction). Otherwise a message
 * naming the option and @what, one more error in @opts, and @lo.
 */
static inline double sdk_opt_number(pmdaOptions *opts, int c, double lo, double hi,
		int integer, const char *what)
{
	const char *s = opts->optarg;
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*s && *end == '\0' && !errno && v >= lo && v <= hi &&
	    (!integer || v == (double)(long long)v))
		return v;
	fprintf(stderr, "%s: -%c needs a number of %s, %.15g..%.15g\n",
		pmGetProgname(), c, what, lo, hi);
	opts->errors++;
	return lo;
}

/* After the options: with any error, the usage message and the exit. */
static inline void sdk_opts_done(pmdaOptions *opts)
{
	if (opts->errors) {
		pmdaUsageMessage(opts);
		exit(SDK_PMDA_EXIT_FAIL);
	}
}

#endif
