/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * label_parse.c - the agent's label payload check (common/json_check.c)
 * against Debian's label parser, as libpcp_pmda runs it (pmdaAddLabels).
 *
 * Payloads: the rows of tests/lib/label_payloads.h, every prefix of the
 * rows the agent serves (files cut short), and random one-character
 * mutations of those (fixed seed). Each is given to pmdaAddLabels in a
 * child, which may crash. One line per payload on stdout:
 *   <pcp> <ours> <payload as hex> <text PCP passes on, or ->
 * pcp: "refused" (< 0), "none" (no label), "crash", or "ok"; ours: "ok"
 * or "refused". The program itself fails (exit 1, a line on stderr) when
 * a table row disagrees with its own "ok", or when ours serves what PCP
 * refuses, gives no label for, crashes on, or passes on changed;
 * run.sh checks the lines where PCP passes on what ours refuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include "json_check.h"
#include "../lib/label_payloads.h"

#define NMUTANTS	400	/* per served row */

static int failures;

/* Debian's verdict on @json; @out gets the text it would pass on. */
static const char *pcp_verdict(const char *json, char *out, size_t len)
{
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	out[0] = '\0';
	if (pipe(fd) < 0 || (pid = fork()) < 0)
		exit(2);
	if (pid == 0) {
		pmLabelSet *lp = NULL;
		int sts;

		close(fd[0]);
		sts = pmdaAddLabels(&lp, "%s", json);
		if (sts > 0 && lp != NULL && lp->json != NULL)
			dprintf(fd[1], "ok %.*s", lp->jsonlen, lp->json);
		else
			dprintf(fd[1], "%s", sts < 0 ? "refused" : "none");
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], out, len - 1);
	close(fd[0]);
	out[n > 0 ? n : 0] = '\0';
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		return "crash";
	if (strncmp(out, "ok ", 3) == 0) {
		memmove(out, out + 3, strlen(out + 3) + 1);
		return "ok";
	}
	return strcmp(out, "refused") == 0 ? "refused" : "none";
}

/* The payload without white space outside strings: PCP's clean form. */
static void squeeze(const char *s, char *out)
{
	int in_str = 0;

	for (; *s; s++) {
		if (in_str) {
			if (*s == '\\' && s[1]) {
				*out++ = *s++;
			} else if (*s == '"') {
				in_str = 0;
			}
		} else if (*s == '"') {
			in_str = 1;
		} else if (strchr(" \t\r\n", *s)) {
			continue;
		}
		*out++ = *s;
	}
	*out = '\0';
}

static void one(const char *json, int expect)
{
	char text[1024], clean[512];
	const char *pcp = pcp_verdict(json, text, sizeof(text));
	int ours = sdk_json_label_set_valid(json, strlen(json));

	printf("%s %s ", pcp, ours ? "ok" : "refused");
	for (const char *c = json; *c; c++)
		printf("%02x", (unsigned char)*c);
	printf(" %s\n", strcmp(pcp, "ok") == 0 ? text : "-");
	if (expect >= 0 && ours != expect) {
		fprintf(stderr, "table row %s: ours %d\n", json, ours);
		failures++;
	}
	squeeze(json, clean);
	if (ours && (strcmp(pcp, "ok") != 0 || strcmp(text, clean) != 0)) {
		fprintf(stderr, "ours serves %s; PCP: %s %s\n", json, pcp, text);
		failures++;
	}
}

int main(void)
{
	static const char alphabet[] = "{}[]\":, \\01eE.-+tfnul_aZ\t";
	unsigned int seed = 12345;
	size_t i, k;

	for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++)
		one(payloads[i].json, payloads[i].ok);
	for (i = 0; i < sizeof(payloads) / sizeof(payloads[0]); i++) {
		const char *p = payloads[i].json;
		size_t len = strlen(p);
		char buf[300];

		if (!payloads[i].ok)
			continue;
		for (k = 1; k < len; k++) {
			snprintf(buf, sizeof(buf), "%.*s", (int)k, p);
			one(buf, -1);
		}
		for (k = 0; k < NMUTANTS; k++) {
			size_t at;
			char c;

			seed = seed * 1103515245u + 12345u;
			at = (seed >> 8) % len;
			c = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
			snprintf(buf, sizeof(buf), "%s", p);
			switch ((seed >> 4) % 3) {
			case 0:		/* replace */
				buf[at] = c;
				break;
			case 1:		/* insert */
				memmove(buf + at + 1, buf + at, len - at + 1);
				buf[at] = c;
				break;
			default:	/* delete */
				memmove(buf + at, buf + at + 1, len - at);
				break;
			}
			one(buf, -1);
		}
	}
	return failures ? 1 : 0;
}
