/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OpenTelemetry metrics store (pmda_trace/otel/otel.h), a test per
 * paragraph of its contract: names and their conflicts, PMIDs kept by
 * the state file and independent of arrival order, series and instance
 * names, labels (parsed with json-c), semantics, types and units per
 * kind, deltas, resets, buckets of explicit and exponential histograms,
 * percentiles, summaries, every refusal, caps, the byte budget and
 * expiry. Expected values are worked out in the comments.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <cmocka.h>
#include <json-c/json.h>

#include "../../../pmda_trace/otel/otel_priv.h"
#include "heap_bytes.h"
#include "otel_helpers.h"

#define REJ(why) (-1 - OTEL_REJECT_##why)
#define T0	(100 * SEC)

static char logged[16][512];
static int nlogged;

static void test_log(int pri, const char *msg)
{
	(void)pri;
	if (nlogged < 16)
		snprintf(logged[nlogged], sizeof(logged[0]), "%s", msg);
	nlogged++;
}

static struct otel_store *store_with(const char *state, size_t max_metrics, size_t max_series,
		size_t max_bytes)
{
	struct otel_cfg cfg = {
		.domain = 155, .state = state, .max_metrics = max_metrics, .max_series = max_series,
		.max_bytes = max_bytes, .idle_sec = 10, .now_ns = test_clock, .log = test_log,
	};
	struct otel_store *s = otel_store_new(&cfg);

	assert_non_null(s);
	return s;
}

static struct otel_store *store(void)
{
	return store_with(NULL, 0, 0, 0);
}

static int rec(struct otel_store *s, struct otel_metric m, struct otel_point p)
{
	return otel_record(s, &shop, &m, &p);
}

static pmDesc desc_of(struct otel_store *s, const char *name)
{
	pmDesc d;

	assert_int_equal(otel_lookup_name(s, name, &d), 0);
	return d;
}

static double fetch_d(struct otel_store *s, const char *leaf, const char *inst)
{
	pmAtomValue a;

	assert_int_equal(fetch(s, leaf, inst, &a), 1);
	return a.d;
}

static uint64_t fetch_u(struct otel_store *s, const char *leaf, const char *inst)
{
	pmAtomValue a;

	assert_int_equal(fetch(s, leaf, inst, &a), 1);
	return a.ull;
}

static int64_t fetch_i(struct otel_store *s, const char *leaf, const char *inst)
{
	pmAtomValue a;

	assert_int_equal(fetch(s, leaf, inst, &a), 1);
	return a.ll;
}

/* A JSON object from @json (asserted), to be put. */
static json_object *parse(const char *json)
{
	json_object *o = json_tokener_parse(json);

	assert_non_null(o);
	assert_true(json_object_is_type(o, json_type_object));
	return o;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		return NULL;
	return json_object_get_string(v);
}

/* ---- names ---- */

static void pmns_paths(void **state)
{
	char buf[64];

	(void)state;
	assert_int_equal(otel_pmns_path("http.server.request.duration", buf, sizeof(buf)), 28);
	assert_string_equal(buf, "http.server.request.duration");
	/* each refused character one '_', an 'x' before a component not starting with a letter */
	assert_int_equal(otel_pmns_path("http-server.status.2xx", buf, sizeof(buf)), 23);
	assert_string_equal(buf, "http_server.status.x2xx");
	assert_int_equal(otel_pmns_path("a..b", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "a.x.b");
	assert_int_equal(otel_pmns_path(".a", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "x.a");
	assert_int_equal(otel_pmns_path("_q.ms/op", buf, sizeof(buf)), 9);
	assert_string_equal(buf, "x_q.ms_op");
	/* é is two bytes, one character: 'x' then one '_' */
	assert_int_equal(otel_pmns_path("\xc3\xa9t\xc3\xa9", buf, sizeof(buf)), 4);
	assert_string_equal(buf, "x_t_");
	assert_int_equal(otel_pmns_path("", buf, sizeof(buf)), -1);
	assert_int_equal(otel_pmns_path("abcdef", buf, 6), -1);
	assert_int_equal(otel_pmns_path("abcdef", buf, 7), 6);
}

static void label_names(void **state)
{
	char buf[16];

	(void)state;
	assert_int_equal(otel_label_name("http.route", 10, buf, sizeof(buf)), 10);
	assert_string_equal(buf, "http_route");
	assert_int_equal(otel_label_name("2xx", 3, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "x2xx");
	assert_int_equal(otel_label_name("", 0, buf, sizeof(buf)), 1);
	assert_string_equal(buf, "x");
	assert_int_equal(otel_label_name("k8s.pod.name", 12, buf, sizeof(buf)), 12);
	assert_string_equal(buf, "k8s_pod_name");
	assert_int_equal(otel_label_name("0123456789abcdef", 16, buf, sizeof(buf)), -1);
}

/* @otel's leaf (VALUE: "") full name: the one @s gave it. */
static void named(struct otel_store *s, const char *pcp, const char *otel)
{
	char json[512];
	pmDesc d = desc_of(s, pcp);
	json_object *o;

	assert_true(otel_item_labels(s, d.pmid, json, sizeof(json)) > 0);
	o = parse(json);
	assert_string_equal(jstr(o, "otel_name"), otel);
	json_object_put(o);
}

static void name_conflicts(void **state)
{
	struct otel_store *s = store();
	pmDesc d;

	(void)state;
	/* two names, one path: the second gets _2 */
	assert_int_equal(rec(s, gauge("a.b-c", ""), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("a.b_c", ""), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("a.b/c", ""), ipoint(1, T0)), 0);
	named(s, "trace.otel.a.b_c", "a.b-c");
	named(s, "trace.otel.a.b_c_2", "a.b_c");
	named(s, "trace.otel.a.b_c_3", "a.b/c");
	/* a leaf where a subtree is wanted: the component where they meet gets _2 */
	assert_int_equal(rec(s, gauge("http.server", ""), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("http.server.active", ""), ipoint(1, T0)), 0);
	named(s, "trace.otel.http.server", "http.server");
	named(s, "trace.otel.http.server_2.active", "http.server.active");
	/* and the other way round: a leaf where a subtree is */
	assert_int_equal(rec(s, gauge("db.client.ops", ""), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("db.client", ""), ipoint(1, T0)), 0);
	named(s, "trace.otel.db.client.ops", "db.client.ops");
	named(s, "trace.otel.db.client_2", "db.client");
	/* below a histogram's fixed leaves nothing else goes */
	{
		static const double b[] = { 1 };
		static const uint64_t c[] = { 1, 0 };

		assert_int_equal(rec(s, histo("rpc.dur", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE),
				     hpoint(b, 1, c, 0.5, T0)), 0);
	}
	assert_int_equal(rec(s, gauge("rpc.dur.count", ""), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("rpc.dur.extra", ""), ipoint(1, T0)), 0);
	named(s, "trace.otel.rpc.dur.count", "rpc.dur");
	named(s, "trace.otel.rpc.dur_2.count", "rpc.dur.count");
	named(s, "trace.otel.rpc.dur_2.extra", "rpc.dur.extra");
	/* a histogram's path names no leaf, nor does an interior node */
	assert_int_equal(otel_lookup_name(s, "trace.otel.rpc.dur", &d), PM_ERR_NAME);
	assert_int_equal(otel_lookup_name(s, "trace.otel.http", &d), PM_ERR_NAME);
	assert_int_equal(otel_lookup_name(s, "trace.otel.rpc.dur.value", &d), PM_ERR_NAME);
	assert_int_equal(otel_lookup_name(s, "trace.other", &d), PM_ERR_NAME);
	/* names longer than OTEL_NAME_MAX are cut there: one metric */
	{
		char longname[400];
		char leaf[300] = "trace.otel.";

		memset(longname, 'n', sizeof(longname) - 1);
		longname[sizeof(longname) - 1] = '\0';
		assert_int_equal(rec(s, gauge(longname, ""), ipoint(1, T0)), 0);
		longname[300] = '\0';
		assert_int_equal(rec(s, gauge(longname, ""), ipoint(2, T0 + 1)), 0);
		longname[OTEL_NAME_MAX] = '\0';
		strcat(leaf, longname);
		assert_int_equal(fetch_i(s, leaf, "shop"), 2);
		named(s, leaf, longname);
	}
	otel_store_free(s);
}

/* ---- PMIDs and the state file ---- */

struct pmids {
	int n;
	char name[64][128];
	pmID pmid[64];
	pmInDom indom[64];
};

static void add_pmid(void *arg, const char *name, const pmDesc *d)
{
	struct pmids *p = arg;

	assert_true(p->n < 64);
	snprintf(p->name[p->n], sizeof(p->name[0]), "%s", name);
	p->pmid[p->n] = d->pmid;
	p->indom[p->n] = d->indom;
	p->n++;
}

static pmID pmid_of(const struct pmids *p, const char *name)
{
	for (int i = 0; i < p->n; i++)
		if (strcmp(p->name[i], name) == 0)
			return p->pmid[i];
	fail_msg("no leaf %s", name);
	return PM_ID_NULL;
}

static void the_metrics(struct otel_store *s, bool reverse)
{
	static const double b[] = { 1, 2 };
	static const uint64_t c[] = { 1, 1, 1 };
	static const struct otel_quantile q[] = { { 0.5, 1 } };
	struct otel_point sp = { .start_ns = 1, .time_ns = T0, .count = 1, .quantiles = q,
				 .n_quantiles = 1 };

	for (int i = 0; i < 4; i++) {
		switch (reverse ? 3 - i : i) {
		case 0:
			assert_int_equal(rec(s, gauge("cpu.load", "1"), dpoint(0.5, T0)), 0);
			break;
		case 1:
			assert_int_equal(rec(s, histo("http.server.duration", "ms", OTEL_HISTOGRAM,
						      OTEL_TEMP_CUMULATIVE), hpoint(b, 2, c, 3, T0)), 0);
			break;
		case 2:
			assert_int_equal(rec(s, sum("http.server.requests", "{request}", true,
						    OTEL_TEMP_CUMULATIVE), ipoint(7, T0)), 0);
			break;
		default:
			assert_int_equal(rec(s, histo("gc.pause", "s", OTEL_SUMMARY,
						      OTEL_TEMP_UNSPECIFIED), sp), 0);
			break;
		}
	}
}

static char tmpdir[64];

static const char *tmp_path(const char *leaf)
{
	static char path[128];

	if (tmpdir[0] == '\0') {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/otel_store_XXXXXX");
		assert_non_null(mkdtemp(tmpdir));
	}
	snprintf(path, sizeof(path), "%s/%s", tmpdir, leaf);
	return path;
}

static void pmid_stability(void **state)
{
	char path[128];
	struct pmids a = { 0 }, b = { 0 }, c = { 0 };
	struct otel_store *s;

	(void)state;
	snprintf(path, sizeof(path), "%s", tmp_path("pmids"));
	unlink(path);
	s = store_with(path, 0, 0, 0);
	the_metrics(s, false);
	otel_leaves(s, add_pmid, &a);
	/* gauge 1 + histogram 6 + sum 1 + summary 3 */
	assert_int_equal(a.n, 11);
	for (int i = 0; i < a.n; i++) {
		unsigned cluster = (a.pmid[i] >> 10) & 4095;

		assert_int_equal(a.pmid[i] >> 22, 155);
		assert_true(cluster >= OTEL_CLUSTER_MIN && cluster <= 4095);
		/* an indom of its own, the PMID's low 22 bits its serial */
		assert_int_equal(a.indom[i], (pmInDom)(155u << 22 | (a.pmid[i] & 0x3fffff)));
		if (i > 0)
			assert_true(a.pmid[i] > a.pmid[i - 1]);	/* in PMID order */
	}
	otel_store_free(s);

	/* the same state file: every leaf there before any point, the same PMIDs */
	s = store_with(path, 0, 0, 0);
	otel_leaves(s, add_pmid, &b);
	assert_int_equal(b.n, a.n);
	for (int i = 0; i < a.n; i++) {
		assert_string_equal(b.name[i], a.name[i]);
		assert_int_equal(b.pmid[i], a.pmid[i]);
	}
	{
		pmDesc d = desc_of(s, "trace.otel.http.server.requests");

		assert_int_equal(d.type, PM_TYPE_64);
		assert_int_equal(d.sem, PM_SEM_COUNTER);
		assert_int_equal(d.units.dimCount, 1);
	}
	the_metrics(s, true);
	b.n = 0;
	otel_leaves(s, add_pmid, &b);
	assert_int_equal(b.n, a.n);
	for (int i = 0; i < a.n; i++)
		assert_int_equal(b.pmid[i], a.pmid[i]);
	otel_store_free(s);

	/* no state: the other order gives the same PMIDs, from the names' hashes */
	s = store();
	the_metrics(s, true);
	otel_leaves(s, add_pmid, &c);
	assert_int_equal(c.n, a.n);
	for (int i = 0; i < a.n; i++) {
		assert_string_equal(c.name[i], a.name[i]);
		assert_int_equal(c.pmid[i], a.pmid[i]);
	}
	otel_store_free(s);
	unlink(path);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void state_file(void **state)
{
	char path[128], line[1024];
	struct pmids a = { 0 }, b = { 0 };
	struct otel_store *s;
	pmID p, q;
	pmDesc d;

	(void)state;
	/* where "cpu.load" would go by its hash */
	s = store();
	assert_int_equal(rec(s, gauge("cpu.load", ""), dpoint(1, T0)), 0);
	otel_leaves(s, add_pmid, &a);
	p = pmid_of(&a, "trace.otel.cpu.load");
	otel_store_free(s);

	/* another metric holds that PMID in the state: cpu.load takes the next free one */
	snprintf(path, sizeof(path), "%s", tmp_path("state"));
	snprintf(line, sizeof(line),
		 "# comment\n"
		 "%u.%u trace.otel.mem.used kind=gauge mono=0 type=double unit=By otel=mem.used\n"
		 "garbage\n"
		 "2047.1 trace.otel.x kind=gauge type=64 otel=x\n"
		 "2100.1 trace.otel.y kind=nope type=64 otel=y\n"
		 "2100.2 trace.otel.z kind=gauge type=64 otel=z%%zz\n"
		 "%u.%u trace.otel.w kind=gauge type=64 otel=w\n"
		 "2100.3 trace.otel.mem.used kind=sum type=64 otel=mem.used\n",
		 (p >> 10) & 4095, p & 1023, (p >> 10) & 4095, p & 1023);
	write_file(path, line);
	nlogged = 0;
	s = store_with(path, 0, 0, 0);
	/* garbage, PMID out of range, kind, escape, PMID taken, disagreeing line */
	assert_int_equal(nlogged, 6);
	assert_non_null(strstr(logged[0], ":3 skipped"));
	assert_non_null(strstr(logged[4], "PMID of another leaf"));
	assert_non_null(strstr(logged[5], "disagrees"));
	d = desc_of(s, "trace.otel.mem.used");
	assert_int_equal(d.pmid, p);
	assert_int_equal(d.units.dimSpace, 1);
	assert_int_equal(d.units.scaleSpace, PM_SPACE_BYTE);
	/* w lost its PMID line but not its name: a PMID from its hash */
	d = desc_of(s, "trace.otel.w");
	assert_true(d.pmid != p);
	assert_int_equal(rec(s, gauge("cpu.load", ""), dpoint(1, T0)), 0);
	q = desc_of(s, "trace.otel.cpu.load").pmid;
	assert_int_equal(q & 0x1fffff, ((p & 0x1fffff) + 1) & 0x1fffff);
	otel_store_free(s);
	/* written again without the bad lines: three metrics, one line each */
	{
		char *text = read_file(path);
		int lines = 0;

		for (char *c = text; *c; c++)
			lines += *c == '\n';
		assert_null(strstr(text, "garbage"));
		assert_non_null(strstr(text, " otel=mem.used\n"));
		assert_non_null(strstr(text, " unit=By "));
		assert_int_equal(lines, 3 + 2);	/* and the two comment lines */
	}
	s = store_with(path, 0, 0, 0);
	otel_leaves(s, add_pmid, &b);
	assert_int_equal(b.n, 3);
	assert_int_equal(pmid_of(&b, "trace.otel.cpu.load"), q);
	otel_store_free(s);
	unlink(path);

	/* a missing file is fine; one that cannot be written is logged once */
	nlogged = 0;
	s = store_with("/nonexistent-dir/otel.state", 0, 0, 0);
	assert_int_equal(nlogged, 0);
	assert_int_equal(rec(s, gauge("a", ""), dpoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("b", ""), dpoint(1, T0)), 0);
	assert_int_equal(nlogged, 1);
	assert_non_null(strstr(logged[0], "cannot write /nonexistent-dir/otel.state"));
	assert_int_equal(otel_lookup_name(s, "trace.otel.b", &d), 0);
	otel_store_free(s);
}

/* ---- semantics, types and units ---- */

static void assert_units(pmUnits u, int space, int time, int count, int ss, int st)
{
	assert_int_equal(u.dimSpace, space);
	assert_int_equal(u.dimTime, time);
	assert_int_equal(u.dimCount, count);
	assert_int_equal(u.scaleSpace, ss);
	assert_int_equal(u.scaleTime, st);
	assert_int_equal(u.scaleCount, 0);
}

static void units(void **state)
{
	pmUnits u;

	(void)state;
	assert_true(otel_units("s", OTEL_GAUGE, &u));
	assert_units(u, 0, 1, 0, 0, PM_TIME_SEC);
	assert_true(otel_units("ms", OTEL_HISTOGRAM, &u));
	assert_units(u, 0, 1, 0, 0, PM_TIME_MSEC);
	assert_true(otel_units("us", OTEL_SUM, &u));
	assert_units(u, 0, 1, 0, 0, PM_TIME_USEC);
	assert_true(otel_units("ns", OTEL_SUM, &u));
	assert_units(u, 0, 1, 0, 0, PM_TIME_NSEC);
	assert_true(otel_units("min", OTEL_SUM, &u));
	assert_units(u, 0, 1, 0, 0, PM_TIME_MIN);
	assert_true(otel_units("h", OTEL_SUM, &u));
	assert_units(u, 0, 1, 0, 0, PM_TIME_HOUR);
	assert_true(otel_units("By", OTEL_GAUGE, &u));
	assert_units(u, 1, 0, 0, PM_SPACE_BYTE, 0);
	assert_true(otel_units("KiBy", OTEL_GAUGE, &u));
	assert_units(u, 1, 0, 0, PM_SPACE_KBYTE, 0);
	assert_true(otel_units("MiBy", OTEL_GAUGE, &u));
	assert_units(u, 1, 0, 0, PM_SPACE_MBYTE, 0);
	assert_true(otel_units("GiBy", OTEL_GAUGE, &u));
	assert_units(u, 1, 0, 0, PM_SPACE_GBYTE, 0);
	assert_true(otel_units("TiBy", OTEL_GAUGE, &u));
	assert_units(u, 1, 0, 0, PM_SPACE_TBYTE, 0);
	/* counts for a Sum, none for anything else */
	assert_true(otel_units("1", OTEL_SUM, &u));
	assert_units(u, 0, 0, 1, 0, 0);
	assert_true(otel_units("{request}", OTEL_SUM, &u));
	assert_units(u, 0, 0, 1, 0, 0);
	assert_true(otel_units("1", OTEL_GAUGE, &u));
	assert_units(u, 0, 0, 0, 0, 0);
	assert_true(otel_units("{thread}", OTEL_HISTOGRAM, &u));
	assert_units(u, 0, 0, 0, 0, 0);
	assert_true(otel_units("", OTEL_SUM, &u));
	assert_units(u, 0, 0, 0, 0, 0);
	/* quotients */
	assert_true(otel_units("By/s", OTEL_GAUGE, &u));
	assert_units(u, 1, -1, 0, PM_SPACE_BYTE, PM_TIME_SEC);
	assert_true(otel_units("{packet}/s", OTEL_GAUGE, &u));
	assert_units(u, 0, -1, 1, 0, PM_TIME_SEC);
	assert_true(otel_units("ms/{request}", OTEL_GAUGE, &u));
	assert_units(u, 0, 1, -1, 0, PM_TIME_MSEC);
	assert_true(otel_units("s/s", OTEL_GAUGE, &u));
	assert_units(u, 0, 0, 0, 0, 0);
	/* what PCP has no units for */
	assert_false(otel_units("d", OTEL_SUM, &u));
	assert_units(u, 0, 0, 0, 0, 0);
	assert_false(otel_units("bit", OTEL_SUM, &u));
	assert_false(otel_units("kBy", OTEL_SUM, &u));
	assert_false(otel_units("%", OTEL_GAUGE, &u));
	assert_false(otel_units("ms/s", OTEL_GAUGE, &u));
	assert_false(otel_units("By/s/s", OTEL_GAUGE, &u));
	assert_false(otel_units("d/s", OTEL_GAUGE, &u));
	assert_false(otel_units("{a{b}", OTEL_SUM, &u));
}

static void semantics(void **state)
{
	static const double b[] = { 1 };
	static const uint64_t c[] = { 1, 0 };
	static const struct otel_quantile q[] = { { 0.5, 1 } };
	struct otel_point sp = { .start_ns = 1, .time_ns = T0, .count = 1, .quantiles = q,
				 .n_quantiles = 1 };
	struct otel_store *s = store();
	uint64_t gen = otel_generation(s);
	pmDesc d;

	(void)state;
	assert_int_equal(rec(s, gauge("g.int", "By"), ipoint(-5, T0)), 0);
	assert_true(otel_generation(s) != gen);
	gen = otel_generation(s);
	assert_int_equal(rec(s, gauge("g.int", "By"), ipoint(-5, T0 + 1)), 0);
	assert_true(otel_generation(s) == gen);	/* a value: no new name, PMID or instance */
	d = desc_of(s, "trace.otel.g.int");
	assert_int_equal(d.type, PM_TYPE_64);
	assert_int_equal(d.sem, PM_SEM_INSTANT);
	assert_units(d.units, 1, 0, 0, PM_SPACE_BYTE, 0);
	assert_int_equal(fetch_i(s, "trace.otel.g.int", "shop"), -5);

	assert_int_equal(rec(s, sum("s.mono", "ms", true, OTEL_TEMP_CUMULATIVE), dpoint(2.5, T0)), 0);
	d = desc_of(s, "trace.otel.s.mono");
	assert_int_equal(d.type, PM_TYPE_DOUBLE);
	assert_int_equal(d.sem, PM_SEM_COUNTER);
	assert_units(d.units, 0, 1, 0, 0, PM_TIME_MSEC);

	assert_int_equal(rec(s, sum("s.updown", "{item}", false, OTEL_TEMP_CUMULATIVE),
			     ipoint(3, T0)), 0);
	d = desc_of(s, "trace.otel.s.updown");
	assert_int_equal(d.sem, PM_SEM_INSTANT);
	assert_units(d.units, 0, 0, 1, 0, 0);

	assert_int_equal(rec(s, histo("h", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE),
			     hpoint(b, 1, c, 0.5, T0)), 0);
	d = desc_of(s, "trace.otel.h.count");
	assert_int_equal(d.type, PM_TYPE_U64);
	assert_int_equal(d.sem, PM_SEM_COUNTER);
	assert_units(d.units, 0, 0, 1, 0, 0);
	d = desc_of(s, "trace.otel.h.sum");
	assert_int_equal(d.type, PM_TYPE_DOUBLE);
	assert_int_equal(d.sem, PM_SEM_COUNTER);
	assert_units(d.units, 0, 1, 0, 0, PM_TIME_SEC);
	d = desc_of(s, "trace.otel.h.bucket");
	assert_int_equal(d.type, PM_TYPE_U64);
	assert_int_equal(d.sem, PM_SEM_COUNTER);
	assert_units(d.units, 0, 0, 1, 0, 0);
	for (int i = 0; i < 3; i++) {
		d = desc_of(s, (const char *[]){ "trace.otel.h.p50", "trace.otel.h.p90",
						 "trace.otel.h.p99" }[i]);
		assert_int_equal(d.type, PM_TYPE_DOUBLE);
		assert_int_equal(d.sem, PM_SEM_INSTANT);
		assert_units(d.units, 0, 1, 0, 0, PM_TIME_SEC);
	}
	assert_int_equal(otel_lookup_name(s, "trace.otel.h.quantile", &d), PM_ERR_NAME);

	assert_int_equal(rec(s, histo("q", "ms", OTEL_SUMMARY, OTEL_TEMP_UNSPECIFIED), sp), 0);
	d = desc_of(s, "trace.otel.q.quantile");
	assert_int_equal(d.type, PM_TYPE_DOUBLE);
	assert_int_equal(d.sem, PM_SEM_INSTANT);
	assert_units(d.units, 0, 1, 0, 0, PM_TIME_MSEC);
	assert_int_equal(desc_of(s, "trace.otel.q.count").sem, PM_SEM_COUNTER);
	assert_int_equal(desc_of(s, "trace.otel.q.sum").sem, PM_SEM_COUNTER);
	assert_int_equal(otel_lookup_name(s, "trace.otel.q.p50", &d), PM_ERR_NAME);

	/* the type is the first point's: an int into a double metric is converted */
	assert_int_equal(rec(s, sum("s.mono", "ms", true, OTEL_TEMP_CUMULATIVE), ipoint(4, T0 + 1)), 0);
	assert_true(fetch_d(s, "trace.otel.s.mono", "shop") == 4.0);
	assert_int_equal(rec(s, gauge("g.int", "By"), dpoint(1.5, T0 + 1)), REJ(TYPE));
	assert_int_equal(fetch_i(s, "trace.otel.g.int", "shop"), -5);
	otel_store_free(s);
}

static void sums(void **state)
{
	struct otel_store *s = store();
	struct otel_metric di = sum("req", "1", true, OTEL_TEMP_DELTA);
	struct otel_metric dd = sum("bytes", "By", true, OTEL_TEMP_DELTA);
	struct otel_metric ud = sum("queue", "", false, OTEL_TEMP_DELTA);
	struct otel_metric cu = sum("total", "", true, OTEL_TEMP_CUMULATIVE);
	struct otel_point p;

	(void)state;
	/* deltas add up, in any order of time */
	assert_int_equal(rec(s, di, ipoint(5, T0 + 2)), 0);
	assert_int_equal(rec(s, di, ipoint(7, T0 + 1)), 0);
	assert_int_equal(fetch_i(s, "trace.otel.req", "shop"), 12);
	p = ipoint(INT64_MAX, T0 + 3);
	assert_int_equal(rec(s, di, p), 0);
	assert_int_equal(fetch_i(s, "trace.otel.req", "shop"), INT64_MAX);	/* saturated */
	assert_int_equal(rec(s, dd, dpoint(1.5, T0)), 0);
	assert_int_equal(rec(s, dd, dpoint(2.25, T0 + 1)), 0);
	assert_int_equal(rec(s, dd, ipoint(1, T0 + 2)), 0);
	assert_true(fetch_d(s, "trace.otel.bytes", "shop") == 4.75);
	assert_int_equal(rec(s, ud, ipoint(4, T0)), 0);
	assert_int_equal(rec(s, ud, ipoint(-6, T0 + 1)), 0);
	assert_int_equal(fetch_i(s, "trace.otel.queue", "shop"), -2);
	/*
	 * a "delta" without a start time is a running total, served as sent
	 * (PCP 7's pcp2opentelemetry sends its counters so): 2198655 then
	 * 2198656 serve 2198656, not 4397311
	 */
	p = ipoint(2198655, T0);
	p.start_ns = 0;
	assert_int_equal(rec(s, sum("forks", "", true, OTEL_TEMP_DELTA), p), 0);
	p = ipoint(2198656, T0 + 1);
	p.start_ns = 0;
	assert_int_equal(rec(s, sum("forks", "", true, OTEL_TEMP_DELTA), p), 0);
	assert_int_equal(fetch_i(s, "trace.otel.forks", "shop"), 2198656);
	/* cumulative: as sent; a later start (a restart) served as sent, going down */
	p = ipoint(100, T0);
	assert_int_equal(rec(s, cu, p), 0);
	p = ipoint(10, T0 + 5);
	p.start_ns = T0 + 4;
	assert_int_equal(rec(s, cu, p), 0);
	assert_int_equal(fetch_i(s, "trace.otel.total", "shop"), 10);
	/* an older point than the one kept is taken and changes nothing */
	assert_int_equal(rec(s, cu, ipoint(99, T0 + 1)), 0);
	assert_int_equal(fetch_i(s, "trace.otel.total", "shop"), 10);
	/* a gauge keeps the latest by time */
	assert_int_equal(rec(s, gauge("temp", ""), dpoint(20, T0 + 10)), 0);
	assert_int_equal(rec(s, gauge("temp", ""), dpoint(30, T0 + 5)), 0);
	assert_true(fetch_d(s, "trace.otel.temp", "shop") == 20);
	otel_store_free(s);
}

/* ---- histograms ---- */

static void explicit_buckets(void **state)
{
	static const double b[] = { 1, 5, 10 };
	static const double b2[] = { 1, 5, 20 };
	static const uint64_t c1[] = { 2, 3, 0, 1 }, c2[] = { 1, 1, 2, 0 };
	struct otel_metric m = histo("lat", "ms", OTEL_HISTOGRAM, OTEL_TEMP_DELTA);
	struct otel_store *s = store();
	struct insts in;
	pmDesc d;

	(void)state;
	assert_int_equal(rec(s, m, hpoint(b, 3, c1, 20, T0)), 0);
	/* cumulative counts below each bound, +Inf last */
	assert_int_equal(leaf_insts(s, "trace.otel.lat.bucket", &in, &d), 0);
	assert_int_equal(in.n, 4);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:1"), 2);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:5"), 5);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:10"), 5);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:+Inf"), 6);
	assert_int_equal(fetch_u(s, "trace.otel.lat.count", "shop"), 6);
	assert_true(fetch_d(s, "trace.otel.lat.sum", "shop") == 20);
	/* the first point has no percentiles */
	{
		pmAtomValue a;

		assert_int_equal(fetch(s, "trace.otel.lat.p50", "shop", &a), 0);
	}
	/* deltas add up */
	assert_int_equal(rec(s, m, hpoint(b, 3, c2, 7.5, T0 + 1)), 0);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:1"), 3);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:5"), 7);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:10"), 9);
	assert_int_equal(fetch_u(s, "trace.otel.lat.bucket", "shop:+Inf"), 10);
	assert_int_equal(fetch_u(s, "trace.otel.lat.count", "shop"), 10);
	assert_true(fetch_d(s, "trace.otel.lat.sum", "shop") == 27.5);
	/*
	 * Percentiles of that delta's counts, 1 in [0, 1], 1 in [1, 5], 2 in
	 * [5, 10]: p50 rank 2, reached in [1, 5]: 1 + 4 * (2 - 1) / 1 = 5; p90
	 * rank 3.6 in [5, 10]: 5 + 5 * (3.6 - 2) / 2 = 9; p99 5 + 5 * 1.96 / 2 = 9.9.
	 */
	assert_true(fetch_d(s, "trace.otel.lat.p50", "shop") == 5);
	assert_true(fabs(fetch_d(s, "trace.otel.lat.p90", "shop") - 9) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.lat.p99", "shop") - 9.9) < 1e-12);
	/* a delta of other bounds is refused, nothing changed */
	assert_int_equal(rec(s, m, hpoint(b2, 3, c2, 1, T0 + 2)), REJ(BOUNDS));
	assert_int_equal(fetch_u(s, "trace.otel.lat.count", "shop"), 10);
	/* the instances keep their numbers across points; labels le */
	{
		char json[1024];
		json_object *o;
		int inst = inst_of(s, "trace.otel.lat.bucket", "shop:+Inf");

		assert_true(otel_inst_labels(s, d.indom, inst, json, sizeof(json)) > 0);
		o = parse(json);
		assert_string_equal(jstr(o, "le"), "+Inf");
		assert_string_equal(jstr(o, "service_name"), "shop");
		json_object_put(o);
		assert_int_equal(otel_inst_labels(s, d.indom, inst, json, 10), -ENOSPC);
		assert_int_equal(otel_inst_labels(s, d.indom, inst ^ 1, json, sizeof(json)),
				 PM_ERR_INST);
	}
	otel_store_free(s);
}

static void percentiles(void **state)
{
	static const double b[] = { 1, 5, 10 }, b0[] = { 0.5, 1 };
	static const uint64_t c1[] = { 0, 0, 0, 0 }, c2[] = { 0, 10, 0, 0 }, c3[] = { 1, 3, 0, 0 };
	static const uint64_t z1[] = { 0, 0, 0 }, z2[] = { 4, 0, 0 };
	struct otel_metric m = histo("pct", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE);
	struct otel_metric m0 = histo("pct0", "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE);
	struct otel_store *s = store();
	struct otel_point p;
	pmAtomValue a;

	(void)state;
	assert_int_equal(rec(s, m, hpoint(b, 3, c1, 0, T0)), 0);
	assert_int_equal(fetch(s, "trace.otel.pct.p50", "shop", &a), 0);
	/* 10 values added in [1, 5]: p50 1 + 4 * 5/10 = 3, p90 4.6, p99 4.96 */
	assert_int_equal(rec(s, m, hpoint(b, 3, c2, 30, T0 + 1)), 0);
	assert_true(fabs(fetch_d(s, "trace.otel.pct.p50", "shop") - 3) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.pct.p90", "shop") - 4.6) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.pct.p99", "shop") - 4.96) < 1e-12);
	/* nothing added: no value */
	assert_int_equal(rec(s, m, hpoint(b, 3, c2, 30, T0 + 2)), 0);
	assert_int_equal(fetch(s, "trace.otel.pct.p50", "shop", &a), 0);
	/* a count gone down (a restart): what the point holds counts, [0,1] 1 and [1,5] 3:
	 * p50 rank 2 in [1,5]: 1 + 4 * (2 - 1) / 3 = 2.333... */
	p = hpoint(b, 3, c3, 5, T0 + 3);
	assert_int_equal(rec(s, m, p), 0);
	assert_true(fabs(fetch_d(s, "trace.otel.pct.p50", "shop") - (1 + 4.0 / 3)) < 1e-12);
	/* the first bucket starts at 0 when its bound is above: 4 values in [0, 0.5]:
	 * p50 0.25, p90 0.45, p99 0.495 */
	assert_int_equal(rec(s, m0, hpoint(b0, 2, z1, 0, T0)), 0);
	assert_int_equal(rec(s, m0, hpoint(b0, 2, z2, 1, T0 + 1)), 0);
	assert_true(fabs(fetch_d(s, "trace.otel.pct0.p50", "shop") - 0.25) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.pct0.p90", "shop") - 0.45) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.pct0.p99", "shop") - 0.495) < 1e-12);
	/* a histogram of no buckets: a count and a sum, +Inf, no percentiles */
	p = (struct otel_point){ .start_ns = 1, .time_ns = T0, .count = 3, .has_sum = true, .sum = 6 };
	assert_int_equal(rec(s, histo("nob", "", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE), p), 0);
	p.time_ns++;
	p.count = 5;
	assert_int_equal(rec(s, histo("nob", "", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE), p), 0);
	assert_int_equal(fetch_u(s, "trace.otel.nob.bucket", "shop:+Inf"), 5);
	assert_int_equal(fetch(s, "trace.otel.nob.p50", "shop", &a), 0);
	/* no sum sent: no sum served */
	p.has_sum = false;
	p.time_ns++;
	assert_int_equal(rec(s, histo("nob", "", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE), p), 0);
	assert_int_equal(fetch(s, "trace.otel.nob.sum", "shop", &a), 0);
	otel_store_free(s);
}

static struct otel_point epoint(int32_t scale, uint64_t zero, double zt, int32_t pos_off,
		const uint64_t *pos, size_t n_pos, int32_t neg_off, const uint64_t *neg, size_t n_neg,
		uint64_t t)
{
	struct otel_point p = { .start_ns = 1, .time_ns = t, .scale = scale, .zero_count = zero,
				.zero_threshold = zt, .pos_offset = pos_off, .pos = pos,
				.n_pos = n_pos, .neg_offset = neg_off, .neg = neg, .n_neg = n_neg };

	p.count = zero;
	for (size_t i = 0; i < n_pos; i++)
		p.count += pos[i];
	for (size_t i = 0; i < n_neg; i++)
		p.count += neg[i];
	return p;
}

static void expo_buckets(void **state)
{
	static const uint64_t pos[] = { 1, 2 }, neg[] = { 3 }, one[] = { 5 }, two[] = { 1, 1 };
	static const uint64_t four[] = { 1, 6 };
	struct otel_metric m = histo("ex", "s", OTEL_EXPHIST, OTEL_TEMP_CUMULATIVE);
	struct otel_metric md = histo("exd", "s", OTEL_EXPHIST, OTEL_TEMP_DELTA);
	struct otel_store *s = store();
	struct otel_point p;
	struct insts in;
	pmAtomValue a;

	(void)state;
	/*
	 * scale 0, base 2: positive bucket 0 is (1, 2], 1 is (2, 4]; negative
	 * bucket 1 is [-4, -2), le -2; the zero bucket's le its threshold 0.
	 * Bounds -2, 0, 2, 4, +Inf; counts 3, 1, 1, 2, 0: cumulative 3, 4, 5, 7, 7.
	 */
	p = epoint(0, 1, 0, 0, pos, 2, 1, neg, 1, T0);
	assert_int_equal(p.count, 7);
	assert_int_equal(rec(s, m, p), 0);
	assert_int_equal(leaf_insts(s, "trace.otel.ex.bucket", &in, NULL), 0);
	assert_int_equal(in.n, 5);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:-2"), 3);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:0"), 4);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:2"), 5);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:4"), 7);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:+Inf"), 7);
	/* 4 more values in (2, 4]: p50 rank 2: 2 + 2 * 2/4 = 3; p90 3.8; p99 3.98 */
	p = epoint(0, 1, 0, 0, four, 2, 1, neg, 1, T0 + 1);
	assert_int_equal(rec(s, m, p), 0);
	assert_true(fabs(fetch_d(s, "trace.otel.ex.p50", "shop") - 3) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.ex.p90", "shop") - 3.8) < 1e-12);
	assert_true(fabs(fetch_d(s, "trace.otel.ex.p99", "shop") - 3.98) < 1e-12);
	/* a cumulative point at a coarser scale: the old counts merged to diff, scale -1
	 * (base 4): bucket 0 is (1, 4], all 7 positive values; nothing was added */
	p = epoint(-1, 1, 0, 0, (const uint64_t[]){ 7 }, 1, 0, neg, 1, T0 + 2);
	assert_int_equal(rec(s, m, p), 0);
	assert_int_equal(fetch(s, "trace.otel.ex.p50", "shop", &a), 0);
	/* its bounds: -1 (bucket 0 of base 4 negated: [-4, -1)), 0, 4, +Inf */
	assert_int_equal(leaf_insts(s, "trace.otel.ex.bucket", &in, NULL), 0);
	assert_int_equal(in.n, 4);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:-1"), 3);
	assert_int_equal(fetch_u(s, "trace.otel.ex.bucket", "shop:4"), 11);

	/* scale 1, base 2^(1/2): bucket 0's bound is 2^(1/2) */
	p = epoint(1, 0, 0, 0, one, 1, 0, NULL, 0, T0);
	assert_int_equal(rec(s, histo("ex1", "", OTEL_EXPHIST, OTEL_TEMP_CUMULATIVE), p), 0);
	assert_int_equal(fetch_u(s, "trace.otel.ex1.bucket", "shop:1.4142135623730951"), 5);
	/* scale -1, base 4, offset 1: bucket 1 is (4, 16] */
	p = epoint(-1, 0, 0.5, 1, one, 1, 0, NULL, 0, T0);
	assert_int_equal(rec(s, histo("ex2", "", OTEL_EXPHIST, OTEL_TEMP_CUMULATIVE), p), 0);
	assert_int_equal(fetch_u(s, "trace.otel.ex2.bucket", "shop:0.5"), 0);
	assert_int_equal(fetch_u(s, "trace.otel.ex2.bucket", "shop:16"), 5);

	/*
	 * Deltas merge at the coarser scale: scale 1 buckets 0 and 1, (1, 1.41]
	 * and (1.41, 2], one each; then scale 0 bucket 0, (1, 2], one: at scale 0
	 * bucket 0 holds 3.
	 */
	p = epoint(1, 0, 0, 0, two, 2, 0, NULL, 0, T0);
	assert_int_equal(rec(s, md, p), 0);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:1.4142135623730951"), 1);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:2"), 2);
	p = epoint(0, 2, 0, 0, (const uint64_t[]){ 1 }, 1, 0, NULL, 0, T0 + 1);
	assert_int_equal(rec(s, md, p), 0);
	assert_int_equal(leaf_insts(s, "trace.otel.exd.bucket", &in, NULL), 0);
	assert_int_equal(in.n, 3);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:0"), 2);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:2"), 5);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:+Inf"), 5);
	assert_int_equal(fetch_u(s, "trace.otel.exd.count", "shop"), 5);
	/* then a scale 0 delta further up widens the range: (2, 4] and (4, 8] */
	p = epoint(0, 0, 0, 1, two, 2, 0, NULL, 0, T0 + 2);
	assert_int_equal(rec(s, md, p), 0);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:4"), 6);
	assert_int_equal(fetch_u(s, "trace.otel.exd.bucket", "shop:8"), 7);
	/* another zero threshold: other bounds */
	p = epoint(0, 1, 0.001, 0, one, 1, 0, NULL, 0, T0 + 3);
	assert_int_equal(rec(s, md, p), REJ(BOUNDS));

	/* refused: counts not adding up, a scale out of range, bounds past a double */
	p = epoint(0, 1, 0, 0, pos, 2, 0, NULL, 0, T0);
	p.count++;
	assert_int_equal(rec(s, m, p), REJ(BUCKETS));
	p = epoint(21, 0, 0, 0, one, 1, 0, NULL, 0, T0);
	assert_int_equal(rec(s, m, p), REJ(BUCKETS));
	p = epoint(-10, 0, 0, 0, one, 1, 0, NULL, 0, T0);	/* (1, 2^1024] */
	assert_int_equal(rec(s, m, p), REJ(BUCKETS));
	p = epoint(0, 0, 8, 0, one, 1, 0, NULL, 0, T0);		/* (1, 2] under the zero bucket's 8 */
	assert_int_equal(rec(s, m, p), REJ(BUCKETS));
	otel_store_free(s);
}

static void summaries(void **state)
{
	static const struct otel_quantile q[] = { { 0.5, 1.5 }, { 0.99, 3 } };
	static const struct otel_quantile q2[] = { { 0, 0.1 }, { 0.5, 1.25 }, { 1, 9 } };
	static const struct otel_quantile bad[] = { { 0.9, 1 }, { 0.5, 2 } };
	struct otel_metric m = histo("rpc", "ms", OTEL_SUMMARY, OTEL_TEMP_UNSPECIFIED);
	struct otel_point p = { .start_ns = 1, .time_ns = T0, .count = 10, .has_sum = true,
				.sum = 20, .quantiles = q, .n_quantiles = 2 };
	struct otel_store *s = store();
	struct insts in;
	pmDesc d;
	char json[512];
	json_object *o;

	(void)state;
	assert_int_equal(rec(s, m, p), 0);
	assert_int_equal(leaf_insts(s, "trace.otel.rpc.quantile", &in, &d), 0);
	assert_int_equal(in.n, 2);
	assert_true(fetch_d(s, "trace.otel.rpc.quantile", "shop:0.5") == 1.5);
	assert_true(fetch_d(s, "trace.otel.rpc.quantile", "shop:0.99") == 3);
	assert_int_equal(fetch_u(s, "trace.otel.rpc.count", "shop"), 10);
	assert_true(fetch_d(s, "trace.otel.rpc.sum", "shop") == 20);
	assert_true(otel_inst_labels(s, d.indom, inst_of(s, "trace.otel.rpc.quantile", "shop:0.99"),
				     json, sizeof(json)) > 0);
	o = parse(json);
	assert_string_equal(jstr(o, "quantile"), "0.99");
	json_object_put(o);
	/* other quantiles: the set follows, 0.5 keeps its instance */
	{
		int i05 = inst_of(s, "trace.otel.rpc.quantile", "shop:0.5");

		p.quantiles = q2;
		p.n_quantiles = 3;
		p.time_ns++;
		assert_int_equal(rec(s, m, p), 0);
		assert_int_equal(leaf_insts(s, "trace.otel.rpc.quantile", &in, NULL), 0);
		assert_int_equal(in.n, 3);
		assert_int_equal(inst_of(s, "trace.otel.rpc.quantile", "shop:0.5"), i05);
		assert_true(fetch_d(s, "trace.otel.rpc.quantile", "shop:0.5") == 1.25);
		assert_true(fetch_d(s, "trace.otel.rpc.quantile", "shop:1") == 9);
		assert_int_equal(inst_of(s, "trace.otel.rpc.quantile", "shop:0.99"), -1);
	}
	p.quantiles = bad;
	p.n_quantiles = 2;
	assert_int_equal(rec(s, m, p), REJ(BUCKETS));
	otel_store_free(s);
}

/* ---- refusals, caps, memory ---- */

static void refusals(void **state)
{
	static const double b[] = { 1, 2 }, nb[] = { 2, 1 };
	static const uint64_t c[] = { 1, 1, 1 };
	struct otel_store *s = store_with(NULL, 4, 2, 0);
	struct otel_usage u;
	struct otel_point p;
	struct otel_attr a = { "k", 1, "\"v\"", 3 };

	(void)state;
	assert_int_equal(rec(s, gauge("g", "s"), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, sum("g", "s", true, OTEL_TEMP_CUMULATIVE), ipoint(1, T0)), REJ(KIND));
	assert_int_equal(rec(s, sum("m", "", true, OTEL_TEMP_CUMULATIVE), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, sum("m", "", false, OTEL_TEMP_CUMULATIVE), ipoint(1, T0)), REJ(KIND));
	assert_int_equal(rec(s, gauge("g", "ms"), ipoint(1, T0)), REJ(UNIT));
	assert_int_equal(rec(s, gauge("g", "s"), dpoint(1, T0)), REJ(TYPE));
	p = hpoint(b, 2, c, 1, T0);
	p.count = 4;
	assert_int_equal(rec(s, histo("h", "", OTEL_HISTOGRAM, OTEL_TEMP_DELTA), p), REJ(BUCKETS));
	p = hpoint(b, 2, c, 1, T0);
	p.n_counts = 2;
	assert_int_equal(rec(s, histo("h", "", OTEL_HISTOGRAM, OTEL_TEMP_DELTA), p), REJ(BUCKETS));
	p = hpoint(nb, 2, c, 1, T0);
	assert_int_equal(rec(s, histo("h", "", OTEL_HISTOGRAM, OTEL_TEMP_DELTA), p), REJ(BUCKETS));
	assert_int_equal(rec(s, histo("h", "", OTEL_HISTOGRAM, OTEL_TEMP_DELTA),
			     hpoint(b, 2, c, 1, T0)), 0);
	assert_int_equal(rec(s, histo("h", "", OTEL_HISTOGRAM, OTEL_TEMP_DELTA),
			     hpoint(b, 1, c, 1, T0)), REJ(BOUNDS));
	assert_int_equal(rec(s, gauge("g", "s"), ipoint(1, 0)), REJ(NO_TIME));
	assert_int_equal(rec(s, gauge("", "s"), ipoint(1, T0)), REJ(BAD_NAME));
	/* "no recorded value": taken, nothing made or changed */
	p = dpoint(1, T0);
	p.no_value = true;
	assert_int_equal(rec(s, gauge("nv", ""), p), 0);
	assert_int_equal(rec(s, gauge("g", "s"), p), 0);	/* a double, yet not refused */
	assert_int_equal(fetch_i(s, "trace.otel.g", "shop"), 1);
	/* caps: 4 metrics, 2 series a metric */
	assert_int_equal(rec(s, gauge("x", ""), ipoint(1, T0)), 0);
	assert_int_equal(rec(s, gauge("y", ""), ipoint(1, T0)), REJ(METRICS));
	p = ipoint(1, T0);
	p.attrs = &a;
	p.n_attrs = 1;
	assert_int_equal(rec(s, gauge("x", ""), p), 0);
	a.json = "\"w\"";
	assert_int_equal(rec(s, gauge("x", ""), p), REJ(SERIES));
	a.json = "\"v\"";
	assert_int_equal(rec(s, gauge("x", ""), p), 0);	/* a series it has */
	otel_usage_get(s, &u);
	assert_int_equal(u.metrics, 4);
	assert_int_equal(u.series, 5);
	assert_int_equal(u.rejected[OTEL_REJECT_KIND], 2);
	assert_int_equal(u.rejected[OTEL_REJECT_UNIT], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_TYPE], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_BUCKETS], 3);
	assert_int_equal(u.rejected[OTEL_REJECT_BOUNDS], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_NO_TIME], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_BAD_NAME], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_METRICS], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_SERIES], 1);
	assert_int_equal(u.rejected[OTEL_REJECT_MEMORY], 0);
	assert_int_equal(u.accepted, 8);
	assert_string_equal(otel_reject_name(OTEL_REJECT_SERIES), "series_cap");
	assert_string_equal(otel_reject_why(OTEL_REJECT_TYPE), "a double value for an integer metric");
	assert_string_equal(otel_reject_name(OTEL_REJECT_N), "?");
	otel_store_free(s);

	/* memory: a budget too small for many series */
	s = store_with(NULL, 0, 0, 8192);
	assert_int_equal(rec(s, gauge("g", ""), ipoint(1, T0)), 0);
	{
		char v[32];

		a.json = v;
		for (int i = 0, r = 0; r == 0; i++) {
			assert_true(i < 100);
			a.json_len = (size_t)snprintf(v, sizeof(v), "%d", i);
			r = rec(s, gauge("g", ""), p);
			if (r != 0)
				assert_int_equal(r, REJ(MEMORY));
		}
	}
	otel_usage_get(s, &u);
	assert_int_equal(u.rejected[OTEL_REJECT_MEMORY], 1);
	assert_true(u.bytes <= 8192);
	/* a new metric refused leaves no trace: no name, no series, the same bytes */
	{
		struct otel_usage v;
		pmDesc d;

		assert_int_equal(rec(s, histo("new.one", "", OTEL_HISTOGRAM, OTEL_TEMP_DELTA),
				     hpoint(b, 2, c, 1, T0)), REJ(MEMORY));
		otel_usage_get(s, &v);
		assert_int_equal(v.metrics, 1);
		assert_int_equal(v.series, u.series);
		assert_true(v.bytes <= u.bytes);
		assert_int_equal(otel_lookup_name(s, "trace.otel.new.one.count", &d), PM_ERR_NAME);
	}
	otel_store_free(s);
}

static void budget_holds(void **state)
{
	const size_t budget = 1 << 20;
	struct otel_store *s;
	struct otel_usage u;
	size_t before, peak = 0, heap;
	char val[32], name[32];
	struct otel_attr a[2] = { { "route", 5, val, 0 }, { "code", 4, "200", 3 } };
	uint64_t ok = 0;

	(void)state;
	before = heap_bytes();
	s = store_with(NULL, 100000, 100000, budget);
	/* a million attempts at new series of 100 histograms and 100 gauges */
	for (int i = 0; i < 1000000; i++) {
		static const double b[] = { 0.1, 1, 10 };
		static const uint64_t c[] = { 1, 2, 3, 4 };
		struct otel_point p;
		int r;

		a[0].json_len = (size_t)snprintf(val, sizeof(val), "\"/item/%d\"", i);
		snprintf(name, sizeof(name), "m%d", i % 200);
		if (i % 2) {
			p = hpoint(b, 3, c, 1, T0);
			p.attrs = a;
			p.n_attrs = 2;
			r = rec(s, histo(name, "s", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE), p);
		} else {
			p = ipoint(i, T0);
			p.attrs = a;
			p.n_attrs = 2;
			r = rec(s, gauge(name, ""), p);
		}
		if (r == 0)
			ok++;
		else
			assert_int_equal(r, REJ(MEMORY));
		if (i % 1000 == 0) {
			otel_usage_get(s, &u);
			assert_true(u.bytes <= budget);
			if (u.bytes > peak)
				peak = u.bytes;
		}
	}
	heap = heap_bytes() - before;
	otel_usage_get(s, &u);
	print_message("budget %zu: %llu series taken, %zu live, peak counted %zu, heap %zu\n",
		      budget, (unsigned long long)ok, u.series, peak, heap);
	assert_true(u.bytes <= budget);
	assert_true(ok > 100 && ok == u.series);
	/* the heap holds no more than the budget and the store itself */
	assert_true(heap <= budget + 4096);
	/* all expired: the series' bytes all given back, the metrics' kept */
	test_clock_set(test_clock() + 11 * SEC);
	assert_int_equal(otel_expire(s), ok);
	otel_usage_get(s, &u);
	assert_int_equal(u.series, 0);
	assert_int_equal(u.metrics, 200);
	assert_true(u.bytes < 200 * 2048);
	otel_store_free(s);
}

static void expiry(void **state)
{
	static const double b[] = { 1 };
	static const uint64_t c[] = { 1, 1 };
	struct otel_store *s = store_with(NULL, 0, 2, 0);
	struct otel_resource other = shop;
	struct otel_metric g = gauge("g", ""), h = histo("h", "", OTEL_HISTOGRAM,
							 OTEL_TEMP_CUMULATIVE);
	struct otel_point p = hpoint(b, 1, c, 1, T0);
	struct insts in;
	uint64_t gen;

	(void)state;
	other.service = "cart";
	test_clock_set(1000 * SEC);
	assert_int_equal(rec(s, g, ipoint(1, T0)), 0);
	assert_int_equal(otel_record(s, &shop, &h, &p), 0);
	test_clock_set(1005 * SEC);
	assert_int_equal(otel_record(s, &other, &h, &p), 0);
	assert_int_equal(otel_record(s, &other, &g, &(struct otel_point){ .time_ns = T0,
									  .is_int = true }), 0);
	test_clock_set(1009 * SEC);
	assert_int_equal(otel_expire(s), 0);
	gen = otel_generation(s);
	/* idle for idle_sec (10): shop's two series go, cart's stay */
	test_clock_set(1010 * SEC);
	assert_int_equal(otel_expire(s), 2);
	assert_true(otel_generation(s) != gen);
	assert_int_equal(leaf_insts(s, "trace.otel.h.bucket", &in, NULL), 0);
	assert_int_equal(in.n, 2);
	for (int i = 0; i < in.n; i++)
		assert_int_equal(strncmp(in.name[i], "cart:", 5), 0);
	assert_int_equal(leaf_insts(s, "trace.otel.g", &in, NULL), 0);
	assert_int_equal(in.n, 1);
	assert_string_equal(in.name[0], "cart");
	/* under the cap again, a third series is taken */
	assert_int_equal(rec(s, g, ipoint(3, T0)), 0);
	test_clock_set(1100 * SEC);
	assert_int_equal(otel_expire(s), 3);
	/* the metrics keep their names and PMIDs */
	assert_int_equal(leaf_insts(s, "trace.otel.g", &in, NULL), 0);
	assert_int_equal(in.n, 0);
	{
		struct otel_usage u;

		otel_usage_get(s, &u);
		assert_int_equal(u.metrics, 2);
		assert_int_equal(u.series, 0);
	}
	otel_store_free(s);
	test_clock_set(1000 * SEC);
}

/* ---- series, instances, labels ---- */

static void instance_names(void **state)
{
	struct otel_store *s = store();
	struct otel_resource r = {
		.service = "shop api", .ns = "acme", .instance_id = "i-1", .scope_name = "io.x",
		.scope_version = "1.0",
	};
	struct otel_attr a[] = {
		{ "http.route", 10, "\"/a b\"", 6 }, { "code", 4, "200", 3 },
		{ "code", 4, "500", 3 },	/* a second "code": the first wins */
	};
	struct otel_attr a2[] = { { "code", 4, "200", 3 }, { "http.route", 10, "\"/a_b\"", 6 } };
	struct otel_metric g = gauge("g", "");
	struct otel_point p = ipoint(1, T0);
	struct insts in;
	int i1, i2;

	(void)state;
	p.attrs = a;
	p.n_attrs = 3;
	assert_int_equal(otel_record(s, &r, &g, &p), 0);
	/* the same set in another order is the same series */
	{
		struct otel_attr rev[] = { a[1], a[0] };

		p.attrs = rev;
		p.n_attrs = 2;
		p.time_ns++;
		assert_int_equal(otel_record(s, &r, &g, &p), 0);
	}
	assert_int_equal(leaf_insts(s, "trace.otel.g", &in, NULL), 0);
	assert_int_equal(in.n, 1);
	assert_string_equal(in.name[0], "acme/shop_api:i-1{code=200,http.route=/a_b}");
	i1 = in.inst[0];
	assert_true(i1 >= 0);
	/* another series whose name comes out the same: "~HASH" */
	p.attrs = a2;
	p.n_attrs = 2;
	assert_int_equal(otel_record(s, &r, &g, &p), 0);
	assert_int_equal(leaf_insts(s, "trace.otel.g", &in, NULL), 0);
	assert_int_equal(in.n, 2);
	i2 = in.inst[0] == i1 ? 1 : 0;
	assert_int_equal(strlen(in.name[i2]), strlen(in.name[!i2]) + 9);
	assert_int_equal(strncmp(in.name[i2], in.name[!i2], strlen(in.name[!i2])), 0);
	assert_int_equal(in.name[i2][strlen(in.name[!i2])], '~');
	assert_int_equal(strspn(in.name[i2] + strlen(in.name[!i2]) + 1, "0123456789abcdef"), 8);
	/* a long name is cut with "~HASH" to OTEL_INST_NAME_MAX bytes */
	{
		char big[600];
		struct otel_attr l = { "v", 1, big, 0 };

		memset(big, 'z', sizeof(big));
		big[0] = '"';
		big[400] = '"';
		l.json_len = 401;
		p.attrs = &l;
		p.n_attrs = 1;
		assert_int_equal(otel_record(s, &r, &g, &p), 0);
		big[399] = 'y';
		assert_int_equal(otel_record(s, &r, &g, &p), 0);
		assert_int_equal(leaf_insts(s, "trace.otel.g", &in, NULL), 0);
		assert_int_equal(in.n, 4);
		for (int i = 0; i < in.n; i++) {
			size_t len = strlen(in.name[i]);

			assert_true(len <= OTEL_INST_NAME_MAX);
			/* unique up to the first space: there is none */
			assert_null(strchr(in.name[i], ' '));
			for (int j = 0; j < i; j++)
				assert_string_not_equal(in.name[i], in.name[j]);
			if (in.name[i][len - 9] == '~' && strstr(in.name[i], "zzz"))
				assert_int_equal(len, OTEL_INST_NAME_MAX);
		}
	}
	/* instance numbers are 31-bit and survive a restart: the same in a new store */
	{
		struct otel_store *t = store();

		p.attrs = a;
		p.n_attrs = 3;
		assert_int_equal(otel_record(t, &r, &g, &p), 0);
		assert_int_equal(inst_of(t, "trace.otel.g", "acme/shop_api:i-1{code=200,http.route=/a_b}"),
				 i1);
		otel_store_free(t);
	}
	otel_store_free(s);
}

static void labels(void **state)
{
	static const double b[] = { 0.25 };
	static const uint64_t c[] = { 1, 0 };
	struct otel_attr res_attrs[] = {
		{ "service.name", 12, "\"shop\"", 6 }, { "host.name", 9, "\"h1\"", 4 },
		{ "http.route", 10, "\"resource's\"", 12 },
	};
	struct otel_resource r = {
		.service = "shop", .ns = "acme", .instance_id = "", .scope_name = "lib",
		.scope_version = "", .attrs = res_attrs, .n_attrs = 3,
	};
	struct otel_attr a[] = {
		{ "http.route", 10, "\"/x \\\"q\\\"\"", 10 }, { "ok", 2, "true", 4 },
		{ "n", 1, "-1.5e3", 6 }, { "list", 4, "[1,\"a\"]", 7 }, { "kv", 2, "{\"a\":1}", 7 },
		{ "le", 2, "\"not mine\"", 10 }, { "2xx", 3, "1", 1 },
	};
	struct otel_metric h = histo("h", "d", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE);
	struct otel_point p = hpoint(b, 1, c, 0.1, T0);
	struct otel_store *s = store();
	char json[OTEL_LABELS_MAX + 64];
	json_object *o;
	pmDesc d;
	int n, inst;

	(void)state;
	p.attrs = a;
	p.n_attrs = 7;
	assert_int_equal(otel_record(s, &r, &h, &p), 0);
	d = desc_of(s, "trace.otel.h.count");
	assert_int_equal(leaf_insts(s, "trace.otel.h.count", &(struct insts){ 0 }, NULL), 0);
	inst = inst_of(s, "trace.otel.h.count", "acme/shop{2xx=1,http.route=/x_\\\"q\\\",kv={\"a\":1},"
		       "le=not_mine,list=[1,\"a\"],n=-1.5e3,ok=true}");
	assert_true(inst >= 0);
	n = otel_inst_labels(s, d.indom, inst, json, sizeof(json));
	assert_int_equal(n, (int)strlen(json));
	o = parse(json);
	assert_string_equal(jstr(o, "service_name"), "shop");
	assert_string_equal(jstr(o, "service_namespace"), "acme");
	assert_null(jstr(o, "service_instance_id"));
	assert_string_equal(jstr(o, "otel_scope_name"), "lib");
	/* the point's attribute wins over the resource's of the same label name */
	assert_string_equal(jstr(o, "http_route"), "/x \"q\"");
	assert_string_equal(jstr(o, "host_name"), "h1");
	assert_true(json_object_get_boolean(json_object_object_get(o, "ok")));
	assert_true(json_object_get_double(json_object_object_get(o, "n")) == -1500);
	assert_string_equal(jstr(o, "list"), "[1,\"a\"]");
	assert_string_equal(jstr(o, "kv"), "{\"a\":1}");
	assert_int_equal(json_object_get_int(json_object_object_get(o, "x2xx")), 1);
	/* "le" is the buckets' own */
	assert_null(jstr(o, "le"));
	json_object_put(o);
	/* a bucket's: the series' and le */
	d = desc_of(s, "trace.otel.h.bucket");
	inst = inst_of(s, "trace.otel.h.bucket", "acme/shop{2xx=1,http.route=/x_\\\"q\\\",kv={\"a\":1},"
		       "le=not_mine,list=[1,\"a\"],n=-1.5e3,ok=true}:0.25");
	assert_true(inst >= 0);
	assert_true(otel_inst_labels(s, d.indom, inst, json, sizeof(json)) > 0);
	o = parse(json);
	assert_string_equal(jstr(o, "le"), "0.25");
	assert_string_equal(jstr(o, "host_name"), "h1");
	json_object_put(o);
	/* the item's: otel_name, and otel_unit where PCP has no units for it */
	assert_true(otel_item_labels(s, d.pmid, json, sizeof(json)) > 0);
	assert_string_equal(json, "{\"otel_name\":\"h\",\"otel_unit\":\"d\"}");
	assert_int_equal(otel_item_labels(s, d.pmid, json, 20), -ENOSPC);
	assert_int_equal(otel_item_labels(s, d.pmid + 99999, json, sizeof(json)), PM_ERR_PMID);
	assert_int_equal(otel_inst_labels(s, d.indom + 1, 0, json, sizeof(json)), PM_ERR_INDOM);
	otel_store_free(s);

	/* many attributes: the set capped at OTEL_LABELS_MAX bytes, valid JSON */
	s = store();
	{
		struct otel_attr many[200];
		char keys[200][8], vals[200][120];

		for (int i = 0; i < 200; i++) {
			snprintf(keys[i], sizeof(keys[i]), "k%03d", i);
			memset(vals[i], 'v', sizeof(vals[i]));
			vals[i][0] = vals[i][99] = '"';
			many[i] = (struct otel_attr){ keys[i], 4, vals[i], 100 };
		}
		p = ipoint(1, T0);
		p.attrs = many;
		p.n_attrs = 200;
		assert_int_equal(otel_record(s, &r, &(struct otel_metric){ .name = "g",
					     .kind = OTEL_GAUGE }, &p), 0);
		d = desc_of(s, "trace.otel.g");
		{
			struct insts in;

			assert_int_equal(leaf_insts(s, "trace.otel.g", &in, NULL), 0);
			n = otel_inst_labels(s, d.indom, in.inst[0], json, sizeof(json));
		}
		assert_true(n > OTEL_LABELS_MAX - 200 && n <= OTEL_LABELS_MAX);
		o = parse(json);
		assert_non_null(jstr(o, "k000"));
		assert_null(jstr(o, "k199"));
		json_object_put(o);
	}
	otel_store_free(s);
}

static void help_text(void **state)
{
	struct otel_store *s = store();
	struct otel_metric m = sum("http.requests", "{request}", true, OTEL_TEMP_CUMULATIVE);
	struct otel_metric h = histo("uptime", "d", OTEL_HISTOGRAM, OTEL_TEMP_CUMULATIVE);
	static const double b[] = { 1 };
	static const uint64_t c[] = { 1, 0 };
	char buf[512];

	(void)state;
	m.description = "Requests served.\nSecond line.";
	assert_int_equal(rec(s, m, ipoint(1, T0)), 0);
	assert_int_equal(otel_text(s, desc_of(s, "trace.otel.http.requests").pmid, true, buf,
				   sizeof(buf)), 0);
	assert_string_equal(buf, "Requests served. (unit {request}, monotonic sum)");
	assert_int_equal(otel_text(s, desc_of(s, "trace.otel.http.requests").pmid, false, buf,
				   sizeof(buf)), 0);
	assert_int_equal(strncmp(buf, "Requests served.\nSecond line.\n\nOpenTelemetry monotonic sum "
				 "http.requests, unit {request}.", 77), 0);
	assert_int_equal(rec(s, h, hpoint(b, 1, c, 1, T0)), 0);
	assert_int_equal(otel_text(s, desc_of(s, "trace.otel.uptime.p90").pmid, true, buf,
				   sizeof(buf)), 0);
	assert_string_equal(buf, "uptime (unit d (days, not a PCP unit), histogram: 90th percentile)");
	assert_int_equal(otel_text(s, desc_of(s, "trace.otel.uptime.p90").pmid, true, buf, 10), 0);
	assert_string_equal(buf, "uptime (u");
	assert_int_equal(otel_text(s, 12345, true, buf, sizeof(buf)), PM_ERR_PMID);
	otel_store_free(s);
}

static void fetch_errors(void **state)
{
	struct otel_store *s = store();
	pmAtomValue a;
	pmDesc d;
	char name[128];

	(void)state;
	assert_int_equal(rec(s, gauge("g", ""), ipoint(1, T0)), 0);
	d = desc_of(s, "trace.otel.g");
	assert_int_equal(otel_fetch(s, d.pmid + 1, 0, &a), PM_ERR_PMID);
	assert_int_equal(otel_fetch(s, d.pmid, inst_of(s, "trace.otel.g", "shop") ^ 1, &a), PM_ERR_INST);
	assert_int_equal(otel_lookup_pmid(s, d.pmid, name, sizeof(name), &d), 0);
	assert_string_equal(name, "trace.otel.g");
	assert_int_equal(otel_lookup_pmid(s, d.pmid + 1, name, sizeof(name), &d), PM_ERR_PMID);
	assert_int_equal(otel_instances(s, 0, collect, &(struct insts){ 0 }), PM_ERR_INDOM);
	otel_store_free(s);
}

/* The tables: random adds and deletes against an array, every key looked up. */
static void tables(void **state)
{
	struct otel_store *s = store();
	struct htab t = { .by_int = true };
	static int vals[600];
	bool in[600] = { false };
	unsigned seed = 7;

	(void)state;
	for (int op = 0; op < 50000; op++) {
		uint32_t k;
		struct hslot *sl;

		seed = seed * 1103515245 + 12345;
		k = (seed >> 8) % 600;
		sl = otel_ht_find(&t, k, NULL, NULL);
		assert_true((sl != NULL) == in[k]);
		if (sl != NULL) {
			assert_ptr_equal(sl->val, &vals[k]);
			assert_int_equal((uint32_t)sl->key, k);
			otel_ht_del(&t, sl);
			in[k] = false;
		} else {
			assert_int_equal(otel_ht_reserve(s, &t, 1), 0);
			otel_ht_add(&t, (uint64_t)op << 32 | k, &vals[k]);
			in[k] = true;
		}
		if (op % 997 == 0) {
			size_t n = 0;

			for (uint32_t j = 0; j < 600; j++) {
				sl = otel_ht_find(&t, j, NULL, NULL);
				assert_true((sl != NULL) == in[j]);
				n += in[j];
			}
			assert_int_equal(t.n, n);
			otel_ht_shrink(s, &t);
		}
	}
	otel_ht_free(s, &t);
	{
		struct otel_usage u;

		otel_usage_get(s, &u);
		assert_int_equal(u.bytes, 0);
	}
	otel_store_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pmns_paths),
		cmocka_unit_test(label_names),
		cmocka_unit_test(name_conflicts),
		cmocka_unit_test(pmid_stability),
		cmocka_unit_test(state_file),
		cmocka_unit_test(units),
		cmocka_unit_test(semantics),
		cmocka_unit_test(sums),
		cmocka_unit_test(explicit_buckets),
		cmocka_unit_test(percentiles),
		cmocka_unit_test(expo_buckets),
		cmocka_unit_test(summaries),
		cmocka_unit_test(refusals),
		cmocka_unit_test(expiry),
		cmocka_unit_test(instance_names),
		cmocka_unit_test(labels),
		cmocka_unit_test(help_text),
		cmocka_unit_test(fetch_errors),
		cmocka_unit_test(tables),
		cmocka_unit_test(budget_holds),
	};
	int ret = cmocka_run_group_tests(tests, NULL, NULL);

	if (tmpdir[0] != '\0')
		rmdir(tmpdir);
	return ret;
}
