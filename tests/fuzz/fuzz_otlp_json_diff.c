/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Differential libFuzzer target for the OTLP JSON decoders: the same
 * bytes to the walker (otlp_decode, pmda_trace/otlp/jsonwalk.c) and to
 * json-c's path (otlp_decode_json_ref, ref_json.c). Both must give the
 * same return code and, for 0, the same spans in the same order and the
 * same struct otlp_result, except for exactly these differences:
 *
 * 1. -ENOMEM from json-c's path: its pre-scan bounds what json-c would
 *    allocate (about a kilobyte a bracket), the walker needs a fixed few
 *    kilobytes, so a body json-c's path refuses for the budget the walker
 *    may decode.
 * 2. What json-c takes that RFC 8259 does not, which the walker refuses
 *    (-EBADMSG) where json-c's path gives anything else: an unescaped
 *    control character in a string; bytes in a string that are not
 *    well-formed UTF-8 (json-c 0.16's check lets overlong forms, UTF-16
 *    surrogates and code points past U+10FFFF through); NaN, Infinity and
 *    -Infinity; numbers with leading zeros ("-01", "019.5"), "1.", "1.e5" and "-.0"
 *    (json-c 0.16 in its strict mode); and a time past UINT64_MAX written as a number, which json-c
 *    clamps to UINT64_MAX but refuses when written as a string (OTLP's
 *    JSON mapping has them alike: the walker refuses both). Outside its
 *    strict mode (Debian 13's json-c 0.18, ref_json.c's otlp_json_flags)
 *    json-c also takes words in any case (tRue, nan) and numbers run into
 *    letters (123abc, 0x10): any letters outside strings that are not
 *    true, false, null or an exponent's e count as this difference.
 * 3. A \u0000 in a string: json-c cuts a key there ("name\u0000x" is its
 *    "name") and compares enum names, decimal strings and the resource's
 *    attribute keys as C strings ("SPAN_KIND_SERVER\u0000x" is a kind);
 *    the walker takes the whole string, so such a key is no field of the
 *    schema and such a value not the name or number. Any outcome may
 *    differ for a body with one.
 * Each difference the fuzzer found is a case in
 * tests/unit/pmda_trace/test_otlp_jsonwalk.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../pmda_trace/otlp/otlp.h"
#include "../../pmda_trace/otlp/otlp_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MEM	(4u << 20)	/* a small budget keeps runs fast */

/* The spans one decoder reported: their count and a hash of them all. */
struct seen {
	uint64_t n, hash;
};

static void mix(struct seen *s, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		s->hash = (s->hash ^ b[i]) * 0x100000001b3ull;
}

static int span(void *arg, const struct otlp_span *sp)
{
	struct seen *s = arg;
	int64_t k = sp->kind, st = sp->status;

	s->n++;
	mix(s, sp->service, strlen(sp->service) + 1);
	mix(s, sp->ns, strlen(sp->ns) + 1);
	mix(s, sp->name, strlen(sp->name) + 1);
	mix(s, &k, sizeof(k));
	mix(s, &st, sizeof(st));
	mix(s, &sp->start_ns, sizeof(sp->start_ns));
	mix(s, &sp->end_ns, sizeof(sp->end_ns));
	return sp->name[0] == 'x' ? -1 : 0;	/* some refused by the receiver */
}

/* What of differences 2 and 3 the body has (a rough look, not a parser). */
struct quirks {
	int json;	/* 2: json-c takes it, JSON does not */
	int nul;	/* 3: a \u0000 */
};

static int letter(uint8_t ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* 1 if the letters at @i are true, false, null or a number's exponent. */
static int word(const uint8_t *b, size_t i, size_t len)
{
	static const char *const words[] = { "true", "false", "null" };
	size_t n = 0;

	while (i + n < len && letter(b[i + n]))
		n++;
	for (int k = 0; k < 3; k++)
		if (n == strlen(words[k]) && memcmp(b + i, words[k], n) == 0)
			return 1;
	return n == 1 && (b[i] == 'e' || b[i] == 'E') && i > 0 &&
		((b[i - 1] >= '0' && b[i - 1] <= '9') || b[i - 1] == '.');
}

/* 1 if the '0' at @i is not a number's first digit (one of its fraction or exponent). */
static int in_number(const uint8_t *b, size_t i)
{
	uint8_t p = i > 0 ? b[i - 1] : ' ';

	if (p == '-' && i > 1)
		p = b[i - 2] == 'e' || b[i - 2] == 'E' ? 'e' : ' ';
	return (p >= '0' && p <= '9') || p == '.' || p == 'e' || p == 'E' || p == '+';
}

static void look(const uint8_t *b, size_t len, struct quirks *q)
{
	int str = 0;
	size_t run = 0;		/* digits in a row outside strings */

	q->json = q->nul = 0;
	for (size_t i = 0; i < len; i++) {
		uint8_t ch = b[i];
		uint32_t cp;
		size_t n;

		if (str) {
			if (ch == '"') {
				str = 0;
			} else if (ch == '\\') {
				if (i + 5 < len && memcmp(b + i + 1, "u0000", 5) == 0)
					q->nul = 1;
				i++;
			} else if (ch < 0x20) {
				q->json = 1;
			} else if (ch >= 0x80) {
				if ((n = sdk_utf8_len(b + i, len - i, &cp)) == 0)
					q->json = 1;
				else
					i += n - 1;
			}
			continue;
		}
		run = ch >= '0' && ch <= '9' ? run + 1 : 0;
		if (run >= 20)
			q->json = 1;	/* perhaps past UINT64_MAX */
		if (ch == '"')
			str = 1;
		else if (letter(ch) && (i == 0 || !letter(b[i - 1])) && !word(b, i, len))
			q->json = 1;	/* NaN, Infinity, and more outside strict mode */
		else if (ch == '0' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9' && !in_number(b, i))
			q->json = 1;	/* a leading zero: 01, -01, 019.5 */
		else if (ch == '.' && (i + 1 >= len || b[i + 1] < '0' || b[i + 1] > '9' || i == 0 ||
				       b[i - 1] < '0' || b[i - 1] > '9'))
			q->json = 1;	/* 1., -.0 */
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct otlp_result rw, rr;
	struct seen sw = { 0, 0xcbf29ce484222325ull }, sr = sw;
	struct quirks q;
	int w, r;

	w = otlp_decode(OTLP_JSON, data, size, FUZZ_MEM, span, &sw, &rw);
	r = otlp_decode_json_ref(data, size, FUZZ_MEM, span, &sr, &rr);
	if (w < 0 && (w != -EBADMSG && w != -E2BIG && w != -ENOMEM))
		abort();
	if (w < 0 && (sw.n != 0 || rw.accepted != 0 || rw.rejected != 0 || rw.message[0] == '\0'))
		abort();
	if (w == r && (w < 0 || (sw.n == sr.n && sw.hash == sr.hash &&
				 memcmp(&rw, &rr, sizeof(rw)) == 0)))
		return 0;
	if (r == -ENOMEM)
		return 0;	/* 1 */
	look(data, size, &q);
	if (q.nul || (q.json && w == -EBADMSG))
		return 0;	/* 2, 3 */
	fprintf(stderr, "walker %d (%llu spans, %llu/%llu, '%s'), json-c %d (%llu spans, %llu/%llu, '%s')\n",
		w, (unsigned long long)sw.n, (unsigned long long)rw.accepted,
		(unsigned long long)rw.rejected, rw.message, r, (unsigned long long)sr.n,
		(unsigned long long)rr.accepted, (unsigned long long)rr.rejected, rr.message);
	abort();
}
