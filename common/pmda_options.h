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

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How an agent ends: pmcd closed the pipe, or it could not start (a bad
 * option, after the usage message; or a failed set-up, logged). */
enum { SDK_PMDA_EXIT_DONE = 0, SDK_PMDA_EXIT_FAIL = 1 };

/*
 * Every number on the agents' command lines (and in the environment
 * variables they read) is read here, one way: decimal, the whole string,
 * checked against a range. Leading blanks and a sign are taken, as PCP's
 * agents read their numbers (strtol, base 10): "010" is ten, "0x10",
 * "1e3", "12abc" and "" are not numbers. The sdk_parse_ functions only
 * read; the sdk_opt_ ones read an option's argument and, when it is not
 * one, print the one message form
 *	PROG: -C needs WHAT, LO..HI
 * ("-c needs a number of clients, 1..1000000", "-b needs a byte size
 * (k, M, G: powers of 1024), 1M..1024G") and count an error in the
 * options (sdk_opts_done then exits).
 */

/* Reads decimal digits at *@sp into *@v, advancing *@sp; -EINVAL for
 * none, -ERANGE past UINT64_MAX. */
static inline int sdk_parse_digits(const char **sp, uint64_t *v)
{
	const char *s = *sp;
	uint64_t n = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (n > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n = n * 10 + d;
	}
	*sp = s;
	*v = n;
	return 0;
}

/* Skips blanks and a sign at *@sp; 1 if the sign was '-'. */
static inline int sdk_parse_sign(const char **sp)
{
	const char *s = *sp;
	int neg = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	*sp = s;
	return neg;
}

/*
 * sdk_parse_integer - @s as a decimal integer in [@lo, @hi] into *@v.
 * Returns 0; -EINVAL if @s is not one (*@v untouched), -ERANGE if it is
 * outside the range.
 */
static inline int sdk_parse_integer(const char *s, long long lo, long long hi, long long *v)
{
	int neg = sdk_parse_sign(&s), rc;
	uint64_t mag;
	long long n;

	if ((rc = sdk_parse_digits(&s, &mag)) < 0 || *s != '\0')
		return rc < 0 ? rc : -EINVAL;
	if (mag > (uint64_t)LLONG_MAX + (uint64_t)neg)
		return -ERANGE;
	n = !neg ? (long long)mag : mag == 0 ? 0 : -(long long)(mag - 1) - 1;
	if (n < lo || n > hi)
		return -ERANGE;
	*v = n;
	return 0;
}

/*
 * sdk_parse_decimal - @s as a decimal number in [@lo, @hi] into *@v:
 * digits with an optional fraction ("0.25", "5", "5."; no exponent, no
 * "inf" or "nan"), after blanks and a sign. Returns 0, -EINVAL or -ERANGE
 * as sdk_parse_integer.
 */
static inline int sdk_parse_decimal(const char *s, double lo, double hi, double *v)
{
	const char *p = s;
	int digits = 0;
	double n;

	sdk_parse_sign(&p);
	for (; *p >= '0' && *p <= '9'; p++)
		digits = 1;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			digits = 1;
	if (!digits || *p != '\0')
		return -EINVAL;
	n = strtod(s, NULL);	/* the syntax checked above: decimal only */
	if (!(n >= lo && n <= hi))
		return -ERANGE;
	*v = n;
	return 0;
}

/*
 * sdk_parse_bytes - @s as a byte size in [@lo, @hi] into *@v: decimal
 * digits, then optionally a multiplier, always a power of 1024: k or
 * KiB (1024), M or MiB (1024^2), G or GiB (1024^3), letters in any case
 * ("65536", "64k", "64K", "64KiB", "64M", "1G"). "KB", "MB" and "GB" are
 * refused rather than guessed (1000 or 1024?); no sign, no fraction.
 * Returns 0, -EINVAL or -ERANGE as sdk_parse_integer.
 */
static inline int sdk_parse_bytes(const char *s, uint64_t lo, uint64_t hi, uint64_t *v)
{
	static const char units[] = "kmg";
	uint64_t n, mult = 1;
	const char *u;
	int rc;

	while (*s == ' ' || *s == '\t')
		s++;
	if ((rc = sdk_parse_digits(&s, &n)) < 0)
		return rc;
	if (*s != '\0') {
		if ((u = strchr(units, tolower((unsigned char)*s))) == NULL)
			return -EINVAL;
		for (const char *k = units; k <= u; k++)
			mult *= 1024;
		s++;
		if (strcasecmp(s, "ib") == 0)
			s += 2;
		if (*s != '\0')
			return -EINVAL;
		if (n > UINT64_MAX / mult)
			return -ERANGE;
	}
	n *= mult;
	if (n < lo || n > hi)
		return -ERANGE;
	*v = n;
	return 0;
}

/*
 * sdk_bytes_text - @v as sdk_parse_bytes reads it, shortest: "64M" for
 * 67108864, "1536" for 1536, into @buf of @size (24 always do). Returns
 * @buf.
 */
static inline char *sdk_bytes_text(uint64_t v, char *buf, size_t size)
{
	static const char units[] = "kMG";
	int i = -1;

	while (i < 2 && v != 0 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	if (i < 0)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "%llu%c", (unsigned long long)v, units[i]);
	return buf;
}

/* What a byte size option needs, in its message. */
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
 * sdk_opt_integer - option -@c's argument as sdk_parse_integer reads it,
 * in [@lo, @hi]; otherwise the message ("a number of @what") and @lo.
 */
static inline long long sdk_opt_integer(pmdaOptions *opts, int c, long long lo, long long hi,
		const char *what)
{
	char l[24], h[24], w[80];
	long long v;

	if (sdk_parse_integer(opts->optarg, lo, hi, &v) == 0)
		return v;
	snprintf(l, sizeof(l), "%lld", lo);
	snprintf(h, sizeof(h), "%lld", hi);
	snprintf(w, sizeof(w), "a number of %s", what);
	sdk_opt_refuse(opts, c, w, l, h);
	return lo;
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

/*
 * sdk_opt_bytes - option -@c's argument as sdk_parse_bytes reads it, in
 * [@lo, @hi]; otherwise the message (SDK_OPT_BYTES_WHAT, "1M..4G") and
 * @lo.
 */
static inline uint64_t sdk_opt_bytes(pmdaOptions *opts, int c, uint64_t lo, uint64_t hi)
{
	char l[24], h[24];
	uint64_t v;

	if (sdk_parse_bytes(opts->optarg, lo, hi, &v) == 0)
		return v;
	sdk_opt_refuse(opts, c, SDK_OPT_BYTES_WHAT, sdk_bytes_text(lo, l, sizeof(l)),
		       sdk_bytes_text(hi, h, sizeof(h)));
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
