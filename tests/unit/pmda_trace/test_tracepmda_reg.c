/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The agent's registration decoder (pmda_trace/core/reg.c): what the
 * client library sends is taken; each field out of bounds, a message
 * that does not decode or is too long, is refused with a reason. The
 * fuzzer's seeds (tests/fuzz/corpus/trace_reg) decode.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../../pmda_trace/core/reg.h"
#include "trace_reg.pb-c.h"

static Tra__TraceShmRegister good(void)
{
	Tra__TraceShmRegister m = TRA__TRACE_SHM_REGISTER__INIT;

	m.version = TRACE_REG_VERSION;
	m.layout = TRACE_SHM_VERSION;
	m.tags = TRACE_SHM_TAGS;
	m.rows = TRACE_SHM_ROWS;
	m.size = trace_shm_size(TRACE_SHM_TAGS, TRACE_SHM_ROWS);
	m.tcp_port = 4323;
	m.program = (char *)"acme\tbuild";
	return m;
}

/* decode @m: 0 or -EINVAL, the reason must contain @want */
static int decode(const Tra__TraceShmRegister *m, struct tra_reg *r, const char *want)
{
	uint8_t buf[TRACE_REG_MAX * 2];
	char why[160] = "";
	size_t n = tra__trace_shm_register__pack(m, buf);
	int sts = tra_reg_decode(buf, n, r, why, sizeof(why));

	if (want != NULL && strstr(why, want) == NULL)
		fail_msg("reason \"%s\", expected \"%s\"", why, want);
	return sts;
}

static void accepted(void **state)
{
	Tra__TraceShmRegister m = good();
	struct tra_reg r;

	(void)state;
	assert_int_equal(decode(&m, &r, NULL), 0);
	assert_int_equal(r.tags, TRACE_SHM_TAGS);
	assert_int_equal(r.rows, TRACE_SHM_ROWS);
	assert_int_equal(r.tcp_port, 4323);
	assert_string_equal(r.program, "acme?build");	/* printable only */
	m.version = 99;	/* a later revision: fields are only ever added */
	assert_int_equal(decode(&m, &r, NULL), 0);
}

static void refused(void **state)
{
	Tra__TraceShmRegister m;
	struct tra_reg r;
	char longname[TRACE_REG_MAX + 1];
	uint8_t junk[] = { 0xff, 0xff, 0xff, 0xff };
	char why[160];

	(void)state;
	m = good(); m.version = 0;
	assert_int_equal(decode(&m, &r, "version 0"), -EINVAL);
	m = good(); m.layout = TRACE_SHM_VERSION + 1;
	assert_int_equal(decode(&m, &r, "layout"), -EINVAL);
	m = good(); m.tags = 0;
	assert_int_equal(decode(&m, &r, "geometry"), -EINVAL);
	m = good(); m.rows = TRACE_SHM_ROWS_MAX + 1;
	assert_int_equal(decode(&m, &r, "geometry"), -EINVAL);
	m = good(); m.size -= 1;
	assert_int_equal(decode(&m, &r, "size"), -EINVAL);
	m = good(); m.tcp_port = 70000;
	assert_int_equal(decode(&m, &r, "port"), -EINVAL);
	m = good(); m.tcp_port = 0;
	assert_int_equal(decode(&m, &r, "port"), -EINVAL);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	m = good(); m.program = longname;
	assert_int_equal(decode(&m, &r, "bytes"), -EINVAL);
	assert_int_equal(tra_reg_decode(junk, sizeof(junk), &r, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "does not decode"));
	assert_int_equal(tra_reg_decode(junk, 0, &r, why, sizeof(why)), -EINVAL);
}

static void seeds(void **state)
{
	static const char *const names[] = { "default", "small", "newer" };

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		char path[128], why[160] = "";
		uint8_t buf[TRACE_REG_MAX];
		struct tra_reg r;
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "tests/fuzz/corpus/trace_reg/%s", names[i]);
		assert_non_null(f = fopen(path, "rb"));
		n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		if (tra_reg_decode(buf, n, &r, why, sizeof(why)) != 0)
			fail_msg("%s: %s", names[i], why);
	}
}

static void reply_round_trip(void **state)
{
	uint8_t buf[TRACE_REG_MAX];
	char reason[TRACE_REG_MAX * 2];
	Tra__TraceShmReply *r;
	size_t n;

	(void)state;
	n = tra_reg_reply(buf, -EINVAL, "not sealed");
	assert_non_null(r = tra__trace_shm_reply__unpack(NULL, n, buf));
	assert_int_equal(r->status, -EINVAL);
	assert_string_equal(r->reason, "not sealed");
	tra__trace_shm_reply__free_unpacked(r, NULL);
	/* a reason too long for the message is left out */
	memset(reason, 'x', sizeof(reason) - 1);
	reason[sizeof(reason) - 1] = '\0';
	n = tra_reg_reply(buf, -EINVAL, reason);
	assert_true(n <= TRACE_REG_MAX);
	assert_non_null(r = tra__trace_shm_reply__unpack(NULL, n, buf));
	assert_null(r->reason);
	tra__trace_shm_reply__free_unpacked(r, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accepted),
		cmocka_unit_test(refused),
		cmocka_unit_test(seeds),
		cmocka_unit_test(reply_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
