/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * parse_number.h - the one reader of numbers of the agents' command
 * lines, their environment variables and their configuration strings
 * (access lists, addresses): integers, decimals and byte sizes, checked
 * whole and in range. pmda_options.h builds the options' messages on it.
 *
 * Threads: reentrant, no state.
 */
#ifndef SDK_PARSE_NUMBER_H
#define SDK_PARSE_NUMBER_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* sdk_hex_digit - the value of hexadecimal digit @c (either case), or -1. */
static inline int sdk_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

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

#endif
