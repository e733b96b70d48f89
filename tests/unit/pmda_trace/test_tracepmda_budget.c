/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The trace aggregation's byte budget (pmda_trace/core/agg_tags.c and
 * its callers) as the PDU aggregation uses it, without
 * tra_agg_forget_expired: names remembered across a reset keep their
 * numbers (PCP's rule, docs/trace-protocol.md §8.2) and count in the
 * budget; a report refused by the budget or the tag cap changes no
 * number and is counted by its reason; the exempt tag is neither
 * refused nor capped; a tag's note. Expected sizes come from
 * tra_agg_tag_worst and the counts fed in.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <urcu.h>

#include "../../../pmda_trace/core/agg.h"
#include "agg_clock.h"

static struct trace_agg_usage usage(struct trace_agg *agg)
{
	struct trace_agg_usage u;

	tra_agg_usage(agg, &u);
	return u;
}

static int rec(struct trace_agg *agg, const char *tag, double v)
{
	return tra_agg_record(agg, TRACE_TRANSACT, tag, strlen(tag), v);
}

static uint64_t count_of(struct trace_agg *agg, int inst)
{
	struct trace_stats st;

	assert_int_equal(tra_agg_get(agg, TRACE_TRANSACT, inst, &st), 0);
	return st.count;
}

static void remembered_across_reset(void **state)
{
	struct trace_agg *agg;
	struct trace_agg_usage u;
	char name[16];
	size_t names_bytes;

	(void)state;
	at(0);
	assert_non_null(agg = tra_agg_new(60, 5, 0, fake_clock, NULL));
	tra_agg_set_budget(agg, TRA_AGG_BYTES_DEFAULT, NULL, 0);
	assert_int_equal(usage(agg).bytes, 0);
	for (int i = 0; i < 20; i++) {
		snprintf(name, sizeof(name), "tag%d", i);
		assert_int_equal(rec(agg, name, 0.5), i + 1);
	}
	u = usage(agg);
	assert_int_equal(u.tags[TRACE_TRANSACT], 20);
	assert_int_equal(u.remembered, 20);
	assert_int_equal(u.max_bytes, TRA_AGG_BYTES_DEFAULT);
	assert_true(u.bytes > 0 && u.bytes <= 20 * tra_agg_tag_worst(5, 8));
	tra_agg_reset(agg);
	rcu_barrier();	/* the tags are freed after a grace period */
	u = usage(agg);
	assert_int_equal(u.tags[TRACE_TRANSACT], 0);
	assert_int_equal(u.remembered, 20);	/* kept: PCP's rule */
	names_bytes = u.bytes;
	assert_true(names_bytes > 20 * 8);	/* the names still count */
	/* a name seen again has its old number, a new one the next */
	assert_int_equal(rec(agg, "tag7", 1), 8);
	assert_int_equal(rec(agg, "new", 1), 21);
	assert_int_equal(usage(agg).remembered, 21);
	tra_agg_free(agg);
}

/* A budget the remembered names alone fill: new names are refused, known ones not. */
static void names_fill_budget(void **state)
{
	struct trace_agg *agg;
	struct trace_agg_usage u;
	char name[16];
	int made = 0, r;

	(void)state;
	at(0);
	assert_non_null(agg = tra_agg_new(60, 5, 0, fake_clock, NULL));
	tra_agg_set_budget(agg, 64 * 1024, NULL, 0);
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		if ((r = rec(agg, name, 0.5)) == -ENOSPC)
			break;
		assert_int_equal(r, i + 1);
		made++;
		if (i % 10 == 9) {
			tra_agg_reset(agg);	/* the tags go, the names stay */
			rcu_barrier();
		}
	}
	assert_true(made > 10 && made < 100000);
	u = usage(agg);
	assert_int_equal(u.refused_bytes, 1);
	assert_int_equal(u.refused_cap, 0);
	assert_int_equal(u.remembered, (size_t)made);
	assert_true(u.bytes <= 64 * 1024);
	/* the refused name left nothing; a remembered one comes back with its number */
	assert_int_equal(tra_agg_lookup(agg, TRACE_TRANSACT, name), -ENOENT);
	tra_agg_reset(agg);
	rcu_barrier();
	assert_int_equal(rec(agg, "n3", 1), 4);
	assert_int_equal(usage(agg).remembered, (size_t)made);
	tra_agg_free(agg);
}

static void refusals_change_nothing(void **state)
{
	struct trace_agg *agg;
	struct trace_agg_usage u;
	uint64_t cum[TRACE_HIST_LE_N], hist[TRACE_HIST_NBUCKETS] = { 0 };
	struct trace_batch b = { 3, 3 * 1e-3, 1e-3, 1e-3, 1e-3, hist };
	unsigned first, last;

	(void)state;
	/* what one tag with one value takes, counted without a budget */
	at(0);
	assert_non_null(agg = tra_agg_new(60, 5, 2, fake_clock, NULL));
	tra_agg_set_budget(agg, 0, NULL, 0);
	at(1);
	assert_int_equal(rec(agg, "a", 1e-3), 1);
	u = usage(agg);
	tra_agg_free(agg);

	at(0);
	assert_non_null(agg = tra_agg_new(60, 5, 2, fake_clock, NULL));
	tra_agg_set_budget(agg, u.bytes + 100, NULL, 0);	/* room for no chunk nor tag more */
	at(1);
	assert_int_equal(rec(agg, "a", 1e-3), 1);
	assert_int_equal(rec(agg, "a", 1.01e-3), 1);	/* the same bucket: no memory */
	/* a value 30 binades away needs a chunk and a wider coarse span: refused */
	assert_int_equal(rec(agg, "a", 1e6), -ENOSPC);
	assert_int_equal(count_of(agg, 1), 2);
	assert_int_equal(tra_agg_le(agg, TRACE_TRANSACT, 1, cum, &first, &last), 0);
	assert_int_equal(cum[TRACE_HIST_LE_N - 1], 2);
	/* a batch refused the same way: nothing of it counted */
	hist[trace_hist_index(100.0)] = 3;
	b.min = b.max = b.last = 100.0;
	b.sum = 300.0;
	assert_int_equal(tra_agg_merge_in(agg, tra_agg_seq(agg), TRACE_TRANSACT, "a", 1, &b),
			 -ENOSPC);
	assert_int_equal(count_of(agg, 1), 2);
	/* a new name beyond the budget */
	assert_int_equal(rec(agg, "b", 1e-3), -ENOSPC);
	assert_int_equal(tra_agg_lookup(agg, TRACE_TRANSACT, "b"), -ENOENT);
	u = usage(agg);
	assert_int_equal(u.refused_bytes, 3);
	assert_int_equal(u.refused_cap, 0);
	assert_true(u.bytes <= u.max_bytes);
	tra_agg_free(agg);
}

static void cap_and_exempt(void **state)
{
	struct trace_agg *agg;
	struct trace_agg_usage u;
	struct trace_extra x = { 0, 0, "{\"k\":1}", 7 };
	char note[16];
	int e;

	(void)state;
	at(0);
	assert_non_null(agg = tra_agg_new(60, 5, 2, fake_clock, NULL));
	tra_agg_set_budget(agg, 1, "spill", 5);	/* a budget nothing fits in */
	at(1);
	assert_int_equal(rec(agg, "a", 1), -ENOSPC);	/* bytes */
	/* the exempt tag: made, counted, its histogram grown, all beyond the budget */
	e = tra_agg_record_ex(agg, tra_agg_seq(agg), TRACE_TRANSACT, "spill", 5, 1, &x);
	assert_true(e > 0);
	for (int i = -20; i < 20; i++)
		assert_int_equal(rec(agg, "spill", i < 0 ? 1.0 / (1 << -i) : (double)(1 << i)), e);
	assert_int_equal(count_of(agg, e), 41);
	u = usage(agg);
	assert_true(u.bytes > 1 && u.bytes <= tra_agg_tag_worst(5, 5 + 7));
	assert_int_equal(u.tags[TRACE_TRANSACT], 0);	/* not one of the cap's */
	assert_int_equal(tra_agg_ntags(agg, TRACE_TRANSACT), 0);
	/* its note, kept from its first report */
	assert_int_equal(tra_agg_note(agg, TRACE_TRANSACT, e, note, sizeof(note)), 7);
	assert_string_equal(note, "{\"k\":1}");
	assert_int_equal(tra_agg_note(agg, TRACE_TRANSACT, e, note, 7), -ENOSPC);
	tra_agg_free(agg);

	/* the cap alone (no budget): refused_cap, not refused_bytes */
	at(0);
	assert_non_null(agg = tra_agg_new(60, 5, 2, fake_clock, NULL));
	tra_agg_set_budget(agg, 0, "spill", 5);
	at(1);
	assert_int_equal(rec(agg, "a", 1), 1);
	assert_int_equal(rec(agg, "b", 1), 2);
	assert_int_equal(rec(agg, "c", 1), -ENOSPC);
	assert_int_equal(rec(agg, "d", 1), -ENOSPC);
	assert_true(rec(agg, "spill", 1) > 0);	/* a third tag, over the cap */
	u = usage(agg);
	assert_int_equal(u.refused_cap, 2);
	assert_int_equal(u.refused_bytes, 0);
	assert_int_equal(u.tags[TRACE_TRANSACT], 2);
	assert_int_equal(u.max_bytes, 0);
	assert_true(u.bytes > 0);	/* counted all the same */
	/* a tag made without a note has an empty one */
	assert_int_equal(tra_agg_note(agg, TRACE_TRANSACT, 1, note, sizeof(note)), 0);
	assert_string_equal(note, "");
	assert_int_equal(tra_agg_note(agg, TRACE_TRANSACT, 99, note, sizeof(note)), -ENOENT);
	tra_agg_free(agg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(remembered_across_reset),
		cmocka_unit_test(names_fill_budget),
		cmocka_unit_test(refusals_change_nothing),
		cmocka_unit_test(cap_and_exempt),
	};
	int rc;

	rcu_register_thread();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	rcu_unregister_thread();
	return rc;
}
