/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writer.c - deterministic MMV writer for the compatibility tests.
 *
 * Built twice from this one source: against PCP's headers and library
 * (writer-pcp) and against ours (writer-ours). Each case creates the file
 * $PCP_TMP_DIR/mmv/<case> through a fixed sequence of API calls and prints
 * what the calls returned; tests/compat/run.sh compares the files (bytes
 * and mmvdump) and the printed text between the two builds.
 *
 *   writer CASE     run one case
 *   writer --list   print the case names
 *   writer --whoami print "ours" or "pcp": the library loaded has our
 *                   histogram calls, or not (add_instance's result no
 *                   longer tells: PCP 7 returns 0 as ours does)
 *
 * The deliberate differences in docs/compatibility.md ("Compatibility") are left out.
 * Every value is deterministic: ELAPSED intervals are closed or reset
 * before exit, and what depends on the clock is printed as a yes/no fact.
 * Cases regerr_* record a difference the docs/compatibility.md does not list (run.sh
 * marks them TODO).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>
/* Built against PCP's headers too: its static_asserts then check our
 * format table against PCP's mmv_dev.h. */
#include "mmv_format.h"

#define NTYPES	9
#define NOPS	14
#define NINST	3

static const struct {
	const char *name;
	mmv_metric_type_t type;
} types[NTYPES] = {
	{ "i32", MMV_TYPE_I32 }, { "u32", MMV_TYPE_U32 },
	{ "i64", MMV_TYPE_I64 }, { "u64", MMV_TYPE_U64 },
	{ "float", MMV_TYPE_FLOAT }, { "double", MMV_TYPE_DOUBLE },
	{ "string", MMV_TYPE_STRING }, { "elapsed", MMV_TYPE_ELAPSED },
	{ "nosupport", MMV_TYPE_NOSUPPORT },
};

/* Update sequences, one singular metric <type>.<op> per (type, op). */
static const char *ops[NOPS] = {
	"inc", "incv", "inca", "add", "setv", "big", "neg", "p32", "nbig",
	"seta", "set", "name", "str", "direct",
};

static const char *inst_names[NINST] = { "zero", "one", "seven" };
static const int inst_ids[NINST] = { 0, 1, 7 };

/* Names and help must outlive the registry: PCP keeps the pointers. */
static char metric_names[NTYPES * NOPS + NTYPES + 8][300];
static char long_a[300], long_b[300], long_help[700], str254[300];

static void fill(char *buf, int len, char c)
{
	memset(buf, c, len);
	buf[len] = '\0';
}

static void init_strings(void)
{
	int i;

	/* "long." + a..a: 70 chars; 255-char metric name */
	strcpy(long_a, "long.");
	fill(long_a + 5, 65, 'a');
	fill(long_b, MMV_NAME_MAX_V2, 'b');
	for (i = 0; i < 600; i++)
		long_help[i] = 'A' + i % 26;
	long_help[600] = '\0';
	for (i = 0; i < 254; i++)
		str254[i] = 'a' + i % 26;
	str254[254] = '\0';
}

static void *base;

static pmAtomValue *lookup(const char *metric, const char *inst)
{
	return mmv_lookup_value_desc(base, metric, inst);
}

static void print_lookup(const char *metric, const char *inst)
{
	pmAtomValue *v = lookup(metric, inst);

	if (v)
		printf("lookup %s[%s] = %ld\n", metric, inst ? inst : "NULL",
		       (long)((char *)v - (char *)base));
	else
		printf("lookup %s[%s] = NULL\n", metric, inst ? inst : "NULL");
}

/* The pmAtomValue used by inc_atomvalue/add/set_atomvalue/set for a type. */
static pmAtomValue atom_for(mmv_metric_type_t type, int which)
{
	static char s1[] = "atom string", s2[] = "second atom";
	pmAtomValue a;

	memset(&a, 0, sizeof(a));
	switch (type) {
	case MMV_TYPE_I32: a.l = which ? -5 : 123456; break;
	case MMV_TYPE_U32: a.ul = which ? 0xfffffff0u : 7; break;
	case MMV_TYPE_I64: a.ll = which ? -(1LL << 40) : (1LL << 53) + 1; break;
	case MMV_TYPE_U64: a.ull = which ? 0x8000000000000001ULL : 12345678901ULL; break;
	case MMV_TYPE_FLOAT: a.f = which ? -0.25f : 2.5f; break;
	case MMV_TYPE_DOUBLE: a.d = which ? -1e-3 : 1e10; break;
	case MMV_TYPE_STRING: a.cp = which ? s2 : s1; break;
	case MMV_TYPE_ELAPSED: a.ll = which ? -250 : 1000; break;
	default: a.ull = 0x1122334455667788ULL; break;
	}
	return a;
}

/*
 * ELAPSED versions of the sequences that add to the total: every
 * non-negative amount comes after a negative one (an open interval).
 * Positive amounts with no interval open are case elapsed_adds.
 */
static int elapsed_op(const char *op, pmAtomValue *v, const char *metric,
		      const char *inst, pmAtomValue *a, pmAtomValue *b)
{
	if (!strcmp(op, "incv")) {
		mmv_inc_value(base, v, -1.5);
		mmv_inc_value(base, v, 3.7);
		mmv_inc_value(base, v, -20.0);
		mmv_inc_value(base, v, 1000.0);
	} else if (!strcmp(op, "inca")) {
		mmv_set_value(base, v, 10.0);
		mmv_inc_atomvalue(base, v, b);
		mmv_inc_atomvalue(base, v, a);
		mmv_inc_atomvalue(base, v, b);
		mmv_inc_atomvalue(base, v, a);
	} else if (!strcmp(op, "add")) {
		mmv_add(base, v, b);
		mmv_add(base, v, a);
		mmv_add(base, v, b);
		mmv_add(base, v, a);
	} else if (!strcmp(op, "name")) {
		mmv_stats_set(base, metric, inst, 100.0);
		mmv_stats_add(base, metric, inst, -2.5);
		mmv_stats_add(base, metric, inst, 2.5);
		mmv_stats_add(base, metric, inst, -4.0);
		mmv_stats_inc(base, metric, inst);
	} else if (!strcmp(op, "neg")) {
		mmv_set_value(base, v, -1.0);
		mmv_inc(base, v);		/* value < 0: extra += 1 */
		mmv_inc_value(base, v, -1.5);	/* extra = -1 */
		mmv_inc_value(base, v, 0.0);	/* closed: no open interval left */
	} else {
		return 0;
	}
	return 1;
}

/* Apply the update sequence @op to the value (@metric, @inst). */
static void apply(const char *op, mmv_metric_type_t type, const char *metric,
		  const char *inst)
{
	pmAtomValue *v = lookup(metric, inst);
	pmAtomValue a, b;

	if (!v) {
		printf("apply %s: %s[%s] not found\n", op, metric, inst ? inst : "-");
		return;
	}
	a = atom_for(type, 0);
	b = atom_for(type, 1);
	if (type == MMV_TYPE_ELAPSED && elapsed_op(op, v, metric, inst, &a, &b))
		return;
	if (!strcmp(op, "inc")) {
		mmv_inc(base, v); mmv_inc(base, v); mmv_inc(base, v);
	} else if (!strcmp(op, "incv")) {
		mmv_inc_value(base, v, 3.7);
		mmv_inc_value(base, v, -1.5);
		mmv_inc_value(base, v, 1000.0);
		mmv_inc_value(base, v, 0.0);
	} else if (!strcmp(op, "inca")) {
		mmv_set_value(base, v, 10.0);
		mmv_inc_atomvalue(base, v, &a);
		mmv_inc_atomvalue(base, v, &b);
		mmv_inc_atomvalue(base, v, &a);
	} else if (!strcmp(op, "add")) {
		mmv_add(base, v, &b);
		mmv_add(base, v, &a);
		mmv_add(base, v, &a);
	} else if (!strcmp(op, "setv")) {
		mmv_set_value(base, v, 42.9);
		mmv_inc(base, v);
	} else if (!strcmp(op, "big")) {
		mmv_set_value(base, v, 1e20);
	} else if (!strcmp(op, "neg")) {
		mmv_set_value(base, v, -1.0);
		mmv_inc(base, v);
		mmv_inc_value(base, v, -1.5);
	} else if (!strcmp(op, "p32")) {
		mmv_set_value(base, v, 4294967301.0);	/* 2^32 + 5 */
	} else if (!strcmp(op, "nbig")) {
		mmv_set_value(base, v, -1e20);
	} else if (!strcmp(op, "seta")) {
		mmv_set_atomvalue(base, v, &a);
		/* 32-bit types: only bytes 0-3 change, 4-7 keep a's bytes */
		mmv_set_value(base, v, 7.0);
	} else if (!strcmp(op, "set")) {
		mmv_set(base, v, &b);
		mmv_inc(base, v);
	} else if (!strcmp(op, "name")) {
		mmv_stats_set(base, metric, inst, 100.0);
		mmv_stats_add(base, metric, inst, 2.5);
		mmv_stats_inc(base, metric, inst);
		mmv_stats_inc(base, "no.such.metric", inst);
	} else if (!strcmp(op, "str")) {
		mmv_set_string(base, v, "a longer string first", 21);
		mmv_stats_set_string(base, metric, inst, "hello");
		mmv_stats_set_strlen(base, metric, inst, "abcdefgh", 3);
		mmv_set_string(base, v, "ignored", -1);
	} else if (!strcmp(op, "direct")) {
		v->ull += 0x0102030405060708ULL;	/* as acme does */
		mmv_inc(base, v);
	}
}

/* Lookups whose results (offsets) are printed and compared. */
static void lookups(void)
{
	print_lookup("i32.inc", NULL);
	print_lookup("i32.inc", "whatever");
	print_lookup("u64.ind", "seven");
	print_lookup("u64.ind", NULL);
	print_lookup("u64.ind", "nine");
	print_lookup("no.such", NULL);
	printf("lookup NULL addr = %s\n",
	       mmv_lookup_value_desc(NULL, "i32.inc", NULL) ? "found" : "NULL");
	printf("lookup NULL metric = %s\n",
	       mmv_lookup_value_desc(base, NULL, NULL) ? "found" : "NULL");
}

/* Every update sequence on every type, plus per-instance updates by name. */
static void updates(void)
{
	int t, o, i;
	char name[64];

	lookups();
	for (t = 0; t < NTYPES; t++)
		for (o = 0; o < NOPS; o++) {
			snprintf(name, sizeof(name), "%s.%s", types[t].name, ops[o]);
			apply(ops[o], types[t].type, name, NULL);
		}
	for (t = 0; t < NTYPES; t++) {
		snprintf(name, sizeof(name), "%s.ind", types[t].name);
		for (i = 0; i < NINST; i++)
			mmv_stats_set(base, name, inst_names[i], 10.0 * (i + 1) + 0.5);
		if (types[t].type == MMV_TYPE_ELAPSED) {
			/* open intervals first (see elapsed_op) */
			mmv_stats_add_fallback(base, name, "nine", "one", -1.0);
			mmv_stats_add_fallback(base, name, "zero", "one", -3.0);
			mmv_stats_add_fallback(base, name, "nine", "seven", -4.0);
		}
		mmv_stats_add_fallback(base, name, "nine", "one", 5.0);
		mmv_stats_add_fallback(base, name, "zero", "one", 2.0);
		mmv_stats_inc_fallback(base, name, "nine", "seven");
		mmv_stats_inc_fallback(base, name, "nine", "ten");
		mmv_stats_add(base, name, "nine", 1.0);
		mmv_stats_set_string(base, name, "zero", "instance zero");
		mmv_stats_set_strlen(base, name, "one", str254, 254);
		mmv_stats_set_strlen(base, name, "seven", "", 0);
	}
}

/* Metric (item, name, type) number k of the update set. */
static int update_metric(int k, const char **name, mmv_metric_type_t *type,
			 int *indom)
{
	if (k < NTYPES * NOPS) {
		snprintf(metric_names[k], sizeof(metric_names[k]), "%s.%s",
			 types[k / NOPS].name, ops[k % NOPS]);
		*type = types[k / NOPS].type;
		*indom = (k % 3 == 0) ? 0 : MMV_INDOM_NULL;	/* both mean none */
	} else {
		snprintf(metric_names[k], sizeof(metric_names[k]), "%s.ind",
			 types[k - NTYPES * NOPS].name);
		*type = types[k - NTYPES * NOPS].type;
		*indom = 3;
	}
	*name = metric_names[k];
	return k + 1;
}

#define NUPDATE	(NTYPES * NOPS + NTYPES)

static const pmUnits u_count = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE);
static const pmUnits u_usec = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0);
static const pmUnits u_mbs = MMV_UNITS(1, -1, 0, PM_SPACE_MBYTE, PM_TIME_SEC, 0);
static const pmUnits u_none = MMV_UNITS(0, 0, 0, 0, 0, 0);

static pmUnits units_for(int k)
{
	switch (k % 4) {
	case 0: return u_count;
	case 1: return u_usec;
	case 2: return u_mbs;
	default: return u_none;
	}
}

static mmv_metric_sem_t sem_for(int k)
{
	static const mmv_metric_sem_t s[3] = {
		MMV_SEM_COUNTER, MMV_SEM_INSTANT, MMV_SEM_DISCRETE
	};
	return s[k % 3];
}

/* Help variants: none, short only, long only, both, empty, 600 chars. */
static void help_for(int k, char **sh, char **lh)
{
	switch (k % 6) {
	case 0: *sh = NULL; *lh = NULL; break;
	case 1: *sh = "short help"; *lh = NULL; break;
	case 2: *sh = NULL; *lh = "long help\nsecond line"; break;
	case 3: *sh = "both short"; *lh = "both long"; break;
	case 4: *sh = ""; *lh = ""; break;
	default: *sh = "truncated below"; *lh = long_help; break;
	}
}

static int report_base(const char *what)
{
	if (base)
		return 0;
	printf("%s failed: errno %d\n", what, errno);
	return 1;
}

/* ---- v1 API ---- */

static mmv_instances_t v1_insts[NINST];
static mmv_instances_t v1_other[2] = { { 4, "four" }, { 5, "five" } };

static int upd_v1(const char *file)
{
	static mmv_metric_t m[NUPDATE];
	mmv_indom_t in[3] = {
		{ 3, NINST, v1_insts, "updates indom", "indom for per-instance updates" },
		{ 9, 2, v1_other, NULL, NULL },
		{ 11, 0, NULL, "", NULL },	/* no instances */
	};
	int k, indom;
	const char *name;
	mmv_metric_type_t type;

	for (k = 0; k < NINST; k++) {
		v1_insts[k].internal = inst_ids[k];
		strcpy(v1_insts[k].external, inst_names[k]);
	}
	for (k = 0; k < NUPDATE; k++) {
		m[k].item = update_metric(k, &name, &type, &indom);
		strcpy(m[k].name, name);
		m[k].type = type;
		m[k].indom = indom;
		m[k].semantics = sem_for(k);
		m[k].dimension = units_for(k);
		help_for(k, &m[k].shorttext, &m[k].helptext);
	}
	base = mmv_stats_init(file, 42, 0, m, NUPDATE, in, 3);
	if (report_base("mmv_stats_init"))
		return 0;
	updates();
	return 0;
}

/* ---- v2 API ---- */

static mmv_instances2_t v2_insts[NINST];

static int upd_v2_common(const char *file, int force_v2)
{
	static mmv_metric2_t m[NUPDATE + 2];
	static mmv_instances2_t longi[2];
	mmv_indom2_t in[2] = {
		{ 3, NINST, v2_insts, "updates indom", NULL },
		{ 12, 2, longi, NULL, "indom 12 help" },
	};
	int k, n = NUPDATE, indom;
	const char *name;
	mmv_metric_type_t type;

	for (k = 0; k < NINST; k++) {
		v2_insts[k].internal = inst_ids[k];
		v2_insts[k].external = inst_names[k];
	}
	longi[0].internal = 1;
	longi[0].external = force_v2 ? long_b : "short1";
	longi[1].internal = 2;
	longi[1].external = "short2";
	for (k = 0; k < NUPDATE; k++) {
		m[k].item = update_metric(k, &name, &type, &indom);
		m[k].name = (char *)name;
		m[k].type = type;
		m[k].indom = indom;
		m[k].semantics = sem_for(k);
		m[k].dimension = units_for(k);
		help_for(k, &m[k].shorttext, &m[k].helptext);
	}
	if (force_v2) {
		m[n] = m[0];
		m[n].name = long_a;	/* 70 chars: forces version 2 */
		m[n].item = 500;
		m[n].type = MMV_TYPE_STRING;
		m[n].indom = 12;
		n++;
	}
	base = mmv_stats2_init(file, 7, MMV_FLAG_SENTINEL, m, n, in, 2);
	if (report_base("mmv_stats2_init"))
		return 0;
	updates();
	if (force_v2) {
		mmv_stats_set_string(base, long_a, long_b, str254);
		mmv_stats_set_string(base, long_a, "short2", "short");
		print_lookup(long_a, "short2");
	}
	return 0;
}

static int upd_v2short(const char *file) { return upd_v2_common(file, 0); }
static int upd_v2(const char *file) { return upd_v2_common(file, 1); }

/* ---- registry ---- */

static int upd_reg(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 100, MMV_FLAG_NOPREFIX);
	int k, indom;
	const char *name;
	mmv_metric_type_t type;
	char *sh, *lh;

	if (!r)
		return printf("registry failed\n"), 0;
	/* metrics before their indom, as allowed */
	for (k = 0; k < NUPDATE; k++) {
		int item = update_metric(k, &name, &type, &indom);
		help_for(k, &sh, &lh);
		printf("add_metric %d: %d\n", item,
		       mmv_stats_add_metric(r, name, item, type, sem_for(k),
				units_for(k), indom, sh, lh));
	}
	printf("add_indom: %d\n", mmv_stats_add_indom(r, 3, "updates indom", "help"));
	for (k = 0; k < NINST; k++)
		(void)mmv_stats_add_instance(r, 3, inst_ids[k], inst_names[k]);
	printf("label: %d\n", mmv_stats_add_registry_label(r, "app", "\"compat\"",
				MMV_STRING_TYPE, 0));
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	updates();
	return 0;
}

/* ---- spec examples ---- */

static mmv_instances_t products[] = {
	{ .internal = 0, .external = "Anvils" },
	{ .internal = 1, .external = "Rockets" },
	{ .internal = 2, .external = "Giant_Rubber_Bands" },
};

static int acme(const char *file)
{
	mmv_indom_t indoms[] = { {
		.serial = 61, .count = 3, .instances = products,
		.shorttext = "Acme products",
		.helptext = "Most popular products produced by the Acme Corporation",
	} };
	mmv_metric_t metrics[] = {
		{ .name = "products.count", .item = 7, .type = MMV_TYPE_U64,
		  .semantics = MMV_SEM_COUNTER,
		  .dimension = MMV_UNITS(0, 0, 1, 0, 0, PM_COUNT_ONE),
		  .indom = 61, .shorttext = "Acme factory product throughput",
		  .helptext = "Monotonic increasing counter of products produced in the Acme Corporation\n"
			"factory since starting the Acme production application.  Quality guaranteed." },
		{ .name = "products.time", .item = 8, .type = MMV_TYPE_U64,
		  .semantics = MMV_SEM_COUNTER,
		  .dimension = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0),
		  .indom = 61, .shorttext = "Machine time spent producing Acme products",
		  .helptext = "Machine time spent producing Acme Corporation products.  Does not include\n"
			"time in queues waiting for production machinery." },
		{ .name = "products.queuetime", .item = 10, .type = MMV_TYPE_U64,
		  .semantics = MMV_SEM_COUNTER,
		  .dimension = MMV_UNITS(0, 1, 0, 0, PM_TIME_USEC, 0),
		  .indom = 61, .shorttext = "Queued time while producing Acme products",
		  .helptext = "Time spent in the queue waiting to build Acme Corporation products,\n"
			"while some other Acme product was being built instead of this one." },
	};
	pmAtomValue *count[3], *machine[3], *inqueue[3];
	unsigned int i, n, product, working;

	base = mmv_stats_init(file, 321, 0, metrics, 3, indoms, 1);
	if (report_base("mmv_stats_init"))
		return 0;
	for (i = 0; i < 3; i++) {
		count[i] = lookup("products.count", products[i].external);
		machine[i] = lookup("products.time", products[i].external);
		inqueue[i] = lookup("products.queuetime", products[i].external);
		print_lookup("products.count", products[i].external);
		print_lookup("products.queuetime", products[i].external);
	}
	/* acme's loop with a fixed "random" sequence and no sleeping */
	for (n = 0; n < 50; n++) {
		product = (n * 7 + n / 3) % 3;
		working = (n * 7919u) % 50000;
		mmv_inc_value(base, machine[product], working);
		count[product]->ull += 1;
		for (i = 0; i < 3; i++)
			if (i != product)
				mmv_inc_value(base, inqueue[i], working);
	}
	return 0;
}

/* docs/mmv-format.md §2.4: the v1/v2/v3 trio (2288 / 3288 / 4328 bytes). */
static int trio(const char *file, int variant)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);

	if (!r)
		return printf("registry failed\n"), 0;
	printf("add_indom: %d\n", mmv_stats_add_indom(r, 5, "indom short", "indom long"));
	(void)mmv_stats_add_instance(r, 5, 1, "one");
	(void)mmv_stats_add_instance(r, 5, 2, "two");
	printf("add_metric: %d\n", mmv_stats_add_metric(r, "m.counter", 1,
		MMV_TYPE_U64, MMV_SEM_COUNTER, u_count, 0, "short1", NULL));
	printf("add_metric: %d\n", mmv_stats_add_metric(r, "m.str", 2,
		MMV_TYPE_STRING, MMV_SEM_INSTANT, u_none, 5, NULL, "long2"));
	printf("add_metric: %d\n", mmv_stats_add_metric(r,
		variant ? long_a : "m.el", 3, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER,
		u_usec, MMV_INDOM_NULL, NULL, NULL));
	if (variant == 2) {
		printf("labels: %d %d %d %d\n",
		       mmv_stats_add_registry_label(r, "app", "\"acme\"", MMV_STRING_TYPE, 0),
		       mmv_stats_add_indom_label(r, 5, "indom_l", "42", MMV_NUMBER_TYPE, 1),
		       mmv_stats_add_metric_label(r, 2, "metric_l", "true", MMV_BOOLEAN_TYPE, 0),
		       mmv_stats_add_instance_label(r, 5, 2, "inst_l", "anything", MMV_NULL_TYPE, 0));
	}
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_inc(base, "m.counter", NULL);
	mmv_stats_set_string(base, "m.str", "one", "first");
	mmv_stats_set_string(base, "m.str", "two", str254);
	mmv_stats_set(base, variant ? long_a : "m.el", NULL, 123456.0);
	print_lookup("m.str", "two");
	return 0;
}

static int trio1(const char *f) { return trio(f, 0); }
static int trio2(const char *f) { return trio(f, 1); }
static int trio3(const char *f) { return trio(f, 2); }

/* Labels at every level, every value type, optional and not. */
static int labels(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 321, 0);
	static char big[300];

	if (!r)
		return printf("registry failed\n"), 0;
	/* name + value = 238 chars: the longest complete payload */
	big[0] = '"';
	fill(big + 1, 233, 'x');
	strcat(big, "\"");
	mmv_stats_add_indom(r, 1, NULL, NULL);
	(void)mmv_stats_add_instance(r, 1, 0, "a");
	(void)mmv_stats_add_instance(r, 1, 1, "b");
	mmv_stats_add_metric(r, "x", 1, MMV_TYPE_I32, MMV_SEM_INSTANT, u_none, 1, NULL, NULL);
	mmv_stats_add_metric(r, "y", 2, MMV_TYPE_DOUBLE, MMV_SEM_INSTANT, u_none, 0, NULL, NULL);
	printf("%d\n", mmv_stats_add_registry_label(r, "app", "\"acme\"", MMV_STRING_TYPE, 0));
	printf("%d\n", mmv_stats_add_registry_label(r, "ver", "3", MMV_NUMBER_TYPE, 1));
	printf("%d\n", mmv_stats_add_registry_label(r, "big", big, MMV_STRING_TYPE, 0));
	printf("%d\n", mmv_stats_add_indom_label(r, 1, "m", "{\"k\":[1,2,{\"z\":null}]}", MMV_MAP_TYPE, 0));
	printf("%d\n", mmv_stats_add_indom_label(r, 1, "ws", "{ \"k\" : 1 }", MMV_MAP_TYPE, 1));
	printf("%d\n", mmv_stats_add_metric_label(r, 1, "arr", "[1,\"two\",true]", MMV_ARRAY_TYPE, 0));
	printf("%d\n", mmv_stats_add_metric_label(r, 2, "f", "false", MMV_BOOLEAN_TYPE, 1));
	printf("%d\n", mmv_stats_add_metric_label(r, 2, "num", "-3.5e2", MMV_NUMBER_TYPE, 0));
	printf("%d\n", mmv_stats_add_instance_label(r, 1, 0, "n", "ignored", MMV_NULL_TYPE, 0));
	printf("%d\n", mmv_stats_add_instance_label(r, 1, 1, "s", "\"b\\\"q\"", MMV_STRING_TYPE, 1));
	printf("%d\n", mmv_stats_add_instance_label(r, 1, 1, "app", "\"inst\"", MMV_STRING_TYPE, 0));
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_set(base, "x", "b", -7.0);
	mmv_stats_set(base, "y", NULL, 0.125);
	return 0;
}

/* Header flags and cluster, one small file each. */
static int flags_case(const char *file, int cluster, mmv_stats_flags_t flags)
{
	static mmv_metric_t m[1] = { { .name = "v", .item = 1,
		.type = MMV_TYPE_U32, .semantics = MMV_SEM_INSTANT } };

	base = mmv_stats_init(file, cluster, flags, m, 1, NULL, 0);
	if (report_base("mmv_stats_init"))
		return 0;
	mmv_stats_set(base, "v", NULL, 0xffffffff);
	return 0;
}

static int fl_none(const char *f) { return flags_case(f, 0, 0); }
static int fl_noprefix(const char *f) { return flags_case(f, 1, MMV_FLAG_NOPREFIX); }
static int fl_process(const char *f) { return flags_case(f, 2047, MMV_FLAG_PROCESS); }
static int fl_sentinel(const char *f) { return flags_case(f, MMV_CLUSTER_MAX, MMV_FLAG_SENTINEL); }
/* bits PCP does not define are written as given (docs/mmv-format.md §2.1) */
static int fl_unknown(const char *f) { return flags_case(f, 3, (mmv_stats_flags_t)0x108); }
static int fl_all(const char *f)
{
	return flags_case(f, MMV_CLUSTER_MAX, MMV_FLAG_NOPREFIX | MMV_FLAG_PROCESS | MMV_FLAG_SENTINEL);
}

/* Smallest files: no metrics at all (72 B), one U32 without help (208 B). */
static int empty_reg(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);

	base = r ? mmv_stats_start(r) : NULL;
	report_base("mmv_stats_start");
	return 0;
}

static int empty_init(const char *file)
{
	base = mmv_stats_init(file, 0, 0, NULL, 0, NULL, 0);
	report_base("mmv_stats_init");
	return 0;
}

static int min_reg(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);

	if (!r)
		return printf("registry failed\n"), 0;
	mmv_stats_add_metric(r, "one", 0, MMV_TYPE_U32, MMV_SEM_INSTANT, u_none,
			     0, NULL, NULL);
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_inc(base, "one", NULL);
	return 0;
}

/*
 * A file of about 1 MB (many 128 KiB zero-fill chunks): 600 singular
 * metrics with help, one over 5,000 instances; values set at both ends.
 */
static int large(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);
	static char mnames[600][16], inames[5000][16];
	pmAtomValue *v;

	if (!r)
		return printf("registry failed\n"), 0;
	mmv_stats_add_indom(r, 1, "five thousand", NULL);
	for (int k = 0; k < 5000; k++) {
		snprintf(inames[k], sizeof(inames[k]), "inst%04d", k);
		mmv_stats_add_instance(r, 1, k, inames[k]);
	}
	for (int i = 0; i < 600; i++) {
		snprintf(mnames[i], sizeof(mnames[i]), "large.m%03d", i);
		mmv_stats_add_metric(r, mnames[i], i, MMV_TYPE_U64,
				     MMV_SEM_COUNTER, u_none, 0,
				     "one line", "a longer help text");
	}
	mmv_stats_add_metric(r, "large.per_inst", 600, MMV_TYPE_U64,
			     MMV_SEM_COUNTER, u_none, 1, NULL, NULL);
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_set(base, "large.m000", NULL, 11);
	mmv_stats_set(base, "large.m599", NULL, 22);
	if ((v = lookup("large.per_inst", "inst0000")) != NULL)
		v->ull = 33;
	if ((v = lookup("large.per_inst", "inst4999")) != NULL)
		v->ull = 44;
	print_lookup("large.per_inst", "inst4999");
	return 0;
}

/* Strings: every length docs/mmv-format.md §4.7 bounds, set through every path. */
static int strings(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);
	static char s253[300], *names[] = { "s.l0", "s.l1", "s.l253", "s.l254",
		"s.reset", "s.prefix", "s.atom", "s.set", "s.ignored", "s.utf8" };
	pmAtomValue a;
	unsigned int i;

	if (!r)
		return printf("registry failed\n"), 0;
	fill(s253, 253, 'q');
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		mmv_stats_add_metric(r, names[i], i, MMV_TYPE_STRING,
				     MMV_SEM_INSTANT, u_none, 0, NULL, NULL);
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_set_string(base, "s.l0", NULL, "");
	mmv_stats_set_string(base, "s.l1", NULL, "x");
	mmv_stats_set_string(base, "s.l253", NULL, s253);
	mmv_set_string(base, lookup("s.l254", NULL), str254, 254);
	mmv_stats_set_string(base, "s.reset", NULL, str254);
	mmv_stats_set_string(base, "s.reset", NULL, "short");
	mmv_stats_set_strlen(base, "s.prefix", NULL, str254, 100);
	memset(&a, 0, sizeof(a));
	a.cp = "through set_atomvalue";
	mmv_set_atomvalue(base, lookup("s.atom", NULL), &a);
	a.cp = "through set";
	mmv_set(base, lookup("s.set", NULL), &a);
	mmv_stats_set_string(base, "s.ignored", NULL, "kept");
	mmv_set_string(base, lookup("s.ignored", NULL), "negative", -5);
	mmv_set_value(base, lookup("s.ignored", NULL), 5.0);
	mmv_inc(base, lookup("s.ignored", NULL));
	mmv_stats_set_string(base, "s.utf8", NULL, "caf\xc3\xa9 \xe2\x82\xac");
	return 0;
}

/* ELAPSED: deterministic paths, then an interval whose only checked
 * properties are the sign of extra and the size of the result. */
static int elapsed(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);
	pmAtomValue *v, *w;
	int64_t *x;

	if (!r)
		return printf("registry failed\n"), 0;
	mmv_stats_add_metric(r, "e.det", 1, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER,
			     u_usec, 0, NULL, NULL);
	mmv_stats_add_metric(r, "e.iv", 2, MMV_TYPE_ELAPSED, MMV_SEM_COUNTER,
			     u_usec, 0, NULL, NULL);
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	v = lookup("e.det", NULL);
	x = (int64_t *)v + 1;
	mmv_set_value(base, v, 5000.0);
	mmv_inc_value(base, v, -300.0);		/* opens: extra = -300 */
	printf("extra after inc_value(-300) = %lld\n", (long long)*x);
	mmv_inc_value(base, v, 1000.0);		/* closes: += 700 */
	printf("value %lld extra %lld\n", (long long)v->ll, (long long)*x);
	mmv_inc_value(base, v, -50.0);
	mmv_inc(base, v);			/* value >= 0: += extra + 1 */
	printf("value %lld extra %lld\n", (long long)v->ll, (long long)*x);

	w = lookup("e.iv", NULL);
	x = (int64_t *)w + 1;
	printf("interval_start(NULL addr) returns arg: %d\n",
	       mmv_stats_interval_start(NULL, w, "e.iv", NULL) == w);
	printf("interval_start(unknown) = %s\n",
	       mmv_stats_interval_start(base, NULL, "nope", NULL) ? "found" : "NULL");
	v = mmv_stats_interval_start(base, NULL, "e.iv", NULL);
	printf("interval_start by name returns handle: %d\n", v == w);
	printf("open interval: extra negative %d, value %lld\n", *x < 0,
	       (long long)w->ll);
	mmv_stats_interval_end(base, w);
	printf("closed: extra %lld, value in [0, 60 s): %d\n", (long long)*x,
	       w->ll >= 0 && w->ll < 60000000);
	mmv_stats_interval_start(base, w, NULL, NULL);
	printf("reopened: extra negative %d\n", *x < 0);
	mmv_set_value(base, w, 777.0);		/* clears extra */
	printf("after set_value: value %lld extra %lld\n", (long long)w->ll,
	       (long long)*x);
	mmv_stats_interval_end(base, NULL);
	mmv_stats_interval_end(NULL, w);
	return 0;
}

/*
 * ELAPSED amounts added with no interval open: PCP adds them to the total
 * (docs/mmv-format.md §10.4: value += extra + amount, extra being 0).
 */
static int elapsed_adds(const char *file)
{
	static const char *names[] = { "e.incv", "e.inca", "e.add", "e.stats_add",
		"e.fallback", "e.after_set", "e.stats_inc", "e.inc_fallback" };
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);
	pmAtomValue a;
	unsigned int i;

	if (!r)
		return printf("registry failed\n"), 0;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		mmv_stats_add_metric(r, names[i], i + 1, MMV_TYPE_ELAPSED,
				     MMV_SEM_COUNTER, u_usec, 0, NULL, NULL);
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	memset(&a, 0, sizeof(a));
	a.ll = 5;
	mmv_inc_value(base, lookup("e.incv", NULL), 5.0);
	mmv_inc_atomvalue(base, lookup("e.inca", NULL), &a);
	mmv_add(base, lookup("e.add", NULL), &a);
	mmv_stats_add(base, "e.stats_add", NULL, 5.0);
	mmv_stats_add_fallback(base, "e.fallback", "x", "y", 5.0);
	mmv_stats_set(base, "e.after_set", NULL, 100.0);
	mmv_stats_add(base, "e.after_set", NULL, 5.0);
	mmv_stats_inc(base, "e.stats_inc", NULL);
	mmv_stats_inc_fallback(base, "e.inc_fallback", "x", "y");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("%s = %lld\n", names[i], (long long)lookup(names[i], NULL)->ll);
	return 0;
}

/* Creation-time validation (docs/mmv-format.md §10.2): errno of each rejected init. */
static int errors(const char *file)
{
	static char n256[300], h256[300];
	mmv_instances2_t i2[2] = { { 1, "ok" }, { 2, "" } };
	mmv_indom2_t d2 = { 5, 2, i2, NULL, NULL };
	mmv_metric2_t m2 = { .name = "m", .item = 1, .type = MMV_TYPE_U32,
		.semantics = MMV_SEM_INSTANT, .indom = 5 };
	mmv_indom_t d1 = { 5, 0, NULL, NULL, NULL };
	mmv_metric_t m1 = { .name = "m", .item = 1, .type = MMV_TYPE_U32,
		.semantics = MMV_SEM_INSTANT, .indom = 5 };
	void *p;

	fill(n256, 256, 'n');
	fill(h256, 256, 'h');
#define TRY(what, call) do { errno = 0; p = (call); \
	printf("%s: %s errno %d\n", what, p ? "created" : "NULL", p ? 0 : errno); \
	if (p) mmv_stats_stop(file, p); } while (0)

	d1.serial = 0;
	TRY("v1 indom serial 0", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.serial = 0xffffffff;
	TRY("v1 indom serial -1", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.serial = 6;
	TRY("v1 undeclared indom", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.serial = 5;
	d1.shorttext = h256;
	TRY("v1 indom short 256", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.shorttext = NULL;
	d1.helptext = h256;
	TRY("v1 indom help 256", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.helptext = NULL;
	m1.type = 10;
	TRY("v1 type 10", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	m1.type = -2;
	TRY("v1 type -2", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.serial = 0;
	TRY("v1 serial 0 and type -2", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	d1.serial = 5;
	m1.type = MMV_TYPE_U32;
	m1.name[0] = '\0';
	TRY("v1 empty name", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));

	TRY("v2 empty instance name", mmv_stats2_init(file, 0, 0, &m2, 1, &d2, 1));
	i2[1].external = n256;
	TRY("v2 instance name 256", mmv_stats2_init(file, 0, 0, &m2, 1, &d2, 1));
	i2[1].external = "two";
	m2.name = n256;
	TRY("v2 metric name 256", mmv_stats2_init(file, 0, 0, &m2, 1, &d2, 1));
	m2.name = "";
	TRY("v2 empty metric name", mmv_stats2_init(file, 0, 0, &m2, 1, &d2, 1));
	m2.name = "m";
	m2.indom = 77;
	TRY("v2 undeclared indom", mmv_stats2_init(file, 0, 0, &m2, 1, &d2, 1));
	m2.indom = 5;
	d2.helptext = h256;
	TRY("v2 indom help 256", mmv_stats2_init(file, 0, 0, &m2, 1, &d2, 1));
	d2.helptext = NULL;

	/* the registry reports these at mmv_stats_start (PCP) */
	{
		mmv_registry_t *r = mmv_stats_registry(file, 0, 0);
		errno = 0;
		mmv_stats_add_indom(r, 4, NULL, NULL);
		mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U32, MMV_SEM_INSTANT,
				     u_none, 8, NULL, NULL);
		TRY("registry undeclared indom", mmv_stats_start(r));
		printf("add_instance unknown indom: errno %d\n",
		       (mmv_stats_add_instance(r, 99, 1, "x"), errno));
	}
	/* finally a valid file so there is something to compare */
	m1.name[0] = 'm';
	TRY("v1 valid", mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1));
	m1.indom = 0;
	base = mmv_stats_init(file, 0, 0, &m1, 1, &d1, 1);
	report_base("final");
#undef TRY
	return 0;
}

/*
 * Registry definitions that PCP rejects at mmv_stats_start (docs/mmv-format.md §10.2):
 * print every call's result, then whether a file was created.
 */
static void regerr(const char *file, int which)
{
	static char n256[300], h256[300];
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);
	int rc = 0;

	fill(n256, 256, 'n');
	fill(h256, 256, 'h');
	if (!r) {
		printf("registry failed\n");
		return;
	}
	printf("good indom: %d\n", mmv_stats_add_indom(r, 2, NULL, NULL));
	(void)mmv_stats_add_instance(r, 2, 1, "inst");
	printf("good metric: %d\n", mmv_stats_add_metric(r, "good", 1,
		MMV_TYPE_U32, MMV_SEM_INSTANT, u_none, 2, NULL, NULL));
	errno = 0;
	switch (which) {
	case 0: rc = mmv_stats_add_metric(r, "bad", 2, 10, MMV_SEM_INSTANT,
				u_none, 0, NULL, NULL); break;
	case 1: rc = mmv_stats_add_metric(r, "bad", 2, -2, MMV_SEM_INSTANT,
				u_none, 0, NULL, NULL); break;
	case 2: rc = mmv_stats_add_metric(r, "", 2, MMV_TYPE_U32,
				MMV_SEM_INSTANT, u_none, 0, NULL, NULL); break;
	case 3: rc = mmv_stats_add_metric(r, n256, 2, MMV_TYPE_U32,
				MMV_SEM_INSTANT, u_none, 0, NULL, NULL); break;
	case 4: rc = mmv_stats_add_indom(r, 0, NULL, NULL); break;
	case 5: rc = mmv_stats_add_indom(r, 3, h256, NULL); break;
	case 6: rc = mmv_stats_add_instance(r, 2, 2, "");
		rc = rc == -1 && errno == EINVAL ? 0 : rc; break;	/* PCP 6 */
	case 7: rc = mmv_stats_add_instance(r, 2, 2, n256);
		rc = rc == -1 && errno == EINVAL ? 0 : rc; break;
	case 8: rc = mmv_stats_add_metric(r, "bad", 2, MMV_TYPE_U32,
				MMV_SEM_INSTANT, u_none, 9, NULL, NULL); break;
	}
	printf("bad call: %d errno %d\n", rc, rc ? errno : 0);
	errno = 0;
	base = mmv_stats_start(r);
	printf("start: %s errno %d\n", base ? "created" : "NULL", base ? 0 : errno);
	if (base)
		mmv_stats_inc(base, "good", "inst");
}

static int regerr_type10(const char *f) { regerr(f, 0); return 0; }
static int regerr_type_neg2(const char *f) { regerr(f, 1); return 0; }
static int regerr_empty_name(const char *f) { regerr(f, 2); return 0; }
static int regerr_name256(const char *f) { regerr(f, 3); return 0; }
static int regerr_serial0(const char *f) { regerr(f, 4); return 0; }
static int regerr_indom_help256(const char *f) { regerr(f, 5); return 0; }
static int regerr_empty_inst(const char *f) { regerr(f, 6); return 0; }
static int regerr_inst256(const char *f) { regerr(f, 7); return 0; }
static int regerr_undeclared(const char *f) { regerr(f, 8); return 0; }

/* v1 names at the limits: 63-char metric and instance names, and a
 * 64-char instance name with no NUL (cut to 63, docs/mmv-format.md §5). */
static int v1_names(const char *file)
{
	static mmv_instances_t in[3];
	static mmv_metric_t m[2];
	mmv_indom_t d = { 8, 3, in, NULL, NULL };

	in[0].internal = 1;
	memset(in[0].external, 'x', MMV_NAME_MAX_V1);
	in[1].internal = 2;
	memset(in[1].external, 'y', MMV_NAMEMAX);	/* no terminator */
	in[2].internal = 3;
	strcpy(in[2].external, "z");
	memset(m[0].name, 'm', MMV_NAME_MAX_V1);
	m[0].item = 1;
	m[0].type = MMV_TYPE_U64;
	m[0].semantics = MMV_SEM_COUNTER;
	m[0].indom = 8;
	strcpy(m[1].name, "a.b.c_d.E9");
	m[1].item = MMV_ITEM_MAX;
	m[1].type = MMV_TYPE_DOUBLE;
	m[1].semantics = MMV_SEM_INSTANT;
	m[1].dimension = u_mbs;
	base = mmv_stats_init(file, 1, 0, m, 2, &d, 1);
	if (report_base("mmv_stats_init"))
		return 0;
	mmv_stats_add(base, m[0].name, "z", 3.0);
	mmv_stats_add(base, m[0].name, in[0].external, 4.0);
	mmv_stats_set(base, "a.b.c_d.E9", NULL, 2.75);
	return 0;
}

/* mmv_stats2_init with short metric names and one 64-char instance name:
 * version 2. */
static int v2_instlong(const char *file)
{
	static char n64[80];
	mmv_instances2_t in[2] = { { 1, "short" }, { 2, n64 } };
	mmv_indom2_t d[2] = { { 4, 2, in, "s", "l" }, { 6, 0, NULL, NULL, "empty" } };
	mmv_metric2_t m = { .name = "v", .item = 1, .type = MMV_TYPE_I64,
		.semantics = MMV_SEM_INSTANT, .indom = 4 }, m2[2];

	fill(n64, 64, 'i');
	m2[0] = m;
	m2[1] = m;
	m2[1].name = "on.empty.indom";	/* no instances: no value record */
	m2[1].item = 2;
	m2[1].indom = 6;
	base = mmv_stats2_init(file, 1, 0, m2, 2, d, 2);
	if (report_base("mmv_stats2_init"))
		return 0;
	mmv_stats_set(base, "v", n64, -9.0);
	mmv_stats_set(base, "v", "short", 9.0);
	return 0;
}

/* mmv_stats_set_strlen with len past the NUL, and an embedded NUL: PCP 6
 * copies with strncpy (stops at the NUL) and records len in value.l. */
static int str_past(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);

	if (!r)
		return printf("registry failed\n"), 0;
	mmv_stats_add_metric(r, "past", 1, MMV_TYPE_STRING, MMV_SEM_INSTANT,
			     u_none, 0, NULL, NULL);
	mmv_stats_add_metric(r, "nul", 2, MMV_TYPE_STRING, MMV_SEM_INSTANT,
			     u_none, 0, NULL, NULL);
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_set_string(base, "past", NULL, "0123456789abcdef");
	mmv_stats_set_strlen(base, "past", NULL, "abc", 10);
	mmv_stats_set_string(base, "nul", NULL, "0123456789abcdef");
	mmv_stats_set_strlen(base, "nul", NULL, "ab\0cd", 5);
	return 0;
}

/* Indoms (with and without instances and help) and no metric at all. */
static int indoms_only(const char *file)
{
	static mmv_instances_t in[2] = { { 5, "five" }, { -1, "minus one" } };
	mmv_indom_t d[3] = { { 1, 2, in, "one", "first indom" },
		{ 2, 0, NULL, NULL, NULL }, { MMV_SERIAL_MAX, 1, in + 1, NULL, "" } };

	base = mmv_stats_init(file, 0, 0, NULL, 0, d, 3);
	report_base("mmv_stats_init");
	return 0;
}

/* A rejected label leaves the registry at version 1. */
static int reg_badlabel(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 5, 0);

	if (!r)
		return printf("registry failed\n"), 0;
	mmv_stats_add_metric(r, "v", 1, MMV_TYPE_I32, MMV_SEM_INSTANT, u_none,
			     0, "s", "l");
	printf("bad name: %d\n", mmv_stats_add_registry_label(r, "1x", "1", MMV_NUMBER_TYPE, 0));
	printf("bad value: %d\n", mmv_stats_add_metric_label(r, 1, "x", "yes", MMV_BOOLEAN_TYPE, 0));
	printf("bad type: %d\n", mmv_stats_add_metric_label(r, 1, "x", "1", 9, 0));
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	mmv_stats_set(base, "v", NULL, -123.0);
	return 0;
}

/* stop: the file stays without PROCESS and goes with it. */
static int stop_case(const char *file)
{
	static mmv_metric_t m[1] = { { .name = "v", .item = 1,
		.type = MMV_TYPE_U32, .semantics = MMV_SEM_INSTANT } };
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/mmv/%s.p", getenv("PCP_TMP_DIR"), file);
	base = mmv_stats_init(path, 0, MMV_FLAG_PROCESS, m, 1, NULL, 0);
	if (report_base("process init"))
		return 0;
	mmv_stats_stop(path, base);
	f = fopen(path, "r");
	printf("PROCESS file after stop: %s\n", f ? "present" : "gone");
	if (f)
		fclose(f);
	base = mmv_stats_init(file, 0, 0, m, 1, NULL, 0);
	if (report_base("init"))
		return 0;
	mmv_stats_set(base, "v", NULL, 9.0);
	mmv_stats_stop(file, base);
	mmv_stats_stop(file, NULL);
	/* mmv_stats_free stops too: a PROCESS registry's file goes */
	{
		mmv_registry_t *r = mmv_stats_registry(path, 0, MMV_FLAG_PROCESS);
		mmv_stats_add_metric(r, "v", 1, MMV_TYPE_U32, MMV_SEM_INSTANT,
				     u_none, 0, NULL, NULL);
		printf("registry PROCESS start: %s\n", mmv_stats_start(r) ? "created" : "NULL");
		mmv_stats_free(r);
		f = fopen(path, "r");
		printf("PROCESS registry file after free: %s\n", f ? "present" : "gone");
		if (f)
			fclose(f);
	}
	return 0;
}

/* ---- repeats: PCP writes them, pmdammv drops them ---- */

/* Lookups and updates by name where names repeat: the first wins. */
static void dup_updates(void)
{
	mmv_stats_set(base, "a", NULL, 11.0);
	mmv_stats_set(base, "r", "x", 12.0);	/* first r has no "x" */
	mmv_stats_set(base, "r", "y", 13.0);
	mmv_stats_add(base, "i", "dup", 14.0);	/* repeated instance name */
	mmv_stats_add(base, "s", "p", 15.0);	/* repeated serial */
	print_lookup("a", NULL);
	print_lookup("r", "x");
	print_lookup("r", "y");
	print_lookup("i", "dup");
	print_lookup("s", "p");
}

/*
 * One file of every repeat: items (one, two: item 1), names (a twice;
 * r on indom 4 and on indom 6), instance ids and names within indom 4,
 * and indom serial 6 declared twice (metric s uses the first).
 */
static const struct {
	char *name;
	int item, indom;
} dup_def[8] = {
	{ "one", 1, 0 }, { "two", 1, 0 }, { "a", 2, 0 }, { "a", 3, 0 },
	{ "r", 4, 4 }, { "r", 5, 6 }, { "i", 6, 4 }, { "s", 7, 6 },
};
static mmv_instances_t dup_in4[4] = { { 1, "x0" }, { 1, "x1" }, { 2, "dup" }, { 3, "dup" } };
static mmv_instances_t dup_in6a[2] = { { 1, "p" }, { 2, "y" } };
static mmv_instances_t dup_in6b[1] = { { 9, "q" } };

static int dup_v1(const char *file)
{
	mmv_indom_t d[3] = { { 4, 4, dup_in4, NULL, NULL },
		{ 6, 2, dup_in6a, "six", NULL }, { 6, 1, dup_in6b, "six again", NULL } };
	mmv_metric_t m[8];

	memset(m, 0, sizeof(m));
	for (int k = 0; k < 8; k++) {
		snprintf(m[k].name, sizeof(m[k].name), "%s", dup_def[k].name);
		m[k].item = dup_def[k].item;
		m[k].type = MMV_TYPE_U64;
		m[k].semantics = MMV_SEM_COUNTER;
		m[k].dimension = u_count;
		m[k].indom = dup_def[k].indom;
	}
	base = mmv_stats_init(file, 0, 0, m, 8, d, 3);
	if (report_base("mmv_stats_init"))
		return 0;
	dup_updates();
	return 0;
}

static mmv_instances2_t dup2_in4[4] = { { 1, "x0" }, { 1, "x1" }, { 2, "dup" }, { 3, "dup" } };
static mmv_instances2_t dup2_in6a[2] = { { 1, "p" }, { 2, "y" } };
static mmv_instances2_t dup2_in6b[1] = { { 9, "q" } };

static int dup_v2(const char *file)
{
	mmv_indom2_t d[3] = { { 4, 4, dup2_in4, NULL, NULL },
		{ 6, 2, dup2_in6a, "six", NULL }, { 6, 1, dup2_in6b, "six again", NULL } };
	mmv_metric2_t m[8];

	memset(m, 0, sizeof(m));
	for (int k = 0; k < 8; k++) {
		m[k].name = dup_def[k].name;
		m[k].item = dup_def[k].item;
		m[k].type = MMV_TYPE_U64;
		m[k].semantics = MMV_SEM_COUNTER;
		m[k].dimension = u_count;
		m[k].indom = dup_def[k].indom;
	}
	base = mmv_stats2_init(file, 0, 0, m, 8, d, 3);
	if (report_base("mmv_stats2_init"))
		return 0;
	dup_updates();
	return 0;
}

/* The same through the registry; repeated serial 6 gets "p", "y" twice. */
static int dup_reg(const char *file)
{
	mmv_registry_t *r = mmv_stats_registry(file, 0, 0);

	if (!r)
		return printf("registry failed\n"), 0;
	printf("indom 4: %d\n", mmv_stats_add_indom(r, 4, NULL, NULL));
	printf("indom 6: %d\n", mmv_stats_add_indom(r, 6, "six", NULL));
	printf("indom 6 again: %d\n", mmv_stats_add_indom(r, 6, "six again", NULL));
	/* PCP 6 returns -1 for every instance: not printed */
	for (int k = 0; k < 4; k++)
		mmv_stats_add_instance(r, 4, dup2_in4[k].internal, dup2_in4[k].external);
	mmv_stats_add_instance(r, 6, 1, "p");
	mmv_stats_add_instance(r, 6, 2, "y");
	for (int k = 0; k < 8; k++)
		printf("metric %s item %d: %d\n", dup_def[k].name, dup_def[k].item,
		       mmv_stats_add_metric(r, dup_def[k].name, dup_def[k].item,
				MMV_TYPE_U64, MMV_SEM_COUNTER, u_count,
				dup_def[k].indom, NULL, NULL));
	base = mmv_stats_start(r);
	if (report_base("mmv_stats_start"))
		return 0;
	dup_updates();
	return 0;
}

/* Two metrics with item 1 through mmv_stats2_init, as PCP's QA mmv2_simple. */
static int item_twice(const char *file)
{
	mmv_metric2_t m[2] = {
		{ .name = "counter", .item = 1, .type = MMV_TYPE_U32,
		  .semantics = MMV_SEM_COUNTER, .dimension = u_count,
		  .indom = 0, .shorttext = "a counter" },
		{ .name = "gauge", .item = 1, .type = MMV_TYPE_I64,
		  .semantics = MMV_SEM_INSTANT, .dimension = u_none,
		  .indom = 0, .helptext = "a gauge" },
	};

	base = mmv_stats2_init(file, 0, 0, m, 2, NULL, 0);
	if (report_base("mmv_stats2_init"))
		return 1;	/* mmv2_simple exits 1 here on our old library */
	mmv_stats_inc(base, "counter", NULL);
	mmv_stats_set(base, "gauge", NULL, -42.0);
	print_lookup("counter", NULL);
	print_lookup("gauge", NULL);
	return 0;
}

/*
 * What PCP's init does not check, written as PCP writes it: cluster over
 * 4095, item over 1023, semantics 2, type 7, a name pmdammv would not
 * export, indom serial over 2047.
 */
static int init_unchecked(const char *file)
{
	static mmv_instances2_t in[1] = { { 1, "one" } };
	mmv_indom2_t d[1] = { { 2048, 1, in, NULL, NULL } };
	mmv_metric2_t m[4] = {
		{ .name = "item1024", .item = 1024, .type = MMV_TYPE_U32,
		  .semantics = MMV_SEM_COUNTER, .dimension = u_count },
		{ .name = "sem2", .item = 2, .type = MMV_TYPE_U32,
		  .semantics = (mmv_metric_sem_t)2, .dimension = u_count },
		{ .name = "type7", .item = 3, .type = (mmv_metric_type_t)7,
		  .semantics = MMV_SEM_INSTANT, .dimension = u_none },
		{ .name = "a-b", .item = 4, .type = MMV_TYPE_U64,
		  .semantics = MMV_SEM_INSTANT, .dimension = u_none, .indom = 2048 },
	};

	base = mmv_stats2_init(file, 5000, 0, m, 4, d, 1);
	if (report_base("mmv_stats2_init"))
		return 0;
	mmv_stats_set(base, "a-b", "one", 3.0);
	print_lookup("a-b", "one");
	return 0;
}

static const struct {
	const char *name;
	int (*fn)(const char *);
} cases[] = {
	{ "acme", acme }, { "large", large },
	{ "trio1", trio1 }, { "trio2", trio2 }, { "trio3", trio3 },
	{ "upd_v1", upd_v1 }, { "upd_v2short", upd_v2short },
	{ "upd_v2", upd_v2 }, { "upd_reg", upd_reg },
	{ "labels", labels },
	{ "fl_none", fl_none }, { "fl_noprefix", fl_noprefix },
	{ "fl_process", fl_process }, { "fl_sentinel", fl_sentinel },
	{ "fl_all", fl_all }, { "fl_unknown", fl_unknown },
	{ "empty_reg", empty_reg }, { "empty_init", empty_init },
	{ "min_reg", min_reg },
	{ "strings", strings }, { "elapsed", elapsed },
	{ "errors", errors }, { "stop", stop_case },
	{ "elapsed_adds", elapsed_adds },
	{ "indoms_only", indoms_only }, { "reg_badlabel", reg_badlabel },
	{ "v1_names", v1_names }, { "str_past", str_past }, { "v2_instlong", v2_instlong },
	{ "regerr_type10", regerr_type10 }, { "regerr_type_neg2", regerr_type_neg2 },
	{ "regerr_empty_name", regerr_empty_name }, { "regerr_name256", regerr_name256 },
	{ "regerr_serial0", regerr_serial0 },
	{ "regerr_indom_help256", regerr_indom_help256 },
	{ "regerr_empty_inst", regerr_empty_inst }, { "regerr_inst256", regerr_inst256 },
	{ "regerr_undeclared", regerr_undeclared },
	{ "dup_v1", dup_v1 }, { "dup_v2", dup_v2 }, { "dup_reg", dup_reg },
	{ "item_twice", item_twice }, { "init_unchecked", init_unchecked },
};

int main(int argc, char **argv)
{
	unsigned int i;

	init_strings();
	if (argc != 2) {
		fprintf(stderr, "usage: writer CASE | --list | --whoami\n");
		return 2;
	}
	if (!strcmp(argv[1], "--list")) {
		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (!strcmp(argv[1], "--whoami")) {
		printf("%s\n", dlsym(RTLD_DEFAULT, "mmv_stats_add_histogram") ? "ours" : "pcp");
		return 0;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(argv[1], cases[i].name)) {
			int sts = cases[i].fn(cases[i].name);

			return fflush(stdout) || sts ? 1 : 0;
		}
	fprintf(stderr, "writer: unknown case %s\n", argv[1]);
	return 2;
}
