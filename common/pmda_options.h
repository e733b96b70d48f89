/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * pmda_options.h - what the two agents' command lines share: one reader
 * of numbers (integers, decimals, byte sizes) checked whole and in range,
 * one message form, and one set of exit codes. Include after
 * <pcp/pmapi.h> and <pcp/pmda.h>.
 *
 * Threads: the sdk_parse_ functions are reentrant; the sdk_opt_ ones
 * write to stderr and the options, from the thread parsing them.
 */
#ifndef SDK_PMDA_OPTIONS_H
#define SDK_PMDA_OPTIONS_H

#include <stdio.h>
#include <stdlib.h>

#include "parse_number.h"

/* How an agent ends: pmcd closed the pipe, or it could not start (a bad
 * option, after the usage message; or a failed set-up, logged). */
enum { SDK_PMDA_EXIT_DONE = 0, SDK_PMDA_EXIT_FAIL = 1 };

#define SDK_OPT_BYTES_WHAT	"a byte size (k, M, G: powers of 1024)"

/*
 * sdk_opt_refuse - the one message for option -@c's argument that is not
 * @what ("a number of clients") in @lo..@hi (as text), and an error
 * counted in @opts.
 */
static inline void sdk_opt_refuse(pmdaOptions *opts, int c, const char *what,
		const char *lo, const char *hi)
{
	fprintf(stderr, "%s: -%c needs %s, %s..%s\n", pmGetProgname(), c, what, lo, hi);
	opts->errors++;
}

/*
 * sdk_opt_decimal - option -@c's argument as sdk_parse_decimal reads it,
 * in [@lo, @hi]; otherwise the message ("a number of @what") and @lo.
 */
static inline double sdk_opt_decimal(pmdaOptions *opts, int c, double lo, double hi,
		const char *what)
{
	char l[32], h[32], w[80];
	double v;

	if (sdk_parse_decimal(opts->optarg, lo, hi, &v) == 0)
		return v;
	snprintf(l, sizeof(l), "%.15g", lo);
	snprintf(h, sizeof(h), "%.15g", hi);
	snprintf(w, sizeof(w), "a number of %s", what);
	sdk_opt_refuse(opts, c, w, l, h);
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
