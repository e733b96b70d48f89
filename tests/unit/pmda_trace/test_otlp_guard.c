/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The OTLP receiver's guard (pmda_trace/otlp/guard.h): the bearer token's
 * file checks, the Authorization header's parsing and its comparison,
 * and which listen addresses stay on the loopback.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "../../../pmda_trace/otlp/guard.h"

static enum otlp_auth check(const struct otlp_token *t, const char *value)
{
	return otlp_token_check(t, value, value ? strlen(value) : 0);
}

static void equal_ct(void **state)
{
	unsigned char a[OTLP_TOKEN_MAX], b[OTLP_TOKEN_MAX];

	(void)state;
	memset(a, 'x', sizeof(a));
	memcpy(b, a, sizeof(b));
	assert_int_equal(otlp_equal_ct(a, b, sizeof(a)), 1);
	b[0] ^= 1;	/* the first byte differs */
	assert_int_equal(otlp_equal_ct(a, b, sizeof(a)), 0);
	b[0] ^= 1;
	b[sizeof(b) - 1] ^= 0x80;	/* the last */
	assert_int_equal(otlp_equal_ct(a, b, sizeof(a)), 0);
	assert_int_equal(otlp_equal_ct(a, b, 0), 1);
}

static void token_values(void **state)
{
	struct otlp_token t;
	char big[OTLP_TOKEN_MAX + 2];

	(void)state;
	assert_int_equal(otlp_token_set(&t, "s3cret-Token_1", 14), 0);
	assert_int_equal(t.len, 14);
	assert_int_equal(t.v[14], 0);	/* zero-padded */
	assert_int_equal(otlp_token_set(&t, "", 0), -EINVAL);
	assert_int_equal(otlp_token_set(&t, "two words", 9), -EINVAL);
	assert_int_equal(otlp_token_set(&t, "tab\there", 8), -EINVAL);
	assert_int_equal(otlp_token_set(&t, "caf\xc3\xa9", 5), -EINVAL);
	memset(big, 'k', sizeof(big));
	assert_int_equal(otlp_token_set(&t, big, OTLP_TOKEN_MAX), 0);
	assert_int_equal(otlp_token_set(&t, big, OTLP_TOKEN_MAX + 1), -EINVAL);
}

static void authorization(void **state)
{
	struct otlp_token t;
	char big[OTLP_TOKEN_MAX + 64];

	(void)state;
	assert_int_equal(otlp_token_set(&t, "s3cret", 6), 0);
	assert_int_equal(check(&t, "Bearer s3cret"), OTLP_AUTH_OK);
	assert_int_equal(check(&t, "bearer s3cret"), OTLP_AUTH_OK);	/* the scheme in any case */
	assert_int_equal(check(&t, "  BEARER \t s3cret \r\n"), OTLP_AUTH_OK);
	assert_int_equal(check(&t, NULL), OTLP_AUTH_MISSING);
	assert_int_equal(check(&t, ""), OTLP_AUTH_MISSING);
	assert_int_equal(check(&t, "   "), OTLP_AUTH_MISSING);
	assert_int_equal(check(&t, "Bearer"), OTLP_AUTH_WRONG);
	assert_int_equal(check(&t, "Bearer "), OTLP_AUTH_WRONG);
	assert_int_equal(check(&t, "Bearers3cret"), OTLP_AUTH_WRONG);
	assert_int_equal(check(&t, "Basic s3cret"), OTLP_AUTH_WRONG);
	assert_int_equal(check(&t, "s3cret"), OTLP_AUTH_WRONG);
	assert_int_equal(check(&t, "Bearer s3cre"), OTLP_AUTH_WRONG);	/* a prefix */
	assert_int_equal(check(&t, "Bearer s3cret2"), OTLP_AUTH_WRONG);	/* longer */
	assert_int_equal(check(&t, "Bearer S3cret"), OTLP_AUTH_WRONG);	/* the token's case counts */
	assert_int_equal(check(&t, "Bearer s3cret s3cret"), OTLP_AUTH_WRONG);
	/* longer than any token: wrong, and nothing read past the buffer */
	memcpy(big, "Bearer ", 7);
	memset(big + 7, 's', sizeof(big) - 8);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(check(&t, big), OTLP_AUTH_WRONG);
	/* a token of the longest length, and one byte off at its end */
	memset(big + 7, 'q', OTLP_TOKEN_MAX);
	big[7 + OTLP_TOKEN_MAX] = '\0';
	assert_int_equal(otlp_token_set(&t, big + 7, OTLP_TOKEN_MAX), 0);
	assert_int_equal(check(&t, big), OTLP_AUTH_OK);
	big[6 + OTLP_TOKEN_MAX] = 'r';
	assert_int_equal(check(&t, big), OTLP_AUTH_WRONG);
}

/* A file in a fresh folder with @text and @mode; its path in @path. */
static void token_file(char *path, size_t cap, const char *text, mode_t mode)
{
	static char dir[64];
	int fd;

	if (dir[0] == '\0')
		assert_non_null(mkdtemp(strcpy(dir, "/tmp/otlp_guard.XXXXXX")));
	snprintf(path, cap, "%s/token", dir);
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(chmod(path, mode), 0);
}

static void load(void **state)
{
	struct otlp_token t;
	char path[128], why[256], dir[128];

	(void)state;
	token_file(path, sizeof(path), "  tok-42\n", 0600);
	assert_int_equal(otlp_token_load(path, geteuid(), &t, why, sizeof(why)), 0);
	assert_int_equal(t.len, 6);
	assert_memory_equal(t.v, "tok-42", 6);
	token_file(path, sizeof(path), "tok-42\n", 0400);
	assert_int_equal(otlp_token_load(path, geteuid(), &t, why, sizeof(why)), 0);
	token_file(path, sizeof(path), "tok-42\n", 0640);	/* group may read */
	assert_int_equal(otlp_token_load(path, geteuid(), &t, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "readable or writable by group or others"));
	token_file(path, sizeof(path), "tok-42\n", 0602);	/* others may write */
	assert_int_equal(otlp_token_load(path, geteuid(), &t, why, sizeof(why)), -EPERM);
	token_file(path, sizeof(path), "tok-42\n", 0600);
	assert_int_equal(otlp_token_load(path, geteuid() + 1, &t, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not by the agent's user"));
	token_file(path, sizeof(path), "\n", 0600);
	assert_int_equal(otlp_token_load(path, geteuid(), &t, why, sizeof(why)), -EINVAL);
	token_file(path, sizeof(path), "two words\n", 0600);
	assert_int_equal(otlp_token_load(path, geteuid(), &t, why, sizeof(why)), -EINVAL);
	assert_int_equal(otlp_token_load("/nonexistent/token", geteuid(), &t, why, sizeof(why)),
			 -ENOENT);
	snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(path, '/') - path), path);
	assert_int_equal(otlp_token_load(dir, geteuid(), &t, why, sizeof(why)), -EINVAL);
	unlink(path);
	rmdir(dir);
}

static void loopback(void **state)
{
	(void)state;
	assert_int_equal(otlp_host_is_loopback(NULL), 1);
	assert_int_equal(otlp_host_is_loopback(""), 1);
	assert_int_equal(otlp_host_is_loopback("127.0.0.1"), 1);
	assert_int_equal(otlp_host_is_loopback("127.3.2.1"), 1);
	assert_int_equal(otlp_host_is_loopback("::1"), 1);
	assert_int_equal(otlp_host_is_loopback("::ffff:127.0.0.1"), 1);
	assert_int_equal(otlp_host_is_loopback("0.0.0.0"), 0);
	assert_int_equal(otlp_host_is_loopback("::"), 0);
	assert_int_equal(otlp_host_is_loopback("10.77.0.1"), 0);
	assert_int_equal(otlp_host_is_loopback("128.0.0.1"), 0);
	assert_int_equal(otlp_host_is_loopback("no-such-host.invalid"), 0);
}

static void protection_text(void **state)
{
	char buf[128];

	(void)state;
	assert_string_equal(otlp_protection_text(0, buf, sizeof(buf)), "none");
	assert_string_equal(otlp_protection_text(OTLP_PROTECT_TOKEN, buf, sizeof(buf)),
			    "bearer token (-a)");
	assert_string_equal(otlp_protection_text(OTLP_PROTECT_ACCESS | OTLP_PROTECT_TOKEN, buf,
						 sizeof(buf)),
			    "host access list (-A), bearer token (-a)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(equal_ct),
		cmocka_unit_test(token_values),
		cmocka_unit_test(authorization),
		cmocka_unit_test(load),
		cmocka_unit_test(loopback),
		cmocka_unit_test(protection_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
