/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for pmda_mmv's PMDA front end (pmda_mmv/agent.h), driven through the
 * libpcp_pmda callbacks it installs, as a DSO would be by pmcd: files are
 * written with our libpcp_mmv into a private $PCP_TMP_DIR/mmv, and the
 * expected answers come from what was written and from pmdammv(1) and the
 * spec (docs/mmv-format.md §7.8, §9.3, §9.4, §9.5, §9.6, §9.7): names, descriptors, instances, help, labels,
 * values of each type, the control metrics and unknown PMIDs.
 */
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include <pcp/pmapi.h>
#include <pcp/pmda.h>
#include <pcp/mmv_stats.h>
#include "../../../pmda_mmv/pmda_mmv.h"
#include "mmv_reader_test.h"
#include "../../lib/pmda_values.h"

/* libpcp's, exported but declared only in libpcp.h (not installed). */
extern void __pmFreeInResult(pmInResult *res);
extern int __pmStuffValue(const pmAtomValue *avp, pmValue *vp, int type);

#define DOMAIN	70
#define CLUSTER	7
#define SERIAL	3

static char *tmp;
static char mmvdir[256];
static pmdaInterface dp;	/* global: the agent stays reachable */
static mmv_registry_t *reg;	/* freeing it unmaps the file */
static void *addr;

static pmID pmid(unsigned int cluster, unsigned int item)
{
	return pmID_build(DOMAIN, cluster, item);
}

static pmdaExt *ext(void)
{
	return dp.version.seven.ext;
}

/*
 * File "t" at cluster 7: one metric of each served type, an instanced
 * one on indom 3 with instances (1, "one") and (2, "two"), help texts
 * and labels (so version 3).
 */
static void write_files(void)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	pmUnits bytes = MMV_UNITS(1, 0, 0, PM_SPACE_BYTE, 0, 0);
	mmv_registry_t *r = mmv_stats_registry(file_path(mmvdir, "t"), CLUSTER, 0);

	assert_non_null(reg = r);
	assert_int_equal(mmv_stats_add_indom(r, SERIAL, "indom short",
			"indom long"), 0);
	assert_int_equal(mmv_stats_add_instance(r, SERIAL, 1, "one"), 0);
	assert_int_equal(mmv_stats_add_instance(r, SERIAL, 2, "two"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "u32", 1, MMV_TYPE_U32,
			MMV_SEM_COUNTER, none, 0, "u32 short", "u32 long"), 0);
	assert_int_equal(mmv_stats_add_metric(r, "i64", 2, MMV_TYPE_I64,
			MMV_SEM_INSTANT, bytes, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "dbl", 3, MMV_TYPE_DOUBLE,
			MMV_SEM_DISCRETE, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "str", 4, MMV_TYPE_STRING,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "flt", 5, MMV_TYPE_FLOAT,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "el", 6, MMV_TYPE_ELAPSED,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric(r, "per.inst", 7, MMV_TYPE_U64,
			MMV_SEM_COUNTER, none, SERIAL, NULL, NULL), 0);
	assert_int_equal(mmv_stats_add_metric_label(r, 1, "unit_l", "\"x\"",
			MMV_STRING_TYPE, 0), 0);
	assert_int_equal(mmv_stats_add_instance_label(r, SERIAL, 2, "inst_l",
			"7", MMV_NUMBER_TYPE, 0), 0);
	assert_non_null(addr = mmv_stats_start(r));

	mmv_stats_set(addr, "u32", NULL, 42);
	mmv_stats_set(addr, "i64", NULL, -5000000000.0);
	mmv_stats_set(addr, "dbl", NULL, 2.5);
	mmv_stats_set_string(addr, "str", NULL, "hello");
	mmv_stats_set(addr, "flt", NULL, 0.75);
	mmv_stats_add(addr, "el", NULL, 1234);	/* µs, no interval open */
	mmv_stats_set(addr, "per.inst", "one", 11);
	mmv_stats_set(addr, "per.inst", "two", 22);
}

static int setup(void **state)
{
	(void)state;
	if ((tmp = make_tmp_dir(mmvdir, sizeof(mmvdir))) == NULL)
		return 1;
	write_files();
	pmdaDSO(&dp, PMDA_INTERFACE_7, "mmv test", NULL);
	dp.domain = DOMAIN;
	return mmv_pmda_setup(&dp, "mmv", false) != 0;
}

static int teardown(void **state)
{
	(void)state;
	mmv_stats_free(reg);
	rm_rf(tmp);
	free(tmp);
	return 0;
}

static int desc_of(pmID id, pmDesc *d)
{
	return dp.version.seven.desc(id, d, ext());
}

static void names_and_pmids(void **state)
{
	pmID id;
	char **names;

	(void)state;
	assert_int_equal(dp.version.seven.pmid("mmv.t.u32", &id, ext()), 0);
	assert_int_equal(id, pmid(CLUSTER, 1));
	assert_int_equal(dp.version.seven.pmid("mmv.t.per.inst", &id, ext()), 0);
	assert_int_equal(id, pmid(CLUSTER, 7));
	/* docs/mmv-format.md §9.7: the control metrics are 70.0.0-3 */
	assert_int_equal(dp.version.seven.pmid("mmv.control.files", &id,
			ext()), 0);
	assert_int_equal(id, pmid(0, 2));
	assert_int_equal(dp.version.seven.pmid("mmv.t.nosuch", &id, ext()),
			PM_ERR_NAME);
	assert_int_equal(dp.version.seven.name(pmid(CLUSTER, 4), &names,
			ext()), 1);
	assert_string_equal(names[0], "mmv.t.str");
	free(names);
	assert_int_equal(dp.version.seven.name(pmid(0, 0), &names, ext()), 1);
	assert_string_equal(names[0], "mmv.control.reload");
	free(names);
	assert_int_equal(dp.version.seven.name(pmid(CLUSTER, 99), &names,
			ext()), PM_ERR_PMID);
}

static void children(void **state)
{
	char **kids;
	int *status, n;

	(void)state;
	n = dp.version.seven.children("mmv.t.per", 0, &kids, &status, ext());
	assert_int_equal(n, 1);
	assert_string_equal(kids[0], "inst");
	assert_int_equal(status[0], PMNS_LEAF_STATUS);
	free(kids);
	free(status);
	n = dp.version.seven.children("mmv", 0, &kids, &status, ext());
	assert_int_equal(n, 2);		/* "t" and "control", both subtrees */
	assert_int_equal(status[0], PMNS_NONLEAF_STATUS);
	assert_int_equal(status[1], PMNS_NONLEAF_STATUS);
	free(kids);
	free(status);
	assert_int_equal(dp.version.seven.children("mmv.x", 0, &kids, &status,
			ext()), PM_ERR_NAME);
}

/* docs/mmv-format.md §9.3: the file's type, semantics and units; ELAPSED as 64-bit µs. */
static void descriptors(void **state)
{
	pmDesc d;

	(void)state;
	assert_int_equal(desc_of(pmid(CLUSTER, 1), &d), 0);
	assert_int_equal(d.pmid, pmid(CLUSTER, 1));
	assert_int_equal(d.type, PM_TYPE_U32);
	assert_int_equal(d.sem, PM_SEM_COUNTER);
	assert_int_equal(d.indom, PM_INDOM_NULL);
	assert_int_equal(desc_of(pmid(CLUSTER, 2), &d), 0);
	assert_int_equal(d.type, PM_TYPE_64);
	assert_int_equal(d.sem, PM_SEM_INSTANT);
	assert_int_equal(d.units.dimSpace, 1);
	assert_int_equal(d.units.scaleSpace, PM_SPACE_BYTE);
	assert_int_equal(desc_of(pmid(CLUSTER, 3), &d), 0);
	assert_int_equal(d.type, PM_TYPE_DOUBLE);
	assert_int_equal(d.sem, PM_SEM_DISCRETE);
	assert_int_equal(desc_of(pmid(CLUSTER, 4), &d), 0);
	assert_int_equal(d.type, PM_TYPE_STRING);
	assert_int_equal(desc_of(pmid(CLUSTER, 6), &d), 0);
	assert_int_equal(d.type, PM_TYPE_64);
	assert_int_equal(d.sem, PM_SEM_COUNTER);
	assert_int_equal(d.units.dimTime, 1);
	assert_int_equal(d.units.scaleTime, PM_TIME_USEC);
	assert_int_equal(desc_of(pmid(CLUSTER, 7), &d), 0);
	assert_int_equal(d.indom, pmInDom_build(DOMAIN, CLUSTER << 11 | SERIAL));
	/* control metrics: 32-bit, singular, instant (docs/mmv-format.md §9.7) */
	assert_int_equal(desc_of(pmid(0, 3), &d), 0);
	assert_int_equal(d.type, PM_TYPE_32);
	assert_int_equal(d.sem, PM_SEM_INSTANT);
	assert_int_equal(d.indom, PM_INDOM_NULL);
	assert_int_equal(desc_of(pmid(CLUSTER, 8), &d), PM_ERR_PMID);
	assert_int_equal(desc_of(pmid(CLUSTER + 1, 1), &d), PM_ERR_PMID);
}

static void instances(void **state)
{
	pmInDom indom = pmInDom_build(DOMAIN, CLUSTER << 11 | SERIAL);
	pmInResult *res;

	(void)state;
	assert_int_equal(dp.version.seven.instance(indom, PM_IN_NULL, NULL,
			&res, ext()), 0);
	assert_int_equal(res->numinst, 2);
	assert_int_equal(res->instlist[0], 1);
	assert_string_equal(res->namelist[0], "one");
	assert_int_equal(res->instlist[1], 2);
	assert_string_equal(res->namelist[1], "two");
	__pmFreeInResult(res);
	assert_int_equal(dp.version.seven.instance(indom, PM_IN_NULL, "two",
			&res, ext()), 0);
	assert_int_equal(res->numinst, 1);
	assert_int_equal(res->instlist[0], 2);
	__pmFreeInResult(res);
	assert_int_equal(dp.version.seven.instance(indom, 3, NULL, &res,
			ext()), PM_ERR_INST);
	assert_int_equal(dp.version.seven.instance(indom + 1, PM_IN_NULL,
			NULL, &res, ext()), PM_ERR_INDOM);
}

static int text_of(int ident, int type, char **buf)
{
	return dp.version.seven.text(ident, type, buf, ext());
}

static const char *const control_oneline[] = {
#ifdef SDK_PCP7
	"Control maps reloading", "Debug options", "Memory mapped file count",
#else
	"Control maps reloading", "Debug flag", "Memory mapped file count",
#endif
	"Memory mapped metric count",
};

static void help_text(void **state)
{
	pmInDom indom = pmInDom_build(DOMAIN, CLUSTER << 11 | SERIAL);
	char *t;

	(void)state;
	assert_int_equal(text_of((int)pmid(CLUSTER, 1),
			PM_TEXT_PMID | PM_TEXT_ONELINE, &t), 0);
	assert_string_equal(t, "u32 short");
	assert_int_equal(text_of((int)pmid(CLUSTER, 1),
			PM_TEXT_PMID | PM_TEXT_HELP, &t), 0);
	assert_string_equal(t, "u32 long");
	assert_int_equal(text_of((int)pmid(CLUSTER, 2),
			PM_TEXT_PMID | PM_TEXT_ONELINE, &t), PM_ERR_TEXT);
	assert_int_equal(text_of((int)pmid(CLUSTER, 9),
			PM_TEXT_PMID | PM_TEXT_ONELINE, &t), PM_ERR_PMID);
	/* docs/compatibility.md pmda_mmv 7: indom help is served */
	assert_int_equal(text_of((int)indom, PM_TEXT_INDOM | PM_TEXT_HELP,
			&t), 0);
	assert_string_equal(t, "indom long");
	/* docs/mmv-format.md §9.5: PCP's control texts */
	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(text_of((int)pmid(0, i),
				PM_TEXT_PMID | PM_TEXT_ONELINE, &t), 0);
		assert_string_equal(t, control_oneline[i]);
	}
	assert_int_equal(text_of((int)pmid(0, 4),
			PM_TEXT_PMID | PM_TEXT_ONELINE, &t), PM_ERR_PMID);
}

/* Whether set @s holds the label @name with the JSON value @value. */
static bool has_label(const pmLabelSet *s, const char *name,
		const char *value)
{
	for (int i = 0; s != NULL && i < s->nlabels; i++) {
		const pmLabel *l = &s->labels[i];

		if (l->namelen == strlen(name) && l->valuelen == strlen(value) &&
		    strncmp(s->json + l->name, name, l->namelen) == 0 &&
		    strncmp(s->json + l->value, value, l->valuelen) == 0)
			return true;
	}
	return false;
}

static void labels(void **state)
{
	pmInDom indom = pmInDom_build(DOMAIN, CLUSTER << 11 | SERIAL);
	pmLabelSet *lp = NULL;
	int sts;

	(void)state;
	sts = dp.version.seven.label((int)pmid(CLUSTER, 1), PM_LABEL_ITEM,
			&lp, ext());
	assert_true(sts >= 0);
	assert_true(has_label(lp, "unit_l", "\"x\""));
	pmFreeLabelSets(lp, 1);
	lp = NULL;
	sts = dp.version.seven.label((int)pmid(CLUSTER, 2), PM_LABEL_ITEM,
			&lp, ext());
	assert_true(sts >= 0);
	assert_false(has_label(lp, "unit_l", "\"x\""));
	pmFreeLabelSets(lp, 1);
	lp = NULL;
	/* instance labels: one set per instance, only "two" has inst_l */
	sts = dp.version.seven.label((int)indom, PM_LABEL_INSTANCES, &lp,
			ext());
	assert_int_equal(sts, 2);
	assert_int_equal(lp[0].inst, 1);
	assert_false(has_label(&lp[0], "inst_l", "7"));
	assert_int_equal(lp[1].inst, 2);
	assert_true(has_label(&lp[1], "inst_l", "7"));
	pmFreeLabelSets(lp, sts);
}

static pmdaResult *fetch_profile(int n, pmID *ids, pmProfile *prof)
{
	pmdaResult *res = NULL;

	ext()->e_prof = prof;
	assert_int_equal(dp.version.seven.fetch(n, ids, &res, ext()), 0);
	assert_int_equal(res->numpmid, n);
	return res;
}

static pmdaResult *fetch(int n, pmID *ids)
{
	return fetch_profile(n, ids, NULL);	/* every instance */
}

/*
 * The value sets are the caller's, the result not: pmcd (and pmdaMain,
 * for a daemon) gives them back with __pmFreeResultValues, exported by
 * libpcp and declared in its libpcp.h, which is not installed.
 */

static void release(pmdaResult *res)
{
	sdk_free_pmda_result_values(res);
}

static pmAtomValue value(const pmValueSet *vs, int k, int type)
{
	pmAtomValue a;

	assert_true(vs->numval > k);
	assert_int_equal(pmExtractValue(vs->valfmt, &vs->vlist[k], type, &a,
			type), 0);
	return a;
}

static void fetch_each_type(void **state)
{
	pmID ids[] = { pmid(CLUSTER, 1), pmid(CLUSTER, 2), pmid(CLUSTER, 3),
		pmid(CLUSTER, 4), pmid(CLUSTER, 5), pmid(CLUSTER, 6),
		pmid(CLUSTER, 7), pmid(CLUSTER, 50) };
	pmdaResult *res = fetch(8, ids);
	pmAtomValue a;

	(void)state;
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, 42);
	assert_int_equal((unsigned int)res->vset[0]->vlist[0].inst, PM_IN_NULL);
	assert_true(value(res->vset[1], 0, PM_TYPE_64).ll == -5000000000LL);
	assert_true(value(res->vset[2], 0, PM_TYPE_DOUBLE).d == 2.5);
	a = value(res->vset[3], 0, PM_TYPE_STRING);
	assert_string_equal(a.cp, "hello");
	free(a.cp);
	assert_true(value(res->vset[4], 0, PM_TYPE_FLOAT).f == 0.75f);
	assert_true(value(res->vset[5], 0, PM_TYPE_64).ll == 1234);
	/* both instances, in indom order */
	assert_int_equal(res->vset[6]->numval, 2);
	assert_int_equal(res->vset[6]->vlist[0].inst, 1);
	assert_true(value(res->vset[6], 0, PM_TYPE_U64).ull == 11);
	assert_int_equal(res->vset[6]->vlist[1].inst, 2);
	assert_true(value(res->vset[6], 1, PM_TYPE_U64).ull == 22);
	/* an unknown PMID has no values but its error */
	assert_int_equal(res->vset[7]->numval, PM_ERR_PMID);
	release(res);

	/* values are read live: a new value shows in the next fetch */
	mmv_stats_set(addr, "u32", NULL, 43);
	res = fetch(1, ids);
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, 43);
	release(res);
}

/* libpcp's count of PDU buffers held (libpcp.h, not installed). */
extern void __pmCountPDUBuf(int need, int *alloc, int *free);

static int pdu_buffers(void)
{
	int alloc, nfree;

	__pmCountPDUBuf(0, &alloc, &nfree);
	return alloc;
}

/*
 * §9.9: the value sets of every reply share one PDU buffer the agent
 * keeps, pinned once more for each reply and unpinned with it; a larger
 * request replaces it. Released as pmcd does, no buffer is lost or kept
 * twice, and a reply written after the last one's release is valid
 * (under ASan, a buffer freed by that release would fail here).
 */
static void reply_buffer(void **state)
{
	pmID ids[64];	/* more than any earlier request of this agent */
	pmdaResult *res;
	unsigned int u32;
	void *first;
	int held;

	(void)state;
	for (int i = 0; i < 64; i++)
		ids[i] = pmid(CLUSTER, 1 + i % 7);
	res = fetch(1, ids);
	first = res->vset[0];
	u32 = value(res->vset[0], 0, PM_TYPE_U32).ul;
	release(res);
	held = pdu_buffers();
	assert_true(held >= 1);
	for (int i = 0; i < 3; i++) {
		res = fetch(1, ids);
		assert_ptr_equal(res->vset[0], first);
		assert_int_equal(pdu_buffers(), held);
		release(res);
		assert_int_equal(pdu_buffers(), held);
	}
	/* larger replies: a new buffer replaces the kept one */
	for (int i = 0; i < 3; i++) {
		res = fetch(16 << i, ids);
		assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, u32);
		assert_int_equal(res->vset[6]->numval, 2);
		assert_int_equal(value(res->vset[14], 0, PM_TYPE_U32).ul, u32);
		release(res);
		assert_int_equal(pdu_buffers(), held);
	}
	res = fetch(1, ids);
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, u32);
	release(res);
	assert_int_equal(pdu_buffers(), held);
}

/* Hand @vs (freed) to the agent's store, as pmcd does. */
static int store_value_set(pmValueSet *vs)
{
	pmdaResult r = { .numpmid = 1 };
	int sts;

	r.vset[0] = vs;
	sts = dp.version.seven.store(&r, ext());
	free_value_set(vs);
	return sts;
}

static int store(pmID id, int val)
{
	return store_value_set(int_value_set(id, val));
}

static int store_string(pmID id, const char *s)
{
	return store_value_set(string_value_set(id, s));
}

/* docs/mmv-format.md §9.7: files and metrics counted, reload stored, others refused. */
static void control_metrics(void **state)
{
	pmID ids[] = { pmid(0, 0), pmid(0, 2), pmid(0, 3) };
	pmdaResult *res;

	(void)state;
	res = fetch(3, ids);
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_32).l, 0);
	assert_int_equal(value(res->vset[1], 0, PM_TYPE_32).l, 1);
	assert_int_equal(value(res->vset[2], 0, PM_TYPE_32).l, 7);
	release(res);

	assert_int_equal(store(pmid(0, 2), 5), PM_ERR_PERMISSION);
	assert_int_equal(store(pmid(0, 3), 5), PM_ERR_PERMISSION);
	assert_int_equal(store(pmid(CLUSTER, 1), 5), PM_ERR_PERMISSION);
	assert_int_equal(store(pmid(0, 0), 5), 0);
	/* the reload happened before the next answer: it reads 0 again */
	res = fetch(3, ids);
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_32).l, 0);
	assert_int_equal(value(res->vset[1], 0, PM_TYPE_32).l, 1);
	release(res);
}

/*
 * mmv.control.debug as the PCP built against serves it (pmda_debug.h; as
 * PCP 7's pmdammv answered under dbpmda): PCP 6, an integer kept; PCP 7,
 * the PCP debug options in PCP's order, cleared by an unknown one.
 */
static void debug_control(void **state)
{
	pmID id = pmid(0, 1);
	pmdaResult *res;
	pmDesc d;

	(void)state;
	assert_int_equal(desc_of(id, &d), 0);
#ifdef SDK_PCP7
	char *text;

	assert_int_equal(d.type, PM_TYPE_STRING);
	assert_int_equal(store_string(id, "appl1,appl0"), 0);
	res = fetch(1, &id);
	text = value(res->vset[0], 0, PM_TYPE_STRING).cp;
	assert_string_equal(text, "appl0,appl1");
	free(text);
	release(res);
	assert_int_equal(store(id, 5), PM_ERR_BADSTORE);
	assert_int_equal(store_string(id, "bogus"), PM_ERR_CONV);
	res = fetch(1, &id);
	text = value(res->vset[0], 0, PM_TYPE_STRING).cp;
	assert_string_equal(text, "");
	free(text);
	release(res);
#else
	assert_int_equal(d.type, PM_TYPE_32);
	assert_int_equal(store(id, 5), 0);
	res = fetch(1, &id);
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_32).l, 5);
	release(res);
	assert_int_equal(store_string(id, "appl0"), PM_ERR_BADSTORE);
	assert_int_equal(store(id, 0), 0);
#endif
}

/* A second file shows up on the next request (docs/mmv-format.md §9.2). */
static void new_file_seen(void **state)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	pmID ids[] = { pmid(0, 2), pmid(0, 3) };
	mmv_registry_t *r = mmv_stats_registry(file_path(mmvdir, "u"), 9, 0);
	pmdaResult *res;
	pmDesc d;

	(void)state;
	assert_int_equal(mmv_stats_add_metric(r, "only", 0, MMV_TYPE_I32,
			MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	assert_non_null(mmv_stats_start(r));
	assert_int_equal(desc_of(pmid(9, 0), &d), 0);
	assert_int_equal(d.type, PM_TYPE_32);
	res = fetch(2, ids);
	assert_int_equal(value(res->vset[0], 0, PM_TYPE_32).l, 2);
	assert_int_equal(value(res->vset[1], 0, PM_TYPE_32).l, 8);
	release(res);
	mmv_stats_free(r);
}

/*
 * A reply's values are read under one SIGBUS guard (fill.c fill_sets): a
 * file truncated under its mapping makes that guard jump back, and the
 * reply is built again value by value. The other file's values in the
 * same reply are still served; the shrunk file's metric gets an error.
 */
static void shrunk_file_in_reply(void **state)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	mmv_registry_t *r = mmv_stats_registry(file_path(mmvdir, "big"), 11, 0);
	/* dbl before u32, against their records' order: a list asked again
	 * is filled file by file, upward (fill.c plan_order), and so is the
	 * fill again after the fault */
	pmID ids[] = { pmid(CLUSTER, 3), pmid(11, 599), pmid(CLUSTER, 1) };
	char name[16];
	pmdaResult *res;
	void *big;

	(void)state;
	/* 600 metrics: the values lie well past the first page */
	for (int i = 0; i < 600; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		assert_int_equal(mmv_stats_add_metric(r, name, i, MMV_TYPE_U64,
				MMV_SEM_COUNTER, none, 0, NULL, NULL), 0);
	}
	assert_non_null(big = mmv_stats_start(r));
	mmv_stats_set(big, "m599", NULL, 599);
	mmv_stats_set(addr, "u32", NULL, 42);
	res = fetch(3, ids);
	assert_true(value(res->vset[1], 0, PM_TYPE_U64).ull == 599);
	release(res);
	/*
	 * A second on, this fetch runs the per-file checks (at most once a
	 * second in a DSO) and sees the directory settled, so the next one
	 * runs neither: it reads the shrunk file and takes the fault.
	 */
	usleep(1100000);
	release(fetch(3, ids));
	assert_int_equal(truncate(file_path(mmvdir, "big"), 4096), 0);
	res = fetch(3, ids);
	assert_true(value(res->vset[0], 0, PM_TYPE_DOUBLE).d == 2.5);
	assert_true(res->vset[1]->numval < 0);
	assert_int_equal(value(res->vset[2], 0, PM_TYPE_U32).ul, 42);
	release(res);
	/* and the next reply, from the rescanned files, as well */
	res = fetch(3, ids);
	assert_true(value(res->vset[0], 0, PM_TYPE_DOUBLE).d == 2.5);
	assert_true(res->vset[1]->numval < 0);
	assert_int_equal(value(res->vset[2], 0, PM_TYPE_U32).ul, 42);
	release(res);
	mmv_stats_free(r);
}

/*
 * File "rep" at cluster 12: a (U32, item 0), b (U64, item 1) and c (U64,
 * item 2, on indom 5 with instances 1 and 2); or, as rewritten, a as a
 * DOUBLE, no b, and c singular (U32).
 */
static void *rep_file(mmv_registry_t **r, bool rewritten)
{
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	void *m;

	assert_non_null(*r = mmv_stats_registry(file_path(mmvdir, "rep"), 12, 0));
	if (rewritten) {
		assert_int_equal(mmv_stats_add_metric(*r, "a", 0, MMV_TYPE_DOUBLE,
				MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
		assert_int_equal(mmv_stats_add_metric(*r, "c", 2, MMV_TYPE_U32,
				MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
	} else {
		assert_int_equal(mmv_stats_add_indom(*r, 5, NULL, NULL), 0);
		assert_int_equal(mmv_stats_add_instance(*r, 5, 1, "i1"), 0);
		assert_int_equal(mmv_stats_add_instance(*r, 5, 2, "i2"), 0);
		assert_int_equal(mmv_stats_add_metric(*r, "a", 0, MMV_TYPE_U32,
				MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
		assert_int_equal(mmv_stats_add_metric(*r, "b", 1, MMV_TYPE_U64,
				MMV_SEM_COUNTER, none, 0, NULL, NULL), 0);
		assert_int_equal(mmv_stats_add_metric(*r, "c", 2, MMV_TYPE_U64,
				MMV_SEM_COUNTER, none, 5, NULL, NULL), 0);
	}
	assert_non_null(m = mmv_stats_start(*r));
	return m;
}

/*
 * A request that repeats an earlier one's PMIDs reuses their lookup
 * (fill.c, struct plan): it must still read live values, count the
 * instances the profile of this request allows, tell lists of the same
 * length apart, survive more lists than are kept, and look up again in
 * a new view (here a file rewritten with other types and items).
 */
static void repeated_request(void **state)
{
	pmID ids[] = { pmid(12, 0), pmid(12, 1), pmid(12, 2), pmid(CLUSTER, 1) };
	pmID other[][1] = { { pmid(12, 0) }, { pmid(12, 1) }, { pmid(CLUSTER, 3) },
		{ pmid(CLUSTER, 1) }, { pmid(12, 9) }, { pmid(0, 0) } };
	int keep[] = { 2 };
	pmInDomProfile ip = { .state = PM_PROFILE_EXCLUDE, .instances_len = 1,
		.instances = keep };
	pmProfile prof = { .state = PM_PROFILE_INCLUDE, .profile_len = 1,
		.profile = &ip };
	mmv_registry_t *r;
	pmdaResult *res;
	pmDesc d;
	void *m;

	(void)state;
	m = rep_file(&r, false);
	/* Past the directory's clock tick, so requests share one view. */
	usleep(50000);
	release(fetch(1, other[5]));
	mmv_stats_set(m, "a", NULL, 1);
	mmv_stats_set(m, "b", NULL, 2);
	mmv_stats_set(m, "c", "i1", 31);
	mmv_stats_set(m, "c", "i2", 32);
	mmv_stats_set(addr, "u32", NULL, 42);
	assert_int_equal(desc_of(pmid(12, 2), &d), 0);
	ip.indom = d.indom;
	/* Instance 2 only, then both (more room than the plan had), then 2. */
	for (int pass = 0; pass < 3; pass++) {
		bool only2 = pass != 1;

		res = only2 ? fetch_profile(4, ids, &prof) : fetch(4, ids);
		assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, 1 + pass);
		assert_true(value(res->vset[1], 0, PM_TYPE_U64).ull == 2);
		assert_int_equal(res->vset[2]->numval, only2 ? 1 : 2);
		assert_int_equal(res->vset[2]->vlist[0].inst, only2 ? 2 : 1);
		assert_true(value(res->vset[2], 0, PM_TYPE_U64).ull ==
				(only2 ? 32u : 31u));
		if (!only2) {
			assert_int_equal(res->vset[2]->vlist[1].inst, 2);
			assert_true(value(res->vset[2], 1, PM_TYPE_U64).ull == 32);
		}
		assert_int_equal(value(res->vset[3], 0, PM_TYPE_U32).ul, 42);
		release(res);
		mmv_stats_inc(m, "a", NULL);	/* read live each time */
	}
	/* Six one-PMID lists, twice round: each its own answer. */
	for (int k = 0; k < 12; k++) {
		res = fetch(1, other[k % 6]);
		switch (k % 6) {
		case 0: assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, 4); break;
		case 1: assert_true(value(res->vset[0], 0, PM_TYPE_U64).ull == 2); break;
		case 2: assert_true(value(res->vset[0], 0, PM_TYPE_DOUBLE).d == 2.5); break;
		case 3: assert_int_equal(value(res->vset[0], 0, PM_TYPE_U32).ul, 42); break;
		case 4: assert_int_equal(res->vset[0]->numval, PM_ERR_PMID); break;
		case 5: assert_int_equal(value(res->vset[0], 0, PM_TYPE_32).l, 0); break;	/* reload */
		}
		release(res);
	}
	/* Rewritten: the same PMIDs now have other types, or none. */
	mmv_stats_free(r);
	m = rep_file(&r, true);
	mmv_stats_set(m, "a", NULL, 6.5);
	mmv_stats_set(m, "c", NULL, 7);
	res = fetch(4, ids);
	assert_true(value(res->vset[0], 0, PM_TYPE_DOUBLE).d == 6.5);
	assert_int_equal(res->vset[1]->numval, PM_ERR_PMID);
	assert_int_equal(res->vset[2]->numval, 1);
	assert_int_equal((unsigned int)res->vset[2]->vlist[0].inst, PM_IN_NULL);
	assert_int_equal(value(res->vset[2], 0, PM_TYPE_U32).ul, 7);
	release(res);
	mmv_stats_free(r);
	assert_int_equal(unlink(file_path(mmvdir, "rep")), 0);
}

/*
 * A list asked again is filled file by file, upward in each, whatever its
 * order (fill.c plan_order); the reply keeps the request's order. Two
 * files named out of their records' order and interleaved, with an
 * instanced metric, a control metric, an unknown PMID and a PMID asked
 * twice among them: three times (looked up, kept and ordered, reused),
 * the values live.
 */
static void reordered_request(void **state)
{
	pmID ids[] = { pmid(CLUSTER, 3), pmid(12, 1), pmid(CLUSTER, 7),
		pmid(CLUSTER, 1), pmid(12, 0), pmid(0, 0), pmid(12, 9),
		pmid(CLUSTER, 2), pmid(12, 1) };
	enum { N = sizeof(ids) / sizeof(ids[0]) };
	mmv_registry_t *r;
	pmdaResult *res;
	void *m;

	(void)state;
	m = rep_file(&r, false);
	usleep(50000);	/* past the directory's clock tick: one view */
	release(fetch(1, ids));
	for (int pass = 0; pass < 3; pass++) {
		mmv_stats_set(m, "a", NULL, 10 + pass);
		mmv_stats_set(m, "b", NULL, 20 + pass);
		mmv_stats_set(addr, "u32", NULL, 40 + pass);
		res = fetch(N, ids);
		for (int i = 0; i < N; i++)
			assert_int_equal(res->vset[i]->pmid, ids[i]);
		assert_true(value(res->vset[0], 0, PM_TYPE_DOUBLE).d == 2.5);
		assert_true(value(res->vset[1], 0, PM_TYPE_U64).ull == 20u + pass);
		assert_int_equal(res->vset[2]->numval, 2);
		assert_int_equal(res->vset[2]->vlist[0].inst, 1);
		assert_true(value(res->vset[2], 0, PM_TYPE_U64).ull == 11);
		assert_int_equal(res->vset[2]->vlist[1].inst, 2);
		assert_true(value(res->vset[2], 1, PM_TYPE_U64).ull == 22);
		assert_int_equal(value(res->vset[3], 0, PM_TYPE_U32).ul, 40 + pass);
		assert_int_equal(value(res->vset[4], 0, PM_TYPE_U32).ul, 10 + pass);
		assert_int_equal(value(res->vset[5], 0, PM_TYPE_32).l, 0);
		assert_int_equal(res->vset[6]->numval, PM_ERR_PMID);
		assert_true(value(res->vset[7], 0, PM_TYPE_64).ll == -5000000000LL);
		assert_true(value(res->vset[8], 0, PM_TYPE_U64).ull == 20u + pass);
		release(res);
	}
	mmv_stats_set(addr, "u32", NULL, 42);
	mmv_stats_free(r);
	assert_int_equal(unlink(file_path(mmvdir, "rep")), 0);
}

/*
 * Singular numbers take the reply's quick path (fill.c quick_set): each
 * value set must be what pmdaFetch builds, checked against libpcp's own
 * encoder (__pmStuffValue: in situ for 32-bit types, else a block whose
 * length counts its 4-byte header), and a SENTINEL file's patterns must
 * give no value (spec §7.11). File "q", cluster 13, SENTINEL.
 */
static void quick_values(void **state)
{
	static const struct { const char *n; int mtype, type; } t[] = {
		{ "i32", MMV_TYPE_I32, PM_TYPE_32 },
		{ "u32", MMV_TYPE_U32, PM_TYPE_U32 },
		{ "i64", MMV_TYPE_I64, PM_TYPE_64 },
		{ "u64", MMV_TYPE_U64, PM_TYPE_U64 },
		{ "flt", MMV_TYPE_FLOAT, PM_TYPE_FLOAT },
		{ "dbl", MMV_TYPE_DOUBLE, PM_TYPE_DOUBLE },
		{ "el", MMV_TYPE_ELAPSED, PM_TYPE_64 },
	};
	enum { N = sizeof(t) / sizeof(t[0]) };
	pmUnits none = MMV_UNITS(0, 0, 0, 0, 0, 0);
	mmv_registry_t *r = mmv_stats_registry(file_path(mmvdir, "q"), 13,
			MMV_FLAG_SENTINEL);
	pmAtomValue want[N], ones;
	pmID ids[N];
	pmdaResult *res;
	void *m;

	(void)state;
	for (int i = 0; i < N; i++) {
		assert_int_equal(mmv_stats_add_metric(r, t[i].n, i, t[i].mtype,
				MMV_SEM_INSTANT, none, 0, NULL, NULL), 0);
		ids[i] = pmid(13, i);
	}
	assert_non_null(m = mmv_stats_start(r));
	set_each_number(m);
	mmv_stats_add(m, "el", NULL, 1234);
	memset(want, 0, sizeof(want));
	want[0].l = -5;
	want[1].ul = 4000000000u;
	want[2].ll = -6000000000000LL;
	want[3].ull = 7000000000000ULL;
	want[4].f = 1.5f;
	want[5].d = 2.25;
	want[6].ll = 1234;
	/* twice: a new list, then the same list kept (struct plan) */
	for (int pass = 0; pass < 2; pass++) {
		res = fetch(N, ids);
		for (int i = 0; i < N; i++) {
			const pmValueSet *vs = res->vset[i];
			pmValue pv;
			int fmt = __pmStuffValue(&want[i], &pv, t[i].type);

			assert_int_equal(vs->pmid, ids[i]);
			assert_int_equal(vs->numval, 1);
			assert_int_equal((unsigned int)vs->vlist[0].inst, PM_IN_NULL);
			assert_true(fmt >= 0);
			if (fmt == PM_VAL_INSITU) {
				assert_int_equal(vs->valfmt, PM_VAL_INSITU);
				assert_int_equal(vs->vlist[0].value.lval, pv.value.lval);
				continue;
			}
			assert_int_not_equal(vs->valfmt, PM_VAL_INSITU);
			assert_int_equal(vs->vlist[0].value.pval->vtype,
					pv.value.pval->vtype);
			assert_int_equal(vs->vlist[0].value.pval->vlen,
					pv.value.pval->vlen);
			assert_memory_equal(vs->vlist[0].value.pval->vbuf,
					pv.value.pval->vbuf,
					pv.value.pval->vlen - PM_VAL_HDR_SIZE);
			free(pv.value.pval);
		}
		release(res);
	}
	/* SENTINEL: all 8 bytes set, or NaN, is no value (a 32-bit -1 set
	 * through the API leaves bytes 4-7 zero, so it is a value). */
	memset(&ones, 0xff, sizeof(ones));
	for (int i = 0; i < N; i++)
		if (t[i].mtype != MMV_TYPE_FLOAT && t[i].mtype != MMV_TYPE_DOUBLE)
			mmv_set_atomvalue(m, mmv_lookup_value_desc(m, t[i].n, NULL),
					&ones);
	mmv_stats_set(m, "flt", NULL, NAN);
	mmv_stats_set(m, "dbl", NULL, NAN);
	res = fetch(N, ids);
	for (int i = 0; i < N; i++) {
		assert_int_equal(res->vset[i]->numval, 0);
		assert_int_equal(res->vset[i]->valfmt, PM_VAL_INSITU);
	}
	release(res);
	/* bytes 4-7 cleared, then a 32-bit all-ones: a value */
	memset(&ones, 0, sizeof(ones));
	mmv_set_atomvalue(m, mmv_lookup_value_desc(m, "u32", NULL), &ones);
	mmv_stats_set(m, "u32", NULL, 4294967295.0);
	res = fetch(N, ids);
	assert_int_equal(value(res->vset[1], 0, PM_TYPE_U32).ul, 4294967295u);
	release(res);
	mmv_stats_free(r);
	assert_int_equal(unlink(file_path(mmvdir, "q")), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(names_and_pmids),
		cmocka_unit_test(children),
		cmocka_unit_test(descriptors),
		cmocka_unit_test(instances),
		cmocka_unit_test(help_text),
		cmocka_unit_test(labels),
		cmocka_unit_test(fetch_each_type),
		cmocka_unit_test(reply_buffer),
		cmocka_unit_test(control_metrics),
		cmocka_unit_test(debug_control),
		cmocka_unit_test(new_file_seen),
		cmocka_unit_test(shrunk_file_in_reply),
		cmocka_unit_test(repeated_request),
		cmocka_unit_test(reordered_request),
		cmocka_unit_test(quick_values),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
