/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * state.c - the OpenTelemetry metrics store's PMID state file (otel.h,
 * PMIDs): one line a leaf, in PMID order,
 *
 *	CLUSTER.ITEM NAME kind=KIND mono=0|1 type=64|double unit=UNIT otel=OTELNAME
 *
 * NAME the leaf's full PCP name, KIND otel_kind_name's, UNIT and OTELNAME
 * as sent with each byte up to the space, DEL and '%' as %XX; other keys
 * are skipped (room to grow), '#' starts a comment line. Written afresh
 * (a temporary file renamed over it) when a metric is made, read when the
 * store is: every metric in it is made, with its path and PMIDs, before
 * any point arrives, so pmlogger and pmie find their names at once. A
 * line that does not parse or disagrees with one before it is skipped
 * and logged (the first few), and the file written again without it; a
 * leaf left without a PMID gets one from its name's hash.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "otel_priv.h"
#include "parse_number.h"

#define LINE_MAX_BYTES	4096
#define BAD_LOGGED	10	/* bad lines logged one by one, then counted */

static void put_escaped(FILE *f, const char *s)
{
	for (const unsigned char *u = (const unsigned char *)s; *u; u++) {
		if (*u <= ' ' || *u == 0x7f || *u == '%')
			fprintf(f, "%%%02X", *u);
		else
			fputc(*u, f);
	}
}

/* @s unescaped in place: false if a %XX is not one (or is a NUL). */
static bool unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s == '%') {
			int h = sdk_hex_digit(s[1]), l = h < 0 ? -1 : sdk_hex_digit(s[2]);

			if (l < 0 || (h == 0 && l == 0))
				return false;
			*o++ = (char)(h << 4 | l);
			s += 2;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
	return true;
}

void otel_state_write(struct otel_store *s)
{
	char tmp[4096], name[OTEL_LEAF_NAME_MAX];
	FILE *f;
	int err = 0;

	if (s->state == NULL)
		return;
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp", s->state) >= sizeof(tmp)) {
		err = ENAMETOOLONG;
		goto fail;
	}
	if ((f = fopen(tmp, "w")) == NULL) {
		err = errno;
		goto fail;
	}
	fprintf(f, "# pmdatrace's OpenTelemetry metrics, a leaf a line:\n"
		"# CLUSTER.ITEM NAME kind=KIND mono=0|1 type=64|double unit=UNIT otel=OTELNAME\n");
	for (size_t i = 0; i < s->nleaves; i++) {
		const struct leafref *l = &s->leaves[i];
		const struct metric *m = l->m;
		unsigned bits = otel_pmid_bits(l->pmid);

		otel_leaf_name(m, l->leaf, name, sizeof(name));
		fprintf(f, "%u.%u %s kind=%s mono=%d type=%s unit=", OTEL_CLUSTER_MIN + (bits >> 10),
			bits & 1023, name, otel_kind_name(m->kind), m->monotonic,
			m->type == PM_TYPE_64 ? "64" : "double");
		put_escaped(f, m->unit);
		fputs(" otel=", f);
		put_escaped(f, m->name);
		fputc('\n', f);
	}
	/*
	 * No fsync: it would hold the store's mutex (every recorder and the
	 * agent's fetches) for a disk's round trip on each new metric, and a
	 * file lost to a power cut costs little, the PMIDs coming back from
	 * the same hashes (collisions aside).
	 */
	if (fflush(f) != 0 || ferror(f))
		err = errno ? errno : EIO;
	if (fclose(f) != 0 && err == 0)
		err = errno;
	if (err == 0 && rename(tmp, s->state) != 0)
		err = errno;
	if (err == 0) {
		s->state_failed = false;
		return;
	}
	unlink(tmp);
fail:
	if (!s->state_failed)
		otel_logf(s, LOG_ERR, "OpenTelemetry metrics: cannot write %s: %s (PMIDs of new "
			  "metrics are not kept across a restart until it can be)", s->state,
			  strerror(err));
	s->state_failed = true;
}

/* One line's fields. */
struct line {
	unsigned cluster, item;
	char *name;		/* the leaf's full name */
	int kind, mono, type;
	char *unit, *otel;
};

/* Split @buf into @ln: NULL, or why it does not parse. */
static const char *parse(char *buf, struct line *ln)
{
	char *save = NULL, *tok, *end;
	int n = 0;

	memset(ln, 0, sizeof(*ln));
	ln->kind = ln->mono = ln->type = -1;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save), n++) {
		if (n == 0) {
			unsigned long c = strtoul(tok, &end, 10), i;

			if (end == tok || *end != '.')
				return "no PMID";
			i = strtoul(end + 1, &end, 10);
			if (*end != '\0' || c < OTEL_CLUSTER_MIN || c > 4095 || i > 1023)
				return "PMID out of range";
			ln->cluster = (unsigned)c;
			ln->item = (unsigned)i;
		} else if (n == 1) {
			ln->name = tok;
		} else if (strncmp(tok, "kind=", 5) == 0) {
			if ((ln->kind = otel_kind_parse(tok + 5)) < 0)
				return "unknown kind";
		} else if (strncmp(tok, "mono=", 5) == 0) {
			if (strcmp(tok + 5, "0") != 0 && strcmp(tok + 5, "1") != 0)
				return "bad mono";
			ln->mono = tok[5] == '1';
		} else if (strncmp(tok, "type=", 5) == 0) {
			if (strcmp(tok + 5, "64") == 0)
				ln->type = PM_TYPE_64;
			else if (strcmp(tok + 5, "double") == 0)
				ln->type = PM_TYPE_DOUBLE;
			else
				return "unknown type";
		} else if (strncmp(tok, "unit=", 5) == 0) {
			ln->unit = tok + 5;
		} else if (strncmp(tok, "otel=", 5) == 0) {
			ln->otel = tok + 5;
		}
	}
	if (ln->name == NULL || ln->kind < 0 || ln->otel == NULL)
		return "missing fields";
	if (ln->mono < 0)
		ln->mono = 0;
	if (ln->unit == NULL)
		ln->unit = ln->name + strlen(ln->name);	/* "", writable */
	if ((ln->kind == OTEL_GAUGE || ln->kind == OTEL_SUM) && ln->type < 0)
		return "no type";
	if (ln->type < 0)
		ln->type = PM_TYPE_DOUBLE;
	if (!unescape(ln->unit) || !unescape(ln->otel))
		return "bad escape";
	if (*ln->otel == '\0' || strlen(ln->otel) > OTEL_NAME_MAX || strlen(ln->unit) > OTEL_UNIT_MAX)
		return "bad OpenTelemetry name or unit";
	return NULL;
}

/* The leaf and path of @ln's name: NULL, or why they do not fit its kind. */
static const char *leaf_of(struct line *ln, enum otel_leaf *leaf, size_t *path_len)
{
	const char *root = OTEL_PMNS_ROOT ".", *path, *dot;
	size_t len;

	if (strncmp(ln->name, root, strlen(root)) != 0)
		return "not below " OTEL_PMNS_ROOT;
	path = ln->name + strlen(root);
	len = strlen(path);
	*leaf = OTEL_LEAF_VALUE;
	if (!otel_has_leaf(ln->kind, OTEL_LEAF_VALUE)) {
		if ((dot = strrchr(path, '.')) == NULL)
			return "no leaf name";
		for (*leaf = OTEL_LEAF_COUNT; *leaf < OTEL_LEAF_N; (*leaf)++)
			if (strcmp(dot + 1, otel_leaf_names[*leaf]) == 0)
				break;
		if (*leaf == OTEL_LEAF_N || !otel_has_leaf(ln->kind, *leaf))
			return "not a leaf of its kind";
		len = (size_t)(dot - path);
	}
	if (len > OTEL_PATH_MAX || !otel_path_valid(path, len))
		return "not a PMNS name";
	*path_len = len;
	return NULL;
}

/* @ln taken in: NULL, or why not. */
static const char *take(struct otel_store *s, struct line *ln, bool *stop)
{
	const char *why, *path;
	enum otel_leaf leaf;
	size_t path_len;
	struct metric *m;
	pmID pmid;

	if ((why = leaf_of(ln, &leaf, &path_len)) != NULL)
		return why;
	path = ln->name + strlen(OTEL_PMNS_ROOT) + 1;
	if ((m = otel_metric_find(s, ln->otel, strlen(ln->otel))) != NULL) {
		if ((int)m->kind != ln->kind || m->monotonic != (ln->mono && ln->kind == OTEL_SUM) ||
		    m->type != ln->type || strcmp(m->unit, ln->unit) != 0 ||
		    m->path_len != path_len || memcmp(m->path, path, path_len) != 0)
			return "disagrees with the metric's line before";
	} else {
		if (otel_path_taken(s, path, path_len))
			return "path taken by another metric";
		m = otel_metric_new(s, ln->otel, strlen(ln->otel), path, path_len, ln->unit,
				    strlen(ln->unit), ln->kind, ln->mono, ln->type);
		if (m == NULL || otel_metric_prepare(s, m) < 0) {
			if (m != NULL)
				otel_metric_free(s, m);
			*stop = true;
			return "out of memory";
		}
		otel_metric_link(s, m);
	}
	if (m->pmid[leaf] != PM_ID_NULL)
		return "a second line of the same leaf";
	pmid = otel_pmid(s->domain, (ln->cluster - OTEL_CLUSTER_MIN) << 10 | ln->item);
	if (!otel_pmid_take(s, m, leaf, pmid))
		return "PMID of another leaf";
	return NULL;
}

void otel_state_read(struct otel_store *s)
{
	char buf[LINE_MAX_BYTES];
	unsigned lineno = 0, bad = 0;
	size_t filled = 0, before;
	bool stop = false;
	struct hslot *sl;
	FILE *f;

	if ((f = fopen(s->state, "r")) == NULL) {
		if (errno != ENOENT)
			otel_logf(s, LOG_ERR, "OpenTelemetry metrics: cannot read %s: %s", s->state,
				  strerror(errno));
		return;
	}
	while (!stop && fgets(buf, sizeof(buf), f) != NULL) {
		size_t len = strlen(buf);
		const char *why;
		struct line ln;

		lineno++;
		if (len > 0 && buf[len - 1] == '\n') {
			buf[--len] = '\0';
		} else if (!feof(f)) {
			int c;

			while ((c = fgetc(f)) != EOF && c != '\n')
				;
			why = "too long";
			goto bad;
		}
		if (buf[0] == '#' || buf[strspn(buf, " \t")] == '\0')
			continue;
		if ((why = parse(buf, &ln)) == NULL && (why = take(s, &ln, &stop)) == NULL)
			continue;
bad:
		if (++bad <= BAD_LOGGED)
			otel_logf(s, LOG_WARNING, "OpenTelemetry metrics: %s:%u skipped: %s", s->state,
				  lineno, why);
	}
	fclose(f);
	if (bad > BAD_LOGGED)
		otel_logf(s, LOG_WARNING, "OpenTelemetry metrics: %s: %u lines skipped in all",
			  s->state, bad);
	otel_ht_for_each(&s->metrics, sl) {
		before = s->nleaves;
		otel_metric_pmids(s, sl->val);
		filled += s->nleaves - before;
	}
	if (s->nmetrics > s->max_metrics)
		otel_logf(s, LOG_WARNING, "OpenTelemetry metrics: %s holds %zu metrics, more than "
			  "the %zu allowed: no new one is taken", s->state, s->nmetrics,
			  s->max_metrics);
	if (bad > 0 || filled > 0)
		otel_state_write(s);
}
