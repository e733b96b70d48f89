/* Placeholder proving the unit-test pipeline; replaced by per-module suites. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <pcp/mmv_stats.h>

static void registry_rejects_null_file(void **state)
{
	(void)state;
	assert_null(mmv_stats_registry(NULL, 0, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(registry_rejects_null_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
