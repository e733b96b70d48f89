/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * label_payloads.h - label payloads and whether the MMV agent serves
 * them, shared by the reader's unit test and tests/compat/label_parse.c,
 * which checks every row against Debian's libpcp on each run.
 */
#ifndef LABEL_PAYLOADS_H
#define LABEL_PAYLOADS_H

#include <stdbool.h>
#include "pcp_compat.h"

/*
 * Payloads and what Debian's libpcp makes of them through pmdaAddLabels
 * (tests/compat/label_parse.c checks this table against the PCP built
 * against on every run): refused (-EINVAL), no label at all (cut short,
 * "{}"), or broken text passed on (cut short after a member, "1e5.5",
 * "\u12"). Only the first kind is refused by PCP; we refuse all three.
 * PCP7_OK: label names that begin with a digit or '_', which PCP 7 takes
 * and PCP 6 refuses.
 */
#ifdef SDK_PCP7
#define PCP7_OK	true
#else
#define PCP7_OK	false
#endif

static const struct label_payload {
	const char *json;
	bool ok;
} payloads[] = {
	{ "{\"a\":1}", true },
	{ " {\"a\" : \"x\" , \"b\":[1,{\"c\":null}]}\r\n", true },
	{ "{\"a\":{\"b\":{\"c\":-1.5e+3}},\"B9_\":true}", true },
	{ "{\"a\":\"\\u00e9\\\"\"}", true },
	{ "{\"a\":", false },		/* the agent crashed on this one */
	{ "{\"a\":1", false },
	{ "{\"a\":[1,2]", false },
	{ "{\"a\":1,\"b\"", false },
	{ "{}", false },
	{ "[1]", false },
	{ "1", false },
	{ "{\"a\":1}x", false },
	{ "{\"1a\":1}", PCP7_OK },
	{ "{\"_a\":1}", PCP7_OK },
	{ "{\"a-b\":1}", false },
	{ "{\"a\":1,\"a\":2}", false },
	{ "{\"a\":{\"b\":1,\"b\":2}}", false },
	{ "{\"a\":[{\"1\":2}]}", PCP7_OK },
	{ "{\"a\":tru}", false },
	{ "{\"a\":01}", false },
	{ "{\"a\":1e5.5}", false },
	{ "{\"a\":\"\\u12\"}", false },
	{ "{\"a\":\"x\ty\"}", false },
	{ "{\f\"a\":1}", false },
};

#endif
