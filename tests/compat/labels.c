/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * labels.c - label acceptance corpus for the compatibility tests.
 *
 * Built against PCP (labels-pcp) and against ours (labels-ours). For each
 * case it adds one label to a fresh registry (after a first copy of the
 * same label for the duplicate cases) and prints
 *   <id> <tag> <result>
 * where result is "ok" or the errno name. tag names the docs/compatibility.md
 * "Compatibility" row that allows PCP and us to differ on that case, or
 * "-" when they must agree; run.sh checks both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcp/pmapi.h>
#include <pcp/mmv_stats.h>

enum level { REG, INDOM, METRIC, INST };

struct lcase {
	const char *id;
	const char *tag;
	enum level level;
	const char *name;
	const char *value;
	int type;
	int optional;
	int twice;		/* add the same label first */
	const char *first;	/* or this other name first (same subject) */
};

static char v238[300], v239[300], v240[300], n60[100], n234[300], n235[300], n236[300];

static const char *errname(int e)
{
	static char buf[32];

	switch (e) {
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case EEXIST: return "EEXIST";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	default: snprintf(buf, sizeof(buf), "errno%d", e); return buf;
	}
}

static int add(mmv_registry_t *r, const struct lcase *c, const char *name)
{
	switch (c->level) {
	case REG:
		return mmv_stats_add_registry_label(r, name, c->value, c->type, c->optional);
	case INDOM:
		return mmv_stats_add_indom_label(r, 1, name, c->value, c->type, c->optional);
	case METRIC:
		return mmv_stats_add_metric_label(r, 1, name, c->value, c->type, c->optional);
	default:
		return mmv_stats_add_instance_label(r, 1, 0, name, c->value, c->type, c->optional);
	}
}

#define S MMV_STRING_TYPE
#define N MMV_NUMBER_TYPE
#define B MMV_BOOLEAN_TYPE
#define Z MMV_NULL_TYPE
#define A MMV_ARRAY_TYPE
#define M MMV_MAP_TYPE

static struct lcase cases[] = {
	/* names */
	{ "name_simple", "-", REG, "a", "1", N, 0, 0, NULL },
	{ "name_mixed", "-", INDOM, "A1_b", "1", N, 0, 0, NULL },
	{ "name_underscore_first", "-", METRIC, "_a", "1", N, 0, 0, NULL },
	{ "name_digit_first", "-", INST, "1a", "1", N, 0, 0, NULL },
	{ "name_dash", "-", REG, "a-b", "1", N, 0, 0, NULL },
	{ "name_dot", "-", REG, "a.b", "1", N, 0, 0, NULL },
	{ "name_space", "-", REG, "a b", "1", N, 0, 0, NULL },
	{ "name_empty", "-", REG, "", "1", N, 0, 0, NULL },
	{ "name_utf8", "-", REG, "caf\xc3\xa9", "1", N, 0, 0, NULL },
	{ "name_null", "-", REG, NULL, "1", N, 0, 0, NULL },
	{ "value_null", "-", REG, "a", NULL, N, 0, 0, NULL },
	{ "name_60", "-", REG, n60, "1", N, 0, 0, NULL },
	/* types */
	{ "type_0", "-", REG, "a", "1", 0, 0, 0, NULL },
	{ "type_7", "-", REG, "a", "1", 7, 0, 0, NULL },
	{ "type_neg", "-", REG, "a", "1", -1, 0, 0, NULL },
	/* strings */
	{ "str_ok", "-", REG, "s", "\"acme\"", S, 0, 0, NULL },
	{ "str_empty", "-", INDOM, "s", "\"\"", S, 1, 0, NULL },
	{ "str_unquoted", "-", REG, "s", "acme", S, 0, 0, NULL },
	{ "str_open", "-", REG, "s", "\"acme", S, 0, 0, NULL },
	{ "str_one_quote", "-", REG, "s", "\"", S, 0, 0, NULL },
	{ "str_escaped_quote", "-", METRIC, "s", "\"a\\\"b\"", S, 0, 0, NULL },
	{ "str_escapes", "-", INST, "s", "\"\\n\\t\\\\\\/\"", S, 0, 0, NULL },
	{ "str_unicode_escape", "-", REG, "s", "\"\\u00e9\"", S, 0, 0, NULL },
	{ "str_utf8", "-", REG, "s", "\"caf\xc3\xa9\"", S, 0, 0, NULL },
	{ "str_space", "-", REG, "s", "\"a b\"", S, 0, 0, NULL },
	{ "str_bad_escape", "json", REG, "s", "\"a\\x\"", S, 0, 0, NULL },
	{ "str_raw_tab", "json", REG, "s", "\"a\tb\"", S, 0, 0, NULL },
	{ "str_inner_quote", "json", REG, "s", "\"a\"b\"", S, 0, 0, NULL },
	/* numbers */
	{ "num_int", "-", REG, "n", "42", N, 0, 0, NULL },
	{ "num_neg_frac", "-", INDOM, "n", "-3.5", N, 1, 0, NULL },
	{ "num_exp", "-", METRIC, "n", "1e5", N, 0, 0, NULL },
	{ "num_exp_sign", "-", INST, "n", "2.5E-3", N, 0, 0, NULL },
	{ "num_zero", "-", REG, "n", "0", N, 0, 0, NULL },
	{ "num_empty", "-", REG, "n", "", N, 0, 0, NULL },
	{ "num_word", "-", REG, "n", "abc", N, 0, 0, NULL },
	{ "num_trailing", "-", REG, "n", "12abc", N, 0, 0, NULL },
	{ "num_trailing_space", "-", REG, "n", "1 ", N, 0, 0, NULL },
	{ "num_plus", "json", REG, "n", "+1", N, 0, 0, NULL },
	{ "num_leading_zero", "json", REG, "n", "01", N, 0, 0, NULL },
	{ "num_dot_first", "json", REG, "n", ".5", N, 0, 0, NULL },
	{ "num_dot_last", "json", REG, "n", "1.", N, 0, 0, NULL },
	{ "num_hex", "json", REG, "n", "0x10", N, 0, 0, NULL },
	{ "num_inf", "json", REG, "n", "inf", N, 0, 0, NULL },
	{ "num_nan", "json", REG, "n", "nan", N, 0, 0, NULL },
	{ "num_leading_space", "json", REG, "n", " 1", N, 0, 0, NULL },
	/* booleans and null */
	{ "bool_true", "-", REG, "b", "true", B, 0, 0, NULL },
	{ "bool_false", "-", INST, "b", "false", B, 1, 0, NULL },
	{ "bool_upper", "-", REG, "b", "TRUE", B, 0, 0, NULL },
	{ "bool_yes", "-", REG, "b", "yes", B, 0, 0, NULL },
	{ "bool_1", "-", REG, "b", "1", B, 0, 0, NULL },
	{ "null_any", "-", REG, "z", "whatever", Z, 0, 0, NULL },
	{ "null_empty", "-", METRIC, "z", "", Z, 0, 0, NULL },
	/* maps */
	{ "map_empty", "-", REG, "m", "{}", M, 0, 0, NULL },
	{ "map_one", "-", INDOM, "m", "{\"a\":1}", M, 0, 0, NULL },
	{ "map_nested", "-", METRIC, "m", "{\"a\":{\"b\":[1,\"x\",null,true]}}", M, 0, 0, NULL },
	{ "map_spaces", "-", INST, "m", "{ \"k\" : 1 }", M, 0, 0, NULL },
	{ "map_open", "-", REG, "m", "{", M, 0, 0, NULL },
	{ "map_brackets", "-", REG, "m", "[]", M, 0, 0, NULL },
	{ "map_bare_key", "json", REG, "m", "{a:1}", M, 0, 0, NULL },
	{ "map_no_value", "json", REG, "m", "{\"a\":}", M, 0, 0, NULL },
	{ "map_trailing_comma", "json", REG, "m", "{\"a\":1,}", M, 0, 0, NULL },
	{ "map_key_only", "json", REG, "m", "{\"a\"}", M, 0, 0, NULL },
	/* keys inside values: PCP 6 holds them to the label name rule, PCP 7 not */
	{ "map_key_digit_first", "-", REG, "m", "{\"1a\":1}", M, 0, 0, NULL },
	{ "map_key_underscore_first", "-", INDOM, "m", "{\"_a\":1}", M, 0, 0, NULL },
	{ "map_key_dash", "-", METRIC, "m", "{\"b-c\":1}", M, 0, 0, NULL },
	{ "map_key_empty", "-", INST, "m", "{\"\":1}", M, 0, 0, NULL },
	{ "map_nested_key_dash", "-", REG, "m", "{\"a\":{\"b-c\":2}}", M, 0, 0, NULL },
	{ "arr_map_key_digit", "-", REG, "a", "[{\"1a\":1}]", A, 0, 0, NULL },
	/* arrays */
	{ "arr_empty", "-", REG, "a", "[]", A, 0, 0, NULL },
	{ "arr_mixed", "-", INDOM, "a", "[1,\"two\",true,null,{\"k\":[]}]", A, 0, 0, NULL },
	{ "arr_open", "-", REG, "a", "[", A, 0, 0, NULL },
	{ "arr_braces", "-", REG, "a", "{}", A, 0, 0, NULL },
	{ "arr_trailing_comma", "json", REG, "a", "[1,]", A, 0, 0, NULL },
	{ "arr_bare_word", "json", REG, "a", "[abc]", A, 0, 0, NULL },
	{ "arr_no_comma", "json", REG, "a", "[1 2]", A, 0, 0, NULL },
	{ "arr_bool_no_comma", "json", REG, "a", "[true false]", A, 0, 0, NULL },
	{ "arr_bad_literal", "json", REG, "a", "[tru]", A, 0, 0, NULL },
	{ "arr_colon", "json", REG, "a", "[\"a\":1]", A, 0, 0, NULL },
	{ "arr_two", "json", REG, "a", "[1],[2]", A, 0, 0, NULL },
	{ "arr_leading_zero", "json", REG, "a", "[01]", A, 0, 0, NULL },
	{ "arr_minus", "json", REG, "a", "[-]", A, 0, 0, NULL },
	{ "arr_single_quotes", "json", REG, "a", "['x']", A, 0, 0, NULL },
	{ "map_two", "json", REG, "m", "{\"a\":1}{\"b\":2}", M, 0, 0, NULL },
	{ "map_no_colon", "json", REG, "m", "{\"a\" 1}", M, 0, 0, NULL },
	{ "map_dup_key", "-", REG, "m", "{\"a\":1,\"a\":2}", M, 0, 0, NULL },
	{ "map_num_key", "json", REG, "m", "{1:2}", M, 0, 0, NULL },
	{ "map_extra_close", "json", REG, "m", "{\"a\":1}}", M, 0, 0, NULL },
	{ "map_inner_ws", "-", REG, "m", "{\"a\" :\t[ 1 , 2 ]\n}", M, 0, 0, NULL },
	{ "map_leading_zero", "json", REG, "m", "{\"a\":01}", M, 0, 0, NULL },
	{ "map_nan", "json", REG, "m", "{\"a\":nan}", M, 0, 0, NULL },
	{ "map_word", "json", REG, "m", "{\"a\":abc}", M, 0, 0, NULL },
	{ "map_deep", "-", REG, "m", "{\"a\":[[[[[[[[[[1]]]]]]]]]]}", M, 0, 0, NULL },
	{ "str_ctrl_nl", "json", REG, "s", "\"a\nb\"", S, 0, 0, NULL },
	{ "str_bad_u", "json", REG, "s", "\"\\u12\"", S, 0, 0, NULL },
	{ "str_trailing_backslash", "json", REG, "s", "\"a\\\"", S, 0, 0, NULL },
	{ "num_exp_only", "json", REG, "n", "1e", N, 0, 0, NULL },
	{ "num_neg_zero", "-", REG, "n", "-0", N, 0, 0, NULL },
	{ "num_big", "-", REG, "n", "1e400", N, 0, 0, NULL },
	/* length limit: name + value */
	{ "len_238", "-", REG, "n", v238, S, 0, 0, NULL },
	{ "len_239", "239", REG, "n", v239, S, 0, 0, NULL },
	{ "len_240", "-", REG, "n", v240, S, 0, 0, NULL },
	/* NULL_TYPE: the length check measures the caller's value */
	{ "null_name_234", "-", REG, n234, "", Z, 0, 0, NULL },
	{ "null_name_235", "239", REG, n235, "", Z, 0, 0, NULL },
	{ "null_name_236", "239", REG, n236, "", Z, 0, 0, NULL },
	{ "null_long_value", "-", REG, "a", v240, Z, 0, 0, NULL },
	/* duplicates */
	{ "dup_reg", "dup", REG, "d", "1", N, 0, 1, NULL },
	{ "dup_indom", "dup", INDOM, "d", "1", N, 0, 1, NULL },
	{ "dup_metric", "dup", METRIC, "d", "1", N, 1, 1, NULL },
	{ "dup_inst", "dup", INST, "d", "1", N, 0, 1, NULL },
	{ "other_name_same_subject", "-", REG, "d", "1", N, 0, 0, "e" },
};

int main(void)
{
	unsigned int i;

	memset(n60, 'n', 60);
	memset(n234, 'n', 234);
	memset(n235, 'n', 235);
	memset(n236, 'n', 236);
	/* "n" + a quoted string of 237, 238, 239 chars */
	v238[0] = v239[0] = v240[0] = '"';
	memset(v238 + 1, 'x', 235); strcat(v238, "\"");
	memset(v239 + 1, 'x', 236); strcat(v239, "\"");
	memset(v240 + 1, 'x', 237); strcat(v240, "\"");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct lcase *c = &cases[i];
		mmv_registry_t *r = mmv_stats_registry("labels", 1, 0);
		int rc;

		if (!r) {
			printf("%s %s registry-failed\n", c->id, c->tag);
			continue;
		}
		mmv_stats_add_indom(r, 1, NULL, NULL);
		(void)mmv_stats_add_instance(r, 1, 0, "i");
		mmv_stats_add_metric(r, "m", 1, MMV_TYPE_U32, MMV_SEM_INSTANT,
				     (pmUnits)MMV_UNITS(0, 0, 0, 0, 0, 0), 1, NULL, NULL);
		if (c->twice || c->first) {
			errno = 0;
			rc = add(r, c, c->first ? c->first : c->name);
			if (rc != 0)
				printf("%s %s first-add-failed %s\n", c->id, c->tag, errname(errno));
		}
		errno = 0;
		rc = add(r, c, c->name);
		printf("%s %s %s\n", c->id, c->tag, rc == 0 ? "ok" : errname(errno));
		mmv_stats_free(r);
	}
	return 0;
}
