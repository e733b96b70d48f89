/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pmda_trace -A access control: the decision rules of docs/trace-protocol.md §6.2
 * (the quoted experiments), with our single-charge loopback rule.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "../../../pmda_trace/core/access.h"

static enum access_verdict admit(struct access_list *acl, const char *ip, int *slot)
{
	struct in_addr in;
	int dummy;

	assert_int_equal(inet_pton(AF_INET, ip, &in), 1);
	return tra_access_admit(acl, in, slot ? slot : &dummy);
}

static struct access_list *list_of(const char **specs)
{
	struct access_list *acl = tra_access_new();
	char why[128];

	for (; *specs; specs++)
		assert_int_equal(tra_access_add(acl, *specs, why, sizeof(why)), 0);
	return acl;
}

static void no_rules_allow_all(void **state)
{
	struct access_list *acl = tra_access_new();

	(void)state;
	assert_int_equal(admit(acl, "10.9.8.7", NULL), ACCESS_OK);
	tra_access_free(acl);
}

static void unmatched_host_is_allowed(void **state)
{
	const char *specs[] = { "allow:10.1.2.3:0", NULL };
	struct access_list *acl = list_of(specs);

	(void)state;
	assert_int_equal(admit(acl, "127.0.0.1", NULL), ACCESS_OK);
	tra_access_free(acl);
}

static void most_specific_wins(void **state)
{
	const char *a[] = { "disallow:127.0.0.*", "allow:127.0.0.2:0", NULL };
	const char *b[] = { "disallow:127.0.0.2", "allow:127.0.0.*:0", NULL };
	struct access_list *acl = list_of(a);

	(void)state;
	assert_int_equal(admit(acl, "127.0.0.2", NULL), ACCESS_OK);
	assert_int_equal(admit(acl, "127.0.0.3", NULL), ACCESS_DENIED);
	tra_access_free(acl);
	acl = list_of(b);
	assert_int_equal(admit(acl, "127.0.0.2", NULL), ACCESS_DENIED);
	assert_int_equal(admit(acl, "127.0.0.3", NULL), ACCESS_OK);
	tra_access_free(acl);
}

static void star_and_prefixes(void **state)
{
	const char *specs[] = { "DISALLOW:*", "Allow: 192.168.*:0", NULL };
	struct access_list *acl = list_of(specs);

	(void)state;
	assert_int_equal(admit(acl, "192.168.4.5", NULL), ACCESS_OK);
	assert_int_equal(admit(acl, "10.0.0.1", NULL), ACCESS_DENIED);
	tra_access_free(acl);
}

static void connection_limit(void **state)
{
	const char *specs[] = { "allow:127.0.0.2:1", NULL };
	struct access_list *acl = list_of(specs);
	int slot;

	(void)state;
	assert_int_equal(admit(acl, "127.0.0.2", &slot), ACCESS_OK);
	assert_int_equal(admit(acl, "127.0.0.2", NULL), ACCESS_LIMIT);
	assert_int_equal(admit(acl, "127.0.0.2", NULL), ACCESS_LIMIT);
	tra_access_release(acl, slot);
	assert_int_equal(admit(acl, "127.0.0.2", NULL), ACCESS_OK);
	tra_access_free(acl);
}

static void loopback_charged_once(void **state)
{
	const char *specs[] = { "allow:127.0.0.1:1", NULL };
	struct access_list *acl = list_of(specs);

	(void)state;
	/* PCP refuses even the first local client here (docs/trace-protocol.md §6.2, a quirk of PCP) */
	assert_int_equal(admit(acl, "127.0.0.1", NULL), ACCESS_OK);
	assert_int_equal(admit(acl, "127.0.0.1", NULL), ACCESS_LIMIT);
	tra_access_free(acl);
}

static void invalid_specs(void **state)
{
	const char *bad[] = { "allow:127.0.0.1", "allow:127.0.0.1:", "permit:*:0",
		"allow:*:x", "allow:*:-1", "disallow", "allow::0", "allow:1.2.3.4.*:0",
		"allow:no-such-host.invalid:0", NULL };
	struct access_list *acl = tra_access_new();
	char why[128];

	(void)state;
	for (const char **s = bad; *s; s++)
		assert_int_equal(tra_access_add(acl, *s, why, sizeof(why)), -EINVAL);
	assert_int_equal(tra_access_add(acl, "disallow:1.2.3.4:ignored", why, sizeof(why)), 0);
	tra_access_free(acl);
}

/* The OTLP receiver's clients, of either family (tra_access_admit_sa). */
static enum access_verdict admit_sa(struct access_list *acl, const char *ip, int *slot)
{
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	int dummy;

	if (inet_pton(AF_INET, ip, &s4.sin_addr) == 1)
		return tra_access_admit_sa(acl, (struct sockaddr *)&s4, slot ? slot : &dummy);
	assert_int_equal(inet_pton(AF_INET6, ip, &s6.sin6_addr), 1);
	return tra_access_admit_sa(acl, (struct sockaddr *)&s6, slot ? slot : &dummy);
}

static void either_family(void **state)
{
	const char *specs[] = { "allow:10.77.0.1:0", "allow:127.0.0.*:0", "disallow:*", NULL };
	struct access_list *acl = list_of(specs);

	(void)state;
	assert_int_equal(admit_sa(acl, "10.77.0.1", NULL), ACCESS_OK);
	assert_int_equal(admit_sa(acl, "10.77.0.2", NULL), ACCESS_DENIED);
	assert_int_equal(admit_sa(acl, "::ffff:10.77.0.1", NULL), ACCESS_OK);
	assert_int_equal(admit_sa(acl, "::ffff:10.77.0.2", NULL), ACCESS_DENIED);
	assert_int_equal(admit_sa(acl, "::1", NULL), ACCESS_OK);	/* as 127.0.0.1 */
	assert_int_equal(admit_sa(acl, "fd00::1", NULL), ACCESS_DENIED);	/* "*" alone */
	tra_access_free(acl);
	acl = tra_access_new();
	assert_int_equal(admit_sa(acl, "fd00::1", NULL), ACCESS_OK);	/* no rules */
	tra_access_free(acl);
}

static void copies_count_apart(void **state)
{
	const char *specs[] = { "allow:10.77.0.1:1", "disallow:*", NULL };
	struct access_list *acl = list_of(specs), *copy;
	int slot, slot2;

	(void)state;
	assert_int_equal(admit_sa(acl, "10.77.0.1", &slot), ACCESS_OK);
	assert_int_equal(admit_sa(acl, "10.77.0.1", NULL), ACCESS_LIMIT);
	copy = tra_access_dup(acl);	/* the rules, no connection charged */
	assert_non_null(copy);
	assert_int_equal(admit_sa(copy, "10.77.0.1", &slot2), ACCESS_OK);
	assert_int_equal(admit_sa(copy, "10.77.0.1", NULL), ACCESS_LIMIT);
	assert_int_equal(admit_sa(copy, "10.77.0.2", NULL), ACCESS_DENIED);
	tra_access_release(copy, slot2);
	assert_int_equal(admit_sa(copy, "10.77.0.1", NULL), ACCESS_OK);
	assert_int_equal(admit_sa(acl, "10.77.0.1", NULL), ACCESS_LIMIT);
	tra_access_release(acl, slot);
	tra_access_free(copy);
	tra_access_free(acl);
}

/* Which lists protect a listener off the loopback: those that refuse the rest. */
static void restricts(void **state)
{
	const char *yes[][4] = {
		{ "allow:10.77.0.1:0", "disallow:*", NULL },
		{ "disallow:*", "allow:10.*:4", NULL },
		{ "allow:*:0", "disallow:*", "allow:10.0.0.1:0", NULL },	/* the tie refuses */
	};
	const char *no[][4] = {
		{ NULL },
		{ "allow:10.77.0.1:0", NULL },		/* the rest still admitted */
		{ "disallow:10.77.0.2", NULL },
		{ "disallow:*", NULL },			/* nobody at all: not a protection */
		{ "allow:*:4", NULL },			/* a limit, not a list */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		struct access_list *acl = list_of(yes[i]);

		assert_int_equal(tra_access_restricts(acl), 1);
		tra_access_free(acl);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		struct access_list *acl = list_of(no[i]);

		assert_int_equal(tra_access_restricts(acl), 0);
		tra_access_free(acl);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(no_rules_allow_all),
		cmocka_unit_test(unmatched_host_is_allowed),
		cmocka_unit_test(most_specific_wins),
		cmocka_unit_test(star_and_prefixes),
		cmocka_unit_test(connection_limit),
		cmocka_unit_test(loopback_charged_once),
		cmocka_unit_test(invalid_specs),
		cmocka_unit_test(either_family),
		cmocka_unit_test(copies_count_apart),
		cmocka_unit_test(restricts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
